//! The partition kernels' bodies: one search per partition point (the seeds'
//! `KernelMergePartition`, `KernelBinarySearch`, `KernelPartitionCsrSegReduce`, and
//! `KernelMergePartition` over `counting_iterator` for Bulk Insert), run by a
//! group of `2^lanes_log2` lanes of a warp (1 to 32, chosen by the host launcher) with the
//! cooperative searches of `mgpu_ctasearch` ([`merge_path_coop`],
//! [`binary_search_coop_left`]): a few bisection levels per round of independent loads,
//! bit for bit the serial search's result; the integer-keyed kernels (search, CSR,
//! load-balancing, counting) instead interpolate with one lane when `lanes_log2` carries
//! [`INTERPOLATE`] (the serial result on sorted input, a position in its range on
//! garbage). Thread `t` of the grid works on partition
//! `t >> lanes_log2`; a group's lanes exit together past the last partition.
//!
//! Every partition array is `u64`, one entry per tile boundary (`n / nv + 1` entries for
//! `n` merge steps): 8 bytes per tile of `nv` elements is nothing, and one format serves
//! kernels of either index type.

use mgpu_core::{Cta, Less, OrderEstimate};
use mgpu_ctasearch::{
    binary_search_coop, binary_search_coop_left, binary_search_kary, find_mergesort_frame,
    interpolation_search, interpolation_search_left, interpolation_window, merge_path_coop,
    merge_path_interpolation_by, merge_path_interpolation_rounds, merge_path_kary, ArrayOrSequence,
    Bounds, Counting, Idx, Keys, SearchBounds, Upper,
};

/// Bit of the `lanes_log2` argument of the integer-keyed kernels (search, CSR,
/// load-balancing and counting partitions) and the merge partitions: search by
/// interpolation ([`mgpu_ctasearch::merge_path_interpolation`],
/// [`mgpu_ctasearch::interpolation_search`]; for the merge partitions, over any keys,
/// [`mgpu_ctasearch::merge_path_interpolation_by`]) instead of the (cooperative)
/// bisection. The low bits still give the group size (every
/// lane of a group runs the same search; use 0).
pub const INTERPOLATE: u32 = 1 << 8;

/// Shift of the k-ary field of the `lanes_log2` argument of the search, load-balancing,
/// counting and merge partitions: bits 12 and 13 hold `log2(K)` (1 to
/// [`mgpu_ctasearch::KARY_MAX_LOG2`]); nonzero with a group of one lane (low bits 0) and
/// without [`INTERPOLATE`], each search is a k-ary search
/// ([`mgpu_ctasearch::kary_partition_point`]: `K - 1` independent probes a round).
pub const KARY_SHIFT: u32 = 12;

/// `log2(K)` of the k-ary search `lanes_log2` asks for (0: none).
#[inline(always)]
fn kary_log2(lanes_log2: u32) -> u32 {
    if lanes_log2 & (INTERPOLATE | 0xff) == 0 {
        (lanes_log2 >> KARY_SHIFT) & 3
    } else {
        0
    }
}

#[inline(always)]
fn group(lanes_log2: u32) -> u32 {
    lanes_log2 & 0xff
}

/// The CSR continuation flag (seed 002): set in a CSR partition when the tile's first
/// element is not the first of its row (`csr[row] != nv * tile`), so the tile continues a
/// row begun in an earlier one. The seed keeps it in bit 31 of an `int`, which collides
/// with row indices of 2^31 and more; here partitions are `u64` and the flag is bit 63,
/// which no row index of a `u32` CSR can reach, nor one of a `u64` CSR (2^63 rows would
/// need 2^66 bytes of offsets).
///
/// # Examples
///
/// ```
/// use mgpu_partition::{csr_limit_continues, csr_limit_row, CSR_CONTINUATION};
/// let limit = 5 | CSR_CONTINUATION;
/// assert_eq!((csr_limit_row(limit), csr_limit_continues(limit)), (5, true));
/// assert!(!csr_limit_continues(5));
/// ```
pub const CSR_CONTINUATION: u64 = 1 << 63;

