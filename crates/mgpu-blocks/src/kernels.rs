//! The `blocks` kernel family: small kernels that instantiate the device building blocks
//! (`mgpu-sortnetwork`'s sorting networks, `mgpu-loadstore`'s gather/scatter, interval copies,
//! guarded strided shared-memory copies and merge-value transfer, `mgpu-ctascan`'s
//! segmented reduction core and segmented tile scan, `mgpu-ctasearch`'s
//! Merge Path, serial merges and CTA load-balancing search) in PTX, so that
//! `cargo xtask ptx --check` sees each block compiled for sm_70 and sm_90 (registers,
//! no local memory) and the GPU tests run them. They are test and demonstration kernels,
//! not an algorithm API: each works tile by tile (`NT * VT` elements per CTA) with no
//! communication between tiles.
//!
//! The instance list [`for_each_blocks_instance!`](crate::for_each_blocks_instance) names
//! each entry point and its kernel type; `kernels-ptx/entries` makes the entry points from
//! it and the host wrappers (`host`, re-exported at the crate root) launch the same types.

use core::marker::PhantomData;
use mgpu_core::{AssociativeOp, Comparator, Cta, Element, Kernel};
use mgpu_ctascan::{
    cta_seg_scan_tile, seg_reduce_shared_bytes, seg_reduce_to_global, seg_scan_shared_bytes,
    ScanKind,
};
use mgpu_ctasearch as cs;
use mgpu_loadstore as ls;

/// The PTX module (family) of these kernels.
pub const MODULE: &str = "blocks";

/// Threads per CTA of every `blocks` kernel (both architectures: these kernels are not
/// tuned).
pub const NT: usize = 128;
/// Values per thread of every `blocks` kernel (odd: conflict-free thread-order transposes;
/// not a power of two: exercises the truncated Batcher network).
pub const VT: usize = 7;

/// The entry name of a kernel instantiation (implemented by the instance list).
pub trait EntryName {
    /// `blocks_<kernel>_<types>`.
    const NAME: &'static str;
}

/// The first element of tile `block` and the number of its elements (at most `nv`).
#[inline(always)]
fn tile<C: Cta>(cta: &C, nv: usize, count: u64) -> (usize, usize) {
    let start = cta.block() as usize * nv;
    (start, (count as usize - start).min(nv))
}

/// Arguments of [`SortPairs`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SortPairsArgs<K, V> {
    /// Keys, sorted in place.
    pub keys: *mut K,
    /// Values, moved with their keys.
    pub values: *mut V,
    /// One word per thread of each tile (`grid * NT` words): bit `j` of word
    /// `block * NT + tid` set means element `tid * VT + j` of the tile starts a segment.
    pub head_flags: *const u32,
    /// Number of elements.
    pub count: u64,
}

/// Sorts each thread's `VT` consecutive elements (keys with values) with the odd-even
/// transposition sort, segment head flags blocking swaps: blocksort's first step
/// (seed 004). Elements past `count` in the last tile are their own segments.
pub struct SortPairs<K, V, Comp, const NT: usize, const VT: usize>(PhantomData<(K, V, Comp)>);

impl<K: Element, V: Element, Comp: Comparator<K>, const NT: usize, const VT: usize> Kernel
    for SortPairs<K, V, Comp, NT, VT>
where
    Self: EntryName,
{
    type Args = SortPairsArgs<K, V>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = (NT * VT * max(size_of::<K>(), size_of::<V>())) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let (start, n) = tile(cta, NT * VT, a.count);
        unsafe {
            let keys = a.keys.add(start);
            let values = a.values.add(start);
            let ks = cta.shared::<K>(0);
            let vs = cta.shared::<V>(0);
            let mut k =
                ls::global_to_thread_order_guarded::<C, K, NT, VT>(cta, keys, n, K::ZERO, ks);
            cta.sync();
            let mut v =
                ls::global_to_thread_order_guarded::<C, V, NT, VT>(cta, values, n, V::ZERO, vs);
            let tid = cta.tid() as usize;
            // Padding slots start segments of their own: nothing swaps into them.
            let mut flags = *a.head_flags.add(cta.block() as usize * NT + tid);
            for j in 0..VT {
                if tid * VT + j >= n {
                    flags |= 1 << j;
                }
            }
            mgpu_sortnetwork::odd_even_transpose_sort_flags::<K, V, Comp, VT>(
                &mut k, &mut v, flags,
            );
            cta.sync();
            ls::thread_order_to_global_guarded::<C, K, NT, VT>(cta, &k, keys, n, ks);
            cta.sync();
            ls::thread_order_to_global_guarded::<C, V, NT, VT>(cta, &v, values, n, vs);
        }
    }
}

