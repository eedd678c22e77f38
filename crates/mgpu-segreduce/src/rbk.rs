//! Reduce-by-key (seed 002's `ReduceByKey`): the kernel bodies, generic over [`Cta`], the
//! key type and comparator or the value type and operator, and the tile shape.
//!
//! A run is a maximal stretch of adjacent keys that the comparator calls equal; its
//! reduction is its values combined in order. The items are cut into tiles of `NT * VT`
//! (the same tiles in every pass), each thread holding `VT` consecutive items:
//!
//! 1. [`rbk_heads`] (per key type and comparator) reads the keys and marks each run's
//!    first item (its head). Each thread packs its `VT` head bits and the heads before it
//!    in the tile into one code word (`bits | before << 16`), the tile's head count goes
//!    to `counts`, and its head keys, compacted, to the tile's own stretch of `head_keys`.
//! 2. The host scans the counts (exclusive: the runs before each tile, and the run count,
//!    which stays on the device).
//! 3. [`rbk_keys`] moves each tile's head keys to their runs in `keys_out`.
//! 4. [`rbk_reduce`] (per value type and operator) reads the values and the codes (the
//!    keys are not read again): each thread folds its values in order, a head ending the
//!    run before it; the CTA segmented scan and the segmented reduction's spine
//!    ([`crate::device::spine`], which takes the
//!    tiles' runs from `heads`) join threads and tiles, in order.
//!
//! Passes 1 to 3 depend on the keys only, so a plan (the seed's preprocess) runs them
//! once and pass 4 for each new set of values. Without a plan, pass 4 also does pass 3's
//! work (each tile moves its own head keys, type-erased as 32-bit words), one launch
//! fewer: 10 of a mean-10 reduction's 90 us at 2^24 on an H100 went to pass 3's launch.
//! Every operator is applied in run order and the association depends only on the tile
//! shape: results are the same bits on every run. A run count past the outputs' `capacity` raises [`ERROR_CAPACITY`] and nothing is
//! stored.

use crate::device::{align16, ended_segments, SegReduceArgs, Walk, ERROR_CAPACITY};
use mgpu_core::{AssociativeOp, Comparator, Cta, Element, Plus};
use mgpu_ctascan::{cta_scan, cta_scan_shared_len, cta_seg_scan, seg_scan_shared_bytes, ScanKind};

/// Arguments of [`rbk_heads`] and [`rbk_keys`] (the passes over the keys).
///
/// # Examples
///
/// ```
/// let a = mgpu_segreduce::rbk::RbkKeysArgs::<i32>::default();
/// assert!(a.keys.is_null() && a.total == 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RbkKeysArgs<K> {
    /// The keys (`total` of them).
    pub keys: *const K,
    /// Items.
    pub total: u64,
    /// Per tile thread (`NT` per tile): its head bits and the heads before it in the tile,
    /// `bits | before << 16`.
    pub codes: *mut u32,
    /// Per tile: its run heads.
    pub counts: *mut u64,
    /// `total` slots: tile `t`'s head keys, compacted, from `t * NT * VT`.
    pub head_keys: *mut K,
    /// Per tile: the runs that start before it (the exclusive scan of `counts`).
    pub heads: *const u64,
    /// The number of runs (one word).
    pub run_count: *const u64,
    /// The first key of each run (`capacity` slots).
    pub keys_out: *mut K,
    /// `keys_out`'s length.
    pub capacity: u64,
    /// The error word ([`ERROR_CAPACITY`]).
    pub error: *mut u32,
}

impl<K> Default for RbkKeysArgs<K> {
    /// Null pointers and zero sizes.
    fn default() -> Self {
        use core::ptr::{null, null_mut};
        RbkKeysArgs {
            keys: null(),
            total: 0,
            codes: null_mut(),
            counts: null_mut(),
            head_keys: null_mut(),
            heads: null(),
            run_count: null(),
            keys_out: null_mut(),
            capacity: 0,
            error: null_mut(),
        }
    }
}

/// Words of head keys a thread of [`rbk_reduce`] loads beside its values (the rest, when
/// a tile holds more, are copied after).
const KEY_BATCH: usize = 4;

/// Items of tile `block` (tiles of `nv` over `total` items).
#[inline(always)]
fn tile_items(block: u32, nv: usize, total: u64) -> (u64, u32) {
    let start = block as u64 * nv as u64;
    let rest = total - start;
    (
        start,
        if rest < nv as u64 {
            rest as u32
        } else {
            nv as u32
        },
    )
}

