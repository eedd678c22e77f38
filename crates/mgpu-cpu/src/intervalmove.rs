//! The seeds' interval family on host slices: [`interval_expand`], [`interval_move`],
//! [`interval_gather`], [`interval_scatter`], with the GPU's semantics and validation
//! (mgpu-intervalmove). Expand and gather run in parallel over chunks of the output;
//! move and scatter copy interval by interval in order, so where destination intervals
//! overlap the later interval wins here (on the GPU: one of the writers, unspecified which).

use mgpu_core::{Error, Index, Result, Sequence, Violation};
use rayon::prelude::*;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};

/// Where interval data comes from: a slice or the sequence `first + step * position`
/// (wrapping for integers, `first + step * (position as T)` for floats, as on the GPU):
/// the one [`mgpu_core::Source`] with host slices.
///
/// # Examples
///
/// ```
/// use mgpu_cpu::intervalmove::Source;
/// let s: Source<'_, i32> = Source::counting(0);
/// assert_eq!(s.get(5), 5);
/// assert_eq!(Source::Array(&[4u64, 5][..]).get(1), 5);
/// ```
pub type Source<'a, T> = mgpu_core::Source<&'a [T], T>;

/// The count of interval `j` (the last ends at `total`).
#[inline]
fn count<I: Index>(scan: &[I], total: u64, j: usize) -> u64 {
    let end = if j + 1 < scan.len() {
        scan[j + 1].to_u64()
    } else {
        total
    };
    end - scan[j].to_u64()
}

/// The gather starts checked to be one per interval, with the input's length (none for a
/// generated input): [`validate`]'s gather argument.
fn gather_starts<'a, T: Sequence, I: Index>(
    scan: &[I],
    gather: &'a [I],
    input: &Source<'_, T>,
) -> Result<(&'a [I], Option<usize>)> {
    Error::check_len("gather starts (one per interval)", scan.len(), gather.len())?;
    Ok((gather, input.array().map(|a| a.len())))
}

/// The scatter starts checked to be one per interval, with the output's length:
/// [`validate`]'s scatter argument.
fn scatter_starts<'a, I: Index>(
    scan: &[I],
    scatter: &'a [I],
    output_len: usize,
) -> Result<(&'a [I], usize)> {
    Error::check_len(
        "scatter starts (one per interval)",
        scan.len(),
        scatter.len(),
    )?;
    Ok((scatter, output_len))
}

/// Checks the scan and the ranges as the kernels do; the same messages.
fn validate<I: Index>(
    scan: &[I],
    total: usize,
    gather: Option<(&[I], Option<usize>)>,
    scatter: Option<(&[I], usize)>,
) -> Result<()> {
    let max = I::MAX.to_u64();
    if total as u64 > max {
        return Err(Error::IndexOverflow {
            what: "interval total",
            max,
        });
    }
    if scan.len() as u64 > max {
        return Err(Error::IndexOverflow {
            what: "number of intervals",
            max,
        });
    }
    let t = total as u64;
    if scan.is_empty() && total > 0 {
        return Violation::check([Violation::TotalWithoutIntervals { total: t }]);
    }
    let mut what = Vec::new();
    if scan.first().is_some_and(|s| s.to_u64() != 0) {
        what.push(Violation::ScanStart);
    }
    if scan.windows(2).any(|w| w[0] > w[1]) {
        what.push(Violation::ScanOrder);
    }
    if scan.iter().any(|s| s.to_u64() > t) {
        what.push(Violation::ScanPastTotal { total: t });
    }
    if what.is_empty() {
        let out_of = |starts: &[I], len: u64| {
            (0..scan.len()).any(|j| {
                let c = count(scan, t, j);
                c > 0 && starts[j].to_u64().checked_add(c).is_none_or(|e| e > len)
            })
        };
        if let Some((g, Some(len))) = gather {
            if out_of(g, len as u64) {
                what.push(Violation::GatherRange { input_len: len });
            }
        }
        if let Some((s, len)) = scatter {
            if out_of(s, len as u64) {
                what.push(Violation::ScatterRange { output_len: len });
            }
        }
    }
    Violation::check(what)
}

/// Fills `output` (the items `base..base + output.len()`) with `f(object, rank)`.
fn fill_outputs<T: Send, I: Index>(
    scan: &[I],
    base: usize,
    output: &mut [T],
    f: &(impl Fn(usize, u64) -> T + Sync),
) {
    if output.is_empty() {
        return;
    }
    let mut j = scan.partition_point(|s| s.to_usize() <= base) - 1;
    for (k, o) in output.iter_mut().enumerate() {
        let item = base + k;
        while j + 1 < scan.len() && scan[j + 1].to_usize() <= item {
            j += 1;
        }
        *o = f(j, (item - scan[j].to_usize()) as u64);
    }
}

fn fill_parallel<T: Send, I: Index>(
    scan: &[I],
    output: &mut [T],
    f: impl Fn(usize, u64) -> T + Sync,
) {
    if output.len() < PARALLEL_MIN_LEN {
        fill_outputs(scan, 0, output, &f);
    } else {
        output
            .par_chunks_mut(CHUNK_LEN)
            .enumerate()
            .for_each(|(c, o)| fill_outputs(scan, c * CHUNK_LEN, o, &f));
    }
}

