//! Kernel bodies of the bulk family, generic over [`Cta`].
//!
//! Every body validates what it reads (DESIGN §5): partitions (or tile ends) that
//! contradict the indices, indices out of order (or duplicated where they must be unique)
//! and indices out of range raise bits of the per-launch error word (`atomic_or`); every
//! global load and store is bounds-checked, so no input can make a kernel touch memory
//! outside its buffers.

use mgpu_core::Less;
use mgpu_core::{shfl_idx, Cta, Element};
use mgpu_ctascan::{cta_compact_strided, cta_compact_strided_each, cta_compact_strided_shared_len};
use mgpu_ctasearch::{binary_search, ArrayOrSequence, Idx, Lower};

/// Error bit: the indices are not sorted (remove: not strictly increasing). The bits are
/// distinct:
///
/// ```
/// use mgpu_bulk::device::*;
/// assert_eq!((ERROR_ORDER | ERROR_RANGE).count_ones(), 2);
/// ```
pub const ERROR_ORDER: u32 = 1;
/// Error bit: an index is out of range (remove: `>= n`; insert: `> n`).
pub const ERROR_RANGE: u32 = 2;

/// Mode bit: the insert values are the generated sequence `first + step * k`.
///
/// ```
/// assert_eq!(mgpu_bulk::device::MODE_SEQUENCE, 1);
/// ```
pub const MODE_SEQUENCE: u32 = 1;
/// Mode bit: the indices are the generated sequence `index_first + index_step * k`
/// (validated on the host: the kernels need not read them).
///
/// ```
/// assert_eq!(mgpu_bulk::device::MODE_INDEX_SEQUENCE, 2);
/// ```
pub const MODE_INDEX_SEQUENCE: u32 = 2;
/// Mode bit (remove): this launch works through the source ranges that the index tiles
/// could not hold ([`bulk_remove`]'s spilled ranges, in `mp`), with persistent CTAs, as a
/// dependent launch of the index tiles.
///
/// ```
/// assert_eq!(mgpu_bulk::device::MODE_SPILL, 4);
/// ```
pub const MODE_SPILL: u32 = 4;
/// Words (`u64`) of one spilled range of bulk remove: its source start and end, and its
/// first index and index end.
///
/// ```
/// assert_eq!(mgpu_bulk::device::SPILL_WORDS, 4);
/// ```
pub const SPILL_WORDS: usize = 4;

/// Generated sequences `first + step * i`: the one definition in `mgpu-core`, re-exported
/// here under its earlier path.
///
/// ```
/// use mgpu_bulk::device::Sequence;
/// assert_eq!(i32::sequence(1000, 10, 3), 1030);
/// ```
pub use mgpu_core::Sequence;

/// Arguments of the bulk kernels (`#[repr(C)]`, passed by value).
///
/// # Examples
///
/// ```
/// let a = mgpu_bulk::device::BulkArgs::<i32, u32>::empty();
/// assert_eq!(a.source_len, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BulkArgs<T, I> {
    /// The source array.
    pub source: *const T,
    /// Its length `n`.
    pub source_len: u64,
    /// The remove or insert indices.
    pub indices: *const I,
    /// Their number `m`.
    pub num_indices: u64,
    /// First generated index ([`MODE_INDEX_SEQUENCE`]).
    pub index_first: I,
    /// Step of the generated indices ([`MODE_INDEX_SEQUENCE`]).
    pub index_step: I,
    /// Insert: the `mgpu_partition::merge_path_counting_partitions` partitions (`grid + 1`).
    pub mp: *const u64,
    /// Remove: the spilled ranges ([`SPILL_WORDS`] words each, room for `spill_capacity`;
    /// null for generated indices).
    pub spilled: *mut u64,
    /// Remove: how many ranges `spilled` holds (zeroed before the launch; null for
    /// generated indices).
    pub spill: *mut u32,
    /// Remove: the ranges `mp` has room for.
    pub spill_capacity: u64,
    /// Remove: the indices of one index tile (`K`, at least 1 and at most `NT * VT`).
    pub tile_indices: u64,
    /// Insert: the values (`m`, unless [`MODE_SEQUENCE`]).
    pub values: *const T,
    /// First generated value ([`MODE_SEQUENCE`]).
    pub first: T,
    /// Step of the generated values ([`MODE_SEQUENCE`]).
    pub step: T,
    /// The output.
    pub output: *mut T,
    /// Elements writable at `output`.
    pub output_len: u64,
    /// The per-launch error word (zeroed before the launch).
    pub error: *mut u32,
    /// `MODE_*` bits.
    pub mode: u32,
}