/// Bytes of shared memory [`rbk_heads`] needs: the tile's keys with the one before it,
/// then the CTA scan's scratch.
///
/// ```
/// assert_eq!(mgpu_segreduce::rbk::heads_shared_bytes(128, 11, 4), 5648 + 16);
/// ```
pub const fn heads_shared_bytes(nt: usize, vt: usize, k_bytes: usize) -> usize {
    align16((nt * vt + 1) * k_bytes) + align16(cta_scan_shared_len(nt) * 4)
}

/// Pass 1: tile `cta.block()` marks its run heads (item `i` is a head when it is the first
/// item or `!Eq::compare(key[i - 1], key[i])`) and writes its threads' codes, its head
/// count and its head keys (see the module docs).
///
/// # Safety
/// `keys` readable at `0..total`, `codes` writable at `0..grid * NT`, `counts` at
/// `0..grid`, `head_keys` at `0..total`; shared memory is [`heads_shared_bytes`]; the grid
/// is `total.div_ceil(NT * VT)`. `VT <= 16` and `NT * VT < 65536`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, EqualTo};
/// use mgpu_segreduce::rbk::{heads_shared_bytes, rbk_heads, RbkKeysArgs};
/// let keys = [7u32, 7, 3, 3, 3, 7];
/// let (mut codes, mut counts, mut hk) = ([0u32; 32], [0u64], [0u32; 6]);
/// let args = RbkKeysArgs { keys: keys.as_ptr(), total: 6, codes: codes.as_mut_ptr(),
///     counts: counts.as_mut_ptr(), head_keys: hk.as_mut_ptr(), ..Default::default() };
/// sim::launch(1, 32, heads_shared_bytes(32, 2, 4), &|cta: &sim::SimCta| unsafe {
///     rbk_heads::<_, u32, EqualTo, 32, 2>(cta, &args)
/// });
/// assert_eq!(counts, [3]);
/// assert_eq!(&hk[..3], &[7, 3, 7]);
/// assert_eq!(&codes[..3], &[0b01, 0b01 | 1 << 16, 0b10 | 2 << 16]); // items 0, 2 and 5
/// ```
#[inline(always)]
pub unsafe fn rbk_heads<C: Cta, K: Element, Eq: Comparator<K>, const NT: usize, const VT: usize>(
    cta: &C,
    args: &RbkKeysArgs<K>,
) {
    const { assert!(VT <= 16 && NT * VT < 65536) };
    let (start, count) = tile_items(cta.block(), NT * VT, args.total);
    // Every tile but the last is full: its loads and compares need no guard (ptxas kept
    // the 11 guards of the general body in spilled predicate bits).
    if count as usize == NT * VT {
        heads_tile::<C, K, Eq, NT, VT, true>(cta, args, start, count)
    } else {
        heads_tile::<C, K, Eq, NT, VT, false>(cta, args, start, count)
    }
}

/// [`rbk_heads`] for the tile of `count` items from `start` (`FULL`: `count` is
/// `NT * VT`).
#[inline(always)]
unsafe fn heads_tile<
    C: Cta,
    K: Element,
    Eq: Comparator<K>,
    const NT: usize,
    const VT: usize,
    const FULL: bool,
