//! Random damage: a valid input with one to three random changes (a value set to a random
//! value near the valid range, or two neighbours swapped), run on both backends. The
//! change may leave the input valid; either way both backends must agree: both accept
//! (with the same output) or both reject with the same variant. Guards are checked as
//! everywhere else.

use crate::common::{to_index, variant, Counts, Scale};
use crate::{bulk, intervalmove as iv, loadbalance};
use mgpu::{Device, DeviceVec, Error};
use mgpu_testkit::Guarded;
use mgpu_testkit::Rng;

/// Trials per family (each of two or three tiles): about a second on the simulator (3000
/// per tuning table found no disagreement when this was written); fewer under the
/// sanitizers.
fn trials(scale: Scale) -> u64 {
    match scale {
        Scale::Sim => 100,
        Scale::Gpu if mgpu_testkit::capped() => 50,
        Scale::Gpu => 500,
    }
}

/// Both accept, or both reject with the same variant. Returns whether both accepted.
fn agree(case: &str, dev: &Result<(), Error>, cpu: &Result<(), Error>) -> bool {
    match (dev, cpu) {
        (Ok(()), Ok(())) => true,
        (Err(d), Err(c)) if std::mem::discriminant(d) == std::mem::discriminant(c) => false,
        _ => panic!(
            "{case}: the backends disagree: device path {}, CPU backend {}",
            dev.as_ref()
                .map_or_else(|e| format!("{} ({e})", variant(e)), |_| "Ok".into()),
            cpu.as_ref()
                .map_or_else(|e| format!("{} ({e})", variant(e)), |_| "Ok".into()),
        ),
    }
}

/// How many trials of one call both backends accepted, and how many both rejected.
#[derive(Default)]
struct Tally {
    accepted: u32,
    rejected: u32,
}

impl Tally {
    /// Counts one trial: the backends must [`agree`], and where both accept,
    /// `same_output()` must hold.
    fn count(
        &mut self,
        case: &str,
        dev: &Result<(), Error>,
        cpu: &Result<(), Error>,
        same_output: impl FnOnce() -> bool,
    ) {
        if agree(case, dev, cpu) {
            assert!(same_output(), "{case}: accepted, outputs differ");
            self.accepted += 1;
        } else {
            self.rejected += 1;
        }
    }

    fn report(&self, call: &str) {
        println!(
            "fuzz | {call} | {} accepted, {} rejected, all agree",
            self.accepted, self.rejected
        );
    }
}

/// One to three random changes to `v`: two neighbours swapped, a value moved by -2 to 2,
/// or a value set to one in `0..=hi`.
fn damage(rng: &mut Rng, v: &mut [u64], hi: u64) -> String {
    let mut what = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let k = rng.below(v.len() as u64) as usize;
        match rng.below(3) {
            0 if k + 1 < v.len() => {
                v.swap(k, k + 1);
                what.push(format!("swap {k}"));
            }
            1 => {
                v[k] = (v[k] + rng.below(5)).saturating_sub(2);
                what.push(format!("[{k}] nudged to {}", v[k]));
            }
            _ => {
                v[k] = rng.below(hi + 1);
                what.push(format!("[{k}] = {}", v[k]));
            }
        }
    }
    what.join(", ")
}

pub fn load_balance<D: Device>(dev: &D, scale: Scale) {
    let nv = loadbalance::nv::<D, u32>(dev);
    let mut tally = Tally::default();
    for t in 0..trials(scale) {
        let mut rng = Rng::new(1000 + t);
        let b = Counts::new(2 * nv + rng.below(nv as u64) as usize, t);
        let mut scan = b.scan.clone();
        let what = damage(&mut rng, &mut scan, b.total + 2);
        let total = if rng.below(4) == 0 {
            b.total - rng.below(3)
        } else {
            b.total
        };
        let case = format!("load_balance_search: {what}, total {total} of {}", b.total);
        let s: Vec<u32> = to_index(&scan);
        let sd = DeviceVec::from_slice(dev, &s).unwrap();
        let mut out = Guarded::<u32, D>::new(dev, total as usize).unwrap();
        let got = mgpu::loadbalance::load_balance_search(sd.as_slice(), total as u32, out.slice());
        out.check_guards(&case);
        let mut host = vec![0; total as usize];
        let cpu = mgpu::cpu::load_balance_search(&s, total as u32, &mut host);
        tally.count(&case, &got, &cpu, || out.to_vec() == host);
    }
    tally.report("load_balance_search");
    loadbalance::usable(dev);
}

