//! Every partition launcher against `mgpu_cpu::partition`, bit for bit: the small random
//! and adversarial cases (all keys equal, one side empty, both empty, sizes around
//! multiples of nv) of every key type with Less and Greater and u32 and u64 indices; the
//! sizes of the target's budget (tile edges of nv = 256 x 11, then 10^6 to 10^8 on CUDA,
//! each size and the second call's time printed there); bad arguments; the seeds'
//! examples; and the CPU partitions against their plain definitions (a sequential merge,
//! the last row starting at or before a key), with the device's beside them.

use crate::common::*;
use mgpu_core::{Greater, Less};
use mgpu_cpu::partition as cpu;
use mgpu_ctasearch::Bounds;
use mgpu_partition::{IndexSource, MergeComparator, PartitionIndex};
use mgpu_runtime::{Device, DeviceVec, Error, Result, Temp};
use mgpu_testkit::{self as kit, Rng, Target};
use proptest::prelude::*;

/// Tile sizes of the algorithms that will use these partitions (nv = NT * VT).
const NV: usize = 256 * 11;

/// Runs the launcher `f` and waits for it (on CUDA twice, the second call timed); its
/// partitions.
fn timed<D: Device>(
    dev: &D,
    t: Target,
    what: &str,
    n: usize,
    f: impl Fn() -> Result<Temp<u64, D>>,
) -> Vec<u64> {
    let r = t.timed(what, n, || {
        let r = f().unwrap();
        dev.synchronize().unwrap();
        r
    });
    r.to_vec().unwrap()
}

/// The tile edges, then 10^6 to 10^8, within the target's budget.
fn sizes(t: Target) -> Vec<usize> {
    t.sizes(&[
        0,
        1,
        NV - 1,
        NV,
        NV + 1,
        2 * NV,
        1_000_003,
        10_000_000,
        100_000_000,
    ])
}

fn merge_cases<D: Device, T: Key, C: MergeComparator<T>>(dev: &D, rng: &mut Rng) {
    let desc = is_greater::<C>();
    let nv = 7;
    for (na, nb, range) in [
        (0usize, 0usize, 5u64),
        (0, 20, 5),
        (20, 0, 5),
        (13, 8, 1), // all keys equal
        (27, 28, 1000),
        (34, 36, 3), // 70 = 10 tiles exactly
        (35, 36, 3),
        (40, 300, 10),
    ] {
        let a = sorted::<T>(rng, na, range, desc);
        let b = sorted::<T>(rng, nb, range, desc);
        check_merge::<_, T, C>(dev, &a, &b, nv);
    }
    // Mergesort passes: lists of nv * coop / 2, ragged last list.
    for coop in [2usize, 4, 8] {
        for n in [0usize, 1, 27, 28, 29, 100] {
            let keys = sorted_lists::<T, C>(rng, n, nv * coop / 2, 6);
            check_mergesort::<_, T, C>(dev, &keys, nv, coop);
        }
    }
}

/// Small merges and mergesort passes, every key type with Less and Greater.
fn merge_and_mergesort_partitions_match_cpu<D: Device>(dev: &D, _: Target) {
    let mut rng = Rng::new(1);
    for_key_types!(merge_cases, dev, &mut rng);
}

fn index_cases<D: Device, I: PartitionIndex>(dev: &D, rng: &mut Rng) {
    // `n` sorted indices into `count` positions: search partitions (Bulk Remove) and
    // counting partitions (Bulk Insert).
    for (n, count, nv) in [
        (0usize, 0usize, 5usize),
        (0, 30, 5),
        (6, 30, 10),
        (30, 0, 4),
        (5, 3, 3),
        (50, 200, 7),
        (200, 50, 7),
        (40, 40, 8),
        // More than 1024 partitions: one lane a search (the k-ary search).
        (20_000, 50_000, 9),
        (5000, 3000, 1),
        (1500, 1_000_000, 600),
    ] {
        // Search: indices below count (duplicates allowed), and all equal.
        let d = sorted_below::<I>(rng, n, count.max(1) as u64);
        check_search::<_, I>(dev, &d, count, nv);
        check_search::<_, I>(dev, &vec![I::from_u64(3); n], count, nv);
        // Counting: indices `<= count`, duplicates, all at one position (0, the middle,
        // the end), none; a generated sequence.
        let d = sorted_below::<I>(rng, n, count as u64 + 1);
        check_counting::<_, I>(dev, &d, None, count, nv);
        for at in [0, count / 2, count] {
            check_counting::<_, I>(dev, &vec![I::from_u64(at as u64); n], None, count, nv);
        }
        let (first, step) = (rng.below(count as u64 / 4 + 1), rng.below(5));
        let s: Vec<I> = (0..n as u64)
            .map(|k| I::from_u64(first + step * k))
            .collect();
        let seq = Some((I::from_u64(first), I::from_u64(step)));
        check_counting::<_, I>(dev, &s, seq, count, nv);
    }
    // CSR and load-balancing partitions of random counts (rows, below max); empty
    // rows/objects everywhere, a single huge one; nothing at all.
    for (c, nv) in [
        (counts(rng, 1, 10), 4),
        (counts(rng, 10, 1), 3),
        (counts(rng, 30, 8), 7),
        (counts(rng, 64, 30), 16),
        (counts(rng, 5, 1), 3),
        (vec![0, 0, 0, 100, 0, 0], 9),
        (vec![], 9),
    ] {
        let (csr, nz) = scan_of::<I>(&c);
        check_csr::<_, I>(dev, &csr, nz, nv);
        check_lbs::<_, I>(dev, &csr, nz, nv);
    }
}

