//! Kernel bodies of the interval family, generic over [`Cta`].
//!
//! Every body validates what it reads (DESIGN §5): partitions that contradict the scan,
//! a scan that is not non-decreasing or does not start at 0, a scan past the total, and
//! gather or scatter positions outside their arrays raise bits of the per-launch error
//! word (`atomic_or`); loads and stores outside the arrays are skipped, so no input can
//! make the kernel touch memory outside its buffers.

use core::mem::size_of;
use mgpu_core::{shfl_idx, Cta, Element, WARP_SIZE};
use mgpu_ctasearch::{
    chunk_tile, cta_load_balance_copy_async, cta_load_balance_partitions, cta_load_balance_search,
    cta_load_balance_shared_len, cta_object_tile_copy_async, cta_spill_object_tile,
    load_balance_tile, object_tile_errors, scan_decreases, Idx, LoadBalanceTile, ObjectTile,
    SpillList,
};
use mgpu_loadstore::{
    aligned_slot, global_to_shared_async_vec16, global_to_shared_loop_async, store_vec16,
};

/// Error bit: the scan is not non-decreasing (or the partitions contradict it). The error
/// bits are distinct:
///
/// ```
/// use mgpu_intervalmove::device::*;
/// let bits = [ERROR_SCAN_ORDER, ERROR_SCAN_START, ERROR_TOTAL, ERROR_GATHER, ERROR_SCATTER];
/// assert_eq!(bits.iter().fold(0, |a, b| a | b).count_ones(), 5);
/// ```
pub const ERROR_SCAN_ORDER: u32 = 1;
/// Error bit: the scan does not start at 0.
pub const ERROR_SCAN_START: u32 = 2;
/// Error bit: a scan value is past the total.
pub const ERROR_TOTAL: u32 = 4;
/// Error bit: a gather position is outside the input.
pub const ERROR_GATHER: u32 = 8;
/// Error bit: a scatter position is outside the output.
pub const ERROR_SCATTER: u32 = 16;

/// Mode bit: each interval starts at `gather[object]` in the input (else the input is read
/// in output order, `input[item]`). Move is gather | scatter:
///
/// ```
/// use mgpu_intervalmove::device::*;
/// assert_eq!(MODE_GATHER | MODE_SCATTER | MODE_SEQUENCE, 7);
/// ```
pub const MODE_GATHER: u32 = 1;
/// Mode bit: each interval is stored at `scatter[object]` in the output (else
/// `output[item]`).
pub const MODE_SCATTER: u32 = 2;
/// Mode bit: the input is the generated sequence `first + step * position`, not an array.
pub const MODE_SEQUENCE: u32 = 4;
/// Mode bit: each tile of [`expand`] finds its own two partitions and writes them to `mp`
/// (`mgpu_ctasearch::cta_load_balance_partitions`), so no partition kernel runs before
/// (for grids of about one wave). Not [`interval_move`]: its tiles are half as long, and
/// on an H100 at 2^20 (mean 10, 1287 tiles) searching them took 0.0221 to 0.0246 ms
/// against 0.0201 to 0.0204 with the partition kernel, and with [`MODE_DIRECT`] 0.0183 to
/// 0.0192 against 0.0164 to 0.0172.
pub const MODE_SEARCH: u32 = 8;
/// Mode bit: [`expand`] in **object tiles**
/// ([`mgpu_ctasearch::ObjectTile`]): tile `t` takes the `tile_objects` intervals from
/// `t * tile_objects` and all their items, its ranges from the two scan values it loads
/// anyway, so no partitions are read; a tile whose items and intervals exceed `NT * VT`
/// appends its Merge Path chunks to the spill list (`object_tiles`) for a [`MODE_SPILL`]
/// launch.
pub const MODE_OBJECTS: u32 = 16;
/// Mode bit: the launch after an object-tile launch, of persistent CTAs, each taking the
/// spilled chunks `block, block + grid, ...` as tiles.
pub const MODE_SPILL: u32 = 32;
/// Mode bit: [`interval_move`] stores each item from its register, in the strided order
/// it was loaded in (`output[scatter[object] + rank]`), instead of staging the tile's
/// values in shared memory and storing them interval by interval. The host sets it when
/// there is no scatter (the stores are then in output order, coalesced) and for outputs
/// small enough to stay in L2, where the interval-by-interval loop (a few shuffles and a
/// partly idle warp per interval) was what the kernel spent its issue slots on; on DRAM
/// sizes whole-interval stores write fewer partial sectors.
pub const MODE_DIRECT: u32 = 64;

