//! The global partitions of `mgpu-partition` on the CPU (Merge Path for merge and
//! mergesort, binary search, CSR, load-balancing search), with the same semantics and the
//! same `u64` output, computed in parallel with rayon (one independent search per
//! partition, like the GPU's one thread per partition).
//!
//! These are written from the definitions, not from `mgpu-ctasearch` (this crate depends on
//! `mgpu-core` only), so they cross-check the GPU kernels: a Merge Path split is the number
//! of A elements among the first `d` outputs of the sequential merge, found by bisection
//! on the merge's decision at each candidate split.

use mgpu_core::{Comparator, Index};
use rayon::prelude::*;

/// Lower or upper bound: [`mgpu_core::Bounds`], re-exported here (the same type
/// `mgpu_ctasearch` and `mgpu_partition` take).
///
/// # Examples
///
/// ```
/// use mgpu_cpu::partition::{binary_search_partitions, Bounds};
/// let v = [2u32, 2, 2];
/// assert_eq!(binary_search_partitions(&v, 2, 2, Bounds::Lower).unwrap(), vec![0, 0]);
/// assert_eq!(binary_search_partitions(&v, 2, 2, Bounds::Upper).unwrap(), vec![0, 3]);
/// ```
pub use mgpu_core::Bounds;

/// The continuation flag of a CSR partition: bit 63 (see `mgpu_partition::CSR_CONTINUATION`).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_cpu::partition::CSR_CONTINUATION, 1 << 63);
/// ```
pub const CSR_CONTINUATION: u64 = 1 << 63;

/// `ceil(n / nv) + 1` (`nv > 0`).
fn count(n: usize, nv: usize) -> usize {
    n.div_ceil(nv) + 1
}

fn check_nv(nv: usize) -> mgpu_core::Result<()> {
    if nv == 0 {
        return Err(mgpu_core::Error::InvalidInput(
            "nv (elements per tile) must be positive".into(),
        ));
    }
    Ok(())
}

/// The partitions of `n` steps in tiles of `nv` (`nv > 0`), computed in parallel: entry
/// `i` is `at(d)` for its diagonal `d = min(nv * i, n)`.
fn partitions(n: usize, nv: usize, at: impl Fn(usize) -> u64 + Sync + Send) -> Vec<u64> {
    (0..count(n, nv))
        .into_par_iter()
        .map(|i| at((nv * i).min(n)))
        .collect()
}

/// How many of the first `d` outputs of the merge of `a` and `b` come from `a`. The merge
/// takes `a[i]` before `b[j]` when `!comp(b[j], a[i])` (lower) or `comp(a[i], b[j])`
/// (upper). `i` A elements and `d - i` B elements are the first `d` outputs exactly when
/// the merge took `a[i - 1]` before `b[d - i]` and `b[d - i - 1]` before `a[i]`; the first
/// condition holds for every `i` up to the answer, so bisect on it.
fn split<T, C: Comparator<T>>(a: &[T], b: &[T], d: usize, upper: bool) -> usize {
    let a_before_b = |x: &T, y: &T| {
        if upper {
            C::compare(x, y)
        } else {
            !C::compare(y, x)
        }
    };
    let (mut lo, mut hi) = (d.saturating_sub(b.len()), d.min(a.len()));
    // Find the largest i in [lo, hi] with (i == lo or a[i - 1] goes before b[d - i]).
    while lo < hi {
        let i = lo + (hi - lo).div_ceil(2);
        if a_before_b(&a[i - 1], &b[d - i]) {
            lo = i;
        } else {
            hi = i - 1;
        }
    }
    lo
}

/// Merge Path partitions of the merge of `a` and `b` in tiles of `nv` outputs: entry `i`
/// is how many of the first `min(nv * i, a.len() + b.len())` outputs come from `a`.
///
/// # Errors
/// `nv == 0`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_cpu::partition::{merge_path_partitions, Bounds};
/// let a = [1i32, 3, 5, 7];
/// let b = [3i32, 3, 8];
/// assert_eq!(merge_path_partitions::<i32, Less>(&a, &b, 3, Bounds::Lower).unwrap(), vec![0, 2, 4, 4]);
/// assert_eq!(merge_path_partitions::<i32, Less>(&a, &b, 3, Bounds::Upper).unwrap(), vec![0, 1, 4, 4]);
/// ```
pub fn merge_path_partitions<T: Sync, C: Comparator<T>>(
    a: &[T],
    b: &[T],
    nv: usize,
    bounds: Bounds,
) -> mgpu_core::Result<Vec<u64>> {
    check_nv(nv)?;
    let n = a.len() + b.len();
    let upper = bounds == Bounds::Upper;
    Ok(partitions(n, nv, |d| split::<T, C>(a, b, d, upper) as u64))
}