/// The row of a CSR partition (the flag cleared).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_partition::csr_limit_row(7 | mgpu_partition::CSR_CONTINUATION), 7);
/// ```
#[inline(always)]
pub fn csr_limit_row(limit: u64) -> u64 {
    limit & !CSR_CONTINUATION
}

/// Whether a CSR partition carries the continuation flag.
///
/// # Examples
///
/// ```
/// assert!(mgpu_partition::csr_limit_continues(1 << 63));
/// ```
#[inline(always)]
pub fn csr_limit_continues(limit: u64) -> bool {
    limit & CSR_CONTINUATION != 0
}

/// Arguments of the Merge Path partition kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MergeArgs<T> {
    /// A keys (sorted).
    pub a: *const T,
    /// B keys (sorted); for a mergesort pass the same array as `a`.
    pub b: *const T,
    /// A length; for a mergesort pass the number of keys.
    pub a_count: u64,
    /// B length; 0 for a mergesort pass.
    pub b_count: u64,
    /// Merge steps per tile.
    pub nv: u64,
    /// 0 for a merge; for a mergesort pass the number of tiles merging two lists.
    pub coop: u64,
    /// Partitions to write (`(a_count + b_count) / nv + 1`, rounded up).
    pub num_partitions: u64,
    /// The partitions.
    pub out: *mut u64,
    /// 1 for upper-bound Merge Path, 0 for lower.
    pub upper: u32,
    /// log2 of the lanes that search each partition together, 0 to 5; or, with a group
    /// of one lane, a k-ary search's `log2(K)` in the [`KARY_SHIFT`] field, or
    /// [`INTERPOLATE`].
    pub lanes_log2: u32,
    /// Null, or a word that, when 0, makes the kernel do nothing: a mergesort's
    /// "unsorted" word (`mgpu_merge`), 0 when the input was sorted and the passes skip.
    pub skip_unless: *const u32,
}

/// Arguments of the binary-search partition kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SearchArgs<I> {
    /// The sorted array searched.
    pub data: *const I,
    /// Its length.
    pub num_items: u64,
    /// The keys are `min(nv * i, count)`.
    pub count: u64,
    /// Key spacing (elements per tile).
    pub nv: u64,
    /// Partitions to write.
    pub num_partitions: u64,
    /// The partitions.
    pub out: *mut u64,
    /// 1 for upper bound, 0 for lower.
    pub upper: u32,
    /// log2 of the lanes that search each partition together, 0 to 5.
    pub lanes_log2: u32,
    /// A word the kernel's first thread zeroes (null: none): the error word of the kernel
    /// that reads these partitions, which is launched after this one and so finds it
    /// cleared without a memset of its own.
    pub clear: *mut u32,
}

/// Arguments of the CSR partition kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CsrArgs<I> {
    /// Row offsets (CSR, starting at 0).
    pub csr: *const I,
    /// Rows (`csr` length).
    pub num_rows: u64,
    /// Elements (non-zeros) in all rows.
    pub nz: u64,
    /// Elements per tile.
    pub nv: u64,
    /// Partitions to write.
    pub num_partitions: u64,
    /// The partitions.
    pub out: *mut u64,
    /// log2 of the lanes that search each partition together, 0 to 5.
    pub lanes_log2: u32,
}

/// Arguments of the load-balancing partition kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LbsArgs<I> {
    /// Exclusive scan of the objects' work-item counts.
    pub scan: *const I,
    /// Objects (`scan` length).
    pub num_objects: u64,
    /// Work items in all.
    pub total: u64,
    /// Merge steps (work items + objects) per tile.
    pub nv: u64,
    /// Partitions to write.
    pub num_partitions: u64,
    /// The partitions.
    pub out: *mut u64,
    /// log2 of the lanes that search each partition together, 0 to 5.
    pub lanes_log2: u32,
    /// A word the kernel's first thread zeroes, as [`SearchArgs::clear`].
    pub clear: *mut u32,
}