/// Small search, CSR, load-balancing and counting partitions, u32 and u64 indices.
fn index_partitions_match_cpu<D: Device>(dev: &D, _: Target) {
    let mut rng = Rng::new(2);
    index_cases::<_, u32>(dev, &mut rng);
    index_cases::<_, u64>(dev, &mut rng);
}

fn bad_arguments_are_errors<D: Device>(dev: &D, _: Target) {
    let v = DeviceVec::from_slice(dev, &[1u32, 2]).unwrap();
    let (lower, v) = (Bounds::Lower, v.as_slice());
    assert!(mgpu_partition::merge_path_partitions(v, v, 0, lower, Less).is_err());
    assert!(mgpu_partition::mergesort_partitions(v, 4, 3, Less).is_err());
    assert!(mgpu_partition::mergesort_partitions(v, 4, 1, Less).is_err());
    assert!(matches!(
        mgpu_partition::csr_partitions(v, 1 << 33, 100),
        Err(Error::IndexOverflow { .. })
    ));
    assert!(mgpu_partition::load_balance_partitions(v, 5, 0).is_err());
    assert!(mgpu_partition::merge_path_counting_partitions(dev, v.into(), 5, 0, lower).is_err());
    assert!(matches!(
        mgpu_partition::merge_path_counting_partitions(dev, v.into(), 1 << 32, 100, lower),
        Err(Error::IndexOverflow { .. })
    ));
}

/// The seeds' examples through the launchers: seed 001's tiles, seed 002's CSR.
fn seed_examples<D: Device>(dev: &D, _: Target) {
    let counts: Vec<u64> = kit::seed001::COUNTS.iter().map(|&c| c.into()).collect();
    let (scan, total) = scan_of::<u32>(&counts);
    assert_eq!((&scan[..], total), (&kit::seed001::EXC_SCAN[..], 79));
    let s = DeviceVec::from_slice(dev, &scan).unwrap();
    let mp = mgpu_partition::load_balance_partitions(s.as_slice(), total, 30).unwrap();
    assert_eq!(mp.to_vec().unwrap(), vec![0, 21, 38, 58, 79]);
    let csr = DeviceVec::from_slice(dev, &[0u64, 957, 1008, 2000, 2312]).unwrap();
    let l = mgpu_partition::csr_partitions(csr.as_slice(), 3000, 1000)
        .unwrap()
        .to_vec()
        .unwrap();
    let rows: Vec<u64> = l
        .iter()
        .map(|&x| mgpu_partition::csr_limit_row(x))
        .collect();
    assert_eq!(rows, [0, 1, 3, 5]);
    let flags: Vec<bool> = l
        .iter()
        .map(|&x| mgpu_partition::csr_limit_continues(x))
        .collect();
    assert_eq!(flags, [false, true, false, false]);
}

/// The CPU's Merge Path partitions are the splits of the sequential merge (A first on
/// ties for the lower bound, B first for the upper), and the device's the CPU's.
fn merge_partitions_are_sequential_merge_splits<D: Device>(dev: &D, _: Target) {
    let strategy = (
        prop::collection::vec(0u32..6, 0..40),
        prop::collection::vec(0u32..6, 0..40),
        1usize..12,
    );
    // 48 cases, as the earlier `proptest!` block.
    kit::proptest_runner(48)
        .run(&strategy, |(mut a, mut b, nv)| {
            a.sort();
            b.sort();
            for (bounds, a_first) in [(cpu::Bounds::Lower, true), (cpu::Bounds::Upper, false)] {
                let got = cpu::merge_path_partitions::<u32, Less>(&a, &b, nv, bounds).unwrap();
                let merge = kit::merge_sources(&a, &b, a_first, |x, y| x < y);
                prop_assert_eq!(got, kit::merge_splits(&merge, a.len(), nv));
            }
            check_merge::<_, u32, Less>(dev, &a, &b, nv);
            Ok(())
        })
        .unwrap();
}

