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

use mgpu_core::Cta;
use mgpu_core::Less;
use mgpu_ctasearch::{
    cta_load_balance_copy_async, cta_load_balance_partitions, cta_load_balance_search,
    cta_load_balance_shared_len, load_balance_tile, merge_path, scan_decreases, Counting, Idx,
    LoadBalanceTile, Upper,
};
use mgpu_loadstore::{aligned_slot, global_to_shared_async_vec16, store_vec16};

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
/// Mode bit: **object tiles**. Tile `t` takes the `tile_objects` objects from
/// `t * tile_objects` and all their work items, `scan[t * tile_objects]` up to the next
/// tile's first scan value: its ranges come from the two scan values it loads anyway, so
/// no partition search runs at all. A tile whose objects and items exceed `NT * VT` merge
/// steps (a count far above the mean) appends its range, cut into Merge Path chunks of
/// `NT * VT` steps, to `spilled`, for a [`MODE_SPILL`] launch.
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
/// Words (`u64`) of one spilled chunk: its first and last-plus-one work item and its first
/// and last-plus-one object (the chunk's own; the object before it is loaded for the
/// items that continue it).
///
/// ```
/// assert_eq!(mgpu_loadbalance::device::SPILL_WORDS, 4);
/// ```
pub const SPILL_WORDS: usize = 4;

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
    /// Objects per tile ([`MODE_OBJECTS`]; 1 to `NT * VT - 1`).
    pub tile_objects: u64,
    /// Object tiles: the spilled chunks ([`SPILL_WORDS`] words each, room for
    /// `spill_capacity`).
    pub spilled: *mut u64,
    /// Object tiles: how many chunks `spilled` holds (a zeroed word before the launch).
    pub spill: *mut u32,
    /// Chunks `spilled` has room for: `ceil((total + num_objects) / (NT * VT))` plus the
    /// tiles are always enough.
    pub spill_capacity: u64,
}

impl<I> LoadBalanceArgs<I> {
    /// All pointers null, all counts 0, Merge Path tiles.
    ///
    /// ```
    /// let a = mgpu_loadbalance::device::LoadBalanceArgs::<u64>::empty();
    /// assert!(a.scan.is_null() && a.spilled.is_null());
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
            tile_objects: 0,
            spilled: core::ptr::null_mut(),
            spill: core::ptr::null_mut(),
            spill_capacity: 0,
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
/// writable at `0..total`, `error` is one writable word; with object tiles `spill` is one
/// zeroed word and `spilled` has `spill_capacity` chunks. Shared memory is
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
/// (args.mode, args.tile_objects) = (MODE_OBJECTS, 2);
/// (args.spilled, args.spill, args.spill_capacity) = (spilled.as_mut_ptr(), spill.as_mut_ptr(), 8);
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

/// An object tile ([`MODE_OBJECTS`]): objects `o0 .. o1` (`tile_objects` from
/// `block * tile_objects`), work items `scan[o0] .. scan[o1]` (`total` for the last tile).
///
/// Shared memory: the item slots from 0, then the scan values (at their global address
/// modulo 16 bytes, after the first `NT * VT - (o1 - o0)` slots), then a sentinel `I::MAX`
/// in the halo's slot. The search runs over exactly `NT * VT` steps, padded with items
/// past the tile's last, which all go to object `o1 - 1` (every one below the sentinel)
/// into slots that are never stored: so every thread runs the unguarded serial search.
#[inline(always)]
unsafe fn object_tile<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
) {
    let (n, total, tid) = (args.num_objects, args.total, cta.tid());
    let nv = (NT * VT) as u32;
    let k = args.tile_objects.clamp(1, nv as u64 - 1);
    let o0 = k * cta.block() as u64;
    let o1 = (o0 + k).min(n);
    let count = (o1 - o0) as u32;
    let sh = cta.shared::<I>(0);
    let src = args.scan.add(o0 as usize);
    let b_slot = aligned_slot(src, nv - count);
    global_to_shared_async_vec16::<C, I, NT>(cta, src, count, sh.add(b_slot as usize));
    // Both ends from global memory (one request a warp), while the copies fly.
    let a0 = *src;
    let a1 = if o1 < n {
        *args.scan.add(o1 as usize)
    } else {
        I::from_u64(total)
    };
    if tid == 0 {
        *sh.add((b_slot + count) as usize) = I::from_u64(u64::MAX);
    }
    cta.async_copy_wait();
    cta.sync();
    let b = sh.add(b_slot as usize);
    let mut bad = 0;
    if scan_decreases::<C, I, NT, VT>(cta, b, count) {
        bad |= ERROR_UNSORTED;
    }
    if tid == 0 {
        if *b.add(count as usize - 1) > a1 {
            bad |= if o1 == n { ERROR_TOTAL } else { ERROR_UNSORTED };
        }
        if a1.to_u64() > total {
            bad |= ERROR_TOTAL;
        }
        if o0 == 0 && a0 != I::ZERO {
            bad |= ERROR_FIRST;
        }
    }
    if cta.sync_or(bad != 0) {
        cta.raise_error(args.error, bad);
        return;
    }
    // Sorted from here: a0 <= a1 <= total.
    let items = a1.wrapping_sub(a0).to_u64();
    if items + count as u64 > nv as u64 {
        spill::<C, I, NT, VT>(cta, args, a0, a1, o0, o1, b);
        return;
    }
    // Padded to exactly `nv` steps unless the padding would wrap `I` (then the guarded
    // search, over the tile's own steps).
    let pad = a0.to_u64() <= I::from_u64(u64::MAX).to_u64() - nv as u64;
    let t = LoadBalanceTile {
        a0,
        a1: if pad {
            a0.wrapping_add(I::from_u32(nv - count))
        } else {
            a1
        },
        b0: I::from_u64(o0),
        b1: I::from_u64(o1),
        extended: pad,
        b_slot,
    };
    search_and_store::<C, I, NT, VT>(cta, args, t, false, items as u32);
}

