//! Reduce-by-key (seed 002's `ReduceByKey`): the kernel bodies, generic over [`Cta`], the
//! key type and comparator or the value type and operator, and the tile shape.
//!
//! A run is a maximal stretch of adjacent keys that the comparator calls equal; its
//! reduction is its values combined in order. The items are cut into tiles of `NT * VT`
//! (the same tiles in every pass), each thread holding `VT` consecutive items:
//!
//! 1. [`rbk_heads`] (per key type and comparator) reads the keys and marks each run's
//!    first item (its head). Each thread packs its `VT` head bits and the heads before it
//!    in the tile into one code word (`bits | before << 16`). A decoupled look-back over
//!    the tiles' head counts (integers, so the order it adds them in does not matter)
//!    gives each tile the runs before it (`heads`), which places its head keys in
//!    `keys_out`; the last tile writes the run count, which stays on the device.
//! 2. [`rbk_reduce`] (per value type and operator) reads the values and the codes (the
//!    keys are not read again): each thread folds its values in order, a head ending the
//!    run before it; the CTA segmented scan and the segmented reduction's spine
//!    ([`crate::device::spine_reduce`], [`crate::device::spine_apply`], which take the
//!    tiles' runs from `heads`) join threads and tiles, in order.
//!
//! Pass 1 depends on the keys only, so a plan (the seed's preprocess) runs it once and
//! pass 2 for each new set of values. Every operator is applied in run order and
//! the association depends only on the tile shape: results are the same bits on every
//! run. A run count past the outputs' `capacity` raises [`ERROR_CAPACITY`] and nothing is
//! stored.

use crate::device::{align16, ended_segments, SegReduceArgs, ERROR_CAPACITY};
use mgpu_core::{AssociativeOp, Comparator, Cta, Element, Plus};
use mgpu_ctascan::{
    cta_scan, cta_scan_shared_len, cta_seg_scan, seg_scan_shared_bytes, warp_reduce, ScanKind,
};

/// Arguments of [`rbk_heads`] (the pass over the keys).
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
    /// Per tile: its look-back status word ([`STATUS_AGGREGATE`] or [`STATUS_PREFIX`]
    /// above bit 62, the count below), zeroed before the launch.
    pub status: *mut u64,
    /// Per tile: the runs that start before it.
    pub heads: *mut u64,
    /// The number of runs (one word).
    pub run_count: *mut u64,
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
            status: null_mut(),
            heads: null_mut(),
            run_count: null_mut(),
            keys_out: null_mut(),
            capacity: 0,
            error: null_mut(),
        }
    }
}

/// Look-back status of a tile that has published its own head count only.
pub const STATUS_AGGREGATE: u64 = 1;
/// Look-back status of a tile that has published the heads up to and including its own.
pub const STATUS_PREFIX: u64 = 2;

/// Warp 0's look-back for tile `tile > 0`: the heads in the tiles before it. Lane `l`
/// reads tile `end - 1 - l` until all 32 have published, and the counts are added back
/// to the nearest inclusive prefix.
///
/// # Safety
/// `status` readable at `0..tile`; the whole warp calls it.
#[inline(always)]
unsafe fn look_back<C: Cta>(cta: &C, status: *const u64, tile: u64) -> u64 {
    let lane = cta.lane() as u64;
    let mut prefix = 0u64;
    let mut end = tile;
    loop {
        let mut word;
        loop {
            word = if end > lane {
                cta.load_relaxed_u64(status.add((end - 1 - lane) as usize))
            } else {
                STATUS_PREFIX << 62
            };
            if cta.ballot(!0, word >> 62 == 0) == 0 {
                break;
            }
            cta.backoff(200);
        }
        let p_mask = cta.ballot(!0, word >> 62 == STATUS_PREFIX);
        let first_p = p_mask.trailing_zeros() as u64;
        let count = word & ((1 << 62) - 1);
        prefix += warp_reduce::<C, u64, Plus>(cta, if lane <= first_p { count } else { 0 });
        if p_mask != 0 {
            return prefix;
        }
        end -= 32;
    }
}

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
/// then the CTA scan's scratch and the tile's prefix.
///
/// ```
/// assert_eq!(mgpu_segreduce::rbk::heads_shared_bytes(128, 11, 4), 5648 + 16 + 16);
/// ```
pub const fn heads_shared_bytes(nt: usize, vt: usize, k_bytes: usize) -> usize {
    align16((nt * vt + 1) * k_bytes) + align16(cta_scan_shared_len(nt) * 4) + 16
}

