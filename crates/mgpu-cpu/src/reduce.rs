//! Reduction.

use mgpu_core::{AssociativeOp, Element};

use crate::chunks::{carries, fold, PARALLEL_MIN_LEN};

/// Reduces `input` with `Op`: `x[0] op x[1] op … op x[n-1]`, the identity for an empty
/// input (the seeds' `Reduce`).
///
/// Deterministic for any number of threads, and bit for bit equal to the total the scans
/// return for the same input. Equal to a left-to-right loop bit for bit for integers (which
/// wrap) and within rounding for float `Plus`/`Multiplies` on inputs of
/// [`PARALLEL_MIN_LEN`](crate::PARALLEL_MIN_LEN) elements or more (see the crate docs).
///
/// # Examples
///
/// ```
/// use mgpu_core::{BitOr, Minimum, Plus};
/// assert_eq!(mgpu_cpu::reduce::<u32, Plus>(&[3, 2, 5]), 10);
/// assert_eq!(mgpu_cpu::reduce::<u32, Plus>(&[u32::MAX, 2]), 1); // wraps
/// assert_eq!(mgpu_cpu::reduce::<u64, BitOr>(&[1, 4, 8]), 13);
/// assert_eq!(mgpu_cpu::reduce::<f64, Minimum>(&[]), f64::INFINITY); // the identity
/// ```
pub fn reduce<T: Element, Op: AssociativeOp<T>>(input: &[T]) -> T {
    if input.len() < PARALLEL_MIN_LEN {
        fold::<T, Op>(input)
    } else {
        carries::<T, Op>(input).1
    }
}
