//! Every partition launcher on the simulator (both tuning tables, so both `Arch`s'
//! dispatch) against `mgpu_cpu::partition` (the counting partitions against its
//! `merge_path_partitions` with the positions materialised), and the CPU partitions
//! against plain definitions (a sequential merge, `partition_point`): random and
//! adversarial inputs (all keys equal, one side empty, both empty, sizes around multiples
//! of nv), every key type with Less and Greater, u32 and u64 indices.

mod common;
use common::*;
use mgpu_core::{Comparator, Less};
use mgpu_runtime::{Arch, Simulator};
use mgpu_testkit::Rng;
use proptest::prelude::{prop, prop_assert_eq, proptest, ProptestConfig};

fn devices() -> [Simulator; 2] {
    [Simulator::new(), Simulator::with_arch(Arch::Sm70)]
}

fn merge_cases<T: Key, C: mgpu_partition::MergeComparator<T>>(dev: &Simulator, rng: &mut Rng) {
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

#[test]
fn merge_and_mergesort_partitions_match_cpu() {
    for dev in devices() {
        let mut rng = Rng::new(1);
        for_key_types!(merge_cases, &dev, &mut rng);
    }
}

fn index_cases<I: mgpu_partition::PartitionIndex>(dev: &Simulator, rng: &mut Rng) {
    for (n, count, nv) in [
        (0usize, 0usize, 5usize),
        (0, 30, 5),
        (6, 30, 10),
        (50, 200, 7),
        (40, 40, 8),
        // More than 1024 partitions: one lane a search (the k-ary search).
        (20_000, 50_000, 9),
        (5000, 3000, 1),
        (1500, 1_000_000, 600),
    ] {
        // Sorted indices below count (duplicates allowed), and all equal.
        let d = sorted::<u64>(rng, n, count.max(1) as u64, false);
        let d: Vec<I> = d.into_iter().map(I::from_u64).collect();
        check_search::<_, I>(dev, &d, count, nv);
        check_search::<_, I>(dev, &vec![I::from_u64(3); n], count, nv);
    }
    for (rows, max, nv) in [
        (1usize, 10u64, 4usize),
        (10, 1, 3),
        (30, 8, 7),
        (64, 30, 16),
        (5, 0, 3),
    ] {
        let c = counts(rng, rows, max.max(1));
        let (csr, nz) = scan_of::<I>(&c);
        check_csr::<_, I>(dev, &csr, nz, nv);
        check_lbs::<_, I>(dev, &csr, nz, nv);
    }
    // Empty rows/objects everywhere; a single huge one; nothing at all.
    let (csr, nz) = scan_of::<I>(&[0, 0, 0, 100, 0, 0]);
    check_csr::<_, I>(dev, &csr, nz, 9);
    check_lbs::<_, I>(dev, &csr, nz, 9);
    check_lbs::<_, I>(dev, &[], 0, 9);
    check_csr::<_, I>(dev, &[], 0, 9);
    // Counting partitions (Bulk Insert): sorted indices `<= count`, duplicates, all at one
    // position (0, the middle, the end), none; generated sequences.
    for (m, count, nv) in [
        (0usize, 0usize, 5usize),
        (0, 30, 5),
        (30, 0, 4),
        (5, 3, 3),
        (50, 200, 7),
        (200, 50, 7),
        (40, 40, 8),
    ] {
        let d: Vec<I> = sorted::<u64>(rng, m, count as u64 + 1, false)
            .into_iter()
            .map(I::from_u64)
            .collect();
        check_counting::<_, I>(dev, &d, None, count, nv);
        for at in [0, count / 2, count] {
            check_counting::<_, I>(dev, &vec![I::from_u64(at as u64); m], None, count, nv);
        }
        let (first, step) = (rng.below(count as u64 / 4 + 1), rng.below(5));
        let s: Vec<I> = (0..m as u64)
            .map(|k| I::from_u64(first + step * k))
            .collect();
        check_counting::<_, I>(
            dev,
            &s,
            Some((I::from_u64(first), I::from_u64(step))),
            count,
            nv,
        );
    }
}

#[test]
fn index_partitions_match_cpu() {
    for dev in devices() {
        let mut rng = Rng::new(2);
        index_cases::<u32>(&dev, &mut rng);
        index_cases::<u64>(&dev, &mut rng);
    }
}

#[test]
fn bad_arguments_are_errors() {
    let dev = Simulator::new();
    let v = mgpu_runtime::DeviceVec::from_slice(&dev, &[1u32, 2]).unwrap();
    use mgpu_ctasearch::Bounds;
    assert!(mgpu_partition::merge_path_partitions(
        v.as_slice(),
        v.as_slice(),
        0,
        Bounds::Lower,
        Less
    )
    .is_err());
    assert!(mgpu_partition::mergesort_partitions(v.as_slice(), 4, 3, Less).is_err());
    assert!(mgpu_partition::mergesort_partitions(v.as_slice(), 4, 1, Less).is_err());
    assert!(matches!(
        mgpu_partition::csr_partitions(v.as_slice(), 1 << 33, 100),
        Err(mgpu_runtime::Error::IndexOverflow { .. })
    ));
    assert!(mgpu_partition::load_balance_partitions(v.as_slice(), 5, 0).is_err());
    assert!(mgpu_partition::merge_path_counting_partitions(
        &dev,
        v.as_slice().into(),
        5,
        0,
        Bounds::Lower
    )
    .is_err());
    assert!(matches!(
        mgpu_partition::merge_path_counting_partitions(
            &dev,
            v.as_slice().into(),
            1 << 32,
            100,
            Bounds::Lower
        ),
        Err(mgpu_runtime::Error::IndexOverflow { .. })
    ));
}

/// The seeds' examples through the launchers: seed 001's tiles, seed 002's CSR.
#[test]
fn seed_examples() {
    let counts: [u64; 40] = [
        1, 2, 4, 0, 4, 4, 3, 3, 2, 4, 0, 0, 1, 2, 1, 1, 0, 2, 2, 1, 1, 4, 2, 3, 2, 2, 1, 1, 3, 0,
        2, 1, 1, 3, 4, 2, 2, 4, 0, 4,
    ];
    let (scan, total) = scan_of::<u32>(&counts);
    assert_eq!(total, 79);
    for dev in devices() {
        let s = mgpu_runtime::DeviceVec::from_slice(&dev, &scan).unwrap();
        let mp = mgpu_partition::load_balance_partitions(s.as_slice(), total, 30).unwrap();
        assert_eq!(mp.to_vec().unwrap(), vec![0, 21, 38, 58, 79]);
        let csr =
            mgpu_runtime::DeviceVec::from_slice(&dev, &[0u64, 957, 1008, 2000, 2312]).unwrap();
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
}

/// The sequential merge: how many of the first d outputs come from A.
fn merge_split<T: Copy, C: Comparator<T>>(a: &[T], b: &[T], d: usize, upper: bool) -> u64 {
    let (mut i, mut j) = (0, 0);
    while i + j < d {
        let take_a = j == b.len()
            || (i < a.len()
                && if upper {
                    C::compare(&a[i], &b[j])
                } else {
                    !C::compare(&b[j], &a[i])
                });
        if take_a {
            i += 1
        } else {
            j += 1
        }
    }
    i as u64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn cpu_merge_partitions_are_sequential_merge_splits(
        a in prop::collection::vec(0u32..6, 0..40),
        b in prop::collection::vec(0u32..6, 0..40),
        nv in 1usize..12,
    ) {
        let (mut a, mut b) = (a, b);
        a.sort();
        b.sort();
        let n = a.len() + b.len();
        for (bounds, upper) in [(mgpu_cpu::partition::Bounds::Lower, false), (mgpu_cpu::partition::Bounds::Upper, true)] {
            let got = mgpu_cpu::partition::merge_path_partitions::<u32, Less>(&a, &b, nv, bounds).unwrap();
            let want: Vec<u64> = (0..n.div_ceil(nv) + 1).map(|i| merge_split::<u32, Less>(&a, &b, (nv * i).min(n), upper)).collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn cpu_lbs_partitions_are_upper_merge_splits(c in prop::collection::vec(0u64..5, 0..40), nv in 1usize..12) {
        let (scan, total) = scan_of::<u32>(&c);
        let items: Vec<u32> = (0..total as u32).collect();
        let n = total + scan.len();
        let got = mgpu_cpu::partition::load_balance_partitions(&scan, total, nv).unwrap();
        let want: Vec<u64> = (0..n.div_ceil(nv) + 1).map(|i| merge_split::<u32, Less>(&items, &scan, (nv * i).min(n), true)).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn cpu_csr_partitions_are_upper_bound_minus_one(c in prop::collection::vec(0u64..5, 1..40), nv in 1usize..12) {
        let (csr, nz) = scan_of::<u64>(&c);
        let got = mgpu_cpu::partition::csr_partitions(&csr, nz, nv).unwrap();
        for (i, &l) in got.iter().enumerate() {
            let key = (nv * i).min(nz) as u64;
            if key == nz as u64 {
                prop_assert_eq!(l, csr.len() as u64);
            } else {
                // The last row starting at or before key, and the flag iff it starts before.
                let row = csr.iter().rposition(|&x| x <= key).unwrap() as u64;
                let flag = csr[row as usize] != key;
                prop_assert_eq!(l, row | if flag { mgpu_cpu::partition::CSR_CONTINUATION } else { 0 });
            }
        }
    }
}
