//! Bulk remove and bulk insert through the facade, on every backend: each result against
//! the test kit's plain loops (`mgpu_testkit::bulk_remove`, `bulk_insert`), bit for bit.

use crate::golden::*;
use mgpu::Sequence;
use mgpu::{Backend, BulkData, BulkElement, BulkIndex, BulkSource, Error};
use mgpu_testkit::expect_invalid;
use mgpu_testkit::{self as kit, Rng, Target};
use proptest::prelude::*;

/// Remove tile of the sm_90 tuning (NT * VT).
const NV: usize = mgpu_bulk::kernels::tuning::REMOVE.sm90.nv(4);
/// Insert tile of the sm_90 tuning.
const NV_INSERT: usize = mgpu_bulk::kernels::tuning::INSERT.sm90.nv(4);

/// The element types of the facade's bulk calls, with index type `I`.
pub trait Elem<I>: BulkData + BulkElement<I> + Sequence {}
impl<T: BulkData + BulkElement<I> + Sequence, I> Elem<I> for T {}
/// The index types of the facade's bulk calls.
pub trait Ix: BulkIndex + Sequence {}
impl<I: BulkIndex + Sequence> Ix for I {}

fn remove<T: Elem<I>, I: Ix>(b: &Backend, source: &[T], indices: &[u64]) -> Result<Vec<T>, Error> {
    let s = b.upload(source)?;
    let i = b.upload(&kit::to_index::<I>(indices))?;
    b.bulk_remove(&s, (&i).into())?.to_vec()
}

fn insert<T: Elem<I>, I: Ix>(
    b: &Backend,
    values: &[T],
    indices: &[u64],
    source: &[T],
) -> Result<Vec<T>, Error> {
    let s = b.upload(source)?;
    let i = b.upload(&kit::to_index::<I>(indices))?;
    let v = b.upload(values)?;
    b.bulk_insert((&v).into(), (&i).into(), &s)?.to_vec()
}

/// `first + step * k` (wrapping for integers), as the facade's CPU path generates it.
fn seq<T: Sequence>(first: T, step: T, k: u64) -> T {
    <T as Sequence>::sequence(first, step, k)
}

/// The values `first, first + 1, ...` with `first` random in `[0, 1000)`.
fn data<T: Elem<u32>>(n: usize, seed: u64) -> Vec<T> {
    let first = seq::<T>(T::ZERO, T::ONE, Rng::new(seed).below(1000));
    (0..n as u64).map(|i| seq::<T>(first, T::ONE, i)).collect()
}

/// The target to pass to [`check_remove`] and [`check_insert`] for no timing print.
const UNTIMED: Target = Target::Cpu;

/// Bulk remove on `b` == the plain loop, bit for bit (timed on CUDA).
fn check_remove<T: Elem<I>, I: Ix>(
    b: &Backend,
    t: Target,
    what: &str,
    source: &[T],
    indices: &[u64],
) {
    let want = kit::bulk_remove(source, indices);
    let s = b.upload(source).unwrap();
    let i = b.upload(&kit::to_index::<I>(indices)).unwrap();
    let got = t.timed(what, source.len(), || {
        b.bulk_remove(&s, (&i).into()).unwrap()
    });
    let n = source.len();
    assert_eq!(
        kit::bits(&got.to_vec().unwrap()),
        kit::bits(&want),
        "{what} n = {n}"
    );
}

/// Bulk insert on `b` == the plain loop, bit for bit (timed on CUDA).
fn check_insert<T: Elem<I>, I: Ix>(
    b: &Backend,
    t: Target,
    what: &str,
    values: &[T],
    indices: &[u64],
    source: &[T],
) {
    let want = kit::bulk_insert(values, indices, source);
    let s = b.upload(source).unwrap();
    let i = b.upload(&kit::to_index::<I>(indices)).unwrap();
    let v = b.upload(values).unwrap();
    let got = t.timed(what, source.len(), || {
        b.bulk_insert((&v).into(), (&i).into(), &s).unwrap()
    });
    let n = source.len();
    assert_eq!(
        kit::bits(&got.to_vec().unwrap()),
        kit::bits(&want),
        "{what} n = {n}"
    );
}