/// Generated sequences `first + step * i`: the one definition in `mgpu-core`, re-exported
/// here under its earlier path.
///
/// ```
/// use mgpu_intervalmove::device::Sequence;
/// assert_eq!(i32::sequence(1000, 10, 3), 1030);
/// ```
pub use mgpu_core::Sequence;

/// Arguments of every interval kernel (`#[repr(C)]`, passed by value).
///
/// # Examples
///
/// ```
/// let a = mgpu_intervalmove::device::IntervalArgs::<i32, u32>::empty();
/// assert_eq!(a.total, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct IntervalArgs<T, I> {
    /// Number of outputs (work items): the sum of the interval counts.
    pub total: I,
    /// Number of intervals (objects).
    pub num_intervals: I,
    /// Exclusive scan of the interval counts (`num_intervals`).
    pub scan: *const I,
    /// Upper-bound load-balancing Merge Path partitions (`grid + 1`; written by the tiles
    /// with [`MODE_SEARCH`]), or null (naive).
    pub mp: *const u64,
    /// Gather starts (`num_intervals`; with [`MODE_GATHER`]).
    pub gather: *const I,
    /// Scatter starts (`num_intervals`; with [`MODE_SCATTER`]).
    pub scatter: *const I,
    /// The input array (unless [`MODE_SEQUENCE`]).
    pub input: *const T,
    /// Elements readable at `input`.
    pub input_len: u64,
    /// First element of the generated input ([`MODE_SEQUENCE`]).
    pub first: T,
    /// Step of the generated input ([`MODE_SEQUENCE`]).
    pub step: T,
    /// The output.
    pub output: *mut T,
    /// Elements writable at `output`.
    pub output_len: u64,
    /// The per-launch error word (zeroed before the launch).
    pub error: *mut u32,
    /// `MODE_*` bits.
    pub mode: u32,
    /// Object tiles ([`MODE_OBJECTS`]): the intervals a tile and the spill list.
    pub object_tiles: SpillList,
}

impl<T: Element, I: Idx> IntervalArgs<T, I> {
    /// Arguments with null pointers and zero sizes (to fill in).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = mgpu_intervalmove::device::IntervalArgs::<f64, u64>::empty();
    /// assert!(a.scan.is_null());
    /// ```
    pub fn empty() -> Self {
        IntervalArgs {
            total: I::ZERO,
            num_intervals: I::ZERO,
            scan: core::ptr::null(),
            mp: core::ptr::null(),
            gather: core::ptr::null(),
            scatter: core::ptr::null(),
            input: core::ptr::null(),
            input_len: 0,
            first: T::ZERO,
            step: T::ZERO,
            output: core::ptr::null_mut(),
            output_len: 0,
            error: core::ptr::null_mut(),
            mode: 0,
            object_tiles: SpillList::empty(),
        }
    }
}

#[inline(always)]
const fn round8(b: usize) -> usize {
    b.div_ceil(8) * 8
}

#[inline(always)]
const fn round16(b: usize) -> usize {
    b.div_ceil(16) * 16
}

/// Bytes of one per-object region: `NV + 1` slots of `slot_bytes`, plus the 12 bytes an
/// [`aligned_slot`] shift may take (the region's data sits at its source's address modulo
/// 16 bytes, for 16-byte copies), rounded to 16 bytes so the next region starts aligned.
#[inline(always)]
const fn region_bytes(nt: usize, vt: usize, slot_bytes: usize) -> usize {
    round16((nt * vt + 1) * slot_bytes + 12)
}

/// Shared-memory bytes of the load-balanced kernels: the load-balancing search's slots
/// (padded by `2 * VT` so even a contradictory scan keeps the serial search inside), then
/// `regions` regions of `NV + 1` slots of `slot_bytes` each (expand: one region of the
/// tile's values; move: two regions, its gather and scatter starts), each 16-byte aligned
/// with 12 bytes of room to place its data at its source's address modulo 16.
///
/// # Examples
///
/// ```
/// use mgpu_intervalmove::device::shared_bytes;
/// assert_eq!(shared_bytes(4, 128, 7, 1, 8), 3664 + 7200);
/// assert_eq!(shared_bytes(8, 128, 7, 2, 8), 7328 + 2 * 7200);
/// ```
#[inline(always)]
pub const fn shared_bytes(
    index_bytes: usize,
    nt: usize,
    vt: usize,
    regions: usize,
    slot_bytes: usize,
) -> usize {
    index_offset_end(index_bytes, nt, vt) + regions * region_bytes(nt, vt, slot_bytes)
}

#[inline(always)]
const fn index_offset_end(index_bytes: usize, nt: usize, vt: usize) -> usize {
    round16((cta_load_balance_shared_len(nt * vt) + 2 * vt) * index_bytes)
}

