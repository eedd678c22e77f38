//! The load-balancing search kernel body (seed 001's `KernelLoadBalance`), generic over
//! [`Cta`], the index type and the tile shape, with the input checks fused in (DESIGN §5).
//!
//! Each CTA takes one tile of `NT * VT` merge steps of the natural numbers (work items)
//! with the scan (objects), between two upper-bound Merge Path partitions. Before
//! searching, it checks everything the search relies on:
//!
//! - the partitions are ordered and inside the inputs (`a0 <= a1 <= total`,
//!   `b0 <= b1 <= n`);
//! - the scan values it reads (the tile's, the preceding one and the halo) do not
//!   decrease;
//! - the tile's start and end splits are splits of the merge (the last item before a
//!   split precedes the next scan value, `a - 1 < scan[b]`, and the last scan value before
//!   it is at most the next item, `scan[b - 1] <= a`);
//! - the tile holding object 0 finds `scan[0] == 0`; the last tile finds
//!   `scan[n - 1] <= total`.
//!
//! When every tile passes, the scan is non-decreasing from 0 and at most `total`, and the
//! result is exact. A tile that fails ORs its reason into the error word and writes
//! nothing, so bad input never makes the search read or write outside its ranges (a
//! tile's search stays inside its shared memory only when its data are consistent). Every
//! store is also clamped to `item < total`.
//!
//! Object tiles ([`MODE_OBJECTS`], for dense scans) need no partitions: each takes a fixed
//! run of objects and checks, with the same error bits, that its scan values and the next
//! tile's first do not decrease, that none is past `total`, and (tile 0) that `scan[0]`
//! is 0 (`mgpu_ctasearch::object_tile_errors`).

use mgpu_core::Cta;
use mgpu_ctasearch::{
    chunk_tile, cta_load_balance_copy_async, cta_load_balance_partitions, cta_load_balance_search,
    cta_load_balance_shared_len, cta_object_tile_copy_async, cta_spill_object_tile,
    load_balance_tile, object_tile_errors, scan_decreases, Idx, LoadBalanceTile, ObjectTile,
    SpillList,
};
use mgpu_loadstore::store_vec16;

/// Error bit: the scan decreases somewhere (or the partitions computed from it are
/// inconsistent, which only a decreasing scan causes).
pub const ERROR_UNSORTED: u32 = 1;
/// Error bit: `scan[0] != 0` (an exclusive scan starts at 0).
pub const ERROR_FIRST: u32 = 2;
/// Error bit: `scan[n - 1] > total` (the scan disagrees with the total).
pub const ERROR_TOTAL: u32 = 4;

/// Mode bit: each tile finds its own two Merge Path partitions and writes them to `mp`
/// (`mgpu_ctasearch::cta_load_balance_partitions`), so no partition kernel runs before
/// (for grids of about one wave).
///
/// ```
/// assert_eq!(mgpu_loadbalance::device::MODE_SEARCH, 1);
/// ```
pub const MODE_SEARCH: u32 = 1;
/// Mode bit: **object tiles** ([`ObjectTile`]). Tile `t` takes the `k` objects from `t * k`
/// (`k = object_tiles.tile_objects`) and all their work items, `scan[t * k]` up to the next
/// tile's first scan value: its ranges come from the two scan values it loads anyway, so
/// no partition search runs at all. A tile whose objects and items exceed `NT * VT` merge
/// steps (a count far above the mean) appends its range, cut into Merge Path chunks of
/// `NT * VT` steps, to the spill list (`object_tiles`, [`SpillList`]), for a
/// [`MODE_SPILL`] launch.
///
/// ```
/// assert_eq!(mgpu_loadbalance::device::MODE_OBJECTS, 2);
/// ```
pub const MODE_OBJECTS: u32 = 2;
/// Mode bit: the launch after an object-tile launch, of persistent CTAs: each takes the
/// spilled chunks `block, block + grid, ...` and maps each as a tile.
///
/// ```
/// assert_eq!(mgpu_loadbalance::device::MODE_SPILL, 4);
/// ```
pub const MODE_SPILL: u32 = 4;