impl<T: Element, I: Idx> BulkArgs<T, I> {
    /// Arguments with null pointers and zero sizes (to fill in).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = mgpu_bulk::device::BulkArgs::<f64, u64>::empty();
    /// assert!(a.indices.is_null());
    /// ```
    pub fn empty() -> Self {
        BulkArgs {
            source: core::ptr::null(),
            source_len: 0,
            indices: core::ptr::null(),
            num_indices: 0,
            index_first: I::ZERO,
            index_step: I::ZERO,
            mp: core::ptr::null(),
            spilled: core::ptr::null_mut(),
            spill: core::ptr::null_mut(),
            spill_capacity: 0,
            tile_indices: 0,
            values: core::ptr::null(),
            first: T::ZERO,
            step: T::ZERO,
            output: core::ptr::null_mut(),
            output_len: 0,
            error: core::ptr::null_mut(),
            mode: 0,
        }
    }
}

/// The indices of `a` as the kernels read them: the array, or the generated sequence
/// ([`MODE_INDEX_SEQUENCE`]).
///
/// # Examples
///
/// ```
/// use mgpu_bulk::device::{index_keys, BulkArgs};
/// use mgpu_ctasearch::Keys;
/// let mut a = BulkArgs::<i32, u32>::empty();
/// (a.index_first, a.index_step, a.mode) = (2, 5, mgpu_bulk::device::MODE_INDEX_SEQUENCE);
/// assert_eq!(unsafe { index_keys(&a).key(3) }, 17);
/// ```
#[inline(always)]
pub fn index_keys<T, I: Idx>(a: &BulkArgs<T, I>) -> ArrayOrSequence<I> {
    ArrayOrSequence {
        ptr: a.indices,
        first: a.index_first,
        step: a.index_step,
        sequence: a.mode & MODE_INDEX_SEQUENCE != 0,
    }
}

/// Shared-memory bytes of bulk insert for elements of `elem_bytes` and indices of
/// `index_bytes` bytes: `NT * VT` u32 flags, the compaction's per-row counts, then
/// `NT * VT` staged elements, then `NT * VT` staged indices.
///
/// ```
/// assert_eq!(mgpu_bulk::device::shared_bytes(128, 7, 4, 8), 4 * (896 + 28) + 12 * 896);
/// ```
pub const fn shared_bytes(nt: usize, vt: usize, elem_bytes: usize, index_bytes: usize) -> usize {
    staged_offset(nt, vt) + nt * vt * (elem_bytes + index_bytes)
}

/// Loads the tile's indices `first .. first + count` (strided, coalesced; generated for a
/// sequence) into shared slots `0 .. count`, where after the barrier each thread checks
/// its index against the next one (no second global load per index).
#[inline(always)]
unsafe fn stage_indices<I: Idx, const NT: usize, const VT: usize>(
    tid: usize,
    keys: ArrayOrSequence<I>,
    first: u64,
    count: u32,
    staged: *mut I,
) {
    let idx = load_indices::<I, NT, VT>(tid, keys, first, count);
    store_indices::<I, NT, VT>(tid, &idx, count, staged);
}

/// Thread `tid`'s indices of `first .. first + count` (at most `NT * VT`; row `i` holds
/// index `first + NT * i + tid`), loaded strided and coalesced, or generated for a
/// sequence; [`store_indices`] stages them.
#[inline(always)]
unsafe fn load_indices<I: Idx, const NT: usize, const VT: usize>(
    tid: usize,
    keys: ArrayOrSequence<I>,
    first: u64,
    count: u32,
) -> [I; VT] {
    let mut idx = [I::ZERO; VT];
    if keys.sequence {
        let at = keys
            .first
            .wrapping_add(keys.step.wrapping_mul(I::from_u64(first)));
        for (i, x) in idx.iter_mut().enumerate() {
            let k = NT * i + tid;
            *x = at.wrapping_add(keys.step.wrapping_mul(I::from_usize(k)));
        }
    } else {
        let p = keys.ptr.wrapping_add(first as usize);
        for (i, x) in idx.iter_mut().enumerate() {
            let k = NT * i + tid;
            if (k as u32) < count {
                *x = *p.add(k);
            }
        }
    }
    idx
}