>(
    cta: &C,
    args: &RbkKeysArgs<K>,
    start: u64,
    count: u32,
) {
    let (block, tid) = (cta.block(), cta.tid());
    // Slot 0: the key before the tile; slot 1 + i: the tile's key i. Then, once every
    // thread has compared, the tile's head keys, compacted.
    let keys = cta.shared::<K>(0);
    let scratch = cta.shared::<u32>(align16((NT * VT + 1) * core::mem::size_of::<K>()));
    let src = args.keys.add(start as usize);
    let mut v = [K::ZERO; VT];
    for (k, x) in v.iter_mut().enumerate() {
        let i = tid + (NT * k) as u32;
        if FULL || i < count {
            *x = *src.add(i as usize);
        }
    }
    if tid == 0 {
        // Tile 0 has no key before it: its first item is a head whatever slot 0 holds.
        *keys = if block > 0 { *src.sub(1) } else { v[0] };
    }
    for (k, x) in v.iter().enumerate() {
        let i = tid + (NT * k) as u32;
        if FULL || i < count {
            *keys.add(1 + i as usize) = *x;
        }
    }
    cta.sync();
    // This thread's keys (thread order), each compared with the one before it.
    let base = tid as usize * VT;
    let mut mine = [K::ZERO; VT];
    let mut bits = 0u32;
    let mut prev = *keys.add(base);
    for (k, x) in mine.iter_mut().enumerate() {
        let valid = FULL || ((base + k) as u32) < count;
        if valid {
            *x = *keys.add(base + 1 + k);
            let head = !Eq::compare(&prev, x) || (block == 0 && base + k == 0);
            bits |= (head as u32) << k;
            prev = *x;
        }
    }
    let (before, tile_heads) =
        cta_scan::<C, u32, Plus, NT>(cta, bits.count_ones(), scratch, ScanKind::Exclusive);
    *args.codes.add(block as usize * NT + tid as usize) = bits | before << 16;
    if tid == 0 {
        *args.counts.add(block as usize) = tile_heads as u64;
    }
    // The head keys, compacted in shared memory (every compare is done: the scan
    // synchronised), then stored coalesced to the tile's stretch of `head_keys`.
    let mut slot = before as usize;
    for (k, x) in mine.iter().enumerate() {
        if (bits >> k) & 1 != 0 {
            *keys.add(slot) = *x;
            slot += 1;
        }
    }
    cta.sync();
    let out = args.head_keys.add(start as usize);
    let mut i = tid;
    while i < tile_heads {
        *out.add(i as usize) = *keys.add(i as usize);
        i += NT as u32;
    }
}

/// Pass 3: moves each tile's head keys to their runs in `keys_out`, one warp per tile,
/// `NT / 32` tiles per CTA (a CTA per tile would spend more time starting CTAs than
/// copying: a tile holds about `NT * VT / avg` heads); with more runs than `capacity`,
/// the first thread raises [`ERROR_CAPACITY`] and nothing is moved. (`Eq`, unused, is
/// the comparator of the keys' kernel set.)
///
/// # Safety
/// `heads` readable at `0..tiles`, `run_count` one word, `head_keys` as [`rbk_heads`]
/// left it, `keys_out` writable at `0..capacity`, `error` one word; the grid is
/// [`keys_grid`] of the tiles (`total.div_ceil(NT * VT)`). No shared memory.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, EqualTo};
/// use mgpu_segreduce::rbk::{keys_grid, rbk_keys, RbkKeysArgs};
/// // Two tiles of 64 items with 1 and 2 heads: tile 0's head keys from hk[0], tile 1's
/// // from hk[64]; one CTA of two warps moves both.
/// let (mut hk, heads, count) = ([0u32; 128], [0u64, 1], [3u64]);
/// (hk[0], hk[64], hk[65]) = (5, 6, 8);
/// let (mut out, mut err) = ([0u32; 3], [0u32]);
/// let args = RbkKeysArgs { total: 128, head_keys: hk.as_mut_ptr(), heads: heads.as_ptr(),
///     run_count: count.as_ptr(), keys_out: out.as_mut_ptr(), capacity: 3,
///     error: err.as_mut_ptr(), ..Default::default() };
/// let grid = keys_grid(2, 64);
/// sim::launch(grid as u32, 64, 0, &|cta: &sim::SimCta| unsafe {
///     rbk_keys::<_, u32, EqualTo, 64, 1>(cta, &args)
/// });
/// assert_eq!((grid, out), (1, [5, 6, 8]));
/// ```
#[inline(always)]
pub unsafe fn rbk_keys<C: Cta, K: Element, Eq: Comparator<K>, const NT: usize, const VT: usize>(
    cta: &C,
    args: &RbkKeysArgs<K>,
) {
    cta.grid_dependency_wait(); // the run counts come from the scan just before
    cta.launch_dependents();
    let runs = *args.run_count;
    if runs > args.capacity {
        if cta.block() == 0 && cta.tid() == 0 {
            cta.raise_error(args.error, ERROR_CAPACITY);
        }
        return;
    }
    let tiles = args.total.div_ceil((NT * VT) as u64);
    let tile = cta.block() as u64 * (NT / 32) as u64 + cta.warp() as u64;
    if tile >= tiles {
        return;
    }
    let h0 = *args.heads.add(tile as usize);
    let h1 = if tile + 1 < tiles {
        *args.heads.add(tile as usize + 1)
    } else {
        runs
    };
    let src = args.head_keys.add(tile as usize * NT * VT);
    let dst = args.keys_out.add(h0 as usize);
    let mut i = cta.lane() as u64;
    while i < h1 - h0 {
        *dst.add(i as usize) = *src.add(i as usize);
        i += 32;
    }
}