/// Arguments of the counting Merge Path partition kernel: an index array, or the
/// arithmetic sequence `first + step * k`, merged with the source positions `0..count`
/// ([`counting_partition`]).
///
/// # Examples
///
/// ```
/// use mgpu_partition::device::CountingArgs;
/// // The sequence 0, 4, 8, ... (10 indices) against 0..40, one warp per partition.
/// let mut out = [0u64; 6];
/// let args = CountingArgs::<u64> { indices: core::ptr::null(), num_indices: 10, first: 0,
///     step: 4, count: 40, nv: 10, num_partitions: 6, out: out.as_mut_ptr(), upper: 0,
///     sequence: 1, lanes_log2: 5, clear: core::ptr::null_mut() };
/// // 6 partitions of 32 lanes: 2 CTAs of 128 threads.
/// mgpu_core::sim::launch_kernel::<mgpu_partition::kernels::CountingPartition<u64>>(2, &args);
/// // Every tile of 10 outputs: 2 indices and 8 positions.
/// assert_eq!(out, [0, 2, 4, 6, 8, 10]);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CountingArgs<I> {
    /// The indices (sorted ascending), unless `sequence` (then unread; null will do).
    pub indices: *const I,
    /// Their number `m`.
    pub num_indices: u64,
    /// First index of the sequence (`sequence != 0`).
    pub first: I,
    /// Step of the sequence (`sequence != 0`): index `k` is `first + step * k`, wrapping.
    pub step: I,
    /// Length of the counting side (the positions `0..count`).
    pub count: u64,
    /// Merge steps per tile.
    pub nv: u64,
    /// Partitions to write (`(num_indices + count) / nv + 1`, rounded up).
    pub num_partitions: u64,
    /// The partitions.
    pub out: *mut u64,
    /// 1 for upper-bound Merge Path, 0 for lower.
    pub upper: u32,
    /// 1: the indices are the sequence `first + step * k`; 0: the array `indices`.
    pub sequence: u32,
    /// log2 of the lanes that search each partition together, 0 to 5.
    pub lanes_log2: u32,
    /// A word the kernel's first thread zeroes, as [`SearchArgs::clear`].
    pub clear: *mut u32,
}

#[inline(always)]
fn min(a: u64, b: u64) -> u64 {
    if b < a {
        b
    } else {
        a
    }
}

/// The partition this thread's group searches: its grid-wide thread index over the
/// group size. Groups are aligned lanes of one warp, as the cooperative searches need
/// (`NT` is a multiple of 32).
#[inline(always)]
fn partition_id<C: Cta, const NT: usize>(cta: &C, lanes_log2: u32) -> u64 {
    const { assert!(NT.is_multiple_of(32)) };
    (cta.block() as u64 * NT as u64 + cta.tid() as u64) >> group(lanes_log2)
}

/// Zeroes `clear` (unless null) from the grid's first thread: the error word of the kernel
/// after, which reads it only once this grid has finished (a dependent launch waits in
/// `Cta::grid_dependency_wait`, a plain one starts after it).
///
/// # Safety
/// `clear` is null or writable.
#[inline(always)]
unsafe fn clear_word<C: Cta>(cta: &C, clear: *mut u32) {
    if !clear.is_null() && cta.block() == 0 && cta.tid() == 0 {
        *clear = 0;
    }
}

/// Partition `p` is `v`: written once, by the group's first lane (every lane has it).
///
/// # Safety
/// `out` has a slot `p`.
#[inline(always)]
unsafe fn store<C: Cta>(cta: &C, lanes_log2: u32, out: *mut u64, p: u64, v: u64) {
    if cta.lane() & ((1 << group(lanes_log2)) - 1) == 0 {
        *out.add(p as usize) = v;
    }
}

#[inline(always)]
fn bounds(upper: u32) -> Bounds {
    if upper != 0 {
        Bounds::Upper
    } else {
        Bounds::Lower
    }
}

