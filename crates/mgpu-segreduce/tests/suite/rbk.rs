//! `Backend::reduce_by_key` on every backend against the test kit's plain loop.

use mgpu::{
    Backend, BitAnd, BitOr, BitXor, Element, EqualTo, Mat2Mul, Maximum, Minimum, Multiplies, Plus,
};
use mgpu_segreduce::kernels::{RbkKey, RbkOp};
use mgpu_testkit::{self as kit, Rng, Target};

/// Items per tile of the sm_90 and sm_70 tunings.
const NV: usize = mgpu_segreduce::kernels::tuning::RBK.sm90.nv(4);
const NV70: usize = mgpu_segreduce::kernels::tuning::RBK.sm70.nv(4);

/// Seed 002's REDUCE BY KEY demonstration: the run lengths of its keys (0 to 8), the
/// values it printed, and the reductions it printed.
const SEED_RUNS: [usize; 9] = [3, 3, 29, 8, 2, 11, 13, 1, 30];
#[rustfmt::skip]
const SEED_VALUES: [i32; 100] = [
    2, 4, 2, 4, 1, 5, 3, 2, 4, 4,
    2, 5, 2, 2, 5, 3, 3, 5, 3, 3,
    2, 2, 1, 4, 4, 2, 1, 4, 1, 3,
    1, 3, 2, 4, 2, 5, 1, 2, 1, 5,
    4, 4, 1, 5, 4, 1, 5, 2, 3, 4,
    1, 2, 4, 2, 5, 4, 3, 4, 5, 3,
    3, 4, 2, 1, 1, 2, 3, 3, 2, 2,
    2, 4, 1, 5, 5, 2, 2, 4, 3, 1,
    3, 5, 4, 1, 2, 3, 2, 2, 5, 5,
    1, 3, 3, 3, 4, 5, 5, 2, 4, 3,
];
const SEED_REDUCED: [i32; 9] = [8, 10, 82, 23, 9, 33, 36, 2, 94];

fn golden(b: &Backend, _: Target) {
    let keys: Vec<i32> = (0..9)
        .flat_map(|k| std::iter::repeat_n(k as i32, SEED_RUNS[k]))
        .collect();
    let (k, v) = b
        .reduce_by_key(
            &b.upload(&keys).unwrap(),
            &b.upload(&SEED_VALUES).unwrap(),
            EqualTo,
            Plus,
        )
        .unwrap();
    assert_eq!(k.to_vec().unwrap(), (0..9).collect::<Vec<i32>>());
    assert_eq!(v.to_vec().unwrap(), SEED_REDUCED);
}

/// Runs `Op` by the runs of `keys` on `b` against the plain loop, bit for bit (the
/// values are integers, or floats whose sums stay exact), and a second run for the same
/// bits.
fn check<K: Element, T: Element, Op: RbkOp<T>>(
    b: &Backend,
    t: Target,
    what: &str,
    keys: &[K],
    values: &[T],
) where
    EqualTo: RbkKey<K>,
{
    let (want_k, want_v) =
        kit::reduce_by_key(keys, values, Op::identity(), Op::apply, |a, b| a == b);
    let (bk, bv) = (b.upload(keys).unwrap(), b.upload(values).unwrap());
    let (k, v) = t
        .timed(what, keys.len(), || {
            b.reduce_by_key(&bk, &bv, EqualTo, Op::default())
        })
        .unwrap();
    let (k, v) = (k.to_vec().unwrap(), v.to_vec().unwrap());
    assert_eq!(kit::bits(&k), kit::bits(&want_k), "{what}: keys");
    assert_eq!(kit::bits(&v), kit::bits(&want_v), "{what}: values");
    let (_, again) = b.reduce_by_key(&bk, &bv, EqualTo, Op::default()).unwrap();
    assert_eq!(
        kit::bits(&again.to_vec().unwrap()),
        kit::bits(&v),
        "{what}: deterministic"
    );
}

/// Keys with a new run at each item with probability `1 / avg` (ANCHORS.md): run `r`
/// has key `r % 7`, so that equal keys also meet across runs only when adjacent runs
/// differ.
fn run_keys(rng: &mut Rng, n: usize, avg: u64) -> Vec<u32> {
    let mut key = 0u32;
    (0..n)
        .map(|i| {
            if i > 0 && rng.below(avg) == 0 {
                key = (key + 1 + rng.below(6) as u32) % 7;
            }
            key
        })
        .collect()
}

