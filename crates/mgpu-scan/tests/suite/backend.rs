//! Scan, reduce and count scan through the facade, on every backend, checked against
//! the sequential fold.

use crate::common::{fold, int_from_bits, sizes, Float, TILE4};
use mgpu::{
    Backend, BitAnd, BitOr, BitXor, Element, Error, Index, Integer, Maximum, Minimum, Multiplies,
    Plus, ScanOp,
};
use mgpu_testkit::{Rng, Target};

/// Panics at the first element where `got` and `want` differ (rather than printing two
/// vectors of thousands of elements).
fn same<T: Element>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "length: {what}");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: element {i} is {:?}, expected {:?}",
            got[i], want[i]
        );
    }
}

/// Every scan form and reduce of `Op` on `backend`, at every size of [`sizes`] for the
/// target, against the fold. `gen(rng, i)` makes element `i`.
fn check<T: Element, Op: ScanOp<T>>(
    backend: &Backend,
    t: Target,
    gen: impl Fn(&mut Rng, usize) -> T,
) {
    check_at::<T, Op>(backend, t, &sizes::<T>(t), gen)
}

/// [`check`] at the sizes `sizes` (timed on CUDA).
fn check_at<T: Element, Op: ScanOp<T>>(
    backend: &Backend,
    t: Target,
    sizes: &[usize],
    gen: impl Fn(&mut Rng, usize) -> T,
) {
    for &n in sizes {
        let mut rng = Rng::new(n as u64 * 7919 + T::WORDS as u64);
        let x: Vec<T> = (0..n).map(|i| gen(&mut rng, i)).collect();
        let (exclusive, inclusive, total) = fold::<T, Op>(&x);
        let what = |form: &str| format!("{form} {} {} n={n}", T::NAME, Op::NAME);
        let input = backend.upload(&x).unwrap();

        let (out, total_got) = t.timed(&what("exclusive"), n, || {
            backend.scan_exclusive(&input, Op::default()).unwrap()
        });
        assert_eq!(total_got, total, "{}", what("exclusive total"));
        assert_eq!(out.len(), n);
        same(&out.to_vec().unwrap(), &exclusive, &what("exclusive"));

        let (out, total_got) = backend.scan_inclusive(&input, Op::default()).unwrap();
        assert_eq!(total_got, total, "{}", what("inclusive total"));
        same(&out.to_vec().unwrap(), &inclusive, &what("inclusive"));

        same(&input.to_vec().unwrap(), &x, &what("input after the scans"));
        assert_eq!(
            backend.reduce(&input, Op::default()).unwrap(),
            total,
            "{}",
            what("reduce")
        );

        for (form, want) in [("exclusive", &exclusive), ("inclusive", &inclusive)] {
            let mut data = backend.upload(&x).unwrap();
            let total_got = if form == "exclusive" {
                backend.scan_exclusive_in_place(&mut data, Op::default())
            } else {
                backend.scan_inclusive_in_place(&mut data, Op::default())
            }
            .unwrap();
            let what = |part: &str| what(&format!("{form} in place{part}"));
            assert_eq!(total_got, total, "{}", what(" total"));
            same(&data.to_vec().unwrap(), want, &what(""));
        }
    }
}

/// Every operator on an integer type, on inputs of every shape the earlier suites used.
/// Integers are compared bit for bit; arithmetic wraps.
pub fn integers<T: Integer>(backend: &Backend, t: Target)
where
    Plus: ScanOp<T>,
    Multiplies: ScanOp<T>,
    Maximum: ScanOp<T>,
    Minimum: ScanOp<T>,
    BitAnd: ScanOp<T>,
    BitOr: ScanOp<T>,
    BitXor: ScanOp<T>,
{
    let any = |r: &mut Rng, _: usize| int_from_bits::<T>(r.next_u64());
    let small = |r: &mut Rng, _: usize| int_from_bits::<T>(r.below(100));
    check::<T, Plus>(backend, t, any);
    check::<T, Plus>(backend, t, small);
    // Odd factors: the wrapped products never collapse to 0.
    check::<T, Multiplies>(backend, t, |r, _| int_from_bits::<T>(r.next_u64() | 1));
    check::<T, Maximum>(backend, t, any);
    check::<T, Minimum>(backend, t, any);
    // One bit off (on) per element, so the running and (or) changes for a while.
    check::<T, BitAnd>(backend, t, |r, _| {
        int_from_bits::<T>(!(1u64 << r.below(64)))
    });
    check::<T, BitOr>(backend, t, |r, _| int_from_bits::<T>(1u64 << r.below(64)));
    // Sparser: half the elements all ones (and); one element in 3 or in 4096 with a bit
    // (or), so the running or stays 0 over whole tiles.
    check::<T, BitAnd>(backend, t, |r, _| {
        int_from_bits::<T>(!(((r.below(2) == 0) as u64) << r.below(64)))
    });
    check::<T, BitOr>(backend, t, |r, _| {
        int_from_bits::<T>(((r.below(3) == 0) as u64) << (r.below(2048) % 64))
    });
    check::<T, BitOr>(backend, t, |r, _| {
        int_from_bits::<T>(((r.below(4096) == 0) as u64) << r.below(64))
    });
    check::<T, BitXor>(backend, t, any);
}