/// Where the data of `count` objects from `src` go in the per-object region at `region`
/// (at `src`'s address modulo 16 bytes, [`aligned_slot`]): copied there as 16-byte
/// asynchronous vectors where they can be ([`global_to_shared_async_vec16`]). Returns the
/// region's slot 0 for the data.
#[inline(always)]
unsafe fn region_copy_async<C: Cta, T: Copy, const NT: usize>(
    cta: &C,
    region: *mut T,
    src: *const T,
    count: u32,
) -> *mut T {
    let dst = region.add(aligned_slot(src, 0) as usize);
    global_to_shared_async_vec16::<C, T, NT>(cta, src, count, dst);
    dst
}

/// With [`MODE_SEARCH`], the tile's two partitions, found by the tile and written to
/// `mp` (then a barrier); nothing otherwise.
#[inline(always)]
unsafe fn search_partitions<C: Cta, T, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
) {
    if a.mode & MODE_SEARCH != 0 {
        let (nv, total, n) = ((NT * VT) as u64, a.total.to_u64(), a.num_intervals.to_u64());
        let mp = a.mp as *mut u64;
        cta_load_balance_partitions::<C, I, NT>(cta, cta.block(), nv, total, a.scan, n, mp);
    }
}

/// The tile's ranges from its partitions (with the preceding object), or `None` (after
/// raising the error) when the partitions contradict the scan; every thread gets the same
/// answer.
#[inline(always)]
unsafe fn tile_ranges<C: Cta, T: Element, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
) -> Option<LoadBalanceTile<I>> {
    let nv = (NT * VT) as u64;
    let block = cta.block() as u64;
    let total = a.total.to_u64();
    let n = a.num_intervals.to_u64();
    let steps = total + n;
    let d0 = if nv * block < steps {
        nv * block
    } else {
        steps
    };
    let d1 = if d0 + nv < steps { d0 + nv } else { steps };
    let m0 = *a.mp.add(block as usize);
    let m1 = *a.mp.add(block as usize + 1);
    let ok = m0 <= m1 && m1 <= total && m0 <= d0 && m1 <= d1 && d0 - m0 <= d1 - m1 && d1 - m1 <= n;
    if !ok {
        if cta.tid() == 0 {
            cta.atomic_or_u32(a.error, ERROR_SCAN_ORDER);
        }
        return None;
    }
    // The scan values placed at their global address modulo 16 bytes, so that they copy
    // as 16-byte vectors.
    Some(
        load_balance_tile(cta.block(), nv, a.total, a.num_intervals, m0, m1, true)
            .aligned_to(a.scan),
    )
}

/// Checks the scan values a tile loaded to `bsh` (its objects' and the halo): non-decreasing
/// ([`scan_decreases`], 16-byte groups), 0 first, none past the total. Every adjacent pair
/// of the scan is in some tile (the preceding object). Only the tile's last value is
/// compared with the total: when the tile's values are in order it is their largest, and
/// when they are not, [`ERROR_SCAN_ORDER`] is raised and reported first.
#[inline(always)]
unsafe fn check_scan<C: Cta, T, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
    t: &LoadBalanceTile<I>,
    bsh: *const I,
    err: &mut u32,
) {
    let load = t.b_loaded();
    if scan_decreases::<C, I, NT, VT>(cta, bsh, load) {
        *err |= ERROR_SCAN_ORDER;
    }
    if cta.tid() == 0 && load > 0 {
        if *bsh.add(load as usize - 1) > a.total {
            *err |= ERROR_TOTAL;
        }
        if t.b0 == I::ZERO && *bsh != I::ZERO {
            *err |= ERROR_SCAN_START;
        }
    }
}

/// What a CTA of the load-balanced kernels maps: a Merge Path tile between two
/// partitions of `mp`, an object tile ([`MODE_OBJECTS`]), or a spilled chunk
/// ([`MODE_SPILL`]; its index in the spill list, `mgpu_ctasearch::SpillList::chunk`).
#[derive(Clone, Copy)]
enum Unit {
    MergePath,
    Objects,
    Chunk(u64),
}

/// Runs `$body` (with `$unit` bound) on the CTA's units: its object tile, its Merge Path
/// tile (after the partitions, with [`MODE_SEARCH`] its own), or the spilled chunks
/// `block, block + grid, ...` (a barrier between two). A macro, not a closure, so that the
/// body is inlined at each use (a closure of the kernel's whole body stayed a call, and
/// its arguments went to a local-memory stack).
macro_rules! for_each_unit {
    ($cta:expr, $a:expr, $unit:ident => $body:expr) => {{
        let (cta, a) = ($cta, $a);
        if a.mode & MODE_OBJECTS != 0 {
            let $unit = Unit::Objects;
            $body;
        } else {
            cta.grid_dependency_wait(); // the partitions (or chunks) come from the kernel just before
            if a.mode & MODE_SPILL != 0 {
                let chunks = a.object_tiles.chunks();
                let mut w = cta.block() as u64;
                while w < chunks {
                    let $unit = Unit::Chunk(w);
                    $body;
                    w += cta.grid() as u64;
                    cta.sync(); // the next chunk reuses the shared memory
                }
            } else {
                search_partitions::<_, _, _, NT, VT>(cta, a);
                let $unit = Unit::MergePath;
                $body;
            }
        }
    }};
}

