//! Decoupled look-back ([`lookback`], integers): the tile status words, warp 0's walk
//! back over its predecessors, the single-pass scan kernel, and the tile's load and store
//! steps, which [`ordered`](super::ordered) shares.

use super::vec16::{apply_vec16, Vec16};
use super::*;

/// Publishes `status` and `v` for `tile` ([`publish_word`] on word `tile`). 8-byte values
/// go to `values`: aggregates first, then inclusive prefixes.
#[inline(always)]
pub(super) unsafe fn publish<C: Cta, T: Element>(
    cta: &C,
    a: &ScanArgs<T>,
    tiles: u64,
    tile: u64,
    status: u32,
    v: T,
) {
    let slot = if status == STATUS_P {
        tiles + tile
    } else {
        tile
    };
    publish_word::<C, T>(cta, a, tile, slot, status, v);
}

/// Reads what [`publish`] wrote for `tile` in this launch's epoch: `STATUS_X` for a word
/// of another epoch.
#[inline(always)]
pub(super) unsafe fn read_status<C: Cta, T: Element>(
    cta: &C,
    a: &ScanArgs<T>,
    tiles: u64,
    tile: u64,
) -> (u32, T) {
    read_word::<C, T>(cta, a, tile, tile, tiles + tile)
}

/// Warp 0's walk over the predecessors of `tile` (> 0): the exclusive prefix of the tile.
/// Each step reads a window of 32 predecessors (lane `l` reads tile `end - 1 - l`), waits
/// until all have published, and folds those up to the nearest inclusive prefix.
///
/// Polls are few on purpose: under full memory traffic each one takes microseconds, so
/// [`LOOKBACK_FIRST_POLL_NS`] and [`LOOKBACK_POLL_NS`] space them out. Wider windows (64 or
/// 128 predecessors per step, two or four per lane) measured slower on an H200 (copy ratio
/// 1.49 and 1.54 against 1.42 at 2^27).
#[inline(always)]
pub(super) unsafe fn look_back<C: Cta, T: Element, Op: AssociativeOp<T>>(
    cta: &C,
    a: &ScanArgs<T>,
    tiles: u64,
    tile: u64,
) -> T {
    let lane = cta.lane() as u64;
    let mut prefix = Op::identity();
    let mut end = tile;
    cta.backoff(LOOKBACK_FIRST_POLL_NS);
    loop {
        let (mut status, mut v);
        loop {
            (status, v) = if end > lane {
                read_status::<C, T>(cta, a, tiles, end - 1 - lane)
            } else {
                (STATUS_P, Op::identity())
            };
            if cta.ballot(!0, status == STATUS_X) == 0 {
                break;
            }
            cta.backoff(LOOKBACK_POLL_NS);
        }
        let p_mask = cta.ballot(!0, status == STATUS_P);
        let first_p = p_mask.trailing_zeros() as u64;
        let contrib = if lane <= first_p { v } else { Op::identity() };
        prefix = Op::apply(warp_reduce::<C, T, Op>(cta, contrib), prefix);
        if p_mask != 0 {
            return prefix;
        }
        end -= 32;
    }
}

/// The 16-byte vectors of a warp's segment of `32 * VT` values of `T` (a whole number: 32
/// values of any size are a multiple of 16 bytes), shared by [`ScanCta::load_segment`] and
/// [`for_each_lane_vec`].
#[inline(always)]
const fn segment_vecs<T, const VT: usize>() -> usize {
    32 * VT * core::mem::size_of::<T>() / 16
}

/// Calls `f(k)` for each 16-byte vector `k` of a warp's segment of `32 * VT` values of `T`
/// that lane `lane` moves: `lane`, `lane + 32`, ... below the segment's vector count.
#[inline(always)]
fn for_each_lane_vec<T, const VT: usize>(lane: usize, mut f: impl FnMut(usize)) {
    let n = segment_vecs::<T, VT>();
    for i in 0..n.div_ceil(32) {
        let k = lane + 32 * i;
        if k < n {
            f(k);
        }
    }
}

