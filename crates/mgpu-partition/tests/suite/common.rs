//! What the suite's modules share: each launcher's result on a device against
//! `mgpu_cpu::partition` on the same input, bit for bit (the counting partitions against
//! its `merge_path_partitions` with the positions materialised), the serial definition of
//! the counting partitions, and the inputs.

use mgpu_core::{Greater, Less};
use mgpu_cpu::partition as cpu;
use mgpu_ctasearch::{merge_path, Bounds, Counting};
use mgpu_partition::{IndexSource, MergeComparator, PartitionIndex};
use mgpu_runtime::{Device, DeviceVec, Temp};
use mgpu_testkit::{self as kit, FromU64, Rng};
use std::fmt::Debug;

/// The key types of the merge partitions: element types made exactly from small integers
/// (many ties when their range is small).
pub trait Key: FromU64 {}
impl<T: FromU64> Key for T {}

/// `n` keys below `range`, sorted ascending (descending for `Greater`).
pub fn sorted<T: Key>(rng: &mut Rng, n: usize, range: u64, descending: bool) -> Vec<T> {
    kit::sorted_values(rng, n, range, descending)
}

/// `n` sorted indices below `below` (duplicates allowed) as `I`.
pub fn sorted_below<I: PartitionIndex>(rng: &mut Rng, n: usize, below: u64) -> Vec<I> {
    kit::to_index(&kit::sorted_values::<u64>(rng, n, below, false))
}

pub fn cpu_bounds(b: Bounds) -> cpu::Bounds {
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
        );
        let want = cpu::merge_path_partitions::<T, C>(a, b, nv, cpu_bounds(bounds));
        n = compare(got, want, || {
            let (na, nb) = (a.len(), b.len());
            format!("merge {} {bounds:?} |a|={na} |b|={nb} nv={nv}", T::NAME)
        });
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
    let got = mgpu_partition::mergesort_partitions(dk.as_slice(), nv, coop, C::default());
    let want = cpu::mergesort_partitions::<T, C>(keys, nv, coop);
    compare(got, want, || {
        let n = keys.len();
        format!("mergesort {} n={n} nv={nv} coop={coop}", T::NAME)
    });
}

/// Random lists of `list` keys, each sorted by `C`, concatenated.
pub fn sorted_lists<T: Key, C: 'static>(
    rng: &mut Rng,
    n: usize,
    list: usize,
    range: u64,
) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let m = list.min(n - out.len());
        out.extend(sorted::<T>(rng, m, range, is_greater::<C>()));
    }
    out
}

/// Binary-search partitions on `dev` == CPU, both bounds.
pub fn check_search<D: Device, I: PartitionIndex>(dev: &D, data: &[I], count: usize, nv: usize) {
    let dd = DeviceVec::from_slice(dev, data).unwrap();
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let got = mgpu_partition::binary_search_partitions(dd.as_slice(), count, nv, bounds);
        let want = cpu::binary_search_partitions(data, count, nv, cpu_bounds(bounds));
        compare(got, want, || {
            let n = data.len();
            format!("search {} {bounds:?} n={n} count={count} nv={nv}", I::NAME)
        });
    }
}

/// The partitions a launcher returned (`got`, copied back) == the CPU's (`want`), else a
/// panic naming `what()` and the first difference; the partition count.
fn compare<D: Device, E: Debug, F: Debug>(
    got: Result<Temp<u64, D>, E>,
    want: Result<Vec<u64>, F>,
    what: impl FnOnce() -> String,
) -> usize {
    let (got, want) = (got.unwrap().to_vec().unwrap(), want.unwrap());
    assert!(
        got == want,
        "{}: first difference at {:?}",
        what(),
        (0..want.len().max(got.len())).find(|&i| got.get(i) != want.get(i))
    );
    got.len()
}

/// CSR partitions on `dev` == CPU.
pub fn check_csr<D: Device, I: PartitionIndex>(dev: &D, csr: &[I], nz: usize, nv: usize) {
    check_scan_partitions(dev, "csr", csr, nz, nv);
}

