//! Scan, reduce and count scan, checked against the sequential fold.

use crate::common::{fold, int_from_bits, Float, SIZES, TILE4};
use mgpu::{
    Backend, BitAnd, BitOr, BitXor, Element, Error, Index, Integer, Maximum, Minimum, Multiplies,
    Plus, ScanOp,
};
use mgpu_testkit::Rng;

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

/// Every scan form and reduce of `Op` on `backend`, at every size of [`SIZES`], against
/// the fold. `gen(rng, i)` makes element `i`.
fn check<T: Element, Op: ScanOp<T>>(backend: &Backend, gen: impl Fn(&mut Rng, usize) -> T) {
    for n in SIZES {
        let mut rng = Rng::new(n as u64 * 7919 + T::WORDS as u64);
        let x: Vec<T> = (0..n).map(|i| gen(&mut rng, i)).collect();
        let (exclusive, inclusive, total) = fold::<T, Op>(&x);
        let what = |form: &str| format!("{form} {} {} n={n}", T::NAME, Op::NAME);
        let input = backend.upload(&x).unwrap();

        let (out, t) = backend.scan_exclusive(&input, Op::default()).unwrap();
        assert_eq!(t, total, "{}", what("exclusive total"));
        assert_eq!(out.len(), n);
        same(&out.to_vec().unwrap(), &exclusive, &what("exclusive"));

        let (out, t) = backend.scan_inclusive(&input, Op::default()).unwrap();
        assert_eq!(t, total, "{}", what("inclusive total"));
        same(&out.to_vec().unwrap(), &inclusive, &what("inclusive"));

        same(&input.to_vec().unwrap(), &x, &what("input after the scans"));
        assert_eq!(
            backend.reduce(&input, Op::default()).unwrap(),
            total,
            "{}",
            what("reduce")
        );

        let mut data = backend.upload(&x).unwrap();
        let t = backend
            .scan_exclusive_in_place(&mut data, Op::default())
            .unwrap();
        assert_eq!(t, total, "{}", what("exclusive in place total"));
        same(
            &data.to_vec().unwrap(),
            &exclusive,
            &what("exclusive in place"),
        );

        let mut data = backend.upload(&x).unwrap();
        let t = backend
            .scan_inclusive_in_place(&mut data, Op::default())
            .unwrap();
        assert_eq!(t, total, "{}", what("inclusive in place total"));
        same(
            &data.to_vec().unwrap(),
            &inclusive,
            &what("inclusive in place"),
        );
    }
}

/// Every operator on an integer type. Integers are compared bit for bit; arithmetic wraps.
pub fn integers<T: Integer>(backend: &Backend)
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
    check::<T, Plus>(backend, any);
    check::<T, Plus>(backend, small);
    // Odd factors: the wrapped products never collapse to 0.
    check::<T, Multiplies>(backend, |r, _| int_from_bits::<T>(r.next_u64() | 1));
    check::<T, Maximum>(backend, any);
    check::<T, Minimum>(backend, any);
    // One bit off (on) per element, so the running and (or) changes for a while.
    check::<T, BitAnd>(backend, |r, _| int_from_bits::<T>(!(1u64 << r.below(64))));
    check::<T, BitOr>(backend, |r, _| int_from_bits::<T>(1u64 << r.below(64)));
    check::<T, BitXor>(backend, any);
}

/// Every operator on a float type, on inputs whose partial results are all exact: small
/// integers for plus, ±1 with a few ±2 and ±0.5 for multiplies (prefix products stay
/// ±1 or ±2), multiples of 1/64 for maximum and minimum (which select, so are exact
/// anyway).
pub fn floats<T: Float>(backend: &Backend)
where
    Plus: ScanOp<T>,
    Multiplies: ScanOp<T>,
    Maximum: ScanOp<T>,
    Minimum: ScanOp<T>,
{
    check::<T, Plus>(backend, |r, _| T::exact(r.below(17) as f64 - 8.0));
    check::<T, Multiplies>(backend, |r, i| {
        let sign = if r.below(2) == 0 { 1.0 } else { -1.0 };
        T::exact(match i % 64 {
            0 => 2.0 * sign,
            32 => 0.5 * sign,
            _ => sign,
        })
    });
    let spread = |r: &mut Rng, _: usize| T::exact((r.below(1 << 20) as f64 - 524288.0) / 64.0);
    check::<T, Maximum>(backend, spread);
    check::<T, Minimum>(backend, spread);
}

/// Empty inputs give empty outputs and the identity; one element gives the identity
/// (exclusive) or itself (inclusive).
pub fn empty_and_single(backend: &Backend) {
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
    assert_eq!(
        backend
            .scan_inclusive_in_place(&mut one, Multiplies)
            .unwrap(),
        2.5
    );
    assert_eq!(one.to_vec().unwrap(), vec![2.5]);
    assert_eq!(
        backend
            .scan_exclusive_in_place(&mut one, Multiplies)
            .unwrap(),
        2.5
    );
    assert_eq!(one.to_vec().unwrap(), vec![1.0]);
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
pub fn counts<I: Index>(backend: &Backend)
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

    for n in SIZES {
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
pub fn count_overflow(backend: &Backend) {
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
}