/// Arguments of the load-balancing search kernel.
///
/// # Examples
///
/// ```
/// let a = mgpu_loadbalance::device::LoadBalanceArgs::<u32>::empty();
/// assert_eq!((a.total, a.mode), (0, 0));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LoadBalanceArgs<I> {
    /// The exclusive scan of the objects' work-item counts (`num_objects` values).
    pub scan: *const I,
    /// Objects (`scan` length).
    pub num_objects: u64,
    /// Work items (the length of `objects` and `ranks`).
    pub total: u64,
    /// Upper-bound Merge Path partitions of the work items against `scan`, one per tile
    /// boundary (`grid + 1`, from `mgpu_partition::load_balance_partitions`, or written
    /// by the tiles themselves with [`MODE_SEARCH`]); unused by object tiles.
    pub mp: *const u64,
    /// Per work item: the object that generated it (`upper_bound(scan, item) - 1`).
    pub objects: *mut I,
    /// Per work item: its rank in its object (`item - scan[object]`); null for none.
    pub ranks: *mut I,
    /// The error word: the kernel ORs `ERROR_*` bits into it (zeroed by the host).
    pub error: *mut u32,
    /// `MODE_*` bits (0: Merge Path tiles between the partitions in `mp`).
    pub mode: u32,
    /// Object tiles ([`MODE_OBJECTS`]): the objects a tile and the spill list.
    pub object_tiles: SpillList,
}

impl<I> LoadBalanceArgs<I> {
    /// All pointers null, all counts 0, Merge Path tiles.
    ///
    /// ```
    /// let a = mgpu_loadbalance::device::LoadBalanceArgs::<u64>::empty();
    /// assert!(a.scan.is_null() && a.object_tiles.spilled.is_null());
    /// ```
    pub fn empty() -> Self {
        LoadBalanceArgs {
            scan: core::ptr::null(),
            num_objects: 0,
            total: 0,
            mp: core::ptr::null(),
            objects: core::ptr::null_mut(),
            ranks: core::ptr::null_mut(),
            error: core::ptr::null_mut(),
            mode: 0,
            object_tiles: SpillList::empty(),
        }
    }
}

/// Bytes of shared memory the kernel needs for `nv = NT * VT` steps of `index_bytes`-byte
/// indices: the CTA load-balancing search's slots, rounded up to 16 bytes (the order
/// check reads whole 16-byte groups, [`scan_decreases`]).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_loadbalance::device::shared_bytes(4, 128, 7), 904 * 4);
/// ```
pub const fn shared_bytes(index_bytes: usize, nt: usize, vt: usize) -> usize {
    (cta_load_balance_shared_len(nt * vt) * index_bytes).div_ceil(16) * 16
}

/// The ranges `(a0, a1, b0, b1)` that upper-bound Merge Path partitions `mp0 = mp[block]`
/// and `mp1 = mp[block + 1]` give tile `block` (`nv` steps over `total` work items and
/// `n` objects; the tile's own objects, without the preceding one or the halo), or `None`
/// when they are out of order or outside the inputs (only a decreasing scan makes the
/// partition kernels write such values). Pure arithmetic on the two values, so every
/// thread of a tile agrees: the first check of every kernel that runs a load-balancing
/// search over such partitions (this one and the segmented reduction).
///
/// # Examples
///
/// ```
/// use mgpu_loadbalance::device::tile_ranges;
/// // Seed 001's counts 2, 5, 3, 0, 1 (11 items, 5 objects), tiles of 4 steps: tile 1.
/// assert_eq!(tile_ranges(1, 4, 5, 11, 2, 6), Some((2, 6, 2, 2)));
/// assert_eq!(tile_ranges(1, 4, 5, 11, 6, 2), None);
/// ```
#[inline(always)]
pub fn tile_ranges(
    block: u32,
    nv: u64,
    n: u64,
    total: u64,
    mp0: u64,
    mp1: u64,
) -> Option<(u64, u64, u64, u64)> {
    let gid = nv * block as u64;
    let end = if total + n < gid + nv {
        total + n
    } else {
        gid + nv
    };
    if !(mp0 <= mp1 && mp1 <= total && mp0 <= gid && mp1 <= end)
        || gid - mp0 > end - mp1
        || end - mp1 > n
    {
        return None;
    }
    Some((mp0, mp1, gid - mp0, end - mp1))
}

