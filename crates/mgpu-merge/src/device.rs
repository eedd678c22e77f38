//! The kernel bodies of merge and mergesort (seed 004), generic over [`Cta`], the key
//! type, the value type ([`MergeValue`]: none, or 4- or 8-byte bits) and the comparator.
//!
//! - [`blocksort`]: each CTA sorts a tile of `NT * VT` keys (and their values): a sorting
//!   network on each thread's `VT` keys in registers (the stable odd-even transposition
//!   sort when values follow, Batcher's network for keys alone), then `log2(NT)`
//!   shared-memory merge passes in which `coop = 2, 4, ..., NT` threads merge two sorted
//!   lists into one (seed 004's `CTABlocksortLoop`, [`blocksort_pass`]), ping-ponging
//!   between two regions of shared memory.
//! - [`merge`]: a tile of `NT * VT` outputs of a merge: of two sorted arrays (`coop == 0`,
//!   Merge), or of two adjacent sorted lists of one array (`coop > 0`, a mergesort pass),
//!   from the global Merge Path partitions (`mgpu_partition`): the tile's ranges of A and B
//!   go to shared memory, each thread finds its split with a Merge Path search and merges
//!   `VT` outputs serially; values follow through the merge's source indices.
//!
//! Both are stable: on equal keys A (the earlier list) comes first, and the sorting network
//! swaps only strictly out-of-order neighbours. A merge of user arrays checks that each is
//! sorted where it loads them ([`ERROR_ORDER`]).

use core::mem::size_of;
use mgpu_core::{Comparator, Cta, Element};
use mgpu_ctasearch::{
    blocksort_pass, compute_merge_range, merge_path, serial_merge_tile_with, Lower,
};
use mgpu_loadstore::{
    aligned_slot, global_to_thread_order_guarded, regs_to_global_strided_guarded,
    regs_to_shared_thread, shared_to_regs_strided, transfer_merge_values_shared,
};
use mgpu_sortnetwork::{odd_even_merge_sort_keys, odd_even_transpose_sort_pairs};

/// Error bit: a merge input is not sorted by the comparator (a pair of neighbours out of
/// order in a tile's ranges, or partitions out of order, which only unsorted input makes).
pub const ERROR_ORDER: u32 = 1;

/// [`MergeArgs::flags`] bit of [`blocksort`]: the values are the keys' positions
/// (`mergesort_indices`), generated; `a_vals` is not read.
pub const FLAG_INDICES: u32 = 1;

/// [`MergeArgs::flags`] bit of [`merge`]: check that A and B are sorted (a merge of user
/// arrays; a mergesort pass merges lists it made itself).
pub const FLAG_CHECK: u32 = 2;

/// The values a merge or sort carries with its keys: none (`()`, keys only), or 4- or
/// 8-byte bits (`u32`, `u64`: any element type's bits; values are moved, never compared).
///
/// # Examples
///
/// ```
/// use mgpu_merge::device::MergeValue;
/// assert!(!<() as MergeValue>::HAS);
/// assert_eq!(<u64 as MergeValue>::from_index(7), 7u64);
/// ```
pub trait MergeValue: Copy + Default + Send + Sync + 'static {
    /// Whether there are values at all.
    const HAS: bool;
    /// Position `i` as a value (`mergesort_indices`).
    fn from_index(i: u64) -> Self;
}

impl MergeValue for () {
    const HAS: bool = false;
    #[inline(always)]
    fn from_index(_: u64) -> Self {}
}

impl MergeValue for u32 {
    const HAS: bool = true;
    #[inline(always)]
    fn from_index(i: u64) -> Self {
        i as u32
    }
}

impl MergeValue for u64 {
    const HAS: bool = true;
    #[inline(always)]
    fn from_index(i: u64) -> Self {
        i
    }
}

