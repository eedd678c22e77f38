//! What only `mgpu-bulk`'s own launchers show, on the simulators and CUDA: outputs of the
//! wrong length, the asynchronous `_into` forms (nothing written outside their output),
//! and bulk insert's Merge Path partitions.

use mgpu_bulk::{self as bulk, BulkIndex, Source};
use mgpu_core::Index;
use mgpu_runtime::{Device, DeviceVec, Error};
use mgpu_testkit::{self as kit, Guarded, Rng, Target};
use proptest::prelude::*;

/// An output of the wrong length, and values of another length than the indices, are
/// `LengthMismatch`.
fn output_lengths<D: Device>(dev: &D, _: Target) {
    let src: Vec<i32> = (0..3000).collect();
    let s = DeviceVec::from_slice(dev, &src).unwrap();
    let i = DeviceVec::from_slice(dev, &[1u32, 2]).unwrap();
    let mut o = DeviceVec::<i32, _>::zeros(dev, 2999).unwrap();
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
    let v = DeviceVec::from_slice(dev, &[1i32]).unwrap();
    let mut o = DeviceVec::<i32, _>::zeros(dev, 3002).unwrap();
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

/// `bulk_remove_into` and `bulk_insert_into`, waited on, give the reference's result into
/// a guarded output and write nothing outside it (half removed, n/2 inserted, up to 10^6).
fn into_forms_stay_inside_their_output<D: Device>(dev: &D, t: Target) {
    for n in t.sizes(&[0, 1, 895, 896, 897, 5000, 1_000_003]) {
        let source: Vec<u64> = kit::random_bits(&mut Rng::new(n as u64), n);
        let s = DeviceVec::from_slice(dev, &source).unwrap();
        let rm = kit::sorted_unique_indices(&mut Rng::new(1), n, 50);
        let i = DeviceVec::from_slice(dev, &kit::to_index::<u32>(&rm)).unwrap();
        let mut o = Guarded::<u64, D>::new(dev, n - rm.len()).unwrap();
        bulk::bulk_remove_into(s.as_slice(), i.as_slice().into(), o.slice())
            .unwrap()
            .wait()
            .unwrap();
        o.check_guards("bulk_remove_into");
        assert_eq!(o.to_vec(), kit::bulk_remove(&source, &rm), "remove n = {n}");

        let ins = kit::sorted_indices(&mut Rng::new(2), n, n / 2);
        let values: Vec<u64> = kit::random_bits(&mut Rng::new(3), n / 2);
        let i = DeviceVec::from_slice(dev, &ins).unwrap();
        let v = DeviceVec::from_slice(dev, &values).unwrap();
        let mut o = Guarded::<u64, D>::new(dev, n + values.len()).unwrap();
        bulk::bulk_insert_into(
            v.as_slice().into(),
            i.as_slice().into(),
            s.as_slice(),
            o.slice(),
        )
        .unwrap()
        .wait()
        .unwrap();
        o.check_guards("bulk_insert_into");
        let want = kit::bulk_insert(&values, &ins, &source);
        assert_eq!(o.to_vec(), want, "insert n = {n}");
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

/// `mgpu_partition::merge_path_counting_partitions` on `dev` (by interpolation, one lane
/// per search) == the serial search (the bulk family's former kernel) on sorted indices,
/// inside its range on unsorted ones; on sorted array indices also == the definition (the
/// merge). Returns the group size used (log2).
fn check_partitions<D: Device, I: BulkIndex>(
    dev: &D,
    n: usize,
    indices: &Indices<I>,
    nv: usize,
) -> u32 {
    use mgpu_partition::IndexSource;
    let d;
    let src = match indices {
        Indices::Array(v) => {
            d = DeviceVec::from_slice(dev, v).unwrap();
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
        dev,
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
            // The merge of the indices (A) with the source positions (B), A first on ties:
            // value k goes before source j when indices[k] <= j.
            let keys: Vec<u64> = v.iter().map(|&x| Index::to_u64(x)).collect();
            let positions: Vec<u64> = (0..n as u64).collect();
            let merge = kit::merge_sources(&keys, &positions, true, |x, y| x < y);
            let def = kit::merge_splits(&merge, m, nv);
            assert_eq!(got, def, "definition n={n} m={m} nv={nv}");
        }
    }
    lanes_log2
}

/// The partitions at partition counts where the launcher picks either group size (1 and
/// 32 lanes), on sorted, garbage and generated indices, both index types.
fn insert_partitions_every_group_size<D: Device>(dev: &D, _: Target) {
    let mut seen = std::collections::BTreeSet::new();
    let mut rng = Rng::new(12345);
    for partitions in [
        1usize, 2, 3, 100, 256, 257, 512, 513, 1024, 1025, 2048, 2049, 5000,
    ] {
        for nv in [1usize, 7] {
            let total = (partitions - 1) * nv;
            let m = total / 3;
            let n = total - m;
            let sorted = kit::sorted_indices(&mut rng, n, m);
            let garbage: Vec<u64> = (0..m).map(|_| rng.below(2 * n as u64 + 3)).collect();
            for v in [&sorted, &garbage] {
                seen.insert(check_partitions(dev, n, &array::<u32>(v), nv));
                check_partitions(dev, n, &array::<u64>(v), nv);
            }
            let step = (n / m.max(1)) as u64;
            let seq = Indices::Sequence(1u32, step as u32, m);
            seen.insert(check_partitions(dev, n, &seq, nv));
            check_partitions(dev, n, &Indices::Sequence(3u64, step, m), nv);
            // A sequence that wraps (u32) and one past the end.
            check_partitions(dev, n, &Indices::Sequence(u32::MAX - 5, 3, m), nv);
            check_partitions(dev, n, &Indices::Sequence(n as u64, 2, m), nv);
        }
    }
    if std::env::var_os("MGPU_PARTITION_LANES").is_none() {
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [0, 5]);
    }
}

fn array<I: BulkIndex>(v: &[u64]) -> Indices<I> {
    Indices::Array(kit::to_index(v))
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

/// Tiles of `nv` outputs giving about `parts` partitions of `total` merge steps: the
/// partition count picks the group size (see [`check_partitions`]).
fn nv_for(total: usize, parts: usize) -> usize {
    (total / parts).max(1)
}

/// [`check_partitions`] of the index array `indices` into `n` sources, as `u32` and as
/// `u64`, with tiles for about `parts` partitions.
fn check_array_partitions<D: Device>(dev: &D, n: usize, indices: &[u64], parts: usize) {
    let nv = nv_for(n + indices.len(), parts);
    check_partitions(dev, n, &array::<u32>(indices), nv);
    check_partitions(dev, n, &array::<u64>(indices), nv);
}

fn insert_partitions_match_the_merge<D: Device>(dev: &D, _: Target) {
    let strategy = (sorted_strategy(1500), 1usize..2500);
    // 64 cases, as the earlier `proptest!` block.
    mgpu_testkit::proptest_runner(64)
        .run(&strategy, |((n, indices), parts)| {
            check_array_partitions(dev, n, &indices, parts);
            Ok(())
        })
        .unwrap();
}

fn insert_partitions_of_garbage_match_serial<D: Device>(dev: &D, _: Target) {
    let strategy = (
        0usize..1500,
        proptest::collection::vec(0u64..3200, 0..3000),
        1usize..2500,
    );
    // The case proptest once shrank a failure to (the old simulator suite's regressions
    // file), then 64 cases, as the earlier `proptest!` block.
    let (n, raw, parts) = (14, [14u64, 6, 1208], 2059);
    check_array_partitions(dev, n, &raw, parts);
    mgpu_testkit::proptest_runner(64)
        .run(&strategy, |(n, raw, parts)| {
            check_array_partitions(dev, n, &raw, parts);
            Ok(())
        })
        .unwrap();
}

fn insert_partitions_of_sequences_match_serial<D: Device>(dev: &D, _: Target) {
    let strategy = (
        0usize..1500,
        prop_oneof![
            0u64..1600,
            (u32::MAX as u64 - 2000)..=u32::MAX as u64,
            Just(u64::MAX - 7)
        ],
        prop_oneof![Just(0u64), 0u64..8, Just(u64::MAX)],
        0usize..3000,
        1usize..2500,
    );
    // The case proptest once shrank a failure to (a u32 sequence that wraps), then 64
    // cases, as the earlier `proptest!` block.
    let (n, first, step, m, parts) = (3, 4294966916u64, 2u64, 191, 98);
    let nv = nv_for(n + m, parts);
    check_partitions(dev, n, &Indices::Sequence(first as u32, step as u32, m), nv);
    check_partitions(dev, n, &Indices::Sequence(first, step, m), nv);
    mgpu_testkit::proptest_runner(64)
        .run(&strategy, |(n, first, step, m, parts)| {
            let nv = nv_for(n + m, parts);
            let seq = Indices::Sequence(first as u32, step as u32, m);
            check_partitions(dev, n, &seq, nv);
            check_partitions(dev, n, &Indices::Sequence(first, step, m), nv);
            Ok(())
        })
        .unwrap();
}

mgpu_testkit::device_tests! {
    output_lengths,
    into_forms_stay_inside_their_output,
    insert_partitions_every_group_size,
    insert_partitions_match_the_merge,
    insert_partitions_of_garbage_match_serial,
    insert_partitions_of_sequences_match_serial,
}