/// Pass 1: tile `cta.block()` marks its run heads (item `i` is a head when it is the first
/// item or `!Eq::compare(key[i - 1], key[i])`), writes its threads' codes, finds the runs
/// before it by look-back (`heads[tile]`), and stores its head keys at their runs in
/// `keys_out`; the last tile stores the run count. Head keys past `capacity` raise
/// [`ERROR_CAPACITY`] and are not stored.
///
/// # Safety
/// `keys` readable at `0..total`, `codes` writable at `0..grid * NT`, `status` (zeroed)
/// and `heads` at `0..grid`, `run_count` one word, `keys_out` at `0..capacity`; shared
/// memory is [`heads_shared_bytes`]; the grid is `total.div_ceil(NT * VT)`, its CTAs
/// started in order (the look-back waits for earlier tiles). `VT <= 16` and
/// `NT * VT < 65536`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, EqualTo};
/// use mgpu_segreduce::rbk::{heads_shared_bytes, rbk_heads, RbkKeysArgs};
/// // Two tiles of 32 threads of 2 items: runs 7 7 | 3 3 3 | 7 | 9 ... (70 items).
/// let mut keys = [9u32; 70];
/// keys[..6].copy_from_slice(&[7, 7, 3, 3, 3, 7]);
/// let (mut codes, mut status, mut heads, mut runs) = ([0u32; 64], [0u64; 2], [0u64; 2], [0u64]);
/// let (mut out, mut err) = ([0u32; 8], [0u32]);
/// let args = RbkKeysArgs { keys: keys.as_ptr(), total: 70, codes: codes.as_mut_ptr(),
///     status: status.as_mut_ptr(), heads: heads.as_mut_ptr(), run_count: runs.as_mut_ptr(),
///     keys_out: out.as_mut_ptr(), capacity: 8, error: err.as_mut_ptr() };
/// sim::launch(2, 32, heads_shared_bytes(32, 2, 4), &|cta: &sim::SimCta| unsafe {
///     rbk_heads::<_, u32, EqualTo, 32, 2>(cta, &args)
/// });
/// assert_eq!((runs, heads, err), ([4], [0, 4], [0]));
/// assert_eq!(&out[..4], &[7, 3, 7, 9]);
/// assert_eq!(&codes[..4], &[0b01, 0b01 | 1 << 16, 0b10 | 2 << 16, 0b01 | 3 << 16]);
/// ```
#[inline(always)]
pub unsafe fn rbk_heads<C: Cta, K: Element, Eq: Comparator<K>, const NT: usize, const VT: usize>(
    cta: &C,
    args: &RbkKeysArgs<K>,
) {
    const { assert!(VT <= 16 && NT * VT < 65536) };
    let (block, tid) = (cta.block(), cta.tid());
    let (start, count) = tile_items(block, NT * VT, args.total);
    // Slot 0: the key before the tile; slot 1 + i: the tile's key i.
    let keys = cta.shared::<K>(0);
    let scan_at = align16((NT * VT + 1) * core::mem::size_of::<K>());
    let scratch = cta.shared::<u32>(scan_at);
    let tile_prefix = cta.shared::<u64>(scan_at + align16(cta_scan_shared_len(NT) * 4));
    let src = args.keys.add(start as usize);
    let mut v = [K::ZERO; VT];
    for (k, x) in v.iter_mut().enumerate() {
        let i = tid + (NT * k) as u32;
        if i < count {
            *x = *src.add(i as usize);
        }
    }
    if tid == 0 && block > 0 {
        *keys = *src.sub(1);
    }
    for (k, x) in v.iter().enumerate() {
        let i = tid + (NT * k) as u32;
        if i < count {
            *keys.add(1 + i as usize) = *x;
        }
    }
    cta.sync();
    let mut bits = 0u32;
    for k in 0..VT {
        let i = tid * VT as u32 + k as u32;
        let head = i < count
            && ((block == 0 && i == 0)
                || !Eq::compare(&*keys.add(i as usize), &*keys.add(i as usize + 1)));
        bits |= (head as u32) << k;
    }
    let (before, tile_heads) =
        cta_scan::<C, u32, Plus, NT>(cta, bits.count_ones(), scratch, ScanKind::Exclusive);
    *args.codes.add(block as usize * NT + tid as usize) = bits | before << 16;

    // The runs before the tile: published as an aggregate at once, then (warp 0, after the
    // look-back) as an inclusive prefix.
    let status = args.status.add(block as usize);
    if block == 0 {
        if tid == 0 {
            cta.store_relaxed_u64(status, STATUS_PREFIX << 62 | tile_heads as u64);
            *tile_prefix = 0;
        }
    } else {
        if tid == 0 {
            cta.store_relaxed_u64(status, STATUS_AGGREGATE << 62 | tile_heads as u64);
        }
        if cta.warp() == 0 {
            let prefix = look_back(cta, args.status, block as u64);
            if tid == 0 {
                let inclusive = prefix + tile_heads as u64;
                cta.store_relaxed_u64(status, STATUS_PREFIX << 62 | inclusive);
                *tile_prefix = prefix;
            }
        }
    }
    cta.sync();
    let prefix = *tile_prefix;
    if tid == 0 {
        *args.heads.add(block as usize) = prefix;
        if block + 1 == cta.grid() {
            *args.run_count = prefix + tile_heads as u64;
        }
    }
    let mut r = prefix + before as u64;
    let mut past = false;
    for k in 0..VT {
        if (bits >> k) & 1 != 0 {
            if r < args.capacity {
                *args.keys_out.add(r as usize) = *keys.add(1 + tid as usize * VT + k);
            } else {
                past = true;
            }
            r += 1;
        }
    }
    if past {
        cta.raise_error(args.error, ERROR_CAPACITY);
    }
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

/// Pass 2: tile `cta.block()` reduces its values by run (see the module docs): every run
/// that ends in the tile gets the reduction of its values in the tile (the spine
/// prepends the earlier tiles'), and the tile's carry-out (the open run's values) goes to
/// `carry_out`. With more runs than `capacity` it raises [`ERROR_CAPACITY`] (tile 0) and
/// stores nothing.
///
/// # Safety
/// `data` readable at `0..total`, `codes`, `heads` and `run_count` as pass 1 left them, `output` writable at `0..capacity`, `carry_out` at `0..grid`, `error` one word;
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
    let (block, tid) = (cta.block(), cta.tid());
    let runs = *args.run_count;
    if runs > args.capacity {
        if block == 0 && tid == 0 {
            cta.raise_error(args.error, ERROR_CAPACITY);
        }
        return;
    }
    let last_tile = block + 1 == cta.grid();
    let (start, count) = tile_items(block, NT * VT, args.total);
    let h0 = *args.heads.add(block as usize);
    let h1 = if last_tile {
        runs
    } else {
        *args.heads.add(block as usize + 1)
    };
    let vals = cta.shared::<T>(0);
    let scratch = cta.shared::<u8>(align16((NT * VT + 1) * core::mem::size_of::<T>()));

    // The values, strided and coalesced, through shared memory to thread order.
    let src = args.data.add(start as usize);
    let mut v = [Op::identity(); VT];
    for (k, x) in v.iter_mut().enumerate() {
        let i = tid + (NT * k) as u32;
        if i < count {
            *x = *src.add(i as usize);
        }
    }
    let code = *args.codes.add(block as usize * NT + tid as usize);
    for (k, x) in v.iter().enumerate() {
        let i = tid + (NT * k) as u32;
        if i < count {
            *vals.add(i as usize) = *x;
        }
    }
    cta.sync();
    let (bits, before) = (code & 0xffff, code >> 16);

    // The walk: a head ends the run before it and starts its own.
    let mut acc = Op::identity();
    let mut ends = [Op::identity(); VT];
    for (k, end) in ends.iter_mut().enumerate() {
        let i = tid * VT as u32 + k as u32;
        let x = *vals.add(i as usize);
        *end = acc;
        acc = if (bits >> k) & 1 != 0 {
            x
        } else if i < count {
            Op::apply(acc, x)
        } else {
            acc
        };
    }
    // The virtual end after the last item: the thread holding it.
    let has_last = last_tile && count > 0 && tid == (count - 1) / VT as u32;
    let carry = if has_last { Op::identity() } else { acc };
    let (carry_in, tile_carry) =
        cta_seg_scan::<C, T, Op, NT>(cta, carry, bits != 0 || has_last, scratch);

    // The results to the value slots (every walk is done: the scan synchronised). The
    // tile's head `r` ends run `h0 + r - 1`, in slot `r` (`r - 1` in the tile of run 0,
    // whose head ends nothing).
    let shift = (h0 == 0) as u32;
    let mut slot = before;
    let mut pending = true; // the carry-in goes before the thread's first end
    for (k, partial) in ends.iter().enumerate() {
        if (bits >> k) & 1 != 0 {
            let r = if pending {
                Op::apply(carry_in, *partial)
            } else {
                *partial
            };
            pending = false;
            if slot >= shift {
                *vals.add((slot - shift) as usize) = r;
            }
            slot += 1;
        }
    }
    let (first, end) = ended_segments(h0, h1, runs, last_tile);
    if has_last {
        let r = if pending {
            Op::apply(carry_in, acc)
        } else {
            acc
        };
        *vals.add((runs - 1 - first) as usize) = r;
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
