//! Simulator tests of the CTA scan and reduce against plain folds.

use super::*;
use mgpu_core::sim::{launch, SimCta};
use mgpu_core::{BitXor, Maximum, Multiplies, Plus};
use proptest::prelude::*;

/// Runs `cta_scan` and `cta_reduce` on `xs` (length NT) and checks every thread's result.
fn check<T: Element, Op: AssociativeOp<T>, const NT: usize>(xs: &[T]) {
    assert_eq!(xs.len(), NT);
    let mut exc = vec![T::ZERO; NT];
    let mut inc = vec![T::ZERO; NT];
    let mut tot = vec![T::ZERO; NT];
    let mut red = vec![T::ZERO; NT];
    let ptrs = [
        exc.as_mut_ptr() as usize,
        inc.as_mut_ptr() as usize,
        tot.as_mut_ptr() as usize,
        red.as_mut_ptr() as usize,
    ];
    let xp = xs.as_ptr() as usize;
    let bytes = cta_scan_shared_len(NT) * core::mem::size_of::<T>();
    launch(1, NT as u32, bytes, &|cta: &SimCta| unsafe {
        let t = cta.tid() as usize;
        let x = *(xp as *const T).add(t);
        let sh = cta.shared::<T>(0);
        let (e, total) = cta_scan::<_, T, Op, NT>(cta, x, sh, ScanKind::Exclusive);
        cta.sync();
        let (i, _) = cta_scan::<_, T, Op, NT>(cta, x, sh, ScanKind::Inclusive);
        cta.sync();
        let r = cta_reduce::<_, T, Op, NT>(cta, x, sh);
        *(ptrs[0] as *mut T).add(t) = e;
        *(ptrs[1] as *mut T).add(t) = i;
        *(ptrs[2] as *mut T).add(t) = total;
        *(ptrs[3] as *mut T).add(t) = r;
    });
    let mut acc = Op::identity();
    for t in 0..NT {
        assert_eq!(exc[t], acc, "exclusive at {t}");
        acc = Op::apply(acc, xs[t]);
        assert_eq!(inc[t], acc, "inclusive at {t}");
    }
    assert!(tot.iter().all(|&v| v == acc), "scan total");
    assert!(red.iter().all(|&v| v == acc), "reduce total");
}

/// One proptest a case `name: T, Op, NT;`: [`check`] on `NT` random values of `T`.
macro_rules! scan_cases {
    ($($name:ident: $t:ty, $op:ty, $nt:literal;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(16))]
            $(
                #[test]
                fn $name(xs in proptest::collection::vec(any::<$t>(), $nt)) {
                    check::<$t, $op, $nt>(&xs);
                }
            )*
        }
    };
}

scan_cases! {
    scan_u32_plus_128: u32, Plus, 128;
    scan_i64_max_256: i64, Maximum, 256;
    scan_u64_xor_32: u64, BitXor, 32;
    scan_i32_mul_96: i32, Multiplies, 96;
}

#[test]
fn scan_f64_plus_exact_values() {
    // Small integers: every association order gives the exact sum, so == is right.
    let xs: Vec<f64> = (0..512).map(|i| ((i * 37) % 11) as f64 - 5.0).collect();
    check::<f64, Plus, 512>(&xs);
}

#[test]
fn scan_1024_threads() {
    let xs: Vec<u32> = (0..1024).map(|i| i * 3 + 1).collect();
    check::<u32, Plus, 1024>(&xs);
}