/// Arguments of [`BatcherKeys`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BatcherKeysArgs<K> {
    /// Keys, sorted in place.
    pub keys: *mut K,
    /// Number of keys.
    pub count: u64,
    /// The key that fills the slots past `count`: one that sorts after every key.
    pub fill: K,
}

/// Sorts each thread's `VT` consecutive keys with Batcher's odd-even merge sort network.
pub struct BatcherKeys<K, Comp, const NT: usize, const VT: usize>(PhantomData<(K, Comp)>);

impl<K: Element, Comp: Comparator<K>, const NT: usize, const VT: usize> Kernel
    for BatcherKeys<K, Comp, NT, VT>
where
    Self: EntryName,
{
    type Args = BatcherKeysArgs<K>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = (NT * VT * size_of::<K>()) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let (start, n) = tile(cta, NT * VT, a.count);
        unsafe {
            let keys = a.keys.add(start);
            let ks = cta.shared::<K>(0);
            let mut k =
                ls::global_to_thread_order_guarded::<C, K, NT, VT>(cta, keys, n, a.fill, ks);
            mgpu_sortnetwork::odd_even_merge_sort_keys::<K, Comp, VT>(&mut k);
            cta.sync();
            ls::thread_order_to_global_guarded::<C, K, NT, VT>(cta, &k, keys, n, ks);
        }
    }
}

/// Arguments of [`SegReduce`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SegReduceArgs<T> {
    /// The values.
    pub values: *const T,
    /// Each value's segment, non-decreasing, starting at 0, in steps of 0 or 1 (no empty
    /// segments).
    pub rows: *const u32,
    /// Number of values.
    pub count: u64,
    /// Per segment: its reduction within the tile where it ends (one per segment).
    pub dest: *mut T,
    /// Per tile: its carry-out.
    pub carries: *mut T,
}

/// The segmented reduction core on each tile: the reductions of the segments that end in
/// the tile (without the part in earlier tiles) to `dest[row]`, and the tile's carry-out
/// to `carries[block]`. The host adds the carries (seed 002's apply step).
pub struct SegReduce<T, Op, const NT: usize, const VT: usize, const HALF: bool>(
    PhantomData<(T, Op)>,
);

impl<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize, const HALF: bool> Kernel
    for SegReduce<T, Op, NT, VT, HALF>
where
    Self: EntryName,
{
    type Args = SegReduceArgs<T>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = max(
        max(
            NT * VT * 4,
            NT * VT * size_of::<T>() / if HALF { 2 } else { 1 },
        ),
        seg_reduce_shared_bytes(NT, VT, size_of::<T>(), HALF),
    ) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let (start, n) = tile(cta, NT * VT, a.count);
        let tid = cta.tid() as usize;
        unsafe {
            let rows_g = a.rows.add(start);
            let row0 = *rows_g;
            let last = *rows_g.add(n - 1);
            // The row after the tile; past the end, a row that ends the last segment.
            let after = if start + n < a.count as usize {
                *rows_g.add(n)
            } else {
                last + 1
            };
            let rs = cta.shared::<u32>(0);
            let mut rows =
                ls::global_to_thread_order_guarded::<C, u32, NT, VT>(cta, rows_g, n, after, rs);
            let next = if tid + 1 < NT {
                *rs.add(tid * VT + VT)
            } else {
                after
            };
            for r in rows.iter_mut() {
                *r -= row0;
            }
            cta.sync();
            // The values: half-capacity types go through shared memory in two halves.
            let data: [T; VT] = if HALF {
                let vs = cta.shared::<T>(0);
                let x = ls::global_to_regs_strided_guarded::<C, T, NT, VT>(
                    cta,
                    a.values.add(start),
                    n,
                    Op::identity(),
                );
                let half = NT * VT / 2;
                let mut out = [Op::identity(); VT];
                for pass in 0..2 {
                    for (i, v) in x.iter().enumerate() {
                        let p = tid + i * NT;
                        if p / half == pass {
                            *vs.add(p - pass * half) = *v;
                        }
                    }
                    cta.sync();
                    for (i, o) in out.iter_mut().enumerate() {
                        let p = tid * VT + i;
                        if p / half == pass {
                            *o = *vs.add(p - pass * half);
                        }
                    }
                    cta.sync();
                }
                out
            } else {
                let d = ls::global_to_thread_order_guarded::<C, T, NT, VT>(
                    cta,
                    a.values.add(start),
                    n,
                    Op::identity(),
                    cta.shared::<T>(0),
                );
                cta.sync();
                d
            };
            seg_reduce_to_global::<C, T, Op, NT, VT, HALF>(
                cta,
                &rows,
                next - row0,
                after - row0,
                &data,
                a.dest.add(row0 as usize),
                a.carries.add(cta.block() as usize),
                cta.shared_base(),
            );
        }
    }
}

