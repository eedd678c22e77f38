//! The load-balancing search on the CTA simulator (the real kernels and host sequence)
//! against `mgpu_cpu`: seed 001's worked example (golden), proptest cross-checks on both
//! tuning tables, and every bad-input error.

use mgpu_core::{Arch, Error};
use mgpu_loadbalance::{
    load_balance_search, load_balance_search_counts, load_balance_search_ranks, LoadBalanceIndex,
};
use mgpu_runtime::{DeviceVec, Simulator};
use proptest::prelude::*;

/// Seed 001's 40 objects (79 work items).
const COUNTS: [u32; 40] = [
    1, 2, 4, 0, 4, 4, 3, 3, 2, 4, 0, 0, 1, 2, 1, 1, 0, 2, 2, 1, 1, 4, 2, 3, 2, 2, 1, 1, 3, 0, 2, 1,
    1, 3, 4, 2, 2, 4, 0, 4,
];
const EXC_SCAN: [u32; 40] = [
    0, 1, 3, 7, 7, 11, 15, 18, 21, 23, 27, 27, 27, 28, 30, 31, 32, 32, 34, 36, 37, 38, 42, 44, 47,
    49, 51, 52, 53, 56, 56, 58, 59, 60, 63, 67, 69, 71, 75, 75,
];
const LBS: [u32; 79] = [
    0, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 9, 9, 9, 9, 12, 13, 13,
    14, 15, 17, 17, 18, 18, 19, 20, 21, 21, 21, 21, 22, 22, 23, 23, 23, 24, 24, 25, 25, 26, 27, 28,
    28, 28, 30, 30, 31, 32, 33, 33, 33, 34, 34, 34, 34, 35, 35, 36, 36, 37, 37, 37, 37, 39, 39, 39,
    39,
];
const RANK: [u32; 79] = [
    0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 0, 1, 0, 1, 2, 3, 0, 0, 1, 0, 0,
    0, 1, 0, 1, 0, 0, 0, 1, 2, 3, 0, 1, 0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 1, 2, 0, 1, 0, 0, 0, 1, 2, 0,
    1, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3,
];

fn sims() -> [Simulator; 2] {
    [Simulator::new(), Simulator::with_arch(Arch::Sm70)]
}

#[test]
fn seed_001_worked_example() {
    for dev in sims() {
        let c = DeviceVec::from_slice(&dev, &COUNTS).unwrap();
        let (obj, total) = load_balance_search_counts(c.as_slice()).unwrap();
        assert_eq!(total, 79);
        assert_eq!(obj.to_vec().unwrap(), LBS);

        let s = DeviceVec::from_slice(&dev, &EXC_SCAN).unwrap();
        let mut o = DeviceVec::<u32, _>::zeros(&dev, 79).unwrap();
        let mut r = DeviceVec::<u32, _>::zeros(&dev, 79).unwrap();
        load_balance_search_ranks(s.as_slice(), 79, o.as_mut_slice(), r.as_mut_slice()).unwrap();
        assert_eq!(o.to_vec().unwrap(), LBS);
        assert_eq!(r.to_vec().unwrap(), RANK);
    }
    // The CPU backend: the scan, the search and the ranks.
    let mut scan = [0u32; 40];
    assert_eq!(
        mgpu_cpu::scan_counts_exclusive(&COUNTS, &mut scan).unwrap(),
        79
    );
    assert_eq!(scan, EXC_SCAN);
    let (obj, total) = mgpu_cpu::load_balance_search_counts(&COUNTS).unwrap();
    assert_eq!((obj.as_slice(), total), (&LBS[..], 79));
    let (mut o, mut r) = ([0u32; 79], [0u32; 79]);
    mgpu_cpu::load_balance_search_ranks(&EXC_SCAN, 79, &mut o, &mut r).unwrap();
    assert_eq!((o, r), (LBS, RANK));
}