fn seed_bulk_remove_demo(b: &Backend, _: Target) {
    let data: Vec<i32> = (0..100).collect();
    let every_3rd: Vec<u64> = (0..34).map(|i| 3 * i).collect();
    assert_eq!(
        remove::<i32, u32>(b, &data, &every_3rd).unwrap(),
        REMOVED_EVERY_3RD
    );
    assert_eq!(kit::bulk_remove(&data, &every_3rd), REMOVED_EVERY_3RD);
}

/// `step_iterator<int>(1000, 10)` values, `step_iterator<int>(2, 5)` indices, 20 of them;
/// generated and as buffers.
fn seed_bulk_insert_demo(b: &Backend, _: Target) {
    let data: Vec<i32> = (0..100).collect();
    let source = b.upload(&data).unwrap();
    let out = b
        .bulk_insert(
            BulkSource::step(1000, 10, 20),
            BulkSource::step(2u32, 5, 20),
            &source,
        )
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), INSERTED);
    let indices: Vec<u64> = (0..20).map(|i| 2 + 5 * i).collect();
    let values: Vec<i32> = (0..20).map(|i| 1000 + 10 * i).collect();
    assert_eq!(
        insert::<i32, u32>(b, &values, &indices, &data).unwrap(),
        INSERTED
    );
    assert_eq!(kit::bulk_insert(&values, &indices, &data), INSERTED);
}

fn seed_comment_examples(b: &Backend, _: Target) {
    // BulkRemove: n = 10, indices 1, 3, 4, 5, 7, 8 leave A0 A2 A6 A9.
    let a: Vec<i64> = (0..10).collect();
    assert_eq!(
        remove::<i64, u64>(b, &a, &[1, 3, 4, 5, 7, 8]).unwrap(),
        [0, 2, 6, 9]
    );
    // BulkInsert: aCount = 5, bCount = 3, indices 1, 1, 2, 3, 3: B0 A0 A1 B1 A2 B2 A3 A4.
    let vals = [100i64, 101, 102, 103, 104];
    let out = insert::<i64, u32>(b, &vals, &[1, 1, 2, 3, 3], &[0, 1, 2]).unwrap();
    assert_eq!(out, [0, 100, 101, 1, 102, 2, 103, 104]);
}

fn seed_bulk_remove_walk_through(b: &Backend, _: Target) {
    let data: Vec<i32> = (0..100).collect();
    assert_eq!(
        remove::<i32, u32>(b, &data, &WALK_REMOVE).unwrap(),
        WALK_REDUCED
    );
}

/// The seed's insert walk-through: 400 sources, 100 insertions; the first 100 outputs are
/// its gather indices when the values are 0, 1, 2, ... and source `j` is `22 + j`.
fn seed_bulk_insert_walk_through(b: &Backend, _: Target) {
    let data: Vec<i64> = (0..400).map(|j| 22 + j).collect();
    let source = b.upload(&data).unwrap();
    let indices = b.upload(&kit::to_index::<u32>(&WALK_INSERT)).unwrap();
    let out = b
        .bulk_insert(BulkSource::counting(0, 100), (&indices).into(), &source)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(&out[..100], &WALK_GATHER);
    let values: Vec<i64> = (0..100).collect();
    assert_eq!(out, kit::bulk_insert(&values, &WALK_INSERT, &data));
}

/// Remove the positions `j` with `!keep[j % keep.len()]` of `n` elements `f(j)`.
fn remove_pattern<T: Elem<I>, I: Ix>(b: &Backend, n: usize, keep: &[bool], f: impl Fn(usize) -> T) {
    let source: Vec<T> = (0..n).map(f).collect();
    let indices: Vec<u64> = (0..n as u64)
        .filter(|&j| !keep[j as usize % keep.len()])
        .collect();
    check_remove::<T, I>(b, UNTIMED, "pattern", &source, &indices);
}

/// Insert `f(100_000 + k)` at `indices[k]` into `n` elements `f(j)`.
fn insert_at<T: Elem<I>, I: Ix>(b: &Backend, n: usize, indices: &[u64], f: impl Fn(usize) -> T) {
    let source: Vec<T> = (0..n).map(&f).collect();
    let values: Vec<T> = (0..indices.len()).map(|k| f(100_000 + k)).collect();
    check_insert::<T, I>(b, UNTIMED, "at", &values, indices, &source);
}