/// Arguments of [`Permute`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PermuteArgs<T> {
    /// Source values.
    pub src: *const T,
    /// Their number.
    pub src_len: u64,
    /// Per output position `p < count`: the source index.
    pub gather: *const u32,
    /// Per output position `p < count`: the destination index.
    pub scatter: *const u32,
    /// Number of moves.
    pub count: u64,
    /// Destination.
    pub dst: *mut T,
    /// Its length.
    pub dst_len: u64,
    /// Set to 1 when an index is out of range (checked mode).
    pub error: *mut u32,
    /// 0: indices checked against the lengths; otherwise trusted.
    pub unchecked: u32,
}

/// `dst[scatter[p]] = src[gather[p]]` for `p < count`, through gather and scatter in
/// strided order (IntervalMove's data movement, seed 000). In checked mode an index out of
/// range moves nothing and sets the error word.
pub struct Permute<T, const NT: usize, const VT: usize>(PhantomData<T>);

impl<T: Element, const NT: usize, const VT: usize> Kernel for Permute<T, NT, VT>
where
    Self: EntryName,
{
    type Args = PermuteArgs<T>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = 0;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let (start, n) = tile(cta, NT * VT, a.count);
        unsafe {
            let g = ls::global_to_regs_strided_guarded::<C, u32, NT, VT>(
                cta,
                a.gather.add(start),
                n,
                0,
            );
            let s = ls::global_to_regs_strided_guarded::<C, u32, NT, VT>(
                cta,
                a.scatter.add(start),
                n,
                0,
            );
            if a.unchecked != 0 {
                if n == NT * VT {
                    let x = ls::gather::<C, T, u32, NT, VT>(cta, a.src, &g);
                    ls::scatter::<C, T, u32, NT, VT>(cta, &x, &s, a.dst);
                } else {
                    let x = ls::gather_guarded::<C, T, u32, NT, VT>(cta, a.src, &g, n, T::ZERO);
                    ls::scatter_guarded::<C, T, u32, NT, VT>(cta, &x, &s, n, a.dst);
                }
            } else {
                let (x, b1) = ls::gather_checked::<C, T, u32, NT, VT>(
                    cta,
                    a.src,
                    a.src_len as usize,
                    &g,
                    n,
                    T::ZERO,
                );
                let mut s2 = s;
                // A move whose source is bad writes nothing.
                for (i, d) in s2.iter_mut().enumerate() {
                    if g[i] as u64 >= a.src_len {
                        *d = u32::MAX;
                    }
                }
                let b2 = ls::scatter_checked::<C, T, u32, NT, VT>(
                    cta,
                    &x,
                    &s2,
                    n,
                    a.dst,
                    a.dst_len as usize,
                );
                if b1 || b2 {
                    cta.atomic_or_u32(a.error, 1);
                }
            }
        }
    }
}

/// Arguments of [`MergeValues`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MergeValuesArgs<T> {
    /// The A values.
    pub a: *const T,
    /// The B values.
    pub b: *const T,
    /// Number of A values: gather indices below it name A, the others B.
    pub a_count: u32,
    /// Number of B values.
    pub b_count: u32,
    /// `a_count + b_count` merge-style gather indices.
    pub indices: *const u32,
    /// `a_count + b_count` outputs.
    pub dst: *mut T,
}

/// `dst[p] = (A ++ B)[indices[p]]`: each tile copies its indices into shared memory with
/// the interval loop copy, then runs the merge-value transfer (seed 003).
pub struct MergeValues<T, const NT: usize, const VT: usize>(PhantomData<T>);

