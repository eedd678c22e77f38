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
