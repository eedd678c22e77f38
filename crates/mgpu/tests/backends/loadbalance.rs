//! The load-balancing search on every backend: against `upper_bound - 1` computed here,
//! on a few tiles of mean-10 and mean-1 counts with runs of zeros, the three forms
//! (scan, ranks, counts), and the bad-input errors.

use mgpu::{Backend, Error, LoadBalanceIndex, Plus, ScanOp};
use mgpu_testkit::Rng;

fn counts(seed: u64, n: usize, max: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            if (i / 500) % 3 == 1 {
                0
            } else {
                rng.below(max + 1)
            }
        })
        .collect()
}

pub fn search<I: LoadBalanceIndex>(b: &Backend)
where
    Plus: ScanOp<I>,
{
    for (seed, n, max) in [
        (1, 0, 5),
        (2, 1, 5),
        (3, 700, 20),
        (4, 2500, 2),
        (5, 1200, 0),
    ] {
        let c: Vec<I> = counts(seed, n, max)
            .iter()
            .map(|&x| I::from_u64_wrapping(x))
            .collect();
        let mut scan = vec![I::ZERO; n];
        let total = mgpu::cpu::scan_counts_exclusive(&c, &mut scan).unwrap();
        let want: Vec<I> = (0..mgpu::Index::to_u64(total))
            .map(|i| {
                let ub = scan.partition_point(|&s| mgpu::Index::to_u64(s) <= i);
                I::from_u64_wrapping(ub as u64 - 1)
            })
            .collect();
        let ranks: Vec<I> = want
            .iter()
            .enumerate()
            .map(|(i, &o)| {
                let s = scan[mgpu::Index::to_usize(o)];
                I::from_u64_wrapping(i as u64 - mgpu::Index::to_u64(s))
            })
            .collect();

        let (objects, t) = b
            .load_balance_search_counts(&b.upload(&c).unwrap())
            .unwrap();
        assert_eq!(t, total);
        assert!(objects.to_vec().unwrap() == want, "counts form, n = {n}");
        let s = b.upload(&scan).unwrap();
        assert!(b.load_balance_search(&s, total).unwrap().to_vec().unwrap() == want);
        let (o, r) = b.load_balance_search_ranks(&s, total).unwrap();
        assert!(o.to_vec().unwrap() == want);
        assert!(r.to_vec().unwrap() == ranks, "ranks, n = {n}");
    }
}

pub fn bad_input(b: &Backend) {
    let invalid = |scan: &[u32], total: u32, what: &str| {
        let s = b.upload(scan).unwrap();
        match b.load_balance_search(&s, total) {
            Err(Error::InvalidInput(m)) => assert!(m.contains(what), "{m}"),
            other => panic!("expected InvalidInput({what}), got {:?}", other.map(|_| ())),
        }
    };
    invalid(&[0, 4, 2, 9], 10, "not non-decreasing");
    invalid(&[3, 4, 9], 10, "does not start at 0");
    invalid(&[0, 4, 9], 8, "a scan value is past the total 8");
    invalid(&[], 1, "a total of 1 with no intervals");
    let big = b.upload(&[u32::MAX, 1]).unwrap();
    assert!(matches!(
        b.load_balance_search_counts(&big),
        Err(Error::IndexOverflow { .. })
    ));
    let other = Backend::cpu();
    let foreign = other.upload(&[0u32]).unwrap();
    if !matches!(b, Backend::Cpu) {
        assert!(matches!(
            b.load_balance_search(&foreign, 0),
            Err(Error::InvalidInput(_))
        ));
    }
}