/// Stores [`load_indices`]' rows into shared slots `0 .. count`.
#[inline(always)]
unsafe fn store_indices<I: Idx, const NT: usize, const VT: usize>(
    tid: usize,
    idx: &[I; VT],
    count: u32,
    staged: *mut I,
) {
    for (i, x) in idx.iter().enumerate() {
        let k = NT * i + tid;
        if (k as u32) < count {
            *staged.add(k) = *x;
        }
    }
}

/// Byte offset of insert's staged area after the flags and counts (8-byte aligned): its
/// staged elements, then its indices.
const fn staged_offset(nt: usize, vt: usize) -> usize {
    (4 * (nt * vt + cta_compact_strided_shared_len(nt, vt))).div_ceil(8) * 8
}

/// Shared-memory bytes of bulk remove for indices of `index_bytes` bytes: `NT * VT` u32
/// keep flags, the compaction's per-row counts, then the tile's indices (at most one per
/// element). The elements stay in registers.
///
/// ```
/// use mgpu_bulk::device::remove_shared_bytes;
/// assert_eq!(remove_shared_bytes(128, 7, 4, 8), 4 * (896 + 28) + 8 * 896);
/// ```
pub const fn remove_shared_bytes(
    nt: usize,
    vt: usize,
    _elem_bytes: usize,
    index_bytes: usize,
) -> usize {
    staged_offset(nt, vt) + nt * vt * index_bytes
}

