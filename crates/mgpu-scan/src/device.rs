//! Kernel bodies of the scan family, generic over `Cta`, element type, operator and the
//! launch shape (`NT` threads, `VT` values per thread). `no_std`.
//!
//! Two strategies:
//! - **Decoupled look-back** ([`lookback`], integers): one pass. CTA `b` scans tile `b`,
//!   publishes its aggregate, then warp 0 walks back
//!   over its predecessors' published aggregates and inclusive prefixes, 32 at a time, until
//!   it meets an inclusive prefix. Integer operators are exactly associative, so the result
//!   does not depend on which predecessors had finished: it is deterministic.
//! - **Reduce-then-scan** ([`partials`], [`spine`], [`downsweep`], floats): each of `G`
//!   CTAs reduces a fixed contiguous range of tiles, one CTA scans the `G` partials, and each
//!   CTA scans its range again from its partial. The association order is fixed by `G` and
//!   the tile shape alone, so float results are the same bits on every run of a device.
//!   [`partials`] + [`spine`] are also the reduction of every type.

use core::hint::select_unpredictable;
use mgpu_core::{AssociativeOp, Cta, Element};
use mgpu_ctascan::{
    cta_reduce, cta_scan, cta_scan_shared_len, thread_reduce, thread_scan, warp_reduce, ScanKind,
};
use mgpu_loadstore::{
    global_to_regs_strided, global_to_regs_strided_guarded, global_to_thread_order_warp,
    regs_to_shared_thread, shared_to_regs_thread, thread_order_to_global_warp,
};

/// `flags` bit: inclusive scan (else exclusive).
pub const FLAG_INCLUSIVE: u32 = 1;
/// `flags` bit: check that the inclusive scan never decreases (unsigned sum without
/// overflow: the count scans), raising [`ERROR_OVERFLOW`] otherwise.
pub const FLAG_CHECK_MONOTONIC: u32 = 2;
/// `flags` bit for [`partials`]: a reduction, not a scan: the CTAs publish their partials
/// in `status` (tagged with `epoch`) and the last CTA reduces them into `total`, so no
/// spine kernel is launched.
pub const FLAG_REDUCE_ONLY: u32 = 4;
/// Error bit: an unsigned sum wrapped.
pub const ERROR_OVERFLOW: u32 = 1;

/// Tile status: not yet published.
const STATUS_X: u32 = 0;
/// Tile status: the tile's aggregate is published.
const STATUS_A: u32 = 1;
/// Tile status: the tile's inclusive prefix is published.
const STATUS_P: u32 = 2;

/// The single by-value argument of every scan-family kernel.
///
/// Which fields a kernel reads is documented at each kernel body.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ScanArgs<T> {
    /// Input values.
    pub input: *const T,
    /// Output values (may equal `input`: every tile is read before it is written).
    pub output: *mut T,
    /// Number of input values (the number of partials for [`spine`]).
    pub n: u64,
    /// Look-back: one status word per tile; reduction: one per 32 bits of each CTA's
    /// partial. Tagged with `epoch` (words of other epochs read as unpublished, so the
    /// block needs no clearing between launches).
    pub status: *mut u64,
    /// Look-back of 8-byte types: aggregates then inclusive prefixes, `2 * tiles`.
    /// Reduce-then-scan scan: the `G` partials (a reduction does not use it).
    pub values: *mut T,
    /// Where the total goes.
    pub total: *mut T,
    /// Error word, OR-ed with `ERROR_*` bits.
    pub error: *mut u32,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Reduce-then-scan: tiles per CTA.
    pub tiles_per_cta: u32,
    /// Look-back: this launch's epoch (1 to 2^30 - 1) in `status`.
    pub epoch: u32,
}

/// Nanoseconds warp 0 waits after publishing its aggregate before the first look at its
/// predecessors (CUB's "L2 write latency" delay): by then most have published an inclusive
/// prefix, so one poll usually ends the walk. Without it the polls contend with the tile
/// traffic (H200, i32, 2^27: copy ratio 1.66 without; 1.49 to 1.39 with 700 to 3500 ns).
pub const LOOKBACK_FIRST_POLL_NS: u32 = 2500;