/// Interval expand (the seeds' `IntervalExpand`): `output[i] = values[object(i)]`, where
/// `scan` is the exclusive scan of the interval counts and `output.len()` their sum.
///
/// # Errors
/// Lengths that disagree; a total or interval count past `I`; a scan that does not start at
/// 0, is not non-decreasing, or passes the total ([`Error::InvalidInput`] naming it).
///
/// # Examples
///
/// ```
/// use mgpu_cpu::intervalmove::interval_expand;
/// let scan = [0u32, 1, 3, 4, 4, 8, 10, 13, 13];
/// let values = [0i32, 1, 2, 3, 4, 5, 6, 7, 8];
/// let mut out = [0i32; 15];
/// interval_expand(&scan, (&values[..]).into(), &mut out).unwrap();
/// assert_eq!(out, [0, 1, 1, 2, 4, 4, 4, 4, 5, 5, 6, 6, 6, 8, 8]);
/// ```
pub fn interval_expand<T: Sequence, I: Index>(
    scan: &[I],
    values: Source<'_, T>,
    output: &mut [T],
) -> Result<()> {
    if let Some(l) = values.array().map(|a| a.len()) {
        Error::check_len("values (one per interval)", scan.len(), l)?;
    }
    validate(scan, output.len(), None, None)?;
    fill_parallel(scan, output, |j, _| values.get(j as u64));
    Ok(())
}

/// Interval gather (the seeds' `IntervalGather`): `output[i] = input[gather[object(i)] +
/// rank(i)]`, outputs contiguous by the scan (`output.len()` is the total).
///
/// # Errors
/// As [`interval_expand`]; also a gather range outside the input.
///
/// # Examples
///
/// ```
/// use mgpu_cpu::intervalmove::interval_gather;
/// let mut out = [0u32; 3];
/// interval_gather(&[0u32, 2], &[3, 0], (&[0u32, 1, 2, 3, 4][..]).into(), &mut out).unwrap();
/// assert_eq!(out, [3, 4, 0]);
/// ```
pub fn interval_gather<T: Sequence, I: Index>(
    scan: &[I],
    gather: &[I],
    input: Source<'_, T>,
    output: &mut [T],
) -> Result<()> {
    let checked = gather_starts(scan, gather, &input)?;
    validate(scan, output.len(), Some(checked), None)?;
    fill_parallel(scan, output, |j, r| input.get(gather[j].to_u64() + r));
    Ok(())
}

/// Interval move (the seeds' `IntervalMove`): for every interval `j` of `count[j]`
/// elements, `output[scatter[j] + r] = input[gather[j] + r]`, `r < count[j]`; `total` is
/// the sum of the counts. Overlapping destinations: intervals are copied in order, so the
/// later one wins here (the GPU leaves it unspecified).
///
/// # Errors
/// As [`interval_gather`]; also a scatter range outside the output.
///
/// # Examples
///
/// ```
/// use mgpu_cpu::intervalmove::{interval_move, Source};
/// let mut out = [0i32; 3];
/// interval_move(&[0u32, 2], 3, &[10, 20], &[1, 0], Source::Sequence { first: 0, step: 1 }, &mut out).unwrap();
/// assert_eq!(out, [20, 10, 11]);
/// ```
pub fn interval_move<T: Sequence, I: Index>(
    scan: &[I],
    total: usize,
    gather: &[I],
    scatter: &[I],
    input: Source<'_, T>,
    output: &mut [T],
) -> Result<()> {
    let gathered = gather_starts(scan, gather, &input)?;
    let scattered = scatter_starts(scan, scatter, output.len())?;
    validate(scan, total, Some(gathered), Some(scattered))?;
    for j in 0..scan.len() {
        let (g, s) = (gather[j].to_u64(), scatter[j].to_usize());
        for r in 0..count(scan, total as u64, j) {
            output[s + r as usize] = input.get(g + r);
        }
    }
    Ok(())
}

/// Interval scatter (the seeds' `IntervalScatter`): `output[scatter[object(i)] + rank(i)]
/// = input[i]` for the `total` items. Overlaps: as [`interval_move`].
///
/// # Errors
/// As [`interval_expand`]; also an input that is not `total` long, or a scatter range
/// outside the output.
///
/// # Examples
///
/// ```
/// use mgpu_cpu::intervalmove::interval_scatter;
/// let mut out = [0i32; 4];
/// interval_scatter(&[0u32, 2], 3, &[1, 0], (&[5, 6, 7][..]).into(), &mut out).unwrap();
/// assert_eq!(out, [7, 5, 6, 0]);
/// ```
pub fn interval_scatter<T: Sequence, I: Index>(
    scan: &[I],
    total: usize,
    scatter: &[I],
    input: Source<'_, T>,
    output: &mut [T],
) -> Result<()> {
    let scattered = scatter_starts(scan, scatter, output.len())?;
    if let Some(l) = input.array().map(|a| a.len()) {
        Error::check_len("input (one per output)", total, l)?;
    }
    validate(scan, total, None, Some(scattered))?;
    for j in 0..scan.len() {
        let (b, s) = (scan[j].to_u64(), scatter[j].to_usize());
        for r in 0..count(scan, total as u64, j) {
            output[s + r as usize] = input.get(b + r);
        }
    }
    Ok(())
}