/// Every operator on a float type, on inputs whose partial results are all exact: small
/// integers for plus, ±1 with a few ±2 and ±0.5 for multiplies (prefix products stay
/// ±1 or ±2), multiples of 1/64 for maximum and minimum (which select, so are exact
/// anyway).
pub fn floats<T: Float>(backend: &Backend, t: Target)
where
    Plus: ScanOp<T>,
    Multiplies: ScanOp<T>,
    Maximum: ScanOp<T>,
    Minimum: ScanOp<T>,
{
    check::<T, Plus>(backend, t, |r, _| T::exact(r.below(17) as f64 - 8.0));
    check::<T, Plus>(backend, t, |r, _| T::exact(r.below(33) as f64 - 16.0));
    check::<T, Multiplies>(backend, t, |r, i| {
        let sign = if r.below(2) == 0 { 1.0 } else { -1.0 };
        T::exact(match i % 64 {
            0 => 2.0 * sign,
            32 => 0.5 * sign,
            _ => sign,
        })
    });
    // Dense random factors 2 and 0.5 (one in 64 each), the rest -1 or 1: the products walk
    // the powers of two, exact up to the few tiles of the simulator's sizes.
    let few_tiles: Vec<usize> = sizes::<T>(t).into_iter().filter(|&n| n <= 20_000).collect();
    check_at::<T, Multiplies>(backend, t, &few_tiles, |r, _| {
        T::exact(match r.below(64) {
            0 => 2.0,
            1 => 0.5,
            k if k < 33 => -1.0,
            _ => 1.0,
        })
    });
    // Random factors 2 and 0.5 (one in 4096 each), the rest -1 or 1: the products walk
    // the powers of two, exact far beyond these sizes.
    check::<T, Multiplies>(backend, t, |r, _| {
        T::exact(match r.below(4096) {
            0 => 2.0,
            1 => 0.5,
            k if k < 2048 => -1.0,
            _ => 1.0,
        })
    });
    let spread = |r: &mut Rng, _: usize| T::exact((r.below(1 << 20) as f64 - 524288.0) / 64.0);
    check::<T, Maximum>(backend, t, spread);
    check::<T, Minimum>(backend, t, spread);
    // Maximum and minimum select: any value is exact, here 53-bit magnitudes rounded.
    let wide = |r: &mut Rng, _: usize| {
        let sign = if r.below(2) == 0 { 1.0 } else { -1.0 };
        T::round((r.next_u64() >> 11) as f64 * sign)
    };
    check::<T, Maximum>(backend, t, wide);
    check::<T, Minimum>(backend, t, wide);
}

