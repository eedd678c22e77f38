//! Load-balancing search (seed 001): the serial search a thread runs over its part of a
//! tile, and the CTA load-balancing search that maps a tile of work items to the objects
//! that generated them.
//!
//! The load-balancing search of work item `a` in the exclusive scan `b` of the objects'
//! work-item counts is `upper_bound(b, a) - 1`: the index of the object that generated
//! item `a`. It is the merge of the natural numbers (A) with `b` (B) where B goes first on
//! ties ([`Upper`] bounds), each A step emitting the number of B steps so far, minus one.

use crate::idx::min;
use crate::{compute_merge_range, merge_path, Counting, Idx, Keys, Upper};
use mgpu_core::{Cta, Less};
use mgpu_loadstore::{aligned_slot, global_to_shared_async_vec16, Vec16};

/// Serial load-balancing search without range checks (the seeds'
/// `DeviceSerialLoadBalanceSearch<VT, false>`): `VT` steps of the merge of the work items
/// `a_begin, a_begin + 1, ...` with the scan `b` from position `b_begin`. Each A step writes
/// `b_first + (B position)` to the next slot of `out` (with `b_first = b0 - 1`, wrapping, a
/// tile whose B starts at global object `b0` gets global object indices). Returns the
/// number of slots written.
///
/// For full ("extended") tiles: `b` must be readable one past the last B position the
/// steps reach (the halo: the next scan value), and the tile must not end within the
/// steps. One comparison per step, and pointers and the object index carried from step
/// to step (eight instructions a step on sm_90: the compare, a predicated store and two
/// increments, a predicated load and two increments, and a register move).
///
/// # Safety
/// `b` is readable at the positions read; `out` is writable for up to `VT` slots.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::serial_load_balance_search;
/// // Counts 2, 5, 3, 0, 1 → scan 0, 2, 7, 10, 10 (halo 11). The first 6 steps are
/// // B (scan 0), A 0, A 1, B (scan 2), A 2, A 3: four items, of objects 0, 0, 1, 1.
/// let scan = [0u32, 2, 7, 10, 10, 11];
/// let mut out = [0u32; 6];
/// let n = unsafe { serial_load_balance_search::<u32, 6>(scan.as_ptr(), 0, u32::MAX, 0, out.as_mut_ptr()) };
/// assert_eq!((n, &out[..4]), (4, &[0, 0, 1, 1][..]));
/// ```
#[inline(always)]
pub unsafe fn serial_load_balance_search<I: Idx, const VT: usize>(
    b: *const I,
    a_begin: I,
    b_first: I,
    b_begin: u32,
    out: *mut I,
) -> u32 {
    let mut a = a_begin;
    let mut pb = b.add(b_begin as usize);
    let mut object = b_first.wrapping_add(I::from_u32(b_begin));
    let mut b_key = *pb;
    let mut o = out;
    for i in 0..VT {
        if a < b_key {
            *o = object;
            o = o.add(1);
            a = a.wrapping_add(I::ONE);
        } else {
            object = object.wrapping_add(I::ONE);
            pb = pb.add(1);
            if i + 1 < VT {
                b_key = *pb;
            }
        }
    }
    o.offset_from(out) as u32
}

/// Serial load-balancing search with range checks (the seeds'
/// `DeviceSerialLoadBalanceSearch<VT, true>`): as [`serial_load_balance_search`], over
/// work items `a_begin..a_end` and scan positions `b_begin..b_end`, reading `b` only
/// inside that range. Steps past the end of both emit nothing.
///
/// # Safety
/// `b` is readable at `b_begin..b_end`; `out` is writable for up to `VT` slots.
///
/// # Examples
///
/// The seeds' example, whole: counts 2, 5, 3, 0, 1, scan 0, 2, 7, 10, 10, 11 items.
///
/// ```
/// use mgpu_ctasearch::serial_load_balance_search_guarded;
/// let scan = [0u32, 2, 7, 10, 10];
/// let mut out = [0u32; 16];
/// let n = unsafe {
///     serial_load_balance_search_guarded::<u32, _, 16>(&scan[..], 0, 11, u32::MAX, 0, 5, out.as_mut_ptr())
/// };
/// assert_eq!(n, 11);
/// assert_eq!(&out[..11], &[0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// ```
#[inline(always)]
pub unsafe fn serial_load_balance_search_guarded<I: Idx, K: Keys<I>, const VT: usize>(
    b: K,
    a_begin: I,
    a_end: I,
    b_first: I,
    b_begin: u32,
    b_end: u32,
    out: *mut I,
) -> u32 {
    let mut a = a_begin;
    let mut bi = b_begin;
    let mut b_key = if bi < b_end {
        b.key(bi as usize)
    } else {
        I::ZERO
    };
    let mut n = 0u32;
    for _ in 0..VT {
        if a < a_end && (bi >= b_end || a < b_key) {
            *out.add(n as usize) = b_first.wrapping_add(I::from_u32(bi));
            n += 1;
            a = a.wrapping_add(I::ONE);
        } else if bi < b_end {
            bi += 1;
            if bi < b_end {
                b_key = b.key(bi as usize);
            }
        }
    }
    n
}

/// Rows of strided loads a thread keeps in flight in [`for_each_strided`] (4-byte values,
/// more than two rows to load). A loop that used each value before loading the next
/// waited one round trip a row, and a tile of mean-1 counts loads 12 rows a thread (sm_90,
/// 128 threads of 23 steps): on an H100 that latency, not bandwidth, set the
/// load-balancing search's time at mean-1 counts.
///
/// ```
/// assert!(mgpu_ctasearch::LOAD_ROWS >= 2);
/// ```
pub const LOAD_ROWS: usize = 4;

