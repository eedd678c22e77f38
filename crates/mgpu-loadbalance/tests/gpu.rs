//! GPU cross-checks of the load-balancing search: GPU == `mgpu_cpu` bit for bit (objects
//! and ranks, u32 and u64) up to 10^8 work items, on counts uniform in [0, 20] and [0, 2],
//! runs of 10^6 zero counts, one count of 2^26, sizes around the tile, and every bad input
//! (an error, with the guard cells around the output untouched). Prints each size and the
//! time of the synchronised call (after a warm-up that JIT-loads the module). Ignored
//! without a GPU: run with `cargo xtask test-gpu`, or the bundle's `run.sh`.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

use mgpu_core::{Error, Index, Plus};
use mgpu_loadbalance::{
    load_balance_search, load_balance_search_counts, load_balance_search_ranks, LoadBalanceIndex,
};
use mgpu_runtime::{Context, Device, DeviceVec};
use mgpu_scan::ScanOp;
use mgpu_testkit::Rng;
use std::time::Instant;

fn ctx() -> Context {
    Context::new(0).expect("needs a CUDA GPU")
}

/// Counts with `items` work items in all, each uniform in `0..=max`, the last one cut.
fn uniform(items: usize, max: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    let mut sum = 0usize;
    while sum < items {
        let c = (rng.below(max + 1) as usize).min(items - sum);
        v.push(c as u64);
        sum += c;
    }
    v
}

/// GPU vs CPU for `counts` (as `I`): the counts form, and the scan form with ranks.
fn check<I: LoadBalanceIndex>(dev: &Context, what: &str, counts: &[u64])
where
    Plus: ScanOp<I>,
{
    let counts: Vec<I> = counts.iter().map(|&c| I::from_u64_wrapping(c)).collect();
    let mut scan = vec![I::ZERO; counts.len()];
    let total = mgpu_cpu::scan_counts_exclusive(&counts, &mut scan).unwrap();
    let n = Index::to_usize(total);
    let (mut co, mut cr) = (vec![I::ZERO; n], vec![I::ZERO; n]);
    mgpu_cpu::load_balance_search_ranks(&scan, total, &mut co, &mut cr).unwrap();

    let dc = DeviceVec::from_slice(dev, &counts).unwrap();
    let ds = DeviceVec::from_slice(dev, &scan).unwrap();
    let mut o = DeviceVec::<I, _>::zeros(dev, n).unwrap();
    let mut r = DeviceVec::<I, _>::zeros(dev, n).unwrap();
    load_balance_search(ds.as_slice(), total, o.as_mut_slice()).unwrap(); // warm-up
    dev.synchronize().unwrap();
    let t = Instant::now();
    load_balance_search(ds.as_slice(), total, o.as_mut_slice()).unwrap();
    let dt = t.elapsed();
    println!(
        "{what:<34} {:>4} objects = {:>11}  items = {:>11}  {:>9.1} us",
        std::any::type_name::<I>(),
        counts.len(),
        n,
        dt.as_secs_f64() * 1e6
    );
    assert!(o.to_vec().unwrap() == co, "{what}: objects differ");
    load_balance_search_ranks(ds.as_slice(), total, o.as_mut_slice(), r.as_mut_slice()).unwrap();
    assert!(
        o.to_vec().unwrap() == co,
        "{what}: objects (ranks form) differ"
    );
    assert!(r.to_vec().unwrap() == cr, "{what}: ranks differ");
    let (obj, t2) = load_balance_search_counts(dc.as_slice()).unwrap();
    assert_eq!(t2, total);
    assert!(
        obj.to_vec().unwrap() == co,
        "{what}: objects (counts form) differ"
    );
}

/// `n`, or at most a `parts`-th of the sanitizer cap: for one of `parts` pieces of an input
/// that must fit under the cap together. `n` itself without a cap.
fn cap_share(n: usize, parts: usize) -> usize {
    n.min(mgpu_testkit::max_len() / parts)
}

fn both(dev: &Context, what: &str, counts: &[u64]) {
    check::<u32>(dev, what, counts);
    check::<u64>(dev, what, counts);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_uniform_counts() {
    let dev = ctx();
    for items in mgpu_testkit::sizes(&[0, 1, 1000, 1 << 20, 10_000_000, 100_000_000]) {
        both(&dev, "uniform [0, 20]", &uniform(items, 20, items as u64));
        both(&dev, "uniform [0, 2]", &uniform(items, 2, items as u64 + 7));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_zero_runs_and_one_big_count() {
    let dev = ctx();
    // Runs of 10^6 zero counts between small counts (under the sanitizer cap, runs of a
    // 21st of it, still longer than a tile, so that the 20 runs fit under it).
    let run = cap_share(1_000_000, 21);
    let mut v = Vec::new();
    for k in 0..20u64 {
        v.extend(std::iter::repeat_n(0, run));
        v.extend(uniform(run / 10, 20, k));
    }
    both(&dev, "runs of 10^6 zeros", &v);
    // One count of 2^26 among 10^6 zeros, at the start, middle and end (under the sanitizer
    // cap, one count of half of it among as many zeros).
    let n = cap_share(1_000_000, 2);
    for at in [0usize, n / 2, n - 1] {
        let mut v = vec![0u64; n];
        v[at] = cap_share(1 << 26, 2) as u64;
        both(&dev, "one count of 2^26", &v);
    }
    // All zero counts.
    both(&dev, "all zero", &vec![0u64; mgpu_testkit::cap(3_000_000)]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_around_the_tile() {
    let dev = ctx();
    for nv in [
        mgpu_loadbalance::kernels::nv::<u32>(mgpu_core::Arch::Sm90),
        mgpu_loadbalance::kernels::nv::<u64>(mgpu_core::Arch::Sm90),
        896,
    ] {
        for steps in
            mgpu_testkit::sizes(&[nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv, 2 * nv + 1, 7 * nv])
        {
            // Objects of count 1 and 0 alternating: objects + items = steps.
            let objects = steps * 2 / 3;
            let v: Vec<u64> = (0..objects)
                .map(|i| ((i % 2 == 0) && i / 2 < steps - objects) as u64)
                .collect();
            both(&dev, "around the tile", &v);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rejects_bad_scans() {
    let dev = ctx();
    // 3 * 10^6 objects, the first bad scan's fault 5/6 of the way in (the cap in sanitizer
    // runs, the fault at the same fraction).
    let n = mgpu_testkit::cap(3_000_000) as u32;
    let good: Vec<u32> = (0..n).collect();
    let cases: Vec<(Vec<u32>, u32)> = vec![
        (
            {
                let mut s = good.clone();
                s[n as usize / 6 * 5] = 3;
                s
            },
            n,
        ),
        (
            {
                let mut s = good.clone();
                s[0] = 1;
                s
            },
            n,
        ),
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
        let s = DeviceVec::from_slice(&dev, &scan).unwrap();
        let len = total as usize;
        let mut o = DeviceVec::from_slice(&dev, &vec![0xDEAD_BEEFu32; len + 2]).unwrap();
        let r = load_balance_search(s.as_slice(), total, o.slice_mut(1..len + 1).unwrap());
        assert!(matches!(r, Err(Error::InvalidInput(_))), "{r:?}");
        let v = o.to_vec().unwrap();
        assert_eq!((v[0], v[len + 1]), (0xDEAD_BEEF, 0xDEAD_BEEF));
    }
    // The context is still usable.
    check::<u32>(
        &dev,
        "after bad input",
        &uniform(mgpu_testkit::cap(100_000), 20, 3),
    );
}
