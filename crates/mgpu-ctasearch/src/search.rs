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
pub unsafe fn binary_search<T, K, I, B, C>(data: K, count: I, key: T, bounds: B, comp: C) -> I
where
    K: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    bisect(I::ZERO, count, |mid| {
        search_probe(data, &key, bounds, comp, mid).0
    })
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
    let (begin, end) = merge_path_range(a_count, b_count, diag);
    bisect(begin, end, |mid| {
        let (a_key, b_key) = merge_path_keys(a, b, diag, mid);
        merge_path_decides::<T, B, C>(&a_key, &b_key, bounds)
    })
}

// The pieces both the serial searches above and the cooperative ones (`crate::coop`) are
// made of, so that they probe the same positions with the same predicates and agree bit
// for bit on every input, sorted or not.

/// The bisection every search runs: while `begin < end`, probe `mid = (begin + end) / 2`
/// and continue right of it (`begin = mid + 1`) when the probe says so, else left of it
/// (`end = mid`). Returns the final `begin` and the value the last right-going probe
/// returned with its decision (`none` when no probe went right, i.e. the result is the
/// initial `begin`): that probe was at `result - 1`. On a monotone predicate (true, then
/// false) the result is the first position where it is false; on any other it is still
/// the end of this exact sequence of probes, which [`crate::coop`] reproduces.
///
/// The range is kept as `begin` and a length (`mid = begin + len / 2`, the same position):
/// with `begin` and `end`, LLVM keeps two copies of each across the loop.
#[inline(always)]
pub(crate) fn bisect_carry<I: Idx, V: Copy>(
    mut begin: I,
    end: I,
    none: V,
    mut probe: impl FnMut(I) -> (bool, V),
) -> (I, V) {
    let mut left = none;
    let mut len = range_len(begin, end);
    while len != I::ZERO {
        let (right, v) = probe(begin.wrapping_add(len.half()));
        (begin, len) = step(begin, len, right);
        if right {
            left = v;
        }
    }
    (begin, left)
}

/// The length of `[begin, end)`, 0 when `end <= begin` (where the bisection does not run).
#[inline(always)]
pub(crate) fn range_len<I: Idx>(begin: I, end: I) -> I {
    if begin < end {
        end.wrapping_sub(begin)
    } else {
        I::ZERO
    }
}

/// One bisection step of the non-empty range at `begin` of `len`, whose probe at
/// `begin + len / 2` decided `right`: `[mid + 1, end)` or `[begin, mid)`.
#[inline(always)]
pub(crate) fn step<I: Idx>(begin: I, len: I, right: bool) -> (I, I) {
    let half = len.half();
    if right {
        (
            begin.wrapping_add(half).wrapping_add(I::ONE),
            len.wrapping_sub(half).wrapping_sub(I::ONE),
        )
    } else {
        (begin, half)
    }
}

/// [`bisect_carry`] without a value.
#[inline(always)]
pub(crate) fn bisect<I: Idx>(begin: I, end: I, mut goes_right: impl FnMut(I) -> bool) -> I {
    bisect_carry(begin, end, (), |mid| (goes_right(mid), ())).0
}

/// [`binary_search`]'s probe at `mid`: whether the search goes right of it (lower bound
/// `comp(data[mid], key)`, upper bound `!comp(key, data[mid])`), and `data[mid]` (one
/// load).
///
/// # Safety
/// `data` is readable at `mid`.
#[inline(always)]
pub(crate) unsafe fn search_probe<T, K, I, B, C>(
    data: K,
    key: &T,
    bounds: B,
    _comp: C,
    mid: I,
) -> (bool, T)
where
    K: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    let k = data.key(mid.to_usize());
    (search_goes_right::<T, B, C>(key, &k, bounds), k)
}

/// A search's decision at a probe that read `k`: go right of it (lower bound
/// `comp(k, key)`, upper bound `!comp(key, k)`).
#[inline(always)]
pub(crate) fn search_goes_right<T, B: SearchBounds, C: Comparator<T>>(
    key: &T,
    k: &T,
    bounds: B,
) -> bool {
    if bounds.is_upper() {
        !C::compare(key, k)
    } else {
        C::compare(k, key)
    }
}

/// [`merge_path`]'s search range on cross-diagonal `diag`: `[diag - b_count, min(diag,
/// a_count))`, the start clamped at 0.
#[inline(always)]
pub(crate) fn merge_path_range<I: Idx>(a_count: I, b_count: I, diag: I) -> (I, I) {
    let begin = if diag > b_count {
        diag.wrapping_sub(b_count)
    } else {
        I::ZERO
    };
    (begin, min(diag, a_count))
}

/// The two keys [`merge_path`]'s probe at `mid` reads, `a[mid]` and `b[diag - 1 - mid]`
/// (independent loads, issued together), for [`merge_path_decides`].
///
/// # Safety
/// `a` is readable at `mid` and `b` at `diag - 1 - mid`.
#[inline(always)]
pub(crate) unsafe fn merge_path_keys<T, KA: Keys<T>, KB: Keys<T>, I: Idx>(
    a: KA,
    b: KB,
    diag: I,
    mid: I,
) -> (T, T) {
    let a_key = a.key(mid.to_usize());
    let b_key = b.key(diag.wrapping_sub(I::ONE).wrapping_sub(mid).to_usize());
    (a_key, b_key)
}

/// Merge Path's decision at a probe that read `a[mid]` and `b[diag - 1 - mid]`
/// ([`merge_path_keys`]): take the A key first, i.e. go right (lower bounds `!comp(b, a)`,
/// upper bounds `comp(a, b)`).
#[inline(always)]
pub(crate) fn merge_path_decides<T, B: SearchBounds, C: Comparator<T>>(
    a_key: &T,
    b_key: &T,
    bounds: B,
) -> bool {
    if bounds.is_upper() {
        C::compare(a_key, b_key)
    } else {
        !C::compare(b_key, a_key)
    }
}