/// Nanoseconds between polls of predecessors that have not yet published.
pub const LOOKBACK_POLL_NS: u32 = 1000;

/// Shared-memory layout of the scan kernels: the tile, the CTA-scan scratch, then a 16-byte
/// slot for broadcasts.
pub const fn shared_bytes(size: usize, nt: usize, vt: usize) -> usize {
    misc_offset(size, nt, vt) + 16
}

const fn scan_offset(size: usize, nt: usize, vt: usize) -> usize {
    (nt * vt * size).div_ceil(16) * 16
}

const fn misc_offset(size: usize, nt: usize, vt: usize) -> usize {
    scan_offset(size, nt, vt) + (cta_scan_shared_len(nt) * size).div_ceil(16) * 16
}

struct Smem<T> {
    tile: *mut T,
    scan: *mut T,
    misc_t: *mut T,
}

#[inline(always)]
fn smem<C: Cta, T: Element, const NT: usize, const VT: usize>(cta: &C) -> Smem<T> {
    let s = core::mem::size_of::<T>();
    Smem {
        tile: cta.shared(0),
        scan: cta.shared(scan_offset(s, NT, VT)),
        misc_t: cta.shared(misc_offset(s, NT, VT) + 8),
    }
}

#[inline(always)]
fn kind_of(flags: u32) -> ScanKind {
    if flags & FLAG_INCLUSIVE != 0 {
        ScanKind::Inclusive
    } else {
        ScanKind::Exclusive
    }
}

/// Whether the running scan `carry op x[0] op ...` ever decreases: for unsigned sums,
/// whether the true sum passed the type's maximum (each step adds less than 2^bits, so a
/// wrap shows as a decrease).
#[inline(always)]
fn decreases<T: Element, Op: AssociativeOp<T>, const VT: usize>(x: &[T; VT], carry: T) -> bool {
    let mut c = carry;
    let mut bad = false;
    for v in x.iter() {
        let next = Op::apply(c, *v);
        bad |= next < c;
        c = next;
    }
    bad
}

/// Loads a tile of `count` values (`count <= NT * VT`) into shared memory in natural order
/// (missing values are the identity) with per-warp transposes, and returns this thread's
/// reduction of its `VT` values. The values stay in shared memory for [`scan_tile_from`],
/// so they need not stay live in registers across the CTA scan and the look-back.
#[inline(always)]
unsafe fn load_tile_reduce<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    src: *const T,
    count: usize,
    sh: *mut T,
) -> T {
    let x = global_to_thread_order_warp::<C, T, NT, VT>(cta, src, count, Op::identity(), sh);
    thread_reduce::<T, Op, VT>(&x)
}

/// Scans the tile [`load_tile_reduce`] left in shared memory from `carry`, this thread's
/// exclusive prefix: re-reads the thread's values, serial scan, overflow check, per-warp
/// transposed store of the positions below `count`. Returns this thread's carry-out (its
/// inclusive value past its last slot). Call after a barrier that follows the load; ends
/// without one.
#[inline(always)]
unsafe fn scan_tile_from<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    a: &ScanArgs<T>,
    carry: T,
    dst: *mut T,
    count: usize,
    sh: *mut T,
) -> T {
    let x = shared_to_regs_thread::<C, T, VT>(cta, sh);
    let (y, out) = thread_scan::<T, Op, VT>(&x, carry, kind_of(a.flags));
    if a.flags & FLAG_CHECK_MONOTONIC != 0 && decreases::<T, Op, VT>(&x, carry) {
        cta.atomic_or_u32(a.error, ERROR_OVERFLOW);
    }
    thread_order_to_global_warp::<C, T, NT, VT>(cta, &y, dst, count, sh);
    out
}

/// The tag of a status published in `epoch`: `epoch << 2 | status`. A 4-byte value's status
/// word carries it in its high half; an 8-byte value's flag is the tag itself.
#[inline(always)]
fn tag(epoch: u32, status: u32) -> u32 {
    (epoch << 2) | status
}

/// The status a tag read back says for this launch's `epoch`: `STATUS_X` for a tag of
/// another epoch (a word left by an earlier launch).
#[inline(always)]
fn tag_status(tag: u32, epoch: u32) -> u32 {
    if tag >> 2 == epoch {
        tag & 3
    } else {
        STATUS_X
    }
}