/// Empty inputs give empty outputs and the identity; one element gives the identity
/// (exclusive) or itself (inclusive).
pub fn empty_and_single(backend: &Backend, _: Target) {
    let empty = backend.upload::<i32>(&[]).unwrap();
    assert!(empty.is_empty());
    let (out, total) = backend.scan_exclusive(&empty, Plus).unwrap();
    assert!(out.is_empty() && out.to_vec().unwrap().is_empty());
    assert_eq!(total, 0);
    let (out, total) = backend.scan_inclusive(&empty, Maximum).unwrap();
    assert!(out.is_empty());
    assert_eq!(total, i32::MIN);
    assert_eq!(backend.reduce(&empty, Multiplies).unwrap(), 1);
    let mut empty = backend.upload::<f64>(&[]).unwrap();
    assert_eq!(
        backend
            .scan_exclusive_in_place(&mut empty, Minimum)
            .unwrap(),
        f64::INFINITY
    );
    assert_eq!(
        backend.scan_inclusive_in_place(&mut empty, Plus).unwrap(),
        0.0
    );
    assert_eq!(backend.reduce(&empty, Maximum).unwrap(), f64::NEG_INFINITY);
    let mut no_counts = backend.upload::<u32>(&[]).unwrap();
    assert_eq!(
        backend
            .scan_counts_exclusive_in_place(&mut no_counts)
            .unwrap(),
        0
    );
    let (offsets, total) = backend.scan_counts_exclusive(&no_counts).unwrap();
    assert!(offsets.is_empty());
    assert_eq!(total, 0);

    let one = backend.upload(&[-7i64]).unwrap();
    let (out, total) = backend.scan_exclusive(&one, Plus).unwrap();
    assert_eq!((out.to_vec().unwrap(), total), (vec![0], -7));
    let (out, total) = backend.scan_exclusive(&one, Minimum).unwrap();
    assert_eq!((out.to_vec().unwrap(), total), (vec![i64::MAX], -7));
    let (out, total) = backend.scan_inclusive(&one, BitAnd).unwrap();
    assert_eq!((out.to_vec().unwrap(), total), (vec![-7], -7));
    assert_eq!(backend.reduce(&one, Maximum).unwrap(), -7);
    let mut one = backend.upload(&[2.5f32]).unwrap();
    let total = backend.scan_inclusive_in_place(&mut one, Multiplies);
    assert_eq!((total.unwrap(), one.to_vec().unwrap()), (2.5, vec![2.5]));
    let total = backend.scan_exclusive_in_place(&mut one, Multiplies);
    assert_eq!((total.unwrap(), one.to_vec().unwrap()), (2.5, vec![1.0]));
    let mut count = backend.upload(&[9u64]).unwrap();
    assert_eq!(
        backend.scan_counts_exclusive_in_place(&mut count).unwrap(),
        9
    );
    assert_eq!(count.to_vec().unwrap(), vec![0]);
}

/// The seeds' 50 object counts (the load-balancing search demonstration).
pub const SEED_COUNTS: [u32; 50] = [
    0, 3, 5, 2, 1, 3, 1, 5, 4, 5, 2, 5, 4, 0, 2, 3, 1, 4, 0, 5, 4, 3, 2, 4, 2, 4, 3, 3, 0, 3, 1, 4,
    4, 4, 4, 2, 0, 3, 0, 5, 0, 0, 0, 0, 2, 2, 3, 0, 4, 4,
];

/// Their exclusive scan as the seed prints it.
pub const SEED_OFFSETS: [u32; 50] = [
    0, 0, 3, 8, 10, 11, 14, 15, 20, 24, 29, 31, 36, 40, 40, 42, 45, 46, 50, 50, 55, 59, 62, 64, 68,
    70, 74, 77, 80, 80, 83, 84, 88, 92, 96, 100, 102, 102, 105, 105, 110, 110, 110, 110, 110, 112,
    114, 117, 117, 121,
];

/// The count scan (`Scan(counts)`) in both forms on `counts`, against the fold.
fn check_counts<I: Index>(backend: &Backend, counts: &[I])
where
    Plus: ScanOp<I>,
{
    let (want, _, total) = fold::<I, Plus>(counts);
    let what = format!("count scan {} n={}", I::NAME, counts.len());
    let input = backend.upload(counts).unwrap();
    let (offsets, t) = backend.scan_counts_exclusive(&input).unwrap();
    assert_eq!(t, total, "{what}");
    same(&offsets.to_vec().unwrap(), &want, &what);
    let mut data = backend.upload(counts).unwrap();
    assert_eq!(
        backend.scan_counts_exclusive_in_place(&mut data).unwrap(),
        total,
        "{what}"
    );
    same(&data.to_vec().unwrap(), &want, &what);
}

/// The count scan of the seeds' counts, of random counts at every size, and of counts whose
/// total is exactly the index type's maximum.
pub fn counts<I: Index>(backend: &Backend, t: Target)
where
    Plus: ScanOp<I>,
{
    let seed: Vec<I> = SEED_COUNTS
        .iter()
        .map(|&c| I::from_u64_wrapping(c as u64))
        .collect();
    let mut data = backend.upload(&seed).unwrap();
    let total = backend.scan_counts_exclusive_in_place(&mut data).unwrap();
    assert_eq!(total.to_u64(), 125);
    let offsets: Vec<u64> = data.to_vec().unwrap().iter().map(|o| o.to_u64()).collect();
    let want: Vec<u64> = SEED_OFFSETS.iter().map(|&o| o as u64).collect();
    assert_eq!(offsets, want);

    for n in sizes::<I>(t) {
        let mut rng = Rng::new(n as u64 + 17);
        let counts: Vec<I> = (0..n).map(|_| I::from_u64_wrapping(rng.below(6))).collect();
        check_counts(backend, &counts);
    }
    let one = I::from_u64_wrapping(1);
    check_counts(
        backend,
        &[I::from_u64_wrapping(I::MAX.to_u64() - 1), one, I::ZERO],
    );
}