/// Sizes around tile multiples of both tunings, then large ones (within the budget).
fn sizes(t: Target) -> Vec<usize> {
    let mut all = vec![0, 1, 2, 31, 33];
    for nv in [NV, NV70] {
        for k in [1, 2, 3] {
            all.extend([k * nv - 1, k * nv, k * nv + 1]);
        }
    }
    all.extend([10_000, 1_000_000, 10_000_000, 100_000_000]);
    t.sizes(&all)
}

/// Runs of mean 1, 10 and 1000 (the benchmark's shapes), one run of everything, every
/// item its own run; i32 and f64 values.
fn shapes(b: &Backend, t: Target) {
    let mut rng = Rng::new(0x4b7);
    for n in sizes(t) {
        let vi: Vec<i32> = kit::uniform_values(&mut rng, n, 16);
        let vf: Vec<f64> = kit::uniform_values(&mut rng, n, 16);
        for avg in [1, 10, 1000] {
            let keys = run_keys(&mut rng, n, avg);
            check::<u32, i32, Plus>(b, t, &format!("runs of mean {avg}, n = {n}"), &keys, &vi);
            check::<u32, f64, Plus>(
                b,
                t,
                &format!("f64, runs of mean {avg}, n = {n}"),
                &keys,
                &vf,
            );
        }
        check::<u32, i32, Plus>(b, t, &format!("one run n = {n}"), &vec![3; n], &vi);
        let distinct: Vec<u64> = (0..n as u64).collect();
        check::<u64, i32, Plus>(b, t, &format!("all distinct n = {n}"), &distinct, &vi);
    }
}

/// Every key type, with the keys real data has: float keys with NaNs (each a run of its
/// own), -0.0 next to 0.0 (equal), infinities; integer keys at their extremes.
fn key_types(b: &Backend, t: Target) {
    let mut rng = Rng::new(0x4e7);
    for n in t.sizes(&[5, 3 * NV + 7, 100_000]) {
        let v: Vec<i64> = kit::random_bits(&mut rng, n);
        let pick = |rng: &mut Rng, pool: &[f64]| -> Vec<f64> {
            let mut out = Vec::with_capacity(n);
            while out.len() < n {
                let x = pool[rng.below(pool.len() as u64) as usize];
                let len = 1 + rng.below(12) as usize;
                out.extend(std::iter::repeat_n(x, len.min(n - out.len())));
            }
            out
        };
        let pool = [
            0.0,
            -0.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -2.25,
        ];
        let f64_keys = pick(&mut rng, &pool);
        let f32_keys: Vec<f32> = f64_keys.iter().map(|&x| x as f32).collect();
        check::<f64, i64, Plus>(b, t, &format!("f64 keys with NaNs, n = {n}"), &f64_keys, &v);
        check::<f32, i64, Plus>(b, t, &format!("f32 keys with NaNs, n = {n}"), &f32_keys, &v);
        let ints = pick(&mut rng, &[0.0, 1.0, 2.0]);
        let (extreme_i32, extreme_u32): (Vec<i32>, Vec<u32>) = ints
            .iter()
            .map(|&x| match x as u8 {
                0 => (i32::MIN, 0),
                1 => (i32::MAX, u32::MAX),
                _ => (-1, 1),
            })
            .unzip();
        let extreme_i64: Vec<i64> = extreme_i32.iter().map(|&x| x as i64 * (1 << 32)).collect();
        check::<i32, i64, Plus>(b, t, &format!("i32 keys n = {n}"), &extreme_i32, &v);
        check::<u32, i64, Plus>(b, t, &format!("u32 keys n = {n}"), &extreme_u32, &v);
        check::<i64, i64, Plus>(b, t, &format!("i64 keys n = {n}"), &extreme_i64, &v);
        let u64_keys: Vec<u64> = extreme_u32.iter().map(|&x| (x as u64) << 20).collect();
        check::<u64, i64, Plus>(b, t, &format!("u64 keys n = {n}"), &u64_keys, &v);
    }
}

