//! The load-balancing search: outputs of the wrong length, work items without objects and
//! count sums past the index type (host checks), and the scans the kernel's fused
//! validation rejects (`ERROR_FIRST`, `ERROR_UNSORTED`, `ERROR_TOTAL`).

use crate::common::{invalid, length, overflow, spots, to_index, verdict, Counts, Scale};
use mgpu::{Device, DeviceVec, LoadBalanceIndex, Plus, ScanOp};
use mgpu_testkit::Guarded;

/// Merge steps (objects plus work items) per tile of the search on `dev`.
pub fn nv<D: Device, I: LoadBalanceIndex>(dev: &D) -> usize {
    mgpu::loadbalance::kernels::nv::<I>(dev.arch())
}

/// A small valid search gives the right result (the device is still usable, and no stale
/// error bit of the bad call leaks into the next one).
pub fn usable<D: Device>(dev: &D) {
    let scan = DeviceVec::from_slice(dev, &[0u32, 2, 7, 10, 10]).unwrap();
    let mut out = DeviceVec::<u32, D>::zeros(dev, 11).unwrap();
    let r = mgpu::loadbalance::load_balance_search(scan.as_slice(), 11, out.as_mut_slice());
    assert_eq!(r, Ok(()), "the device is unusable after bad input");
    assert_eq!(out.to_vec().unwrap(), [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
}

/// `load_balance_search_into` (and, with `ranks`, `load_balance_search_ranks`) on `scan`
/// and `total` with outputs of `out_len`: `want`'s variant on both backends, guards
/// intact.
fn case<D: Device, I: LoadBalanceIndex>(
    dev: &D,
    case: &str,
    scan: &[u64],
    total: u64,
    out_len: usize,
    want: &mgpu::Error,
    ranks: bool,
) {
    let s: Vec<I> = to_index(scan);
    let t = I::from_u64_wrapping(total);
    let sd = DeviceVec::from_slice(dev, &s).unwrap();
    let mut out = Guarded::<I, D>::new(dev, out_len).unwrap();
    let got = mgpu::loadbalance::load_balance_search_into(sd.as_slice(), t, out.slice())
        .and_then(|p| p.wait());
    out.check_guards(case);
    let cpu = mgpu::cpu::load_balance_search(&s, t, &mut vec![I::ZERO; out_len]);
    verdict(case, want, got, Some(cpu));
    usable(dev);
    if ranks {
        let case = format!("{case} (ranks form)");
        let mut o = Guarded::<I, D>::new(dev, out_len).unwrap();
        let mut r = Guarded::<I, D>::new(dev, out_len).unwrap();
        let got =
            mgpu::loadbalance::load_balance_search_ranks(sd.as_slice(), t, o.slice(), r.slice());
        o.check_guards(&case);
        r.check_guards(&case);
        let (mut ho, mut hr) = (vec![I::ZERO; out_len], vec![I::ZERO; out_len]);
        let cpu = mgpu::cpu::load_balance_search_ranks(&s, t, &mut ho, &mut hr);
        verdict(&case, want, got, Some(cpu));
        usable(dev);
    }
}

/// Host checks: outputs of the wrong length, work items with no objects, a count sum past
/// `u32` in the counts form.
pub fn host_checks<D: Device>(dev: &D, _scale: Scale) {
    let b = Counts::new(2 * nv::<D, u32>(dev), 11);
    let total = b.total as usize;
    let name = format!("n = {}, total = {total}", b.n());
    case::<D, u32>(
        dev,
        &format!("load_balance_search_into: output of total + 1, {name}"),
        &b.scan,
        b.total,
        total + 1,
        &length(),
        false,
    );
    // Ranks form: objects right, ranks one short (and the other way round).
    let s: Vec<u32> = to_index(&b.scan);
    let sd = DeviceVec::from_slice(dev, &s).unwrap();
    for (lo, lr) in [(total, total - 1), (total + 1, total)] {
        let case = format!("load_balance_search_ranks: objects of {lo}, ranks of {lr}, {name}");
        let mut o = Guarded::<u32, D>::new(dev, lo).unwrap();
        let mut r = Guarded::<u32, D>::new(dev, lr).unwrap();
        let got = mgpu::loadbalance::load_balance_search_ranks(
            sd.as_slice(),
            b.total as u32,
            o.slice(),
            r.slice(),
        );
        o.check_guards(&case);
        r.check_guards(&case);
        let cpu = mgpu::cpu::load_balance_search_ranks(
            &s,
            b.total as u32,
            &mut vec![0; lo],
            &mut vec![0; lr],
        );
        verdict(&case, &length(), got, Some(cpu));
        usable(dev);
    }
    case::<D, u32>(
        dev,
        "load_balance_search_into: 3 work items, no objects",
        &[],
        3,
        3,
        &invalid(),
        true,
    );
    // The counts form: a count sum past u32 (the scan's overflow check).
    let mut counts = vec![1u32; b.n()];
    counts[b.n() / 2] = u32::MAX - 7;
    let c = DeviceVec::from_slice(dev, &counts).unwrap();
    let got = mgpu::loadbalance::load_balance_search_counts(c.as_slice());
    let cpu = mgpu::cpu::load_balance_search_counts(&counts);
    verdict(
        &format!(
            "load_balance_search_counts: u32 count sum past MAX, n = {}",
            b.n()
        ),
        &overflow(),
        got.map(|_| ()),
        Some(cpu.map(|_| ())),
    );
    usable(dev);
}

/// Scans the kernel rejects, at each spot: `scan[0] != 0`; a dip (`scan[k]` one below
/// `scan[k - 1]`); a total below the scan (the scan crosses the total at object `k`);
/// plus a drop to 0 and a spike past the total in a middle tile.
pub fn scan_faults<D: Device, I: LoadBalanceIndex>(dev: &D, scale: Scale)
where
    Plus: ScanOp<I>,
{
    let nv = nv::<D, I>(dev);
    let ty = std::any::type_name::<I>();
    for steps in scale.sizes(nv) {
        let b = Counts::new(steps, steps as u64);
        let (n, total) = (b.n(), b.total);
        let tiles = b.steps().div_ceil(nv);
        // The unbroken input is accepted and right on both backends.
        {
            let s: Vec<I> = to_index(&b.scan);
            let sd = DeviceVec::from_slice(dev, &s).unwrap();
            let mut out = Guarded::<I, D>::new(dev, total as usize).unwrap();
            let t = I::from_u64_wrapping(total);
            mgpu::loadbalance::load_balance_search(sd.as_slice(), t, out.slice()).unwrap();
            out.check_guards("valid input");
            let mut want = vec![I::ZERO; total as usize];
            mgpu::cpu::load_balance_search(&s, t, &mut want).unwrap();
            assert!(out.to_vec() == want, "valid input, {ty}, n = {n}");
        }
        let name = |what: String, k: usize| {
            format!(
                "load_balance_search {ty}: {what} at object {k} (tile {} of {tiles}), n = {n}, total = {total}",
                b.tile(k, nv),
            )
        };
        // Broken inputs: (case, scan, total (and output length), also the ranks form).
        let mut cases = vec![];
        let mut scan = b.scan.clone();
        scan[0] = 1;
        cases.push((name("scan[0] = 1".into(), 0), scan, total, true));
        for (place, d) in spots(b.steps(), nv) {
            let k = b.near(b.object_at(d), |k| k > 0 && b.scan[k - 1] > 0);
            let mut scan = b.scan.clone();
            scan[k] = scan[k - 1] - 1;
            let middle = place == "middle tile";
            cases.push((
                name(format!("{place}: scan dips by 1"), k),
                scan,
                total,
                middle,
            ));
            // The total one below scan[k]: objects k.. all start past it.
            let k = b.near(b.object_at(d), |k| k > 0 && b.counts[k - 1] > 0);
            let t = b.scan[k] - 1;
            cases.push((
                name(format!("{place}: total {t} below the scan from here"), k),
                b.scan.clone(),
                t,
                middle,
            ));
        }
        let (_, d) = spots(b.steps(), nv)[2];
        let k = b.object_at(d).max(1);
        for (what, to) in [("drops to 0", 0), ("spikes past the total", total + 5)] {
            let mut scan = b.scan.clone();
            scan[k] = to;
            cases.push((
                name(format!("middle tile: scan {what}"), k),
                scan,
                total,
                false,
            ));
        }
        for (what, scan, t, ranks) in cases {
            case::<D, I>(dev, &what, &scan, t, t as usize, &invalid(), ranks);
        }
    }
}
