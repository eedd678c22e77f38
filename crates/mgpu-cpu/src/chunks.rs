//! The fixed-chunk plumbing shared by scan and reduce: chunk length, sequential chunk
//! kernels and the carry-in computation.
//!
//! Determinism rests on one rule: the chunk boundaries depend only on the input length,
//! never on the number of threads, and every combination across chunks is done
//! sequentially in chunk order.

use mgpu_core::{AssociativeOp, Element};
use rayon::prelude::*;

/// Length of the fixed chunks long inputs are cut into (64 Ki elements).
///
/// Fixed, so results do not depend on the number of threads. 64 Ki elements (256 KiB of
/// 4-byte elements) amortise rayon's per-task cost while leaving hundreds of tasks for
/// the inputs where parallelism pays.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_cpu::CHUNK_LEN, 65536);
/// ```
pub const CHUNK_LEN: usize = 1 << 16;

/// Inputs shorter than this (two chunks) are scanned and reduced sequentially, left to
/// right; longer ones go chunk-parallel (see the crate docs for the association order).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_cpu::PARALLEL_MIN_LEN, 2 * mgpu_cpu::CHUNK_LEN);
/// ```
pub const PARALLEL_MIN_LEN: usize = 2 * CHUNK_LEN;

/// Left-to-right fold of `xs` from the identity.
#[inline]
pub(crate) fn fold<T: Element, Op: AssociativeOp<T>>(xs: &[T]) -> T {
    xs.iter().fold(Op::identity(), |a, &x| Op::apply(a, x))
}

/// Reduces every chunk in parallel and combines the chunk totals in order. Returns the
/// carry-in of every chunk (`None` for chunk 0, which needs none) and the total.
pub(crate) fn carries<T: Element, Op: AssociativeOp<T>>(input: &[T]) -> (Vec<Option<T>>, T) {
    let totals: Vec<T> = input.par_chunks(CHUNK_LEN).map(fold::<T, Op>).collect();
    let mut acc = Op::identity();
    let carries = totals
        .iter()
        .enumerate()
        .map(|(c, &t)| {
            let carry = (c > 0).then_some(acc);
            acc = Op::apply(acc, t);
            carry
        })
        .collect();
    (carries, acc)
}

/// Scans one chunk from `input` into `output` (same length), each prefix combined with
/// `carry` when there is one. Returns the chunk's own total (from the identity).
#[inline]
pub(crate) fn scan_chunk<T: Element, Op: AssociativeOp<T>, const INCLUSIVE: bool>(
    carry: Option<T>,
    input: &[T],
    output: &mut [T],
) -> T {
    debug_assert_eq!(input.len(), output.len());
    scan_slots::<T, Op, INCLUSIVE>(carry, output.iter_mut().zip(input.iter().copied()))
}

/// [`scan_chunk`] in place.
#[inline]
pub(crate) fn scan_chunk_in_place<T: Element, Op: AssociativeOp<T>, const INCLUSIVE: bool>(
    carry: Option<T>,
    data: &mut [T],
) -> T {
    scan_slots::<T, Op, INCLUSIVE>(
        carry,
        data.iter_mut().map(|d| {
            let x = *d;
            (d, x)
        }),
    )
}

/// The loop of [`scan_chunk`] and [`scan_chunk_in_place`]: scans the values of `slots`
/// (slot, value), writing each prefix to its slot combined with `carry` when there is one
/// (a loop of its own for each case). Returns the total of the values (from the identity).
#[inline]
fn scan_slots<'a, T: Element, Op: AssociativeOp<T>, const INCLUSIVE: bool>(
    carry: Option<T>,
    slots: impl Iterator<Item = (&'a mut T, T)>,
) -> T {
    match carry {
        None => scan_slots_with::<T, Op, INCLUSIVE>(slots, |acc| acc),
        Some(c) => scan_slots_with::<T, Op, INCLUSIVE>(slots, |acc| Op::apply(c, acc)),
    }
}

/// [`scan_slots`] with `prefix` making what each slot gets from the running prefix.
#[inline]
fn scan_slots_with<'a, T: Element, Op: AssociativeOp<T>, const INCLUSIVE: bool>(
    slots: impl Iterator<Item = (&'a mut T, T)>,
    prefix: impl Fn(T) -> T,
) -> T {
    let mut acc = Op::identity();
    for (slot, x) in slots {
        if INCLUSIVE {
            acc = Op::apply(acc, x);
            *slot = prefix(acc);
        } else {
            *slot = prefix(acc);
            acc = Op::apply(acc, x);
        }
    }
    acc
}