impl<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>
    ScanCta<'_, C, T, Op, NT, VT>
{
    /// Loads this warp's segment of a tile (`32 * VT` values from `cta.warp() * 32 * VT`)
    /// into the same positions of the tile in shared memory, natural order, and returns this
    /// thread's `VT` values (thread order) after a warp barrier. With `vec` (a full tile
    /// whose source is 16-byte aligned) as 16-byte vectors, all issued before the first is
    /// stored; otherwise as coalesced scalars, the identity past `count`.
    #[inline(always)]
    pub(super) unsafe fn load_segment(&self, src: *const T, count: usize, vec: bool) -> [T; VT] {
        let (cta, sh) = (self.cta, self.tile);
        if !vec {
            return global_to_thread_order_warp::<C, T, NT, VT>(
                cta,
                src,
                count,
                Op::identity(),
                sh,
            );
        }
        let seg = cta.warp() as usize * 32 * VT;
        let (s, d) = (src.add(seg) as *const Vec16, sh.add(seg) as *mut Vec16);
        let n = segment_vecs::<T, VT>();
        let lane = cta.lane() as usize;
        // Rounds of four vectors a lane (one round for the shapes that take this path: a
        // segment of at most 2 KiB). Clamped indices: a lane past the end loads and stores
        // the segment's last vector again, the same bytes as its owner, so no load waits
        // behind a branch. The words are moved one by one (LLVM fuses them into 16-byte
        // accesses): a copy of the whole struct becomes a memcpy staged in local memory.
        for r in 0..n.div_ceil(128) {
            let k = |i: usize| (128 * r + lane + 32 * i).min(n - 1);
            let v: [[u32; 4]; 4] = core::array::from_fn(|i| {
                let Vec16([w0, w1, w2, w3]) = *s.add(k(i));
                [w0, w1, w2, w3]
            });
            for (i, w) in v.iter().enumerate() {
                *d.add(k(i)) = Vec16(*w);
            }
        }
        cta.sync_warp(!0);
        shared_to_regs_thread::<C, T, VT>(cta, sh)
    }

    /// Stores this warp's segment of the tile in shared memory (natural order) to `dst`,
    /// each value `v` as `prefix op v`, positions below `count`. With `vec` (a full tile
    /// whose destination is 16-byte aligned) as 16-byte vectors, otherwise as coalesced
    /// scalars.
    #[inline(always)]
    pub(super) unsafe fn store_segment(&self, prefix: T, dst: *mut T, count: usize, vec: bool) {
        let (cta, sh) = (self.cta, self.tile);
        let seg = cta.warp() as usize * 32 * VT;
        let lane = cta.lane() as usize;
        if vec {
            let (s, d) = (sh.add(seg) as *const Vec16, dst.add(seg) as *mut Vec16);
            for_each_lane_vec::<T, VT>(lane, |k| {
                *d.add(k) = apply_vec16::<T, Op>(prefix, *s.add(k));
            });
        } else {
            let first = seg + lane;
            let rem = count.saturating_sub(first);
            let (s, d) = (sh.add(first), dst.wrapping_add(first));
            for i in 0..VT {
                if 32 * i < rem {
                    *d.add(32 * i) = Op::apply(prefix, *s.add(32 * i));
                }
            }
        }
    }
}

impl<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>
    ScanCta<'_, C, T, Op, NT, VT>
{
    /// Copies this warp's segment of a tile (`32 * VT` values from `cta.warp() * 32 * VT`)
    /// into the same positions of the tile in shared memory with asynchronous copies, so
    /// that no register holds a load and a segment of any size is in flight at once, then
    /// waits for them and syncs the warp. With `vec` (a full tile whose source is 16-byte
    /// aligned) as 16-byte vectors; otherwise as coalesced scalars, the identity past
    /// `count`. The first step of the tiles that stay in shared memory
    /// ([`ordered`](super::ordered), and [`lookback`] of 8-byte values).
    #[inline(always)]
    pub(super) unsafe fn load_segment_async(&self, src: *const T, count: usize, vec: bool) {
        let (cta, sh) = (self.cta, self.tile);
        let seg = cta.warp() as usize * 32 * VT;
        let lane = cta.lane() as usize;
        if vec {
            let (s, d) = (src.add(seg) as *const Vec16, sh.add(seg) as *mut Vec16);
            for_each_lane_vec::<T, VT>(lane, |k| cta.async_copy(d.add(k), s.add(k)));
        } else {
            let first = seg + lane;
            for i in 0..VT {
                let j = first + 32 * i;
                if j < count {
                    cta.async_copy(sh.add(j), src.add(j));
                } else {
                    *sh.add(j) = Op::identity();
                }
            }
        }
        cta.async_copy_wait();
        cta.sync_warp(!0);
    }

    /// The CTA scan of a tile in shared memory ([`ScanCta::load_segment_async`]): each
    /// thread reduces its `VT` values (thread order) from shared memory, then the CTA scans
    /// the reductions. Returns the thread's exclusive prefix within the tile and the
    /// tile's aggregate; no value stays in a register across the CTA scan, so a tile may
    /// hold many values a thread.
    #[inline(always)]
    pub(super) unsafe fn scan_cta_shared(&self) -> (T, T) {
        let x = self.tile.add(self.cta.tid() as usize * VT);
        let mut t = *x;
        for i in 1..VT {
            t = Op::apply(t, *x.add(i));
        }
        cta_scan::<C, T, Op, NT>(self.cta, t, self.scan, ScanKind::Exclusive)
    }

    /// Scans this thread's `VT` values in shared memory in place (`kind`) from `carry`, its
    /// exclusive prefix within the tile. Stores the inclusive value at position `last_at`
    /// (none when it is `VT`) in the broadcast slot `misc_last`. With `check`, returns
    /// whether the running value ever decreases ([`decreases`]).
    #[inline(always)]
    pub(super) unsafe fn scan_thread_shared(
        &self,
        carry: T,
        kind: ScanKind,
        last_at: usize,
        check: bool,
    ) -> bool {
        let x = self.tile.add(self.cta.tid() as usize * VT);
        let (mut c, mut bad) = (carry, false);
        for i in 0..VT {
            let next = Op::apply(c, *x.add(i));
            *x.add(i) = match kind {
                ScanKind::Inclusive => next,
                ScanKind::Exclusive => c,
            };
            if i == last_at {
                *self.misc_last = next;
            }
            bad |= check && next < c;
            c = next;
        }
        bad
    }
}

