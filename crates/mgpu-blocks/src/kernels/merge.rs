//! [`MergeKeys`]: Merge Path partitioning of a tile and the serial merges.

use super::*;

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

blocks_kernel! {
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
    pub struct MergeKeys<K: Element, Comp: Comparator<K>>;
    args: MergeKeysArgs<K>,
    // The tile's keys and two halo keys; then the thread-order transposes (NT * VT).
    shared: (NT * VT + 2) * max(size_of::<K>(), 4);
    fn body<C>(cta, a) {
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