/// A status word: the tag in the high half, the 32-bit value in the low half (relaxed
/// 64-bit stores are single-copy atomic, so a reader sees all of it or none).
#[inline(always)]
fn status_word(epoch: u32, status: u32, value: u32) -> u64 {
    ((tag(epoch, status) as u64) << 32) | value as u64
}

/// Publishes `status` and `v` for `tile`. 4-byte types: one 64-bit word, value in the low
/// half, status in bits 32-33, epoch above; a relaxed 64-bit store is single-copy atomic,
/// so readers see all of it or none. 8-byte types: the value goes to `values` (aggregates
/// first, then inclusive prefixes) and a release store publishes `epoch << 2 | status`.
#[inline(always)]
unsafe fn publish<C: Cta, T: Element>(
    cta: &C,
    a: &ScanArgs<T>,
    tiles: u64,
    tile: u64,
    status: u32,
    v: T,
) {
    if T::WORDS == 1 {
        let word = status_word(a.epoch, status, v.to_words()[0]);
        cta.store_relaxed_u64(a.status.add(tile as usize), word);
    } else {
        let slot = if status == STATUS_P {
            tiles + tile
        } else {
            tile
        };
        a.values.add(slot as usize).write_volatile(v);
        cta.store_release_u32(
            (a.status as *mut u32).add(tile as usize),
            tag(a.epoch, status),
        );
    }
}