/// Calls `f(k, load(k))` for this thread's strided indices `k = start + tid + nt * m`
/// below `count`, loading a group of rows before using any: [`LOAD_ROWS`] rows for 4-byte
/// values (`bytes`) when more than two rows remain in all, else 2 (8-byte values would
/// spill registers with more, and a tile of a few rows would load rows past the end).
/// Past the end the loads are clamped to index `count - 1`, so they are unconditional and
/// issue together (a load under a per-lane condition lets the compiler fold its use into
/// the same branch, each row then waiting for its own round trip), and `f` is called for
/// those lanes too, with `k >= count` and the last value: it must ignore them or be
/// harmless on them (a repeated compare).
///
/// # Examples
///
/// ```
/// // Thread 1 of 4 over 10 values from index 0: 1, 5, 9, then 13 (past the end, value 9).
/// let mut seen = vec![];
/// mgpu_ctasearch::for_each_strided(1, 4, 0, 10, 4, 0u32, |k| k * 10, |k, v| seen.push((k, v)));
/// assert_eq!(seen, [(1, 10), (5, 50), (9, 90), (13, 90)]);
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn for_each_strided<V: Copy>(
    tid: u32,
    nt: u32,
    start: u32,
    count: u32,
    bytes: usize,
    fill: V,
    load: impl Fn(u32) -> V,
    f: impl FnMut(u32, V),
) {
    if bytes > 4 || count <= start + 2 * nt {
        strided_groups::<V, 2>(tid, nt, start, count, fill, load, f)
    } else {
        strided_groups::<V, LOAD_ROWS>(tid, nt, start, count, fill, load, f)
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn strided_groups<V: Copy, const R: usize>(
    tid: u32,
    nt: u32,
    start: u32,
    count: u32,
    fill: V,
    load: impl Fn(u32) -> V,
    mut f: impl FnMut(u32, V),
) {
    let last = count.saturating_sub(1);
    let mut first = start;
    while first < count {
        let mut v = [fill; R];
        for (r, x) in v.iter_mut().enumerate() {
            let k = first + tid + nt * r as u32;
            *x = load(if k < last { k } else { last });
        }
        for (r, x) in v.iter().enumerate() {
            f(first + tid + nt * r as u32, *x);
        }
        first += nt * R as u32;
    }
}

/// What [`cta_load_balance`] returns: the tile's work items `a0..a1` (global indices,
/// disjoint between tiles) and the objects `b0..b1` whose scan values it loaded (with the
/// preceding object when asked for, so `b0` may be one less than the tile's first Merge
/// Path B position), and where those lie in shared memory.
///
/// After the call, shared memory holds (in `I` slots): at `[i]` for `i < a_count()` the
/// object that generated work item `a0 + i`; at `[a_count() + j]` for
/// `j < b_count() (+ 1 when the tile is extended)` the scan value of object `b0 + j`.
///
/// # Examples
///
/// ```
/// let t = mgpu_ctasearch::LoadBalanceTile { a0: 21u32, a1: 38, b0: 8, b1: 22, extended: true, b_slot: 17 };
/// assert_eq!((t.a_count(), t.b_count(), t.b_shared()), (17, 14, 17));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LoadBalanceTile<I> {
    /// First work item of the tile.
    pub a0: I,
    /// One past the last work item.
    pub a1: I,
    /// First object whose scan value is in shared memory.
    pub b0: I,
    /// One past the last object of the tile.
    pub b1: I,
    /// Whether the scan value of object `b1` (the halo) was loaded too.
    pub extended: bool,
    /// The shared-memory slot of object `b0`'s scan value: `a_count()`, or up to 3
    /// (4-byte `I`) or 1 (8-byte) slots after it when the values sit at their global
    /// address modulo 16 bytes ([`LoadBalanceTile::aligned_to`]), so that they copy as
    /// 16-byte vectors.
    pub b_slot: u32,
}

impl<I: Idx> LoadBalanceTile<I> {
    /// Work items in the tile (`a1 - a0`).
    ///
    /// # Examples
    ///
    /// ```
    /// let t = mgpu_ctasearch::LoadBalanceTile { a0: 2u64, a1: 9, b0: 0, b1: 3, extended: false, b_slot: 7 };
    /// assert_eq!(t.a_count(), 7);
    /// ```
    #[inline(always)]
    pub fn a_count(&self) -> u32 {
        self.a1.wrapping_sub(self.a0).to_u32()
    }
    /// Objects in the tile (`b1 - b0`).
    ///
    /// # Examples
    ///
    /// ```
    /// let t = mgpu_ctasearch::LoadBalanceTile { a0: 2u64, a1: 9, b0: 0, b1: 3, extended: false, b_slot: 7 };
    /// assert_eq!(t.b_count(), 3);
    /// ```
    #[inline(always)]
    pub fn b_count(&self) -> u32 {
        self.b1.wrapping_sub(self.b0).to_u32()
    }
    /// The shared-memory slot of object `b0`'s scan value (`b_slot`).
    ///
    /// # Examples
    ///
    /// ```
    /// let t = mgpu_ctasearch::LoadBalanceTile { a0: 2u64, a1: 9, b0: 0, b1: 3, extended: false, b_slot: 7 };
    /// assert_eq!(t.b_shared(), 7);
    /// ```
    #[inline(always)]
    pub fn b_shared(&self) -> u32 {
        self.b_slot
    }
    /// The tile with its scan values placed at their global address (in `scan`) modulo 16
    /// bytes: `b_slot` the first slot from `a_count()` on at which `scan[b0]` would sit so
    /// (4- and 8-byte `I`; others keep `a_count()`). Needs
    /// [`cta_load_balance_shared_len`]'s three spare slots.
    ///
    /// # Examples
    ///
    /// ```
    /// let scan = [0u32; 64];
    /// let at = scan.as_ptr() as usize;
    /// let t = mgpu_ctasearch::LoadBalanceTile { a0: 21u32, a1: 38, b0: 8, b1: 22, extended: true, b_slot: 17 };
    /// let s = t.aligned_to(scan.as_ptr()).b_slot;
    /// assert!((17..21).contains(&s));
    /// assert_eq!((s as usize * 4) % 16, (at + 8 * 4) % 16);
    /// ```
    #[inline(always)]
    pub fn aligned_to(self, scan: *const I) -> Self {
        let src = scan.wrapping_add(self.b0.to_usize());
        Self {
            b_slot: aligned_slot(src, self.a_count()),
            ..self
        }
    }
    /// Scan values the tile loads to shared memory: its objects' (`b_count()`) and, when
    /// `extended`, the halo's.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = mgpu_ctasearch::LoadBalanceTile { a0: 21u32, a1: 38, b0: 8, b1: 22, extended: true, b_slot: 17 };
    /// assert_eq!(t.b_loaded(), 15);
    /// ```
    #[inline(always)]
    pub fn b_loaded(&self) -> u32 {
        self.b_count() + self.extended as u32
    }
}

/// Shared-memory slots (of the index type) [`cta_load_balance`] needs for `nv = NT * VT`
/// work items per tile: `nv + 5` (the tile's items and objects, the preceding object, the
/// halo, and up to three slots that align the scan values with their global address for
/// [`cta_load_balance_copy_async`]).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_ctasearch::cta_load_balance_shared_len(128 * 7), 901);
/// ```
pub const fn cta_load_balance_shared_len(nv: usize) -> usize {
    nv + 5
}

/// The ranges [`cta_load_balance`] gives tile `block` (`nv` merge steps per tile, the
/// partitions `mp0 = mp[block]` and `mp1 = mp[block + 1]`), computed without the search, so
/// that a kernel can issue its loads of per-object data (`b0 .. b1`) before the search
/// runs. Same arguments as [`cta_load_balance`].
///
/// # Examples
///
/// Seed 001's example (79 work items, 40 objects, tiles of 30 steps): tile 3 holds items
/// 58 to 79 and objects 32 to 40, and with the preceding object from 31.
///
/// ```
/// use mgpu_ctasearch::load_balance_tile;
/// let t = load_balance_tile::<u32>(3, 30, 79, 40, 58, 79, true);
/// assert_eq!((t.a0, t.a1, t.b0, t.b1, t.extended), (58, 79, 31, 40, false));
/// ```
#[inline(always)]
pub fn load_balance_tile<I: Idx>(
    block: u32,
    nv: u64,
    dest_count: I,
    source_count: I,
    mp0: u64,
    mp1: u64,
    load_preceding_b: bool,
) -> LoadBalanceTile<I> {
    let range = compute_merge_range(
        dest_count.to_u64(),
        source_count.to_u64(),
        block as u64,
        0,
        nv,
        mp0,
        mp1,
    );
    let b0 = I::from_u64(range.b0);
    let a1 = I::from_u64(range.a1);
    let b1 = I::from_u64(range.b1);
    LoadBalanceTile {
        a0: I::from_u64(range.a0),
        a1,
        b0: if load_preceding_b && b0 != I::ZERO {
            b0.wrapping_sub(I::ONE)
        } else {
            b0
        },
        b1,
        extended: a1 < dest_count && b1 < source_count,
        b_slot: range.a1.wrapping_sub(range.a0) as u32,
    }
}

/// The CTA load-balancing search of seed 001 (`CTALoadBalance`) for tile `block`: maps the
/// tile's `NT * VT` merge steps to its work items and objects. `b_global` is the exclusive
/// scan of the `source_count` objects' work-item counts (`dest_count` work items in all);
/// `mp` are the upper-bound Merge Path partitions of the work items (the natural numbers)
/// against that scan, one per `NT * VT` steps (`mgpu-partition`'s load-balance
/// partitions); `shared` has [`cta_load_balance_shared_len`]`(NT * VT)` slots.
///
/// With `load_preceding_b`, the scan value of the object before the tile's first one is
/// loaded too (when there is one), so that every work item of the tile finds its object's
/// scan value in shared memory and can compute its rank, `a - scan[object]`.
///
/// Design: the tile's scan values are copied to shared memory (strided, one barrier);
/// each thread finds its cross-diagonal `VT * tid` with a Merge Path search against a
/// [`Counting`] A (no shared memory for the items), then runs the serial search, which
/// writes the object of each of its items straight to shared slot `a - a0`: items are
/// consecutive, so no register staging is needed. Full tiles that are not the last of
/// either sequence load the halo (the next scan value) and skip the range checks. Every
/// thread of the CTA must call it; it ends with a barrier.
///
/// With `check_order`, a tile whose scan values decrease (bad input) runs no search and
/// leaves the item slots as they were: the caller must check the scan in shared memory
/// (`b_shared`) and report it, as the interval kernels do. Without it, the caller must have
/// checked the tile's scan values for order before the call (the load-balancing search
/// does): on a decreasing scan, threads' Merge Path ranges overlap and two threads write
/// the same slots.
///
/// # Safety
/// `b_global` is readable at `0..source_count`, `mp` at `block` and `block + 1`, and
/// `shared` is this CTA's shared memory of the size above (not in use by other threads
/// during the call).
///
/// # Examples
///
/// The seeds' example (counts 2, 5, 3, 0, 1) in one CTA of 4 threads × 4 steps:
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::{cta_load_balance, cta_load_balance_shared_len};
/// let scan = [0u32, 2, 7, 10, 10];
/// let mp = [0u64, 11]; // one tile of 16 >= 11 + 5 steps
/// let mut out = vec![0u32; 11];
/// let (sp, mpp, op) = (scan.as_ptr() as usize, mp.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 4, cta_load_balance_shared_len(16) * 4, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     let t = cta_load_balance::<_, u32, 4, 4>(cta, 0, 11, sp as *const u32, 5, mpp as *const u64, sh, false, true);
///     let mut i = cta.tid();
///     while i < t.a_count() {
///         *(op as *mut u32).add(i as usize) = *sh.add(i as usize);
///         i += 4;
///     }
/// });
/// assert_eq!(out, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn cta_load_balance<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    block: u32,
    dest_count: I,
    b_global: *const I,
    source_count: I,
    mp: *const u64,
    shared: *mut I,
    load_preceding_b: bool,
    check_order: bool,
) -> LoadBalanceTile<I> {
    let (nv, mp0) = ((NT * VT) as u64, *mp.add(block as usize));
    let tile = load_balance_tile(
        block,
        nv,
        dest_count,
        source_count,
        mp0,
        *mp.add(block as usize + 1),
        load_preceding_b,
    );
    // The tile's first own object is `nv * block - mp0` (compute_merge_range); a preceding
    // one was added when that is not 0.
    let preceding = load_preceding_b && nv * block as u64 != mp0;
    let b_shared = shared.add(tile.b_shared() as usize);

    // The tile's scan values (and the halo) to shared memory, strided, each checked against
    // its successor (an L1 hit: the next thread loads it), a group of rows at a time. The
    // last value's successor is itself, which never compares below.
    let load = tile.b_loaded();
    let src = b_global.add(tile.b0.to_usize());
    let mut unsorted = false;
    let last = load.saturating_sub(1);
    for_each_strided(
        cta.tid(),
        NT as u32,
        0,
        load,
        core::mem::size_of::<I>(),
        (I::ZERO, I::ZERO),
        |k| {
            let next = if check_order {
                *src.add(if k < last { k + 1 } else { last } as usize)
            } else {
                I::ZERO
            };
            (*src.add(k as usize), next)
        },
        |k, (v, next)| {
            if k < load {
                *b_shared.add(k as usize) = v;
            }
            unsorted |= check_order && next < v;
        },
    );
    // A scan that decreases anywhere in the tile makes the threads' Merge Path ranges
    // overlap, so two threads would write the same item slots (a shared-memory race that
    // racecheck reports). Such a tile skips the search: its items stay unwritten, and the
    // caller's checks of the scan in shared memory raise the error.
    if !check_order {
        cta.sync();
    } else if cta.sync_or(unsorted) {
        cta.sync();
        return tile;
    }

    cta_load_balance_search::<C, I, NT, VT>(cta, tile, preceding, shared)
}

