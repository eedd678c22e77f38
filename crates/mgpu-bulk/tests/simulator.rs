//! Simulator vs CPU: the seed's demonstrations and walk-throughs (golden), random and
//! edge-case inputs (proptest: remove all, remove none, insert everything before index 0,
//! insert after the end; a few tiles each) on both architectures' tunings, every element
//! type, every bad-input error, and memory safety on garbage indices.

use mgpu_bulk::{self as bulk, BulkData, BulkIndex, Source};
use mgpu_core::{Arch, Index};
use mgpu_runtime::{DeviceVec, Error, Simulator};
use mgpu_testkit::Rng;
use proptest::prelude::*;

fn devs() -> [Simulator; 2] {
    [Simulator::new(), Simulator::with_arch(Arch::Sm70)]
}

fn idx<I: BulkIndex>(v: &[u64]) -> Vec<I> {
    v.iter()
        .map(|&x| <I as Index>::from_u64_wrapping(x))
        .collect()
}

fn remove_sim<T: BulkData + bulk::BulkElement<I>, I: BulkIndex>(
    dev: &Simulator,
    source: &[T],
    indices: &[u64],
) -> Result<Vec<T>, Error> {
    let s = DeviceVec::from_slice(dev, source)?;
    let i = DeviceVec::from_slice(dev, &idx::<I>(indices))?;
    let mut o = DeviceVec::<T, _>::zeros(dev, source.len().saturating_sub(indices.len()))?;
    bulk::bulk_remove(s.as_slice(), i.as_slice().into(), o.as_mut_slice())?;
    o.to_vec()
}

fn insert_sim<T: BulkData + bulk::BulkElement<I>, I: BulkIndex>(
    dev: &Simulator,
    values: Option<&[T]>,
    seq: (T, T),
    indices: &[u64],
    source: &[T],
) -> Result<Vec<T>, Error> {
    let s = DeviceVec::from_slice(dev, source)?;
    let i = DeviceVec::from_slice(dev, &idx::<I>(indices))?;
    let v = values.map(|v| DeviceVec::from_slice(dev, v)).transpose()?;
    let src = match &v {
        Some(v) => Source::Array(v.as_slice()),
        None => Source::step(seq.0, seq.1),
    };
    let mut o = DeviceVec::<T, _>::zeros(dev, source.len() + indices.len())?;
    bulk::bulk_insert(src, i.as_slice().into(), s.as_slice(), o.as_mut_slice())?;
    o.to_vec()
}

fn remove_cpu<T: BulkData, I: BulkIndex>(source: &[T], indices: &[u64]) -> Vec<T> {
    let mut o = vec![T::ZERO; source.len() - indices.len()];
    mgpu_cpu::bulk_remove(source, &idx::<I>(indices), &mut o).unwrap();
    o
}

fn insert_cpu<T: BulkData, I: BulkIndex>(values: &[T], indices: &[u64], source: &[T]) -> Vec<T> {
    let mut o = vec![T::ZERO; source.len() + indices.len()];
    mgpu_cpu::bulk_insert(values, &idx::<I>(indices), source, &mut o).unwrap();
    o
}

#[rustfmt::skip]
const REMOVED_EVERY_3RD: [i32; 66] = [
    1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19, 20, 22, 23, 25, 26, 28, 29,
    31, 32, 34, 35, 37, 38, 40, 41, 43, 44, 46, 47, 49, 50, 52, 53, 55, 56, 58, 59,
    61, 62, 64, 65, 67, 68, 70, 71, 73, 74, 76, 77, 79, 80, 82, 83, 85, 86, 88, 89,
    91, 92, 94, 95, 97, 98,
];

