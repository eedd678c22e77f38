//! Sorting-network kernels: [`SortPairs`] (the odd-even transposition sort of each thread's
//! pairs, segment heads respected) and [`BatcherKeys`] (Batcher's network on keys).

use super::*;

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

blocks_kernel! {
    /// Sorts each thread's `VT` consecutive elements (keys with values) with the odd-even
    /// transposition sort, segment head flags blocking swaps: blocksort's first step
    /// (seed 004). Elements past `count` in the last tile are their own segments.
    pub struct SortPairs<K: Element, V: Element, Comp: Comparator<K>>;
    args: SortPairsArgs<K, V>,
    shared: NT * VT * max(size_of::<K>(), size_of::<V>());
    fn body<C>(cta, a) {
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

blocks_kernel! {
    /// Sorts each thread's `VT` consecutive keys with Batcher's odd-even merge sort network.
    pub struct BatcherKeys<K: Element, Comp: Comparator<K>>;
    args: BatcherKeysArgs<K>,
    shared: NT * VT * size_of::<K>();
    fn body<C>(cta, a) {
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