/// Copies the scan values `tile` loads ([`LoadBalanceTile::b_loaded`] values from object
/// `b0`, read from `b_global`) to their shared-memory slots (from
/// [`LoadBalanceTile::b_shared`]) with asynchronous copies ([`Cta::async_copy`]): every row
/// of the tile in flight at once, and no register holding a load. The copies are this
/// thread's: [`Cta::async_copy_wait`] and a barrier must come before anyone reads them.
/// With [`cta_load_balance_search`], the two halves of [`cta_load_balance`] for a kernel
/// that checks the scan values in shared memory in between (the load-balancing search).
///
/// # Safety
/// `b_global` is readable at `b0 .. b0 + b_loaded()`; `shared` is this CTA's shared memory
/// of [`cta_load_balance_shared_len`]`(NT * VT)` slots, and `tile` has at most `NT * VT`
/// merge steps.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::{cta_load_balance_copy_async, LoadBalanceTile};
/// let scan = [0u32, 2, 7, 10, 10];
/// let mut out = [0u32; 3];
/// let (sp, op) = (scan.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 2, 8 * 4, &|cta: &sim::SimCta| unsafe {
///     let t = LoadBalanceTile { a0: 2u32, a1: 4, b0: 1, b1: 3, extended: true, b_slot: 2 };
///     let sh = cta.shared::<u32>(0);
///     cta_load_balance_copy_async::<_, u32, 2>(cta, &t, sp as *const u32, sh);
///     cta.async_copy_wait();
///     cta.sync();
///     if cta.tid() == 0 {
///         for j in 0..3 {
///             *(op as *mut u32).add(j) = *sh.add(2 + j); // slots from a_count() = 2
///         }
///     }
/// });
/// assert_eq!(out, [2, 7, 10]);
/// ```
#[inline(always)]
pub unsafe fn cta_load_balance_copy_async<C: Cta, I: Idx, const NT: usize>(
    cta: &C,
    tile: &LoadBalanceTile<I>,
    b_global: *const I,
    shared: *mut I,
) {
    let load = tile.b_loaded();
    let src = b_global.add(tile.b0.to_usize());
    let dst = shared.add(tile.b_shared() as usize);
    global_to_shared_async_vec16::<C, I, NT>(cta, src, load, dst);
}

