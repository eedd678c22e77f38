//! The segmented reduction for long segments, without partitions or a spine: a warp a
//! segment ([`warp_segments`]), and the segments too long for one warp split into pieces
//! over all the CTAs ([`long_segments`]), with the CSR checks fused in (DESIGN §5).
//!
//! A warp reads its segment's two starts, checks them as the tiles do (the first start
//! 0, each pair non-decreasing, the last start at most `total`), and folds the segment's
//! values 32 lanes at a time, `VT` values a lane in flight. For an operator whose operands
//! may be folded in any order ([`AssociativeOp::COMMUTATIVE`]) each lane folds its own
//! values (every 32nd) and the lanes are joined at the end: the association differs from
//! the tiles' (integer results are the same bits; floats round differently) but depends
//! only on the segment, so every run gives the same bits. Any other operator is folded in
//! segment order, 32 values at a time by a shuffle tree.
//!
//! A segment of more than `args.nv` values is not folded by its warp: the warp takes
//! numbers for its pieces of `args.nv` values (an atomic count), and
//! [`long_segments`] (a dependent launch) folds the pieces on all its CTAs (a commutative
//! operator's piece with coalesced strided loads, any other's in order), and the last CTA
//! to finish a segment's pieces folds their partials in order, so the result is the same
//! bits on every run.

use crate::device::{align16, SegReduceArgs, ERROR_FIRST, ERROR_TOTAL, ERROR_UNSORTED};
use mgpu_core::{shfl_down, shfl_idx, AssociativeOp, Cta, Element, WARP_SIZE};
use mgpu_ctascan::{cta_scan, cta_scan_shared_len, warp_reduce, ScanKind};
use mgpu_ctasearch::Idx;

/// Segment `s`'s value range `(begin, end)`, `end` the next start (or `total` for the
/// last), and the fault in its starts (0 if none): the checks of the tiles.
///
/// # Safety
/// `s < args.num_segments` and `args.csr` readable there (and at `s + 1` when it exists).
#[inline(always)]
unsafe fn segment<T, I: Idx>(args: &SegReduceArgs<T, I>, s: u64) -> (u64, u64, u32) {
    let (n, total) = (args.num_segments, args.total);
    let b = (*args.csr.add(s as usize)).to_u64();
    let last = s + 1 == n;
    let e = if last {
        total
    } else {
        (*args.csr.add(s as usize + 1)).to_u64()
    };
    let mut bad = 0;
    if s == 0 && b != 0 {
        bad |= ERROR_FIRST;
    }
    if !last && e < b {
        bad |= ERROR_UNSORTED;
    }
    if last && b > total {
        bad |= ERROR_TOTAL;
    }
    (b, e, bad)
}