/// What thread 0 of a tile finds wrong (`ERROR_*` bits) at the tile's ends: its start and
/// end splits of the merge (`(a, b)` splits it when the last item before it precedes the
/// next scan value and the last scan value before it is at most the next item), `scan[0]`
/// in the tile holding object 0 and `scan[n - 1]` in the one holding the last object.
///
/// # Safety
/// `scan` is readable at `0..n`.
#[inline(always)]
unsafe fn check_ends<I: Idx>(
    scan: *const I,
    n: u64,
    total: u64,
    (a0, a1, b0, b1): (u64, u64, u64, u64),
) -> u32 {
    let at = |j: u64| (*scan.add(j as usize)).to_u64();
    let split_ok = |a: u64, b: u64| {
        (a == 0 || b >= n || a - 1 < at(b)) && (b == 0 || a >= total || at(b - 1) <= a)
    };
    let mut bad = 0;
    if !split_ok(a0, b0) || !split_ok(a1, b1) {
        bad |= ERROR_UNSORTED;
    }
    if b0 == 0 && n > 0 && at(0) != 0 {
        bad |= ERROR_FIRST;
    }
    if b1 == n && n > 0 && at(n - 1) > total {
        bad |= ERROR_TOTAL;
    }
    bad
}

/// The kernel body. Merge Path tiles (mode 0 or [`MODE_SEARCH`]): tile `cta.block()`
/// checks its partitions, copies its scan values (with the preceding object's) to shared
/// memory with asynchronous copies ([`cta_load_balance_copy_async`]: the tile's rows in
/// flight at once), checks them there (see the module docs), runs the CTA search on them
/// ([`cta_load_balance_search`]), and stores each of its work items' object (and rank)
/// with coalesced strided stores. Object tiles ([`MODE_OBJECTS`]) and their spilled chunks
/// ([`MODE_SPILL`]): see those.
///
/// # Safety
/// `scan` is readable at `0..num_objects`, `mp` at `0..=grid` (writable with
/// [`MODE_SEARCH`]; unused with object tiles), `objects` (and `ranks` when not null)
/// writable at `0..total`, `error` is one writable word; with object tiles
/// `object_tiles` as [`SpillList`] documents (its count a zeroed word). Shared memory is
/// [`shared_bytes`]. `NT` is a multiple of 32.
///
/// # Examples
///
/// Seed 001's counts 2, 5, 3, 0, 1 in one tile (partitions 0 and 11); then counts 2, 40,
/// 3, 0, 1 in object tiles of 2 objects and 32 steps: tiles 1 and 2 fit, tile 0 (objects
/// 0 and 1, 42 items) spills two chunks, which the spill launch maps.
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_loadbalance::device::{load_balance, shared_bytes, LoadBalanceArgs, MODE_OBJECTS, MODE_SPILL};
/// let (scan, mp) = ([0u32, 2, 7, 10, 10], [0u64, 11]);
/// let (mut obj, mut rank, mut err) = ([0u32; 11], [0u32; 11], [0u32]);
/// let mut args = LoadBalanceArgs::empty();
/// (args.scan, args.num_objects, args.total, args.mp) = (scan.as_ptr(), 5, 11, mp.as_ptr());
/// (args.objects, args.ranks, args.error) = (obj.as_mut_ptr(), rank.as_mut_ptr(), err.as_mut_ptr());
/// sim::launch(1, 32, shared_bytes(4, 32, 1), &|cta: &sim::SimCta| unsafe {
///     load_balance::<_, u32, 32, 1>(cta, &args)
/// });
/// assert_eq!(obj, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank, [0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// assert_eq!(err, [0]);
///
/// let scan = [0u32, 2, 42, 45, 45];
/// let (mut obj, mut spilled, mut spill) = ([9u32; 46], [0u64; 32], [0u32]);
/// (args.scan, args.total, args.objects, args.ranks) = (scan.as_ptr(), 46, obj.as_mut_ptr(), core::ptr::null_mut());
/// (args.mode, args.object_tiles.tile_objects) = (MODE_OBJECTS, 2);
/// let l = &mut args.object_tiles;
/// (l.spilled, l.count, l.capacity) = (spilled.as_mut_ptr(), spill.as_mut_ptr(), 8);
/// sim::launch(3, 32, shared_bytes(4, 32, 1), &|cta: &sim::SimCta| unsafe {
///     load_balance::<_, u32, 32, 1>(cta, &args)
/// });
/// assert_eq!((spill, &obj[40..]), ([2], &[9, 9, 2, 2, 2, 4][..]));
/// args.mode = MODE_SPILL;
/// sim::launch(1, 32, shared_bytes(4, 32, 1), &|cta: &sim::SimCta| unsafe {
///     load_balance::<_, u32, 32, 1>(cta, &args)
/// });
/// let want: Vec<u32> = [2, 40, 3, 0, 1].iter().enumerate().flat_map(|(o, &c)| vec![o as u32; c]).collect();
/// assert_eq!((&obj[..], err), (&want[..], [0]));
/// ```
#[inline(always)]
pub unsafe fn load_balance<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
) {
    if args.mode & MODE_OBJECTS != 0 {
        object_tile::<C, I, NT, VT>(cta, args);
        return;
    }
    cta.grid_dependency_wait(); // the partitions (or the spilled chunks) come from the kernel just before
    if args.mode & MODE_SPILL != 0 {
        spilled_chunks::<C, I, NT, VT>(cta, args);
        return;
    }
    let (n, total) = (args.num_objects, args.total);
    if args.mode & MODE_SEARCH != 0 {
        let nv = (NT * VT) as u64;
        let mp = args.mp as *mut u64;
        cta_load_balance_partitions::<C, I, NT>(cta, cta.block(), nv, total, args.scan, n, mp);
    }
    let (block, tid) = (cta.block(), cta.tid());
    let nv = (NT * VT) as u64;
    let sh = cta.shared::<I>(0);
    let (mp0, mp1) = (
        *args.mp.add(block as usize),
        *args.mp.add(block as usize + 1),
    );
    // The tile's ranges, checked before anything is read with them (the same on every
    // thread); then its scan values (the preceding one, the tile's, the halo) straight to
    // shared memory with asynchronous copies, all in flight at once, while thread 0 checks
    // the tile's ends in global memory.
    let ranges = tile_ranges(block, nv, n, total, mp0, mp1);
    let mut bad = if ranges.is_none() { ERROR_UNSORTED } else { 0 };
    let mut t = LoadBalanceTile::default();
    if let Some(r) = ranges {
        // The scan values placed at their global address modulo 16 bytes, so that they
        // copy as 16-byte vectors.
        t = load_balance_tile(
            block,
            nv,
            I::from_u64(total),
            I::from_u64(n),
            mp0,
            mp1,
            true,
        )
        .aligned_to(args.scan);
        cta_load_balance_copy_async::<C, I, NT>(cta, &t, args.scan, sh);
        if tid == 0 {
            bad |= check_ends(args.scan, n, total, r);
        }
        cta.async_copy_wait();
    }
    cta.sync();
    // Every pair of consecutive scan values the search will read, in shared memory: a
    // decreasing scan would make the threads' Merge Path ranges overlap.
    let b = sh.add(t.b_shared() as usize);
    if scan_decreases::<C, I, NT, VT>(cta, b, t.b_loaded()) {
        bad |= ERROR_UNSORTED;
    }
    // Any thread's complaint stops the whole tile, which then writes nothing.
    if cta.sync_or(bad != 0) {
        cta.raise_error(args.error, bad);
        return;
    }
    // The tile's first own object is `b0 = nv * block - mp0`; the preceding one was loaded
    // when that is not 0.
    let preceding = nv * block as u64 != mp0;
    search_and_store::<C, I, NT, VT>(cta, args, t, preceding, t.a_count());
}

