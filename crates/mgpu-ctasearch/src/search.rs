//! Binary search and the Merge Path diagonal search (seed 003), lower and upper bound.

use crate::idx::min;
use crate::{Idx, Keys};
use mgpu_core::Comparator;

/// Lower- or upper-bound semantics of a search (the seeds' `MgpuBounds`), as a type
/// ([`Lower`], [`Upper`]: fixed when the kernel is compiled) or as a value ([`Bounds`]:
/// chosen at run time, one select per step, which is what the partition kernels use to
/// halve their instantiations).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{Bounds, Lower, SearchBounds, Upper};
/// assert!(!Lower.is_upper() && Upper.is_upper() && Bounds::Upper.is_upper());
/// ```
pub trait SearchBounds: Copy {
    /// `true` for upper bound.
    fn is_upper(self) -> bool;
}

/// Lower bound: a search for `key` returns the first position whose element is not less
/// than `key`; Merge Path takes A before B on ties (the order of a stable merge).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{binary_search, Lower};
/// let v = [1u32, 3, 3, 5];
/// assert_eq!(unsafe { binary_search(&v[..], 4u32, 3, Lower, mgpu_core::Less) }, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Lower;

/// Upper bound: a search for `key` returns the first position whose element is greater
/// than `key`; Merge Path takes B before A on ties (the load-balancing search's order).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{binary_search, Upper};
/// let v = [1u32, 3, 3, 5];
/// assert_eq!(unsafe { binary_search(&v[..], 4u32, 3, Upper, mgpu_core::Less) }, 3);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Upper;

/// Bounds chosen at run time: [`mgpu_core::Bounds`], re-exported here (this crate's
/// searches take it through [`SearchBounds`]).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{binary_search, Bounds};
/// let v = [2i64, 2, 2];
/// let lo = unsafe { binary_search(&v[..], 3u32, 2, Bounds::Lower, mgpu_core::Less) };
/// let hi = unsafe { binary_search(&v[..], 3u32, 2, Bounds::Upper, mgpu_core::Less) };
/// assert_eq!((lo, hi), (0, 3));
/// ```
pub use mgpu_core::Bounds;

impl SearchBounds for Lower {
    #[inline(always)]
    fn is_upper(self) -> bool {
        false
    }
}

impl SearchBounds for Upper {
    #[inline(always)]
    fn is_upper(self) -> bool {
        true
    }
}

impl SearchBounds for Bounds {
    #[inline(always)]
    fn is_upper(self) -> bool {
        matches!(self, Bounds::Upper)
    }
}

/// Binary search for `key` in the `count` sorted (by `C`) elements of `data`: the lower
/// bound (first `i` with `!comp(data[i], key)`) or the upper bound (first `i` with
/// `comp(key, data[i])`). The seeds' `BinarySearch<Bounds>`.
///
/// # Safety
/// `data` is readable at `0..count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Greater, Less};
/// use mgpu_ctasearch::{binary_search, Lower, Upper};
/// let csr = [0u32, 957, 1008, 2000, 2312];
/// // Seed 002: upper bound minus one maps tile starts 0, 1000, 2000 to rows 0, 1, 3.
/// let rows: Vec<u32> = [0u32, 1000, 2000]
///     .iter()
///     .map(|&k| unsafe { binary_search(&csr[..], 5u32, k, Upper, Less) } - 1)
///     .collect();
/// assert_eq!(rows, [0, 1, 3]);
/// let desc = [9i32, 7, 7, 1];
/// assert_eq!(unsafe { binary_search(&desc[..], 4u32, 7, Lower, Greater) }, 1);
/// ```
#[inline(always)]
pub unsafe fn binary_search<T, K, I, B, C>(data: K, count: I, key: T, bounds: B, _comp: C) -> I
where
    K: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    let mut begin = I::ZERO;
    let mut end = count;
    while begin < end {
        let mid = I::mid(begin, end);
        let k = data.key(mid.to_usize());
        let pred = if bounds.is_upper() {
            !C::compare(&key, &k)
        } else {
            C::compare(&k, &key)
        };
        if pred {
            begin = mid.wrapping_add(I::ONE);
        } else {
            end = mid;
        }
    }
    begin
}

/// Merge Path (seed 003): where the cross-diagonal `diag` (`0 <= diag <= a_count +
/// b_count`) meets the path of a sequential merge of `a` and `b` (both sorted by `C`).
/// Returns how many of the first `diag` merged outputs come from `a`; the other
/// `diag - result` come from `b`.
///
/// With [`Lower`] bounds the merge takes A first on equal keys (a stable merge, what
/// `std::merge` does); with [`Upper`] it takes B first (the load-balancing search).
/// The search takes `log2(min(diag, a_count, b_count, ...))` steps.
///
/// # Safety
/// `a` is readable at `0..a_count` and `b` at `0..b_count`; `diag <= a_count + b_count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::{merge_path, Lower, Upper};
/// let a = [1u32, 2, 2, 4];
/// let b = [2u32, 3];
/// // The merge (A first on ties) starts 1(a) 2(a) 2(a) 2(b): 3 of the first 4 from A.
/// assert_eq!(unsafe { merge_path(&a[..], 4u32, &b[..], 2, 4, Lower, Less) }, 3);
/// // B first on ties: 1(a) 2(b) 2(a) 2(a): still 3 from A, but only 1 of the first 2.
/// assert_eq!(unsafe { merge_path(&a[..], 4u32, &b[..], 2, 2, Upper, Less) }, 1);
/// assert_eq!(unsafe { merge_path(&a[..], 4u32, &b[..], 2, 2, Lower, Less) }, 2);
/// ```
#[inline(always)]
pub unsafe fn merge_path<T, KA, KB, I, B, C>(
    a: KA,
    a_count: I,
    b: KB,
    b_count: I,
    diag: I,
    bounds: B,
    _comp: C,
) -> I
where
    KA: Keys<T>,
    KB: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    let mut begin = if diag > b_count {
        diag.wrapping_sub(b_count)
    } else {
        I::ZERO
    };
    let mut end = min(diag, a_count);
    while begin < end {
        let mid = I::mid(begin, end);
        let a_key = a.key(mid.to_usize());
        let b_key = b.key(diag.wrapping_sub(I::ONE).wrapping_sub(mid).to_usize());
        let pred = if bounds.is_upper() {
            C::compare(&a_key, &b_key)
        } else {
            !C::compare(&b_key, &a_key)
        };
        if pred {
            begin = mid.wrapping_add(I::ONE);
        } else {
            end = mid;
        }
    }
    begin
}
