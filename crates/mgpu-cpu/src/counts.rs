//! The seeds' count scan, `Scan(counts)`: counts to offsets, with a checked total.
//!
//! Two passes, as for the general scan: the chunk sums are computed (in parallel for long
//! inputs) in u64 with overflow checks, the total is checked against the index type, and
//! only then is anything written. Every prefix is at most the total, so once the total
//! fits, the scan pass cannot overflow.

use mgpu_core::{Error, Index, Result};
use rayon::prelude::*;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};

/// Sum of `xs` in u64, `None` on u64 overflow (only possible for u64 counts).
#[inline]
fn checked_sum<I: Index>(xs: &[I]) -> Option<u64> {
    xs.iter().try_fold(0u64, |a, &x| a.checked_add(x.to_u64()))
}

fn overflow<I: Index>() -> Error {
    Error::IndexOverflow {
        what: "scan total",
        max: I::MAX.to_u64(),
    }
}

/// The checked total of `counts` and, for long inputs, the carry-in of every chunk.
fn plan<I: Index>(counts: &[I]) -> Result<(Option<Vec<u64>>, I)> {
    let (carries, total) = if counts.len() < PARALLEL_MIN_LEN {
        (None, checked_sum(counts))
    } else {
        let sums: Vec<Option<u64>> = counts.par_chunks(CHUNK_LEN).map(checked_sum).collect();
        let mut acc = Some(0u64);
        let carries = sums
            .iter()
            .map(|s| {
                let carry = acc.unwrap_or(0);
                acc = acc.zip(*s).and_then(|(a, s)| a.checked_add(s));
                carry
            })
            .collect();
        (Some(carries), acc)
    };
    match total {
        Some(t) if t <= I::MAX.to_u64() => Ok((carries, I::from_u64_wrapping(t))),
        _ => Err(overflow::<I>()),
    }
}

/// Exclusive scan of one chunk from `carry`. The caller has checked that the total fits
/// `I`, so no prefix overflows.
#[inline]
fn scan_chunk<I: Index>(carry: u64, input: &[I], output: &mut [I]) {
    let mut acc = carry;
    for (o, &x) in output.iter_mut().zip(input) {
        *o = I::from_u64_wrapping(acc);
        acc = acc.wrapping_add(x.to_u64());
    }
}

/// [`scan_chunk`] in place.
#[inline]
fn scan_chunk_in_place<I: Index>(carry: u64, data: &mut [I]) {
    let mut acc = carry;
    for d in data.iter_mut() {
        let x = *d;
        *d = I::from_u64_wrapping(acc);
        acc = acc.wrapping_add(x.to_u64());
    }
}

/// The seeds' `Scan(counts)`: exclusive sum scan of `counts` into `output`
/// (`output[i] = counts[0] + … + counts[i-1]`, so `output[0] == 0`), returning the total.
///
/// Unlike [`scan_exclusive`](crate::scan_exclusive) with `Plus`, which wraps, the sum is
/// checked: a total larger than `I::MAX` is an error, never a wrapped value (a total of
/// exactly `I::MAX` is fine).
///
/// # Errors
///
/// - [`Error::LengthMismatch`] (`what: "output"`) when `output.len() != counts.len()`;
/// - [`Error::IndexOverflow`] (`what: "scan total"`, `max: I::MAX`) when the total does
///   not fit `I`.
///
/// On error this implementation has written nothing to `output`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Error;
/// let mut offsets = [0u32; 3];
/// let total = mgpu_cpu::scan_counts_exclusive(&[3u32, 2, 5], &mut offsets)?;
/// assert_eq!((offsets, total), ([0, 3, 5], 10));
///
/// let mut out = [0u32; 2];
/// assert_eq!(
///     mgpu_cpu::scan_counts_exclusive(&[u32::MAX, 1], &mut out),
///     Err(Error::IndexOverflow { what: "scan total", max: u32::MAX as u64 })
/// );
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn scan_counts_exclusive<I: Index>(counts: &[I], output: &mut [I]) -> Result<I> {
    if counts.len() != output.len() {
        return Err(Error::LengthMismatch {
            what: "output",
            expected: counts.len(),
            got: output.len(),
        });
    }
    let (carries, total) = plan(counts)?;
    match carries {
        None => scan_chunk(0, counts, output),
        Some(carries) => output
            .par_chunks_mut(CHUNK_LEN)
            .zip(counts.par_chunks(CHUNK_LEN))
            .zip(carries.par_iter())
            .for_each(|((o, i), &c)| scan_chunk(c, i, o)),
    }
    Ok(total)
}

/// [`scan_counts_exclusive`] in place: `counts[i]` becomes the sum of the counts before
/// it; returns the total.
///
/// # Errors
///
/// [`Error::IndexOverflow`] (`what: "scan total"`, `max: I::MAX`) when the total does not
/// fit `I`. This CPU implementation checks the total before writing, so on error `counts`
/// is unchanged; code meant to run on every backend should treat the contents as
/// unspecified after an error, since other backends may have written part of them.
///
/// # Examples
///
/// ```
/// let mut counts = vec![3u64, 2, 5];
/// let total = mgpu_cpu::scan_counts_exclusive_in_place(&mut counts)?;
/// assert_eq!((counts, total), (vec![0, 3, 5], 10));
///
/// let mut full = vec![u32::MAX - 1, 1]; // a total of exactly u32::MAX fits
/// assert_eq!(mgpu_cpu::scan_counts_exclusive_in_place(&mut full)?, u32::MAX);
/// assert_eq!(full, [0, u32::MAX - 1]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn scan_counts_exclusive_in_place<I: Index>(counts: &mut [I]) -> Result<I> {
    let (carries, total) = plan(counts)?;
    match carries {
        None => scan_chunk_in_place(0, counts),
        Some(carries) => counts
            .par_chunks_mut(CHUNK_LEN)
            .zip(carries.par_iter())
            .for_each(|(d, &c)| scan_chunk_in_place(c, d)),
    }
    Ok(total)
}