/// The search of [`cta_load_balance`] once `tile`'s scan values are in shared memory (at
/// [`LoadBalanceTile::b_shared`], for example by [`cta_load_balance_copy_async`] and a
/// barrier) and known not to decrease: each thread's Merge Path search against a
/// [`Counting`] A, then the serial search writing each item's object to shared slot
/// `a - a0`. `preceding`: the first loaded value is the object before the tile's first own
/// one. Every thread of the CTA must call it; it ends with a barrier. Returns `tile`.
///
/// # Safety
/// `shared` is this CTA's shared memory of [`cta_load_balance_shared_len`]`(NT * VT)`
/// slots holding the scan values; `tile` has at most `NT * VT` merge steps and comes from
/// [`load_balance_tile`].
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::{cta_load_balance_search, LoadBalanceTile};
/// // Seed 001's counts 2, 5, 3, 0, 1: 11 items, scan values after the item slots.
/// let mut out = vec![0u32; 11];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 4, 18 * 4, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     if cta.tid() == 0 {
///         for (j, v) in [0u32, 2, 7, 10, 10].iter().enumerate() {
///             *sh.add(11 + j) = *v;
///         }
///     }
///     cta.sync();
///     let t = LoadBalanceTile { a0: 0u32, a1: 11, b0: 0, b1: 5, extended: false, b_slot: 11 };
///     cta_load_balance_search::<_, u32, 4, 4>(cta, t, false, sh);
///     let mut i = cta.tid();
///     while i < 11 {
///         *(op as *mut u32).add(i as usize) = *sh.add(i as usize);
///         i += 4;
///     }
/// });
/// assert_eq!(out, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// ```
#[inline(always)]
pub unsafe fn cta_load_balance_search<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    tile: LoadBalanceTile<I>,
    preceding: bool,
    shared: *mut I,
) -> LoadBalanceTile<I> {
    let LoadBalanceTile {
        a0,
        a1,
        b0,
        extended,
        ..
    } = tile;
    let (a_count, b_count) = (tile.a_count(), tile.b_count());
    let pre = preceding as u32;
    let b_shared = shared.add(tile.b_shared() as usize);
    // Each thread's start on the tile's Merge Path.
    let steps = a_count + b_count - pre;
    let diag = min(VT as u32 * cta.tid(), steps);
    let mp_t = merge_path(
        Counting(a0),
        a_count,
        b_shared.add(pre as usize) as *const I,
        b_count - pre,
        diag,
        Upper,
        Less,
    );
    let a_t = a0.wrapping_add(I::from_u32(mp_t));
    let b_t = diag - mp_t + pre;
    let out = shared.add(mp_t as usize);
    let b_first = b0.wrapping_sub(I::ONE);
    if extended {
        serial_load_balance_search::<I, VT>(b_shared as *const I, a_t, b_first, b_t, out);
    } else {
        serial_load_balance_search_guarded::<I, _, VT>(
            b_shared as *const I,
            a_t,
            a1,
            b_first,
            b_t,
            b_count,
            out,
        );
    }
    cta.sync();
    tile
}

