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

use mgpu_core::{Cta, WARP_SIZE};
use mgpu_ctasearch::{
    cta_load_balance, cta_load_balance_partitions, cta_load_balance_shared_len, for_each_strided,
    Idx,
};

/// Error bit: the scan decreases somewhere (or the partitions computed from it are
/// inconsistent, which only a decreasing scan causes).
pub const ERROR_UNSORTED: u32 = 1;
/// Error bit: `scan[0] != 0` (an exclusive scan starts at 0).
pub const ERROR_FIRST: u32 = 2;
/// Error bit: `scan[n - 1] > total` (the scan disagrees with the total).
pub const ERROR_TOTAL: u32 = 4;

/// Arguments of the load-balancing search kernel.
///
/// # Examples
///
/// ```
/// let a = mgpu_loadbalance::device::LoadBalanceArgs::<u32> {
///     scan: core::ptr::null(), num_objects: 0, total: 0, mp: core::ptr::null(),
///     objects: core::ptr::null_mut(), ranks: core::ptr::null_mut(), error: core::ptr::null_mut(),
///     search: 0,
/// };
/// assert_eq!(a.total, 0);
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
    /// by the tiles themselves when `search` is set).
    pub mp: *const u64,
    /// Per work item: the object that generated it (`upper_bound(scan, item) - 1`).
    pub objects: *mut I,
    /// Per work item: its rank in its object (`item - scan[object]`); null for none.
    pub ranks: *mut I,
    /// The error word: the kernel ORs `ERROR_*` bits into it (zeroed by the host).
    pub error: *mut u32,
    /// Nonzero: each tile finds its own two partitions and writes them to `mp`
    /// (`mgpu_ctasearch::cta_load_balance_partitions`), so no partition kernel runs
    /// before (for grids of about one wave).
    pub search: u32,
}

/// Bytes of shared memory the kernel needs for `nv = NT * VT` steps of `index_bytes`-byte
/// indices: the CTA load-balancing search's slots, then one `u32` per warp for the checks.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_loadbalance::device::shared_bytes(4, 128, 7), (898 * 4 + 15) / 16 * 16 + 16);
/// ```
pub const fn shared_bytes(index_bytes: usize, nt: usize, vt: usize) -> usize {
    flags_offset(index_bytes, nt * vt) + 4 * (nt / WARP_SIZE as usize)
}

const fn flags_offset(index_bytes: usize, nv: usize) -> usize {
    (cta_load_balance_shared_len(nv) * index_bytes).div_ceil(16) * 16
}

/// What the tile's thread `tid` finds wrong (`ERROR_*` bits) in the tile's ranges
/// (`a0..a1`, `b0..b1` from the partitions) and the scan values the search will read.
///
/// # Safety
/// `scan` is readable at `0..n`.
#[inline(always)]
unsafe fn check_tile<I: Idx, const NT: usize>(
    tid: u32,
    scan: *const I,
    n: u64,
    total: u64,
    (a0, a1, b0, b1): (u64, u64, u64, u64),
) -> u32 {
    let at = |j: u64| (*scan.add(j as usize)).to_u64();
    let mut bad = 0;
    // The scan values the search loads: the preceding one, the tile's, the halo.
    let lo = b0 - (b0 > 0) as u64;
    let hi = b1 + (a1 < total && b1 < n) as u64;
    // Each pair (j, j + 1) for j in lo..hi - 1, a group of rows of pairs in flight before
    // the first compare (for_each_strided: one round trip a group, not a row; the lanes
    // past the end compare the last pair again). Offsets from `lo` fit 32 bits: a checked
    // tile loads at most NT * VT + 2 values.
    if lo + 1 < hi {
        let base = scan.wrapping_add(lo as usize);
        for_each_strided(
            tid,
            NT as u32,
            0,
            (hi - 1 - lo) as u32,
            core::mem::size_of::<I>(),
            (I::ZERO, I::ZERO),
            |k| (*base.add(k as usize), *base.add(k as usize + 1)),
            |_, (v, next)| {
                if next < v {
                    bad |= ERROR_UNSORTED;
                }
            },
        );
    }
    if tid == 0 {
        // Start and end splits: (a, b) splits the merge when the last item before it
        // precedes the next scan value and the last scan value before it is at most the
        // next item.
        let split_ok = |a: u64, b: u64| {
            (a == 0 || b >= n || a - 1 < at(b)) && (b == 0 || a >= total || at(b - 1) <= a)
        };
        if !split_ok(a0, b0) || !split_ok(a1, b1) {
            bad |= ERROR_UNSORTED;
        }
        if b0 == 0 && n > 0 && at(0) != 0 {
            bad |= ERROR_FIRST;
        }
        if b1 == n && n > 0 && at(n - 1) > total {
            bad |= ERROR_TOTAL;
        }
    }
    bad
}

