//! Tile ranges from Merge Path partitions: `compute_merge_range` (seeds 001, 004) and the
//! mergesort frames and intervals (seed 004: `FindMergesortFrame`,
//! `FindMergesortInterval`, and the blocksort pass of `CTABlocksortPass`).

use crate::idx::min;
use crate::Idx;

/// The input intervals of one tile (or thread) of a merge-like operation: A is
/// `a0..a1`, B is `b0..b1` (the seeds' `int4 (a0, a1, b0, b1)`).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::MergeRange;
/// let r = MergeRange { a0: 21u64, a1: 38, b0: 9, b1: 22 };
/// assert_eq!((r.a_count(), r.b_count()), (17, 13));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MergeRange<I> {
    /// Start of the A interval.
    pub a0: I,
    /// End of the A interval.
    pub a1: I,
    /// Start of the B interval.
    pub b0: I,
    /// End of the B interval.
    pub b1: I,
}

impl<I: Idx> MergeRange<I> {
    /// `a1 - a0`.
    ///
    /// # Examples
    ///
    /// ```
    /// let r = mgpu_ctasearch::MergeRange { a0: 2u32, a1: 5, b0: 0, b1: 0 };
    /// assert_eq!(r.a_count(), 3);
    /// ```
    #[inline(always)]
    pub fn a_count(&self) -> I {
        self.a1.wrapping_sub(self.a0)
    }
    /// `b1 - b0`.
    ///
    /// # Examples
    ///
    /// ```
    /// let r = mgpu_ctasearch::MergeRange { a0: 0u32, a1: 0, b0: 4, b1: 9 };
    /// assert_eq!(r.b_count(), 5);
    /// ```
    #[inline(always)]
    pub fn b_count(&self) -> I {
        self.b1.wrapping_sub(self.b0)
    }
}

/// The lists one mergesort merge pass works on (the seeds' `int3` of
/// `FindMergesortFrame`): the A list starts at `a0`, the B list at `b0 = a0 + size`, each
/// `size` long (clamp both ends to the element count).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{find_mergesort_frame, MergesortFrame};
/// assert_eq!(find_mergesort_frame(4u32, 6, 7), MergesortFrame { a0: 28, b0: 42, size: 14 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MergesortFrame<I> {
    /// Start of the A list.
    pub a0: I,
    /// Start of the B list.
    pub b0: I,
    /// Length of each list before clamping.
    pub size: I,
}

/// The frame of `block` (a CTA in a global merge pass, or a thread in a blocksort pass)
/// when `coop` of them (a power of two, at least 2) merge two lists of `grain * coop / 2`
/// elements into one; `grain` is `NV` for CTAs, `VT` for threads. The seeds'
/// `FindMergesortFrame(coop, block, nv)`.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::find_mergesort_frame;
/// // coop = 2: blocks 2 and 3 merge [2 nv, 3 nv) with [3 nv, 4 nv).
/// let f = find_mergesort_frame(2u64, 3, 100);
/// assert_eq!((f.a0, f.b0, f.size), (200, 300, 100));
/// ```
#[inline(always)]
pub fn find_mergesort_frame<I: Idx>(coop: I, block: I, grain: I) -> MergesortFrame<I> {
    let start = !(coop.wrapping_sub(I::ONE)) & block;
    let size = grain.wrapping_mul(I::from_u64(coop.to_u64() >> 1));
    let a0 = grain.wrapping_mul(start);
    MergesortFrame {
        a0,
        b0: a0.wrapping_add(size),
        size,
    }
}

/// The input range of `block` in a mergesort merge pass, from its frame and the Merge
/// Path partitions `mp0 = mp[block]`, `mp1 = mp[block + 1]` (A coordinates relative to the
/// frame's A list, as the mergesort partitions store them). `count` is the number of
/// elements being sorted. The seeds' `FindMergesortInterval`.
///
/// The last block of a merge reads its end from the frame, not from `mp1`: that partition
/// belongs to the next merge's coordinate system (where it is 0).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{find_mergesort_frame, find_mergesort_interval, MergeRange};
/// // Two lists of 10 (nv = 10, coop = 2); keys interleave, so block 0 takes 5 + 5.
/// let f = find_mergesort_frame(2u32, 0, 10);
/// let r = find_mergesort_interval(f, 2, 0, 10, 20, 0, 5);
/// assert_eq!(r, MergeRange { a0: 0, a1: 5, b0: 10, b1: 15 });
/// let f = find_mergesort_frame(2u32, 1, 10);
/// let r = find_mergesort_interval(f, 2, 1, 10, 20, 5, 0);
/// assert_eq!(r, MergeRange { a0: 5, a1: 10, b0: 15, b1: 20 });
/// ```
#[inline(always)]
pub fn find_mergesort_interval<I: Idx>(
    frame: MergesortFrame<I>,
    coop: I,
    block: I,
    grain: I,
    count: I,
    mp0: I,
    mp1: I,
) -> MergeRange<I> {
    let diag = grain.wrapping_mul(block).wrapping_sub(frame.a0);
    let a0 = frame.a0.wrapping_add(mp0);
    let mut a1 = min(count, frame.a0.wrapping_add(mp1));
    let b0 = min(count, frame.b0.wrapping_add(diag).wrapping_sub(mp0));
    let mut b1 = min(
        count,
        frame
            .b0
            .wrapping_add(diag)
            .wrapping_add(grain)
            .wrapping_sub(mp1),
    );
    let last = coop.wrapping_sub(I::ONE);
    if last == (last & block) {
        a1 = min(count, frame.a0.wrapping_add(frame.size));
        b1 = min(count, frame.b0.wrapping_add(frame.size));
    }
    MergeRange { a0, a1, b0, b1 }
}