/// Whether `b[k + 1] < b[k]` for some `k + 1 < count` (this thread's share of the check;
/// OR it over the CTA, for example with `Cta::sync_or`). The values are read from shared
/// memory as 16-byte vectors, `16 / size_of::<I>()` a load, each with the value after its
/// group: a thread compares four 4-byte values with two loads instead of eight. Groups
/// are strided over the threads; `count` is at most `NT * VT + 8`. No barrier.
///
/// # Safety
/// `b` is shared memory aligned for `I`, readable from the 16-byte boundary at or below
/// `b` to the one at or above `b + count` (the values outside `b[..count]` are read and
/// ignored), and not written by any thread during the call.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::scan_decreases;
/// let mut found = vec![false; 2];
/// let fp = found.as_mut_ptr() as usize;
/// for (case, drop) in [(0usize, None), (1, Some(37u32))] {
///     sim::launch(1, 32, 64 * 4, &|cta: &sim::SimCta| unsafe {
///         let sh = cta.shared::<u32>(0);
///         if cta.tid() == 0 {
///             for k in 0..50u32 {
///                 *sh.add(3 + k as usize) = if Some(k) == drop { 0 } else { 10 * k };
///             }
///         }
///         cta.sync();
///         let bad = scan_decreases::<_, u32, 32, 1>(cta, sh.add(3), 50);
///         if cta.sync_or(bad) && cta.tid() == 0 {
///             *(fp as *mut bool).add(case) = true;
///         }
///     });
/// }
/// assert_eq!(found, [false, true]);
/// ```
#[inline(always)]
pub unsafe fn scan_decreases<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    b: *const I,
    count: u32,
) -> bool {
    let size = core::mem::size_of::<I>();
    let per = (16 / size) as u32;
    // Positions from the 16-byte boundary at or below `b`: `b[k]` is position `mis + k`.
    let mis = ((b as usize % 16) / size) as u32;
    let base = b.wrapping_sub(mis as usize);
    let end = mis + count;
    let groups = end.div_ceil(per);
    let mut bad = false;
    for r in 0..(NT * VT + 8 + 16).div_ceil(per as usize * NT) {
        let g = cta.tid() + (r * NT) as u32;
        if g < groups {
            let first = g * per;
            let v = *(base.add(first as usize) as *const Vec16);
            let vp = v.0.as_ptr() as *const I;
            let next = first + per;
            let w = if next < end {
                *base.add(next as usize)
            } else {
                I::ZERO
            };
            if first >= mis && next < end {
                // The whole group and the value after it are the scan's.
                for e in 0..per as usize - 1 {
                    bad |= *vp.add(e + 1) < *vp.add(e);
                }
                bad |= w < *vp.add(per as usize - 1);
            } else {
                for e in 0..per {
                    let p = first + e;
                    if p >= mis && p + 1 < end {
                        let x = *vp.add(e as usize);
                        let y = if e + 1 < per {
                            *vp.add(e as usize + 1)
                        } else {
                            w
                        };
                        bad |= y < x;
                    }
                }
            }
        }
    }
    bad
}

/// Tile `block`'s two load-balancing partitions, found by the tile itself instead of a
/// partition kernel before it: the upper-bound Merge Path of the `total` work items (the
/// natural numbers) against the `num_objects` scan values `scan` at the diagonals
/// `nv * block` and `nv * (block + 1)` (clamped to `total + num_objects`), the values
/// `mgpu-partition`'s load-balance partitions hold. Warp 0 searches the first, warp 1 the
/// second (warp 0 both in a CTA of one warp), each as a 32-lane cooperative search
/// ([`merge_path_coop`](crate::merge_path_coop): one round trip a five bisection steps);
/// lane 0 writes them to `mp[block]` and `mp[block + 1]`, and a barrier follows, so every
/// thread of the tile can read them there. The next tile writes the same value to
/// `mp[block + 1]` (the search is deterministic, sorted scan or not).
///
/// For grids of about one wave: each search costs its tile `log2(num_objects) / 5` round
/// trips before its first load, which a partition kernel pays once for the whole grid
/// but then adds its launch.
///
/// # Safety
/// `scan` is readable at `0..num_objects`, `mp` writable at `block` and `block + 1`;
/// every thread of the CTA calls it; `NT` is a multiple of 32.
///
/// # Examples
///
/// Seed 001's counts 2, 5, 3, 0, 1 (11 items, 5 objects) in tiles of 4 steps:
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::cta_load_balance_partitions;
/// let scan = [0u32, 2, 7, 10, 10];
/// let mut mp = vec![0u64; 5];
/// let (s, m) = (scan.as_ptr() as usize, mp.as_mut_ptr() as usize);
/// sim::launch(4, 64, 0, &|cta: &sim::SimCta| unsafe {
///     cta_load_balance_partitions::<_, u32, 64>(cta, cta.block(), 4, 11, s as *const u32, 5, m as *mut u64);
/// });
/// assert_eq!(mp, [0, 2, 6, 9, 11]); // B A A B | A A A A | A B A A | A B B A
/// ```
#[inline(always)]
pub unsafe fn cta_load_balance_partitions<C: Cta, I: Idx, const NT: usize>(
    cta: &C,
    block: u32,
    nv: u64,
    total: u64,
    scan: *const I,
    num_objects: u64,
    mp: *mut u64,
) {
    const { assert!(NT.is_multiple_of(32)) };
    let steps = total + num_objects;
    let search = |k: u64| {
        let d = nv * (block as u64 + k);
        let diag = if d < steps { d } else { steps };
        crate::merge_path_coop(
            cta,
            5,
            Counting(I::ZERO),
            total,
            scan,
            num_objects,
            diag,
            Upper,
            Less,
        )
    };
    let (warp, lane0) = (cta.warp(), cta.lane() == 0);
    if NT == 32 {
        let (m0, m1) = (search(0), search(1));
        if lane0 {
            *mp.add(block as usize) = m0;
            *mp.add(block as usize + 1) = m1;
        }
    } else if warp < 2 {
        let m = search(warp as u64);
        if lane0 {
            *mp.add(block as usize + warp as usize) = m;
        }
    }
    cta.sync();
}

/// An **object tile** of a load-balancing search: the objects `o0 .. o1` (a fixed number a
/// tile, [`ObjectTile::new`]) and all their work items `a0 .. a1` (`scan[o0]` up to
/// `scan[o1]`, or the total for the last tile). Its ranges are the two scan values the
/// tile loads anyway, so no Merge Path partition is searched: on dense scans (a mean count
/// of 1 or 2) the partitions were 6 to 13 % of a load-balancing search on an H100.
///
/// Shared memory ([`cta_load_balance_shared_len`] slots): the item slots from 0, the scan
/// values after the first `NT * VT - b_count` slots (at their global address modulo 16
/// bytes), and a sentinel `I::MAX` in the halo's slot, so that the search can run over
/// exactly `NT * VT` steps, padded with items past the tile's last ([`ObjectTile::padded`]).
/// A tile with more than `NT * VT` steps does not fit ([`ObjectTile::fits`]): its Merge
/// Path goes in chunks to another launch ([`object_tile_chunks`]).
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::ObjectTile;
/// // Tile 2 of 3-object tiles over 10 objects, tiles of 16 steps.
/// let scan = [0u32; 10];
/// let t = ObjectTile::<u32>::new(2, 3, 10, 16, scan.as_ptr());
/// assert_eq!((t.o0, t.o1, t.b_count()), (6, 9, 3));
/// // The scan values after the 13 item slots, at scan[6]'s address modulo 16 bytes.
/// assert!((13..17).contains(&t.b_slot));
/// assert_eq!(t.b_slot as usize * 4 % 16, scan[6..].as_ptr() as usize % 16);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectTile<I> {
    /// The tile's first object.
    pub o0: u64,
    /// One past its last object.
    pub o1: u64,
    /// The shared-memory slot of `scan[o0]`.
    pub b_slot: u32,
    /// The tile's first work item, `scan[o0]` (known after
    /// [`cta_object_tile_copy_async`]).
    pub a0: I,
    /// One past its last work item, `scan[o1]` or the total.
    pub a1: I,
}