pub fn intervals<D: Device>(dev: &D, scale: Scale) {
    let (nve, _) = iv::nv::<D, i32, u32>(dev);
    let mut tally = std::collections::BTreeMap::<String, Tally>::new();
    for t in 0..trials(scale) {
        let mut rng = Rng::new(2000 + t);
        let b = Counts::new(2 * nve + rng.below(nve as u64) as usize, t);
        let mut x = iv::Input::<i32>::new(&b);
        let op = [
            iv::Op::Expand,
            iv::Op::Naive,
            iv::Op::Gather,
            iv::Op::Scatter,
            iv::Op::Move,
        ][rng.below(5) as usize];
        // The scan, or the starts the call reads.
        let what = match (op, rng.below(2)) {
            (iv::Op::Gather, 1) | (iv::Op::Move, 1) if rng.below(2) == 0 => {
                format!("gather {}", damage(&mut rng, &mut x.gather, b.total + 2))
            }
            (iv::Op::Scatter, 1) | (iv::Op::Move, 1) => {
                format!("scatter {}", damage(&mut rng, &mut x.scatter, b.total + 2))
            }
            (iv::Op::Gather, 1) => {
                format!("gather {}", damage(&mut rng, &mut x.gather, b.total + 2))
            }
            _ => format!("scan {}", damage(&mut rng, &mut x.scan, b.total + 2)),
        };
        let case = format!("interval {op:?}: {what}");
        let (got, cpu, d, c) = iv::run::<D, i32, u32>(dev, &case, op, &x);
        let cpu = cpu.expect("a CPU equivalent for equal totals");
        // Damaged scatter starts may overlap: then the writer is unspecified.
        let unspecified = matches!(op, iv::Op::Scatter | iv::Op::Move);
        tally
            .entry(format!("{op:?}"))
            .or_default()
            .count(&case, &got, &cpu, || unspecified || d == c);
    }
    for (op, t) in tally {
        t.report(&format!("interval {op}"));
    }
    iv::usable(dev);
}

pub fn bulk<D: Device>(dev: &D, scale: Scale) {
    let (nv, nvi) = bulk::nv::<D, i32, u32>(dev);
    let (mut removes, mut inserts) = (Tally::default(), Tally::default());
    for t in 0..trials(scale) {
        let mut rng = Rng::new(3000 + t);
        // Remove.
        let n = 2 * nv + rng.below(nv as u64) as usize;
        let mut idx: Vec<u64> = (0..n as u64).filter(|_| rng.below(3) == 0).collect();
        let what = damage(&mut rng, &mut idx, n as u64 + 1);
        let case = format!("bulk_remove: {what}, n = {n}");
        let source: Vec<i32> = (0..n as i32).collect();
        let sd = DeviceVec::from_slice(dev, &source).unwrap();
        let i: Vec<u32> = to_index(&idx);
        let id = DeviceVec::from_slice(dev, &i).unwrap();
        let m = i.len();
        let mut out = Guarded::<i32, D>::new(dev, n - m).unwrap();
        let got = mgpu::bulk::bulk_remove(sd.as_slice(), id.as_slice().into(), out.slice());
        out.check_guards(&case);
        let mut host = vec![0; n - m];
        let cpu = mgpu::cpu::bulk_remove(&source, &i, &mut host);
        removes.count(&case, &got, &cpu, || out.to_vec() == host);
        // Insert.
        let len = 2 * nvi + rng.below(nvi as u64) as usize;
        let (n, m) = (len * 2 / 3, len - len * 2 / 3);
        let mut idx: Vec<u64> = (0..m).map(|_| rng.below(n as u64 + 1)).collect();
        idx.sort_unstable();
        let what = damage(&mut rng, &mut idx, n as u64 + 1);
        let case = format!("bulk_insert: {what}, n = {n}");
        let source: Vec<i32> = (0..n as i32).collect();
        let values: Vec<i32> = (0..m as i32).map(|k| -1 - k).collect();
        let sd = DeviceVec::from_slice(dev, &source).unwrap();
        let vd = DeviceVec::from_slice(dev, &values).unwrap();
        let i: Vec<u32> = to_index(&idx);
        let id = DeviceVec::from_slice(dev, &i).unwrap();
        let mut out = Guarded::<i32, D>::new(dev, len).unwrap();
        let got = mgpu::bulk::bulk_insert(
            vd.as_slice().into(),
            id.as_slice().into(),
            sd.as_slice(),
            out.slice(),
        );
        out.check_guards(&case);
        let mut host = vec![0; len];
        let cpu = mgpu::cpu::bulk_insert(&values, &i, &source, &mut host);
        inserts.count(&case, &got, &cpu, || out.to_vec() == host);
    }
    removes.report("bulk_remove");
    inserts.report("bulk_insert");
    bulk::usable(dev);
}
