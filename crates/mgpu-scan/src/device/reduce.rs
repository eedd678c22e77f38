//! The reduction of every type ([`partials`]): per-CTA partials over fixed ranges of
//! tiles, collected by the last CTA in a fixed order.

use super::vec16::{fold_vec16, identity_vec16, Vec16};
use super::*;

/// The tiles `[first, end)` of the calling CTA in a reduction.
#[inline(always)]
pub(super) fn cta_tiles<C: Cta>(cta: &C, tiles: u64, per_cta: u32) -> (u64, u64) {
    let first = cta.block() as u64 * per_cta as u64;
    (first, (first + per_cta as u64).min(tiles))
}

/// Vector loads in flight per thread in [`partials`].
pub(super) const REDUCE_UNROLL: usize = 4;

/// The reduction, one launch: CTA `b` reduces tiles `[b * tiles_per_cta, ...)` and
/// publishes its partial in `status` for the last CTA to collect into `total` (see
/// `collect_partials`). When `input` is
/// 16-byte aligned the range is read as 16-byte vectors, `REDUCE_UNROLL` in flight per
/// thread (thread `t` folds vectors `t, t + NT, ...` in order); otherwise as strided
/// scalars. Either way every thread folds a fixed sequence, so the result depends only on
/// the grid: deterministic.
///
/// Reads `input`, `n`, `tiles_per_cta`; reads and writes `status` (a word per 32 bits of
/// each CTA's partial, tagged with `epoch`); writes `total`.
///
/// # Safety
/// As for [`lookback`].
#[inline(always)]
pub unsafe fn partials<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    a: &ScanArgs<T>,
) {
    let k = ScanCta::<C, T, Op, NT, VT>::new(cta);
    let nv = k.nv();
    let (first, end) = cta_tiles(cta, a.n.div_ceil(nv), a.tiles_per_cta);
    let mut acc = Op::identity();
    let per_vec = 16 / core::mem::size_of::<T>();
    if (a.input as usize).is_multiple_of(16) && first < end {
        // Tiles hold a multiple of `per_vec` elements, so `lo` is 16-byte aligned.
        let lo = (first * nv) as usize;
        let len = ((end * nv).min(a.n) as usize) - lo;
        let vecs = len / per_vec;
        let vp = a.input.add(lo) as *const Vec16;
        let mut j = cta.tid() as usize;
        while j + (REDUCE_UNROLL - 1) * NT < vecs {
            // Four named loads, not an array: an array of 16-byte aggregates is not split
            // into registers and falls to local memory.
            let v0 = *vp.add(j);
            let v1 = *vp.add(j + NT);
            let v2 = *vp.add(j + 2 * NT);
            let v3 = *vp.add(j + 3 * NT);
            acc = fold_vec16::<T, Op>(acc, v0);
            acc = fold_vec16::<T, Op>(acc, v1);
            acc = fold_vec16::<T, Op>(acc, v2);
            acc = fold_vec16::<T, Op>(acc, v3);
            j += REDUCE_UNROLL * NT;
        }
        // Fewer than REDUCE_UNROLL vectors are left for this thread: load them together
        // (at clamped, always valid indices) and fold the identity in place of those past
        // the end, so the end of the range costs one round trip, not one per vector (H100,
        // i32, 2^24: each thread had 2 or 3 of them, loaded one after another). Selecting
        // the loaded words, not the accumulator, keeps LLVM from sinking each load into a
        // branch of its own.
        if vecs > 0 {
            let last = vecs - 1;
            let id = identity_vec16::<T, Op>();
            let (k1, k2) = (j + NT, j + 2 * NT);
            let v0 = *vp.add(j.min(last));
            let v1 = *vp.add(k1.min(last));
            let v2 = *vp.add(k2.min(last));
            acc = fold_vec16::<T, Op>(acc, select_unpredictable(j < vecs, v0, id));
            acc = fold_vec16::<T, Op>(acc, select_unpredictable(k1 < vecs, v1, id));
            acc = fold_vec16::<T, Op>(acc, select_unpredictable(k2 < vecs, v2, id));
        }
        // The last few elements of the input, past the last whole vector.
        let tail = vecs * per_vec + cta.tid() as usize;
        if tail < len {
            acc = Op::apply(acc, *a.input.add(lo + tail));
        }
    } else {
        let mut tile = first;
        while tile < end {
            let base = tile * nv;
            let src = a.input.add(base as usize);
            let count = k.count(a.n, base);
            let x: [T; VT] = if count == nv as usize {
                global_to_regs_strided::<C, T, NT, VT>(cta, src)
            } else {
                global_to_regs_strided_guarded::<C, T, NT, VT>(cta, src, count, Op::identity())
            };
            acc = Op::apply(acc, thread_reduce::<T, Op, VT>(&x));
            tile += 1;
        }
    }
    let total = cta_reduce::<C, T, Op, NT>(cta, acc, k.scan);
    collect_partials::<C, T, Op, NT>(cta, a, total, k.scan);
}