/// The CTA search of a checked tile whose scan values are in shared memory, then the
/// stores of its first `items` work items' objects (and ranks), clamped to `total`.
#[inline(always)]
unsafe fn search_and_store<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
    t: LoadBalanceTile<I>,
    preceding: bool,
    items: u32,
) {
    let (tid, total) = (cta.tid(), args.total);
    let sh = cta.shared::<I>(0);
    let t = cta_load_balance_search::<C, I, NT, VT>(cta, t, preceding, sh);
    // The tile's items in strided order (a checked tile has at most NT * VT), offsets
    // relative to its first item; stores clamped to `total`.
    let a0 = t.a0.to_u64();
    let stored = if total > a0 {
        (total - a0).min(items as u64) as u32
    } else {
        0
    };
    let objects = args.objects.wrapping_add(a0 as usize);
    if args.ranks.is_null() {
        // 16-byte stores: a quarter of the store instructions for 4-byte indices.
        store_vec16::<C, I, NT, VT>(cta, stored, objects, |i| *sh.add(i as usize));
    } else {
        let bsh = sh.add(t.b_shared() as usize);
        let ranks = args.ranks.wrapping_add(a0 as usize);
        for k in 0..VT {
            let i = tid + (NT * k) as u32;
            if i < stored {
                let o = *sh.add(i as usize);
                *objects.add(i as usize) = o;
                let s = *bsh.add(o.wrapping_sub(t.b0).to_usize());
                *ranks.add(i as usize) = t.a0.wrapping_add(I::from_u32(i)).wrapping_sub(s);
            }
        }
    }
}