#[rustfmt::skip]
const INSERTED: [i32; 120] = [
    0, 1, 1000, 2, 3, 4, 5, 6, 1010, 7, 8, 9, 10, 11, 1020, 12, 13, 14, 15, 16,
    1030, 17, 18, 19, 20, 21, 1040, 22, 23, 24, 25, 26, 1050, 27, 28, 29, 30, 31, 1060, 32,
    33, 34, 35, 36, 1070, 37, 38, 39, 40, 41, 1080, 42, 43, 44, 45, 46, 1090, 47, 48, 49,
    50, 51, 1100, 52, 53, 54, 55, 56, 1110, 57, 58, 59, 60, 61, 1120, 62, 63, 64, 65, 66,
    1130, 67, 68, 69, 70, 71, 1140, 72, 73, 74, 75, 76, 1150, 77, 78, 79, 80, 81, 1160, 82,
    83, 84, 85, 86, 1170, 87, 88, 89, 90, 91, 1180, 92, 93, 94, 95, 96, 1190, 97, 98, 99,
];

#[test]
fn seed_bulk_remove_demo() {
    let data: Vec<i32> = (0..100).collect();
    let remove: Vec<u64> = (0..34).map(|i| 3 * i).collect();
    for dev in devs() {
        assert_eq!(
            remove_sim::<i32, u32>(&dev, &data, &remove).unwrap(),
            REMOVED_EVERY_3RD
        );
    }
    assert_eq!(remove_cpu::<i32, u32>(&data, &remove), REMOVED_EVERY_3RD);
}

#[test]
fn seed_bulk_insert_demo() {
    // step_iterator<int>(1000, 10) values, step_iterator<int>(2, 5) indices, 20 of them.
    let data: Vec<i32> = (0..100).collect();
    let indices: Vec<u64> = (0..20).map(|i| 2 + 5 * i).collect();
    for dev in devs() {
        let out = insert_sim::<i32, u32>(&dev, None, (1000, 10), &indices, &data).unwrap();
        assert_eq!(out, INSERTED);
    }
    let values: Vec<i32> = (0..20).map(|i| 1000 + 10 * i).collect();
    assert_eq!(insert_cpu::<i32, u32>(&values, &indices, &data), INSERTED);
}

#[test]
fn seed_comment_examples() {
    let dev = Simulator::new();
    // BulkRemove: n = 10, indices 1, 3, 4, 5, 7, 8 leave A0 A2 A6 A9.
    let a: Vec<i64> = (0..10).collect();
    assert_eq!(
        remove_sim::<i64, u64>(&dev, &a, &[1, 3, 4, 5, 7, 8]).unwrap(),
        [0, 2, 6, 9]
    );
    // BulkInsert: aCount = 5, bCount = 3, indices 1, 1, 2, 3, 3: B0 A0 A1 B1 A2 B2 A3 A4.
    let vals = [100i64, 101, 102, 103, 104];
    let b = [0i64, 1, 2];
    let out = insert_sim::<i64, u32>(&dev, Some(&vals), (0, 0), &[1, 1, 2, 3, 3], &b).unwrap();
    assert_eq!(out, [0, 100, 101, 1, 102, 2, 103, 104]);
}

#[rustfmt::skip]
const WALK_REMOVE: [u64; 33] = [
    1, 4, 5, 7, 10, 14, 15, 16, 18, 19, 27, 29, 31, 32, 33, 36, 37, 39, 50, 59,
    60, 61, 66, 78, 81, 83, 85, 90, 91, 96, 97, 98, 99,
];
#[rustfmt::skip]
const WALK_REDUCED: [i32; 67] = [
    0, 2, 3, 6, 8, 9, 11, 12, 13, 17, 20, 21, 22, 23, 24, 25, 26, 28, 30, 34,
    35, 38, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 56, 57, 58,
    62, 63, 64, 65, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 79, 80, 82, 84, 86,
    87, 88, 89, 92, 93, 94, 95,
];

#[test]
fn seed_bulk_remove_walk_through() {
    let data: Vec<i32> = (0..100).collect();
    for dev in devs() {
        assert_eq!(
            remove_sim::<i32, u32>(&dev, &data, &WALK_REMOVE).unwrap(),
            WALK_REDUCED
        );
    }
}