/// Remove none, all, every other; insert everything before index 0, after the end, into
/// an empty source, nothing; every element type (the sizes of both tunings' earlier runs).
fn edge_cases_every_type(b: &Backend, _: Target) {
    for n in [2000usize, 1793] {
        remove_pattern::<i32, u32>(b, n, &[true], |j| j as i32);
        remove_pattern::<u64, u64>(b, n, &[false], |j| j as u64 * 3);
        remove_pattern::<f32, u32>(b, n, &[true, false], |j| j as f32 * 0.5);
        remove_pattern::<f64, u64>(b, 0, &[false], |j| j as f64);
        insert_at::<i64, u32>(b, n, &vec![0; 1900], |j| j as i64);
        insert_at::<u32, u64>(b, n, &vec![n as u64; 1900], |j| j as u32);
        insert_at::<f64, u32>(b, 0, &[0, 0, 0], |j| j as f64);
        insert_at::<f32, u64>(b, 5, &[], |j| j as f32);
        insert_at::<i32, u32>(b, 3000, &[1500; 2000], |j| -(j as i32));
    }
}

/// Every bad-input error (unsorted, repeated, out of range, past the source length, more
/// indices than elements, values and indices of different lengths, buffers of another
/// backend), and a failed call's error bits never reach the next call (the error word
/// comes from the device's pool without a memset: insert's partitions kernel zeroes it,
/// remove takes a clean word, which goes back dirty after an error).
fn errors(b: &Backend, _: Target) {
    let src: Vec<i32> = (0..3000).collect();
    expect_invalid(
        remove::<i32, u32>(b, &src, &[5, 4]),
        "not sorted and unique",
    );
    expect_invalid(
        remove::<i32, u32>(b, &src, &[5, 5]),
        "not sorted and unique",
    );
    expect_invalid(
        remove::<i32, u32>(b, &src, &[5, 3000]),
        "out of range (source length 3000)",
    );
    expect_invalid(
        remove::<i32, u64>(b, &src, &[2999, 1 << 40]),
        "out of range",
    );
    expect_invalid(
        insert::<i32, u32>(b, &[0, 1], &[7, 3], &src),
        "insert indices are not sorted",
    );
    expect_invalid(
        insert::<i32, u32>(b, &[0, 1], &[7, 3001], &src),
        "past the source length 3000",
    );
    for _ in 0..3 {
        assert!(remove::<i32, u32>(b, &src, &[5, 4]).is_err());
        let got = remove::<i32, u32>(b, &src, &[4, 5]).unwrap();
        assert_eq!(got, kit::bulk_remove(&src, &[4, 5]));
        assert!(insert::<i32, u32>(b, &[0, 1], &[7, 3], &src).is_err());
        let got = insert::<i32, u32>(b, &[0, 1], &[3, 7], &src).unwrap();
        assert_eq!(got, kit::bulk_insert(&[0, 1], &[3, 7], &src));
    }

    // The facade's own checks: lengths, and buffers of another backend.
    let source = b.upload(&[1i32, 2, 3]).unwrap();
    let bad = b.upload(&[2u32, 1]).unwrap();
    expect_invalid(
        b.bulk_remove(&source, (&bad).into()),
        "not sorted and unique",
    );
    expect_invalid(
        b.bulk_insert(BulkSource::counting(0, 2), (&bad).into(), &source),
        "not sorted",
    );
    let e = b
        .bulk_insert(BulkSource::counting(0, 3), (&bad).into(), &source)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    let e = b
        .bulk_remove(&source, BulkSource::counting(0u32, 4))
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    expect_invalid(
        b.bulk_remove(&source, BulkSource::step(1u64, 1, 3)),
        "out of range",
    );
    let other = match b {
        Backend::Cpu => Backend::simulator(),
        _ => Backend::cpu(),
    };
    let foreign = other.upload(&[1i32, 2]).unwrap();
    let idx = b.upload(&[0u32]).unwrap();
    assert!(b.bulk_remove(&foreign, (&idx).into()).is_err());
    let foreign_idx = other.upload(&[0u32]).unwrap();
    assert!(b.bulk_remove(&source, (&foreign_idx).into()).is_err());
}