/// The partitions of one mergesort merge pass: `keys` holds sorted lists of
/// `nv * coop / 2`, and entry `i` is tile `i`'s lower-bound split within the merge of its
/// pair of lists, relative to the start of the pair's first list.
///
/// # Errors
/// `nv == 0`, or `coop` not a power of two of at least 2.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// let k = [1u32, 4, 6, 7, 2, 3, 5, 8];
/// assert_eq!(mgpu_cpu::partition::mergesort_partitions::<u32, Less>(&k, 4, 2).unwrap(), vec![0, 2, 0]);
/// ```
pub fn mergesort_partitions<T: Sync, C: Comparator<T>>(
    keys: &[T],
    nv: usize,
    coop: usize,
) -> mgpu_core::Result<Vec<u64>> {
    check_nv(nv)?;
    if coop < 2 || !coop.is_power_of_two() {
        return Err(mgpu_core::Error::InvalidInput(format!(
            "coop must be a power of two of at least 2, not {coop}"
        )));
    }
    let n = keys.len();
    let list = nv * coop / 2;
    Ok((0..count(n, nv))
        .into_par_iter()
        .map(|i| {
            // The pair of lists tile i helps merge, and its diagonal inside that merge.
            let pair = i / coop;
            let a0 = (pair * 2 * list).min(n);
            let b0 = (a0 + list).min(n);
            let b1 = (b0 + list).min(n);
            let d = (nv * i).saturating_sub(a0).min(b1 - a0);
            split::<T, C>(&keys[a0..b0], &keys[b0..b1], d, false) as u64
        })
        .collect())
}

/// Binary-search partitions: entry `i` is the lower (or upper) bound of
/// `min(nv * i, count)` in `data` (sorted ascending).
///
/// # Errors
/// `nv == 0`; `IndexOverflow` when `count` does not fit `I`.
///
/// # Examples
///
/// ```
/// use mgpu_cpu::partition::{binary_search_partitions, Bounds};
/// let remove = [3u32, 4, 10, 11, 12, 25];
/// assert_eq!(binary_search_partitions(&remove, 30, 10, Bounds::Lower).unwrap(), vec![0, 2, 5, 6]);
/// ```
pub fn binary_search_partitions<I: Index>(
    data: &[I],
    count_: usize,
    nv: usize,
    bounds: Bounds,
) -> mgpu_core::Result<Vec<u64>> {
    check_nv(nv)?;
    mgpu_core::Error::check_fits::<I>("binary-search partition count", count_)?;
    Ok(partitions(count_, nv, |d| {
        let key = d as u64;
        let r = match bounds {
            Bounds::Lower => data.partition_point(|x| x.to_u64() < key),
            Bounds::Upper => data.partition_point(|x| x.to_u64() <= key),
        };
        r as u64
    }))
}

/// CSR partitions: entry `i` is the row holding element `nv * i` of the `nz` elements
/// (`upper_bound(csr, nv * i) - 1`), with [`CSR_CONTINUATION`] when the row starts
/// before it; the last entry (element `nz`) is `csr.len()`. A CSR starting above 0 (invalid)
/// gives row 0 with the flag, as on the GPU.
///
/// # Errors
/// `nv == 0`; `IndexOverflow` when `nz` does not fit `I`.
///
/// # Examples
///
/// ```
/// use mgpu_cpu::partition::{csr_partitions, CSR_CONTINUATION as F};
/// let csr = [0u32, 957, 1008, 2000, 2312];
/// assert_eq!(csr_partitions(&csr, 3000, 1000).unwrap(), vec![0, 1 | F, 3, 5]);
/// ```
pub fn csr_partitions<I: Index>(csr: &[I], nz: usize, nv: usize) -> mgpu_core::Result<Vec<u64>> {
    check_nv(nv)?;
    mgpu_core::Error::check_fits::<I>("CSR element count", nz)?;
    Ok(partitions(nz, nv, |d| {
        if d == nz {
            return csr.len() as u64;
        }
        let key = d as u64;
        let ub = csr.partition_point(|x| x.to_u64() <= key);
        match ub.checked_sub(1) {
            Some(row) if csr[row].to_u64() == key => row as u64,
            Some(row) => row as u64 | CSR_CONTINUATION,
            None => CSR_CONTINUATION,
        }
    }))
}

/// Load-balancing partitions: the upper-bound Merge Path partitions of the work items
/// `0..total` against `scan` (the exclusive scan of the objects' counts), in tiles of `nv`
/// steps (items plus objects): entry `i` is the first work item of tile `i`.
///
/// # Errors
/// `nv == 0`; `IndexOverflow` when `total` does not fit `I`.
///
/// # Examples
///
/// ```
/// let scan = [0u32, 2, 7, 10, 10]; // counts 2, 5, 3, 0, 1
/// assert_eq!(mgpu_cpu::partition::load_balance_partitions(&scan, 11, 4).unwrap(), vec![0, 2, 6, 9, 11]);
/// ```
pub fn load_balance_partitions<I: Index>(
    scan: &[I],
    total: usize,
    nv: usize,
) -> mgpu_core::Result<Vec<u64>> {
    check_nv(nv)?;
    mgpu_core::Error::check_fits::<I>("load-balancing total", total)?;
    let n = total + scan.len();
    Ok(partitions(n, nv, |d| {
        // Work item a goes before scan value s when a < s (B first on ties): the split at
        // d is the largest a in range with a - 1 < scan[d - a] (or a == lo).
        let (mut lo, mut hi) = (d.saturating_sub(scan.len()), d.min(total));
        while lo < hi {
            let a = lo + (hi - lo).div_ceil(2);
            if ((a - 1) as u64) < scan[d - a].to_u64() {
                lo = a;
            } else {
                hi = a - 1;
            }
        }
        lo as u64
    }))
}