/// The tile's load-balancing search with validation, for any [`Unit`]: the tile's ranges
/// ([`tile_ranges`] from the partitions, a chunk's, or an object tile's objects); then
/// `prefetch`, with the tile's objects (`b0`, `b_count()`), which issues the asynchronous
/// copies ([`Cta::async_copy`]) or writes of per-object data into shared memory; then the
/// tile's scan values copied to shared memory the same way ([`cta_load_balance_copy_async`],
/// [`cta_object_tile_copy_async`]), every row of both in flight at once and no register
/// holding a load; one wait and a barrier; the scan checks ([`check_scan`],
/// [`object_tile_errors`]); and the CTA search ([`cta_load_balance_search`]) unless the
/// scan decreases (the threads' Merge Path ranges would overlap and two threads would
/// write the same item slots; the tile's items are then left unwritten and the error is
/// raised). After it every thread sees the per-object data `prefetch` put in shared
/// memory. An object tile with a bad scan raises its errors and returns `None`, as does
/// one too long for a tile, after appending its chunks to the spill list.
#[inline(always)]
unsafe fn tile_search<C: Cta, T: Element, I: Idx, R, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
    unit: Unit,
    err: &mut u32,
    prefetch: impl FnOnce(&LoadBalanceTile<I>) -> R,
) -> Option<(LoadBalanceTile<I>, R)> {
    let sh = cta.shared::<I>(0);
    let (total, n) = (a.total.to_u64(), a.num_intervals.to_u64());
    let nv = (NT * VT) as u32;
    let (t, preceding) = match unit {
        Unit::Objects => {
            let mut o = ObjectTile::new(cta.block(), a.object_tiles.tile_objects, n, nv, a.scan);
            let r = prefetch(&o.tile());
            cta_object_tile_copy_async::<C, I, NT>(cta, &mut o, a.scan, n, total, sh);
            cta.async_copy_wait();
            cta.sync();
            let (order, past, start) = object_tile_errors::<C, I, NT, VT>(cta, &o, sh, n, total);
            *err |= (order as u32 * ERROR_SCAN_ORDER)
                | (past as u32 * ERROR_TOTAL)
                | (start as u32 * ERROR_SCAN_START);
            if cta.sync_or(*err != 0) {
                cta.raise_error(a.error, *err);
                return None;
            }
            if !o.fits(nv) {
                // Only a scan that is not sorted could overflow the list (every tile
                // checked its own).
                if !cta_spill_object_tile::<C, I, NT>(cta, &o, sh, nv as u64, &a.object_tiles) {
                    cta.raise_error(a.error, (cta.tid() == 0) as u32 * ERROR_SCAN_ORDER);
                }
                return None;
            }
            cta_load_balance_search::<C, I, NT, VT>(cta, o.padded(nv), false, sh);
            return Some((o.tile(), r));
        }
        Unit::Chunk(w) => chunk_tile(a.object_tiles.chunk(w), nv as u64, total, n, a.scan),
        // (Whether the preceding object was loaded is read after the search's checks, as
        // before object tiles existed: reading it here changed the move kernel's code and
        // made heavy-tailed moves 4 % slower on an H100.)
        Unit::MergePath => (tile_ranges::<C, T, I, NT, VT>(cta, a)?, false),
    };
    let r = prefetch(&t);
    cta_load_balance_copy_async::<C, I, NT>(cta, &t, a.scan, sh);
    cta.async_copy_wait();
    cta.sync();
    check_scan::<C, T, I, NT, VT>(cta, a, &t, sh.add(t.b_shared() as usize), err);
    if !cta.sync_or(*err & ERROR_SCAN_ORDER != 0) {
        let preceding = match unit {
            // The tile's first own object is `NT * VT * block - mp[block]`; the preceding
            // one was loaded when that is not 0.
            Unit::MergePath => {
                let block = cta.block();
                nv as u64 * block as u64 != *a.mp.add(block as usize)
            }
            _ => preceding,
        };
        cta_load_balance_search::<C, I, NT, VT>(cta, t, preceding, sh);
    }
    Some((t, r))
}