/// One swapped adjacent pair anywhere in otherwise sorted indices (inside a tile, across a
/// tile boundary, at either end) is reported: the kernels check each pair from staged
/// shared memory and the pair across each tile boundary separately.
fn every_swapped_pair_is_reported(b: &Backend, _: Target) {
    let n = 4000usize;
    let src: Vec<i32> = (0..n as i32).collect();
    // Every third position, unique (remove) or in runs of two (insert).
    let unique: Vec<u64> = (0..n as u64).step_by(3).collect();
    let runs: Vec<u64> = (0..2 * unique.len()).map(|k| unique[k / 2]).collect();
    let values: Vec<i32> = (0..runs.len() as i32).collect();
    let mut at: Vec<usize> = (0..unique.len() - 1).step_by(29).collect();
    // Pairs around the tile boundaries of every tuning (NV 896 or the sm_90 shapes).
    for nv in [896usize, NV, NV_INSERT] {
        for b in (nv..n).step_by(nv) {
            let k = b / 3;
            at.extend(
                [k.saturating_sub(1), k, k + 1]
                    .iter()
                    .filter(|&&k| k + 1 < unique.len()),
            );
        }
    }
    at.push(unique.len() - 2);
    for &k in &at {
        let mut r = unique.clone();
        r.swap(k, k + 1);
        let e = remove::<i32, u32>(b, &src, &r).unwrap_err();
        assert!(
            e.to_string().contains("not sorted and unique"),
            "remove swap at {k}: {e}"
        );
        let mut i = runs.clone();
        i.swap(2 * k + 1, 2 * k + 2);
        let e = insert::<i32, u32>(b, &values, &i, &src).unwrap_err();
        assert!(
            e.to_string().contains("not sorted"),
            "insert swap at {k}: {e}"
        );
    }
}

/// Generated index sequences (the seeds' `step_iterator` indices) and values against the
/// same as arrays: on 3000 `i32` with every case (one position, after the end, bad
/// sequences), and on 10^7 `f32` (the backend's budget).
fn generated_sequences(b: &Backend, t: Target) {
    scaled_seed_sequences::<i32, u64>(b, 3000);
    index_sequences_i32(b);
    scaled_seed_sequences::<f32, u32>(b, t.cap(10_000_000));
}

/// Remove every 3rd element from 1; the seed's insert demonstration scaled (values
/// 1000 + 10 k before 2 + 5 k).
fn scaled_seed_sequences<T: Elem<u32> + Elem<I> + kit::FromU64, I: Ix>(b: &Backend, n: usize) {
    let data: Vec<T> = (0..n as u64).map(T::from_u64).collect();
    let s = b.upload(&data).unwrap();
    let m = (n - 1).div_ceil(3);
    let o = b.bulk_remove(&s, BulkSource::step(1u32, 3, m)).unwrap();
    let ix: Vec<u64> = (0..m as u64).map(|k| 1 + 3 * k).collect();
    let want = kit::bulk_remove(&data, &ix);
    assert_eq!(
        kit::bits(&o.to_vec().unwrap()),
        kit::bits(&want),
        "remove n = {n}"
    );
    let m = (n - 2).div_ceil(5);
    let (first, step) = (T::from_u64(1000), T::from_u64(10));
    let o = b
        .bulk_insert(
            BulkSource::step(first, step, m),
            BulkSource::step(I::from_u64_wrapping(2), I::from_u64_wrapping(5), m),
            &s,
        )
        .unwrap();
    let ix: Vec<u64> = (0..m as u64).map(|k| 2 + 5 * k).collect();
    let vals: Vec<T> = (0..m as u64).map(|k| seq::<T>(first, step, k)).collect();
    let want = kit::bulk_insert(&vals, &ix, &data);
    assert_eq!(
        kit::bits(&o.to_vec().unwrap()),
        kit::bits(&want),
        "insert n = {n}"
    );
}

