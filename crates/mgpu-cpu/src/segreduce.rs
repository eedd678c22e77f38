//! Segmented reduction (seed 002) on the host, with the GPU backend's checks and
//! semantics: segments reduced in order, the identity for an empty one.

use mgpu_core::{checks, AssociativeOp, Element, Index, Result};
use rayon::prelude::*;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};
use crate::loadbalance::validate;
use crate::reduce::reduce;

/// Segmented reduction over CSR (Modern GPU's `SegReduceCsr`, seed 002): `output[j]`
/// becomes the reduction with `Op` of segment `j`, the values `data[csr[j]..csr[j + 1]]`
/// (the last segment runs to the end of `data`), combined in order, or `Op`'s identity
/// when the segment is empty. The same semantics and errors as the GPU backend
/// (`mgpu_segreduce::seg_reduce_csr`).
///
/// Each segment is reduced as [`reduce`] reduces a slice: deterministic for any number of
/// threads, bit for bit equal to a left-to-right loop for integers (which wrap) and, for
/// floats, on segments shorter than [`PARALLEL_MIN_LEN`](crate::PARALLEL_MIN_LEN). The
/// GPU groups float operands by its tiles instead, so float sums agree with it within
/// rounding. Many short segments are reduced in parallel, in chunks of segments.
///
/// # Errors
/// - [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch) when
///   `output.len() != csr.len()`;
/// - [`Error::IndexOverflow`](mgpu_core::Error::IndexOverflow) when `data.len()` or the
///   segment count does not fit `I`;
/// - [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) for values with no segments,
///   and when `csr[0] != 0`, the starts decrease, or a start is past `data.len()`.
///   Nothing is written then.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Maximum, Plus};
/// let mut out = [0i32; 4];
/// mgpu_cpu::seg_reduce_csr::<i32, u32, Plus>(&[1, 2, 3, 4, 5, 6], &[0, 2, 2, 5], &mut out)?;
/// assert_eq!(out, [3, 0, 12, 6]); // lengths 2, 0, 3, 1
/// let mut max = [0.0f64; 2];
/// mgpu_cpu::seg_reduce_csr::<f64, u64, Maximum>(&[1.5, -2.0], &[0, 0], &mut max)?;
/// assert_eq!(max, [f64::NEG_INFINITY, 1.5]);
/// assert!(mgpu_cpu::seg_reduce_csr::<i32, u32, Plus>(&[1, 2], &[0, 3], &mut out[..2]).is_err());
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn seg_reduce_csr<T: Element, I: Index, Op: AssociativeOp<T>>(
    data: &[T],
    csr: &[I],
    output: &mut [T],
) -> Result<()> {
    checks::seg_reduce_csr::<I>(data.len(), csr.len(), Some(output.len()))?;
    validate(csr, data.len() as u64)?;
    let n = csr.len();
    let segment = |j: usize| {
        let end = if j + 1 < n {
            csr[j + 1].to_usize()
        } else {
            data.len()
        };
        reduce::<T, Op>(&data[csr[j].to_usize()..end])
    };
    if n + data.len() < PARALLEL_MIN_LEN {
        for (j, out) in output.iter_mut().enumerate() {
            *out = segment(j);
        }
    } else {
        output
            .par_chunks_mut(CHUNK_LEN)
            .enumerate()
            .for_each(|(c, outs)| {
                for (k, out) in outs.iter_mut().enumerate() {
                    *out = segment(c * CHUNK_LEN + k);
                }
            });
    }
    Ok(())
}
