//! The CPU load-balancing search against the seed's sequential `CPULoadBalanceSearch`
//! (a merge of the natural numbers with the scan, B first on ties), on both sides of the
//! parallel threshold: many objects, many work items, runs of zeros, one huge count.

mod common;
use common::EDGE_SIZES;
use mgpu_core::Error;
use mgpu_testkit::Rng;
use proptest::prelude::*;

/// The seed's serial search, written from its definition.
fn sequential(scan: &[u64], total: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(total as usize);
    let (mut a, mut b) = (0u64, 0usize);
    while a < total || b < scan.len() {
        let take_a = b >= scan.len() || (a < total && a < scan[b]);
        if take_a {
            out.push(b as u64 - 1);
            a += 1;
        } else {
            b += 1;
        }
    }
    out
}

fn check(counts: &[u64]) {
    let mut scan = vec![0u64; counts.len()];
    let total = mgpu_cpu::scan_counts_exclusive(counts, &mut scan).unwrap();
    let want = sequential(&scan, total);
    let (mut o, mut r) = (vec![0u64; total as usize], vec![0u64; total as usize]);
    mgpu_cpu::load_balance_search_ranks(&scan, total, &mut o, &mut r).unwrap();
    assert!(o == want, "objects differ ({} counts)", counts.len());
    assert!(o
        .iter()
        .enumerate()
        .all(|(i, &x)| r[i] == i as u64 - scan[x as usize]));
    let (o32, t32) =
        mgpu_cpu::load_balance_search_counts(&counts.iter().map(|&c| c as u32).collect::<Vec<_>>())
            .unwrap();
    assert_eq!(t32 as u64, total);
    assert!(o32.iter().zip(&want).all(|(&a, &b)| a as u64 == b));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_sequential_search(size in prop::sample::select(EDGE_SIZES.to_vec()),
                                     max in prop::sample::select(vec![0u64, 1, 2, 20, 1000]),
                                     seed: u64) {
        let mut rng = Rng::new(seed);
        let counts: Vec<u64> = (0..size).map(|_| rng.below(max + 1)).collect();
        check(&counts);
    }
}

#[test]
fn zero_runs_and_one_big_count() {
    let mut v = vec![0u64; 300_000];
    v[123_456] = 1 << 20;
    check(&v);
    v[0] = 5;
    v[299_999] = 70_000;
    check(&v);
    let mut v = vec![1u64; 200_000];
    v.extend(std::iter::repeat_n(0, 200_000));
    v.push(3);
    check(&v);
}

#[test]
fn bad_scans_write_nothing() {
    let mut scan: Vec<u32> = (0..300_000).collect();
    scan[250_000] = 7;
    let mut out = vec![9u32; 300_000];
    assert!(matches!(
        mgpu_cpu::load_balance_search(&scan, 300_000, &mut out),
        Err(Error::InvalidInput(m)) if m.contains("not non-decreasing")
    ));
    assert!(out.iter().all(|&x| x == 9));
}