impl<T: Element, const NT: usize, const VT: usize> Kernel for MergeValues<T, NT, VT>
where
    Self: EntryName,
{
    type Args = MergeValuesArgs<T>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = (NT * VT * 4) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let total = a.a_count as u64 + a.b_count as u64;
        let (start, n) = tile(cta, NT * VT, total);
        unsafe {
            let sh = cta.shared::<u32>(0);
            ls::mem_to_mem_loop::<C, u32, NT, VT>(cta, a.indices.add(start), n, sh);
            cta.sync();
            ls::transfer_merge_values_shared::<C, T, NT, VT>(
                cta,
                n,
                a.a,
                a.b,
                a.a_count,
                sh,
                a.dst.add(start),
            );
        }
    }
}

/// Arguments of [`MergeKeys`].
///
/// # Examples
///
/// See [`MergeKeys`]; the host wrapper [`merge_keys`](crate::merge_keys) fills them in.
///
/// ```
/// let args = mgpu_blocks::kernels::MergeKeysArgs::<i32> {
///     a: core::ptr::null(), a_count: 0, b: core::ptr::null(), b_count: 0,
///     mp: core::ptr::null(), keys: core::ptr::null_mut(), indices: core::ptr::null_mut(),
/// };
/// assert_eq!(args.a_count + args.b_count, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MergeKeysArgs<K> {
    /// The A keys, sorted.
    pub a: *const K,
    /// Number of A keys.
    pub a_count: u64,
    /// The B keys, sorted.
    pub b: *const K,
    /// Number of B keys (`a_count + b_count <= u32::MAX`: the source indices are `u32`).
    pub b_count: u64,
    /// Lower-bound Merge Path partitions, one per tile boundary (`grid + 1`): the A start
    /// of each tile of `NT * VT` outputs.
    pub mp: *const u64,
    /// `a_count + b_count` merged keys.
    pub keys: *mut K,
    /// `a_count + b_count` source indices: A ranks below `a_count`, B ranks plus `a_count`
    /// from it (merge-style gather indices).
    pub indices: *mut u32,
}

/// The CTA merge (seed 003): each tile of `NT * VT` outputs loads its A and B intervals
/// (from the global Merge Path partitions, [`compute_merge_range`]) into shared memory,
/// each thread finds its cross-diagonal `VT * tid` with a lower-bound [`merge_path`] and
/// runs a serial merge of `VT` outputs, and the merged keys and their source indices go
/// back to global memory in thread order. Full tiles with a key after each interval load
/// those two halo keys and use the unchecked [`serial_merge`]; the others (the last tile,
/// or a tile that ends one of the lists) use [`serial_merge_guarded`].
///
/// [`compute_merge_range`]: mgpu_ctasearch::compute_merge_range
/// [`merge_path`]: mgpu_ctasearch::merge_path
/// [`serial_merge`]: mgpu_ctasearch::serial_merge
/// [`serial_merge_guarded`]: mgpu_ctasearch::serial_merge_guarded
///
/// # Examples
///
/// One partial tile in the simulator (the partitions of one tile are `0` and `a_count`):
///
/// ```
/// use mgpu_core::{sim, Kernel, Less};
/// use mgpu_blocks::kernels::{MergeKeys, MergeKeysArgs, NT, VT};
/// type K = MergeKeys<i32, Less, NT, VT>;
/// assert_eq!(K::ENTRY, "blocks_merge_keys_i32_less");
/// let (a, b, mp) = ([1i32, 4, 4], [2i32, 4], [0u64, 3]);
/// let (mut keys, mut idx) = ([0i32; 5], [0u32; 5]);
/// let args = MergeKeysArgs {
///     a: a.as_ptr(), a_count: 3, b: b.as_ptr(), b_count: 2, mp: mp.as_ptr(),
///     keys: keys.as_mut_ptr(), indices: idx.as_mut_ptr(),
/// };
/// sim::launch_kernel::<K>(1, &args);
/// assert_eq!(keys, [1, 2, 4, 4, 4]);
/// assert_eq!(idx, [0, 3, 1, 2, 4]); // B's 4 (index 3 + 1) after A's
/// ```
pub struct MergeKeys<K, Comp, const NT: usize, const VT: usize>(PhantomData<(K, Comp)>);