/// Real data ([`kit::co2_weekly`]: Mauna Loa's weekly CO2, 1958 to 2001), seven copies
/// back to back: the readings in tenths of a ppm (missing weeks as 0) summed by year
/// (i32 keys: real runs of about 52, a year's run also where one copy meets the next)
/// and by whole-ppm value (f64 keys: consecutive weeks often share one; the 59 missing
/// weeks are NaN keys, each a run of its own since NaN is not equal to itself).
fn real_co2(b: &Backend, t: Target) {
    let weeks = kit::co2_weekly();
    let all: Vec<(u32, f64)> = weeks
        .iter()
        .copied()
        .cycle()
        .take(7 * weeks.len())
        .collect();
    for n in t.sizes(&[weeks.len(), all.len()]) {
        let weeks = &all[..n];
        let tenths: Vec<i64> = weeks
            .iter()
            .map(|w| {
                if w.1.is_nan() {
                    0
                } else {
                    (w.1 * 10.0).round() as i64
                }
            })
            .collect();
        let years: Vec<i32> = weeks.iter().map(|w| (w.0 / 10_000) as i32).collect();
        let ppm: Vec<f64> = weeks.iter().map(|w| w.1.floor()).collect();
        check::<i32, i64, Plus>(b, t, &format!("co2 by year, n = {n}"), &years, &tenths);
        check::<f64, i64, Plus>(b, t, &format!("co2 by whole ppm, n = {n}"), &ppm, &tenths);
        check::<i32, i64, Maximum>(b, t, &format!("co2 max by year, n = {n}"), &years, &tenths);
    }
}

/// Every operator, and the non-commutative 2x2 matrix product (order across threads,
/// tiles and chunks of tiles, one run of everything included).
fn ops(b: &Backend, t: Target) {
    let mut rng = Rng::new(0x0b6);
    for n in t.sizes(&[7, 2 * NV + 3, 40_000, 3_000_000]) {
        let keys = run_keys(&mut rng, n, 10);
        let bits32: Vec<u32> = kit::random_bits(&mut rng, n);
        let bits64: Vec<u64> = kit::random_bits(&mut rng, n);
        let small: Vec<f32> = kit::uniform_values(&mut rng, n, 16);
        check::<u32, u32, Multiplies>(b, t, &format!("mul n = {n}"), &keys, &bits32);
        check::<u32, u32, Maximum>(b, t, &format!("max n = {n}"), &keys, &bits32);
        check::<u32, u32, Minimum>(b, t, &format!("min n = {n}"), &keys, &bits32);
        check::<u32, u64, BitAnd>(b, t, &format!("and n = {n}"), &keys, &bits64);
        check::<u32, u64, BitOr>(b, t, &format!("or n = {n}"), &keys, &bits64);
        check::<u32, u64, BitXor>(b, t, &format!("xor n = {n}"), &keys, &bits64);
        check::<u32, f32, Maximum>(b, t, &format!("f32 max n = {n}"), &keys, &small);
        for avg in [10, 1000, n as u64 + 1] {
            let keys = run_keys(&mut rng, n, avg);
            check::<u32, u64, Mat2Mul>(
                b,
                t,
                &format!("mat2mul mean {avg} n = {n}"),
                &keys,
                &bits64,
            );
        }
    }
}

/// Random keys and values (proptest).
fn random(b: &Backend, t: Target) {
    use proptest::prelude::*;
    let cases = if t.is_simulator() { 16 } else { 64 };
    let keys = proptest::collection::vec(0u8..3, 0..5000);
    kit::proptest_runner(cases)
        .run(&(keys, any::<u64>()), |(keys, seed)| {
            let v: Vec<i64> = kit::random_bits(&mut kit::Rng::new(seed), keys.len());
            let keys: Vec<i32> = keys.into_iter().map(i32::from).collect();
            check::<i32, i64, Plus>(b, t, "proptest", &keys, &v);
            Ok(())
        })
        .unwrap();
}

/// Keys and values of different lengths, the same error on every backend; empty input.
fn bad_input(b: &Backend, _: Target) {
    let keys = b.upload(&[1u32, 1, 2]).unwrap();
    let short = b.upload(&[1i32, 2]).unwrap();
    let e = b.reduce_by_key(&keys, &short, EqualTo, Plus).unwrap_err();
    assert_eq!(
        e.to_string(),
        "reduce_by_key values (one per key): expected length 3, got 2"
    );
    let (k, v) = b
        .reduce_by_key(
            &b.upload::<u32>(&[]).unwrap(),
            &b.upload::<i32>(&[]).unwrap(),
            EqualTo,
            Plus,
        )
        .unwrap();
    assert!(k.to_vec().unwrap().is_empty() && v.to_vec().unwrap().is_empty());
}

mgpu_testkit::backend_tests! {
    rbk_golden = golden,
    rbk_shapes = shapes,
    rbk_key_types = key_types,
    rbk_ops = ops,
    rbk_random = random,
    rbk_real_co2 = real_co2,
    rbk_bad_input = bad_input,
}