#[rustfmt::skip]
const WALK_INSERT: [u64; 100] = [
    1, 12, 13, 14, 14, 18, 20, 38, 39, 44, 45, 50, 50, 50, 54, 56, 59, 63, 68, 69,
    74, 75, 84, 84, 88, 111, 111, 119, 121, 123, 126, 127, 144, 153, 157, 159, 163, 169, 169, 175,
    178, 183, 190, 194, 195, 196, 196, 201, 219, 219, 253, 256, 259, 262, 262, 266, 272, 273, 278, 283,
    284, 291, 296, 297, 302, 303, 306, 306, 317, 318, 318, 319, 319, 320, 320, 323, 326, 329, 330, 334,
    340, 349, 352, 363, 366, 367, 369, 374, 381, 383, 383, 384, 386, 388, 388, 389, 393, 398, 398, 399,
];
#[rustfmt::skip]
const WALK_GATHER: [i64; 100] = [
    22, 0, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 1, 34, 2, 35, 3, 4, 36,
    37, 38, 39, 5, 40, 41, 6, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54,
    55, 56, 57, 58, 59, 7, 60, 8, 61, 62, 63, 64, 65, 9, 66, 10, 67, 68, 69, 70,
    71, 11, 12, 13, 72, 73, 74, 75, 14, 76, 77, 15, 78, 79, 80, 16, 81, 82, 83, 84,
    17, 85, 86, 87, 88, 89, 18, 90, 19, 91, 92, 93, 94, 95, 20, 96, 21, 97, 98, 99,
];

/// The seed's insert walk-through: 400 sources, 100 insertions; the first tile of 100
/// outputs takes 22 insertions and 78 sources, and its merge-style gather indices
/// (`< 22`: insertion, else `22 +` source) are the first 100 outputs when the values are
/// 0, 1, 2, ... and source `j` is `22 + j`.
#[test]
fn seed_bulk_insert_walk_through() {
    let source: Vec<i64> = (0..400).map(|j| 22 + j).collect();
    for dev in devs() {
        let out = insert_sim::<i64, u32>(&dev, None, (0, 1), &WALK_INSERT, &source).unwrap();
        assert_eq!(&out[..100], &WALK_GATHER);
        let values: Vec<i64> = (0..100).collect();
        assert_eq!(out, insert_cpu::<i64, u32>(&values, &WALK_INSERT, &source));
    }
}

fn check_remove<T: BulkData + bulk::BulkElement<I>, I: BulkIndex>(
    dev: &Simulator,
    n: usize,
    keep: &[bool],
    f: impl Fn(usize) -> T,
) {
    let source: Vec<T> = (0..n).map(f).collect();
    let indices: Vec<u64> = (0..n as u64)
        .filter(|&j| !keep[j as usize % keep.len()])
        .collect();
    assert_eq!(
        remove_sim::<T, I>(dev, &source, &indices).unwrap(),
        remove_cpu::<T, I>(&source, &indices)
    );
}

fn check_insert<T: BulkData + bulk::BulkElement<I>, I: BulkIndex>(
    dev: &Simulator,
    n: usize,
    indices: &[u64],
    f: impl Fn(usize) -> T,
) {
    let source: Vec<T> = (0..n).map(&f).collect();
    let values: Vec<T> = (0..indices.len()).map(|k| f(100_000 + k)).collect();
    assert_eq!(
        insert_sim::<T, I>(dev, Some(&values), (T::ZERO, T::ZERO), indices, &source).unwrap(),
        insert_cpu::<T, I>(&values, indices, &source)
    );
}