/// The checks of a load-balancing tile (see the module docs), shared by every kernel that
/// runs a load-balancing search over an exclusive scan of `n` objects' counts summing to
/// `total` with upper-bound Merge Path partitions `mp` (the segmented reduction too):
/// tile `cta.block()` computes its ranges from `mp`, checks them and the scan values its
/// search will read, and votes. Returns whether the whole tile may go on; when any thread
/// found a fault, every thread returns `false` and the faults' `ERROR_*` bits are ORed
/// into `error`. Every thread of the CTA must call it (one barrier).
///
/// # Safety
/// `scan` is readable at `0..n`, `mp` at `block` and `block + 1`; `flags` is this CTA's
/// shared memory for `NT / 32` words, not in use by others during the call; `error` is one
/// writable word.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadbalance::device::check_scan_tile;
/// let (scan, mp, mut err) = ([0u32, 2, 7, 5], [0u64, 11], [0u32]);
/// let e = err.as_mut_ptr() as usize;
/// sim::launch(1, 32, 4, &|cta: &sim::SimCta| unsafe {
///     let ok = check_scan_tile::<_, u32, 32, 1>(cta, scan.as_ptr(), 4, 11, mp.as_ptr(), cta.shared(0), e as *mut u32);
///     assert!(!ok); // 7 then 5: the scan decreases
/// });
/// assert_eq!(err, [mgpu_loadbalance::device::ERROR_UNSORTED]);
/// ```
#[inline(always)]
pub unsafe fn check_scan_tile<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    scan: *const I,
    n: u64,
    total: u64,
    mp: *const u64,
    flags: *mut u32,
    error: *mut u32,
) -> bool {
    let nv = (NT * VT) as u64;
    let block = cta.block();
    let tid = cta.tid();

    // The tile's ranges, as cta_load_balance will compute them, checked for order.
    let gid = nv * block as u64;
    let end = if total + n < gid + nv {
        total + n
    } else {
        gid + nv
    };
    let mp0 = *mp.add(block as usize);
    let mp1 = *mp.add(block as usize + 1);
    let bad = if !(mp0 <= mp1 && mp1 <= total && mp0 <= gid && mp1 <= end)
        || gid - mp0 > end - mp1
        || end - mp1 > n
    {
        ERROR_UNSORTED
    } else {
        check_tile::<I, NT>(tid, scan, n, total, (mp0, mp1, gid - mp0, end - mp1))
    };

    // Any thread's complaint stops the whole tile (one barrier: a vote per warp).
    let vote = cta.ballot(u32::MAX, bad != 0);
    if cta.lane() == 0 {
        *flags.add(cta.warp() as usize) = vote;
    }
    cta.sync();
    let mut stop = false;
    for w in 0..NT / WARP_SIZE as usize {
        stop |= *flags.add(w) != 0;
    }
    if stop {
        cta.raise_error(error, bad);
    }
    !stop
}

/// The kernel body: tile `cta.block()` checks its inputs (see the module docs), runs
/// [`cta_load_balance`] with the preceding object's scan value loaded, and stores each of
/// its work items' object (and rank) with coalesced strided stores.
///
/// # Safety
/// `scan` is readable at `0..num_objects`, `mp` at `0..=grid` (writable with `search`),
/// `objects` (and `ranks` when not null) writable at `0..total`, `error` is one writable
/// word; shared memory is
/// [`shared_bytes`]. The grid is `mp`'s length minus one. `NT` is a multiple of 32.
///
/// # Examples
///
/// Seed 001's counts 2, 5, 3, 0, 1 in one tile (partitions 0 and 11):
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_loadbalance::device::{load_balance, shared_bytes, LoadBalanceArgs};
/// let (scan, mp) = ([0u32, 2, 7, 10, 10], [0u64, 11]);
/// let (mut obj, mut rank, mut err) = ([0u32; 11], [0u32; 11], [0u32]);
/// let args = LoadBalanceArgs {
///     scan: scan.as_ptr(), num_objects: 5, total: 11, mp: mp.as_ptr(),
///     objects: obj.as_mut_ptr(), ranks: rank.as_mut_ptr(), error: err.as_mut_ptr(), search: 0,
/// };
/// sim::launch(1, 32, shared_bytes(4, 32, 1), &|cta: &sim::SimCta| unsafe {
///     load_balance::<_, u32, 32, 1>(cta, &args)
/// });
/// assert_eq!(obj, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank, [0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// assert_eq!(err, [0]);
/// ```
#[inline(always)]
pub unsafe fn load_balance<C: Cta, I: Idx, const NT: usize, const VT: usize>(
    cta: &C,
    args: &LoadBalanceArgs<I>,
) {
    cta.grid_dependency_wait(); // the partitions come from the kernel just before
    let flags = cta.shared::<u32>(flags_offset(core::mem::size_of::<I>(), NT * VT));
    let (n, total) = (args.num_objects, args.total);
    if args.search != 0 {
        let nv = (NT * VT) as u64;
        let mp = args.mp as *mut u64;
        cta_load_balance_partitions::<C, I, NT>(cta, cta.block(), nv, total, args.scan, n, mp);
    }
    if !check_scan_tile::<C, I, NT, VT>(cta, args.scan, n, total, args.mp, flags, args.error) {
        return;
    }
    let (block, tid) = (cta.block(), cta.tid());

    let sh = cta.shared::<I>(0);
    let t = cta_load_balance::<C, I, NT, VT>(
        cta,
        block,
        I::from_u64(total),
        args.scan,
        I::from_u64(n),
        args.mp,
        sh,
        true,
        false, // check_tile above checked the tile's scan for order
    );
    // The tile's items in strided order (a checked tile has at most NT * VT), offsets
    // relative to its first item; stores clamped to `total`.
    let a0 = t.a0.to_u64();
    let stored = if total > a0 {
        (total - a0).min(t.a_count() as u64) as u32
    } else {
        0
    };
    let objects = args.objects.wrapping_add(a0 as usize);
    if args.ranks.is_null() {
        for k in 0..VT {
            let i = tid + (NT * k) as u32;
            if i < stored {
                *objects.add(i as usize) = *sh.add(i as usize);
            }
        }
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
