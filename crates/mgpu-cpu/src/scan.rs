//! Exclusive and inclusive scans, into an output slice or in place.

use mgpu_core::{AssociativeOp, Element, Error, Result};
use rayon::prelude::*;

use crate::chunks::{carries, scan_chunk, scan_chunk_in_place, CHUNK_LEN, PARALLEL_MIN_LEN};

fn check_output_len(input: usize, output: usize) -> Result<()> {
    if input == output {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what: "output",
            expected: input,
            got: output,
        })
    }
}

fn scan_into<T: Element, Op: AssociativeOp<T>, const INCLUSIVE: bool>(
    input: &[T],
    output: &mut [T],
) -> Result<T> {
    check_output_len(input.len(), output.len())?;
    if input.len() < PARALLEL_MIN_LEN {
        return Ok(scan_chunk::<T, Op, INCLUSIVE>(None, input, output));
    }
    if rayon::current_num_threads() == 1 {
        // One pass, chunk after chunk, carrying the running total: the same operations
        // in the same order as the two parallel passes below (so the same bits), while
        // reading the input once instead of twice.
        let mut acc = Op::identity();
        for (c, (i, o)) in input
            .chunks(CHUNK_LEN)
            .zip(output.chunks_mut(CHUNK_LEN))
            .enumerate()
        {
            let t = scan_chunk::<T, Op, INCLUSIVE>((c > 0).then_some(acc), i, o);
            acc = Op::apply(acc, t);
        }
        return Ok(acc);
    }
    let (carries, total) = carries::<T, Op>(input);
    output
        .par_chunks_mut(CHUNK_LEN)
        .zip(input.par_chunks(CHUNK_LEN))
        .zip(carries.par_iter())
        .for_each(|((o, i), &c)| {
            scan_chunk::<T, Op, INCLUSIVE>(c, i, o);
        });
    Ok(total)
}

fn scan_in_place<T: Element, Op: AssociativeOp<T>, const INCLUSIVE: bool>(data: &mut [T]) -> T {
    if data.len() < PARALLEL_MIN_LEN {
        return scan_chunk_in_place::<T, Op, INCLUSIVE>(None, data);
    }
    if rayon::current_num_threads() == 1 {
        // One pass with the same bits as the parallel path (see `scan_into`).
        let mut acc = Op::identity();
        for (c, d) in data.chunks_mut(CHUNK_LEN).enumerate() {
            let t = scan_chunk_in_place::<T, Op, INCLUSIVE>((c > 0).then_some(acc), d);
            acc = Op::apply(acc, t);
        }
        return acc;
    }
    let (carries, total) = carries::<T, Op>(data);
    data.par_chunks_mut(CHUNK_LEN)
        .zip(carries.par_iter())
        .for_each(|(d, &c)| {
            scan_chunk_in_place::<T, Op, INCLUSIVE>(c, d);
        });
    total
}

/// Exclusive scan: `output[i] = identity op x[0] op … op x[i-1]` (so `output[0]` is the
/// identity). Returns the total, the reduction of all of `input` (the identity when it
/// is empty), the same bits as [`reduce`](crate::reduce).
///
/// Integer arithmetic wraps. Deterministic for any number of threads; see the crate docs
/// for the association order on long float inputs.
///
/// # Errors
///
/// [`Error::LengthMismatch`] (`what: "output"`) when `output.len() != input.len()`;
/// `output` is then left untouched.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Multiplies, Plus};
/// let mut out = [0i32; 4];
/// let total = mgpu_cpu::scan_exclusive::<i32, Plus>(&[3, 2, 5, 1], &mut out)?;
/// assert_eq!((out, total), ([0, 3, 5, 10], 11));
///
/// let mut out = [0.0f64; 3];
/// let product = mgpu_cpu::scan_exclusive::<f64, Multiplies>(&[2.0, 3.0, 4.0], &mut out)?;
/// assert_eq!((out, product), ([1.0, 2.0, 6.0], 24.0));
///
/// let mut short = [0i32; 1];
/// assert!(mgpu_cpu::scan_exclusive::<i32, Plus>(&[1, 2], &mut short).is_err());
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn scan_exclusive<T: Element, Op: AssociativeOp<T>>(
    input: &[T],
    output: &mut [T],
) -> Result<T> {
    scan_into::<T, Op, false>(input, output)
}

/// Inclusive scan: `output[i] = x[0] op … op x[i]`. Returns the total, the reduction of
/// all of `input` (the identity when it is empty); for a non-empty input it equals the
/// last output bit for bit.
///
/// Integer arithmetic wraps. Deterministic for any number of threads; see the crate docs
/// for the association order on long float inputs.
///
/// # Errors
///
/// [`Error::LengthMismatch`] (`what: "output"`) when `output.len() != input.len()`;
/// `output` is then left untouched.
///
/// # Examples
///
/// ```
/// use mgpu_core::{BitXor, Plus};
/// let mut out = [0u32; 3];
/// let total = mgpu_cpu::scan_inclusive::<u32, Plus>(&[3, 2, 5], &mut out)?;
/// assert_eq!((out, total), ([3, 5, 10], 10));
///
/// let mut out = [0u64; 3];
/// let parity = mgpu_cpu::scan_inclusive::<u64, BitXor>(&[1, 3, 1], &mut out)?;
/// assert_eq!((out, parity), ([1, 2, 3], 3));
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn scan_inclusive<T: Element, Op: AssociativeOp<T>>(
    input: &[T],
    output: &mut [T],
) -> Result<T> {
    scan_into::<T, Op, true>(input, output)
}

/// [`scan_exclusive`] in place: `data[i]` becomes `identity op x[0] op … op x[i-1]`.
/// Returns the total (the identity for empty `data`).
///
/// # Examples
///
/// ```
/// use mgpu_core::Plus;
/// let mut data = vec![3i64, 2, 5];
/// let total = mgpu_cpu::scan_exclusive_in_place::<i64, Plus>(&mut data);
/// assert_eq!((data, total), (vec![0, 3, 5], 10));
/// ```
pub fn scan_exclusive_in_place<T: Element, Op: AssociativeOp<T>>(data: &mut [T]) -> T {
    scan_in_place::<T, Op, false>(data)
}

/// [`scan_inclusive`] in place: `data[i]` becomes `x[0] op … op x[i]`. Returns the total
/// (the identity for empty `data`).
///
/// # Examples
///
/// ```
/// use mgpu_core::Maximum;
/// let mut data = vec![1.5f32, -2.0, 4.0, 3.0];
/// let max = mgpu_cpu::scan_inclusive_in_place::<f32, Maximum>(&mut data);
/// assert_eq!((data, max), (vec![1.5, 1.5, 4.0, 4.0], 4.0));
/// ```
pub fn scan_inclusive_in_place<T: Element, Op: AssociativeOp<T>>(data: &mut [T]) -> T {
    scan_in_place::<T, Op, true>(data)
}