/// The simulator's objects and ranks for `counts`, and the CPU's, must agree.
fn check<I: LoadBalanceIndex>(counts: &[I])
where
    mgpu_core::Plus: mgpu_scan::ScanOp<I>,
{
    let (cpu_obj, total) = mgpu_cpu::load_balance_search_counts(counts).unwrap();
    let mut scan = vec![I::ZERO; counts.len()];
    mgpu_cpu::scan_counts_exclusive(counts, &mut scan).unwrap();
    let n = mgpu_core::Index::to_usize(total);
    let (mut co, mut cr) = (vec![I::ZERO; n], vec![I::ZERO; n]);
    mgpu_cpu::load_balance_search_ranks(&scan, total, &mut co, &mut cr).unwrap();
    assert_eq!(co, cpu_obj);
    // upper_bound - 1 by definition.
    for (i, &o) in co.iter().enumerate() {
        let ub = scan.partition_point(|&s| mgpu_core::Index::to_u64(s) <= i as u64);
        assert_eq!(mgpu_core::Index::to_usize(o), ub - 1, "item {i}");
    }
    for dev in sims() {
        let c = DeviceVec::from_slice(&dev, counts).unwrap();
        let (obj, t) = load_balance_search_counts(c.as_slice()).unwrap();
        assert_eq!(t, total);
        assert!(
            obj.to_vec().unwrap() == cpu_obj,
            "objects differ, {} counts",
            counts.len()
        );
        let s = DeviceVec::from_slice(&dev, &scan).unwrap();
        let mut o = DeviceVec::<I, _>::zeros(&dev, n).unwrap();
        let mut r = DeviceVec::<I, _>::zeros(&dev, n).unwrap();
        load_balance_search_ranks(s.as_slice(), total, o.as_mut_slice(), r.as_mut_slice()).unwrap();
        assert!(o.to_vec().unwrap() == co);
        assert!(r.to_vec().unwrap() == cr, "ranks differ");
    }
}

fn to<I: LoadBalanceIndex>(v: &[u32]) -> Vec<I> {
    v.iter().map(|&x| I::from_u32(x)).collect()
}

