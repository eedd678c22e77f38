//! Properties of scan and reduce against a plain sequential fold, for every element type
//! and every operator that applies to it, at the edge sizes around the chunk length.
//!
//! Integers are compared bit for bit (all their operators are associative). Float inputs
//! are chosen so that every association order gives the same bits, so floats are
//! compared bit for bit too: `Plus` gets small integers (every partial sum, at most
//! 8 * 5 * 2^16 < 2^24, is exact in f32 and f64), `Multiplies` gets mostly ±1 with rare
//! 2, 0.5 and 0 (products are signed powers of two whose exponent stays far inside the
//! f32 range), `Maximum`/`Minimum` get arbitrary finite values, signed zeros included
//! (selection is exact). `float_sums_within_rounding` covers arbitrary float sums with a
//! stated tolerance.

mod common;

use common::{reference, EDGE_SIZES};
use mgpu_core::{
    AssociativeOp, BitAnd, BitOr, BitXor, Element, Error, Maximum, Minimum, Multiplies, Plus,
};
use mgpu_testkit::Rng;
use proptest::prelude::*;

/// Checks all five entry points on `xs` against the sequential reference, bit for bit.
fn check_all<T: Element, Op: AssociativeOp<T>>(xs: &[T], bits: impl Fn(T) -> u64 + Sync) {
    let (ex, inc, total) = reference(xs, Op::identity(), Op::apply);
    let same = |a: &[T], b: &[T]| a.iter().map(|&v| bits(v)).eq(b.iter().map(|&v| bits(v)));
    let n = xs.len();
    // Entry point `form` gave `got` and the total `t`: `want` and `total`, bit for bit.
    let check = |form: &str, got: &[T], want: &[T], t: T| {
        assert!(same(got, want), "{form} n={n}");
        assert_eq!(bits(t), bits(total), "{form} total n={n}");
    };

    let mut out = vec![T::default(); n];
    let t = mgpu_cpu::scan_exclusive::<T, Op>(xs, &mut out).unwrap();
    check("scan_exclusive", &out, &ex, t);

    let t = mgpu_cpu::scan_inclusive::<T, Op>(xs, &mut out).unwrap();
    check("scan_inclusive", &out, &inc, t);

    let mut data = xs.to_vec();
    let t = mgpu_cpu::scan_exclusive_in_place::<T, Op>(&mut data);
    check("scan_exclusive_in_place", &data, &ex, t);

    let mut data = xs.to_vec();
    let t = mgpu_cpu::scan_inclusive_in_place::<T, Op>(&mut data);
    check("scan_inclusive_in_place", &data, &inc, t);

    assert_eq!(
        bits(mgpu_cpu::reduce::<T, Op>(xs)),
        bits(total),
        "reduce n={n}"
    );

    // A one-thread pool takes the one-pass path for long inputs: the same bits.
    if n >= mgpu_cpu::PARALLEL_MIN_LEN {
        single_thread_pool().install(|| {
            let t = mgpu_cpu::scan_exclusive::<T, Op>(xs, &mut out).unwrap();
            check("1 thread: scan_exclusive", &out, &ex, t);
            let mut data = xs.to_vec();
            let t = mgpu_cpu::scan_inclusive_in_place::<T, Op>(&mut data);
            check("1 thread: scan_inclusive_in_place", &data, &inc, t);
        });
    }
}

fn single_thread_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
    })
}

/// A size: one of the edge sizes, or a small random one.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(EDGE_SIZES.to_vec()), 0usize..600]
}

macro_rules! int_props {
    ($($name:ident: $t:ty => $($op:ident),+;)*) => {$(
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn $name(n in size(), seed in any::<u64>(), small in any::<bool>()) {
                let mut rng = Rng::new(seed);
                // Full-range values exercise wrapping; small ones keep products and
                // bit patterns from collapsing to 0 or all ones at once.
                let xs: Vec<$t> = (0..n)
                    .map(|_| {
                        let r = rng.next_u64();
                        if small { (r % 7) as $t } else { r as $t }
                    })
                    .collect();
                $( check_all::<$t, $op>(&xs, |v| v as u64); )+
            }
        }
    )*};
}