/// The input range of tile `block` of a merge-like operation over A (`a_count`
/// elements) and B (`b_count`) with `nv` outputs per tile, from the Merge Path partitions
/// `mp0 = mp[block]` and `mp1 = mp[block + 1]`. With `coop == 0` (merge, load-balancing
/// search, Bulk Insert...) the tile covers outputs `nv * block ..` and the result is
/// `(mp0, mp1, nv * block - mp0, min(a_count + b_count, nv * (block + 1)) - mp1)`; with a
/// `coop` (a mergesort pass, `b_count` unused) it is [`find_mergesort_interval`]. The
/// seeds' `ComputeMergeRange`.
///
/// # Examples
///
/// Seed 001's Merge Path tile example: 79 work items and 40 objects in tiles of 30
/// (partitions 0, 21, 38, 58, 79); tile 3 starts at A = 58, B = 32.
///
/// ```
/// use mgpu_ctasearch::{compute_merge_range, MergeRange};
/// let mp = [0u64, 21, 38, 58, 79];
/// let r = |t: usize| compute_merge_range(79, 40, t as u64, 0, 30, mp[t], mp[t + 1]);
/// assert_eq!(r(0), MergeRange { a0: 0, a1: 21, b0: 0, b1: 9 });
/// assert_eq!(r(3), MergeRange { a0: 58, a1: 79, b0: 32, b1: 40 });
/// ```
#[inline(always)]
pub fn compute_merge_range<I: Idx>(
    a_count: I,
    b_count: I,
    block: I,
    coop: I,
    nv: I,
    mp0: I,
    mp1: I,
) -> MergeRange<I> {
    if coop != I::ZERO {
        let frame = find_mergesort_frame(coop, block, nv);
        find_mergesort_interval(frame, coop, block, nv, a_count, mp0, mp1)
    } else {
        let gid = nv.wrapping_mul(block);
        let end = min(a_count.wrapping_add(b_count), gid.wrapping_add(nv));
        MergeRange {
            a0: mp0,
            a1: mp1,
            b0: gid.wrapping_sub(mp0),
            b1: end.wrapping_sub(mp1),
        }
    }
}

/// One thread's part of a blocksort merge pass (the ranges `CTABlocksortPass` computes):
/// the lists `a0..a1` and `b0..b1` (tile positions) it merges with its partners, and
/// `diag`, its cross-diagonal from the start of that merge.
///
/// # Examples
///
/// ```
/// let p = mgpu_ctasearch::blocksort_pass(3, 56, 4, 7);
/// assert_eq!((p.a0, p.a1, p.b0, p.b1, p.diag), (0, 14, 14, 28, 21));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BlocksortPass {
    /// Start of the A list.
    pub a0: u32,
    /// End of the A list (= `b0`).
    pub a1: u32,
    /// Start of the B list.
    pub b0: u32,
    /// End of the B list.
    pub b1: u32,
    /// This thread's cross-diagonal, relative to `a0`.
    pub diag: u32,
}

/// Thread `tid`'s lists and cross-diagonal in the blocksort pass where `coop` threads (a
/// power of two, at least 2) merge pairs of sorted lists of `vt * coop / 2` keys, in a
/// tile of `count` keys (positions clamp to `count`). The thread then runs a
/// [`Lower`](crate::Lower) [`merge_path`](crate::merge_path) at `diag` over the two lists
/// and a [`serial_merge_guarded`](crate::serial_merge_guarded) of `vt` outputs.
///
/// # Examples
///
/// Seed 004's table for `NT = 8, VT = 7` (a full tile of 56), thread 5:
///
/// ```
/// use mgpu_ctasearch::blocksort_pass;
/// let p2 = blocksort_pass(5, 56, 2, 7);
/// assert_eq!((p2.a0, p2.b0, p2.b1, p2.diag), (28, 35, 42, 7));
/// let p8 = blocksort_pass(5, 56, 8, 7);
/// assert_eq!((p8.a0, p8.b0, p8.b1, p8.diag), (0, 28, 56, 35));
/// ```
#[inline(always)]
pub fn blocksort_pass(tid: u32, count: u32, coop: u32, vt: u32) -> BlocksortPass {
    let list = !(coop - 1) & tid;
    let diag = min(count, vt * ((coop - 1) & tid));
    let start = vt * list;
    let a0 = min(count, start);
    let b0 = min(count, start + vt * (coop / 2));
    let b1 = min(count, start + vt * coop);
    BlocksortPass {
        a0,
        a1: b0,
        b0,
        b1,
        diag,
    }
}