/// The object slot (`object - b0`) of tile item `i`, clamped into the tile; raises
/// [`ERROR_SCAN_ORDER`] when it was outside (only a contradictory scan does that).
#[inline(always)]
unsafe fn object_slot<I: Idx>(sh: *const I, t: &LoadBalanceTile<I>, i: u32, err: &mut u32) -> u32 {
    let o = Idx::wrapping_sub(*sh.add(i as usize), t.b0).to_u64();
    let bc = t.b_count();
    if o >= bc as u64 {
        *err |= ERROR_SCAN_ORDER;
        if bc == 0 {
            0
        } else {
            bc - 1
        }
    } else {
        o as u32
    }
}

/// Load-balanced interval expand (seed 000's `KernelIntervalExpand`): each tile runs the
/// CTA load-balancing search, loads its intervals' values (or generates them) into shared
/// memory once, and each output item, in strided order, takes the value of the interval
/// that generated it: `output[item] = values[object(item)]`.
///
/// With [`MODE_OBJECTS`] each CTA maps an object tile ([`mgpu_ctasearch::ObjectTile`]) and
/// no partitions are read; with [`MODE_SPILL`] the chunks the object tiles spilled.
///
/// # Safety
/// `scan` (and `input` unless sequence mode) readable for `num_intervals` elements, `mp` for
/// `grid + 1` (Merge Path tiles), `output` writable for `output_len >= total`, `error` one
/// zeroed word; with object tiles `object_tiles` as `mgpu_ctasearch::SpillList` documents;
/// shared memory of [`shared_bytes`]`(size_of::<I>(), NT, VT, 1, size_of::<T>())`
/// bytes.
///
/// # Examples
///
/// Counts 2, 1 in one tile (partitions 0 and 3) in the simulator:
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_intervalmove::device::IntervalArgs;
/// use mgpu_intervalmove::kernels::Expand;
/// let (scan, mp, vals) = ([0u32, 2], [0u64, 3], [5i32, 6]);
/// let (mut out, mut err) = ([0i32; 3], [0u32]);
/// let mut a = IntervalArgs::<i32, u32>::empty();
/// (a.total, a.num_intervals, a.scan, a.mp) = (3, 2, scan.as_ptr(), mp.as_ptr());
/// (a.input, a.input_len, a.output, a.output_len) = (vals.as_ptr(), 2, out.as_mut_ptr(), 3);
/// a.error = err.as_mut_ptr();
/// sim::launch_kernel::<Expand<i32, u32, 32, 3>>(1, &a);
/// assert_eq!((out, err), ([5, 5, 6], [0]));
/// ```
#[inline(always)]
pub unsafe fn expand<C: Cta, T: Sequence, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
) {
    for_each_unit!(cta, a, unit => expand_unit::<C, T, I, NT, VT>(cta, a, unit));
}

/// [`expand`] of one tile or chunk.
#[inline(always)]
unsafe fn expand_unit<C: Cta, T: Sequence, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
    unit: Unit,
) {
    let mut err = 0u32;
    let seq = a.mode & MODE_SEQUENCE != 0;
    let vsh = cta.shared::<T>(index_offset_end(core::mem::size_of::<I>(), NT, VT));
    // The values of the tile's objects `b0 + j` into shared memory before the search:
    // generated, copied asynchronously, or zero past the input.
    let Some((t, vsh)) = tile_search::<C, T, I, _, NT, VT>(cta, a, unit, &mut err, |t| {
        let (b0, bc) = (t.b0.to_u64(), t.b_count());
        if seq {
            let mut j = cta.tid();
            while j < bc {
                *vsh.add(j as usize) = T::sequence(a.first, a.step, b0 + j as u64);
                j += NT as u32;
            }
            vsh
        } else {
            let inside = a.input_len.saturating_sub(b0).min(bc as u64) as u32;
            let src = a.input.wrapping_add(b0 as usize);
            // 16-byte copies of 4-byte values pay for their head and tail from two rows
            // of intervals a tile on (an H100 measured mean-1 counts 2 % faster; all
            // tiles copying so made heavy-tailed counts 1 % and 8-byte values 1 % slower).
            let vsh = if size_of::<T>() == 4 && bc >= 2 * NT as u32 {
                region_copy_async::<C, T, NT>(cta, vsh, src, inside)
            } else {
                global_to_shared_loop_async::<C, T, NT>(cta, src, inside, vsh);
                vsh
            };
            let mut j = inside + cta.tid();
            while j < bc {
                *vsh.add(j as usize) = T::ZERO;
                j += NT as u32;
            }
            vsh
        }
    }) else {
        return;
    };
    let sh = cta.shared::<I>(0);
    // The tile's items in strided order, offsets relative to its first item; stores
    // clamped to the output (32-bit compares against one precomputed limit).
    let a0 = t.a0.to_u64();
    let room = a.output_len.saturating_sub(a0);
    let stored = (t.a_count() as u64).min(room) as u32;
    let out = a.output.wrapping_add(a0 as usize);
    // Each item straight from shared memory to its store (no register array of VT values:
    // a long tile would spill it), four 4-byte items a store.
    store_vec16::<C, T, NT, VT>(cta, stored, out, |i| {
        *vsh.add(object_slot(sh, &t, i, &mut err) as usize)
    });
    cta.raise_error(a.error, err);
}