/// The CPU's load-balancing partitions are the upper-bound merge splits of the items
/// `0..total` and the scan, and the device's the CPU's.
fn lbs_partitions_are_upper_merge_splits<D: Device>(dev: &D, _: Target) {
    scan_property::<u32>(0, |scan, total, nv| {
        let items: Vec<u32> = (0..total as u32).collect();
        let got = cpu::load_balance_partitions(&scan, total, nv).unwrap();
        let merge = kit::merge_sources(&items, &scan, false, |x, y| x < y);
        prop_assert_eq!(got, kit::merge_splits(&merge, items.len(), nv));
        check_lbs::<_, u32>(dev, &scan, total, nv);
        Ok(())
    });
}

/// The CPU's CSR partitions are the last row starting at or before each tile's first
/// nonzero, flagged when it starts before it, and the device's the CPU's.
fn csr_partitions_are_upper_bound_minus_one<D: Device>(dev: &D, _: Target) {
    scan_property::<u64>(1, |csr, nz, nv| {
        let got = cpu::csr_partitions(&csr, nz, nv).unwrap();
        for (i, &l) in got.iter().enumerate() {
            let key = (nv * i).min(nz) as u64;
            if key == nz as u64 {
                prop_assert_eq!(l, csr.len() as u64);
            } else {
                // The last row starting at or before key, and the flag iff it starts
                // before.
                let row = csr.iter().rposition(|&x| x <= key).unwrap() as u64;
                let flag = csr[row as usize] != key;
                prop_assert_eq!(l, row | if flag { cpu::CSR_CONTINUATION } else { 0 });
            }
        }
        check_csr::<_, u64>(dev, &csr, nz, nv);
        Ok(())
    });
}

/// 48 cases (as the earlier `proptest!` blocks) of `test(scan, total, nv)`: the exclusive
/// scan as `I` of `min_rows` to 39 random counts below 5, its total, and nv from 1 to 11.
fn scan_property<I: PartitionIndex>(
    min_rows: usize,
    test: impl Fn(Vec<I>, usize, usize) -> std::result::Result<(), TestCaseError>,
) {
    let strategy = (prop::collection::vec(0u64..5, min_rows..40), 1usize..12);
    kit::proptest_runner(48)
        .run(&strategy, |(c, nv)| {
            let (scan, total) = scan_of::<I>(&c);
            test(scan, total, nv)
        })
        .unwrap();
}

fn merge_at<D: Device, T: Key, C: MergeComparator<T>>(dev: &D, t: Target, n: usize, range: u64) {
    let mut rng = Rng::new(n as u64 ^ 0x5EED);
    let desc = is_greater::<C>();
    let na = n / 2 + (rng.below(3) as usize).min(n - n / 2);
    let a = sorted::<T>(&mut rng, na, range, desc);
    let b = sorted::<T>(&mut rng, n - na, range, desc);
    let (da, db) = (
        DeviceVec::from_slice(dev, &a).unwrap(),
        DeviceVec::from_slice(dev, &b).unwrap(),
    );
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let order = if desc { "greater" } else { "less" };
        let what = format!("merge {} {order} {bounds:?} range {range}", T::NAME);
        let got = timed(dev, t, &what, n, || {
            mgpu_partition::merge_path_partitions(
                da.as_slice(),
                db.as_slice(),
                NV,
                bounds,
                C::default(),
            )
        });
        let want = cpu::merge_path_partitions::<T, C>(&a, &b, NV, cpu_bounds(bounds)).unwrap();
        assert!(got == want, "{what} n={n}");
    }
}

fn check_one_sided<D: Device, T: Key, C: MergeComparator<T>>(dev: &D, rng: &mut Rng, n: usize) {
    let desc = is_greater::<C>();
    let a = sorted::<T>(rng, n, 50, desc);
    check_merge::<_, T, C>(dev, &a, &[], NV);
    check_merge::<_, T, C>(dev, &[], &a, NV);
    let b = sorted::<T>(rng, n / 3, 50, desc);
    check_merge::<_, T, C>(dev, &a, &b, NV);
}