/// Bulk remove (seed 003's `KernelBulkRemove`), tiled by its indices rather than by the
/// source, so that no tile searches for its part of the other array:
///
/// - **Index tiles** (an ordinary launch of `max(1, ceil(m / K))` CTAs, `K =
///   tile_indices`): tile `u` takes indices `k0 = u K .. k1 = min(k0 + K, m)` and the
///   source range `s0 .. s1` from its first index (0 for tile 0) to the next tile's first
///   index (`n` for the last tile), whose kept elements go to `output[s0 - k0 ..]`: every
///   thread loads both ends (one address a warp, one request), no search. A range of at
///   most `NT * VT` elements is removed from in the tile (below). A longer one (sparse or
///   clustered removals) is cut into chunks of `NT * VT` elements, each given its first
///   index by a binary search of the tile's indices in shared memory, and appended to
///   `spilled` (one `atomic_add` a tile; at most `ceil(n / NT VT) + tiles` chunks in all).
/// - **[`MODE_SPILL`]** (a dependent launch of persistent CTAs): every spilled chunk,
///   removed from the same way.
/// - **[`MODE_INDEX_SEQUENCE`]**: tile `block` takes source elements `NT * VT * block ..`
///   and computes the range of generated indices in them.
///
/// Removing from a range: every global load first (the range's indices, then its source
/// elements into registers, strided), the kept elements flagged in shared memory, ranked
/// in range order with [`cta_compact_strided_each`] (one ballot per row) and stored each
/// straight from its register. On Hopper the kernel is bound by instruction issue about
/// as much as by memory, so the hot path is lean: range-relative arithmetic is 32-bit,
/// and the index loop only accumulates one "something is wrong" flag; a tile that raised
/// it classifies its errors in a second, cold pass.
///
/// Checks: each index inside its range, and each adjacent pair in a range strictly
/// increasing (from the indices staged in shared memory). A pair across two ranges needs
/// no check: each range's indices lie inside it, and the ranges increase. An index tile
/// whose ends are out of order or past `n`, and spilled chunks that do not fit
/// `spill_capacity` (only unsorted indices make so many), raise the error.
///
/// # Safety
/// `source` readable for `source_len`, `indices` for `num_indices` (unless
/// index-sequence mode), `spilled` writable for `SPILL_WORDS * spill_capacity` words and
/// `spill` one word (array mode), `output` writable for `output_len`, `error` one word;
/// shared memory of [`remove_shared_bytes`]`(NT, VT, size_of::<T>(), size_of::<I>())`
/// bytes.
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_bulk::{device::{BulkArgs, MODE_SPILL}, kernels::Remove};
/// let src: Vec<i32> = (0..100).collect();
/// let idx = [1u32, 3, 4];
/// let (mut out, mut err, mut spilled, mut spill) = (vec![0i32; 97], [0u32], [0u64; 32], [0u32]);
/// let mut a = BulkArgs::<i32, u32>::empty();
/// (a.source, a.source_len, a.indices, a.num_indices) = (src.as_ptr(), 100, idx.as_ptr(), 3);
/// (a.output, a.output_len, a.error) = (out.as_mut_ptr(), 97, err.as_mut_ptr());
/// (a.spilled, a.spill, a.spill_capacity) = (spilled.as_mut_ptr(), spill.as_mut_ptr(), 8);
/// // Index tiles of 2 indices and 32 elements: tile 0 takes source 0..4 (indices 1 and
/// // 3), tile 1 source 4..100 (index 4), too long: it spills 4..36, 36..68 and 68..100.
/// a.tile_indices = 2;
/// sim::launch_kernel::<Remove<i32, u32, 32, 1>>(2, &a);
/// assert_eq!(spill, [3]);
/// a.mode = MODE_SPILL;
/// sim::launch_kernel::<Remove<i32, u32, 32, 1>>(2, &a);
/// let kept: Vec<i32> = (0..100).filter(|i| ![1, 3, 4].contains(i)).collect();
/// assert_eq!((out, err), (kept, [0]));
/// ```
#[inline(always)]
pub unsafe fn bulk_remove<C: Cta, T: Element, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &BulkArgs<T, I>,
) {
    let nv = (NT * VT) as u64;
    let block = cta.block() as u64;
    let n = a.source_len;
    let m = a.num_indices;
    if a.mode & MODE_INDEX_SEQUENCE != 0 {
        // Source tiles; the lower bounds of their ends in the sequence (host-validated).
        let s0 = nv * block;
        let count = if n > s0 { (n - s0).min(nv) } else { 0 };
        let first = a.index_first.to_u64();
        let step = a.index_step.to_u64().max(1);
        let lb = |x: u64| {
            if x <= first {
                0
            } else {
                (x - first).div_ceil(step).min(m)
            }
        };
        remove_range::<C, T, I, NT, VT>(cta, a, s0, count as u32, lb(s0), lb(s0 + count));
        return;
    }
    if a.mode & MODE_SPILL != 0 {
        // The chunks come from the index tiles, the launch just before. (Each of the
        // three paths inlines the range's code: one loop for all three carried its state
        // through the range and spilled 48 bytes at 40 registers.)
        cta.grid_dependency_wait();
        let chunks = (*a.spill as u64).min(a.spill_capacity);
        let mut w = block;
        while w < chunks {
            let r = a.spilled.wrapping_add(SPILL_WORDS * w as usize);
            let [s0, s1, p0, p1] = warp_load::<C, SPILL_WORDS>(cta, r);
            // The index tiles write consistent chunks; only unsorted indices (which
            // overflow the capacity and raise the error) can make others.
            if s0 <= s1 && s1 <= n && s1 - s0 <= nv && p0 <= p1 && p1 <= m {
                remove_range::<C, T, I, NT, VT>(cta, a, s0, (s1 - s0) as u32, p0, p1);
            } else if cta.tid() == 0 {
                cta.atomic_or_u32(a.error, ERROR_ORDER);
            }
            w += cta.grid() as u64;
            cta.sync(); // the next chunk reuses the shared memory
        }
        return;
    }
    // An index tile: every thread loads both ends (one address a warp, so one request).
    let k = a.tile_indices.clamp(1, nv);
    let k0 = k * block;
    let k1 = (k0 + k).min(m);
    let s0 = if block > 0 {
        (*a.indices.add(k0 as usize)).to_u64()
    } else {
        0
    };
    let s1 = if k1 < m {
        (*a.indices.add(k1 as usize)).to_u64()
    } else {
        n
    };
    if s1 > n || s0 > s1 || (block > 0 && s0 >= n) {
        // An index past the end (the next tile's first, or this one's), or out of order.
        if cta.tid() == 0 {
            let e = if s1 > n || s0 >= n {
                ERROR_RANGE
            } else {
                ERROR_ORDER
            };
            cta.atomic_or_u32(a.error, e);
        }
        return;
    }
    if s1 - s0 <= nv {
        remove_range::<C, T, I, NT, VT>(cta, a, s0, (s1 - s0) as u32, k0, k1);
    } else {
        spill::<C, T, I, NT, VT>(cta, a, s0, s1, k0, k1);
    }
}