impl<K: Element, Comp: Comparator<K>, const NT: usize, const VT: usize> Kernel
    for MergeKeys<K, Comp, NT, VT>
where
    Self: EntryName,
{
    type Args = MergeKeysArgs<K>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    // The tile's keys and two halo keys; then the thread-order transposes (NT * VT).
    const SHARED_BYTES: u32 = ((NT * VT + 2) * max(size_of::<K>(), 4)) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let nv = (NT * VT) as u64;
        let block = cta.block() as usize;
        let r = unsafe {
            cs::compute_merge_range(
                a.a_count,
                a.b_count,
                block as u64,
                0,
                nv,
                *a.mp.add(block),
                *a.mp.add(block + 1),
            )
        };
        let a_cnt = (r.a1 - r.a0) as u32;
        let b_cnt = (r.b1 - r.b0) as u32;
        let n = (a_cnt + b_cnt) as usize;
        let extended = r.a1 < a.a_count && r.b1 < a.b_count;
        let ext = extended as u32;
        // Shared: A (and its halo) at 0, B (and its halo) at b_start.
        let b_start = a_cnt + ext;
        let a_load = b_start;
        let load = b_start + b_cnt + ext;
        unsafe {
            let ks = cta.shared::<K>(0);
            let (ag, bg) = (a.a.add(r.a0 as usize), a.b.add(r.b0 as usize));
            let mut i = cta.tid();
            while i < load {
                *ks.add(i as usize) = if i < a_load {
                    *ag.add(i as usize)
                } else {
                    *bg.add((i - a_load) as usize)
                };
                i += NT as u32;
            }
            cta.sync();
            let diag = (VT as u32 * cta.tid()).min(n as u32);
            let bs = ks.add(b_start as usize) as *const K;
            let mp = cs::merge_path(
                ks as *const K,
                a_cnt,
                bs,
                b_cnt,
                diag,
                cs::Lower,
                Comp::default(),
            );
            let (k, idx): ([K; VT], [u32; VT]) = if extended {
                cs::serial_merge(ks as *const K, mp, b_start + diag - mp, Comp::default())
            } else {
                cs::serial_merge_guarded(
                    ks as *const K,
                    mp,
                    a_cnt,
                    b_start + diag - mp,
                    b_start + b_cnt,
                    Comp::default(),
                )
            };
            // Tile positions to merge-style gather indices.
            let (ga, gb) = (r.a0 as u32, (a.a_count + r.b0) as u32);
            let g: [u32; VT] = core::array::from_fn(|j| {
                if idx[j] < b_start {
                    ga.wrapping_add(idx[j])
                } else {
                    gb.wrapping_add(idx[j] - b_start)
                }
            });
            let start = block * NT * VT;
            cta.sync();
            ls::thread_order_to_global_guarded::<C, K, NT, VT>(cta, &k, a.keys.add(start), n, ks);
            cta.sync();
            ls::thread_order_to_global_guarded::<C, u32, NT, VT>(
                cta,
                &g,
                a.indices.add(start),
                n,
                cta.shared::<u32>(0),
            );
        }
    }
}

/// Arguments of [`LoadBalance`].
///
/// # Examples
///
/// See [`LoadBalance`]; the host wrapper [`load_balance_search`](crate::load_balance_search)
/// fills them in.
///
/// ```
/// let args = mgpu_blocks::kernels::LoadBalanceArgs {
///     scan: core::ptr::null(), num_objects: 0, total: 0, mp: core::ptr::null(),
///     objects: core::ptr::null_mut(), ranks: core::ptr::null_mut(),
/// };
/// assert_eq!(args.total, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LoadBalanceArgs {
    /// The exclusive scan of the objects' work-item counts.
    pub scan: *const u32,
    /// Number of objects.
    pub num_objects: u32,
    /// Number of work items (the sum of the counts).
    pub total: u32,
    /// Upper-bound Merge Path partitions of the work items against `scan`, one per tile
    /// boundary (`grid + 1`; `mgpu_partition::load_balance_partitions`).
    pub mp: *const u64,
    /// Per work item: the object that generated it (`upper_bound(scan, item) - 1`).
    pub objects: *mut u32,
    /// Per work item: its rank within its object (`item - scan[object]`).
    pub ranks: *mut u32,
}