/// Load-balanced interval move, gather and scatter (seed 000's `KernelIntervalMove`),
/// modes by run-time bits: item `item` of interval `object`, `rank = item - scan[object]`,
/// copies `input[gather[object] + rank]` (or `input[item]` without [`MODE_GATHER`]) to
/// `output[scatter[object] + rank]` (or `output[item]` without [`MODE_SCATTER`]).
/// Positions outside the arrays raise [`ERROR_GATHER`]/[`ERROR_SCATTER`] and are skipped.
///
/// Design: each tile runs the CTA load-balancing search and loads its intervals' gather
/// and scatter starts into shared memory once. It then loads its items in strided order
/// (`VT` loads in flight per thread) into shared memory, in item order, and stores them
/// interval by interval: each warp takes a run of at most 32 of the tile's objects, clips
/// each interval to the tile's items, and stores it 32 items per instruction (lane `r`
/// takes rank `r`). On an H100 a warp store that covers one interval costs far less than
/// a store of 32 consecutive items that scatters into three or four random places when the
/// output is in DRAM; the stores need no round trip, so they cost no latency. With
/// [`MODE_DIRECT`] (no scatter, or an output that stays in L2) each item is stored from its
/// register in the strided order it was loaded in instead: no staging, no barrier, and
/// none of the per-interval loop's shuffles and idle lanes.
///
/// # Safety
/// As [`expand`] (shared memory: [`move_shared_bytes`]`(size_of::<T>(), size_of::<I>(), NT,
/// VT)`), with `gather`/`scatter` readable for `num_intervals` when their mode bit is set
/// and `input` readable for `input_len` elements (unless sequence mode); `NT` a multiple
/// of 32.
///
/// # Examples
///
/// Counts 2, 1, gather 4, 0, scatter 1, 0 of a counting input, in the simulator:
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_intervalmove::device::{IntervalArgs, MODE_GATHER, MODE_SCATTER, MODE_SEQUENCE};
/// use mgpu_intervalmove::kernels::Move;
/// let (scan, mp, gather, scatter) = ([0u64, 2], [0u64, 3], [4u64, 0], [1u64, 0]);
/// let (mut out, mut err) = ([0u32; 3], [0u32]);
/// let mut a = IntervalArgs::<u32, u64>::empty();
/// (a.total, a.num_intervals, a.scan, a.mp) = (3, 2, scan.as_ptr(), mp.as_ptr());
/// (a.gather, a.scatter, a.first, a.step) = (gather.as_ptr(), scatter.as_ptr(), 0, 1);
/// (a.output, a.output_len, a.error) = (out.as_mut_ptr(), 3, err.as_mut_ptr());
/// a.mode = MODE_GATHER | MODE_SCATTER | MODE_SEQUENCE;
/// sim::launch_kernel::<Move<u32, u64, 32, 3>>(1, &a);
/// assert_eq!((out, err), ([0, 4, 5], [0]));
/// ```
#[inline(always)]
pub unsafe fn interval_move<C: Cta, T: Sequence, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
) {
    const { assert!(NT.is_multiple_of(WARP_SIZE as usize)) };
    // Merge Path tiles only: a mean-1 move is bound by its scattered lines (within 1.1
    // times a plain move's, docs/intervalmove.md), and the object tiles' chunk loop cost
    // the move kernels 8 bytes of stack at 40 registers.
    cta.grid_dependency_wait(); // the partitions come from the kernel just before
    move_unit::<C, T, I, NT, VT>(cta, a, Unit::MergePath);
}