/// `N` consecutive words at `p`, loaded by lanes `0 .. N` of each warp (one request) and
/// shuffled to every lane.
#[inline(always)]
unsafe fn warp_load<C: Cta, const N: usize>(cta: &C, p: *const u64) -> [u64; N] {
    let lane = cta.lane();
    let v = if (lane as usize) < N {
        *p.add(lane as usize)
    } else {
        0
    };
    core::array::from_fn(|i| shfl_idx(cta, u32::MAX, v, i as u32, 32))
}

/// An index tile's range `s0 .. s1`, longer than a tile: appends its chunks of `NT * VT`
/// elements to `spilled`, each with its indices, the lower bounds of its ends among the
/// tile's indices `k0 .. k1` (staged in shared memory).
#[inline(always)]
unsafe fn spill<C: Cta, T: Element, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &BulkArgs<T, I>,
    s0: u64,
    s1: u64,
    k0: u64,
    k1: u64,
) {
    let nv = (NT * VT) as u64;
    let tid = cta.tid();
    let ic = (k1 - k0) as u32; // at most K <= NT * VT
    let staged = cta.shared::<I>(staged_offset(NT, VT));
    stage_indices::<I, NT, VT>(tid as usize, index_keys(a), k0, ic, staged);
    let chunks = (s1 - s0).div_ceil(nv);
    let slot = cta.shared::<u32>(0);
    if tid == 0 {
        *slot = cta.atomic_add_u32(a.spill, chunks as u32);
    }
    cta.sync();
    let first = *slot as u64;
    if first + chunks > a.spill_capacity {
        if tid == 0 {
            cta.atomic_or_u32(a.error, ERROR_ORDER);
        }
        return;
    }
    let lb =
        |x: u64| k0 + binary_search(staged as *const I, ic, I::from_u64(x), Lower, Less) as u64;
    let mut c = tid as u64;
    while c < chunks {
        let cs = s0 + nv * c;
        let ce = (cs + nv).min(s1);
        let p0 = if c == 0 { k0 } else { lb(cs) };
        let p1 = if c + 1 == chunks { k1 } else { lb(ce) };
        let r = a.spilled.add(SPILL_WORDS * (first + c) as usize);
        (*r, *r.add(1), *r.add(2), *r.add(3)) = (cs, ce, p0, p1);
        c += NT as u64;
    }
}