/// The warps: warp `w` of the grid folds segments `w, w + warps, ...` into `output`
/// (the identity for an empty one), `VT` values a lane in flight, and lists each segment
/// of more than `args.nv` values for [`long_segments`] instead (`long_count` zeroed
/// before the launch). A warp whose segment's starts are faulty
/// raises the fault and reads none of its values; a segment reaching past `total` (a
/// later start faulty) is skipped, its fault raised by another warp.
///
/// # Safety
/// `csr` readable at `0..num_segments`, `data` at `0..total`, `output` writable at
/// `0..num_segments`, `error` a word; `long_count` a zeroed word; `long_segs`,
/// `long_done` and `piece_owner` writable at `0..2 * (total / nv) + 2` (the most pieces
/// the listed segments can have). `NT` a multiple of 32.
///
/// # Examples
///
/// Segments of lengths 3, 0 and 2, one warp each.
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::{device::SegReduceArgs, warps::warp_segments};
/// let (data, csr) = ([1i32, 2, 3, 10, 20], [0u32, 3, 3]);
/// let (mut out, mut err, mut count) = ([0i32; 3], [0u32], [0u32]);
/// let args = SegReduceArgs {
///     data: data.as_ptr(), total: 5, csr: csr.as_ptr(), num_segments: 3, nv: 64,
///     output: out.as_mut_ptr(), error: err.as_mut_ptr(), long_count: count.as_mut_ptr(),
///     ..Default::default()
/// };
/// sim::launch(1, 96, 0, &|cta: &sim::SimCta| unsafe {
///     warp_segments::<_, i32, u32, Plus, 96, 2>(cta, &args)
/// });
/// assert_eq!((out, err), ([6, 0, 30], [0]));
/// ```
///
/// An operator that is not commutative (the 2x2 matrix product) is folded in order.
///
/// ```
/// use mgpu_core::{sim, AssociativeOp, BinaryOp, Mat2Mul};
/// use mgpu_segreduce::{device::SegReduceArgs, warps::warp_segments};
/// let data: Vec<u64> = (1..=40u64).map(|i| i * 0x0001_0003_0005_0007).collect();
/// let (csr, mut out, mut err, mut count) = ([0u32], [0u64], [0u32], [0u32]);
/// let args = SegReduceArgs {
///     data: data.as_ptr(), total: 40, csr: csr.as_ptr(), num_segments: 1, nv: 64,
///     output: out.as_mut_ptr(), error: err.as_mut_ptr(), long_count: count.as_mut_ptr(),
///     ..Default::default()
/// };
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     warp_segments::<_, u64, u32, Mat2Mul, 32, 2>(cta, &args)
/// });
/// let identity = <Mat2Mul as AssociativeOp<u64>>::identity();
/// assert_eq!(out[0], data.iter().fold(identity, |a, &x| Mat2Mul::apply(a, x)));
/// ```
#[inline(always)]
pub unsafe fn warp_segments<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    let lane = cta.lane();
    let per_cta = (NT / WARP_SIZE as usize) as u64;
    let warps = cta.grid() as u64 * per_cta;
    let mut s = cta.block() as u64 * per_cta + cta.warp() as u64;
    while s < args.num_segments {
        let (b, e, bad) = segment(args, s);
        if bad != 0 {
            if lane == 0 {
                cta.raise_error(args.error, bad);
            }
        } else if e > args.total {
            // A later start is past `total`: its warp (or a decreasing pair's) raises it.
        } else if e - b > args.nv {
            list_long(cta, args, s, b, e);
        } else {
            let r = if Op::COMMUTATIVE {
                fold_lanes::<C, T, Op, VT>(cta, args.data, b, e)
            } else {
                fold_in_order::<C, T, Op>(cta, args.data, b, e)
            };
            if lane == 0 {
                *args.output.add(s as usize) = r;
            }
        }
        s += warps;
    }
    cta.launch_dependents(); // the long segments' kernel may start its CTAs
}

/// Each lane folds values `b + lane`, `b + lane + 32`, ... (`VT` in flight), then the
/// lanes are joined: the warp's result (in lane 0).
#[inline(always)]
unsafe fn fold_lanes<C: Cta, T: Element, Op: AssociativeOp<T>, const VT: usize>(
    cta: &C,
    data: *const T,
    b: u64,
    e: u64,
) -> T {
    let lane = cta.lane() as u64;
    let step = (WARP_SIZE as usize * VT) as u64;
    let mut acc = Op::identity();
    let mut at = b;
    while at < e {
        let mut x = [Op::identity(); VT];
        for (k, v) in x.iter_mut().enumerate() {
            let i = at + (WARP_SIZE as usize * k) as u64 + lane;
            *v = mgpu_core::load_streaming_or(data.wrapping_add(i as usize), i < e, *v);
        }
        for &v in x.iter() {
            acc = Op::apply(acc, v);
        }
        at += step;
    }
    warp_reduce::<C, T, Op>(cta, acc)
}