/// An object tile ([`MODE_OBJECTS`], [`ObjectTile`]): objects `o0 .. o1`
/// (`tile_objects` from `block * tile_objects`), work items `scan[o0] .. scan[o1]`
/// (`total` for the last tile), searched padded to exactly `NT * VT` steps
/// ([`ObjectTile::padded`]); a tile that does not fit appends its chunks to the spill
/// list (`object_tiles`).
#[inline(always)]
unsafe fn object_tile<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
) {
    let (n, total) = (args.num_objects, args.total);
    let nv = (NT * VT) as u32;
    let sh = cta.shared::<I>(0);
    let mut t = ObjectTile::new(
        cta.block(),
        args.object_tiles.tile_objects,
        n,
        nv,
        args.scan,
    );
    cta_object_tile_copy_async::<C, I, NT>(cta, &mut t, args.scan, n, total, sh);
    cta.async_copy_wait();
    cta.sync();
    let (order, past, start) = object_tile_errors::<C, I, NT, VT>(cta, &t, sh, n, total);
    let bad = (order as u32 * ERROR_UNSORTED)
        | (past as u32 * ERROR_TOTAL)
        | (start as u32 * ERROR_FIRST);
    if cta.sync_or(bad != 0) {
        cta.raise_error(args.error, bad);
        return;
    }
    // Sorted from here: a0 <= a1 <= total.
    if !t.fits(nv) {
        // Its chunks to the spill launch. Only a scan that is not sorted could overflow
        // the list (every tile checked its own).
        if !cta_spill_object_tile::<C, I, NT>(cta, &t, sh, nv as u64, &args.object_tiles) {
            cta.raise_error(args.error, (cta.tid() == 0) as u32 * ERROR_UNSORTED);
        }
        return;
    }
    let items = t.items() as u32;
    search_and_store::<C, I, NT, VT>(cta, args, t.padded(nv), false, items);
}

/// The spilled chunks ([`MODE_SPILL`]), `block, block + grid, ...`: each a tile of at most
/// `NT * VT` Merge Path steps with its ranges given ([`chunk_tile`]: the object before the
/// chunk loaded for the items that continue it).
#[inline(always)]
unsafe fn spilled_chunks<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
) {
    let (n, total) = (args.num_objects, args.total);
    let nv = (NT * VT) as u64;
    let sh = cta.shared::<I>(0);
    let list = &args.object_tiles;
    let chunks = list.chunks();
    let mut w = cta.block() as u64;
    while w < chunks {
        // Written by checked tiles: consistent.
        let (t, preceding) = chunk_tile(list.chunk(w), nv, total, n, args.scan);
        cta_load_balance_copy_async::<C, I, NT>(cta, &t, args.scan, sh);
        cta.async_copy_wait();
        cta.sync();
        search_and_store::<C, I, NT, VT>(cta, args, t, preceding, t.a_count());
        w += cta.grid() as u64;
        cta.sync(); // the next chunk reuses the shared memory
    }
}