/// [`interval_move`] of one tile or chunk.
#[inline(always)]
unsafe fn move_unit<C: Cta, T: Sequence, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
    unit: Unit,
) {
    let mut err = 0u32;
    let gather = a.mode & MODE_GATHER != 0;
    let scatter = a.mode & MODE_SCATTER != 0;
    let seq = a.mode & MODE_SEQUENCE != 0;
    let tid = cta.tid();
    let off = index_offset_end(size_of::<I>(), NT, VT);
    let gsh = cta.shared::<I>(off);
    let ssh = cta.shared::<I>(off + region_bytes(NT, VT, size_of::<I>()));
    // The interval starts of the tile's objects, copied before the search (objects
    // `b0 ..` are inside the arrays: tile_search validated the partitions first).
    let Some((t, ())) = tile_search::<C, T, I, _, NT, VT>(cta, a, unit, &mut err, |t| {
        let (bc, b0) = (t.b_count(), t.b0.to_usize());
        if gather {
            global_to_shared_loop_async::<C, I, NT>(cta, a.gather.wrapping_add(b0), bc, gsh);
        }
        if scatter {
            global_to_shared_loop_async::<C, I, NT>(cta, a.scatter.wrapping_add(b0), bc, ssh);
        }
    }) else {
        return;
    };
    let sh = cta.shared::<I>(0);
    let vsh = cta.shared::<T>(move_values_offset(size_of::<I>(), NT, VT));
    let bc = t.b_count();
    let ac = t.a_count();
    let (a0, a1) = (t.a0.to_u64(), t.a1.to_u64());
    let bsh = sh.add(t.b_shared() as usize);
    // Every item's load first, strided (VT in flight); `loaded` marks the items whose
    // source was inside the input (the others were reported and are not stored).
    let mut vals = [T::ZERO; VT];
    let mut loaded = 0u32;
    for (k, v) in vals.iter_mut().enumerate() {
        let i = tid + (NT * k) as u32;
        if i < ac {
            let slot = object_slot(sh, &t, i, &mut err) as usize;
            let item = a0 + i as u64;
            let src = if gather {
                let rank = item.wrapping_sub((*bsh.add(slot)).to_u64());
                (*gsh.add(slot)).to_u64().wrapping_add(rank)
            } else {
                item
            };
            if seq {
                *v = T::sequence(a.first, a.step, src);
                loaded |= 1 << k;
            } else if src < a.input_len {
                *v = *a.input.add(src as usize);
                loaded |= 1 << k;
            } else {
                err |= ERROR_GATHER;
            }
        }
    }
    if a.mode & MODE_DIRECT != 0 {
        // Each item from its register, in the same strided order.
        for (k, v) in vals.iter().enumerate() {
            let i = tid + (NT * k) as u32;
            if (loaded >> k) & 1 != 0 {
                let item = a0 + i as u64;
                let dst = if scatter {
                    let slot = object_slot(sh, &t, i, &mut err) as usize;
                    let rank = item.wrapping_sub((*bsh.add(slot)).to_u64());
                    (*ssh.add(slot)).to_u64().wrapping_add(rank)
                } else {
                    item
                };
                if dst < a.output_len {
                    *a.output.add(dst as usize) = *v;
                } else {
                    err |= ERROR_SCATTER;
                }
            }
        }
        cta.raise_error(a.error, err);
        return;
    }
    // The LBS slots are read for the last time above; the values go to their own region.
    for (k, v) in vals.iter().enumerate() {
        let i = tid + (NT * k) as u32;
        if i < ac {
            *vsh.add(i as usize) = *v;
        }
    }
    cta.sync();
    // The stores, interval by interval: runs of `run` objects, one per warp lane, spread
    // evenly over the warps; each interval clipped to the tile's items.
    let load = t.b_loaded();
    let (lane, warp) = (cta.lane(), cta.warp());
    let warps = (NT / WARP_SIZE as usize) as u32;
    let run = bc.div_ceil(warps).clamp(1, WARP_SIZE);
    let mut r = warp;
    while r * run < bc {
        let j = r * run + lane;
        let (mut count, mut at, mut from, mut to) = (0u32, 0u32, 0u64, 0u64);
        if lane < run && j < bc {
            let start = (*bsh.add(j as usize)).to_u64();
            let end = if j + 1 < load {
                (*bsh.add(j as usize + 1)).to_u64()
            } else {
                a1
            };
            // Clipping keeps every slot inside the tile whatever the scan holds (a
            // contradictory scan was reported by the search).
            let (lo, hi) = (start.max(a0), end.min(a1));
            count = hi.saturating_sub(lo) as u32;
            at = lo.wrapping_sub(a0) as u32;
            let rank = lo.wrapping_sub(start);
            from = if gather {
                (*gsh.add(j as usize)).to_u64().wrapping_add(rank)
            } else {
                lo
            };
            to = if scatter {
                (*ssh.add(j as usize)).to_u64().wrapping_add(rank)
            } else {
                lo
            };
        }
        let mut live = cta.ballot(!0, count != 0);
        while live != 0 {
            let s = live.trailing_zeros();
            live &= live - 1;
            let c = cta.shfl_idx_u32(!0, count, s, WARP_SIZE);
            let at = cta.shfl_idx_u32(!0, at, s, WARP_SIZE);
            let from = shfl_idx(cta, !0, from, s, WARP_SIZE);
            let to = shfl_idx(cta, !0, to, s, WARP_SIZE);
            let mut q = lane;
            while q < c {
                // Items whose load was out of range were reported and are skipped.
                if seq || from.wrapping_add(q as u64) < a.input_len {
                    let dst = to.wrapping_add(q as u64);
                    if dst < a.output_len {
                        *a.output.add(dst as usize) = *vsh.add((at + q) as usize);
                    } else {
                        err |= ERROR_SCATTER;
                    }
                }
                q += WARP_SIZE;
            }
        }
        r += warps;
    }
    cta.raise_error(a.error, err);
}