/// An object tile longer than `NT * VT` merge steps: appends its Merge Path, cut into
/// chunks of `NT * VT` steps, to `spilled` (one `atomic_add` a tile). The chunks' splits
/// come from Merge Path searches of the tile's scan values in shared memory (`b`).
#[inline(always)]
unsafe fn spill<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
    a0: I,
    a1: I,
    o0: u64,
    o1: u64,
    b: *mut I,
) {
    let nv = (NT * VT) as u64;
    let tid = cta.tid();
    let (items, count) = (a1.wrapping_sub(a0).to_u64(), o1 - o0);
    let steps = items + count;
    let chunks = steps.div_ceil(nv);
    let slot = cta.shared::<u32>(0);
    if tid == 0 {
        *slot = cta.atomic_add_u32(args.spill, chunks as u32);
    }
    cta.sync();
    let first = *slot as u64;
    if first + chunks > args.spill_capacity {
        // Only a scan that is not sorted could (every tile checked its own).
        if tid == 0 {
            cta.atomic_or_u32(args.error, ERROR_UNSORTED);
        }
        return;
    }
    // The split of the tile's Merge Path at local diagonal `d` (items first).
    let split = |d: u64| {
        if d >= steps {
            items
        } else {
            merge_path(Counting(a0), items, b as *const I, count, d, Upper, Less)
        }
    };
    let mut c = tid as u64;
    while c < chunks {
        let (d0, d1) = (nv * c, (nv * (c + 1)).min(steps));
        let (m0, m1) = (split(d0), split(d1));
        let r = args.spilled.add(SPILL_WORDS * (first + c) as usize);
        let a = a0.to_u64();
        (*r, *r.add(1), *r.add(2), *r.add(3)) = (a + m0, a + m1, o0 + d0 - m0, o0 + d1 - m1);
        c += NT as u64;
    }
}

/// The spilled chunks ([`MODE_SPILL`]), `block, block + grid, ...`: each a tile of at most
/// `NT * VT` Merge Path steps with its ranges given, mapped as a Merge Path tile (the
/// object before the chunk loaded for the items that continue it).
#[inline(always)]
unsafe fn spilled_chunks<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
) {
    let (n, total) = (args.num_objects, args.total);
    let nv = (NT * VT) as u64;
    let sh = cta.shared::<I>(0);
    let chunks = (*args.spill as u64).min(args.spill_capacity);
    let mut w = cta.block() as u64;
    while w < chunks {
        let r = args.spilled.add(SPILL_WORDS * w as usize);
        let (a0, a1, b0, b1) = (*r, *r.add(1), *r.add(2), *r.add(3));
        // Written by checked tiles: consistent.
        let steps = (a1 - a0) + (b1 - b0);
        let t = LoadBalanceTile {
            a0: I::from_u64(a0),
            a1: I::from_u64(a1),
            b0: I::from_u64(b0.saturating_sub(1)),
            b1: I::from_u64(b1),
            extended: steps == nv && a1 < total && b1 < n,
            b_slot: (a1 - a0) as u32,
        }
        .aligned_to(args.scan);
        cta_load_balance_copy_async::<C, I, NT>(cta, &t, args.scan, sh);
        cta.async_copy_wait();
        cta.sync();
        search_and_store::<C, I, NT, VT>(cta, args, t, b0 > 0, t.a_count());
        w += cta.grid() as u64;
        cta.sync(); // the next chunk reuses the shared memory
    }
}