/// The Merge Path of A (`a_count` keys) and B (`b_count` keys) at cross-diagonal `diag`
/// in the integer-keyed kernels (load-balancing and counting partitions), with the bounds
/// `bounds()` gives (read only in the branch taken), by the search `lanes_log2` asks for:
/// interpolation ([`INTERPOLATE`], with window rounds of `window` positions, 0 for none),
/// k-ary ([`KARY_SHIFT`]) or the group's cooperative bisection.
///
/// # Safety
/// A is readable at `0..a_count`, B at `0..b_count`; every lane of the group calls it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn integer_merge_path<C: Cta, I: Idx, KA: Keys<I>, KB: Keys<I>, B: SearchBounds>(
    cta: &C,
    lanes_log2: u32,
    a: KA,
    a_count: u64,
    b: KB,
    b_count: u64,
    diag: u64,
    bounds: impl Fn() -> B,
    window: usize,
) -> u64 {
    if lanes_log2 & INTERPOLATE != 0 {
        merge_path_interpolation_rounds(a, a_count, b, b_count, diag, bounds(), window).0
    } else if kary_log2(lanes_log2) != 0 {
        merge_path_kary(
            a,
            a_count,
            b,
            b_count,
            diag,
            kary_log2(lanes_log2),
            bounds(),
            Less,
        )
    } else {
        merge_path_coop(
            cta,
            group(lanes_log2),
            a,
            a_count,
            b,
            b_count,
            diag,
            bounds(),
            Less,
        )
    }
}

/// Merge Path partition `p` (one group of `2^lanes_log2` lanes each): where
/// cross-diagonal `nv * p` meets the merge of A and B (`coop == 0`), or, for a mergesort
/// pass (`coop > 0`), where it meets the merge of the two lists of its
/// [`find_mergesort_frame`], in that merge's A coordinates. The seeds'
/// `KernelMergePartition`.
///
/// # Safety
/// `a` and `b` are readable at their lengths; `out` has `num_partitions` slots;
/// `lanes_log2 <= 5`, and every thread of the grid runs the body (groups are whole).
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Less};
/// use mgpu_partition::device::{merge_partition, MergeArgs};
/// let a = [1u32, 3, 5, 7];
/// let b = [2u32, 4, 6, 8];
/// let mut out = vec![0u64; 3];
/// let args = MergeArgs { a: a.as_ptr(), b: b.as_ptr(), a_count: 4, b_count: 4, nv: 4,
///     coop: 0, num_partitions: 3, out: out.as_mut_ptr(), upper: 0, lanes_log2: 3,
///     skip_unless: core::ptr::null() };
/// // 8 lanes per partition: threads 0..24 search, 24..32 have no partition.
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     merge_partition::<_, u32, Less, 32>(cta, &args)
/// });
/// assert_eq!(out, [0, 2, 4]);
/// ```
#[inline(always)]
pub unsafe fn merge_partition<C: Cta, T: Copy, Cmp: OrderEstimate<T>, const NT: usize>(
    cta: &C,
    args: &MergeArgs<T>,
) {
    // A mergesort pass's partitions are a dependent launch of the kernel that wrote the
    // lists (and the skip word): wait for it (elsewhere, a plain launch, this returns at
    // once).
    cta.grid_dependency_wait();
    cta.launch_dependents(); // the kernel after may start its CTAs now
    if !args.skip_unless.is_null() && *args.skip_unless == 0 {
        return;
    }
    let p = partition_id::<C, NT>(cta, args.lanes_log2);
    if p >= args.num_partitions {
        return;
    }
    let (mut a0, mut b0) = (0u64, 0u64);
    let (mut a_count, mut b_count) = (args.a_count, args.b_count);
    let mut gid = args.nv.wrapping_mul(p);
    if args.coop != 0 {
        let f = find_mergesort_frame(args.coop, p, args.nv);
        let count = args.a_count;
        // Clamped: the last partition's frame may start past the end (the seed's
        // negative counts, which its search then treats as empty).
        a0 = min(count, f.a0);
        b0 = min(count, f.b0);
        b_count = min(count, f.b0.wrapping_add(f.size)) - b0;
        a_count = min(count, f.a0.wrapping_add(f.size)) - a0;
        gid = gid.wrapping_sub(a0);
    }
    let diag = min(gid, a_count + b_count);
    let (a, b) = (args.a.add(a0 as usize), args.b.add(b0 as usize));
    let log2k = kary_log2(args.lanes_log2);
    let mp = if args.lanes_log2 & INTERPOLATE != 0 {
        let cmp = Cmp::default();
        merge_path_interpolation_by(a, a_count, b, b_count, diag, bounds(args.upper), cmp)
    } else if log2k != 0 {
        let cmp = Cmp::default();
        merge_path_kary(a, a_count, b, b_count, diag, log2k, bounds(args.upper), cmp)
    } else {
        let lanes = group(args.lanes_log2);
        let cmp = Cmp::default();
        merge_path_coop(
            cta,
            lanes,
            a,
            a_count,
            b,
            b_count,
            diag,
            bounds(args.upper),
            cmp,
        )
    };
    store(cta, args.lanes_log2, args.out, p, mp);
}