/// The values `b..e` folded in order, 32 at a time by a shuffle tree: the warp's result
/// (in lane 0). One value a lane in flight: the host takes this path for no operator
/// (it reduces segments of an order-dependent operator in tiles), so it is kept simple.
#[inline(always)]
unsafe fn fold_in_order<C: Cta, T: Element, Op: AssociativeOp<T>>(
    cta: &C,
    data: *const T,
    b: u64,
    e: u64,
) -> T {
    let lane = cta.lane();
    let mut acc = Op::identity();
    let mut at = b;
    while at < e {
        let i = at + lane as u64;
        // Lane `l` (a multiple of `2d`) takes lane `l + d`'s fold after its own.
        let mut t =
            mgpu_core::load_streaming_or(data.wrapping_add(i as usize), i < e, Op::identity());
        let mut d = 1;
        while d < WARP_SIZE {
            let u = shfl_down(cta, !0, t, d, WARP_SIZE);
            if lane & (2 * d - 1) == 0 {
                t = Op::apply(t, u);
            }
            d *= 2;
        }
        acc = Op::apply(acc, t);
        at += WARP_SIZE as u64;
    }
    acc
}

/// Lists segment `s` (values `b..e`, more than `args.nv`) for [`long_segments`]: lane 0
/// takes the numbers of its pieces (the first names the segment in `long_segs` and
/// `long_done`); the lanes name the pieces' owner.
#[inline(always)]
unsafe fn list_long<C: Cta, T, I: Idx>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
    s: u64,
    b: u64,
    e: u64,
) {
    let lane = cta.lane();
    let pieces = (e - b).div_ceil(args.nv) as u32;
    let mut first = 0u32;
    if lane == 0 {
        first = cta.atomic_add_u32(args.long_count, pieces);
        *args.long_segs.add(first as usize) = s;
        *args.long_done.add(first as usize) = 0;
    }
    let first = shfl_idx(cta, !0, first, 0, WARP_SIZE);
    let mut p = lane;
    while p < pieces {
        *args.piece_owner.add((first + p) as usize) = first;
        p += WARP_SIZE;
    }
}

/// The long segments that [`warp_segments`] listed: CTA `c` folds pieces `c, c + grid,
/// ...` (each `args.nv` values of its segment, the last shorter) into `partials` (by
/// [`cta_fold_strided`] for an operator that may fold in any order, else in order), and
/// the CTA that finishes a segment's last piece folds its partials in
/// order into `output`. A dependent launch of [`warp_segments`]: it reads the list once
/// that grid has ended.
///
/// # Safety
/// As [`warp_segments`], after it ran (with the same `args.nv`, the pieces' length);
/// `partials` writable at the pieces' numbers; shared memory is [`long_shared_bytes`];
/// `NT` a multiple of 32.
///
/// # Examples
///
/// One segment of 10 values in pieces of 4 (listed as `warp_segments` lists it).
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::{device::SegReduceArgs, warps::{long_segments, long_shared_bytes}};
/// let (data, csr) = ([1i64, 2, 3, 4, 5, 6, 7, 8, 9, 10], [0u32]);
/// let (mut out, mut count, mut segs, mut done) = ([0i64], [3u32], [0u64; 3], [0u32; 3]);
/// let (mut owner, mut partials) = ([0u32; 3], [0i64; 3]);
/// let args = SegReduceArgs {
///     data: data.as_ptr(), total: 10, csr: csr.as_ptr(), num_segments: 1, nv: 4,
///     output: out.as_mut_ptr(), long_count: count.as_mut_ptr(), long_segs: segs.as_mut_ptr(),
///     long_done: done.as_mut_ptr(), piece_owner: owner.as_mut_ptr(),
///     partials: partials.as_mut_ptr(), ..Default::default()
/// };
/// sim::launch(2, 32, long_shared_bytes(32, 8), &|cta: &sim::SimCta| unsafe {
///     long_segments::<_, i64, u32, Plus, 32, 1>(cta, &args)
/// });
/// assert_eq!((out, partials), ([55], [10, 26, 19]));
/// ```
#[inline(always)]
pub unsafe fn long_segments<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    cta.grid_dependency_wait(); // the list comes from the warps just before
    let pieces = *args.long_count;
    let scan = cta.shared::<T>(0);
    let last = cta.shared::<u32>(align16(cta_scan_shared_len(NT) * core::mem::size_of::<T>()));
    let mut p = cta.block();
    while p < pieces {
        let first = *args.piece_owner.add(p as usize);
        let (j, s) = (first as usize, *args.long_segs.add(first as usize));
        let (b, e, _) = segment(args, s);
        let count = (e - b).div_ceil(args.nv) as u32;
        let begin = b + (p - first) as u64 * args.nv;
        let end = e.min(begin + args.nv);
        let partial = if Op::COMMUTATIVE {
            cta_fold_strided::<C, T, Op, NT>(cta, scan, args.data, begin, end - begin)
        } else {
            cta_fold::<C, T, Op, NT>(cta, scan, end - begin, |i| {
                mgpu_core::load_streaming(args.data.add((begin + i) as usize))
            })
        };
        if cta.tid() == 0 {
            *args.partials.add(p as usize) = partial;
            cta.fence_gpu(); // the partial before the count
            let before = cta.atomic_add_u32(args.long_done.add(j), 1);
            *last = (before + 1 == count) as u32;
        }
        cta.sync();
        if *last != 0 {
            cta.fence_gpu(); // the other CTAs' partials after their counts
            let folded = cta_fold::<C, T, Op, NT>(cta, scan, count as u64, |i| {
                // Written by other CTAs during this launch: past the L1 cache.
                core::ptr::read_volatile(args.partials.add(first as usize + i as usize))
            });
            if cta.tid() == 0 {
                *args.output.add(s as usize) = folded;
            }
        }
        cta.sync(); // `scan` and `last` are read again for the next piece
        p += cta.grid();
    }
}

