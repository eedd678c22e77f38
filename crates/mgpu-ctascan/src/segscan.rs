//! The CTA segmented scan of seed 002 (`CTASegScan`, `DeviceFindSegScanDelta`).
//!
//! Each thread contributes one value `x` and a flag "this thread contains a segment end";
//! `x` is the reduction of the **last** segment the thread covers (the part after its last
//! end, or the identity when its last element ends a segment). A thread's **carry-in** is
//! the reduction of the carry-outs of the preceding threads back to, and including, the
//! nearest thread to its left that contains a segment end: the partial reduction of the
//! segment that enters it from the left. The CTA's **carry-out** is that of a virtual
//! thread `NT`: the reduction of the segment that leaves the tile on the right.
//!
//! Two steps, as in the seed:
//! 1. [`find_seg_scan_delta`]: `tid_delta = tid - start`, where `start` is the nearest
//!    thread at or left of `tid` whose flag is set (0 when none), found with one warp
//!    ballot per warp, a ballot over the warp words and count-leading-zeros.
//! 2. [`seg_scan_delta`]: an inclusive scan that adds the value of thread `tid - offset`
//!    only while `tid_delta >= offset`; the carry-in is the predecessor's inclusive value.
//!
//! The seed runs step 2 as `log2 NT` rounds through shared memory, a barrier each. Here the
//! rounds inside a warp are shuffles (`tid_delta >= offset` is the same condition), and
//! the warps are joined by one segmented scan of the per-warp results in warp 0: two
//! barriers for any `NT`. The values are the seed's, level for level within a warp.

use mgpu_core::{shfl_up, AssociativeOp, Cta, Element, WARP_SIZE};

/// Bytes of shared memory [`cta_seg_scan`] needs for `nt` threads and elements of
/// `elem_bytes` bytes: the delta search's `2 * nt / 32` words and the scan's `nt / 32`
/// values and `nt / 32` flag words reuse one area. [`find_seg_scan_delta`] alone needs
/// `8 * nt / 32` bytes, [`seg_scan_delta`] alone `(elem_bytes + 4) * nt / 32`.
///
/// ```
/// assert_eq!(mgpu_ctascan::seg_scan_shared_bytes(256, 8), 96);
/// assert_eq!(mgpu_ctascan::seg_scan_shared_bytes(256, 4), 64);
/// ```
pub const fn seg_scan_shared_bytes(nt: usize, elem_bytes: usize) -> usize {
    let nw = nt / WARP_SIZE as usize;
    let delta = 2 * nw * 4;
    let values = nw * (elem_bytes + 4);
    if delta > values {
        delta
    } else {
        values
    }
}

/// The member mask of lanes `0..n` of a warp (`n <= 32`).
#[inline(always)]
const fn low_lanes(n: usize) -> u32 {
    if n >= 32 {
        !0
    } else {
        (1u32 << n) - 1
    }
}

/// Seed 002's `DeviceFindSegScanDelta`: returns `tid - start`, where `start` is the nearest
/// thread at or to the left of this one whose `flag` is set, or 0 when there is none.
///
/// Contains three barriers (the last one after its final read of `delta_shared`, so the
/// caller may reuse the area at once).
///
/// # Safety
/// `delta_shared` holds `2 * NT / 32` words of shared memory; all `NT` threads call it
/// (`NT` a multiple of 32, at most 1024).
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctascan::find_seg_scan_delta;
/// let mut out = vec![0u32; 64];
/// let p = out.as_mut_ptr() as usize;
/// sim::launch(1, 64, 16, &|cta: &sim::SimCta| unsafe {
///     let flag = cta.tid() == 3 || cta.tid() == 40;
///     let d = find_seg_scan_delta::<_, 64>(cta, flag, cta.shared(0));
///     *(p as *mut u32).add(cta.tid() as usize) = d;
/// });
/// assert_eq!(&out[..5], &[0, 1, 2, 0, 1]);
/// assert_eq!(out[39], 36);
/// assert_eq!(out[41], 1);
/// ```
#[inline(always)]
pub unsafe fn find_seg_scan_delta<C: Cta, const NT: usize>(
    cta: &C,
    flag: bool,
    delta_shared: *mut u32,
) -> u32 {
    let nw = NT / WARP_SIZE as usize;
    let tid = cta.tid();
    let warp = cta.warp() as usize;
    let lane = cta.lane();
    let warp_mask = u32::MAX >> (31 - lane); // lanes 0..=lane: inclusive search
    let cta_mask = 0x7fff_ffffu32 >> (31 - lane); // lanes 0..lane: exclusive search

    let warp_bits = cta.ballot(!0, flag);
    if lane == 0 {
        *delta_shared.add(warp) = warp_bits;
    }
    cta.sync();

    if (tid as usize) < nw {
        // Lane w of warp 0 finds, for warp w, the last flagged thread of the warps left
        // of it: the rightmost warp with a flag (ballot + clz), then its rightmost lane.
        let cta_bits = cta.ballot(low_lanes(nw), *delta_shared.add(tid as usize) != 0);
        let left = cta_mask & cta_bits;
        let start = if left != 0 {
            let w = 31 - left.leading_zeros();
            let bits = *delta_shared.add(w as usize);
            31 - bits.leading_zeros() + 32 * w
        } else {
            0
        };
        *delta_shared.add(nw + tid as usize) = start;
    }
    cta.sync();

    // The nearest flag at or left of this lane in the warp, else the warps' answer.
    let own = warp_mask & warp_bits;
    let start = if own != 0 {
        31 - own.leading_zeros() + (tid & !31)
    } else {
        *delta_shared.add(nw + warp)
    };
    cta.sync();
    tid - start
}