/// Binary-search partition `p`: the lower or upper bound of key `min(nv * p, count)` in
/// `data` (sorted ascending). The seeds' `KernelBinarySearch` (Bulk Remove maps its
/// sorted remove indices to tiles this way).
///
/// # Safety
/// `data` is readable at `0..num_items`; `out` has `num_partitions` slots; `count` fits
/// `I`.
/// `clear` is null or writable. `lanes_log2 <= 5`, and every thread of the grid runs the
/// body (groups are whole).
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_partition::device::{search_partition, SearchArgs};
/// let remove = [3u32, 4, 10, 11, 12, 25];
/// let mut out = vec![0u64; 4];
/// let args = SearchArgs { data: remove.as_ptr(), num_items: 6, count: 30, nv: 10,
///     num_partitions: 4, out: out.as_mut_ptr(), upper: 0, lanes_log2: 2,
///     clear: core::ptr::null_mut() };
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe { search_partition::<_, u32, 32>(cta, &args) });
/// assert_eq!(out, [0, 2, 5, 6]);
/// ```
#[inline(always)]
pub unsafe fn search_partition<C: Cta, I: Idx, const NT: usize>(cta: &C, args: &SearchArgs<I>) {
    cta.launch_dependents(); // the kernel after may start its CTAs now
    clear_word(cta, args.clear);
    let p = partition_id::<C, NT>(cta, args.lanes_log2);
    if p >= args.num_partitions {
        return;
    }
    let key = I::from_u64(min(args.nv.wrapping_mul(p), args.count));
    let r = if args.lanes_log2 & INTERPOLATE != 0 {
        interpolation_search(args.data, args.num_items, key, bounds(args.upper))
    } else if kary_log2(args.lanes_log2) != 0 {
        binary_search_kary(
            args.data,
            args.num_items,
            key,
            kary_log2(args.lanes_log2),
            bounds(args.upper),
            Less,
        )
    } else {
        binary_search_coop(
            cta,
            group(args.lanes_log2),
            args.data,
            args.num_items,
            key,
            bounds(args.upper),
            Less,
        )
    };
    store(cta, args.lanes_log2, args.out, p, r);
}

