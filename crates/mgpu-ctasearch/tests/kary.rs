//! The k-ary searches against the bisection: exactly equal on sorted inputs (u32 and u64,
//! both bounds, K = 2 to 8, searches and Merge Path on every diagonal), inside the
//! search range on garbage, and the round count.

use mgpu_core::Less;
use mgpu_ctasearch::{
    binary_search, binary_search_kary, kary_partition_point, merge_path, merge_path_kary, Bounds,
    Counting, Idx,
};
use proptest::prelude::*;

fn bounds(upper: bool) -> Bounds {
    if upper {
        Bounds::Upper
    } else {
        Bounds::Lower
    }
}

/// `log2 K` from 1 to 3 (and 4, which clamps to 3).
const LOG2K: [u32; 4] = [1, 2, 3, 4];

fn check_sorted<I: Idx>(v: &[u64]) {
    let d: Vec<I> = v.iter().map(|&x| I::from_u64(x)).collect();
    let n = I::from_usize(d.len());
    let mut keys: Vec<u64> = v.to_vec();
    keys.extend([0, 1, u32::MAX as u64 / 2]);
    keys.extend(v.iter().map(|&x| x + 1));
    for upper in [false, true] {
        for &k in keys.iter().step_by(1 + keys.len() / 40) {
            let key = I::from_u64(k);
            let want = unsafe { binary_search(&d[..], n, key, bounds(upper), Less) };
            let got = LOG2K
                .map(|l| unsafe { binary_search_kary(&d[..], n, key, l, bounds(upper), Less) });
            assert!(
                got.iter().all(|&g| g == want),
                "search {k} upper={upper}: {got:?} vs {want:?}"
            );
        }
    }
    // Merge Path of the counting sequence against `v` read as a scan (the load-balancing
    // partitions), and of `v` against itself, on every diagonal (a sample of them).
    let total = v.last().copied().unwrap_or(0) + 3;
    let t = I::from_u64(total);
    let steps = total as usize + d.len();
    for diag in (0..=steps).step_by(1 + steps / 50).chain([steps]) {
        let dg = I::from_usize(diag);
        for upper in [false, true] {
            let want =
                unsafe { merge_path(Counting(I::ZERO), t, &d[..], n, dg, bounds(upper), Less) };
            let got = LOG2K.map(|l| unsafe {
                merge_path_kary(Counting(I::ZERO), t, &d[..], n, dg, l, bounds(upper), Less)
            });
            assert!(
                got.iter().all(|&g| g == want),
                "lbs diag {diag}: {got:?} vs {want:?}"
            );
        }
    }
    for diag in (0..=2 * d.len()).step_by(1 + d.len() / 25) {
        let dg = I::from_usize(diag);
        for upper in [false, true] {
            let want = unsafe { merge_path(&d[..], n, &d[..], n, dg, bounds(upper), Less) };
            let got = LOG2K.map(|l| unsafe {
                merge_path_kary(&d[..], n, &d[..], n, dg, l, bounds(upper), Less)
            });
            assert!(
                got.iter().all(|&g| g == want),
                "merge diag {diag}: {got:?} vs {want:?}"
            );
        }
    }
}

proptest! {
    #[test]
    fn equal_to_the_bisection_on_sorted_data(mut v in proptest::collection::vec(0u64..5000, 0..700)) {
        v.sort();
        check_sorted::<u32>(&v);
        check_sorted::<u64>(&v);
    }

    #[test]
    fn inside_the_range_on_garbage(v in proptest::collection::vec(0u32..100, 0..300), key in 0u32..100, lo in 0usize..50) {
        let n = v.len();
        let lo = lo.min(n);
        for r in [
            kary_partition_point::<u32, u32, 2>(lo as u32, n as u32, |i| v[i as usize], |_, x| x < key),
            kary_partition_point::<u32, u32, 3>(lo as u32, n as u32, |i| v[i as usize], |_, x| x < key),
        ] {
            prop_assert!(r as usize >= lo && r as usize <= n);
        }
    }
}

#[test]
fn long_runs_and_duplicates() {
    // Runs of equal keys, one huge step (a count holding all the work), empty ranges.
    let mut v = vec![7u64; 3000];
    v.extend(vec![1 << 30; 10]);
    check_sorted::<u64>(&v);
    let v: Vec<u64> = (0..4097).map(|i| i / 100).collect();
    check_sorted::<u32>(&v);
    check_sorted::<u32>(&[]);
    check_sorted::<u32>(&[5]);
}

#[test]
fn rounds() {
    // Over 2^21 positions: 7 rounds of 7 probes with K = 8.
    let count = std::cell::Cell::new(0u32);
    let p = kary_partition_point::<u32, u32, 3>(
        0,
        1 << 21,
        |i| {
            count.set(count.get() + 1);
            i
        },
        |_, x| x < 777_777,
    );
    assert_eq!(p, 777_777);
    assert!(count.get() <= 8 * 7, "{} loads", count.get());
}
