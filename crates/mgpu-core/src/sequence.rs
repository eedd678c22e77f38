//! Generated sequences (the seeds' `counting_iterator` and step iterators).

use crate::Element;

/// An element type with generated sequences: `first + step * i` (wrapping for integers,
/// rounded as `first + step * (i as T)` for floats), the same on every backend. Kernels
/// that accept "an array or a generated sequence" read values through it.
///
/// # Examples
///
/// ```
/// use mgpu_core::Sequence;
/// assert_eq!(i32::sequence(5, -2, 3), -1);
/// assert_eq!(u32::sequence(u32::MAX, 1, 2), 1); // wraps
/// assert_eq!(f64::sequence(0.5, 0.25, 4), 1.5);
/// ```
pub trait Sequence: Element {
    /// `first + step * i`.
    fn sequence(first: Self, step: Self, i: u64) -> Self;
}

macro_rules! seq_int {
    ($($t:ty),*) => {$(
        impl Sequence for $t {
            #[inline(always)]
            fn sequence(first: Self, step: Self, i: u64) -> Self {
                first.wrapping_add(step.wrapping_mul(i as $t))
            }
        }
    )*};
}
seq_int!(i32, u32, i64, u64);

macro_rules! seq_float {
    ($($t:ty),*) => {$(
        impl Sequence for $t {
            #[inline(always)]
            fn sequence(first: Self, step: Self, i: u64) -> Self {
                first + step * (i as $t)
            }
        }
    )*};
}
seq_float!(f32, f64);