int_props! {
    i32_all_ops: i32 => Plus, Multiplies, Maximum, Minimum, BitAnd, BitOr, BitXor;
    u32_all_ops: u32 => Plus, Multiplies, Maximum, Minimum, BitAnd, BitOr, BitXor;
    i64_all_ops: i64 => Plus, Multiplies, Maximum, Minimum, BitAnd, BitOr, BitXor;
    u64_all_ops: u64 => Plus, Multiplies, Maximum, Minimum, BitAnd, BitOr, BitXor;
}

macro_rules! float_props {
    ($($name:ident: $t:ty;)*) => {$(
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn $name(n in size(), seed in any::<u64>()) {
                let mut rng = Rng::new(seed);
                let bits = |v: $t| v.to_bits() as u64;

                let ints: Vec<$t> = (0..n).map(|_| rng.below(17) as $t - 8.0).collect();
                check_all::<$t, Plus>(&ints, bits);

                let factors: Vec<$t> = (0..n)
                    .map(|_| match rng.below(4096) {
                        0 => 2.0,
                        1 => 0.5,
                        2 => 0.0,
                        r if r % 2 == 0 => 1.0,
                        _ => -1.0,
                    })
                    .collect();
                check_all::<$t, Multiplies>(&factors, bits);

                let any: Vec<$t> = (0..n)
                    .map(|_| match rng.below(64) {
                        0 => 0.0,
                        1 => -0.0,
                        _ => ((rng.next_f64() - 0.5) * 1e6) as $t,
                    })
                    .collect();
                check_all::<$t, Maximum>(&any, bits);
                check_all::<$t, Minimum>(&any, bits);
            }
        }
    )*};
}

float_props! {
    f32_all_ops: f32;
    f64_all_ops: f64;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// Arbitrary float sums agree with the left-to-right loop within rounding: for every
    /// prefix, |chunked - sequential| <= tol * (|x_0| + ... + |x_i|).
    ///
    /// f64: tol = 1e-9, rigorous here: each order is a summation tree of depth <= n, so
    /// each is within n * eps * sum|x| of the exact sum (Higham), and 2 * n * eps is
    /// 7.3e-11 at the largest size (5 * CHUNK_LEN). f32: the same bound is 0.04, useless;
    /// rounding errors of random data grow like sqrt(n) * eps instead (about 1e-7 of
    /// sum|x| here), so tol = 1e-4 leaves a margin of 1000. Algorithmic errors (a wrong
    /// carry, a dropped element) are caught bit for bit by the exact-valued properties.
    #[test]
    fn float_sums_within_rounding(n in size(), seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let xs: Vec<f64> = (0..n).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
        let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        let mut abs = 0.0f64;
        let scale: Vec<f64> = xs.iter().map(|x| { abs += x.abs(); abs }).collect();

        let (_, inc, total) = reference(&xs, 0.0, |a, b| a + b);
        let mut out = vec![0.0; n];
        let t = mgpu_cpu::scan_inclusive::<f64, Plus>(&xs, &mut out).unwrap();
        for i in 0..n {
            prop_assert!((out[i] - inc[i]).abs() <= 1e-9 * scale[i].max(1.0), "f64 i={}", i);
        }
        prop_assert!((t - total).abs() <= 1e-9 * abs.max(1.0));

        let (_, inc32, total32) = reference(&xs32, 0.0f32, |a, b| a + b);
        let mut out32 = vec![0.0f32; n];
        let t32 = mgpu_cpu::scan_inclusive::<f32, Plus>(&xs32, &mut out32).unwrap();
        for i in 0..n {
            let err = (out32[i] as f64 - inc32[i] as f64).abs();
            prop_assert!(err <= 1e-4 * scale[i].max(1.0), "f32 i={}", i);
        }
        prop_assert!((t32 as f64 - total32 as f64).abs() <= 1e-4 * abs.max(1.0));

        // Whatever the association, the total, reduce and the last inclusive output agree.
        prop_assert_eq!(mgpu_cpu::reduce::<f32, Plus>(&xs32).to_bits(), t32.to_bits());
        if n > 0 {
            prop_assert_eq!(out32[n - 1].to_bits(), t32.to_bits());
        }
    }
}