impl<I: Idx> ObjectTile<I> {
    /// Tile `block` of tiles of `k` objects (1 to `nv - 1`) over `n` objects, tiles of `nv`
    /// steps, its scan values placed for 16-byte copies from `scan`.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = mgpu_ctasearch::ObjectTile::<u64>::new(3, 3, 10, 16, core::ptr::null());
    /// assert_eq!((t.o0, t.o1), (9, 10)); // the last tile, one object
    /// ```
    #[inline(always)]
    pub fn new(block: u32, k: u64, n: u64, nv: u32, scan: *const I) -> Self {
        let k = k.clamp(1, nv as u64 - 1);
        let o0 = k * block as u64;
        let o1 = if o0 + k < n { o0 + k } else { n };
        let count = o1.saturating_sub(o0) as u32;
        ObjectTile {
            o0,
            o1,
            b_slot: aligned_slot(scan.wrapping_add(o0 as usize), nv - count),
            a0: I::ZERO,
            a1: I::ZERO,
        }
    }
    /// Objects in the tile.
    ///
    /// ```
    /// let t = mgpu_ctasearch::ObjectTile::<u32> { o0: 4, o1: 9, b_slot: 0, a0: 0, a1: 0 };
    /// assert_eq!(t.b_count(), 5);
    /// ```
    #[inline(always)]
    pub fn b_count(&self) -> u32 {
        (self.o1 - self.o0) as u32
    }
    /// Work items in the tile (`a1 - a0`; wrapping on a scan that is not sorted).
    ///
    /// ```
    /// let t = mgpu_ctasearch::ObjectTile::<u32> { o0: 4, o1: 9, b_slot: 0, a0: 7, a1: 19 };
    /// assert_eq!(t.items(), 12);
    /// ```
    #[inline(always)]
    pub fn items(&self) -> u64 {
        self.a1.wrapping_sub(self.a0).to_u64()
    }
    /// Whether the tile's items and objects fit one tile of `nv` steps.
    ///
    /// ```
    /// let t = mgpu_ctasearch::ObjectTile::<u32> { o0: 4, o1: 9, b_slot: 0, a0: 7, a1: 19 };
    /// assert!(t.fits(17) && !t.fits(16));
    /// ```
    #[inline(always)]
    pub fn fits(&self, nv: u32) -> bool {
        self.items() + self.b_count() as u64 <= nv as u64
    }
    /// The tile as a [`LoadBalanceTile`] of its own items and objects (no halo loaded).
    ///
    /// ```
    /// let t = mgpu_ctasearch::ObjectTile::<u32> { o0: 4, o1: 9, b_slot: 11, a0: 7, a1: 19 };
    /// let l = t.tile();
    /// assert_eq!((l.a_count(), l.b_count(), l.b_shared(), l.extended), (12, 5, 11, false));
    /// ```
    #[inline(always)]
    pub fn tile(&self) -> LoadBalanceTile<I> {
        LoadBalanceTile {
            a0: self.a0,
            a1: self.a1,
            b0: I::from_u64(self.o0),
            b1: I::from_u64(self.o1),
            extended: false,
            b_slot: self.b_slot,
        }
    }
    /// The tile to search ([`cta_load_balance_search`] without a preceding object): padded
    /// with items past `a1` to exactly `nv` steps, with the sentinel as its halo (so the
    /// unguarded serial search runs), unless the padding would wrap `I` (then
    /// [`ObjectTile::tile`], searched with range checks). Only the first
    /// [`ObjectTile::items`] slots hold the tile's own items.
    ///
    /// ```
    /// let t = mgpu_ctasearch::ObjectTile::<u32> { o0: 4, o1: 9, b_slot: 11, a0: 7, a1: 19 };
    /// let p = t.padded(16);
    /// assert_eq!((p.a_count(), p.b_count(), p.extended), (11, 5, true));
    /// ```
    #[inline(always)]
    pub fn padded(&self, nv: u32) -> LoadBalanceTile<I> {
        let max = I::from_u64(u64::MAX).to_u64();
        let mut t = self.tile();
        if self.a0.to_u64() <= max - nv as u64 {
            t.a1 = self.a0.wrapping_add(I::from_u32(nv - self.b_count()));
            t.extended = true;
        }
        t
    }
}

/// Starts an object tile: copies its scan values to `shared` (16-byte asynchronous copies
/// where they can), writes the sentinel (thread 0), and loads `a0` and `a1` from global
/// memory (every thread: one request a warp) while the copies fly. The caller waits for
/// the copies and synchronises before reading them.
///
/// # Safety
/// `scan` is readable at `0..n`; `shared` has [`cta_load_balance_shared_len`]`(nv)` slots;
/// every thread of the CTA calls it.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::{cta_object_tile_copy_async, ObjectTile};
/// let scan = [0u32, 2, 7, 10, 10];
/// let mut got = [0u32; 4];
/// let (sp, gp) = (scan.as_ptr() as usize, got.as_mut_ptr() as usize);
/// sim::launch(1, 32, 21 * 4, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     let mut t = ObjectTile::new(1, 2, 5, 16, sp as *const u32); // objects 2 and 3
///     cta_object_tile_copy_async::<_, u32, 32>(cta, &mut t, sp as *const u32, 5, 11, sh);
///     cta.async_copy_wait();
///     cta.sync();
///     if cta.tid() == 0 {
///         let g = gp as *mut u32;
///         (*g, *g.add(1)) = (t.a0, t.a1); // 7 and scan[4]
///         (*g.add(2), *g.add(3)) = (*sh.add(t.b_slot as usize + 1), *sh.add(t.b_slot as usize + 2));
///     }
/// });
/// assert_eq!(got, [7, 10, 10, u32::MAX]);
/// ```
#[inline(always)]
pub unsafe fn cta_object_tile_copy_async<C: Cta, I: Idx, const NT: usize>(
    cta: &C,
    t: &mut ObjectTile<I>,
    scan: *const I,
    n: u64,
    total: u64,
    shared: *mut I,
) {
    let count = t.b_count();
    let src = scan.add(t.o0 as usize);
    global_to_shared_async_vec16::<C, I, NT>(cta, src, count, shared.add(t.b_slot as usize));
    t.a0 = *src;
    t.a1 = if t.o1 < n {
        *scan.add(t.o1 as usize)
    } else {
        I::from_u64(total)
    };
    if cta.tid() == 0 {
        *shared.add((t.b_slot + count) as usize) = I::from_u64(u64::MAX);
    }
}