/// Partials the last CTA of a reduction polls at once per thread (more are polled in
/// rounds): 4 of 4-byte types, 2 of 8-byte ones (two tagged words each), which keeps the
/// 8-byte `partials` kernels inside their 32 registers without spilling.
pub(super) const COLLECT_UNROLL: usize = 4;

#[inline(always)]
pub(super) const fn collect_unroll<T>() -> usize {
    if core::mem::size_of::<T>() == 8 {
        2
    } else {
        COLLECT_UNROLL
    }
}

/// The end of a reduction: every CTA publishes its partial in the epoch-tagged `status`
/// block ([`publish_split`], slot `blockIdx.x`), and the last CTA polls until all
/// `grid` are there, then reduces them into `total` in a fixed order (thread `t` folds partials
/// `t, t + NT, ...`, then a CTA reduction), so float results are the same bits every run.
/// No fences or atomics on the path from the last partial to the total (the last CTA to
/// finish counting itself on an atomic counter, then reading the partials, measured slower).
///
/// As with the look-back, the last CTA relies on CTAs starting in block order, so that
/// every CTA it waits for is resident or done.
#[inline(always)]
pub(super) unsafe fn collect_partials<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    a: &ScanArgs<T>,
    partial: T,
    scratch: *mut T,
) {
    let grid = cta.grid() as u64;
    if cta.tid() == 0 {
        publish_split::<C, T>(cta, a, cta.block() as u64, STATUS_P, partial);
    }
    if cta.block() as u64 != grid - 1 {
        return;
    }
    let mut acc = Op::identity();
    let mut first = cta.tid() as u64;
    while first < grid {
        let j = |k: usize| first + (k * NT) as u64;
        // Clamped indices: every poll reads all its words at once.
        let p: [(bool, T); COLLECT_UNROLL] = core::array::from_fn(|k| {
            if k < collect_unroll::<T>() {
                read_split::<C, T>(cta, a, j(k).min(grid - 1))
            } else {
                (true, Op::identity())
            }
        });
        if !p.iter().all(|&(ok, _)| ok) {
            // Poll again at once: a poll is a round trip, and no wait between polls
            // measured best (H100, i32 at 2^24: 250 ns between polls left the median call
            // slower by a third in 2 processes of 11).
            continue;
        }
        for (k, &(_, v)) in p.iter().enumerate() {
            if k < collect_unroll::<T>() && j(k) < grid {
                acc = Op::apply(acc, v);
            }
        }
        first += (collect_unroll::<T>() * NT) as u64;
    }
    // `scratch` was the caller's `cta_reduce` scratch too: wait until every warp has read
    // its partial there before this reduction writes into it (racecheck found the write
    // of a fast warp landing before a slow warp's read, which changed the total).
    cta.sync();
    let total = cta_reduce::<C, T, Op, NT>(cta, acc, scratch);
    if cta.tid() == 0 {
        *a.total = total;
    }
}