/// Reads what [`publish`] wrote for `tile` in this launch's epoch: `STATUS_X` for a word
/// of another epoch.
#[inline(always)]
unsafe fn read_status<C: Cta, T: Element>(
    cta: &C,
    a: &ScanArgs<T>,
    tiles: u64,
    tile: u64,
) -> (u32, T) {
    if T::WORDS == 1 {
        let word = cta.load_relaxed_u64(a.status.add(tile as usize));
        let status = tag_status((word >> 32) as u32, a.epoch);
        (status, T::from_words([word as u32, 0]))
    } else {
        let flag = cta.load_acquire_u32((a.status as *const u32).add(tile as usize));
        let status = tag_status(flag, a.epoch);
        let slot = if status == STATUS_P {
            tiles + tile
        } else {
            tile
        };
        let v = if status == STATUS_X {
            T::ZERO
        } else {
            a.values.add(slot as usize).read_volatile()
        };
        (status, v)
    }
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
pub(crate) unsafe fn look_back<C: Cta, T: Element, Op: AssociativeOp<T>>(
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

/// Loads this warp's segment of a tile (`32 * VT` values from `cta.warp() * 32 * VT`) into
/// the same positions of `sh`, natural order, and returns this thread's `VT` values (thread
/// order) after a warp barrier. With `vec` (a full tile whose source is 16-byte aligned)
/// as 16-byte vectors, all issued before the first is stored; otherwise as coalesced scalars,
/// the identity past `count`.
#[inline(always)]
unsafe fn load_segment<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    src: *const T,
    count: usize,
    sh: *mut T,
    vec: bool,
) -> [T; VT] {
    if !vec {
        return global_to_thread_order_warp::<C, T, NT, VT>(cta, src, count, Op::identity(), sh);
    }
    let seg = cta.warp() as usize * 32 * VT;
    let (s, d) = (src.add(seg) as *const Vec16, sh.add(seg) as *mut Vec16);
    let (lane, last) = (cta.lane() as usize, segment_vecs::<T, VT>() - 1);
    // Clamped indices: a lane past the end loads and stores the segment's last vector
    // again, the same bytes as its owner, so no load waits behind a branch.
    // The words are moved one by one (LLVM fuses them into 16-byte accesses): a copy of
    // the whole struct becomes a memcpy staged in local memory.
    let k = |i: usize| (lane + 32 * i).min(last);
    let v: [[u32; 4]; 4] = core::array::from_fn(|i| {
        let Vec16([w0, w1, w2, w3]) = *s.add(k(i));
        [w0, w1, w2, w3]
    });
    for (i, w) in v.iter().enumerate() {
        *d.add(k(i)) = Vec16(*w);
    }
    cta.sync_warp(!0);
    shared_to_regs_thread::<C, T, VT>(cta, sh)
}

/// 16-byte vectors in a warp's segment of `32 * VT` values: at most 128, so
/// [`load_segment`] moves them with four loads a lane.
#[inline(always)]
const fn segment_vecs<T, const VT: usize>() -> usize {
    const { assert!(32 * VT * core::mem::size_of::<T>() <= 128 * 16) };
    32 * VT * core::mem::size_of::<T>() / 16
}

/// Stores this warp's segment of a tile from `sh` (natural order) to `dst`, each value
/// `v` as `prefix op v`, positions below `count`. With `vec` (a full tile whose destination
/// is 16-byte aligned) as 16-byte vectors, otherwise as coalesced scalars.
#[inline(always)]
unsafe fn store_segment<C: Cta, T: Element, Op: AssociativeOp<T>, const VT: usize>(
    cta: &C,
    prefix: T,
    dst: *mut T,
    count: usize,
    sh: *const T,
    vec: bool,
) {
    let seg = cta.warp() as usize * 32 * VT;
    let lane = cta.lane() as usize;
    if vec {
        let (s, d) = (sh.add(seg) as *const Vec16, dst.add(seg) as *mut Vec16);
        let n = segment_vecs::<T, VT>();
        for i in 0..4 {
            let k = lane + 32 * i;
            if k < n {
                *d.add(k) = apply_vec16::<T, Op>(prefix, *s.add(k));
            }
        }
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
    let nv = (NT * VT) as u64;
    let sh = smem::<C, T, NT, VT>(cta);
    let tiles = a.n.div_ceil(nv);
    let tile = cta.block() as u64;
    let base = tile * nv;
    let count = (a.n - base).min(nv) as usize;
    let (src, dst) = (a.input.add(base as usize), a.output.add(base as usize));
    let full = count == nv as usize;
    let check = a.flags & FLAG_CHECK_MONOTONIC != 0;
    let x = load_segment::<C, T, Op, NT, VT>(
        cta,
        src,
        count,
        sh.tile,
        full && (src as usize).is_multiple_of(16),
    );
    let t = thread_reduce::<T, Op, VT>(&x);
    let (thread_exc, agg) = cta_scan::<C, T, Op, NT>(cta, t, sh.scan, ScanKind::Exclusive);
    if cta.warp() == 0 && cta.lane() == 0 && tile > 0 {
        publish::<C, T>(cta, a, tiles, tile, STATUS_A, agg);
    }
    // The thread's values scanned within the tile, back into its own slots.
    let (y, _) = thread_scan::<T, Op, VT>(&x, thread_exc, kind_of(a.flags));
    regs_to_shared_thread::<C, T, VT>(cta, &y, sh.tile);
    if check && decreases::<T, Op, VT>(&x, thread_exc) {
        cta.atomic_or_u32(a.error, ERROR_OVERFLOW);
    }
    if cta.warp() == 0 {
        let prefix = if tile == 0 {
            Op::identity()
        } else {
            look_back::<C, T, Op>(cta, a, tiles, tile)
        };
        if cta.lane() == 0 {
            let inclusive = Op::apply(prefix, agg);
            publish::<C, T>(cta, a, tiles, tile, STATUS_P, inclusive);
            *sh.misc_t = prefix;
            if tile == tiles - 1 {
                *a.total = inclusive;
            }
            if check && inclusive < prefix {
                cta.atomic_or_u32(a.error, ERROR_OVERFLOW);
            }
        }
    }
    cta.sync();
    store_segment::<C, T, Op, VT>(
        cta,
        *sh.misc_t,
        dst,
        count,
        sh.tile,
        full && (dst as usize).is_multiple_of(16),
    );
}

/// The tiles `[first, end)` of the calling CTA in reduce-then-scan.
#[inline(always)]
fn cta_tiles<C: Cta>(cta: &C, tiles: u64, per_cta: u32) -> (u64, u64) {
    let first = cta.block() as u64 * per_cta as u64;
    (first, (first + per_cta as u64).min(tiles))
}

/// 16 bytes: the unit of [`partials`]' vector loads.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Vec16([u32; 4]);

/// Vector loads in flight per thread in [`partials`].
const REDUCE_UNROLL: usize = 4;

/// `prefix op v` for each element of one 16-byte vector.
#[inline(always)]
fn apply_vec16<T: Element, Op: AssociativeOp<T>>(prefix: T, v: Vec16) -> Vec16 {
    let w = v.0;
    if T::WORDS == 1 {
        Vec16(core::array::from_fn(|i| {
            Op::apply(prefix, T::from_words([w[i], 0])).to_words()[0]
        }))
    } else {
        let lo = Op::apply(prefix, T::from_words([w[0], w[1]])).to_words();
        let hi = Op::apply(prefix, T::from_words([w[2], w[3]])).to_words();
        Vec16([lo[0], lo[1], hi[0], hi[1]])
    }
}

/// A 16-byte vector of identities.
#[inline(always)]
fn identity_vec16<T: Element, Op: AssociativeOp<T>>() -> Vec16 {
    let w = Op::identity().to_words();
    if T::WORDS == 1 {
        Vec16([w[0]; 4])
    } else {
        Vec16([w[0], w[1], w[0], w[1]])
    }
}

/// Folds the elements of one 16-byte vector into `acc`, in order.
#[inline(always)]
fn fold_vec16<T: Element, Op: AssociativeOp<T>>(acc: T, v: Vec16) -> T {
    let w = v.0;
    if T::WORDS == 1 {
        let a = Op::apply(acc, T::from_words([w[0], 0]));
        let a = Op::apply(a, T::from_words([w[1], 0]));
        let a = Op::apply(a, T::from_words([w[2], 0]));
        Op::apply(a, T::from_words([w[3], 0]))
    } else {
        let a = Op::apply(acc, T::from_words([w[0], w[1]]));
        Op::apply(a, T::from_words([w[2], w[3]]))
    }
}

/// Reduce-then-scan upsweep, and the whole of a reduction: CTA `b` reduces tiles
/// `[b * tiles_per_cta, ...)` into `values[b]` (a scan) or publishes it in `status` for the
/// last CTA to collect ([`FLAG_REDUCE_ONLY`], see `collect_partials`). When `input` is
/// 16-byte aligned the range is read as 16-byte vectors, `REDUCE_UNROLL` in flight per
/// thread (thread `t` folds vectors `t, t + NT, ...` in order); otherwise as strided
/// scalars. Either way every thread folds a fixed sequence, so the result depends only on
/// the grid: deterministic.
///
/// Reads `input`, `n`, `tiles_per_cta`, `flags`; a scan writes `values`; a reduction reads
/// and writes `status` (tagged with `epoch`) and writes `total`.
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
    let nv = (NT * VT) as u64;
    let sh = smem::<C, T, NT, VT>(cta);
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
            let count = (a.n - base).min(nv) as usize;
            let x: [T; VT] = if count == nv as usize {
                global_to_regs_strided::<C, T, NT, VT>(cta, src)
            } else {
                global_to_regs_strided_guarded::<C, T, NT, VT>(cta, src, count, Op::identity())
            };
            acc = Op::apply(acc, thread_reduce::<T, Op, VT>(&x));
            tile += 1;
        }
    }
    let total = cta_reduce::<C, T, Op, NT>(cta, acc, sh.scan);
    if a.flags & FLAG_REDUCE_ONLY != 0 {
        collect_partials::<C, T, Op, NT>(cta, a, total, sh.scan);
    } else if cta.tid() == 0 {
        *a.values.add(cta.block() as usize) = total;
    }
}