/// What an object tile finds wrong with its scan values in shared memory (after
/// [`cta_object_tile_copy_async`], its wait and a barrier): `(order, past_total, start)`:
/// a decrease among them or to `a1` (every adjacent pair of the scan is in some tile),
/// a value past the total (`a1` of a tile that is not the last; the last tile's values
/// past the total), `scan[0] != 0`. Order: every thread's share ([`scan_decreases`]);
/// the others: thread 0's. No barrier.
///
/// # Safety
/// As [`scan_decreases`] for the tile's values at `shared + b_slot`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::{cta_object_tile_copy_async, object_tile_errors, ObjectTile};
/// let scan = [0u32, 2, 7, 10, 10];
/// let mut bad = [false; 3];
/// let (sp, bp) = (scan.as_ptr() as usize, bad.as_mut_ptr() as usize);
/// sim::launch(1, 32, 21 * 4, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     let mut t = ObjectTile::new(1, 3, 5, 16, sp as *const u32); // objects 3 and 4, the last
///     cta_object_tile_copy_async::<_, u32, 32>(cta, &mut t, sp as *const u32, 5, 9, sh);
///     cta.async_copy_wait();
///     cta.sync();
///     let (o, p, s) = object_tile_errors::<_, u32, 32, 1>(cta, &t, sh, 5, 9);
///     if cta.tid() == 0 {
///         *(bp as *mut [bool; 3]) = [o, p, s];
///     }
/// });
/// assert_eq!(bad, [false, true, false]); // scan[4] = 10 is past the total 9
/// ```
#[inline(always)]
pub unsafe fn object_tile_errors<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    t: &ObjectTile<I>,
    shared: *const I,
    n: u64,
    total: u64,
) -> (bool, bool, bool) {
    let count = t.b_count();
    let b = shared.add(t.b_slot as usize);
    let mut order = scan_decreases::<C, I, NT, VT>(cta, b, count);
    let (mut past, mut start) = (false, false);
    if cta.tid() == 0 {
        if *b.add(count as usize - 1) > t.a1 {
            if t.o1 == n {
                past = true;
            } else {
                order = true;
            }
        }
        past |= t.a1.to_u64() > total;
        start = t.o0 == 0 && t.a0 != I::ZERO;
    }
    (order, past, start)
}

/// An object tile's Merge Path (its scan values at `b` in shared memory, checked) cut into
/// chunks of `nv` steps: for chunk `c` of this thread's (`tid`, `tid + NT`, ...) calls
/// `f(c, [a_start, a_end, b_start, b_end])`, the chunk's work items and its own objects
/// (global indices; the item at `a_start` may belong to object `b_start - 1`). Returns the
/// number of chunks. The splits are Merge Path searches in shared memory; no barrier.
///
/// # Safety
/// `b` holds the tile's `b_count()` scan values, sorted, all at most `a1`.
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_ctasearch::{object_tile_chunks, ObjectTile};
/// // Objects 0 and 1 with counts 2 and 40: 44 steps, chunks of 16.
/// let scan = [0u32, 2];
/// let t = ObjectTile::<u32> { o0: 0, o1: 2, b_slot: 0, a0: 0, a1: 42 };
/// let mut chunks = vec![[0u64; 4]; 3];
/// let cp = chunks.as_mut_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     object_tile_chunks::<_, u32, 32>(cta, &t, scan.as_ptr(), 16, |c, r| *(cp as *mut [u64; 4]).add(c as usize) = r);
/// });
/// // Object 0 at step 0, its items 0 and 1, object 1 at step 3, its items 2 ..= 41.
/// assert_eq!(chunks, [[0, 14, 0, 2], [14, 30, 2, 2], [30, 42, 2, 2]]);
/// ```
#[inline(always)]
pub unsafe fn object_tile_chunks<C: Cta, I: Idx, const NT: usize>(
    cta: &C,
    t: &ObjectTile<I>,
    b: *const I,
    nv: u64,
    mut f: impl FnMut(u64, [u64; 4]),
) -> u64 {
    let (items, count) = (t.items(), t.b_count() as u64);
    let steps = items + count;
    let chunks = steps.div_ceil(nv);
    // The split of the tile's Merge Path at local diagonal `d` (items before it).
    let split = |d: u64| {
        if d >= steps {
            items
        } else {
            merge_path(Counting(t.a0), items, b, count, d, Upper, Less)
        }
    };
    let a = t.a0.to_u64();
    let mut c = cta.tid() as u64;
    while c < chunks {
        let (d0, d1) = (nv * c, (nv * (c + 1)).min(steps));
        let (m0, m1) = (split(d0), split(d1));
        f(c, [a + m0, a + m1, t.o0 + d0 - m0, t.o0 + d1 - m1]);
        c += NT as u64;
    }
    chunks
}

/// A spilled chunk `[a0, a1, b0, b1]` ([`object_tile_chunks`]: work items `a0 .. a1`, own
/// objects `b0 .. b1`, at most `nv` steps) as a [`LoadBalanceTile`] with the object before
/// it (when there is one) and the halo (when the chunk is a full `nv` steps and not the
/// last of either sequence), its scan values placed for 16-byte copies from `scan`; and
/// whether the preceding object is loaded (the `preceding` of [`cta_load_balance_search`]).
///
/// # Examples
///
/// ```
/// let scan = [0u32, 2, 42, 45, 45];
/// let (t, pre) = mgpu_ctasearch::chunk_tile([14, 30, 2, 2], 16, 46, 5, scan.as_ptr());
/// assert_eq!((t.a0, t.a1, t.b0, t.b1, t.extended, pre), (14, 30, 1, 2, true, true));
/// ```
#[inline(always)]
pub fn chunk_tile<I: Idx>(
    [a0, a1, b0, b1]: [u64; 4],
    nv: u64,
    total: u64,
    n: u64,
    scan: *const I,
) -> (LoadBalanceTile<I>, bool) {
    let steps = (a1 - a0) + (b1 - b0);
    let t = LoadBalanceTile {
        a0: I::from_u64(a0),
        a1: I::from_u64(a1),
        b0: I::from_u64(b0.saturating_sub(1)),
        b1: I::from_u64(b1),
        extended: steps == nv && a1 < total && b1 < n,
        b_slot: (a1 - a0) as u32,
    }
    .aligned_to(scan);
    (t, b0 > 0)
}

