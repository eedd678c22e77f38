//! Sequences the searches read: raw pointers (global or shared memory), host slices and
//! counting sequences.

use crate::Idx;

/// A random-access sequence of keys: what the searches and merges read. Implemented by raw
/// pointers (device code: global or shared memory), by `&[T]` (host code and tests,
/// bounds-checked) and by [`Counting`] (the natural numbers from a base, the seeds'
/// `counting_iterator`).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{Counting, Keys};
/// let v = [5u32, 7, 9];
/// assert_eq!(unsafe { (&v[..]).key(2) }, 9);
/// assert_eq!(unsafe { v.as_ptr().key(1) }, 7);
/// assert_eq!(unsafe { Counting(10u64).key(3) }, 13);
/// ```
pub trait Keys<T>: Copy {
    /// Element `i`.
    ///
    /// # Safety
    /// `i` is inside the sequence (for pointers: the pointer is valid for reads at `i`).
    unsafe fn key(&self, i: usize) -> T;
}

impl<T: Copy> Keys<T> for *const T {
    #[inline(always)]
    unsafe fn key(&self, i: usize) -> T {
        *self.add(i)
    }
}

impl<T: Copy> Keys<T> for *mut T {
    #[inline(always)]
    unsafe fn key(&self, i: usize) -> T {
        *self.add(i)
    }
}

impl<T: Copy> Keys<T> for &[T] {
    #[inline(always)]
    unsafe fn key(&self, i: usize) -> T {
        self[i]
    }
}

/// The sequence `base, base + 1, base + 2, ...` (the seeds' `counting_iterator<int>`): the
/// A side of the load-balancing search, and the source positions of Bulk Insert.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{Counting, Keys};
/// assert_eq!(unsafe { Counting(0u32).key(41) }, 41);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counting<I>(pub I);

impl<I: Idx> Keys<I> for Counting<I> {
    #[inline(always)]
    unsafe fn key(&self, i: usize) -> I {
        self.0.wrapping_add(I::from_usize(i))
    }
}

/// Index keys that are an array or the generated sequence `first + step * i` (wrapping,
/// like the seeds' `step_iterator`), chosen at run time: what bulk insert's and bulk
/// remove's kernels and the counting partitions read. One branch per key.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{ArrayOrSequence, Keys};
/// let seq = ArrayOrSequence { ptr: core::ptr::null(), first: 2u32, step: 5, sequence: true };
/// assert_eq!(unsafe { seq.key(3) }, 17);
/// let data = [4u64, 9];
/// let arr = ArrayOrSequence { ptr: data.as_ptr(), first: 0, step: 0, sequence: false };
/// assert_eq!(unsafe { arr.key(1) }, 9);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ArrayOrSequence<I> {
    /// The array (unread when `sequence`).
    pub ptr: *const I,
    /// The sequence's first element.
    pub first: I,
    /// The sequence's step.
    pub step: I,
    /// Whether the keys are the sequence.
    pub sequence: bool,
}

impl<I: crate::Idx> Keys<I> for ArrayOrSequence<I> {
    #[inline(always)]
    unsafe fn key(&self, i: usize) -> I {
        if self.sequence {
            self.first
                .wrapping_add(self.step.wrapping_mul(I::from_usize(i)))
        } else {
            *self.ptr.add(i)
        }
    }
}