/// Arguments of [`blocksort`] and [`merge`].
///
/// - blocksort: the `a_count` keys `a_keys` (values `a_vals`) in tiles of `NT * VT`, each
///   sorted into `keys_out`/`vals_out` (may be the inputs).
/// - merge (`coop == 0`): `a_keys[..a_count]` and `b_keys[..b_count]` (values `a_vals`,
///   `b_vals`) merged into `keys_out`/`vals_out`, tile `i` from partitions `mp[i]`,
///   `mp[i + 1]` (`mgpu_partition::merge_path_partitions`, lower bound).
/// - mergesort pass (`coop > 0`): the sorted lists of `a_count` keys in `a_keys` (=
///   `b_keys`), `coop` tiles merging two lists (`mgpu_partition::mergesort_partitions`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MergeArgs<K, V> {
    /// A keys (blocksort: the keys; mergesort pass: the lists).
    pub a_keys: *const K,
    /// A values.
    pub a_vals: *const V,
    /// A length (blocksort, mergesort pass: the number of keys).
    pub a_count: u64,
    /// B keys (mergesort pass: `a_keys`).
    pub b_keys: *const K,
    /// B values (mergesort pass: `a_vals`).
    pub b_vals: *const V,
    /// B length (0 for blocksort and mergesort passes).
    pub b_count: u64,
    /// The Merge Path partitions, one per tile and one more ([`merge`]).
    pub mp: *const u64,
    /// 0 for a merge; the tiles merging two lists for a mergesort pass.
    pub coop: u64,
    /// Output keys.
    pub keys_out: *mut K,
    /// Output values.
    pub vals_out: *mut V,
    /// The error word ([`ERROR_ORDER`]).
    pub error: *mut u32,
    /// A mergesort's "unsorted" word (zeroed before the blocksort, which sets it when a
    /// tile, or the pair across tiles, is out of order; the passes do nothing while it is
    /// 0: the input was sorted). Null for a merge.
    pub unsorted: *mut u32,
    /// Blocksort: the other ping-pong buffer of the passes (null without passes), which a
    /// tile found sorted writes too, so that a sorted input is in both (the passes then
    /// skip, and the result is where the last pass would have left it).
    pub also_keys: *mut K,
    /// Blocksort: the values of `also_keys`.
    pub also_vals: *mut V,
    /// [`FLAG_INDICES`], [`FLAG_CHECK`].
    pub flags: u32,
}

impl<K, V> Default for MergeArgs<K, V> {
    fn default() -> Self {
        MergeArgs {
            a_keys: core::ptr::null(),
            a_vals: core::ptr::null(),
            a_count: 0,
            b_keys: core::ptr::null(),
            b_vals: core::ptr::null(),
            b_count: 0,
            mp: core::ptr::null(),
            coop: 0,
            keys_out: core::ptr::null_mut(),
            vals_out: core::ptr::null_mut(),
            error: core::ptr::null_mut(),
            unsorted: core::ptr::null_mut(),
            also_keys: core::ptr::null_mut(),
            also_vals: core::ptr::null_mut(),
            flags: 0,
        }
    }
}

/// Bytes of a tile's keys in shared memory: `nv` keys and one more slot (the branch-free
/// serial merge, [`serial_merge_padded_with`], reads one past each list), rounded up to 16
/// bytes so that what follows is aligned.
///
/// ```
/// assert_eq!(mgpu_merge::device::keys_region_bytes(4352, 4), 17424);
/// ```
pub const fn keys_region_bytes(nv: usize, k_bytes: usize) -> usize {
    ((nv + 1) * k_bytes).div_ceil(16) * 16
}

/// Shared bytes of [`blocksort`]: two regions of the tile's keys
/// ([`keys_region_bytes`]), between which its merge passes ping-pong, then (with values)
/// two regions of one `u16` a key, each key's position in the tile (tiles hold at most
/// 2^16 keys), which move with the keys. The values' load and their final gather use the
/// keys' regions. (Positions as `u16` rather than `u32` let two CTAs of the 512 x 18
/// blocksort of 4-byte keys with 4-byte values share an SM's shared memory: 108 KB each
/// instead of 144.)
///
/// ```
/// assert_eq!(mgpu_merge::device::blocksort_shared_bytes(256, 17, 4, 0), 2 * 17424);
/// assert_eq!(mgpu_merge::device::blocksort_shared_bytes(256, 17, 4, 4), 2 * 17424 + 2 * 4352 * 2);
/// ```
pub const fn blocksort_shared_bytes(nt: usize, vt: usize, k_bytes: usize, v_bytes: usize) -> usize {
    let positions = if v_bytes > 0 { 2 * 2 * nt * vt } else { 0 };
    2 * keys_region_bytes(nt * vt, k_bytes) + positions
}