/// Single-pass scan with decoupled look-back: CTA `blockIdx.x` scans tile `blockIdx.x` of
/// `NT * VT` values, `grid = tiles`. As in CUB, forward progress relies on CTAs starting in
/// block order, so that every tile a CTA waits for is resident or done.
///
/// Every thread scans its values within the tile (from its exclusive prefix in the tile)
/// and writes them back to shared memory *before* the look-back, while warp 0 waits for its
/// predecessors, so once the tile's prefix is known only `prefix op v` and the store are
/// left. Full tiles with 16-byte aligned pointers move as 16-byte vectors.
///
/// Measured alternatives that were slower on an H200 (docs/scan.md): two to four tiles per
/// CTA sharing one look-back; a persistent grid taking tiles from a counter, with the next
/// tile streaming in (`cp.async`) during the look-back.
///
/// Reads `input`, `n`, `status` (`tiles` words tagged with `epoch`), `epoch`, `values`
/// (8-byte types: `2 * tiles`), `flags`; writes `output`, `total` (by the last tile),
/// `error` (zeroed before the launch when `FLAG_CHECK_MONOTONIC` is set, which only unsigned
/// `Plus` scans use: a wrap shows either within a tile's own running sums or as the tile's
/// inclusive prefix falling below its exclusive one). Integers only: the association order
/// depends on timing.
///
/// # Safety
/// The pointers cover what the launch reads and writes; `NT` equals the block size; shared
/// memory holds `shared_bytes(size_of::<T>(), NT, VT)`.
#[inline(always)]
pub unsafe fn lookback<
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
    let span = k.span(a);
    let check = a.flags & FLAG_CHECK_MONOTONIC != 0;
    let kind = kind_of(a.flags);
    let publish_a = cta.warp() == 0 && cta.lane() == 0 && span.tile > 0;
    let (agg, bad) = if core::mem::size_of::<T>() > 4 {
        // 8-byte values: the tile stays in shared memory from its load to its store, so
        // that it holds as many values as a 4-byte tile (`tuning::SCAN`).
        k.load_segment_async(span.src, span.count, span.vec_load());
        let (thread_exc, agg) = k.scan_cta_shared();
        if publish_a {
            publish::<C, T>(cta, a, span.tiles, span.tile, STATUS_A, agg);
        }
        (agg, k.scan_thread_shared(thread_exc, kind, VT, check))
    } else {
        let (x, thread_exc, agg) = k.load_and_scan(&span);
        if publish_a {
            publish::<C, T>(cta, a, span.tiles, span.tile, STATUS_A, agg);
        }
        // The thread's values scanned within the tile, back into its own slots.
        let (y, _) = thread_scan::<T, Op, VT>(&x, thread_exc, kind);
        regs_to_shared_thread::<C, T, VT>(cta, &y, k.tile);
        (agg, check && decreases::<T, Op, VT>(&x, thread_exc))
    };
    if bad {
        cta.atomic_or_u32(a.error, ERROR_OVERFLOW);
    }
    let TileSpan {
        tiles,
        tile,
        count,
        dst,
        full,
        ..
    } = span;
    if cta.warp() == 0 {
        let prefix = if tile == 0 {
            Op::identity()
        } else {
            look_back::<C, T, Op>(cta, a, tiles, tile)
        };
        if cta.lane() == 0 {
            let inclusive = Op::apply(prefix, agg);
            publish::<C, T>(cta, a, tiles, tile, STATUS_P, inclusive);
            *k.misc_t = prefix;
            if tile == tiles - 1 {
                *a.total = inclusive;
            }
            if check && inclusive < prefix {
                cta.atomic_or_u32(a.error, ERROR_OVERFLOW);
            }
        }
    }
    cta.sync();
    k.store_segment(
        *k.misc_t,
        dst,
        count,
        full && (dst as usize).is_multiple_of(16),
    );
}