/// The CTA load-balancing search (seed 001) on each tile of `NT * VT` merge steps:
/// [`cta_load_balance`] with the preceding object's scan value loaded, then each work item
/// of the tile gets its object from shared memory and its rank from its object's scan
/// value.
///
/// [`cta_load_balance`]: mgpu_ctasearch::cta_load_balance
///
/// # Examples
///
/// Seed 001's counts 2, 5, 3, 0, 1 in one tile (partitions 0 and 11) in the simulator:
///
/// ```
/// use mgpu_core::{sim, Kernel};
/// use mgpu_blocks::kernels::{LoadBalance, LoadBalanceArgs, NT, VT};
/// type K = LoadBalance<NT, VT>;
/// assert_eq!(K::ENTRY, "blocks_load_balance_u32");
/// let (scan, mp) = ([0u32, 2, 7, 10, 10], [0u64, 11]);
/// let (mut obj, mut rank) = ([0u32; 11], [0u32; 11]);
/// let args = LoadBalanceArgs {
///     scan: scan.as_ptr(), num_objects: 5, total: 11, mp: mp.as_ptr(),
///     objects: obj.as_mut_ptr(), ranks: rank.as_mut_ptr(),
/// };
/// sim::launch_kernel::<K>(1, &args);
/// assert_eq!(obj, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank, [0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// ```
pub struct LoadBalance<const NT: usize, const VT: usize>;

impl<const NT: usize, const VT: usize> Kernel for LoadBalance<NT, VT>
where
    Self: EntryName,
{
    type Args = LoadBalanceArgs;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = (cs::cta_load_balance_shared_len(NT * VT) * 4) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        unsafe {
            let sh = cta.shared::<u32>(0);
            let t = cs::cta_load_balance::<C, u32, NT, VT>(
                cta,
                cta.block(),
                a.total,
                a.scan,
                a.num_objects,
                a.mp,
                sh,
                true,
                true,
            );
            let bsh = sh.add(t.b_shared() as usize);
            let mut i = cta.tid();
            while i < t.a_count() {
                let item = t.a0 + i;
                let o = *sh.add(i as usize);
                *a.objects.add(item as usize) = o;
                *a.ranks.add(item as usize) = item - *bsh.add((o - t.b0) as usize);
                i += NT as u32;
            }
        }
    }
}

/// Arguments of [`SegScan`].
///
/// # Examples
///
/// See [`SegScan`]; the host wrapper [`seg_scan_plus`](crate::seg_scan_plus) fills them in.
///
/// ```
/// let args = mgpu_blocks::kernels::SegScanArgs::<i32> {
///     values: core::ptr::null(), ends: core::ptr::null(), count: 0,
///     dest: core::ptr::null_mut(), exclusive: 0,
/// };
/// assert_eq!(args.count, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SegScanArgs<T> {
    /// The values.
    pub values: *const T,
    /// One byte per value: nonzero means the value is the last of its segment.
    pub ends: *const u8,
    /// Number of values.
    pub count: u64,
    /// `count` outputs: the segmented scan.
    pub dest: *mut T,
    /// 0: inclusive scan; otherwise exclusive.
    pub exclusive: u32,
}

/// The CTA segmented scan of a tile (seed 002's `CTASegScan` on a thread-order tile):
/// each tile loads its values and end flags into shared memory with the guarded strided
/// copy ([`global_to_shared_guarded`]), each thread takes its `VT` consecutive elements,
/// runs [`cta_seg_scan_tile`] (inclusive or exclusive by the run-time flag), puts its
/// results back in shared memory and the tile is stored with [`shared_to_global_guarded`].
///
/// **Segments are tile-local**: every tile of `NT * VT` elements starts a new segment (the
/// tile's carry-out is dropped), as if the element before each tile boundary had its end
/// flag set. The slots past `count` in the last tile get the identity and no flags.
///
/// [`global_to_shared_guarded`]: mgpu_loadstore::global_to_shared_guarded
/// [`shared_to_global_guarded`]: mgpu_loadstore::shared_to_global_guarded
/// [`cta_seg_scan_tile`]: mgpu_ctascan::cta_seg_scan_tile
///
/// # Examples
///
/// One partial tile in the simulator, segments `[1, 2] [3] [4, 5]`:
///
/// ```
/// use mgpu_core::{sim, Kernel, Plus};
/// use mgpu_blocks::kernels::{SegScan, SegScanArgs, NT, VT};
/// type K = SegScan<i32, Plus, NT, VT>;
/// assert_eq!(K::ENTRY, "blocks_segscan_i32_plus");
/// let (x, ends) = ([1i32, 2, 3, 4, 5], [0u8, 1, 1, 0, 0]);
/// let mut y = [0i32; 5];
/// for (exclusive, want) in [(0, [1, 3, 3, 4, 9]), (1, [0, 1, 0, 0, 4])] {
///     let args = SegScanArgs {
///         values: x.as_ptr(), ends: ends.as_ptr(), count: 5, dest: y.as_mut_ptr(), exclusive,
///     };
///     sim::launch_kernel::<K>(1, &args);
///     assert_eq!(y, want);
/// }
/// ```
pub struct SegScan<T, Op, const NT: usize, const VT: usize>(PhantomData<(T, Op)>);