/// Merges of two halves at the target's sizes (random keys, all keys equal, descending
/// f64); every key type and comparator with one side empty, up to 10^6.
fn merge_partitions<D: Device>(dev: &D, t: Target) {
    for n in sizes(t) {
        merge_at::<_, u32, Less>(dev, t, n, 1 << 30);
        merge_at::<_, i32, Less>(dev, t, n, 1); // all keys equal
        merge_at::<_, f64, Greater>(dev, t, n, 1000);
    }
    for n in t.sizes(&[0, 1, 3 * NV, 1_000_000]) {
        let mut rng = Rng::new(3);
        // Every other key type and comparator, and one side empty.
        for_key_types!(check_one_sided, dev, &mut rng, n);
    }
}

/// Mergesort passes of u32 lists (coop 2, 8, 64) at the target's sizes; f32 descending
/// and all-equal i64 keys at 10^5.
fn mergesort_partitions<D: Device>(dev: &D, t: Target) {
    for n in t.sizes(&[0, 1, NV + 1, 4 * NV, 1_000_003, 10_000_000, 100_000_000]) {
        for coop in [2usize, 8, 64] {
            let mut rng = Rng::new(n as u64 + coop as u64);
            let keys = sorted_lists::<u32, Less>(&mut rng, n, NV * coop / 2, 1 << 20);
            let dk = DeviceVec::from_slice(dev, &keys).unwrap();
            let what = format!("mergesort u32 less coop {coop}");
            let got = timed(dev, t, &what, n, || {
                mgpu_partition::mergesort_partitions(dk.as_slice(), NV, coop, Less)
            });
            assert!(
                got == cpu::mergesort_partitions::<u32, Less>(&keys, NV, coop).unwrap(),
                "n={n} coop={coop}"
            );
        }
    }
    // 10^5 keys (the target's budget and the sanitizer cap).
    let n = t.cap(100_000);
    let mut rng = Rng::new(9);
    let keys = sorted_lists::<f32, Greater>(&mut rng, n, NV, 10);
    check_mergesort::<_, f32, Greater>(dev, &keys, NV, 2);
    check_mergesort::<_, i64, Less>(dev, &vec![7i64; n], NV, 4);
}

fn index_at<D: Device, I: PartitionIndex>(dev: &D, t: Target, n: usize) {
    let mut rng = Rng::new(n as u64 ^ 0xC5);
    // Sorted unique-ish indices into `count` elements (Bulk Remove), all equal ones.
    let count = 2 * n;
    let idx = sorted_below::<I>(&mut rng, n, count.max(1) as u64);
    let di = DeviceVec::from_slice(dev, &idx).unwrap();
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let what = format!("search {} {bounds:?}", I::NAME);
        let got = timed(dev, t, &what, n, || {
            mgpu_partition::binary_search_partitions(di.as_slice(), count, NV, bounds)
        });
        let want = cpu::binary_search_partitions(&idx, count, NV, cpu_bounds(bounds)).unwrap();
        assert!(got == want, "search n={n}");
    }
    let equal = vec![I::from_u64(5); n.min(1_000_000)];
    check_search::<_, I>(dev, &equal, count.min(2_000_000), NV);
    // CSR and load-balancing over counts with runs of empties: n objects, about 2n items.
    let c = counts(&mut rng, n, 5);
    let (scan, total) = scan_of::<I>(&c);
    let ds = DeviceVec::from_slice(dev, &scan).unwrap();
    let got = timed(dev, t, &format!("csr {}", I::NAME), total, || {
        mgpu_partition::csr_partitions(ds.as_slice(), total, NV)
    });
    let want = cpu::csr_partitions(&scan, total, NV).unwrap();
    assert!(got == want, "csr n={n}");
    let got = timed(dev, t, &format!("lbs {}", I::NAME), total + n, || {
        mgpu_partition::load_balance_partitions(ds.as_slice(), total, NV)
    });
    let want = cpu::load_balance_partitions(&scan, total, NV).unwrap();
    assert!(got == want, "lbs n={n}");
}

/// Search, CSR and load-balancing partitions at the target's sizes (up to 5 * 10^7), u32
/// and u64; one object with every item, and all objects empty but the last.
fn index_partitions<D: Device>(dev: &D, t: Target) {
    for n in t.sizes(&[0, 1, NV - 1, NV, NV + 1, 1_000_003, 10_000_000, 50_000_000]) {
        index_at::<_, u32>(dev, t, n);
        index_at::<_, u64>(dev, t, n);
    }
    // One object with everything, and all objects empty but the last (3 * 10^6 items and
    // 10^6 objects, within the target's budget and the sanitizer cap).
    for c in [vec![t.cap(3_000_000) as u64], {
        let n = t.cap(1_000_000).max(1);
        let mut v = vec![0u64; n];
        v[n - 1] = 77;
        v
    }] {
        let (scan, total) = scan_of::<u32>(&c);
        check_csr::<_, u32>(dev, &scan, total, NV);
        check_lbs::<_, u32>(dev, &scan, total, NV);
    }
}

