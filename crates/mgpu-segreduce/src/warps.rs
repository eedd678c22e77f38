//! The segmented reduction for long segments, without partitions or a spine: a warp a
//! segment ([`warp_segments`]), and the segments too long for one warp split into pieces
//! a warp each ([`long_segments`]), with the CSR checks fused in (DESIGN §5).
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
//! A segment of more than `args.nv` values ([`PIECE`] on the device) is not folded by its
//! warp: the warp takes numbers for its pieces of `args.nv` values (an atomic count), and
//! [`long_segments`] (a dependent launch) folds the pieces a warp each, as a segment, and
//! the last warp to finish a segment's pieces folds their partials in order, so the
//! result is the same bits on every run. No warp folds more than `args.nv` values, so
//! heavy-tailed lengths keep the warps balanced.

use crate::device::{SegReduceArgs, ERROR_FIRST, ERROR_TOTAL, ERROR_UNSORTED};
use mgpu_core::{shfl_down, shfl_idx, AssociativeOp, Cta, Element, WARP_SIZE};
use mgpu_ctascan::warp_reduce;
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

/// The most values a warp folds: a segment's, or a piece's of a longer segment. On an
/// H200 (docs/segreduce.md) 2048 was fastest for i32 and f64 on Pareto(1.5) lengths of
/// mean 1000 (4 rounds of loads a lane for 4-byte values, 8 for 8-byte ones) and left
/// the uniform rows as they were; 1024 cost uniform lengths of mean 1000 a quarter.
///
/// ```
/// assert_eq!(mgpu_segreduce::warps::PIECE, 2048);
/// ```
pub const PIECE: usize = 2048;

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
            let r = fold_values::<C, T, Op, VT>(cta, args.data, b, e);
            if lane == 0 {
                *args.output.add(s as usize) = r;
            }
        }
        s += warps;
    }
    cta.launch_dependents(); // the long segments' kernel may start its CTAs
}

/// The values `data[b..e]` folded by the warp (the result in lane 0): lane-strided
/// ([`fold_lanes`], `VT` values a lane in flight) for an operator whose operands may be
/// folded in any order, else in order ([`fold_in_order`]).
#[inline(always)]
unsafe fn fold_values<C: Cta, T: Element, Op: AssociativeOp<T>, const VT: usize>(
    cta: &C,
    data: *const T,
    b: u64,
    e: u64,
) -> T {
    if Op::COMMUTATIVE {
        fold_lanes::<C, T, Op, VT>(cta, data, b, e)
    } else {
        fold_in_order::<C, T, Op>(cta, b, e, |i| {
            mgpu_core::load_streaming(data.add(i as usize))
        })
    }
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

/// The values `value(b..e)` folded in order, 32 at a time by a shuffle tree: the warp's
/// result (in lane 0). One value a lane in flight: it folds the partials of a long
/// segment, and the segments of no operator the host sends here (it reduces an
/// order-dependent operator's segments in tiles), so it is kept simple.
#[inline(always)]
unsafe fn fold_in_order<C: Cta, T: Element, Op: AssociativeOp<T>>(
    cta: &C,
    b: u64,
    e: u64,
    value: impl Fn(u64) -> T,
) -> T {
    let lane = cta.lane();
    let mut acc = Op::identity();
    let mut at = b;
    while at < e {
        let i = at + lane as u64;
        // Lane `l` (a multiple of `2d`) takes lane `l + d`'s fold after its own.
        let mut t = if i < e { value(i) } else { Op::identity() };
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

/// The long segments that [`warp_segments`] listed: warp `w` of the grid folds pieces
/// `w, w + warps, ...` (each `args.nv` values of its segment, the last shorter) into
/// `partials` (as [`warp_segments`] folds a segment: lane-strided with `VT` values a lane
/// in flight for an operator that may fold in any order, else in order), and the warp
/// that finishes a segment's last piece folds its partials in order into `output`. A
/// dependent launch of [`warp_segments`]: it reads the list once that grid has ended.
///
/// # Safety
/// As [`warp_segments`], after it ran (with the same `args.nv`, the pieces' length);
/// `partials` writable at the pieces' numbers; `NT` a multiple of 32.
///
/// # Examples
///
/// One segment of 10 values in pieces of 4 (listed as `warp_segments` lists it).
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::{device::SegReduceArgs, warps::long_segments};
/// let (data, csr) = ([1i64, 2, 3, 4, 5, 6, 7, 8, 9, 10], [0u32]);
/// let (mut out, mut count, mut segs, mut done) = ([0i64], [3u32], [0u64; 3], [0u32; 3]);
/// let (mut owner, mut partials) = ([0u32; 3], [0i64; 3]);
/// let args = SegReduceArgs {
///     data: data.as_ptr(), total: 10, csr: csr.as_ptr(), num_segments: 1, nv: 4,
///     output: out.as_mut_ptr(), long_count: count.as_mut_ptr(), long_segs: segs.as_mut_ptr(),
///     long_done: done.as_mut_ptr(), piece_owner: owner.as_mut_ptr(),
///     partials: partials.as_mut_ptr(), ..Default::default()
/// };
/// sim::launch(2, 64, 0, &|cta: &sim::SimCta| unsafe {
///     long_segments::<_, i64, u32, Plus, 64, 1>(cta, &args)
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
    let lane = cta.lane();
    let per_cta = (NT / WARP_SIZE as usize) as u32;
    let warps = cta.grid() * per_cta;
    let mut p = cta.block() * per_cta + cta.warp();
    while p < pieces {
        let first = *args.piece_owner.add(p as usize);
        let s = *args.long_segs.add(first as usize);
        let (b, e, _) = segment(args, s);
        let count = (e - b).div_ceil(args.nv) as u32;
        let begin = b + (p - first) as u64 * args.nv;
        let end = e.min(begin + args.nv);
        let partial = fold_values::<C, T, Op, VT>(cta, args.data, begin, end);
        let mut last = 0;
        if lane == 0 {
            *args.partials.add(p as usize) = partial;
            cta.fence_gpu(); // the partial before the count
            let before = cta.atomic_add_u32(args.long_done.add(first as usize), 1);
            last = (before + 1 == count) as u32;
        }
        if shfl_idx(cta, !0, last, 0, WARP_SIZE) != 0 {
            // Lane 0 saw the other warps' counts: after it, past their fences, every lane
            // reads their partials.
            cta.sync_warp(!0);
            cta.fence_gpu();
            let end = (first + count) as u64;
            let folded = fold_in_order::<C, T, Op>(cta, first as u64, end, |i| {
                // Written by other warps during this launch: past the L1 cache.
                core::ptr::read_volatile(args.partials.add(i as usize))
            });
            if lane == 0 {
                *args.output.add(s as usize) = folded;
            }
        }
        p += warps;
    }
}