/// 2000 values at one position (step 0) and after the end, and the host-side checks of
/// bad sequences.
fn index_sequences_i32(b: &Backend) {
    let data: Vec<i32> = (0..3000).collect();
    let s = b.upload(&data).unwrap();
    for at in [0u32, 1234, 3000] {
        let o = b
            .bulk_insert(
                BulkSource::counting(-5000, 2000),
                BulkSource::step(at, 0, 2000),
                &s,
            )
            .unwrap();
        let vals: Vec<i32> = (0..2000).map(|k| k - 5000).collect();
        let want = kit::bulk_insert(&vals, &[at as u64; 2000], &data);
        assert_eq!(o.to_vec().unwrap(), want, "at {at}");
    }
    expect_invalid(
        b.bulk_remove(&s, BulkSource::step(7u32, 0, 2)),
        "not sorted and unique",
    );
    expect_invalid(
        b.bulk_remove(&s, BulkSource::step(2u32, 3, 1001)),
        "out of range",
    );
    expect_invalid(
        b.bulk_insert(
            BulkSource::counting(0, 2),
            BulkSource::step(2999u32, 2, 2),
            &s,
        ),
        "past the source length 3000",
    );
    // A u32 sequence that would wrap is out of range, not wrapped.
    expect_invalid(
        b.bulk_remove(&s, BulkSource::step(u32::MAX, 2, 2)),
        "out of range",
    );
}

/// Sizes around either kernel's tiles, then large ones (sorted, without repeats), within
/// the backend's budget.
fn sizes(t: Target) -> Vec<usize> {
    let mut v = vec![
        0,
        1,
        NV - 1,
        NV,
        NV + 1,
        3 * NV,
        NV_INSERT - 1,
        NV_INSERT + 1,
        3 * NV_INSERT,
        1_000_003,
        10_000_000,
        100_000_000,
    ];
    v.sort_unstable();
    v.dedup();
    t.sizes(&v)
}

/// Remove half (`ANCHORS.md`), and up to 10^7 also all, none and 1%: `i32`, `u32` indices.
fn remove_matches_reference(b: &Backend, t: Target) {
    for n in sizes(t) {
        let source = data::<i32>(n, n as u64);
        for (percent, seed) in [(50, 3), (100, 4), (0, 5), (1, 6)] {
            if percent == 50 || n <= 10_000_000 {
                let ix = kit::sorted_unique_indices(&mut Rng::new(seed), n, percent);
                let what = format!("remove {percent}% i32 u32");
                check_remove::<i32, u32>(b, t, &what, &source, &ix);
            }
        }
    }
}

/// Insert n/2 values at sorted random positions (`ANCHORS.md`), and up to 10^7 also
/// 2n + 5: `i32`, `u32` indices.
fn insert_matches_reference(b: &Backend, t: Target) {
    for n in sizes(t) {
        let source = data::<i32>(n, n as u64);
        let m = n / 2;
        let ix = kit::sorted_indices(&mut Rng::new(9), n, m);
        check_insert::<i32, u32>(b, t, "insert n/2 i32 u32", &data(m, 77), &ix, &source);
        if n <= 10_000_000 {
            let m = 2 * n + 5;
            let ix = kit::sorted_indices(&mut Rng::new(10), n, m);
            check_insert::<i32, u32>(b, t, "insert 2n+5 i32 u32", &data(m, 78), &ix, &source);
        }
    }
}

/// 10^6 values at one position of 10^7 (before the first, after the second, in the
/// middle, before the last, after the end), as buffers and generated (step 0); within the
/// budget, half of it each.
fn insert_a_million_at_one_position(b: &Backend, t: Target) {
    let n = t.cap_share(10_000_000, 2);
    let source = data::<i64>(n, 1);
    let m = t.cap_share(1_000_000, 2);
    let values = data::<i64>(m, 2);
    let s = b.upload(&source).unwrap();
    for at in [0u64, 1, n as u64 / 2, n as u64 - 1, n as u64] {
        let indices = vec![at; m];
        let what = format!("insert 10^6 at {at} i64 u64");
        check_insert::<i64, u64>(b, t, &what, &values, &indices, &source);
        let o = b
            .bulk_insert(BulkSource::step(5, -3, m), BulkSource::step(at, 0, m), &s)
            .unwrap();
        let vals: Vec<i64> = (0..m as i64).map(|k| 5 - 3 * k).collect();
        let want = kit::bulk_insert(&vals, &indices, &source);
        assert_eq!(o.to_vec().unwrap(), want, "generated, at {at}");
    }
}

fn every_type_with<T: Elem<I>, I: Ix>(b: &Backend, t: Target) {
    for n in t.sizes(&[NV + 3, 1_000_003]) {
        let source = data::<T>(n, 11);
        let name = format!(
            "{} {}",
            <T as mgpu::Element>::NAME,
            std::any::type_name::<I>()
        );
        let ix = kit::sorted_unique_indices(&mut Rng::new(12), n, 50);
        check_remove::<T, I>(b, t, &format!("remove half {name}"), &source, &ix);
        let ix = kit::sorted_indices(&mut Rng::new(14), n, n / 2);
        let what = format!("insert n/2 {name}");
        check_insert::<T, I>(b, t, &what, &data(n / 2, 13), &ix, &source);
    }
}