#[test]
fn edge_cases_every_type() {
    let [d90, d70] = devs();
    for (dev, n) in [(&d90, 2000usize), (&d70, 1793)] {
        // Remove none, remove all, remove every other.
        check_remove::<i32, u32>(dev, n, &[true], |j| j as i32);
        check_remove::<u64, u64>(dev, n, &[false], |j| j as u64 * 3);
        check_remove::<f32, u32>(dev, n, &[true, false], |j| j as f32 * 0.5);
        check_remove::<f64, u64>(dev, 0, &[false], |j| j as f64);
        // Everything before index 0, everything after the end, empty source.
        check_insert::<i64, u32>(dev, n, &vec![0; 1900], |j| j as i64);
        check_insert::<u32, u64>(dev, n, &vec![n as u64; 1900], |j| j as u32);
        check_insert::<f64, u32>(dev, 0, &[0, 0, 0], |j| j as f64);
        check_insert::<f32, u64>(dev, 5, &[], |j| j as f32);
        check_insert::<i32, u32>(dev, 3000, &[1500; 2000], |j| -(j as i32));
    }
}

#[test]
fn errors() {
    let dev = Simulator::new();
    let src: Vec<i32> = (0..3000).collect();
    let e = remove_sim::<i32, u32>(&dev, &src, &[5, 4]).unwrap_err();
    assert!(e.to_string().contains("not sorted and unique"), "{e}");
    let e = remove_sim::<i32, u32>(&dev, &src, &[5, 5]).unwrap_err();
    assert!(e.to_string().contains("not sorted and unique"), "{e}");
    let e = remove_sim::<i32, u32>(&dev, &src, &[5, 3000]).unwrap_err();
    assert!(
        e.to_string().contains("out of range (source length 3000)"),
        "{e}"
    );
    let e = remove_sim::<i32, u64>(&dev, &src, &[2999, 1 << 40]).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    let e = insert_sim::<i32, u32>(&dev, None, (0, 1), &[7, 3], &src).unwrap_err();
    assert!(
        e.to_string().contains("insert indices are not sorted"),
        "{e}"
    );
    let e = insert_sim::<i32, u32>(&dev, None, (0, 1), &[7, 3001], &src).unwrap_err();
    assert!(e.to_string().contains("past the source length 3000"), "{e}");
    // Lengths.
    let s = DeviceVec::from_slice(&dev, &src).unwrap();
    let i = DeviceVec::from_slice(&dev, &[1u32, 2]).unwrap();
    let mut o = DeviceVec::<i32, _>::zeros(&dev, 2999).unwrap();
    assert!(matches!(
        bulk::bulk_remove(s.as_slice(), i.as_slice().into(), o.as_mut_slice()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        bulk::bulk_insert(
            Source::counting(0),
            i.as_slice().into(),
            s.as_slice(),
            o.as_mut_slice()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    let v = DeviceVec::from_slice(&dev, &[1i32]).unwrap();
    let mut o = DeviceVec::<i32, _>::zeros(&dev, 3002).unwrap();
    assert!(matches!(
        bulk::bulk_insert(
            v.as_slice().into(),
            i.as_slice().into(),
            s.as_slice(),
            o.as_mut_slice()
        ),
        Err(Error::LengthMismatch { .. })
    ));
}

/// The error word comes from the device's pool without a memset (the partitions' kernel
/// zeroes it): a call that raised errors must not leave its bits to the next call, which
/// gets the same word back from the pool.
#[test]
fn errors_do_not_leak_into_the_next_call() {
    let dev = Simulator::new();
    let src: Vec<i32> = (0..3000).collect();
    for _ in 0..3 {
        assert!(remove_sim::<i32, u32>(&dev, &src, &[5, 4]).is_err());
        let got = remove_sim::<i32, u32>(&dev, &src, &[4, 5]).unwrap();
        assert_eq!(got, remove_cpu::<i32, u32>(&src, &[4, 5]));
        assert!(insert_sim::<i32, u32>(&dev, None, (0, 1), &[7, 3], &src).is_err());
        let got = insert_sim::<i32, u32>(&dev, None, (0, 1), &[3, 7], &src).unwrap();
        assert_eq!(got, insert_cpu::<i32, u32>(&[0, 1], &[3, 7], &src));
    }
}

/// Generated index sequences (the seeds' `step_iterator` indices) against the same
/// indices as an array, and their host-side checks.
#[test]
fn index_sequences() {
    for dev in devs() {
        let data: Vec<i32> = (0..3000).collect();
        let s = DeviceVec::from_slice(&dev, &data).unwrap();
        // Remove every 3rd element from 1 (1000 indices).
        let mut o = DeviceVec::<i32, _>::zeros(&dev, 2000).unwrap();
        bulk::bulk_remove(s.as_slice(), Source::<u32, _>::step(1, 3), o.as_mut_slice()).unwrap();
        let ix: Vec<u64> = (0..1000).map(|k| 1 + 3 * k).collect();
        assert_eq!(o.to_vec().unwrap(), remove_cpu::<i32, u32>(&data, &ix));
        // The seed's insert demonstration on 3000 elements: 600 values before every 5th from 2.
        let mut o = DeviceVec::<i32, _>::zeros(&dev, 3600).unwrap();
        bulk::bulk_insert(
            Source::step(1000, 10),
            Source::<u64, _>::step(2, 5),
            s.as_slice(),
            o.as_mut_slice(),
        )
        .unwrap();
        let ix: Vec<u64> = (0..600).map(|k| 2 + 5 * k).collect();
        let vals: Vec<i32> = (0..600).map(|k| 1000 + 10 * k).collect();
        assert_eq!(
            o.to_vec().unwrap(),
            insert_cpu::<i32, u64>(&vals, &ix, &data)
        );
        // 2000 values at one position (step 0), and all after the end.
        for at in [0u32, 1234, 3000] {
            let mut o = DeviceVec::<i32, _>::zeros(&dev, 5000).unwrap();
            bulk::bulk_insert(
                Source::counting(-5000),
                Source::step(at, 0),
                s.as_slice(),
                o.as_mut_slice(),
            )
            .unwrap();
            let vals: Vec<i32> = (0..2000).map(|k| k - 5000).collect();
            assert_eq!(
                o.to_vec().unwrap(),
                insert_cpu::<i32, u32>(&vals, &vec![at as u64; 2000], &data)
            );
        }
        // Bad sequences are rejected before the launch.
        let mut o = DeviceVec::<i32, _>::zeros(&dev, 2998).unwrap();
        let e = bulk::bulk_remove(s.as_slice(), Source::<u32, _>::step(7, 0), o.as_mut_slice())
            .unwrap_err();
        assert!(e.to_string().contains("not sorted and unique"), "{e}");
        let mut o = DeviceVec::<i32, _>::zeros(&dev, 1999).unwrap();
        let e = bulk::bulk_remove(s.as_slice(), Source::<u32, _>::step(2, 3), o.as_mut_slice())
            .unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let mut o = DeviceVec::<i32, _>::zeros(&dev, 3002).unwrap();
        let e = bulk::bulk_insert(
            Source::counting(0),
            Source::<u32, _>::step(2999, 2),
            s.as_slice(),
            o.as_mut_slice(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("past the source length 3000"), "{e}");
        // A u32 sequence that would wrap is out of range, not wrapped.
        let mut o = DeviceVec::<i32, _>::zeros(&dev, 2998).unwrap();
        let e = bulk::bulk_remove(
            s.as_slice(),
            Source::<u32, _>::step(u32::MAX, 2),
            o.as_mut_slice(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
    }
}

/// Bulk insert's partitions as its own kernel computed them (one thread per partition,
/// before they moved to `mgpu_partition::merge_path_counting_partitions`): the serial
/// lower-bound `merge_path` of the indices (`device::index_keys`: the array, or the
/// generated sequence, wrapping) against the source positions `Counting(0)`, at
/// cross-diagonal `min(nv * i, n + m)`.
fn serial_partitions<I: BulkIndex>(n: usize, indices: &Indices<I>, nv: usize) -> Vec<u64> {
    use mgpu_bulk::device::{index_keys, BulkArgs, MODE_INDEX_SEQUENCE};
    use mgpu_ctasearch::{merge_path, Counting, Lower};
    let mut a = BulkArgs::<i32, I>::empty();
    let m = match indices {
        Indices::Array(v) => {
            a.indices = v.as_ptr();
            v.len()
        }
        Indices::Sequence(first, step, m) => {
            (a.index_first, a.index_step, a.mode) = (*first, *step, MODE_INDEX_SEQUENCE);
            *m
        }
    };
    let keys = index_keys(&a);
    let total = (n + m) as u64;
    let num = (n + m).div_ceil(nv) + 1;
    (0..num as u64)
        .map(|i| {
            let d = (nv as u64).saturating_mul(i).min(total);
            // SAFETY: the array has `m` elements; a sequence reads nothing.
            unsafe {
                merge_path(
                    keys,
                    m as u64,
                    Counting(I::ZERO),
                    n as u64,
                    d,
                    Lower,
                    mgpu_core::Less,
                )
            }
        })
        .collect()
}

/// Insert indices for the partition checks: an array, or `(first, step, m)` generated.
enum Indices<I> {
    Array(Vec<I>),
    Sequence(I, I, usize),
}

/// `mgpu_partition::merge_path_counting_partitions` on the simulator (by interpolation,
/// one lane per search) == the serial search (the bulk family's former kernel) on sorted
/// indices, inside its range on unsorted ones; on sorted array indices also == the definition (the merge). Returns the group
/// size used (log2).
fn check_partitions<I: BulkIndex>(n: usize, indices: &Indices<I>, nv: usize) -> u32 {
    use mgpu_partition::IndexSource;
    let dev = Simulator::new();
    let d;
    let src = match indices {
        Indices::Array(v) => {
            d = DeviceVec::from_slice(&dev, v).unwrap();
            IndexSource::Array(d.as_slice())
        }
        Indices::Sequence(first, step, m) => IndexSource::Sequence {
            first: *first,
            step: *step,
            len: *m,
        },
    };
    let m = src.len();
    let got = mgpu_partition::merge_path_counting_partitions(
        &dev,
        src,
        n,
        nv,
        mgpu_ctasearch::Bounds::Lower,
    )
    .unwrap()
    .to_vec()
    .unwrap();
    let want = serial_partitions(n, indices, nv);
    let lanes_log2 = mgpu_partition::partition_lanes_log2(want.len());
    // The values the search sees (a sequence wraps in I): exact on sorted ones; on others
    // (the interpolation search is not the bisection there) inside the serial range.
    let vals: Vec<u64> = match indices {
        Indices::Array(v) => v.iter().map(|&x| Index::to_u64(x)).collect(),
        Indices::Sequence(first, step, m) => (0..*m as u64)
            .map(|k| Index::to_u64(first.wrapping_add(step.wrapping_mul(I::from_u64(k)))))
            .collect(),
    };
    if vals.windows(2).all(|w| w[0] <= w[1]) {
        assert_eq!(got, want, "n={n} m={m} nv={nv} lanes_log2={lanes_log2}");
    } else {
        assert_eq!(got.len(), want.len());
        for (i, &p) in got.iter().enumerate() {
            let d = ((nv * i) as u64).min((n + m) as u64);
            assert!(
                d.saturating_sub(n as u64) <= p && p <= d.min(m as u64),
                "n={n} m={m} nv={nv} i={i} p={p}"
            );
        }
    }
    assert!(got.iter().all(|&p| p <= m as u64));
    if let Indices::Array(v) = indices {
        if v.windows(2).all(|w| w[0] <= w[1]) && v.iter().all(|&x| Index::to_u64(x) <= n as u64) {
            // The merge: value k goes before source j when indices[k] <= j.
            let mut from_values = vec![0u64];
            let (mut k, mut j) = (0, 0);
            while k + j < n + m {
                if k < m && (j >= n || Index::to_u64(v[k]) as usize <= j) {
                    k += 1;
                } else {
                    j += 1;
                }
                from_values.push(k as u64);
            }
            let def: Vec<u64> = (0..want.len())
                .map(|i| from_values[(nv * i).min(n + m)])
                .collect();
            assert_eq!(got, def, "definition n={n} m={m} nv={nv}");
        }
    }
    lanes_log2
}

/// The partitions at partition counts where the launcher picks either group size (1 and
/// 32 lanes), on sorted, garbage and generated indices, both index types.
#[test]
fn insert_partitions_every_group_size() {
    let mut seen = std::collections::BTreeSet::new();
    let mut rng = Rng::new(12345);
    for partitions in [
        1usize, 2, 3, 100, 256, 257, 512, 513, 1024, 1025, 2048, 2049, 5000,
    ] {
        for nv in [1usize, 7] {
            let total = (partitions - 1) * nv;
            let m = total / 3;
            let n = total - m;
            let mut sorted: Vec<u64> = (0..m).map(|_| rng.below(n as u64 + 1)).collect();
            sorted.sort_unstable();
            let garbage: Vec<u64> = (0..m).map(|_| rng.below(2 * n as u64 + 3)).collect();
            for v in [&sorted, &garbage] {
                seen.insert(check_partitions(n, &Indices::Array(idx::<u32>(v)), nv));
                check_partitions(n, &Indices::Array(idx::<u64>(v)), nv);
            }
            let step = (n / m.max(1)) as u64;
            seen.insert(check_partitions(
                n,
                &Indices::Sequence(1u32, step as u32, m),
                nv,
            ));
            check_partitions(n, &Indices::Sequence(3u64, step, m), nv);
            // A sequence that wraps (u32) and one past the end.
            check_partitions(n, &Indices::Sequence(u32::MAX - 5, 3, m), nv);
            check_partitions(n, &Indices::Sequence(n as u64, 2, m), nv);
        }
    }
    if std::env::var_os("MGPU_PARTITION_LANES").is_none() {
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [0, 5]);
    }
}

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn remove_sim_matches_cpu(n in 0usize..3000, keep in proptest::collection::vec(any::<bool>(), 1..40), sm70 in any::<bool>()) {
        let dev = if sm70 { Simulator::with_arch(Arch::Sm70) } else { Simulator::new() };
        check_remove::<i32, u32>(&dev, n, &keep, |j| j as i32 * 7);
        check_remove::<f64, u64>(&dev, n, &keep, |j| j as f64 - 0.5);
    }

    #[test]
    fn insert_sim_matches_cpu((n, indices) in sorted_strategy(1500), sm70 in any::<bool>()) {
        let dev = if sm70 { Simulator::with_arch(Arch::Sm70) } else { Simulator::new() };
        check_insert::<i32, u32>(&dev, n, &indices, |j| j as i32);
        check_insert::<u64, u64>(&dev, n, &indices, |j| j as u64 ^ 0xdead);
    }

    #[test]
    fn garbage_indices_are_memory_safe(n in 0usize..2000, raw in proptest::collection::vec(0u64..2200, 0..1500)) {
        // Any indices: an error or (when they happen to be valid) the CPU's result; never
        // an access outside the buffers (the simulator's host memory would catch it as
        // a crash or a poisoned result).
        let dev = Simulator::new();
        let source: Vec<i32> = (0..n as i32).collect();
        if raw.len() <= n {
            let mut o = vec![0; n - raw.len()];
            let cpu = mgpu_cpu::bulk_remove(&source, &idx::<u32>(&raw), &mut o);
            match (remove_sim::<i32, u32>(&dev, &source, &raw), cpu) {
                (Ok(g), Ok(())) => prop_assert_eq!(g, o),
                (Err(Error::InvalidInput(_)), Err(Error::InvalidInput(_))) => {}
                (g, c) => prop_assert!(false, "sim {:?} cpu {:?}", g.map(|_| ()), c),
            }
        }
        let values: Vec<i32> = (0..raw.len() as i32).collect();
        let mut o = vec![0; n + raw.len()];
        let cpu = mgpu_cpu::bulk_insert(&values, &idx::<u32>(&raw), &source, &mut o);
        match (insert_sim::<i32, u32>(&dev, Some(&values), (0, 0), &raw, &source), cpu) {
            (Ok(g), Ok(())) => prop_assert_eq!(g, o),
            (Err(Error::InvalidInput(_)), Err(Error::InvalidInput(_))) => {}
            (g, c) => prop_assert!(false, "sim {:?} cpu {:?}", g.map(|_| ()), c),
        }
    }
}

/// Tiles of `nv` outputs giving about `parts` partitions of `total` merge steps: the
/// partition count picks the group size (see [`check_partitions`]).
fn nv_for(total: usize, parts: usize) -> usize {
    (total / parts).max(1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn insert_partitions_match_the_merge((n, indices) in sorted_strategy(1500), parts in 1usize..2500) {
        let nv = nv_for(n + indices.len(), parts);
        check_partitions(n, &Indices::Array(idx::<u32>(&indices)), nv);
        check_partitions(n, &Indices::Array(idx::<u64>(&indices)), nv);
    }

    #[test]
    fn insert_partitions_of_garbage_match_serial(
        n in 0usize..1500,
        raw in proptest::collection::vec(0u64..3200, 0..3000),
        parts in 1usize..2500,
    ) {
        let nv = nv_for(n + raw.len(), parts);
        check_partitions(n, &Indices::Array(idx::<u32>(&raw)), nv);
        check_partitions(n, &Indices::Array(idx::<u64>(&raw)), nv);
    }

    #[test]
    fn insert_partitions_of_sequences_match_serial(
        n in 0usize..1500,
        first in prop_oneof![0u64..1600, (u32::MAX as u64 - 2000)..=u32::MAX as u64, Just(u64::MAX - 7)],
        step in prop_oneof![Just(0u64), 0u64..8, Just(u64::MAX)],
        m in 0usize..3000,
        parts in 1usize..2500,
    ) {
        let nv = nv_for(n + m, parts);
        check_partitions(n, &Indices::Sequence(first as u32, step as u32, m), nv);
        check_partitions(n, &Indices::Sequence(first, step, m), nv);
    }
}

/// One swapped adjacent pair anywhere in otherwise sorted indices (inside a tile, across a
/// tile boundary, at either end) is reported: the kernels check each pair from staged
/// shared memory and the pair across each tile boundary separately.
#[test]
fn every_swapped_pair_is_reported() {
    let dev = Simulator::new();
    let n = 4000usize;
    let src: Vec<i32> = (0..n as i32).collect();
    // Every third position, unique (remove) or in runs of two (insert).
    let unique: Vec<u64> = (0..n as u64).step_by(3).collect();
    let runs: Vec<u64> = (0..2 * unique.len()).map(|k| unique[k / 2]).collect();
    let mut at: Vec<usize> = (0..unique.len() - 1).step_by(29).collect();
    // Pairs around the tile boundaries of every tuning (NV 896 or the sm_90 shapes).
    for nv in [
        896usize,
        mgpu_bulk::kernels::tuning::REMOVE.sm90.nv(4),
        mgpu_bulk::kernels::tuning::INSERT.sm90.nv(4),
    ] {
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
        let e = remove_sim::<i32, u32>(&dev, &src, &r).unwrap_err();
        assert!(
            e.to_string().contains("not sorted and unique"),
            "remove swap at {k}: {e}"
        );
        let mut i = runs.clone();
        i.swap(2 * k + 1, 2 * k + 2);
        let e = insert_sim::<i32, u32>(&dev, None, (0, 1), &i, &src).unwrap_err();
        assert!(
            e.to_string().contains("not sorted"),
            "insert swap at {k}: {e}"
        );
    }
}