/// Byte offset of [`interval_move`]'s staged values: after the load-balancing search's
/// slots and the gather and scatter starts, 8-byte aligned.
#[inline(always)]
const fn move_values_offset(index_bytes: usize, nt: usize, vt: usize) -> usize {
    round8(shared_bytes(index_bytes, nt, vt, 2, index_bytes))
}

/// Shared-memory bytes of [`interval_move`]: [`shared_bytes`]`(index_bytes, nt, vt, 2,
/// index_bytes)` (the load-balancing search's slots, then the gather and scatter starts),
/// 8-byte aligned, then the tile's `nt * vt` values.
///
/// ```
/// use mgpu_intervalmove::device::{move_shared_bytes, shared_bytes};
/// assert_eq!(move_shared_bytes(4, 4, 128, 11), shared_bytes(4, 128, 11, 2, 4).div_ceil(8) * 8 + 4 * 1408);
/// ```
#[inline(always)]
pub const fn move_shared_bytes(
    elem_bytes: usize,
    index_bytes: usize,
    nt: usize,
    vt: usize,
) -> usize {
    move_values_offset(index_bytes, nt, vt) + nt * vt * elem_bytes
}

/// The naive interval expand, one thread per interval (the seed's "miserably
/// unsatisfying" version, kept as the benchmark's baseline): thread `i` writes
/// `values[i]` to `output[scan[i]..scan[i + 1]]` (the last interval ends at `total`).
/// Validates like [`expand`]; stores are clamped to the output.
///
/// # Safety
/// As [`expand`] (no partitions are read; `mp` may be null); shared memory is not used.
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_intervalmove::device::{IntervalArgs, ERROR_TOTAL};
/// use mgpu_intervalmove::kernels::Naive;
/// let (scan, vals) = ([0u32, 2, 9], [5i64, 6, 7]); // scan[2] = 9 is past the total 4
/// let (mut out, mut err) = ([0i64; 4], [0u32]);
/// let mut a = IntervalArgs::<i64, u32>::empty();
/// (a.total, a.num_intervals, a.scan, a.input, a.input_len) = (4, 3, scan.as_ptr(), vals.as_ptr(), 3);
/// (a.output, a.output_len, a.error) = (out.as_mut_ptr(), 4, err.as_mut_ptr());
/// sim::launch_kernel::<Naive<i64, u32, 32>>(1, &a);
/// assert_eq!(out, [5, 5, 6, 6]); // stores clamped to the output
/// assert_eq!(err[0] & ERROR_TOTAL, ERROR_TOTAL);
/// ```
#[inline(always)]
pub unsafe fn expand_naive<C: Cta, T: Sequence, I: Idx, const NT: usize>(
    cta: &C,
    a: &IntervalArgs<T, I>,
) {
    let i = cta.block() as u64 * NT as u64 + cta.tid() as u64;
    let n = a.num_intervals.to_u64();
    if i >= n {
        return;
    }
    let mut err = 0u32;
    let total = a.total.to_u64();
    let start = (*a.scan.add(i as usize)).to_u64();
    let end = if i + 1 < n {
        (*a.scan.add(i as usize + 1)).to_u64()
    } else {
        total
    };
    if i == 0 && start != 0 {
        err |= ERROR_SCAN_START;
    }
    // Every scan value is some thread's `start`: the order check compares it with the
    // next scan value, the total check with the total (a last value past the total is
    // not a decrease).
    if i + 1 < n && start > end {
        err |= ERROR_SCAN_ORDER;
    }
    if start > total {
        err |= ERROR_TOTAL;
    }
    let v = if a.mode & MODE_SEQUENCE != 0 {
        T::sequence(a.first, a.step, i)
    } else if i < a.input_len {
        *a.input.add(i as usize)
    } else {
        T::ZERO
    };
    let end = if end < a.output_len {
        end
    } else {
        a.output_len
    };
    let mut j = start;
    while j < end {
        *a.output.add(j as usize) = v;
        j += 1;
    }
    cta.raise_error(a.error, err);
}