/// Seed 002's `CTASegScan::SegScanDelta`: the segmented scan of the threads' carry-out
/// values `x`, given each thread's `tid_delta` from [`find_seg_scan_delta`]. Returns
/// `(carry_in, carry_out)`: this thread's carry-in (the identity for thread 0) and the
/// CTA's carry-out (in every thread).
///
/// Contains two barriers; `shared` may be reused after the caller's next barrier.
///
/// # Safety
/// `shared` holds `NT / 32` elements followed by `NT / 32` `u32` words of shared memory
/// ([`seg_scan_shared_bytes`]), aligned for `T`; all `NT` threads call it.
///
/// # Examples
/// See [`cta_seg_scan`].
#[inline(always)]
pub unsafe fn seg_scan_delta<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    tid_delta: u32,
    x: T,
    shared: *mut T,
) -> (T, T) {
    let nw = NT / WARP_SIZE as usize;
    let lane = cta.lane();
    let warp = cta.warp() as usize;

    // Inside the warp: add lane - offset's value while the segment reaches back that far.
    let mut x = x;
    let mut offset = 1;
    while offset < WARP_SIZE {
        let y = shfl_up(cta, !0, x, offset, WARP_SIZE);
        if lane >= offset && tid_delta >= offset {
            x = Op::apply(y, x);
        }
        offset *= 2;
    }

    // Across warps: lane 31 of each warp publishes the warp's value for the segment that
    // leaves it, and whether that segment starts inside the warp (a flag in the warp).
    let flags = shared.add(nw) as *mut u32;
    if lane == WARP_SIZE - 1 {
        *shared.add(warp) = x;
        *flags.add(warp) = (tid_delta < WARP_SIZE) as u32;
    }
    cta.sync();
    if (cta.tid() as usize) < nw {
        // Warp 0 scans the warp values segmentally: (s, f) pairs, where a set f stops
        // the values from the left.
        let mask = low_lanes(nw);
        let mut s = *shared.add(lane as usize);
        let mut f = *flags.add(lane as usize);
        let mut d = 1;
        while (d as usize) < nw {
            let y = shfl_up(cta, mask, s, d, WARP_SIZE);
            let fy = cta.shfl_up_u32(mask, f, d, WARP_SIZE);
            if lane >= d && f == 0 {
                s = Op::apply(y, s);
                f = fy;
            }
            d *= 2;
        }
        *shared.add(lane as usize) = s;
    }
    cta.sync();

    // Threads whose segment starts in an earlier warp add that warp's scan.
    let warp_carry = if warp > 0 {
        *shared.add(warp - 1)
    } else {
        Op::identity()
    };
    if warp > 0 && tid_delta > lane {
        x = Op::apply(warp_carry, x);
    }
    // The carry-in is the predecessor's inclusive value.
    let up = shfl_up(cta, !0, x, 1, WARP_SIZE);
    let carry_in = if lane > 0 { up } else { warp_carry };
    (carry_in, *shared.add(nw - 1))
}

