//! K-ary searches: one thread, `K - 1` independent probes a round, so a search over `n`
//! positions takes `ceil(log_K(n + 1))` round trips to memory instead of the bisection's
//! `ceil(log2(n + 1))`, for `K - 1` times the loads a round. For the partition kernels,
//! whose searches are chains of dependent loads with the rest of the GPU idle.

use crate::search::{
    merge_path_decides, merge_path_range, range_len, search_goes_right, SearchBounds,
};
use crate::{Idx, Keys};
use mgpu_core::Comparator;

/// The largest `log2(K)` the k-ary searches take (`K = 8`: 7 probes a round).
pub const KARY_MAX_LOG2: u32 = 3;

/// `begin + floor(j * len / 2^log2k)`, exact for every `len` (no overflow of `j * len`).
#[inline(always)]
fn probe_at<I: Idx>(begin: I, len: I, j: u32, log2k: u32) -> I {
    let q = len.to_u64() >> log2k;
    let r = len.to_u64() & ((1 << log2k) - 1);
    let j = j as u64;
    I::from_u64(begin.to_u64() + q * j + ((r * j) >> log2k))
}

/// The partition point of a predicate on `[begin, end)`: the first position where
/// `goes_right` is false, when it is true then false (monotone). Each round loads the
/// keys of `K - 1 = 2^LOG2K - 1` evenly spaced probes with `load`, all issued before the
/// first is used, decides each with `goes_right`, and keeps the range between the last
/// probe that goes right and the first that does not: `ceil(log_K(len + 1))` rounds.
///
/// On a monotone predicate the result is the bisection's ([`crate::binary_search`],
/// [`crate::merge_path`]): the boundary is unique. On any other it is some position in
/// `[begin, end]`, deterministic.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::kary_partition_point;
/// let v: Vec<u32> = (0..1000).map(|i| i * 3).collect();
/// // The first element not less than 1000: 1002 at position 334.
/// let p = kary_partition_point::<u32, u32, 3>(0, 1000, |i| v[i as usize], |_, x| x < 1000);
/// assert_eq!(p, 334);
/// assert_eq!(kary_partition_point::<u32, u32, 2>(5, 5, |i| v[i as usize], |_, _| true), 5);
/// ```
#[inline(always)]
pub fn kary_partition_point<I: Idx, V: Copy, const LOG2K: u32>(
    begin: I,
    end: I,
    load: impl Fn(I) -> V,
    goes_right: impl Fn(I, V) -> bool,
) -> I {
    const { assert!(LOG2K >= 1 && LOG2K <= KARY_MAX_LOG2) };
    let k = 1u32 << LOG2K;
    let mut lo = begin;
    let mut len = range_len(begin, end);
    while len != I::ZERO {
        // Probe j (1 to k - 1) at lo + floor(j * len / k): inside [lo, lo + len). (Slots
        // past k - 1 repeat probe k - 1 and fold away: the same load.)
        let at = |j: u32| probe_at(lo, len, j.min(k - 1), LOG2K);
        let v: [V; 7] = core::array::from_fn(|i| load(at(i as u32 + 1)));
        // The first probe that does not go right (k: none); every probe before it does.
        let mut first_left = k;
        for i in (0..7).rev() {
            let j = i as u32 + 1;
            if j < k && !goes_right(at(j), v[i]) {
                first_left = j;
            }
        }
        let new_lo = if first_left == 1 {
            lo
        } else {
            at(first_left - 1).wrapping_add(I::ONE)
        };
        let new_end = if first_left == k {
            lo.wrapping_add(len)
        } else {
            at(first_left)
        };
        lo = new_lo;
        len = range_len(new_lo, new_end);
    }
    lo
}

/// [`kary_partition_point`] with `log2(K)` chosen at run time (1 to [`KARY_MAX_LOG2`],
/// clamped): one specialised search per K, so no probe is loaded twice.
#[inline(always)]
fn kary_dispatch<I: Idx, V: Copy>(
    begin: I,
    end: I,
    log2k: u32,
    load: impl Fn(I) -> V,
    goes_right: impl Fn(I, V) -> bool,
) -> I {
    match log2k {
        0 | 1 => kary_partition_point::<I, V, 1>(begin, end, load, goes_right),
        2 => kary_partition_point::<I, V, 2>(begin, end, load, goes_right),
        _ => kary_partition_point::<I, V, 3>(begin, end, load, goes_right),
    }
}

/// [`crate::binary_search`] as a k-ary search ([`kary_partition_point`], `2^log2k - 1`
/// probes a round): the same result on sorted data.
///
/// # Safety
/// `data` is readable at `0..count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::{binary_search_kary, Lower, Upper};
/// let v = [1u32, 3, 3, 5];
/// assert_eq!(unsafe { binary_search_kary(&v[..], 4u32, 3, 2, Lower, Less) }, 1);
/// assert_eq!(unsafe { binary_search_kary(&v[..], 4u32, 3, 2, Upper, Less) }, 3);
/// ```
#[inline(always)]
pub unsafe fn binary_search_kary<T: Copy, K, I, B, C>(
    data: K,
    count: I,
    key: T,
    log2k: u32,
    bounds: B,
    _comp: C,
) -> I
where
    K: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    kary_dispatch::<I, T>(
        I::ZERO,
        count,
        log2k,
        |m| data.key(m.to_usize()),
        |_, k| search_goes_right::<T, B, C>(&key, &k, bounds),
    )
}

/// [`crate::merge_path`] as a k-ary search ([`kary_partition_point`], `2^log2k - 1`
/// probes a round, each loading `a[m]` and `b[diag - 1 - m]`): the same result on sorted
/// data.
///
/// # Safety
/// `a` is readable at `0..a_count` and `b` at `0..b_count`; `diag <= a_count + b_count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::{merge_path_kary, Counting, Upper};
/// // Seed 001's scan of counts 2, 5, 3, 0, 1 against the work items 0..11: the tile of
/// // 8 merge steps ends after 6 work items.
/// let scan = [0u32, 2, 7, 10, 10];
/// assert_eq!(unsafe { merge_path_kary(Counting(0u32), 11u32, &scan[..], 5, 8, 3, Upper, Less) }, 6);
/// ```
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn merge_path_kary<T: Copy, KA, KB, I, B, C>(
    a: KA,
    a_count: I,
    b: KB,
    b_count: I,
    diag: I,
    log2k: u32,
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
    kary_dispatch::<I, (T, T)>(
        begin,
        end,
        log2k,
        |m| {
            let bi = diag.wrapping_sub(I::ONE).wrapping_sub(m);
            (a.key(m.to_usize()), b.key(bi.to_usize()))
        },
        |_, (a_key, b_key)| merge_path_decides::<T, B, C>(&a_key, &b_key, bounds),
    )
}