#[test]
fn small_inputs_are_bitwise_left_to_right_for_floats() {
    // Below the parallel threshold the order is the plain loop's, even for float sums.
    let mut rng = Rng::new(7);
    let xs: Vec<f32> = (0..mgpu_cpu::PARALLEL_MIN_LEN - 1)
        .map(|_| rng.next_f64() as f32)
        .collect();
    let (ex, _, total) = reference(&xs, 0.0f32, |a, b| a + b);
    let mut out = vec![0.0f32; xs.len()];
    let t = mgpu_cpu::scan_exclusive::<f32, Plus>(&xs, &mut out).unwrap();
    assert_eq!(t.to_bits(), total.to_bits());
    assert!(out.iter().zip(&ex).all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn length_mismatch_is_an_error_and_writes_nothing() {
    let xs = [1i32, 2, 3];
    let expect = |got| {
        Err(Error::LengthMismatch {
            what: "output",
            expected: 3,
            got,
        })
    };
    // Outputs one short and one over: both scans refuse them and leave them as they were.
    for len in [2, 4] {
        let mut out = vec![9i32; len];
        let exclusive = mgpu_cpu::scan_exclusive::<i32, Plus>(&xs, &mut out);
        assert_eq!(exclusive, expect(len), "exclusive, output of {len}");
        let inclusive = mgpu_cpu::scan_inclusive::<i32, Plus>(&xs, &mut out);
        assert_eq!(inclusive, expect(len), "inclusive, output of {len}");
        assert_eq!(out, vec![9; len], "output of {len}");
    }
    let mut empty: [f64; 0] = [];
    assert_eq!(
        mgpu_cpu::scan_exclusive::<f64, Plus>(&[1.0], &mut empty),
        Err(Error::LengthMismatch {
            what: "output",
            expected: 1,
            got: 0
        })
    );
}

#[test]
fn empty_input_gives_the_identity() {
    let mut out: [i32; 0] = [];
    assert_eq!(
        mgpu_cpu::scan_exclusive::<i32, Minimum>(&[], &mut out),
        Ok(i32::MAX)
    );
    assert_eq!(
        mgpu_cpu::scan_inclusive::<u64, BitAnd>(&[], &mut []),
        Ok(u64::MAX)
    );
    assert_eq!(
        mgpu_cpu::scan_exclusive_in_place::<f32, Multiplies>(&mut []),
        1.0
    );
    assert_eq!(
        mgpu_cpu::scan_inclusive_in_place::<f64, Maximum>(&mut []),
        f64::NEG_INFINITY
    );
    assert_eq!(mgpu_cpu::reduce::<u32, BitOr>(&[]), 0);
    assert_eq!(mgpu_cpu::reduce::<i64, BitXor>(&[]), 0);
}

/// Runs `f` in a rayon pool of `threads` threads.
fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn float_results_do_not_depend_on_the_thread_count() {
    let mut rng = Rng::new(42);
    let n = 7 * mgpu_cpu::CHUNK_LEN + 123;
    let xs: Vec<f32> = (0..n)
        .map(|_| (rng.next_f64() * 2.0 - 1.0) as f32)
        .collect();
    let xs64: Vec<f64> = (0..n).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
    let run = || {
        let mut ex = vec![0.0f32; n];
        let t_ex = mgpu_cpu::scan_exclusive::<f32, Plus>(&xs, &mut ex).unwrap();
        let mut inc = xs.clone();
        let t_inc = mgpu_cpu::scan_inclusive_in_place::<f32, Plus>(&mut inc);
        let r = mgpu_cpu::reduce::<f32, Plus>(&xs);
        let r64 = mgpu_cpu::reduce::<f64, Plus>(&xs64);
        let bits: Vec<u32> = ex.iter().chain(&inc).map(|v| v.to_bits()).collect();
        (
            bits,
            [t_ex.to_bits(), t_inc.to_bits(), r.to_bits()],
            r64.to_bits(),
        )
    };
    let one = in_pool(1, run);
    let four = in_pool(4, run);
    assert!(one == four, "results differ between 1 and 4 threads");
    // All three totals are the same bits.
    assert!(one.1.iter().all(|&b| b == one.1[0]));
}