/// CTAs of [`rbk_keys`] for `tiles` tiles with `nt` threads (a warp per tile).
///
/// ```
/// assert_eq!(mgpu_segreduce::rbk::keys_grid(1000, 128), 250);
/// ```
pub const fn keys_grid(tiles: usize, nt: usize) -> usize {
    tiles.div_ceil(nt / 32)
}

/// Bytes of shared memory [`rbk_reduce`] needs: the tile's values (then its results),
/// then the segmented scan's scratch.
///
/// ```
/// assert_eq!(mgpu_segreduce::rbk::reduce_shared_bytes(128, 11, 8), 11280 + 48);
/// ```
pub const fn reduce_shared_bytes(nt: usize, vt: usize, t_bytes: usize) -> usize {
    align16((nt * vt + 1) * t_bytes) + align16(seg_scan_shared_bytes(nt, t_bytes))
}

/// Pass 4: tile `cta.block()` reduces its values by run (see the module docs): every run
/// that ends in the tile gets the reduction of its values in the tile (the spine
/// prepends the earlier tiles'), and the tile's carry-out (the open run's values) goes to
/// `carry_out`. When `head_keys` is set (a reduction without a plan) it also moves its
/// head keys to `keys_out`, which saves pass 3's launch. With more runs than `capacity`
/// it raises [`ERROR_CAPACITY`] (tile 0) and stores nothing.
///
/// # Safety
/// `data` readable at `0..total`, `codes`, `heads` and `run_count` as passes 1 and 2 left
/// them, `output` writable at `0..capacity`, `carry_out` at `0..grid`, `error` one word;
/// when `head_keys` is not null, it is as pass 1 left it (`total * key_words` words) and
/// `keys_out` writable at `0..capacity * key_words`;
/// shared memory is [`reduce_shared_bytes`]; the grid and shape are [`rbk_heads`]'.
///
/// # Examples
///
/// Values 1..=6 with heads at items 0, 2 and 5 (one tile of 32 threads of 2 items).
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::{device::SegReduceArgs, rbk::{rbk_reduce, reduce_shared_bytes}};
/// let data = [1i32, 2, 3, 4, 5, 6];
/// let mut codes = [0u32; 32];
/// codes[..3].copy_from_slice(&[0b01, 0b01 | 1 << 16, 0b10 | 2 << 16]);
/// let (heads, count) = ([0u64], [3u64]);
/// let (mut out, mut carry, mut err) = ([0i32; 3], [0i32], [0u32]);
/// let args = SegReduceArgs { data: data.as_ptr(), total: 6, output: out.as_mut_ptr(),
///     carry_out: carry.as_mut_ptr(), error: err.as_mut_ptr(), tiles: 1, heads: heads.as_ptr(),
///     run_count: count.as_ptr(), codes: codes.as_ptr(), capacity: 3, ..Default::default() };
/// sim::launch(1, 32, reduce_shared_bytes(32, 2, 4), &|cta: &sim::SimCta| unsafe {
///     rbk_reduce::<_, i32, Plus, 32, 2>(cta, &args)
/// });
/// assert_eq!((out, err), ([3, 12, 6], [0]));
/// ```
#[inline(always)]
pub unsafe fn rbk_reduce<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, u64>,
) {
    cta.grid_dependency_wait(); // the key passes (or anything) just before
    let (start, count) = tile_items(cta.block(), NT * VT, args.total);
    // Every tile but the last is full: its loads and its walk need no guard.
    if count as usize == NT * VT {
        reduce_tile::<C, T, Op, NT, VT, true>(cta, args, start, count)
    } else {
        reduce_tile::<C, T, Op, NT, VT, false>(cta, args, start, count)
    }
}

/// [`rbk_reduce`] for the tile of `count` items from `start` (`FULL`: `count` is
/// `NT * VT`).
#[inline(always)]
unsafe fn reduce_tile<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
    const FULL: bool,