fn assert_overflow<I: Index>(backend: &Backend, counts: &[I])
where
    Plus: ScanOp<I>,
{
    let overflow = Error::IndexOverflow {
        what: "scan total",
        max: I::MAX.to_u64(),
    };
    let input = backend.upload(counts).unwrap();
    let what = format!("{} n={}", I::NAME, counts.len());
    assert_eq!(
        backend.scan_counts_exclusive(&input).unwrap_err(),
        overflow,
        "{what}"
    );
    let mut data = backend.upload(counts).unwrap();
    assert_eq!(
        backend
            .scan_counts_exclusive_in_place(&mut data)
            .unwrap_err(),
        overflow,
        "{what}"
    );
}

/// A count-scan total that does not fit the index type is `IndexOverflow`, never a wrapped
/// value: in one tile, spread over many tiles, and only in the last tile.
pub fn count_overflow(backend: &Backend, t: Target) {
    assert_overflow(backend, &[u32::MAX, 1]);
    assert_overflow(backend, &[1u32 << 31, 1 << 31]);
    // 19197 * 2^18 > 2^32, while no single tile's sum overflows.
    assert_overflow(backend, &vec![1u32 << 18; 5 * TILE4 - 3]);
    let mut late = vec![1u32; 2 * TILE4 + 17];
    *late.last_mut().unwrap() = u32::MAX;
    assert_overflow(backend, &late);
    assert_overflow(backend, &[u64::MAX, 1]);
    assert_overflow(backend, &[1u64 << 63, 0, 1 << 63]);
    let mut late = vec![3u64; TILE4 + 1];
    late[TILE4] = u64::MAX - 3 * TILE4 as u64 + 1;
    assert_overflow(backend, &late);
    // The wrap in the third tile, far from the end.
    let mut c = vec![1u32; 3 * TILE4 + 5];
    c[2 * TILE4 + 7] = u32::MAX - 100;
    assert_overflow(backend, &c);
    // A wrap that only the tile prefix shows: every tile's own running sums stay small,
    // but the second tile starts 6 below the maximum.
    let mut c = vec![1u32; 3 * TILE4];
    c[0] = u32::MAX - TILE4 as u32 - 5;
    assert_overflow(backend, &c);
    // The same counts one short of the wrap fit, and so does a total of exactly u32::MAX.
    let fits = |c: &[u32]| {
        let mut d = backend.upload(c).unwrap();
        assert_eq!(
            backend.scan_counts_exclusive_in_place(&mut d).unwrap(),
            u32::MAX
        );
    };
    fits(&c[..TILE4 + 6]);
    fits(&[u32::MAX - 3, 1, 1, 1]);
    assert_overflow(backend, &[u64::MAX / 2, u64::MAX / 2, 2]);
    // 5 * 10^6 counts, the huge one 4/5 of the way in (within the budget, fewer, at the
    // same fraction); the backend is still usable, and a fitting total is returned.
    let n = t.cap(5_000_000);
    let mut c = vec![3u32; n];
    c[n / 5 * 4] = u32::MAX - 1000;
    assert_overflow(backend, &c);
    let m = t.cap(1_000_000);
    let mut d = backend.upload(&vec![7u32; m]).unwrap();
    assert_eq!(
        backend.scan_counts_exclusive_in_place(&mut d).unwrap(),
        7 * m as u32
    );
    assert_eq!(d.to_vec().unwrap()[m - 1], 7 * (m as u32 - 1));
}

/// `all`'s sizes within the budget; where the budget drops every one, the budget itself,
/// so that the check still runs a size of many tiles rather than nothing.
fn sizes_or_cap(t: Target, all: &[usize]) -> Vec<usize> {
    let kept = t.sizes(all);
    match all.iter().max() {
        Some(&max) if kept.is_empty() => vec![t.cap(max)],
        _ => kept,
    }
}