/// Seed 002's `CTASegScan::SegScan`: [`find_seg_scan_delta`] then [`seg_scan_delta`].
/// `x` is the reduction of the last segment this thread covers and `flag` says whether the
/// thread contains a segment end. Returns `(carry_in, carry_out)`.
///
/// # Safety
/// `shared` holds [`seg_scan_shared_bytes`]`(NT, size_of::<T>())` bytes of shared memory,
/// 8-byte aligned; all `NT` threads call it. It may be reused after the caller's next
/// barrier.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, Plus};
/// use mgpu_ctascan::{cta_seg_scan, seg_scan_shared_bytes};
/// let mut out = vec![(0u32, 0u32); 64];
/// let p = out.as_mut_ptr() as usize;
/// sim::launch(1, 64, seg_scan_shared_bytes(64, 4), &|cta: &sim::SimCta| unsafe {
///     // every thread carries 1; threads 10 and 40 contain a segment end
///     let flag = cta.tid() == 10 || cta.tid() == 40;
///     let r = cta_seg_scan::<_, u32, Plus, 64>(cta, 1, flag, cta.shared_base());
///     *(p as *mut (u32, u32)).add(cta.tid() as usize) = r;
/// });
/// assert_eq!(out[10], (10, 24)); // threads 0..10 carry into 10; 40..64 leave the tile
/// assert_eq!(out[11], (1, 24));  // only thread 10's carry-out enters thread 11
/// assert_eq!(out[45], (5, 24));
/// ```
#[inline(always)]
pub unsafe fn cta_seg_scan<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    x: T,
    flag: bool,
    shared: *mut u8,
) -> (T, T) {
    let tid_delta = find_seg_scan_delta::<C, NT>(cta, flag, shared as *mut u32);
    seg_scan_delta::<C, T, Op, NT>(cta, tid_delta, x, shared as *mut T)
}

/// The reduction of the last segment of a thread's values and whether the thread has a
/// segment end: bit `i` of `end_flags` set means element `i` is the last of its segment.
/// The first element of the result is the thread's carry-out (the identity when its last
/// element ends a segment).
///
/// ```
/// use mgpu_core::Plus;
/// // segments ..2] [3..4] [5..: carry-out 5 + 6
/// assert_eq!(mgpu_ctascan::thread_seg_carry_out::<u32, Plus, 7>(&[0, 1, 2, 3, 4, 5, 6], 0b1_0100), (11, true));
/// assert_eq!(mgpu_ctascan::thread_seg_carry_out::<u32, Plus, 2>(&[1, 2], 0b10), (0, true));
/// ```
#[inline(always)]
pub fn thread_seg_carry_out<T: Element, Op: AssociativeOp<T>, const VT: usize>(
    x: &[T; VT],
    end_flags: u32,
) -> (T, bool) {
    let mut c = Op::identity();
    for (i, v) in x.iter().enumerate() {
        c = Op::apply(c, *v);
        if (end_flags >> i) & 1 != 0 {
            c = Op::identity();
        }
    }
    (c, end_flags & low_lanes(VT) != 0)
}

/// CTA segmented scan of a tile in thread order: thread `tid` holds elements
/// `tid * VT + i` in `x`, and bit `i` of its `end_flags` marks element `tid * VT + i` as the
/// last of its segment. Returns this thread's segmented scan values (inclusive or
/// exclusive, restarting after every end) and the tile's carry-out (the reduction of the
/// segment that leaves the tile; the identity when the last element ends a segment).
///
/// For a partial tile, give the positions past the end the identity and no flags.
///
/// # Safety
/// `shared` holds [`seg_scan_shared_bytes`]`(NT, size_of::<T>())` bytes, 8-byte aligned;
/// all `NT` threads call it; `VT <= 32`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, Plus};
/// use mgpu_ctascan::{cta_seg_scan_tile, seg_scan_shared_bytes, ScanKind};
/// let mut out = vec![0u32; 96];
/// let p = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, seg_scan_shared_bytes(32, 4), &|cta: &sim::SimCta| unsafe {
///     // all ones; segments end at elements 4 and 50 (thread 1 slot 1, thread 16 slot 2)
///     let flags = match cta.tid() { 1 => 0b010, 16 => 0b100, _ => 0 };
///     let (y, carry) = cta_seg_scan_tile::<_, u32, Plus, 32, 3>(cta, &[1; 3], flags, cta.shared_base(), ScanKind::Inclusive);
///     assert_eq!(carry, 96 - 51);
///     for i in 0..3 { *(p as *mut u32).add(3 * cta.tid() as usize + i) = y[i]; }
/// });
/// assert_eq!(&out[..7], &[1, 2, 3, 4, 5, 1, 2]);
/// assert_eq!(out[50], 46);
/// assert_eq!(out[51], 1);
/// ```
#[inline(always)]
pub unsafe fn cta_seg_scan_tile<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    x: &[T; VT],
    end_flags: u32,
    shared: *mut u8,
    kind: crate::ScanKind,
) -> ([T; VT], T) {
    const { assert!(VT <= 32, "end flags are one u32: VT <= 32") };
    let (last, has_end) = thread_seg_carry_out::<T, Op, VT>(x, end_flags);
    let (carry_in, carry_out) = cta_seg_scan::<C, T, Op, NT>(cta, last, has_end, shared);
    let mut c = carry_in;
    let y = core::array::from_fn(|i| {
        let exc = c;
        c = Op::apply(c, x[i]);
        let out = if kind == crate::ScanKind::Inclusive {
            c
        } else {
            exc
        };
        if (end_flags >> i) & 1 != 0 {
            c = Op::identity();
        }
        out
    });
    (y, carry_out)
}