/// Shared bytes of [`merge`]: the tile's input keys ([`keys_region_bytes`] of `NV` and
/// 6 more slots, so that each of its two ranges can sit at its source address modulo 16
/// bytes), its merged keys, then (with values) one tile position per output.
///
/// ```
/// assert_eq!(mgpu_merge::device::merge_shared_bytes(256, 17, 8, 0), 34880 + 4352 * 8);
/// assert_eq!(mgpu_merge::device::merge_shared_bytes(256, 17, 8, 4), 34880 + 4352 * 12);
/// ```
pub const fn merge_shared_bytes(nt: usize, vt: usize, k_bytes: usize, v_bytes: usize) -> usize {
    let idx = if v_bytes > 0 { 4 } else { 0 };
    keys_region_bytes(nt * vt + MERGE_ALIGN_SLOTS, k_bytes) + nt * vt * (k_bytes + idx)
}

/// Slots of a merge tile's keys region beyond its `NV` keys, besides the spare one: the
/// ranges of A and B each sit at their source address modulo 16 bytes, so that they load
/// as 16-byte vectors ([`copy_range_async`]), which leaves up to 3 unused slots before
/// each (4-byte keys).
const MERGE_ALIGN_SLOTS: usize = 6;

/// Copies `len` keys from `src` (global) to `dst` (shared memory at the same address
/// modulo 16 bytes: `mgpu_loadstore::aligned_slot`) with asynchronous copies: the keys before `src`'s
/// first 16-byte boundary and after its last one singly, the rest as 16-byte vectors,
/// each thread taking every `NT`-th (at most `VT` keys a thread for a tile's range).
#[inline(always)]
unsafe fn copy_range_async<C: Cta, K: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    dst: *mut K,
    src: *const K,
    len: u32,
) {
    let k = size_of::<K>();
    let tid = cta.tid();
    if k != 4 && k != 8 {
        for i in 0..VT {
            let p = tid + (i * NT) as u32;
            if p < len {
                cta.async_copy(dst.add(p as usize), src.add(p as usize));
            }
        }
        return;
    }
    let w = (16 / k) as u32;
    let head = (((16 - src as usize % 16) % 16 / k) as u32).min(len);
    let vecs = (len - head) / w;
    let tail = head + vecs * w;
    if tid < head {
        cta.async_copy(dst.add(tid as usize), src.add(tid as usize));
    }
    if tail + tid < len {
        let t = (tail + tid) as usize;
        cta.async_copy(dst.add(t), src.add(t));
    }
    // (16-byte copies as `u128`.)
    let (vd, vs) = (
        dst.add(head as usize) as *mut u128,
        src.add(head as usize) as *const u128,
    );
    for i in 0..VT.div_ceil(w as usize) {
        let v = tid + (i * NT) as u32;
        if v < vecs {
            cta.async_copy(vd.add(v as usize), vs.add(v as usize));
        }
    }
}

#[inline(always)]
fn min(a: u64, b: u64) -> u64 {
    if a < b {
        a
    } else {
        b
    }
}