/// Removes from source elements `s0 .. s0 + count` (at most `NT * VT`) the indices `p0 ..
/// p1` (`p0 <= p1 <= m`), storing the kept ones from `output[s0 - p0]` on.
#[inline(always)]
unsafe fn remove_range<C: Cta, T: Element, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &BulkArgs<T, I>,
    s0: u64,
    count: u32,
    p0: u64,
    p1: u64,
) {
    let nv = (NT * VT) as u64;
    // Thread-relative offsets are u32 (`row` below), and `tid` is opaque: otherwise LLVM,
    // knowing its range, widens them to 64 bits, and every compare takes two instructions.
    let tid = cta.opaque_u32(cta.tid());
    let row = |i: usize| (NT * i) as u32 + tid;
    let n = a.source_len;
    let cnt = cta.opaque_u32(count);
    // The indices first: their addresses are known, the source's may wait for `s0`.
    let keys = index_keys(a);
    let ic = cta.opaque_u32((p1 - p0).min(nv) as u32);
    let idx = load_indices::<I, NT, VT>(tid as usize, keys, p0, ic);
    let src = a.source.wrapping_add(s0 as usize);
    let mut vals = [T::ZERO; VT];
    for (i, v) in vals.iter_mut().enumerate() {
        if row(i) < cnt {
            *v = *src.add(row(i) as usize);
        }
    }
    if p1 - p0 > count as u64 {
        if tid == 0 {
            cta.atomic_or_u32(a.error, ERROR_ORDER);
        }
        return;
    }
    let flags = cta.shared::<u32>(0);
    let counts = cta.shared::<u32>(4 * NT * VT);
    // The range's remove indices (with each one's successor, for the order check).
    let staged = cta.shared::<I>(staged_offset(NT, VT));
    store_indices::<I, NT, VT>(tid as usize, &idx, ic, staged);
    for i in 0..VT {
        *flags.add(row(i) as usize) = (row(i) < cnt) as u32;
    }
    cta.sync();
    // Indices are range-relative in I's own width: s0 <= n fits I, as every index must.
    let (s0_i, cnt_i) = (I::from_u64(s0), I::from_u32(cnt));
    // The two checks of staged index k (value x), shared by the hot loop and the cold
    // pass: not below its successor, and not in the range (x - s0 >= count).
    let unordered = |k: u32, x: I| k + 1 < ic && x >= *staged.add(k as usize + 1);
    let outside = |x: I| x.wrapping_sub(s0_i) >= cnt_i;
    let mut bad = false;
    for i in 0..VT {
        let k = row(i);
        if k < ic {
            let x = *staged.add(k as usize);
            if outside(x) {
                bad = true;
            } else {
                *flags.add(x.wrapping_sub(s0_i).to_usize()) = 0;
            }
            bad |= unordered(k, x);
        }
    }
    cta.sync();
    let mut keep = [false; VT];
    for (i, f) in keep.iter_mut().enumerate() {
        *f = *flags.add(row(i) as usize) != 0;
    }
    let base = s0.wrapping_sub(p0);
    let room = cta.opaque_u32(a.output_len.saturating_sub(base).min(nv) as u32);
    let out = a.output.wrapping_add(base as usize);
    cta_compact_strided_each::<C, NT, VT>(cta, keep, counts, |i, rank| {
        if keep[i] && rank < room {
            *out.add(rank as usize) = vals[i];
        }
    });
    // Only where the hot loop saw something wrong: which bits each bad index raises.
    let mut err = 0u32;
    if bad {
        for i in 0..VT {
            let k = row(i);
            if k < ic {
                let x = *staged.add(k as usize);
                if outside(x) {
                    err |= if x.to_u64() >= n {
                        ERROR_RANGE
                    } else {
                        ERROR_ORDER
                    };
                }
                if unordered(k, x) {
                    err |= ERROR_ORDER;
                }
            }
        }
    }
    cta.raise_error(a.error, err);
}