/// Partials the last CTA of a reduction polls at once per thread (more are polled in
/// rounds): 4 of 4-byte types, 2 of 8-byte ones (two tagged words each), which keeps the
/// 8-byte `partials` kernels inside their 32 registers without spilling.
const COLLECT_UNROLL: usize = 4;

#[inline(always)]
const fn collect_unroll<T>() -> usize {
    if core::mem::size_of::<T>() == 8 {
        2
    } else {
        COLLECT_UNROLL
    }
}

/// The status word of CTA `j`'s partial, word `k` of its `T::WORDS` 32-bit words.
#[inline(always)]
unsafe fn partial_word<T: Element>(a: &ScanArgs<T>, j: u64, k: usize) -> *mut u64 {
    a.status.add(j as usize * T::WORDS + k)
}

/// Publishes this CTA's partial: each 32-bit word of it in its own [`status_word`] with
/// `STATUS_P`, so a reader needs no fence.
#[inline(always)]
unsafe fn publish_partial<C: Cta, T: Element>(cta: &C, a: &ScanArgs<T>, v: T) {
    let [w0, w1] = v.to_words();
    let block = cta.block() as u64;
    cta.store_relaxed_u64(
        partial_word(a, block, 0),
        status_word(a.epoch, STATUS_P, w0),
    );
    if T::WORDS == 2 {
        cta.store_relaxed_u64(
            partial_word(a, block, 1),
            status_word(a.epoch, STATUS_P, w1),
        );
    }
}