/// CSR partition `p` (seed 002's `KernelPartitionCsrSegReduce`): for the tile starting at
/// element `key = min(nv * p, nz)`, the row holding that element, `upper_bound(csr, key) -
/// 1`, with [`CSR_CONTINUATION`] set when the row does not start exactly at `key`; the
/// partition at `key == nz` is `num_rows`. A CSR whose first offset is above `key`
/// (invalid: CSR starts at 0) gives row 0 with the flag, never an out-of-range row; the
/// algorithm kernels that read the CSR validate it.
///
/// # Safety
/// `csr` is readable at `0..num_rows`; `out` has `num_partitions` slots; `nz` fits `I`.
/// `lanes_log2 <= 5`, and every thread of the grid runs the body (groups are whole).
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_partition::device::{csr_partition, CsrArgs};
/// use mgpu_partition::CSR_CONTINUATION as F;
/// let csr = [0u32, 957, 1008, 2000, 2312];
/// let mut out = vec![0u64; 4];
/// let args = CsrArgs { csr: csr.as_ptr(), num_rows: 5, nz: 3000, nv: 1000,
///     num_partitions: 4, out: out.as_mut_ptr(), lanes_log2: 0 };
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe { csr_partition::<_, u32, 32>(cta, &args) });
/// assert_eq!(out, [0, 1 | F, 3, 5]);
/// ```
#[inline(always)]
pub unsafe fn csr_partition<C: Cta, I: Idx, const NT: usize>(cta: &C, args: &CsrArgs<I>) {
    cta.launch_dependents(); // the kernel after may start its CTAs now
    let p = partition_id::<C, NT>(cta, args.lanes_log2);
    if p >= args.num_partitions {
        return;
    }
    let key = min(args.nv.wrapping_mul(p), args.nz);
    let limit = if key == args.nz {
        args.num_rows
    } else {
        let k = I::from_u64(key);
        // The upper bound, and `csr[ub - 1]` as the search loaded it (`None` for ub == 0):
        // no dependent load after the search.
        let (ub, left) = if args.lanes_log2 & INTERPOLATE != 0 {
            interpolation_search_left(args.csr, args.num_rows, k, Upper)
        } else {
            binary_search_coop_left(
                cta,
                group(args.lanes_log2),
                args.csr,
                args.num_rows,
                k,
                Upper,
                Less,
            )
        };
        let row = if ub == 0 { 0 } else { ub - 1 };
        let starts_here = left == Some(k);
        if starts_here {
            row
        } else {
            row | CSR_CONTINUATION
        }
    };
    store(cta, args.lanes_log2, args.out, p, limit);
}

/// Load-balancing partition `p`: the upper-bound Merge Path of the work items (the
/// natural numbers below `total`) against the exclusive scan of the objects' counts, at
/// cross-diagonal `min(nv * p, total + num_objects)`: the work item the tile starts at
/// (what [`mgpu_ctasearch::cta_load_balance`] reads as `mp`).
///
/// # Safety
/// `scan` is readable at `0..num_objects`; `out` has `num_partitions` slots; `total` fits
/// `I`.
/// `clear` is null or writable. `lanes_log2 <= 5`, and every thread of the grid runs the
/// body (groups are whole).
///
/// # Examples
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_partition::device::{lbs_partition, LbsArgs};
/// // Seed 001's counts 2, 5, 3, 0, 1: 11 items + 5 objects in tiles of 4 steps.
/// let scan = [0u32, 2, 7, 10, 10];
/// let mut out = vec![0u64; 5];
/// let args = LbsArgs { scan: scan.as_ptr(), num_objects: 5, total: 11, nv: 4,
///     num_partitions: 5, out: out.as_mut_ptr(), lanes_log2: 5, clear: core::ptr::null_mut() };
/// // A warp per partition: 5 CTAs of 32 threads.
/// sim::launch(5, 32, 0, &|cta: &sim::SimCta| unsafe { lbs_partition::<_, u32, 32>(cta, &args) });
/// // Steps: B A A B | A A A A | A B A A | A B B A
/// assert_eq!(out, [0, 2, 6, 9, 11]);
/// ```
#[inline(always)]
pub unsafe fn lbs_partition<C: Cta, I: Idx, const NT: usize>(cta: &C, args: &LbsArgs<I>) {
    cta.launch_dependents(); // the kernel after may start its CTAs now
    clear_word(cta, args.clear);
    let p = partition_id::<C, NT>(cta, args.lanes_log2);
    if p >= args.num_partitions {
        return;
    }
    let diag = min(args.nv.wrapping_mul(p), args.total + args.num_objects);
    let mp = integer_merge_path(
        cta,
        args.lanes_log2,
        Counting(I::ZERO),
        args.total,
        args.scan,
        args.num_objects,
        diag,
        || Upper,
        // Windows: few searches (one a tile of a few thousand steps), so their latency
        // is the cost (docs/partition.md).
        interpolation_window::<I>(),
    );
    store(cta, args.lanes_log2, args.out, p, mp);
}

