//! Input generators and the checks shared by the simulator and GPU test binaries: each
//! launcher's result against `mgpu_cpu::partition` on the same input.
#![allow(dead_code)]

use mgpu_core::{Element, Greater, Less};
use mgpu_cpu::partition as cpu;
use mgpu_ctasearch::Bounds;
use mgpu_partition::{MergeComparator, PartitionIndex};
use mgpu_runtime::{Device, DeviceVec};
use mgpu_testkit::Rng;

/// Keys from small integers (many ties when `range` is small).
pub trait Key: Element {
    fn from_small(x: u64) -> Self;
}
macro_rules! key {
    ($($t:ty),*) => {$(impl Key for $t { fn from_small(x: u64) -> Self { x as $t } })*};
}
key!(i32, u32, i64, u64, f32, f64);

pub fn sorted<T: Key>(rng: &mut Rng, n: usize, range: u64, descending: bool) -> Vec<T> {
    let mut v: Vec<u64> = (0..n).map(|_| rng.below(range)).collect();
    v.sort_unstable();
    if descending {
        v.reverse();
    }
    v.into_iter().map(T::from_small).collect()
}

fn cpu_bounds(b: Bounds) -> cpu::Bounds {
    match b {
        Bounds::Lower => cpu::Bounds::Lower,
        Bounds::Upper => cpu::Bounds::Upper,
    }
}

/// Merge Path partitions on `dev` == CPU, both bounds. Returns the partition count.
pub fn check_merge<D: Device, T: Key, C: MergeComparator<T>>(
    dev: &D,
    a: &[T],
    b: &[T],
    nv: usize,
) -> usize {
    let da = DeviceVec::from_slice(dev, a).unwrap();
    let db = DeviceVec::from_slice(dev, b).unwrap();
    let mut n = 0;
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let got = mgpu_partition::merge_path_partitions(
            da.as_slice(),
            db.as_slice(),
            nv,
            bounds,
            C::default(),
        )
        .unwrap()
        .to_vec()
        .unwrap();
        let want = cpu::merge_path_partitions::<T, C>(a, b, nv, cpu_bounds(bounds)).unwrap();
        assert!(
            got == want,
            "merge {} {:?} |a|={} |b|={} nv={nv}: first difference at {:?}",
            T::NAME,
            bounds,
            a.len(),
            b.len(),
            (0..want.len()).find(|&i| got.get(i) != want.get(i))
        );
        n = got.len();
    }
    n
}

/// Mergesort partitions of `keys` (lists of `nv * coop / 2` sorted by `C`) == CPU.
pub fn check_mergesort<D: Device, T: Key, C: MergeComparator<T>>(
    dev: &D,
    keys: &[T],
    nv: usize,
    coop: usize,
) {
    let dk = DeviceVec::from_slice(dev, keys).unwrap();
    let got = mgpu_partition::mergesort_partitions(dk.as_slice(), nv, coop, C::default())
        .unwrap()
        .to_vec()
        .unwrap();
    let want = cpu::mergesort_partitions::<T, C>(keys, nv, coop).unwrap();
    assert!(
        got == want,
        "mergesort {} n={} nv={nv} coop={coop}",
        T::NAME,
        keys.len()
    );
}

/// Random lists of `list` keys, each sorted by `C`, concatenated.
pub fn sorted_lists<T: Key, C: 'static>(
    rng: &mut Rng,
    n: usize,
    list: usize,
    range: u64,
) -> Vec<T> {
    let descending = std::any::TypeId::of::<C>() == std::any::TypeId::of::<Greater>();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let m = list.min(n - out.len());
        out.extend(sorted::<T>(rng, m, range, descending));
    }
    out
}

pub fn check_search<D: Device, I: PartitionIndex>(dev: &D, data: &[I], count: usize, nv: usize) {
    let dd = DeviceVec::from_slice(dev, data).unwrap();
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let got = mgpu_partition::binary_search_partitions(dd.as_slice(), count, nv, bounds)
            .unwrap()
            .to_vec()
            .unwrap();
        let want = cpu::binary_search_partitions(data, count, nv, cpu_bounds(bounds)).unwrap();
        assert!(
            got == want,
            "search {} {:?} n={} count={count} nv={nv}",
            I::NAME,
            bounds,
            data.len()
        );
    }
}

