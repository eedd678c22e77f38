//! Index arithmetic shared by tile-local (`u32`) and global (`u64`) searches.

use core::ops::{BitAnd, Not};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// An index or offset the searches count in: `u32` for tile-local positions (cheap
/// registers), `u64` for global ones. Both are [`mgpu_core::Integer`]s, so they are keys
/// too (the comparators apply to them). Arithmetic wraps, as on the GPU (the load-balancing
/// search relies on `b0 - 1` wrapping when `b0 == 0`).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::Idx;
/// assert_eq!(Idx::wrapping_sub(0u32, 1), u32::MAX);
/// assert_eq!(<u64 as Idx>::mid(10, 15), 12);
/// assert_eq!(Idx::half(7u32), 3);
/// ```
pub trait Idx:
    mgpu_core::Integer + BitAnd<Output = Self> + Not<Output = Self> + sealed::Sealed
{
    /// 1.
    const ONE: Self;
    /// `self + rhs`, wrapping.
    fn wrapping_add(self, rhs: Self) -> Self;
    /// `self - rhs`, wrapping.
    fn wrapping_sub(self, rhs: Self) -> Self;
    /// `self * rhs`, wrapping.
    fn wrapping_mul(self, rhs: Self) -> Self;
    /// `(lo + hi) / 2` for `lo <= hi`, without overflow.
    fn mid(lo: Self, hi: Self) -> Self;
    /// `self / 2`.
    fn half(self) -> Self;
    /// Widened (or truncated on a 32-bit host) to `usize`.
    fn to_usize(self) -> usize;
    /// From `usize`, truncating.
    fn from_usize(v: usize) -> Self;
    /// Widened to `u64`.
    fn to_u64(self) -> u64;
    /// From `u64`, truncating.
    fn from_u64(v: u64) -> Self;
    /// Truncated to `u32`.
    fn to_u32(self) -> u32;
    /// From `u32`.
    fn from_u32(v: u32) -> Self;
}

macro_rules! idx {
    ($($t:ty),*) => {$(
        impl Idx for $t {
            const ONE: Self = 1;
            #[inline(always)]
            fn wrapping_add(self, rhs: Self) -> Self { <$t>::wrapping_add(self, rhs) }
            #[inline(always)]
            fn wrapping_sub(self, rhs: Self) -> Self { <$t>::wrapping_sub(self, rhs) }
            #[inline(always)]
            fn wrapping_mul(self, rhs: Self) -> Self { <$t>::wrapping_mul(self, rhs) }
            #[inline(always)]
            fn mid(lo: Self, hi: Self) -> Self { lo + ((hi - lo) >> 1) }
            #[inline(always)]
            fn half(self) -> Self { self >> 1 }
            #[inline(always)]
            fn to_usize(self) -> usize { self as usize }
            #[inline(always)]
            fn from_usize(v: usize) -> Self { v as $t }
            #[inline(always)]
            fn to_u64(self) -> u64 { self as u64 }
            #[inline(always)]
            fn from_u64(v: u64) -> Self { v as $t }
            #[inline(always)]
            fn to_u32(self) -> u32 { self as u32 }
            #[inline(always)]
            fn from_u32(v: u32) -> Self { v as $t }
        }
    )*};
}

idx!(u32, u64);

/// The smaller of `a` and `b`.
#[inline(always)]
pub(crate) fn min<I: Ord>(a: I, b: I) -> I {
    if b < a {
        b
    } else {
        a
    }
}