/// Counting Merge Path partition `p`: the lower- (or upper-) bound Merge Path of the
/// indices (A: an array, or the sequence `first + step * k`) against the positions
/// `0, 1, ..., count - 1` (B, the seeds' `counting_iterator<int>(0)`), at cross-diagonal
/// `min(nv * p, num_indices + count)`: how many of the tile's first outputs are indices.
/// With lower bounds an index `x` goes before position `x` (Bulk Insert: the value
/// inserted at `x` precedes source element `x`); with upper bounds after it. On unsorted
/// indices the result is the serial search's, inside `0..=num_indices`.
///
/// # Safety
/// `indices` is readable at `0..num_indices` unless `sequence != 0`; `out` has
/// `num_partitions` slots; `count` fits `I`.
/// `clear` is null or writable. `lanes_log2 <= 5`, and every thread of the grid runs the
/// body (groups are whole).
///
/// # Examples
///
/// The seed's Bulk Insert example: indices 1, 1, 2, 3, 3 into 3 source elements, tiles of
/// 3 outputs.
///
/// ```
/// use mgpu_core::sim;
/// use mgpu_partition::device::{counting_partition, CountingArgs};
/// let idx = [1u32, 1, 2, 3, 3];
/// let mut out = vec![0u64; 4];
/// // The next kernel's error word, cleared by this one.
/// let mut word = 7u32;
/// let mut args = CountingArgs { indices: idx.as_ptr(), num_indices: 5, first: 0, step: 0,
///     count: 3, nv: 3, num_partitions: 4, out: out.as_mut_ptr(), upper: 0, sequence: 0,
///     lanes_log2: 3, clear: &mut word };
/// // B0 A0 A1 | B1 A2 B2 | A3 A4
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe { counting_partition::<_, u32, 32>(cta, &args) });
/// assert_eq!((out.as_slice(), word), (&[0, 2, 3, 5][..], 0));
/// args.clear = core::ptr::null_mut();
/// // Generated indices 1, 2, 3 (first 1, step 1): B0 A0 B1 | A1 B2 A2.
/// (args.num_indices, args.first, args.step, args.sequence) = (3, 1, 1, 1);
/// (args.num_partitions, args.indices) = (3, core::ptr::null());
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe { counting_partition::<_, u32, 32>(cta, &args) });
/// assert_eq!(&out[..3], [0, 1, 3]);
/// ```
#[inline(always)]
pub unsafe fn counting_partition<C: Cta, I: Idx, const NT: usize>(cta: &C, args: &CountingArgs<I>) {
    cta.launch_dependents(); // the kernel after may start its CTAs now
    clear_word(cta, args.clear);
    let p = partition_id::<C, NT>(cta, args.lanes_log2);
    if p >= args.num_partitions {
        return;
    }
    let diag = min(args.nv.saturating_mul(p), args.num_indices + args.count);
    let keys = ArrayOrSequence {
        ptr: args.indices,
        first: args.first,
        step: args.step,
        sequence: args.sequence != 0,
    };
    let mp = integer_merge_path(
        cta,
        args.lanes_log2,
        keys,
        args.num_indices,
        Counting(I::ZERO),
        args.count,
        diag,
        || bounds(args.upper),
        // No windows: a window's loads touch a line per search, and the counting
        // partitions are many (docs/partition.md).
        0,
    );
    store(cta, args.lanes_log2, args.out, p, mp);
}