/// Blocksort (seed 004's `KernelBlocksort`): tile `block` of the `a_count` keys (and
/// values, or their positions with [`FLAG_INDICES`]) sorted by `Cmp`, stably, into the
/// same positions of `keys_out` and `vals_out`. The outputs may be the inputs (each CTA
/// reads its whole tile before it writes).
///
/// # Safety
/// `a_keys` (and `a_vals`, unless [`FLAG_INDICES`]) are readable and `keys_out`
/// (`vals_out`) writable at `0..a_count`; the grid has `a_count.div_ceil(NT * VT)` CTAs of
/// `NT` threads and [`blocksort_shared_bytes`] of shared memory.
///
/// # Examples
///
/// Seed 004's 16 keys, one tile of 4 threads of 4: the tile comes out sorted; values follow.
///
/// ```
/// use mgpu_core::{sim, Less};
/// use mgpu_merge::device::{blocksort, blocksort_shared_bytes, MergeArgs};
/// let keys = [13u32, 90, 83, 12, 96, 91, 22, 63, 30, 9, 54, 27, 18, 54, 99, 95];
/// let vals: Vec<u32> = (0..16).collect();
/// let (mut ko, mut vo) = ([0u32; 16], [0u32; 16]);
/// let args = MergeArgs { a_keys: keys.as_ptr(), a_vals: vals.as_ptr(), a_count: 16,
///     keys_out: ko.as_mut_ptr(), vals_out: vo.as_mut_ptr(), ..Default::default() };
/// sim::launch(1, 4, blocksort_shared_bytes(4, 4, 4, 4), &|cta: &sim::SimCta| unsafe {
///     blocksort::<_, u32, u32, Less, 4, 4>(cta, &args)
/// });
/// assert_eq!(ko, [9, 12, 13, 18, 22, 27, 30, 54, 54, 63, 83, 90, 91, 95, 96, 99]);
/// assert_eq!(vo[7..9], [10, 13]); // the two 54s in their input order
/// ```
#[inline(always)]
pub unsafe fn blocksort<
    C: Cta,
    K: Element,
    V: MergeValue,
    Cmp: Comparator<K>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &MergeArgs<K, V>,
) {
    const {
        assert!(
            NT * VT <= 1 << 16,
            "tile positions are u16s in shared memory"
        );
        // The values' load, from the second keys region on, fits the allocation.
        assert!(
            keys_region_bytes(NT * VT, size_of::<K>()) + NT * VT * size_of::<V>()
                <= blocksort_shared_bytes(NT, VT, size_of::<K>(), size_of::<V>()),
            "the values' load overruns the blocksort's shared memory"
        );
    };
    let nv = (NT * VT) as u64;
    let gid = nv * cta.block() as u64;
    let count = min(nv, args.a_count - gid) as u32;
    let tid = cta.tid();
    let first = tid * VT as u32;
    let kr = keys_region_bytes(NT * VT, size_of::<K>());
    let keys_sh = cta.shared::<K>(0);
    let keys_sh2 = cta.shared::<K>(kr);
    // (Positions in a tile fit 16 bits: `blocksort_shared_bytes`.)
    let pos_sh = cta.shared::<u16>(2 * kr);
    let pos_sh2 = cta.shared::<u16>(2 * kr + 2 * NT * VT);
    // The values' load goes through the second keys region (and on, for values wider
    // than the keys: the allocation has room, asserted above).
    let vals_sh = cta.shared::<V>(kr);

    // The tile in thread order (thread `tid` holds positions `VT * tid + i`).
    let mut keys = global_to_thread_order_guarded::<C, K, NT, VT>(
        cta,
        args.a_keys.wrapping_add(gid as usize),
        count as usize,
        K::default(),
        keys_sh,
    );
    // (With `FLAG_INDICES` the values are made from the positions at the end.)
    let mut vals = [V::default(); VT];
    if V::HAS && args.flags & FLAG_INDICES == 0 {
        vals = global_to_thread_order_guarded::<C, V, NT, VT>(
            cta,
            args.a_vals.wrapping_add(gid as usize),
            count as usize,
            V::default(),
            vals_sh,
        );
    }
    // A tile already in order (and after the key before it) is stored as it is: the
    // stable sort of it is itself. Any other marks the input unsorted for the passes.
    let mut bad = false;
    for i in 1..VT {
        if first + (i as u32) < count {
            bad |= Cmp::compare(&keys[i], &keys[i - 1]);
        }
    }
    if first > 0 && first < count {
        bad |= Cmp::compare(&keys[0], &*keys_sh.add(first as usize - 1));
    }
    if tid == 0 && gid > 0 {
        bad |= Cmp::compare(&keys[0], &*args.a_keys.add(gid as usize - 1));
    }
    if !cta.sync_or(bad) {
        // `keys_sh` (and `vals_sh`, when loaded) hold the tile in natural order.
        let k = shared_to_regs_strided::<C, K, NT, VT>(cta, keys_sh);
        let v: [V; VT] = if !V::HAS {
            [V::default(); VT]
        } else if args.flags & FLAG_INDICES != 0 {
            core::array::from_fn(|i| V::from_index(gid + (tid as usize + i * NT) as u64))
        } else {
            shared_to_regs_strided::<C, V, NT, VT>(cta, vals_sh)
        };
        let store = |kp: *mut K, vp: *mut V| {
            if !kp.is_null() {
                regs_to_global_strided_guarded::<C, K, NT, VT>(
                    cta,
                    &k,
                    kp.wrapping_add(gid as usize),
                    count as usize,
                );
                if V::HAS {
                    regs_to_global_strided_guarded::<C, V, NT, VT>(
                        cta,
                        &v,
                        vp.wrapping_add(gid as usize),
                        count as usize,
                    );
                }
            }
        };
        store(args.keys_out, args.vals_out);
        store(args.also_keys, args.also_vals);
        return;
    }
    if tid == 0 && !args.unsorted.is_null() {
        cta.raise_error(args.unsorted, 1);
    }
    // A partial thread fills its empty slots with its largest key, which the network
    // leaves after the real ones (the seed's padding: the stable network keeps the real
    // ones first; for keys alone the copies are the same bits); the merges below read
    // only the first `count` positions.
    if first + (VT as u32) > count {
        let mut largest = keys[0];
        for (i, k) in keys.iter().enumerate().skip(1) {
            if first + (i as u32) < count && Cmp::compare(&largest, k) {
                largest = *k;
            }
        }
        for (i, k) in keys.iter_mut().enumerate() {
            if first + (i as u32) >= count {
                *k = largest;
            }
        }
    }
    // Keys alone sort in the network as they are; with values, each key carries its
    // position in the tile instead (a u32 in registers, a u16 in shared memory), and the
    // values, which stay in registers in thread order, are gathered by those positions
    // once at the end.
    let mut pos: [u32; VT] = core::array::from_fn(|i| first + i as u32);
    // (Keys alone need no stable network: keys equal by the comparator are equal bits,
    // so Batcher's network, with fewer comparators, gives the same tile.)
    if V::HAS {
        odd_even_transpose_sort_pairs::<K, u32, Cmp, VT>(&mut keys, &mut pos);
    } else {
        odd_even_merge_sort_keys::<K, Cmp, VT>(&mut keys);
    }

    // log2(NT) merge passes, `coop` threads per merged list. The keys (and positions)
    // ping-pong between two shared-memory regions: each pass merges from one and writes
    // its outputs straight to the other in thread order, so no register array holds them
    // and one barrier a pass separates the passes.
    let (mut src, mut dst) = (keys_sh, keys_sh2);
    let (mut psrc, mut pdst) = (pos_sh, pos_sh2);
    cta.sync(); // every thread is done with the load's and the order check's reads
    regs_to_shared_thread::<C, K, VT>(cta, &keys, src);
    if V::HAS {
        regs_to_shared_thread::<C, u16, VT>(cta, &pos.map(|p| p as u16), psrc);
    }
    // A full tile's threads never find both lists ended (the form without clamps).
    let full = count as usize == NT * VT;
    let mut coop = 2u32;
    while coop as usize <= NT {
        cta.sync(); // `src` is complete, and every read of `dst` (the pass before's) done
        let p = blocksort_pass(tid, count, coop, VT as u32);
        let (a_len, b_len) = (p.a1 - p.a0, p.b1 - p.b0);
        let diag = if p.diag < a_len + b_len {
            p.diag
        } else {
            a_len + b_len
        };
        let mp = merge_path(
            src.add(p.a0 as usize),
            a_len,
            src.add(p.b0 as usize),
            b_len,
            diag,
            Lower,
            Cmp::default(),
        );
        // (The slot past the tile's keys makes the padded form's reads safe. Outputs past
        // `count`, in a partial tile, land in slots no later pass reads as keys.)
        let (out, pout) = (dst.add(first as usize), pdst.add(first as usize));
        let emit = |i: usize, k: K, j: u32| {
            *out.add(i) = k;
            if V::HAS {
                *pout.add(i) = *psrc.add(j as usize);
            }
        };
        let (a_begin, b_begin) = (p.a0 + mp, p.b0 + diag - mp);
        serial_merge_tile_with::<K, _, Cmp, VT>(
            full,
            src as *const K,
            a_begin,
            p.a1,
            b_begin,
            p.b1,
            Cmp::default(),
            emit,
        );
        core::mem::swap(&mut src, &mut dst);
        core::mem::swap(&mut psrc, &mut pdst);
        coop *= 2;
    }
    cta.sync(); // the last pass's outputs are complete

    // The sorted tile is in `src` in natural order: strided, coalesced stores.
    let (tid_u, rem) = (tid as usize, (count as usize).saturating_sub(tid as usize));
    let keys_out = args.keys_out.wrapping_add(gid as usize + tid_u);
    let mut from = [0u32; VT];
    for (i, f) in from.iter_mut().enumerate() {
        if i * NT < rem {
            *keys_out.add(i * NT) = *src.add(tid_u + i * NT);
            if V::HAS {
                *f = *psrc.add(tid_u + i * NT) as u32;
            }
        }
    }
    if V::HAS {
        let vals_out = args.vals_out.wrapping_add(gid as usize + tid_u);
        if args.flags & FLAG_INDICES != 0 {
            for (i, f) in from.iter().enumerate() {
                if i * NT < rem {
                    *vals_out.add(i * NT) = V::from_index(gid + *f as u64);
                }
            }
        } else {
            // The values in natural order over both key regions (free now), then each
            // output's value from its key's first position.
            let vals_sh = cta.shared::<V>(0);
            cta.sync();
            regs_to_shared_thread::<C, V, VT>(cta, &vals, vals_sh);
            cta.sync();
            for (i, f) in from.iter().enumerate() {
                if i * NT < rem {
                    *vals_out.add(i * NT) = *vals_sh.add(*f as usize);
                }
            }
        }
    }
}