/// `i32` values in [0, 16) (`ANCHORS.md`) up to 10^8 and 2^27 + 5, `u64` maximum of 3 *
/// 10^7: the budget itself where it is smaller.
fn i32_scan_and_reduce_to_10e8(b: &Backend, t: Target) {
    let sizes = sizes_or_cap(t, &[100_000_000, (1 << 27) + 5]);
    check_at::<i32, Plus>(b, t, &sizes, |r, _| r.below(16) as i32);
    let sizes = sizes_or_cap(t, &[30_000_001]);
    check_at::<u64, Maximum>(b, t, &sizes, |r, _| r.next_u64());
}

/// Arbitrary floats in [-1, 1) (whose sums round): within a tolerance of the running sum
/// of magnitudes (`f32`, 2 * 10^4 values: 1e-5; `f64`, 10^7 values within the budget:
/// 1e-12), the total is the last inclusive value bit for bit, and every run (scan and
/// reduce) gives the same bits.
fn float_sums_deterministic_within_tolerance(b: &Backend, t: Target) {
    let mut rng = Rng::new(42);
    let x: Vec<f32> = (0..t.cap(20_000))
        .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
        .collect();
    float_sums(b, &x, 1e-5);
    let mut rng = Rng::new(7);
    let x: Vec<f64> = (0..t.cap(10_000_000))
        .map(|_| rng.next_f64() * 2.0 - 1.0)
        .collect();
    float_sums(b, &x, 1e-12);
}

fn float_sums<T: Float>(b: &Backend, x: &[T], tolerance: f64)
where
    Plus: ScanOp<T>,
{
    let input = b.upload(x).unwrap();
    let (out, total) = b.scan_inclusive(&input, Plus).unwrap();
    let y = out.to_vec().unwrap();
    let (mut acc, mut mag) = (0f64, 0f64);
    for (i, &v) in x.iter().enumerate() {
        acc += v.wide();
        mag += v.wide().abs();
        let got = y[i].wide();
        assert!(
            (got - acc).abs() <= tolerance * mag.max(1.0),
            "{} at {i}: {got} vs {acc}",
            T::NAME
        );
    }
    let bits = |v: &[T]| v.iter().map(|x| x.to_words()).collect::<Vec<_>>();
    assert_eq!(
        bits(&[total]),
        bits(&y[y.len() - 1..]),
        "total = last value"
    );
    let reduced = b.reduce(&input, Plus).unwrap();
    for _ in 0..3 {
        let (again, t2) = b.scan_inclusive(&input, Plus).unwrap();
        assert_eq!(bits(&[t2]), bits(&[total]), "same bits every run");
        assert!(
            bits(&again.to_vec().unwrap()) == bits(&y),
            "same bits every run"
        );
        let r2 = b.reduce(&input, Plus).unwrap();
        assert_eq!(bits(&[r2]), bits(&[reduced]), "reduce: same bits every run");
    }
}

/// Sizes of `tiles` tiles of the scan of `T` on `t` (the target's tile): whole tiles, and
/// the last tile holding 1 or an odd number of values; within the budget, and at least a
/// few tiles.
fn tile_edge_sizes<T: Element>(t: Target, tiles: &[usize]) -> Vec<usize> {
    let arch = t.arch().unwrap_or(mgpu::Arch::Sm90);
    let nv = mgpu_scan::kernels::tuning::SCAN
        .shape(arch)
        .nv(core::mem::size_of::<T>());
    let mut v = Vec::new();
    for &k in tiles {
        v.extend([k * nv, (k - 1) * nv + 1, (k - 1) * nv + nv / 2 + 1]);
    }
    sizes_or_cap(t, &v)
}