pub fn check_csr<D: Device, I: PartitionIndex>(dev: &D, csr: &[I], nz: usize, nv: usize) {
    let dc = DeviceVec::from_slice(dev, csr).unwrap();
    let got = mgpu_partition::csr_partitions(dc.as_slice(), nz, nv)
        .unwrap()
        .to_vec()
        .unwrap();
    let want = cpu::csr_partitions(csr, nz, nv).unwrap();
    assert!(
        got == want,
        "csr {} rows={} nz={nz} nv={nv}",
        I::NAME,
        csr.len()
    );
}

pub fn check_lbs<D: Device, I: PartitionIndex>(dev: &D, scan: &[I], total: usize, nv: usize) {
    let ds = DeviceVec::from_slice(dev, scan).unwrap();
    let got = mgpu_partition::load_balance_partitions(ds.as_slice(), total, nv)
        .unwrap()
        .to_vec()
        .unwrap();
    let want = cpu::load_balance_partitions(scan, total, nv).unwrap();
    assert!(
        got == want,
        "lbs {} objects={} total={total} nv={nv}",
        I::NAME,
        scan.len()
    );
}

/// Counting Merge Path partitions of `indices` (an array, or with `seq = Some((first,
/// step))` the sequence `first + step * k` of `indices.len()` elements, which `indices`
/// must then hold) against the positions `0..count` on `dev` == the CPU's
/// `merge_path_partitions` of the indices against the positions materialised, both
/// bounds. The indices must be sorted (the CPU's definition is a merge).
pub fn check_counting<D: Device, I: PartitionIndex>(
    dev: &D,
    indices: &[I],
    seq: Option<(I, I)>,
    count: usize,
    nv: usize,
) -> usize {
    use mgpu_partition::IndexSource;
    let d = DeviceVec::from_slice(dev, if seq.is_some() { &[] } else { indices }).unwrap();
    let positions: Vec<I> = (0..count as u64).map(I::from_u64).collect();
    let mut num = 0;
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let src = match seq {
            None => IndexSource::Array(d.as_slice()),
            Some((first, step)) => IndexSource::Sequence {
                first,
                step,
                len: indices.len(),
            },
        };
        let got = mgpu_partition::merge_path_counting_partitions(dev, src, count, nv, bounds)
            .unwrap()
            .to_vec()
            .unwrap();
        let want =
            cpu::merge_path_partitions::<I, Less>(indices, &positions, nv, cpu_bounds(bounds))
                .unwrap();
        assert!(
            got == want,
            "counting {} {:?} seq={} m={} count={count} nv={nv}: first difference at {:?}",
            I::NAME,
            bounds,
            seq.is_some(),
            indices.len(),
            (0..want.len()).find(|&i| got.get(i) != want.get(i))
        );
        num = got.len();
    }
    num
}

/// Exclusive scan of `counts` as `I`, and the total.
pub fn scan_of<I: PartitionIndex>(counts: &[u64]) -> (Vec<I>, usize) {
    let mut t = 0u64;
    let s = counts
        .iter()
        .map(|&c| {
            let v = I::from_u64(t);
            t += c;
            v
        })
        .collect();
    (s, t as usize)
}

/// Random counts below `max` with runs of zeros.
pub fn counts(rng: &mut Rng, n: usize, max: u64) -> Vec<u64> {
    (0..n)
        .map(|_| if rng.below(4) == 0 { 0 } else { rng.below(max) })
        .collect()
}

/// Every key type with Less and Greater, through `f::<T, C>()`.
#[macro_export]
macro_rules! for_key_types {
    ($f:ident, $($arg:expr),*) => {{
        use mgpu_core::{Greater, Less};
        $f::<i32, Less>($($arg),*);
        $f::<i32, Greater>($($arg),*);
        $f::<u32, Less>($($arg),*);
        $f::<u32, Greater>($($arg),*);
        $f::<i64, Less>($($arg),*);
        $f::<i64, Greater>($($arg),*);
        $f::<u64, Less>($($arg),*);
        $f::<u64, Greater>($($arg),*);
        $f::<f32, Less>($($arg),*);
        $f::<f32, Greater>($($arg),*);
        $f::<f64, Less>($($arg),*);
        $f::<f64, Greater>($($arg),*);
    }};
}

pub fn is_greater<C: 'static>() -> bool {
    std::any::TypeId::of::<C>() == std::any::TypeId::of::<Greater>()
}

pub fn _unused(_: Less) {}
