//! What only `mgpu-loadbalance`'s own launchers show, on the simulators and CUDA: bad
//! scans write nothing outside their outputs, arbitrary scans give the CPU backend's
//! error or result, output lengths and a total past the index type.

use mgpu_core::Error;
use mgpu_loadbalance::{
    load_balance_search, load_balance_search_counts, load_balance_search_ranks,
};
use mgpu_runtime::{Device, DeviceVec};
use mgpu_testkit::expect_invalid;
use mgpu_testkit::{Guarded, Target};
use proptest::prelude::*;

/// Bad scans (small ones, and 3 * 10^6 objects within the budget with the first fault
/// 5/6 of the way in): `InvalidInput`, nothing written outside the outputs (guarded), and
/// the device still usable.
fn bad_scans_write_nothing_outside<D: Device>(dev: &D, t: Target) {
    let n = t.cap(3_000_000) as u32;
    let good: Vec<u32> = (0..n).collect();
    let with = |at: usize, v: u32| {
        let mut s = good.clone();
        s[at] = v;
        s
    };
    let cases: Vec<(Vec<u32>, u32)> = vec![
        (vec![0, 5, 3, 8], 10),
        (vec![0, 2, 7, 10, 10], 9),
        (vec![1, 2, 7], 10),
        (vec![], 3),
        (
            (0..3000).map(|i| if i == 2500 { 0 } else { i }).collect(),
            3000,
        ),
        (
            (0..3000)
                .map(|i| if i > 1500 { 10_000 } else { i })
                .collect(),
            3000,
        ),
        ((0..3000).rev().collect(), 5000),
        (with(n as usize / 6 * 5, 3), n),
        (with(0, 1), n),
        (good.clone(), n - 5),
        ((0..n).rev().collect(), n),
        (
            (0..n)
                .map(|i| if i > n / 2 { u32::MAX } else { i })
                .collect(),
            n,
        ),
    ];
    for (scan, total) in cases {
        let s = DeviceVec::from_slice(dev, &scan).unwrap();
        let len = total as usize;
        let mut o = Guarded::<u32, D>::new(dev, len).unwrap();
        expect_invalid(load_balance_search(s.as_slice(), total, o.slice()), "");
        o.check_guards("load_balance_search");
        let mut r = Guarded::<u32, D>::new(dev, len).unwrap();
        expect_invalid(
            load_balance_search_ranks(s.as_slice(), total, o.slice(), r.slice()),
            "",
        );
        o.check_guards("load_balance_search_ranks, objects");
        r.check_guards("load_balance_search_ranks, ranks");
    }
    // Still usable.
    let s = DeviceVec::from_slice(dev, &[0u32, 2, 10]).unwrap();
    let mut o = DeviceVec::<u32, _>::zeros(dev, 10).unwrap();
    load_balance_search(s.as_slice(), 10, o.as_mut_slice()).unwrap();
    assert_eq!(o.to_vec().unwrap(), [0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
}

/// An output of the wrong length is `LengthMismatch` (as on the CPU backend); a total
/// past the index type is `IndexOverflow` in the count scan.
fn wrong_lengths_and_overflow<D: Device>(dev: &D, _: Target) {
    let s = DeviceVec::from_slice(dev, &[0u32, 2, 7]).unwrap();
    let mut o = DeviceVec::<u32, _>::zeros(dev, 9).unwrap();
    let mismatch = |r| {
        matches!(
            r,
            Err(Error::LengthMismatch {
                what: "output",
                expected: 10,
                got: 9
            })
        )
    };
    assert!(mismatch(load_balance_search(
        s.as_slice(),
        10,
        o.as_mut_slice()
    )));
    let mut out = [0u32; 9];
    assert!(mismatch(mgpu_cpu::load_balance_search(
        &[0u32, 2, 7],
        10,
        &mut out
    )));
    let c = DeviceVec::from_slice(dev, &[u32::MAX, 1, 0]).unwrap();
    assert!(matches!(
        load_balance_search_counts(c.as_slice()),
        Err(Error::IndexOverflow { max, .. }) if max == u32::MAX as u64
    ));
}

/// Arbitrary scans (24 cases, as the earlier `proptest!` block; mostly invalid: random
/// steps, some negative, random totals): the device agrees with the CPU backend on the
/// error (the same message) or on the result, and never writes outside the output.
fn arbitrary_scans_are_safe<D: Device>(dev: &D, _: Target) {
    let strategy = (
        prop::collection::vec(-3i64..12, 0..2500),
        0u32..3,
        -20i64..20,
    );
    mgpu_testkit::proptest_runner(24)
        .run(&strategy, |(steps, start, slack)| {
            let mut s = start as i64;
            let scan: Vec<u32> = steps
                .iter()
                .map(|&d| {
                    let v = s.max(0) as u32;
                    s += d;
                    v
                })
                .collect();
            let total = (scan.last().copied().unwrap_or(0) as i64 + slack).clamp(0, 40_000) as u32;
            let mut want = vec![0u32; total as usize];
            let cpu = mgpu_cpu::load_balance_search(&scan, total, &mut want);
            let d = DeviceVec::from_slice(dev, &scan).unwrap();
            let mut o = Guarded::<u32, D>::new(dev, total as usize).unwrap();
            let got = load_balance_search(d.as_slice(), total, o.slice());
            o.check_guards("load_balance_search");
            match (cpu, got) {
                (Ok(()), Ok(())) => prop_assert!(o.to_vec() == want),
                (Err(Error::InvalidInput(c)), Err(Error::InvalidInput(g))) => prop_assert_eq!(c, g),
                (c, g) => prop_assert!(false, "cpu {:?}, device {:?}", c, g),
            }
            Ok(())
        })
        .unwrap();
}

mgpu_testkit::device_tests! {
    bad_scans_write_nothing_outside,
    wrong_lengths_and_overflow,
    arbitrary_scans_are_safe,
}