/// Words (`u64`) of one spilled chunk in [`cta_spill_object_tile`]'s list: `[a0, a1, b0,
/// b1]` as [`object_tile_chunks`] gives them.
///
/// ```
/// assert_eq!(mgpu_ctasearch::CHUNK_WORDS, 4);
/// ```
pub const CHUNK_WORDS: usize = 4;

/// The object-tile part of a load-balancing kernel's arguments (`#[repr(C)]`, embedded in
/// the search's and the interval kernels' argument blocks): the objects a tile, and the
/// list that tiles which do not fit append their chunks to ([`cta_spill_object_tile`])
/// for the launch after ([`SpillList::chunks`], [`SpillList::chunk`]).
///
/// # Examples
///
/// ```
/// let l = mgpu_ctasearch::SpillList::empty();
/// assert!(l.spilled.is_null() && l.capacity == 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpillList {
    /// Objects a tile (1 to `NT * VT - 1`; 0 when the launch has no object tiles).
    pub tile_objects: u64,
    /// The spilled chunks, [`CHUNK_WORDS`] words each, room for `capacity`.
    pub spilled: *mut u64,
    /// How many chunks `spilled` holds (a zeroed word before the object tiles' launch).
    pub count: *mut u32,
    /// Chunks `spilled` has room for: `ceil((total + objects) / (NT * VT))` plus the tiles
    /// are always enough.
    pub capacity: u64,
}

impl SpillList {
    /// No object tiles: null pointers, zero sizes.
    ///
    /// ```
    /// assert_eq!(mgpu_ctasearch::SpillList::empty().tile_objects, 0);
    /// ```
    pub const fn empty() -> Self {
        SpillList {
            tile_objects: 0,
            spilled: core::ptr::null_mut(),
            count: core::ptr::null_mut(),
            capacity: 0,
        }
    }
    /// The chunks in the list (after the object tiles' launch), at most `capacity`.
    ///
    /// # Safety
    /// `count` is readable and the launch that wrote it has finished
    /// (`griddepcontrol.wait` in a dependent launch).
    ///
    /// ```
    /// let mut c = [7u32];
    /// let mut l = mgpu_ctasearch::SpillList::empty();
    /// (l.count, l.capacity) = (c.as_mut_ptr(), 5);
    /// assert_eq!(unsafe { l.chunks() }, 5);
    /// ```
    #[inline(always)]
    pub unsafe fn chunks(&self) -> u64 {
        (*self.count as u64).min(self.capacity)
    }
    /// Chunk `w`'s `[a0, a1, b0, b1]` ([`object_tile_chunks`]).
    ///
    /// # Safety
    /// `w` is below [`SpillList::chunks`].
    ///
    /// ```
    /// let mut list = [0u64, 0, 0, 0, 5, 9, 1, 2];
    /// let mut l = mgpu_ctasearch::SpillList::empty();
    /// l.spilled = list.as_mut_ptr();
    /// assert_eq!(unsafe { l.chunk(1) }, [5, 9, 1, 2]);
    /// ```
    #[inline(always)]
    pub unsafe fn chunk(&self, w: u64) -> [u64; 4] {
        let r = self.spilled.add(CHUNK_WORDS * w as usize);
        [*r, *r.add(1), *r.add(2), *r.add(3)]
    }
}

/// Appends an object tile that does not fit ([`ObjectTile::fits`]) to `list`: its chunks
/// of `nv` steps ([`object_tile_chunks`], from its scan values in shared memory at
/// `b_slot`) at [`CHUNK_WORDS`] words each from `spilled[first]`, `first` reserved by one
/// `atomic_add` on the list's count (shared slot 0 broadcasts it: a barrier). Returns
/// false, writing nothing, when the list's capacity would overflow (only a scan that is
/// not sorted makes that many chunks: every tile's number at most its steps over `nv`
/// plus one). Every thread of the CTA calls it.
///
/// # Safety
/// `list` as [`SpillList`] documents; `shared` is the tile's shared memory
/// ([`cta_object_tile_copy_async`]), its values checked, and its slot 0 (an item slot)
/// free.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctasearch::{cta_spill_object_tile, ObjectTile, SpillList};
/// // Objects 0 and 1 with counts 2 and 40 (scan values 0, 2 in slots 4 and 5), chunks of 16.
/// let t = ObjectTile::<u32> { o0: 0, o1: 2, b_slot: 4, a0: 0, a1: 42 };
/// let (mut chunks, mut count) = (vec![0u64; 16], [1u32]); // one chunk there already
/// let mut list = SpillList::empty();
/// (list.spilled, list.count, list.capacity) = (chunks.as_mut_ptr(), count.as_mut_ptr(), 4);
/// sim::launch(1, 32, 32, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     if cta.tid() == 0 {
///         (*sh.add(4), *sh.add(5)) = (0, 2);
///     }
///     cta.sync();
///     assert!(cta_spill_object_tile::<_, u32, 32>(cta, &t, sh, 16, &list));
/// });
/// assert_eq!(count, [4]);
/// assert_eq!(&chunks[4..], &[0, 14, 0, 2, 14, 30, 2, 2, 30, 42, 2, 2]);
/// ```
#[inline(always)]
pub unsafe fn cta_spill_object_tile<C: Cta, I: Idx, const NT: usize>(
    cta: &C,
    t: &ObjectTile<I>,
    shared: *mut I,
    nv: u64,
    list: &SpillList,
) -> bool {
    let chunks = (t.items() + t.b_count() as u64).div_ceil(nv);
    let slot = shared as *mut u32;
    if cta.tid() == 0 {
        *slot = cta.atomic_add_u32(list.count, chunks as u32);
    }
    cta.sync();
    let first = *slot as u64;
    if first + chunks > list.capacity {
        return false;
    }
    let b = shared.add(t.b_slot as usize) as *const I;
    object_tile_chunks::<C, I, NT>(cta, t, b, nv, |c, r| {
        let w = list.spilled.add(CHUNK_WORDS * (first + c) as usize);
        (*w, *w.add(1), *w.add(2), *w.add(3)) = (r[0], r[1], r[2], r[3]);
    });
    true
}