/// One tile of a merge or of a mergesort pass (seed 004's `KernelMerge` with
/// `DeviceMerge`): outputs `NT * VT * block ..` of the merge of A and B (see
/// [`MergeArgs`]), stable (A first on equal keys).
///
/// The tile's ranges come from the partitions through
/// [`compute_merge_range`]; ranges out of order or outside the inputs (unsorted input
/// makes such partitions) raise [`ERROR_ORDER`] and the tile writes nothing. With
/// [`FLAG_CHECK`] each key of the tile's ranges is compared with the one before it (the
/// first with the key before the range, which thread 0 loads), so that the tiles together
/// check every neighbour pair of A and of B.
///
/// # Safety
/// `a_keys`/`a_vals` are readable at `0..a_count`, `b_keys`/`b_vals` at `0..b_count`
/// (for a mergesort pass, both at `0..a_count`), `mp` at `0..=grid`, `keys_out`/`vals_out`
/// writable at every output position, `error` one word; the grid covers the outputs with
/// CTAs of `NT` threads and [`merge_shared_bytes`] of shared memory.
///
/// # Examples
///
/// Seed 004's last pass: two sorted lists of 8 merged by one tile of 4 threads of 4.
///
/// ```
/// use mgpu_core::{sim, Less};
/// use mgpu_merge::device::{merge, merge_shared_bytes, MergeArgs};
/// let a = [12u32, 13, 22, 63, 83, 90, 91, 96];
/// let b = [9u32, 18, 27, 30, 54, 54, 95, 99];
/// let (mp, mut out, mut err) = ([0u64, 8], [0u32; 16], [0u32]);
/// let args = MergeArgs::<u32, ()> { a_keys: a.as_ptr(), a_count: 8, b_keys: b.as_ptr(),
///     b_count: 8, mp: mp.as_ptr(), keys_out: out.as_mut_ptr(), error: err.as_mut_ptr(),
///     flags: mgpu_merge::device::FLAG_CHECK, ..Default::default() };
/// sim::launch(1, 4, merge_shared_bytes(4, 4, 4, 0), &|cta: &sim::SimCta| unsafe {
///     merge::<_, u32, (), Less, 4, 4>(cta, &args)
/// });
/// assert_eq!(out, [9, 12, 13, 18, 22, 27, 30, 54, 54, 63, 83, 90, 91, 95, 96, 99]);
/// assert_eq!(err, [0]);
/// ```
#[inline(always)]
pub unsafe fn merge<
    C: Cta,
    K: Element,
    V: MergeValue,
    Cmp: Comparator<K>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &MergeArgs<K, V>,
) {
    cta.grid_dependency_wait(); // the partitions come from the kernel just before
    if !args.unsorted.is_null() && *args.unsorted == 0 {
        return; // a mergesort of sorted input: the blocksort left it in both buffers
    }
    let nv = (NT * VT) as u64;
    let block = cta.block() as u64;
    let tid = cta.tid();
    let sorting = args.coop != 0;
    let total = if sorting {
        args.a_count
    } else {
        args.a_count + args.b_count
    };
    let b_limit = if sorting { args.a_count } else { args.b_count };
    let gid = nv * block;
    let count = min(nv, total - gid);
    let (mp0, mp1) = (
        *args.mp.add(block as usize),
        *args.mp.add(block as usize + 1),
    );
    let r = compute_merge_range(args.a_count, args.b_count, block, args.coop, nv, mp0, mp1);
    // The same values in every thread: a bad tile returns as a whole.
    let ranges_ok = r.a0 <= r.a1
        && r.a1 <= args.a_count
        && r.b0 <= r.b1
        && r.b1 <= b_limit
        && (r.a1 - r.a0) + (r.b1 - r.b0) == count;
    if !ranges_ok {
        if tid == 0 {
            cta.raise_error(args.error, ERROR_ORDER);
        }
        return;
    }
    let (a_len, count) = ((r.a1 - r.a0) as u32, count as u32);
    let keys_sh = cta.shared::<K>(0);
    let keys_bytes = keys_region_bytes(NT * VT + MERGE_ALIGN_SLOTS, size_of::<K>());
    let out_sh = cta.shared::<K>(keys_bytes);
    let idx_sh = cta.shared::<u32>(keys_bytes + NT * VT * size_of::<K>());
    let (a_src, b_src) = (
        args.a_keys.add(r.a0 as usize),
        args.b_keys.add(r.b0 as usize),
    );

    // A at slot `sa`, then B at slot `sb`, each at its source address modulo 16 bytes,
    // all loads in flight together, copied asynchronously as 16-byte vectors where they
    // can be: no register holds them. A tile position `p` is slot `sa + p` (A) or
    // `sb + p - a_len` (B).
    let b_len = count - a_len;
    let sa = aligned_slot(a_src, 0);
    let sb = aligned_slot(b_src, sa + a_len);
    copy_range_async::<C, K, NT, VT>(cta, keys_sh.add(sa as usize), a_src, a_len);
    copy_range_async::<C, K, NT, VT>(cta, keys_sh.add(sb as usize), b_src, b_len);
    let check = args.flags & FLAG_CHECK != 0;
    // Thread 0: the keys before the ranges, for the checks.
    let (mut before_a, mut before_b) = (None, None);
    if check && tid == 0 {
        if a_len > 0 && r.a0 > 0 {
            before_a = Some(*a_src.sub(1));
        }
        if count > a_len && r.b0 > 0 {
            before_b = Some(*b_src.sub(1));
        }
    }
    cta.async_copy_wait();
    cta.sync();

    if check {
        let mut bad = false;
        for k in 0..VT {
            let p = tid + (k * NT) as u32;
            if p < count && p != 0 && p != a_len {
                let s = if p < a_len { sa + p } else { sb + p - a_len } as usize;
                bad |= Cmp::compare(&*keys_sh.add(s), &*keys_sh.add(s - 1));
            }
        }
        if let Some(prev) = before_a {
            bad |= Cmp::compare(&*keys_sh.add(sa as usize), &prev);
        }
        if let Some(prev) = before_b {
            bad |= Cmp::compare(&*keys_sh.add(sb as usize), &prev);
        }
        if bad {
            cta.raise_error(args.error, ERROR_ORDER);
        }
    }

    let diag = if VT as u32 * tid < count {
        VT as u32 * tid
    } else {
        count
    };
    let mp = merge_path(
        keys_sh.add(sa as usize),
        a_len,
        keys_sh.add(sb as usize),
        b_len,
        diag,
        Lower,
        Cmp::default(),
    );
    // The outputs go straight to their own region of shared memory (no register array of
    // them: more tiles fit on an SM), in thread order, with their tile positions. The
    // merge reads one past each range: A's is B's first key or a slot between them, B's
    // at `sb + b_len <= NV + 6` one of the keys region's spare slots (their values are
    // never used).
    // A full tile's threads never find both ranges ended, so they take the form without
    // clamps.
    let first = (VT as u32 * tid) as usize;
    let emit = |i: usize, k: K, g: u32| {
        *out_sh.add(first + i) = k;
        if V::HAS {
            *idx_sh.add(first + i) = if g < sb { g - sa } else { g - sb + a_len };
        }
    };
    serial_merge_tile_with::<K, _, Cmp, VT>(
        count as usize == NT * VT,
        keys_sh,
        sa + mp,
        sa + a_len,
        sb + diag - mp,
        sb + b_len,
        Cmp::default(),
        emit,
    );
    cta.sync();
    let y = shared_to_regs_strided::<C, K, NT, VT>(cta, out_sh);
    regs_to_global_strided_guarded::<C, K, NT, VT>(
        cta,
        &y,
        args.keys_out.add(gid as usize),
        count as usize,
    );
    if V::HAS {
        transfer_merge_values_shared::<C, V, NT, VT>(
            cta,
            count as usize,
            args.a_vals.add(r.a0 as usize),
            args.b_vals.add(r.b0 as usize),
            a_len,
            idx_sh,
            args.vals_out.add(gid as usize),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::sim;

    /// `copy_range_async` into the slot `aligned_slot` picks, from every source alignment
    /// and for lengths around the vector width: the range arrives whole, and nothing else
    /// in shared memory is written.
    fn check_copy<K: Copy + PartialEq + core::fmt::Debug + From<u16>>() {
        const NT: usize = 4;
        const VT: usize = 9;
        let src: Vec<K> = (0..64u16).map(K::from).collect();
        let slots = NT * VT + MERGE_ALIGN_SLOTS + 1;
        for offset in 0..4usize {
            for len in 0..=(NT * VT - offset).min(36) as u32 {
                for at in [0u32, 1, 5] {
                    let s = src.as_ptr() as usize;
                    let bytes = slots * size_of::<K>() + 16;
                    sim::launch(1, NT as u32, bytes, &|cta: &sim::SimCta| unsafe {
                        let sh = cta.shared::<K>(0);
                        let src = (s as *const K).add(offset);
                        for i in cta.tid() as usize..slots {
                            if i % NT == cta.tid() as usize {
                                *sh.add(i) = K::from(999);
                            }
                        }
                        cta.sync();
                        let slot = aligned_slot(src, at);
                        assert!(slot >= at && slot < at + 4);
                        copy_range_async::<_, K, NT, VT>(cta, sh.add(slot as usize), src, len);
                        cta.async_copy_wait();
                        cta.sync();
                        if cta.tid() == 0 {
                            for i in 0..slots {
                                let want = if i >= slot as usize && i < (slot + len) as usize {
                                    *src.add(i - slot as usize)
                                } else {
                                    K::from(999)
                                };
                                assert_eq!(
                                    *sh.add(i),
                                    want,
                                    "offset {offset}, len {len}, at {at}, slot {i}"
                                );
                            }
                        }
                    });
                }
            }
        }
    }

    #[test]
    fn ranges_copy_whole_from_every_alignment() {
        check_copy::<u32>();
        check_copy::<u64>();
        check_copy::<u16>();
    }
}