/// Half removed and n/2 inserted, every element type with either index type.
fn every_type(b: &Backend, t: Target) {
    every_element_with::<u32>(b, t);
    every_element_with::<u64>(b, t);
}

/// [`every_type_with`] every element type, with index type `I`.
fn every_element_with<I: Ix>(b: &Backend, t: Target)
where
    i32: Elem<I>,
    u32: Elem<I>,
    i64: Elem<I>,
    u64: Elem<I>,
    f32: Elem<I>,
    f64: Elem<I>,
{
    every_type_with::<i32, I>(b, t);
    every_type_with::<u32, I>(b, t);
    every_type_with::<i64, I>(b, t);
    every_type_with::<u64, I>(b, t);
    every_type_with::<f32, I>(b, t);
    every_type_with::<f64, I>(b, t);
}

/// The facade's sources mixed: buffers and generated values and indices, `f32` with `u64`
/// and `u32` indices.
fn mixed_sources(b: &Backend, _: Target) {
    let src: Vec<f32> = (0..2500).map(|i| i as f32 * 0.5).collect();
    let source = b.upload(&src).unwrap();
    let rm: Vec<u64> = (0..2500).filter(|i| i % 7 < 3).collect();
    let remove_ix = b.upload(&rm).unwrap();
    let ins: Vec<u64> = (0..1800).map(|k| k * 4 / 3).collect();
    let ins_ix = b.upload(&kit::to_index::<u32>(&ins)).unwrap();
    let vals: Vec<f32> = (0..1800).map(|k| -(k as f32)).collect();
    let values = b.upload(&vals).unwrap();
    let got = |x: Result<mgpu::Buffer<f32>, Error>| kit::bits(&x.unwrap().to_vec().unwrap());
    let want = |x: Vec<f32>| kit::bits(&x);
    assert_eq!(
        got(b.bulk_remove(&source, (&remove_ix).into())),
        want(kit::bulk_remove(&src, &rm))
    );
    let seq: Vec<u64> = (0..1200).map(|k| 5 + 2 * k).collect();
    assert_eq!(
        got(b.bulk_remove(&source, BulkSource::step(5u32, 2, 1200))),
        want(kit::bulk_remove(&src, &seq))
    );
    assert_eq!(
        got(b.bulk_insert((&values).into(), (&ins_ix).into(), &source)),
        want(kit::bulk_insert(&vals, &ins, &src))
    );
    let counting: Vec<f32> = (0..1000).map(|k| k as f32 - 1.0).collect();
    assert_eq!(
        got(b.bulk_insert(
            BulkSource::counting(-1.0, 1000),
            BulkSource::step(2500u64, 0, 1000),
            &source,
        )),
        want(kit::bulk_insert(&counting, &[2500; 1000], &src))
    );
    let front: Vec<u64> = (0..1800).collect();
    assert_eq!(
        got(b.bulk_insert((&values).into(), BulkSource::step(0u32, 1, 1800), &source)),
        want(kit::bulk_insert(&vals, &front, &src))
    );
}

/// Sorted indices into `[0, n]` for `n < max_n`, up to `2 * max_n` of them.
fn sorted_strategy(max_n: usize) -> impl Strategy<Value = (usize, Vec<u64>)> {
    (0..max_n).prop_flat_map(move |n| {
        (
            Just(n),
            proptest::collection::vec(0..=n as u64, 0..2 * max_n).prop_map(|mut v| {
                v.sort();
                v
            }),
        )
    })
}