/// Counts of a few tiles in several shapes (`kind` picks the distribution).
fn counts_strategy() -> impl Strategy<Value = Vec<u32>> {
    prop_oneof![
        // Empty or tiny.
        prop::collection::vec(0u32..4, 0..5),
        // Mean about 1 and about 10, a few tiles (nv = 1408 on sm_90, 896 on sm_70).
        prop::collection::vec(0u32..3, 0..3000),
        prop::collection::vec(0u32..21, 0..400),
        // Runs of thousands of zeros around a few nonzero counts.
        (0usize..5000, 0u32..50, 0usize..5000, 0u32..3000).prop_map(|(z0, c0, z1, c1)| {
            let mut v = vec![0u32; z0];
            v.push(c0);
            v.extend(std::iter::repeat_n(0, z1));
            v.push(c1);
            v
        }),
        // One count holding all the work.
        (0usize..300, 0u32..6000, 0usize..300).prop_map(|(a, big, b)| {
            let mut v = vec![0u32; a];
            v.push(big);
            v.extend(std::iter::repeat_n(0, b));
            v
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn simulator_matches_cpu_u32(counts in counts_strategy()) {
        check::<u32>(&counts);
    }

    #[test]
    fn simulator_matches_cpu_u64(counts in counts_strategy()) {
        check::<u64>(&to::<u64>(&counts));
    }
}

#[test]
fn edge_shapes() {
    check::<u32>(&[]);
    check::<u32>(&[0]);
    check::<u32>(&[0; 5000]);
    check::<u32>(&[7]);
    // Totals plus objects around multiples of the tiles (1408 and 896 steps).
    for nv in [896usize, 1408] {
        for steps in [nv - 1, nv, nv + 1, 2 * nv, 3 * nv - 1, 3 * nv + 1] {
            // Half objects of count 1, half zeros: steps = objects + total.
            let objects = steps * 2 / 3;
            let total = steps - objects;
            let mut c = vec![0u32; objects];
            for x in c.iter_mut().take(total) {
                *x = 1;
            }
            c[0] += (steps - objects - total.min(objects)) as u32;
            check::<u32>(&c);
            check::<u64>(&to::<u64>(&c));
            // All the work in the last object.
            let mut c = vec![0u32; nv / 3];
            *c.last_mut().unwrap() = (steps - nv / 3) as u32;
            check::<u32>(&c);
        }
    }
}

fn expect_invalid(r: mgpu_core::Result<()>, what: &str) {
    match r {
        Err(Error::InvalidInput(m)) => assert!(m.contains(what), "{m}"),
        other => panic!("expected InvalidInput({what}), got {other:?}"),
    }
}

/// Every bad input on both backends.
#[test]
fn bad_inputs() {
    let cases: Vec<(Vec<u32>, u32, &str)> = vec![
        (vec![0, 5, 3, 8], 10, "not non-decreasing"),
        (vec![0, 2, 7, 10, 10], 9, "a scan value is past the total 9"),
        (vec![1, 2, 7], 10, "the scan does not start at 0"),
        (vec![], 3, "a total of 3 with no intervals"),
        // A descent far from the start, in a later tile.
        (
            (0..3000u32)
                .map(|i| if i == 2500 { 0 } else { i })
                .collect(),
            3000,
            "not non-decreasing",
        ),
        // A scan that jumps past the total in the middle.
        (
            (0..3000u32)
                .map(|i| if i > 1500 { 10_000 } else { i })
                .collect(),
            3000,
            "",
        ),
        // Descending everywhere.
        ((0..3000u32).rev().collect(), 5000, ""),
    ];
    for (scan, total, what) in &cases {
        let mut out = vec![0u32; *total as usize];
        expect_invalid(mgpu_cpu::load_balance_search(scan, *total, &mut out), what);
        for dev in sims() {
            let s = DeviceVec::from_slice(&dev, scan).unwrap();
            // Guard cells around the output: nothing may be written outside it.
            let n = *total as usize;
            let mut o = DeviceVec::from_slice(&dev, &vec![0xDEAD_BEEFu32; n + 2]).unwrap();
            let mut r = DeviceVec::from_slice(&dev, &vec![0xDEAD_BEEFu32; n + 2]).unwrap();
            expect_invalid(
                load_balance_search_ranks(
                    s.as_slice(),
                    *total,
                    o.slice_mut(1..n + 1).unwrap(),
                    r.slice_mut(1..n + 1).unwrap(),
                ),
                what,
            );
            for v in [o.to_vec().unwrap(), r.to_vec().unwrap()] {
                assert_eq!((v[0], v[n + 1]), (0xDEAD_BEEF, 0xDEAD_BEEF));
            }
        }
    }
    // The last scan value equal to the total is fine (the last object has no items).
    let mut out = [0u32; 10];
    mgpu_cpu::load_balance_search(&[0u32, 2, 10], 10, &mut out).unwrap();
    let dev = Simulator::new();
    let s = DeviceVec::from_slice(&dev, &[0u32, 2, 10]).unwrap();
    let mut o = DeviceVec::<u32, _>::zeros(&dev, 10).unwrap();
    load_balance_search(s.as_slice(), 10, o.as_mut_slice()).unwrap();
    assert_eq!(o.to_vec().unwrap(), out);
}

#[test]
fn wrong_lengths_and_overflow() {
    let dev = Simulator::new();
    let s = DeviceVec::from_slice(&dev, &[0u32, 2, 7]).unwrap();
    let mut o = DeviceVec::<u32, _>::zeros(&dev, 9).unwrap();
    assert!(matches!(
        load_balance_search(s.as_slice(), 10, o.as_mut_slice()),
        Err(Error::LengthMismatch {
            what: "output",
            expected: 10,
            got: 9
        })
    ));
    let mut out = [0u32; 9];
    assert!(matches!(
        mgpu_cpu::load_balance_search(&[0u32, 2, 7], 10, &mut out),
        Err(Error::LengthMismatch {
            what: "output",
            expected: 10,
            got: 9
        })
    ));
    // A total past the index type: the count scan refuses it.
    let c = DeviceVec::from_slice(&dev, &[u32::MAX, 1, 0]).unwrap();
    assert!(matches!(
        load_balance_search_counts(c.as_slice()),
        Err(Error::IndexOverflow { max, .. }) if max == u32::MAX as u64
    ));
    assert!(matches!(
        mgpu_cpu::load_balance_search_counts(&[u32::MAX, 1, 0]),
        Err(Error::IndexOverflow { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Arbitrary scans (mostly invalid: random steps, some negative, random totals): the
    /// simulator agrees with the CPU on the error (the same message) or on the result, and
    /// never writes outside the output.
    #[test]
    fn arbitrary_scans_are_safe(
        steps in prop::collection::vec(-3i64..12, 0..2500),
        start in 0u32..3,
        slack in -20i64..20,
    ) {
        let mut s = start as i64;
        let scan: Vec<u32> = steps.iter().map(|&d| { let v = s.max(0) as u32; s += d; v }).collect();
        let total = (scan.last().copied().unwrap_or(0) as i64 + slack).clamp(0, 40_000) as u32;
        let n = total as usize;
        let mut want = vec![0u32; n];
        let cpu = mgpu_cpu::load_balance_search(&scan, total, &mut want);
        let dev = Simulator::new();
        let d = DeviceVec::from_slice(&dev, &scan).unwrap();
        let mut o = DeviceVec::from_slice(&dev, &vec![0xDEAD_BEEFu32; n + 2]).unwrap();
        let gpu = load_balance_search(d.as_slice(), total, o.slice_mut(1..n + 1).unwrap());
        let v = o.to_vec().unwrap();
        prop_assert_eq!((v[0], v[n + 1]), (0xDEAD_BEEF, 0xDEAD_BEEF));
        match (cpu, gpu) {
            (Ok(()), Ok(())) => prop_assert!(v[1..n + 1] == want[..]),
            (Err(Error::InvalidInput(c)), Err(Error::InvalidInput(g))) => prop_assert_eq!(c, g),
            (c, g) => prop_assert!(false, "cpu {:?}, simulator {:?}", c, g),
        }
    }
}