/// Whether CTA `j`'s partial of this launch is published, and its value.
#[inline(always)]
unsafe fn poll_partial<C: Cta, T: Element>(cta: &C, a: &ScanArgs<T>, j: u64) -> (bool, T) {
    let published = |w: u64| tag_status((w >> 32) as u32, a.epoch) == STATUS_P;
    let w0 = cta.load_relaxed_u64(partial_word(a, j, 0));
    if T::WORDS == 1 {
        return (published(w0), T::from_words([w0 as u32, 0]));
    }
    let w1 = cta.load_relaxed_u64(partial_word(a, j, 1));
    (
        published(w0) && published(w1),
        T::from_words([w0 as u32, w1 as u32]),
    )
}

/// The end of a reduction: every CTA publishes its partial in the epoch-tagged `status`
/// block ([`publish_partial`]), and the last CTA polls until all
/// `grid` are there, then reduces them into `total` in a fixed order (thread `t` folds partials
/// `t, t + NT, ...`, then a CTA reduction), so float results are the same bits every run.
/// No fences or atomics on the path from the last partial to the total (the last CTA to
/// finish counting itself on an atomic counter, then reading the partials, measured slower).
///
/// As with the look-back, the last CTA relies on CTAs starting in block order, so that
/// every CTA it waits for is resident or done.
#[inline(always)]
unsafe fn collect_partials<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    a: &ScanArgs<T>,
    partial: T,
    scratch: *mut T,
) {
    let grid = cta.grid() as u64;
    if cta.tid() == 0 {
        publish_partial::<C, T>(cta, a, partial);
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
                poll_partial::<C, T>(cta, a, j(k).min(grid - 1))
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

/// Reduce-then-scan spine, one CTA: exclusive scan of the `n` values at `values` in place,
/// and their reduction into `total`.
///
/// # Safety
/// As for [`lookback`]; launched with one CTA.
#[inline(always)]
pub unsafe fn spine<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>(
    cta: &C,
    a: &ScanArgs<T>,
) {
    let nv = (NT * VT) as u64;
    let sh = smem::<C, T, NT, VT>(cta);
    let mut carry = Op::identity();
    let mut base = 0u64;
    while base < a.n {
        let count = (a.n - base).min(nv) as usize;
        let p = a.values.add(base as usize);
        let t = load_tile_reduce::<C, T, Op, NT, VT>(cta, p, count, sh.tile);
        let (exc, agg) = cta_scan::<C, T, Op, NT>(cta, t, sh.scan, ScanKind::Exclusive);
        let x = shared_to_regs_thread::<C, T, VT>(cta, sh.tile);
        let (y, _) = thread_scan::<T, Op, VT>(&x, Op::apply(carry, exc), ScanKind::Exclusive);
        thread_order_to_global_warp::<C, T, NT, VT>(cta, &y, p, count, sh.tile);
        carry = Op::apply(carry, agg);
        base += nv;
        cta.sync();
    }
    if cta.tid() == 0 {
        *a.total = carry;
    }
}

/// Reduce-then-scan downsweep: CTA `b` scans its tiles from the exclusive prefix
/// `values[b]`; the thread holding the last element writes `total`, its carry-out, so the
/// total equals the last inclusive value bit for bit.
///
/// Reads `input`, `n`, `values`, `flags`, `tiles_per_cta`; writes `output`, `total`,
/// `error`.
///
/// # Safety
/// As for [`lookback`].
#[inline(always)]
pub unsafe fn downsweep<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    a: &ScanArgs<T>,
) {
    let nv = (NT * VT) as u64;
    let sh = smem::<C, T, NT, VT>(cta);
    let tiles = a.n.div_ceil(nv);
    let (first, end) = cta_tiles(cta, tiles, a.tiles_per_cta);
    let mut carry = *a.values.add(cta.block() as usize);
    let mut tile = first;
    while tile < end {
        let base = tile * nv;
        let count = (a.n - base).min(nv) as usize;
        let t =
            load_tile_reduce::<C, T, Op, NT, VT>(cta, a.input.add(base as usize), count, sh.tile);
        let (exc, agg) = cta_scan::<C, T, Op, NT>(cta, t, sh.scan, ScanKind::Exclusive);
        let dst = a.output.add(base as usize);
        let out =
            scan_tile_from::<C, T, Op, NT, VT>(cta, a, Op::apply(carry, exc), dst, count, sh.tile);
        if tile == tiles - 1 && cta.tid() as usize == (count - 1) / VT {
            *a.total = out;
        }
        carry = Op::apply(carry, agg);
        tile += 1;
        cta.sync();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::sim::{launch, SimCta};
    use mgpu_core::Plus;

    /// Tiles published as aggregates (A) or inclusive prefixes (P) in a fixed pattern; the
    /// walk from every tile must fold back to the nearest P, across several windows.
    fn check_walk<T: Element>(value: impl Fn(u64) -> T, add: impl Fn(T, T) -> T)
    where
        Plus: AssociativeOp<T>,
    {
        let tiles = 300u64;
        // P only at tiles 0, 7, 150, so walks cross several windows of 32.
        let is_p = |t: u64| t == 0 || t == 7 || t == 150;
        let mut status = vec![0u64; tiles as usize + 1];
        let mut values = vec![T::ZERO; 2 * tiles as usize];
        let mut inclusive = vec![T::ZERO; tiles as usize];
        let mut acc = T::ZERO;
        for t in 0..tiles {
            acc = add(acc, value(t));
            inclusive[t as usize] = acc;
        }
        let args = ScanArgs::<T> {
            input: core::ptr::null(),
            output: core::ptr::null_mut(),
            n: 0,
            status: status.as_mut_ptr(),
            values: values.as_mut_ptr(),
            total: core::ptr::null_mut(),
            error: core::ptr::null_mut(),
            flags: 0,
            tiles_per_cta: 0,
            epoch: 5,
        };
        // Publish through the kernels' own function, from a one-thread "CTA".
        launch(1, 32, 0, &|cta: &SimCta| unsafe {
            if cta.tid() == 0 {
                for t in 0..tiles {
                    let (s, v) = if is_p(t) {
                        (STATUS_P, inclusive[t as usize])
                    } else {
                        (STATUS_A, value(t))
                    };
                    publish::<SimCta, T>(cta, &args, tiles, t, s, v);
                }
            }
        });
        for tile in [
            1u64, 2, 8, 9, 40, 71, 72, 73, 100, 149, 150, 151, 152, 230, 299,
        ] {
            let mut got = vec![T::ZERO; 32];
            let gp = got.as_mut_ptr() as usize;
            launch(1, 32, 0, &|cta: &SimCta| unsafe {
                let p = look_back::<SimCta, T, Plus>(cta, &args, tiles, tile);
                *(gp as *mut T).add(cta.lane() as usize) = p;
            });
            let want = inclusive[tile as usize - 1];
            assert!(
                got.iter().all(|&g| g == want),
                "tile {tile}: {:?} vs {want:?}",
                got[0]
            );
        }
    }

    #[test]
    fn words_of_another_epoch_read_as_unpublished() {
        let mut status = vec![0u64; 4];
        let mut flags = vec![0u64; 4];
        let mut values = vec![0u64; 8];
        let mk = |status: *mut u64, values: *mut u64, epoch: u32| ScanArgs::<u64> {
            input: core::ptr::null(),
            output: core::ptr::null_mut(),
            n: 0,
            status,
            values,
            total: core::ptr::null_mut(),
            error: core::ptr::null_mut(),
            flags: 0,
            tiles_per_cta: 0,
            epoch,
        };
        let (sp, fp, vp) = (
            status.as_mut_ptr() as usize,
            flags.as_mut_ptr() as usize,
            values.as_mut_ptr() as usize,
        );
        launch(1, 32, 0, &|cta: &SimCta| unsafe {
            if cta.tid() != 0 {
                return;
            }
            // 4-byte values: packed words.
            let old = ScanArgs::<u32> {
                input: core::ptr::null(),
                output: core::ptr::null_mut(),
                n: 0,
                status: sp as *mut u64,
                values: core::ptr::null_mut(),
                total: core::ptr::null_mut(),
                error: core::ptr::null_mut(),
                flags: 0,
                tiles_per_cta: 0,
                epoch: 4,
            };
            publish::<SimCta, u32>(cta, &old, 4, 1, STATUS_P, 77);
            let new = ScanArgs::<u32> { epoch: 5, ..old };
            assert_eq!(read_status::<SimCta, u32>(cta, &new, 4, 1).0, STATUS_X);
            assert_eq!(read_status::<SimCta, u32>(cta, &old, 4, 1), (STATUS_P, 77));
            // 8-byte values: flag words and side values.
            let old = mk(fp as *mut u64, vp as *mut u64, 9);
            publish::<SimCta, u64>(cta, &old, 4, 2, STATUS_A, 1 << 40);
            assert_eq!(
                read_status::<SimCta, u64>(cta, &mk(fp as *mut u64, vp as *mut u64, 10), 4, 2).0,
                STATUS_X
            );
            assert_eq!(
                read_status::<SimCta, u64>(cta, &old, 4, 2),
                (STATUS_A, 1 << 40)
            );
        });
    }

    /// A reduction whose last CTA collects more partials than it polls at once
    /// (`COLLECT_UNROLL * NT`), so it polls in rounds; 4- and 8-byte partials.
    fn check_collect<T: Element>(value: impl Fn(u64) -> T)
    where
        Plus: AssociativeOp<T>,
    {
        const NT: usize = 32;
        let grid = 4 * COLLECT_UNROLL * NT + 5;
        let n = grid * NT + 7; // the last CTA's tile is partial
        let x: Vec<T> = (0..n as u64).map(value).collect();
        let want = x.iter().fold(T::ZERO, |a, &b| {
            <Plus as mgpu_core::BinaryOp<T>>::apply(a, b)
        });
        let mut status = vec![0u64; 2 * grid + 2];
        let mut total = vec![T::ZERO; 1];
        let args = ScanArgs::<T> {
            input: x.as_ptr(),
            output: core::ptr::null_mut(),
            n: n as u64,
            status: status.as_mut_ptr(),
            values: core::ptr::null_mut(),
            total: total.as_mut_ptr(),
            error: core::ptr::null_mut(),
            flags: FLAG_REDUCE_ONLY,
            tiles_per_cta: 1,
            epoch: 3,
        };
        let blocks = n.div_ceil(NT) as u32;
        launch(
            blocks,
            NT as u32,
            shared_bytes(size_of::<T>(), NT, 1),
            &|cta: &SimCta| unsafe { partials::<SimCta, T, Plus, NT, 1>(cta, &args) },
        );
        assert!(total[0] == want, "{:?} vs {want:?}", total[0]);
    }

    #[test]
    fn reduction_collects_partials_in_rounds() {
        check_collect::<u32>(|i| (i * 2654435761 % 1000) as u32);
        check_collect::<u64>(|i| (i << 33) ^ i);
        check_collect::<f64>(|i| (i % 17) as f64 - 8.0);
    }

    #[test]
    fn look_back_folds_aggregates_back_to_the_nearest_prefix() {
        check_walk::<u32>(|t| (t * 37 % 101) as u32, |a, b| a.wrapping_add(b));
        check_walk::<u64>(|t| t * t + (1 << 40), |a, b| a.wrapping_add(b));
    }
}