/// Removals whose index tiles span long source ranges, which the tiles hand in chunks to
/// the second launch: one index (at the start, the middle, the end), a contiguous block,
/// two clusters far apart, densities from 1% to 99%, and gaps with a heavy tail (Pareto,
/// alpha 1.2: most indices adjacent, some gaps of 10^5); `i32` with `u32` indices and
/// `f64` with `u64`, up to 10^7 elements within the backend's budget.
fn remove_sparse_and_clustered(b: &Backend, t: Target) {
    for n in t.sizes(&[3 * NV + 5, 40 * NV, 1_000_003, 10_000_000]) {
        let source: Vec<i32> = (0..n as i32).map(|j| j ^ 0x5a5a).collect();
        let wide: Vec<f64> = (0..n).map(|j| j as f64 * 0.25).collect();
        let n64 = n as u64;
        let mut cases: Vec<(String, Vec<u64>)> = vec![
            ("first".into(), vec![0]),
            ("middle".into(), vec![n64 / 2]),
            ("last".into(), vec![n64 - 1]),
            ("block".into(), (n64 / 4..3 * n64 / 4).collect()),
            (
                "two clusters".into(),
                (10..10 + n64 / 20).chain(n64 - n64 / 20..n64).collect(),
            ),
        ];
        for (percent, seed) in [(1, 61), (10, 62), (30, 63), (70, 64), (99, 65)] {
            let ix = kit::sorted_unique_indices(&mut Rng::new(seed), n, percent);
            cases.push((format!("{percent}%"), ix));
        }
        let gaps = kit::pareto_counts(&mut Rng::new(66), n / 2, 1.2, 100_000);
        let mut at = 0u64;
        let heavy: Vec<u64> = gaps
            .iter()
            .map_while(|g| {
                at += g;
                let i = at;
                at += 1;
                (i < n64).then_some(i)
            })
            .collect();
        cases.push(("heavy-tailed gaps".into(), heavy));
        for (what, ix) in &cases {
            check_remove::<i32, u32>(b, UNTIMED, &format!("remove {what}"), &source, ix);
            check_remove::<f64, u64>(b, UNTIMED, &format!("remove {what}"), &wide, ix);
        }
    }
}

/// Unsorted indices whose index tiles claim overlapping source ranges, more chunks than
/// the spill area holds (alternately 0 and `n - 1`): an error, never an access outside
/// the buffers.
fn remove_overlapping_ranges_is_an_error(b: &Backend, t: Target) {
    for n in t.sizes(&[3 * NV, 100 * NV, 1_000_000]) {
        let source: Vec<i32> = (0..n as i32).collect();
        let ix: Vec<u64> = (0..n as u64 / 2)
            .map(|k| if k % 2 == 0 { 0 } else { n as u64 - 1 })
            .collect();
        expect_invalid(remove::<i32, u32>(b, &source, &ix), "not sorted and unique");
        // Still usable.
        let ok: Vec<u64> = (0..n as u64).step_by(3).collect();
        check_remove::<i32, u32>(b, UNTIMED, "after", &source, &ok);
    }
}

/// Random sizes and removal patterns (24 cases).
fn remove_random(b: &Backend, _: Target) {
    let strategy = (
        0usize..3000,
        proptest::collection::vec(any::<bool>(), 1..40),
    );
    mgpu_testkit::proptest_runner(24)
        .run(&strategy, |(n, keep)| {
            remove_pattern::<i32, u32>(b, n, &keep, |j| j as i32 * 7);
            remove_pattern::<f64, u64>(b, n, &keep, |j| j as f64 - 0.5);
            Ok(())
        })
        .unwrap();
}

/// Random sizes and sorted insert positions (24 cases).
fn insert_random(b: &Backend, _: Target) {
    mgpu_testkit::proptest_runner(24)
        .run(&sorted_strategy(1500), |(n, indices)| {
            insert_at::<i32, u32>(b, n, &indices, |j| j as i32);
            insert_at::<u64, u64>(b, n, &indices, |j| j as u64 ^ 0xdead);
            Ok(())
        })
        .unwrap();
}