/// Bulk insert (seed 003's `KernelBulkInsert`): tile `block` holds outputs `d0 .. d1`
/// (`d0 = NV * block`), insert indices `a0 = mp[block] .. a1 = mp[block + 1]` (from
/// `merge_path_counting_partitions`) and source positions `b0 = d0 - a0 .. d1 - a1`. It issues all its
/// global loads first (inserted values and source elements, strided, staged in shared
/// memory in merge order; its indices), flags the output slot `k + index - b0` of each
/// insertion `k`, counts the flagged slots ahead of every output slot with
/// [`cta_compact_strided`] (one ballot per row), and stores output slot `r` from staged
/// slot `before(r)` (an insertion) or `a_count + r - before(r)` (a source element), in
/// strided order.
///
/// Checks: the partitions consistent, each index in `b0 ..= b1` (which for sorted indices
/// holds), no index past `n`, each adjacent pair in the tile non-decreasing (from the
/// staged indices; across tiles the source ranges order them).
///
/// # Safety
/// `source` readable for `source_len`, `indices` (and `values` unless sequence mode) for
/// `num_indices`, `mp` for `grid + 1`, `output` writable for `output_len`, `error` one word; shared memory of
/// [`shared_bytes`]`(NT, VT, size_of::<T>(), size_of::<I>())` bytes.
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_bulk::{device::BulkArgs, kernels::Insert};
/// let (src, idx, vals, mp) = ([0i32, 1, 2], [0u32, 2, 3], [7i32, 8, 9], [0u64, 3]);
/// let (mut out, mut err) = ([0i32; 6], [0u32]);
/// let mut a = BulkArgs::<i32, u32>::empty();
/// a.mp = mp.as_ptr();
/// (a.source, a.source_len, a.indices, a.num_indices) = (src.as_ptr(), 3, idx.as_ptr(), 3);
/// (a.values, a.output, a.output_len, a.error) = (vals.as_ptr(), out.as_mut_ptr(), 6, err.as_mut_ptr());
/// sim::launch_kernel::<Insert<i32, u32, 32, 3>>(1, &a);
/// assert_eq!((out, err), ([7, 0, 1, 8, 2, 9], [0]));
/// ```
#[inline(always)]
pub unsafe fn bulk_insert<C: Cta, T: Sequence, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &BulkArgs<T, I>,
) {
    cta.grid_dependency_wait(); // the partitions come from the kernel just before
    let nv = (NT * VT) as u64;
    let tid = cta.tid() as usize;
    let block = cta.block() as u64;
    let n = a.source_len;
    let m = a.num_indices;
    let total = n + m;
    let d0 = (nv * block).min(total);
    let d1 = (d0 + nv).min(total);
    let keys = index_keys(a);
    let a0 = *a.mp.add(block as usize);
    let a1 = *a.mp.add(block as usize + 1);
    // Partitions from sorted indices satisfy these; others only raise the error.
    let ok = a0 <= a1 && a1 <= m && a0 <= d0 && a1 <= d1 && d0 - a0 <= d1 - a1 && d1 - a1 <= n;
    if !ok {
        if tid == 0 {
            cta.atomic_or_u32(a.error, ERROR_ORDER);
        }
        return;
    }
    let (b0, b1) = (d0 - a0, d1 - a1);
    // Tile-relative 32-bit arithmetic from here on (a tile has NT * VT < 2^32 outputs).
    let ac = (a1 - a0) as u32;
    let bc = (b1 - b0) as u32;
    let count = ac + bc;
    let mut err = 0u32;
    let flags = cta.shared::<u32>(0);
    let counts = cta.shared::<u32>(4 * NT * VT);
    let staged = cta.shared::<T>(staged_offset(NT, VT));
    let seq = a.mode & MODE_SEQUENCE != 0;
    // Every global load up front, strided and coalesced: the tile's inserted values (slots
    // 0..ac) and source elements (slots ac..count), and its insert indices.
    let values = a.values.wrapping_add(a0 as usize);
    // Source element b0 + (j - ac) for slot j.
    let sources = a.source.wrapping_add(b0 as usize).wrapping_sub(ac as usize);
    let mut vals = [T::ZERO; VT];
    for (i, v) in vals.iter_mut().enumerate() {
        let j = NT * i + tid;
        if (j as u32) < ac {
            *v = if seq {
                T::sequence(a.first, a.step, a0 + j as u64)
            } else {
                // a1 <= m: in range.
                *values.add(j)
            };
        } else if (j as u32) < count {
            // b1 <= n: in range.
            *v = *sources.add(j);
        }
    }
    let staged_idx = cta.shared::<I>(staged_offset(NT, VT) + NT * VT * core::mem::size_of::<T>());
    stage_indices::<I, NT, VT>(tid, keys, a0, ac, staged_idx);

    for (i, v) in vals.iter().enumerate() {
        let j = NT * i + tid;
        *flags.add(j) = 0;
        if (j as u32) < count {
            *staged.add(j) = *v;
        }
    }
    cta.sync();
    // Insert k (tile-relative) lands at output slot k + (its index - b0).
    for i in 0..VT {
        let k = NT * i + tid;
        if (k as u32) < ac {
            let x = *staged_idx.add(k);
            let rel = x.to_u64().wrapping_sub(b0);
            if rel <= bc as u64 {
                *flags.add(k + rel as usize) = 1;
            } else if x.to_u64() > n {
                err |= ERROR_RANGE;
            } else {
                err |= ERROR_ORDER;
            }
            if (k as u32) + 1 < ac && x > *staged_idx.add(k + 1) {
                err |= ERROR_ORDER;
            }
        }
    }
    cta.sync();
    let mut inserted = [false; VT];
    for (i, f) in inserted.iter_mut().enumerate() {
        *f = *flags.add(NT * i + tid) != 0;
    }
    // Output slot r is insert number `before(r)` when flagged, else source element
    // r - before(r), where before(r) counts the flagged slots ahead of it.
    let (before, _) = cta_compact_strided::<C, NT, VT>(cta, inserted, counts);
    let room = a.output_len.saturating_sub(d0);
    let out = a.output.wrapping_add(d0 as usize);
    for i in 0..VT {
        let r = (NT * i + tid) as u32;
        if r < count {
            let g = before[i];
            let slot = if inserted[i] { g } else { ac + r - g };
            // Only inconsistent (unsorted) indices, already reported, put slot outside.
            if slot < count && (r as u64) < room {
                *out.add(r as usize) = *staged.add(slot as usize);
            }
        }
    }
    cta.raise_error(a.error, err);
}