/// Float sums across the edges of the ordered look-back's groups (32 tiles) and
/// superblocks (1024 tiles): 1, 31, 32, 33, 1023, 1024, 1025 and 2049 tiles (within the
/// backend's budget), exclusive and inclusive. Every run gives the same bits (three runs
/// each), both totals are the inclusive scan's last value bit for bit, and the values are
/// within the tolerance of [`float_sums`] of the running sum.
fn float_scans_same_bits_across_groups<T: Float>(b: &Backend, t: Target, tolerance: f64)
where
    Plus: ScanOp<T>,
{
    let bits = |v: &[T]| v.iter().map(|x| x.to_words()).collect::<Vec<_>>();
    let tiles = [1, 31, 32, 33, 1023, 1024, 1025, 2049];
    for n in tile_edge_sizes::<T>(t, &tiles) {
        let mut rng = Rng::new(n as u64 ^ 0x5eed);
        let x: Vec<T> = (0..n)
            .map(|_| T::round(rng.next_f64() * 2.0 - 1.0))
            .collect();
        let input = b.upload(&x).unwrap();
        let what = format!("{} n={n}", T::NAME);
        let (inc, inc_total) = b.scan_inclusive(&input, Plus).unwrap();
        let inc = inc.to_vec().unwrap();
        let (exc, exc_total) = b.scan_exclusive(&input, Plus).unwrap();
        let exc = exc.to_vec().unwrap();
        let last = bits(&inc[n - 1..]);
        assert_eq!(bits(&[inc_total]), last, "{what}: inclusive total");
        assert_eq!(bits(&[exc_total]), last, "{what}: exclusive total");
        let (mut acc, mut mag) = (0f64, 0f64);
        for i in 0..n {
            let near =
                |v: T, acc: f64, mag: f64| (v.wide() - acc).abs() <= tolerance * mag.max(1.0);
            assert!(near(exc[i], acc, mag), "{what}: exclusive {i}");
            acc += x[i].wide();
            mag += x[i].wide().abs();
            assert!(near(inc[i], acc, mag), "{what}: inclusive {i}");
        }
        for _ in 0..3 {
            let (again, t2) = b.scan_inclusive(&input, Plus).unwrap();
            assert!(
                bits(&again.to_vec().unwrap()) == bits(&inc),
                "{what}: inclusive bits"
            );
            assert_eq!(bits(&[t2]), last, "{what}: inclusive total bits");
            let (again, t2) = b.scan_exclusive(&input, Plus).unwrap();
            assert!(
                bits(&again.to_vec().unwrap()) == bits(&exc),
                "{what}: exclusive bits"
            );
            assert_eq!(bits(&[t2]), last, "{what}: exclusive total bits");
        }
    }
}

fn f64_scans_same_bits_across_groups(b: &Backend, t: Target) {
    float_scans_same_bits_across_groups::<f64>(b, t, 1e-12);
}

fn f32_scans_same_bits_across_groups(b: &Backend, t: Target) {
    float_scans_same_bits_across_groups::<f32>(b, t, 1e-5);
}

/// The look-back status block is reused between calls without clearing (epochs tag its
/// words): a large scan, a small one over the stale words, and a large one again.
fn status_block_reuse_across_calls(b: &Backend, _: Target) {
    for n in [5 * TILE4 + 9, 2 * TILE4 - 1, 5 * TILE4 + 9, 1, 3 * TILE4] {
        let x: Vec<u32> = (0..n as u32).map(|i| i % 13).collect();
        let (_, want, want_total) = fold::<u32, Plus>(&x);
        let (out, total) = b.scan_inclusive(&b.upload(&x).unwrap(), Plus).unwrap();
        assert_eq!(total, want_total, "n={n}");
        assert!(out.to_vec().unwrap() == want, "n={n}");
    }
}

/// The scans of `gpu_sm70_ptx_and_tuning` (`device.rs`) on a CUDA context with the sm_70
/// tuning: sm_70's tile edges (1280 and 2816) and a few large sizes.
pub fn sm70_subset(b: &Backend) {
    let sizes =
        mgpu_testkit::sizes(&[0, 1, 1279, 1280, 1281, 2815, 2816, 2817, 1 << 20, 3_000_017]);
    let t = Target::Cuda;
    check_at::<u32, Plus>(b, t, &sizes, |r, _| r.next_u64() as u32);
    check_at::<i64, Maximum>(b, t, &sizes, |r, _| r.next_u64() as i64);
    check_at::<u64, BitXor>(b, t, &sizes, |r, _| r.next_u64());
    check_at::<f32, Plus>(b, t, &sizes, |r, _| r.below(33) as f32 - 16.0);
    check_at::<f64, Minimum>(b, t, &sizes, |r, _| (r.next_u64() >> 11) as f64);
}

mgpu_testkit::backend_tests! {
    scan_i32 = integers::<i32>,
    scan_u32 = integers::<u32>,
    scan_i64 = integers::<i64>,
    scan_u64 = integers::<u64>,
    scan_f32 = floats::<f32>,
    scan_f64 = floats::<f64>,
    scan_empty_and_single = empty_and_single,
    count_scan_u32 = counts::<u32>,
    count_scan_u64 = counts::<u64>,
    count_scan_overflow = count_overflow,
    i32_scan_and_reduce_to_10e8,
    float_sums_deterministic_within_tolerance,
    f64_scans_same_bits_across_groups,
    f32_scans_same_bits_across_groups,
    status_block_reuse_across_calls,
}