/// Any indices (24 cases): an `InvalidInput` error exactly when they are invalid, else the
/// reference's result; never an access outside the buffers (the simulator's host memory
/// would catch it as a crash or a poisoned result).
fn garbage_indices_are_memory_safe(b: &Backend, _: Target) {
    let strategy = (0usize..2000, proptest::collection::vec(0u64..2200, 0..1500));
    mgpu_testkit::proptest_runner(24)
        .run(&strategy, |(n, raw)| {
            let source: Vec<i32> = (0..n as i32).collect();
            let increasing = raw.windows(2).all(|w| w[0] < w[1]);
            if raw.len() <= n {
                let valid = increasing && raw.iter().all(|&i| i < n as u64);
                match remove::<i32, u32>(b, &source, &raw) {
                    Ok(g) if valid => prop_assert_eq!(g, kit::bulk_remove(&source, &raw)),
                    Err(Error::InvalidInput(_)) if !valid => {}
                    g => prop_assert!(false, "valid {} but {:?}", valid, g.map(|_| ())),
                }
            }
            let valid = raw.windows(2).all(|w| w[0] <= w[1]) && raw.iter().all(|&i| i <= n as u64);
            let values: Vec<i32> = (0..raw.len() as i32).collect();
            match insert::<i32, u32>(b, &values, &raw, &source) {
                Ok(g) if valid => prop_assert_eq!(g, kit::bulk_insert(&values, &raw, &source)),
                Err(Error::InvalidInput(_)) if !valid => {}
                g => prop_assert!(false, "valid {} but {:?}", valid, g.map(|_| ())),
            }
            Ok(())
        })
        .unwrap();
}

/// The bad inputs at 10^6 (within the budget): a swapped pair, a repeat, an index past
/// the end, garbage (unsorted and out of range) for both calls; the backend stays usable,
/// and a failed call's error bits never reach the valid call after it.
fn bad_input_at_scale(b: &Backend, t: Target) {
    let n = t.cap(1_000_000);
    let source = data::<i32>(n, 31);
    let half = |seed| kit::sorted_unique_indices(&mut Rng::new(seed), n, 50);
    // Positions 1000 and 5000, or near the end of a shorter list (a small sanitizer cap).
    let mut swapped = half(32);
    let k = 1000.min(swapped.len() - 2);
    swapped.swap(k, k + 1);
    expect_invalid(
        remove::<i32, u32>(b, &source, &swapped),
        "not sorted and unique",
    );
    let mut dup = half(33);
    let k = 5000.min(dup.len() - 2);
    dup[k] = dup[k + 1];
    expect_invalid(
        remove::<i32, u32>(b, &source, &dup),
        "not sorted and unique",
    );
    let mut past = half(34);
    *past.last_mut().unwrap() = u32::MAX as u64;
    expect_invalid(remove::<i32, u32>(b, &source, &past), "out of range");
    let mut rng = Rng::new(35);
    let garbage: Vec<u64> = (0..n / 2).map(|_| rng.next_u64() as u32 as u64).collect();
    let values: Vec<i32> = (0..n as i32 / 2).collect();
    expect_invalid(remove::<i32, u32>(b, &source, &garbage), "");
    expect_invalid(insert::<i32, u32>(b, &values, &garbage, &source), "");
    let mut ins = kit::sorted_indices(&mut Rng::new(36), n, n / 2);
    ins.swap(100, n / 5);
    expect_invalid(insert::<i32, u32>(b, &values, &ins, &source), "not sorted");
    let mut past_end = kit::sorted_indices(&mut Rng::new(37), n, n / 2);
    *past_end.last_mut().unwrap() = n as u64 + 1;
    let e = insert::<i32, u32>(b, &values, &past_end, &source);
    expect_invalid(e, "past the source length");
    // Still usable: a valid call gives the reference's result.
    check_remove::<i32, u32>(b, t, "remove after errors", &source, &half(38));
    for _ in 0..3 {
        assert!(remove::<i32, u32>(b, &source, &swapped).is_err());
        assert!(remove::<i32, u32>(b, &source, &half(39)).is_ok());
        assert!(insert::<i32, u32>(b, &values, &ins, &source).is_err());
        let ok = kit::sorted_indices(&mut Rng::new(40), n, n / 2);
        assert!(insert::<i32, u32>(b, &values, &ok, &source).is_ok());
    }
}

mgpu_testkit::backend_tests! {
    bad_input_at_scale,
    seed_bulk_remove_demo,
    seed_bulk_insert_demo,
    seed_comment_examples,
    seed_bulk_remove_walk_through,
    seed_bulk_insert_walk_through,
    edge_cases_every_type,
    errors,
    every_swapped_pair_is_reported,
    generated_sequences,
    remove_matches_reference,
    insert_matches_reference,
    insert_a_million_at_one_position,
    every_type,
    mixed_sources,
    remove_random,
    remove_sparse_and_clustered,
    remove_overlapping_ranges_is_an_error,
    insert_random,
    garbage_indices_are_memory_safe,
}