/// `len` values `value(0..len)` folded in order by the CTA: thread `t` folds its
/// contiguous share, then the CTA scan joins the shares in thread order. Every thread
/// gets the result.
#[inline(always)]
unsafe fn cta_fold<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    scan: *mut T,
    len: u64,
    value: impl Fn(u64) -> T,
) -> T {
    let share = len.div_ceil(NT as u64);
    let lo = (cta.tid() as u64 * share).min(len);
    let hi = (lo + share).min(len);
    let mut acc = Op::identity();
    for i in lo..hi {
        acc = Op::apply(acc, value(i));
    }
    let (_, total) = cta_scan::<C, T, Op, NT>(cta, acc, scan, ScanKind::Inclusive);
    cta.sync(); // `scan` is reused by the next fold
    total
}

/// Values a thread of [`cta_fold_strided`] has in flight.
const STRIDED_VT: usize = 8;

/// `len` values at `data[begin..]` folded by the CTA in an order of its own (for operators
/// that may fold in any order): thread `t` folds values `t, t + NT, ...`,
/// [`STRIDED_VT`] in flight (each warp's loads coalesced, where [`cta_fold`]'s
/// contiguous shares touch a sector a lane), and the CTA scan joins the threads. The
/// association depends only on `len` and `NT`: the same bits every run. Every thread gets
/// the result.
#[inline(always)]
unsafe fn cta_fold_strided<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    scan: *mut T,
    data: *const T,
    begin: u64,
    len: u64,
) -> T {
    let tid = cta.tid() as u64;
    let mut acc = Op::identity();
    let mut at = 0;
    while at < len {
        let mut x = [Op::identity(); STRIDED_VT];
        for (k, v) in x.iter_mut().enumerate() {
            let i = at + (NT * k) as u64 + tid;
            *v = mgpu_core::load_streaming_or(data.wrapping_add((begin + i) as usize), i < len, *v);
        }
        for &v in x.iter() {
            acc = Op::apply(acc, v);
        }
        at += (NT * STRIDED_VT) as u64;
    }
    let (_, total) = cta_scan::<C, T, Op, NT>(cta, acc, scan, ScanKind::Inclusive);
    cta.sync(); // `scan` is reused by the next fold
    total
}

/// Bytes of shared memory [`long_segments`] needs with `NT` threads and `t_bytes`-byte
/// values: the CTA scan's, and one word.
///
/// ```
/// assert_eq!(mgpu_segreduce::warps::long_shared_bytes(256, 8), 72);
/// ```
pub const fn long_shared_bytes(nt: usize, t_bytes: usize) -> usize {
    align16(cta_scan_shared_len(nt) * t_bytes) + 8
}