>(
    cta: &C,
    args: &SegReduceArgs<T, u64>,
    start: u64,
    count: u32,
) {
    let (block, tid) = (cta.block(), cta.tid());
    let vals = cta.shared::<T>(0);
    let scratch = cta.shared::<u8>(align16((NT * VT + 1) * core::mem::size_of::<T>()));

    // The values, the thread's code and the tile's runs first: they depend on nothing
    // below, so their loads overlap the run count's. The values go to shared memory by
    // asynchronous copies (strided, coalesced), so no register holds them in flight: the
    // pass fits 32 registers, 16 CTAs an SM.
    let src = args.data.add(start as usize);
    for k in 0..VT {
        let i = tid as usize + NT * k;
        if FULL || (i as u32) < count {
            cta.async_copy(vals.add(i), src.add(i));
        } else {
            *vals.add(i) = Op::identity(); // every slot: the walk reads them unguarded
        }
    }
    let code = *args.codes.add(block as usize * NT + tid as usize);
    let last_tile = block + 1 == cta.grid();
    let h0 = *args.heads.add(block as usize);
    let h1_next = if last_tile {
        0
    } else {
        *args.heads.add(block as usize + 1)
    };
    let runs = *args.run_count;
    if runs > args.capacity {
        cta.async_copy_wait();
        if block == 0 && tid == 0 {
            cta.raise_error(args.error, ERROR_CAPACITY);
        }
        return;
    }
    let h1 = if last_tile { runs } else { h1_next };
    // No plan: the tile's head keys (runs h0..h1, compacted where rbk_heads left them) go
    // to their runs, as words. The first KEY_BATCH words a thread are loaded here, beside
    // the values, and stored while the values are copied, so that the copy adds
    // no round trip to the tile (copying them in a loop here, each load waiting for its
    // store, made the whole reduction 15 % slower on an H100).
    let (keys, keys_out, key_words) = if args.head_keys.is_null() {
        (args.head_keys, args.keys_out, 0)
    } else {
        let w = args.key_words as usize;
        (
            args.head_keys.add(start as usize * w),
            args.keys_out.add(h0 as usize * w),
            (h1 - h0) as usize * w,
        )
    };
    let mut batch = [0u32; KEY_BATCH];
    for (k, x) in batch.iter_mut().enumerate() {
        let i = tid as usize + NT * k;
        if i < key_words {
            *x = *keys.add(i);
        }
    }
    for (k, x) in batch.iter().enumerate() {
        let i = tid as usize + NT * k;
        if i < key_words {
            *keys_out.add(i) = *x;
        }
    }
    let mut i = tid as usize + NT * KEY_BATCH; // runs shorter than about 3 items
    while i < key_words {
        *keys_out.add(i) = *keys.add(i);
        i += NT;
    }
    cta.launch_dependents(); // the spine may start its CTAs (it waits for this grid's end)
    cta.async_copy_wait();
    cta.sync();
    let (bits, before) = (code & 0xffff, code >> 16);
    let base = tid as usize * VT;
    let x: [T; VT] = core::array::from_fn(|k| *vals.add(base + k));
    cta.sync(); // every thread holds its values: the slots take the tile's results now

    // The walk: a head ends the run before it and starts its own. The tile's head `r`
    // ends run `h0 + r - 1`, in slot `r` (`r - 1` in the tile of run 0, whose head ends
    // nothing). The thread's first end waits for the carry-in (below); the others are
    // stored as they are found.
    let shift = (h0 == 0) as u32;
    let mut next = (before + 1 - shift) as usize; // the slot of the thread's second end
    let mut walk = Walk::new(Op::identity());
    for (k, x) in x.iter().enumerate() {
        if (bits >> k) & 1 != 0 {
            if walk.end(|| vals.add(next), 0) {
                next += 1;
            }
            walk.acc = *x;
        } else if FULL || ((base + k) as u32) < count {
            walk.acc = Op::apply(walk.acc, *x);
        }
    }
    // The virtual end after the last item: the thread holding it.
    let has_last = last_tile && count > 0 && tid == (count - 1) / VT as u32;
    let carry = if has_last { Op::identity() } else { walk.acc };
    let (carry_in, tile_carry) =
        cta_seg_scan::<C, T, Op, NT>(cta, carry, bits != 0 || has_last, scratch);
    if walk.seen && before >= shift {
        *vals.add((before - shift) as usize) = walk.first_with::<Op>(carry_in);
    }
    let (first, end) = ended_segments(h0, h1, runs, last_tile);
    if has_last {
        *vals.add((runs - 1 - first) as usize) = walk.last_with::<Op>(carry_in);
    }
    cta.sync();
    let out = args.output.add(first as usize);
    let mut i = tid;
    while (i as u64) < end - first {
        *out.add(i as usize) = *vals.add(i as usize);
        i += NT as u32;
    }
    if tid == 0 {
        *args.carry_out.add(block as usize) = tile_carry;
    }
}
