//! The load-balancing search (seed 001) on the host: for each work item, the object that
//! generated it (`upper_bound(scan, item) - 1`), with the GPU backend's checks.
//!
//! The scan is validated first (in parallel for long inputs), then the outputs are
//! written run by run: object `o` fills `scan[o]..scan[o + 1]` (the last one up to
//! `total`). Long inputs are cut into chunks of [`CHUNK_LEN`] objects whose output ranges
//! are contiguous and disjoint, filled in parallel, so the work is proportional to the
//! objects plus the work items however the counts are distributed.

use mgpu_core::{Error, Index, Result, Violation};
use rayon::prelude::*;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};

/// Checks that `scan` is an exclusive scan of counts summing to `total`: it starts at 0,
/// never decreases, and ends at most at `total`.
pub(crate) fn validate<I: Index>(scan: &[I], total: u64) -> Result<()> {
    let Some(last) = scan.last() else {
        if total != 0 {
            return Violation::check([Violation::TotalWithoutIntervals { total }]);
        }
        return Ok(());
    };
    if (scan.len() as u64 - 1) > I::MAX.to_u64() {
        return Err(Error::IndexOverflow {
            what: "object index",
            max: I::MAX.to_u64(),
        });
    }
    let mut found = Vec::new();
    if scan[0].to_u64() != 0 {
        found.push(Violation::ScanStart);
    }
    let sorted = if scan.len() < PARALLEL_MIN_LEN {
        scan.windows(2).all(|w| w[0] <= w[1])
    } else {
        scan.par_windows(2).all(|w| w[0] <= w[1])
    };
    if !sorted {
        found.push(Violation::ScanOrder);
    }
    // On a sorted scan the last value decides; an unsorted one is already reported as
    // ScanOrder, which comes before ScanPastTotal.
    if sorted && last.to_u64() > total {
        found.push(Violation::ScanPastTotal { total });
    }
    Violation::check(found)
}

/// Calls `fill(object, run)` for every object's run of `out` (`out[i]` is work item `i`),
/// in parallel over chunks of objects for long inputs. `scan` is valid for `total`.
fn for_each_run<I: Index, F>(scan: &[I], total: usize, out: &mut [I], fill: F)
where
    F: Fn(usize, &mut [I]) + Sync,
{
    let n = scan.len();
    // Objects first..last, whose outputs start at work item scan[first], into `out`.
    let runs = |first: usize, last: usize, out: &mut [I]| {
        let base = scan[first].to_usize();
        let end = base + out.len();
        for o in first..last {
            let stop = if o + 1 < last {
                scan[o + 1].to_usize()
            } else {
                end
            };
            fill(o, &mut out[scan[o].to_usize() - base..stop - base]);
        }
    };
    if n == 0 {
        return;
    }
    if total + n < PARALLEL_MIN_LEN {
        runs(0, n, out);
        return;
    }
    let mut pieces = Vec::with_capacity(n.div_ceil(CHUNK_LEN));
    let mut rest = out;
    for first in (0..n).step_by(CHUNK_LEN) {
        let last = (first + CHUNK_LEN).min(n);
        let end = if last < n {
            scan[last].to_usize()
        } else {
            total
        };
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(end - scan[first].to_usize());
        pieces.push((first, last, head));
        rest = tail;
    }
    pieces
        .into_par_iter()
        .for_each(|(first, last, out)| runs(first, last, out));
}

/// The load-balancing search (Modern GPU's `LoadBalanceSearch`, seed 001): `scan` is the
/// exclusive scan of the objects' work-item counts and `total` their sum; `output[i]`
/// becomes the object that generated work item `i`, `upper_bound(scan, i) - 1`. The same
/// semantics and errors as the GPU backend (`mgpu_loadbalance::load_balance_search`).
///
/// # Errors
/// - [`Error::LengthMismatch`] when `output.len() != total`;
/// - [`Error::IndexOverflow`] when there are more objects than `I` can index
///   (`n - 1 > I::MAX`);
/// - [`Error::InvalidInput`] when `scan[0] != 0`, the scan decreases, `scan[n - 1] >
///   total`, or `total > 0` with no objects. Nothing is written then.
///
/// # Examples
///
/// ```
/// let mut out = [0u32; 11];
/// mgpu_cpu::load_balance_search(&[0u32, 2, 7, 10, 10], 11, &mut out)?;
/// assert_eq!(out, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert!(mgpu_cpu::load_balance_search(&[0u32, 7, 2], 11, &mut out).is_err());
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn load_balance_search<I: Index>(scan: &[I], total: I, output: &mut [I]) -> Result<()> {
    Error::check_len("output", total.to_usize(), output.len())?;
    validate(scan, total.to_u64())?;
    for_each_run(scan, total.to_usize(), output, |o, run| {
        run.fill(I::from_u64_wrapping(o as u64))
    });
    Ok(())
}

/// [`load_balance_search`] that also writes each work item's rank in its object,
/// `ranks[i] = i - scan[objects[i]]`.
///
/// # Errors
/// As [`load_balance_search`]; either output of a length other than `total` is
/// [`Error::LengthMismatch`].
///
/// # Examples
///
/// ```
/// let (mut obj, mut rank) = ([0u64; 11], [0u64; 11]);
/// mgpu_cpu::load_balance_search_ranks(&[0u64, 2, 7, 10, 10], 11, &mut obj, &mut rank)?;
/// assert_eq!(obj, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank, [0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn load_balance_search_ranks<I: Index>(
    scan: &[I],
    total: I,
    objects: &mut [I],
    ranks: &mut [I],
) -> Result<()> {
    Error::check_len("objects", total.to_usize(), objects.len())?;
    Error::check_len("ranks", total.to_usize(), ranks.len())?;
    validate(scan, total.to_u64())?;
    let total = total.to_usize();
    for_each_run(scan, total, objects, |o, run| {
        run.fill(I::from_u64_wrapping(o as u64))
    });
    for_each_run(scan, total, ranks, |_, run| {
        for (r, slot) in run.iter_mut().enumerate() {
            *slot = I::from_u64_wrapping(r as u64);
        }
    });
    Ok(())
}

/// The convenience form: the exclusive scan of `counts`
/// ([`scan_counts_exclusive`](crate::scan_counts_exclusive)) and the load-balancing
/// search of it; returns the objects of the work items and the total.
///
/// # Errors
/// [`Error::IndexOverflow`] when the counts sum past `I::MAX`.
///
/// # Examples
///
/// ```
/// let (obj, total) = mgpu_cpu::load_balance_search_counts(&[2u32, 5, 3, 0, 1])?;
/// assert_eq!(total, 11);
/// assert_eq!(obj, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn load_balance_search_counts<I: Index>(counts: &[I]) -> Result<(Vec<I>, I)> {
    let mut scan = vec![I::ZERO; counts.len()];
    let total = crate::scan_counts_exclusive(counts, &mut scan)?;
    let mut out = vec![I::ZERO; total.to_usize()];
    load_balance_search(&scan, total, &mut out)?;
    Ok((out, total))
}