/// Load-balancing partitions on `dev` == CPU.
pub fn check_lbs<D: Device, I: PartitionIndex>(dev: &D, scan: &[I], total: usize, nv: usize) {
    check_scan_partitions(dev, "lbs", scan, total, nv);
}

/// The `kind` partitions (`"csr"` of a CSR array and its `nz`, or `"lbs"` of a scan and
/// its total) on `dev` == CPU.
fn check_scan_partitions<D: Device, I: PartitionIndex>(
    dev: &D,
    kind: &str,
    scan: &[I],
    total: usize,
    nv: usize,
) {
    let ds = DeviceVec::from_slice(dev, scan).unwrap();
    let (got, want, rows) = match kind {
        "csr" => (
            mgpu_partition::csr_partitions(ds.as_slice(), total, nv),
            cpu::csr_partitions(scan, total, nv),
            "rows",
        ),
        _ => (
            mgpu_partition::load_balance_partitions(ds.as_slice(), total, nv),
            cpu::load_balance_partitions(scan, total, nv),
            "objects",
        ),
    };
    let total_name = if kind == "csr" { "nz" } else { "total" };
    compare(got, want, || {
        let n = scan.len();
        format!("{kind} {} {rows}={n} {total_name}={total} nv={nv}", I::NAME)
    });
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
        let got = mgpu_partition::merge_path_counting_partitions(dev, src, count, nv, bounds);
        let want =
            cpu::merge_path_partitions::<I, Less>(indices, &positions, nv, cpu_bounds(bounds));
        num = compare(got, want, || {
            let (is_seq, m) = (seq.is_some(), indices.len());
            let name = I::NAME;
            format!("counting {name} {bounds:?} seq={is_seq} m={m} count={count} nv={nv}")
        });
    }
    num
}

/// The counting partitions by their serial definition, as the one-thread kernel computed
/// them: per partition, the serial `merge_path` of `indices` (as the kernel reads them)
/// against `Counting(0)` over `count` positions.
pub fn serial_counting<I: PartitionIndex>(
    indices: &[I],
    count: u64,
    nv: u64,
    bounds: Bounds,
) -> Vec<u64> {
    let m = indices.len() as u64;
    (0..mgpu_partition::partition_count((m + count) as usize, nv as usize) as u64)
        // SAFETY: `indices` holds the `m` keys the search reads; `Counting` reads nothing.
        .map(|p| unsafe {
            let diag = (nv * p).min(m + count);
            merge_path(indices, m, Counting(I::ZERO), count, diag, bounds, Less)
        })
        .collect()
}

/// The exclusive scan of `counts` as `I`, and the total.
pub fn scan_of<I: PartitionIndex>(counts: &[u64]) -> (Vec<I>, usize) {
    let (scan, total) = kit::offsets(counts);
    (kit::to_index(&scan), total as usize)
}

/// Random counts below `max` with runs of zeros (one in four).
pub fn counts(rng: &mut Rng, n: usize, max: u64) -> Vec<u64> {
    (0..n)
        .map(|_| if rng.below(4) == 0 { 0 } else { rng.below(max) })
        .collect()
}

/// Every key type with Less and Greater, through `f::<T, C>(args)`.
macro_rules! for_key_types {
    ($f:ident, $($arg:expr),*) => {
        for_key_types!(@types $f, ($($arg),*), i32 u32 i64 u64 f32 f64)
    };
    (@types $f:ident, $args:tt, $($t:ident)*) => {{
        $(for_key_types!(@one $f, $args, $t);)*
    }};
    (@one $f:ident, ($($arg:expr),*), $t:ident) => {
        $f::<_, $t, mgpu_core::Less>($($arg),*);
        $f::<_, $t, mgpu_core::Greater>($($arg),*);
    };
}
pub(crate) use for_key_types;

/// Whether `C` is `Greater` (its keys sorted descending).
pub fn is_greater<C: 'static>() -> bool {
    std::any::TypeId::of::<C>() == std::any::TypeId::of::<Greater>()
}