impl<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize> Kernel
    for SegScan<T, Op, NT, VT>
where
    Self: EntryName,
{
    type Args = SegScanArgs<T>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    // The values (then the results) at 0 and the flag bytes after them; the scan's area
    // reuses the start.
    const SHARED_BYTES: u32 = max(
        NT * VT * (size_of::<T>() + 1),
        seg_scan_shared_bytes(NT, size_of::<T>()),
    ) as u32;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, a: &Self::Args) {
        let (start, n) = tile(cta, NT * VT, a.count);
        let tid = cta.tid() as usize;
        unsafe {
            let vs = cta.shared::<T>(0);
            let fs = cta.shared::<u8>(NT * VT * size_of::<T>());
            ls::global_to_shared_guarded::<C, T, NT, VT>(cta, a.values.add(start), n, vs);
            ls::global_to_shared_guarded::<C, u8, NT, VT>(cta, a.ends.add(start), n, fs);
            cta.sync();
            // Thread order; the slots past `n` (never written) get the identity, no flags.
            let mut flags = 0u32;
            let x: [T; VT] = core::array::from_fn(|i| {
                let p = tid * VT + i;
                if p < n {
                    flags |= ((*fs.add(p) != 0) as u32) << i;
                    *vs.add(p)
                } else {
                    Op::identity()
                }
            });
            let kind = if a.exclusive != 0 {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            cta.sync();
            let (y, _carry_out) =
                cta_seg_scan_tile::<C, T, Op, NT, VT>(cta, &x, flags, cta.shared_base(), kind);
            cta.sync();
            for (i, v) in y.iter().enumerate() {
                *vs.add(tid * VT + i) = *v;
            }
            cta.sync();
            ls::shared_to_global_guarded::<C, T, NT, VT>(cta, vs, n, a.dest.add(start));
        }
    }
}

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// Calls `$m!(entry_name, KernelType)` for every kernel of the `blocks` family: the one
/// list the entry points (`kernels-ptx/entries`) and the host wrappers use.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_blocks_instance {
    ($m:ident) => {
        $m!(blocks_sort_pairs_i32_less, $crate::kernels::SortPairs<i32, i32, $crate::__core::Less, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_batcher_keys_i32_less, $crate::kernels::BatcherKeys<i32, $crate::__core::Less, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_segreduce_i32_plus, $crate::kernels::SegReduce<i32, $crate::__core::Plus, { $crate::kernels::NT }, { $crate::kernels::VT }, false>);
        $m!(blocks_segreduce_f64_plus, $crate::kernels::SegReduce<f64, $crate::__core::Plus, { $crate::kernels::NT }, { $crate::kernels::VT }, true>);
        $m!(blocks_permute_i32, $crate::kernels::Permute<i32, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_merge_values_i64, $crate::kernels::MergeValues<i64, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_merge_keys_i32_less, $crate::kernels::MergeKeys<i32, $crate::__core::Less, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_load_balance_u32, $crate::kernels::LoadBalance<{ $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_segscan_i32_plus, $crate::kernels::SegScan<i32, $crate::__core::Plus, { $crate::kernels::NT }, { $crate::kernels::VT }>);
    };
}

macro_rules! entry_name {
    ($name:ident, $k:ty) => {
        impl EntryName for $k {
            const NAME: &'static str = stringify!($name);
        }
    };
}
for_each_blocks_instance!(entry_name);