/// Bulk Insert's shapes: `n / 2` sorted indices into `n` positions, garbage, generated
/// sequences (every 3rd position; everything at one position), both bounds.
fn counting_at<D: Device, I: PartitionIndex>(dev: &D, t: Target, n: usize) {
    let mut rng = Rng::new(n as u64 ^ 0xB1);
    let m = n / 2;
    let sorted_idx = sorted_below::<I>(&mut rng, m, n as u64 + 1);
    let garbage: Vec<I> = (0..m)
        .map(|_| I::from_u64(rng.below(n as u64 + 1)))
        .collect();
    for (what, idx) in [("sorted", &sorted_idx), ("garbage", &garbage)] {
        let di = DeviceVec::from_slice(dev, idx).unwrap();
        for bounds in [Bounds::Lower, Bounds::Upper] {
            let name = format!("counting {} {what} {bounds:?}", I::NAME);
            let got = timed(dev, t, &name, n + m, || {
                mgpu_partition::merge_path_counting_partitions(
                    dev,
                    di.as_slice().into(),
                    n,
                    NV,
                    bounds,
                )
            });
            if what == "sorted" {
                let want = serial_counting(idx, n as u64, NV as u64, bounds);
                assert!(got == want, "{name} n={n}");
            } else {
                // Garbage: the interpolation search promises a position inside the
                // diagonal's range, not the serial search's answer.
                let (m, c) = (idx.len() as u64, n as u64);
                for (p, &a) in got.iter().enumerate() {
                    let diag = (NV as u64 * p as u64).min(m + c);
                    assert!(
                        a >= diag.saturating_sub(c) && a <= diag.min(m),
                        "{name} n={n}: partition {p} = {a} outside the diagonal {diag}"
                    );
                }
            }
        }
    }
    for (first, step, len) in [(0u64, 3u64, n / 3), (n as u64 / 2, 0, m)] {
        let seq: Vec<I> = (0..len as u64)
            .map(|k| I::from_u64(first + step * k))
            .collect();
        let name = format!("counting {} sequence step {step}", I::NAME);
        let src = IndexSource::Sequence {
            first: I::from_u64(first),
            step: I::from_u64(step),
            len,
        };
        let got = timed(dev, t, &name, n + len, || {
            mgpu_partition::merge_path_counting_partitions(dev, src, n, NV, Bounds::Lower)
        });
        let want = serial_counting(&seq, n as u64, NV as u64, Bounds::Lower);
        assert!(got == want, "{name} n={n}");
    }
    // The CPU's merge partitions against the positions materialised, at moderate sizes.
    if n <= 10_000_000 {
        check_counting::<_, I>(dev, &sorted_idx, None, n, NV);
    }
}

/// Bulk Insert's counting partitions at the target's sizes (up to 10^8), u32 and u64;
/// many indices at one position (0, the middle, the end).
fn counting_partitions<D: Device>(dev: &D, t: Target) {
    for n in t.sizes(&[0, 1, NV - 1, NV, NV + 1, 1_000_003, 10_000_000, 100_000_000]) {
        counting_at::<_, u32>(dev, t, n);
        counting_at::<_, u64>(dev, t, n);
    }
    // A million indices at one position (0, the middle, the end) of 3 * 10^6, as arrays
    // (within the budget and the sanitizer cap, half of it each: still many tiles of
    // indices at one place).
    let n = t.cap_share(3_000_000, 2);
    let m = t.cap_share(1_000_000, 2);
    for at in [0u64, n as u64 / 2, n as u64] {
        check_counting::<_, u32>(dev, &vec![at as u32; m], None, n, NV);
    }
}

mgpu_testkit::device_tests! {
    merge_and_mergesort_partitions_match_cpu,
    index_partitions_match_cpu,
    bad_arguments_are_errors,
    seed_examples,
    merge_partitions_are_sequential_merge_splits,
    lbs_partitions_are_upper_merge_splits,
    csr_partitions_are_upper_bound_minus_one,
    merge_partitions,
    mergesort_partitions,
    index_partitions,
    counting_partitions,
}
