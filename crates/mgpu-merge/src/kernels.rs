//! The merge family's kernels as [`Kernel`](mgpu_core::Kernel) types, their tuning, and
//! the one list of instantiations that both the nvptx entry points and the host dispatch
//! are generated from.
//!
//! Keys are every element type with [`Less`](mgpu_core::Less) and
//! [`Greater`](mgpu_core::Greater); values are carried as 4- or 8-byte bits (`u32`,
//! `u64`), so that pairs of any key and value types need `6 x 2 x 2` instances, not
//! `6 x 6 x 2`.

use crate::device::{self, MergeArgs, MergeValue};
use core::mem::size_of;
use mgpu_core::{Comparator, Element};

/// The name of the PTX module (family) every merge kernel lives in.
///
/// ```
/// assert_eq!(mgpu_merge::kernels::MODULE, "merge");
/// ```
pub const MODULE: &str = "merge";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type).
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The blocksort: 512 threads of 9 keys on sm_90 when a key and its value take more
    /// than 4 bytes together (an odd `VT` keeps the thread-order shared-memory accesses
    /// free of bank conflicts), two of [`MERGE`]'s tiles, so that 2^24 such keys take 12
    /// merge passes and 2^27 keys 15; 128 of 7 on sm_70. 4-byte keys alone sort their
    /// blocks with [`SORT_KEYS4`] (this shape's 512 x 17, 8704, the tile both share) and
    /// 4-byte keys with 4-byte values with [`SORT_PAIRS4`] (512 x 18, twice this shape's
    /// 4608).
    /// Built for 1024 threads per SM (48 registers for 8-byte keys, 55 to 64 for pairs),
    /// and 768 for 4-byte keys alone, the launch bound of [`SORT_KEYS4`]'s kernels. Wider
    /// keys and pairs used to take 17 a thread too, at 512 threads per SM (100 to 128
    /// registers): one CTA an SM, whose every barrier idled the SM; by ncu on an H100
    /// their blocksort took 547 us at 2^24 against 195 to 317 us for CUB's
    /// (docs/merge.md). A blocksort tile is a power-of-two number of merge tiles (the
    /// host's passes start from lists of that many).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_merge::kernels::tuning::SORT;
    /// assert_eq!((t.shape(Arch::Sm90).nv(4), t.shape(Arch::Sm90).nv(8)), (8704, 4608));
    /// assert_eq!(t.shape(Arch::Sm70).nv(8), 896);
    /// ```
    pub const SORT: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape {
            nt: 512,
            vt4: 17,
            vt8: 9,
        },
        threads_per_sm4: 768,
        threads_per_sm8: 1024,
    };

    /// The blocksort of 4-byte keys alone (`i32`, `u32`, `f32`): 256 threads of 34 on
    /// sm_90, the 8704 keys of [`SORT`]'s 512 x 17 (two of [`MERGE`]'s 256 x 17 tiles, so
    /// that 2^24 keys take 11 merge passes and 2^27 keys 14), built for 768 threads per SM
    /// (80 registers; three CTAs fit in shared memory). Each thread sorts its 34 keys with
    /// Batcher's network (252 comparators, where the odd-even transposition sort would take
    /// 561; keys alone need no stable network, since keys equal by the comparator are
    /// equal bits) and then takes part in 8 merge passes instead of 9, with half the Merge
    /// Path searches a key. On an H100 at 2^24 the i32 blocksort took 194 us (102 M warp
    /// instructions) against 212 us (136.5 M) at 512 x 17 with the transposition sort, and
    /// the sort 1 % / 1.3 % less time at 2^24 / 2^27 (docs/merge.md). The even `VT` makes
    /// the thread-order shared-memory accesses 2-way bank conflicts.
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// use mgpu_merge::kernels::tuning::{MERGE, SORT, SORT_KEYS4};
    /// let (k, s, m) = (SORT_KEYS4.shape(Arch::Sm90), SORT.shape(Arch::Sm90), MERGE.shape(Arch::Sm90));
    /// assert_eq!((k.nt, k.vt(4)), (256, 34));
    /// assert_eq!(k.nv(4), s.nv(4)); // the same tile: the suite's tile multiples hold
    /// assert_eq!(k.nv(4), 2 * m.nv(4));
    /// assert_eq!(SORT.min_ctas_per_sm(4, 256), 3);
    /// ```
    pub const SORT_KEYS4: Tuning = Tuning {
        sm70: SORT.sm70,
        sm90: Shape {
            nt: 256,
            vt4: 34,
            vt8: 9,
        },
        threads_per_sm4: 768,
        threads_per_sm8: 1024,
    };

    /// The merge tiles: 256 threads of 17 keys on sm_90 for 4-byte keys alone, 9 for wider
    /// keys and for pairs ([`SORT`]'s shape on sm_70), built to fit 1536 threads per SM
    /// for 4-byte keys alone (40 registers) and 1280 for the others (40 to 48). The tiles
    /// are bound by their loads in flight: they load with `cp.async`, as 16-byte vectors
    /// where the range allows (`device::merge`; no register holds a
    /// load) and write their merged keys straight to shared memory (no register array of
    /// them), so that many fit. On an H100 at 2^24 a merge of i32 keys took 2.24 times a
    /// copy at 768 threads per SM with both in registers, 1.62 at 1024 with the outputs in
    /// shared memory, 1.55 at 1536 with `cp.async`; a pass over u64 keys took 113 us at 17
    /// a thread and 768 threads per SM (80 registers, 65 % of DRAM bandwidth) against 94
    /// us for CUB's tiles of 256 x 8 (docs/merge.md).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_merge::kernels::tuning::MERGE;
    /// let sort = mgpu_merge::kernels::tuning::SORT.shape(Arch::Sm90);
    /// for width in [4, 8] {
    ///     assert_eq!(2 * t.shape(Arch::Sm90).nv(width), sort.nv(width));
    /// }
    /// assert_eq!((t.min_ctas_per_sm(4, 256), t.min_ctas_per_sm(8, 256)), (6, 5));
    /// ```
    pub const MERGE: Tuning = Tuning {
        sm70: SORT.sm70,
        sm90: Shape {
            nt: 256,
            vt4: 17,
            vt8: 9,
        },
        threads_per_sm4: 1536,
        threads_per_sm8: 1280,
    };

    /// The blocksort of 4-byte keys with 4-byte values (`i32`, `u32`, `f32` keys; pairs and
    /// indices): 512 threads of 18 on sm_90, a tile of 9216 (four of [`MERGE`]'s 256 x 9
    /// tiles, twice [`SORT`]'s 512 x 9, so that 2^24 pairs take 11 merge passes and 2^27
    /// pairs 14), built for 1024 threads an SM (64 registers, with a 16-byte spill that
    /// holds four values from their load to their final gather; two CTAs, 108 KB of shared
    /// memory each with the positions as `u16`s). On an H100 (three runs each alternating)
    /// i32 pairs sorted in 1.462-1.470 / 13.02-13.05 ms at 2^24 / 2^27 against
    /// 1.507-1.517 / 13.31-13.36 for 256 x 18 (4608, four CTAs an SM): by ncu the
    /// blocksort took 385 us at 2^24 against 321, and the pass it saves 94 us and its
    /// partitions 12 (docs/merge.md). Each thread's network and merges take 18 keys
    /// instead of 9, and its Merge Path searches are half as many a key; the even `VT`
    /// makes the thread-order shared-memory accesses 2-way bank conflicts, which cost
    /// less than the searches they save. Other pairs keep [`SORT`].
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// use mgpu_merge::kernels::tuning::{MERGE, SORT, SORT_PAIRS4};
    /// let (p, s, m) = (SORT_PAIRS4.shape(Arch::Sm90), SORT.shape(Arch::Sm90), MERGE.shape(Arch::Sm90));
    /// assert_eq!((p.nt, p.vt(8)), (512, 18));
    /// assert_eq!(p.nv(8), 2 * s.nv(8)); // the suite's tile multiples (of SORT's) hold
    /// assert_eq!(p.nv(8), 4 * m.nv(8));
    /// assert_eq!(SORT_PAIRS4.min_ctas_per_sm(8, 512), 2);
    /// ```
    pub const SORT_PAIRS4: Tuning = Tuning {
        sm70: SORT.sm70,
        sm90: Shape {
            nt: 512,
            vt4: 17,
            vt8: 18,
        },
        threads_per_sm4: SORT.threads_per_sm4,
        threads_per_sm8: SORT.threads_per_sm8,
    };

    // The `Blocksort` kernel type takes its `.minnctapersm` from `SORT` (the tuning
    // `kernel_types!` declares it with), whichever tuning an instance takes its shape
    // from: an instance tuning's threads per SM must be `SORT`'s, or a change to it alone
    // would not reach the launch bounds.
    const fn same_threads(t: Tuning) -> bool {
        t.threads_per_sm4 == SORT.threads_per_sm4 && t.threads_per_sm8 == SORT.threads_per_sm8
    }
    const _: () = assert!(
        same_threads(SORT_KEYS4) && same_threads(SORT_PAIRS4),
        "the blocksort tunings disagree on threads per SM"
    );
}

mgpu_core::kernel_types! {
    impl[K: Element, V: MergeValue, Cmp: Comparator<K>] args: MergeArgs<K, V>, module: MODULE,
        width: size_of::<K>() + size_of::<V>();
    /// [`device::blocksort`].
    ///
    /// ```
    /// use mgpu_core::{Kernel, Less};
    /// type K = mgpu_merge::kernels::Blocksort<i32, (), Less, 512, 17>;
    /// assert_eq!((K::ENTRY, K::NV), ("merge_blocksort_i32_less", 8704));
    /// ```
    pub struct Blocksort {
        tuning: tuning::SORT,
        shared: device::blocksort_shared_bytes(NT, VT, size_of::<K>(), size_of::<V>()),
        body: device::blocksort,
    }
    /// [`device::merge`].
    ///
    /// ```
    /// use mgpu_core::{Greater, Kernel};
    /// type K = mgpu_merge::kernels::Merge<f64, u32, Greater, 256, 17>;
    /// assert_eq!(K::ENTRY, "merge_merge_pairs_f64_u32_greater");
    /// ```
    pub struct Merge {
        tuning: tuning::MERGE,
        shared: device::merge_shared_bytes(NT, VT, size_of::<K>(), size_of::<V>()),
        body: device::merge,
    }
}

mgpu_core::kernel_set! {
    /// The kernels of one key type, value width and comparator for one architecture.
    ///
    /// ```
    /// use mgpu_core::{Kernel, Less};
    /// use mgpu_merge::kernels::{KernelSet, MergeKernels};
    /// type S = <Less as MergeKernels<u64, ()>>::Sm90;
    /// assert_eq!(<S as KernelSet<u64, (), Less>>::Merge::NV, 2304);
    /// ```
    pub trait KernelSet<K, V, Cmp> for MergeArgs<K, V> {
        /// The blocksort.
        Blocksort,
        /// The merge tiles (merge and mergesort passes).
        Merge,
    }
}

/// A comparator with merge kernels for keys `K` and values `V` (`()`, `u32` or `u64`):
/// [`Less`](mgpu_core::Less) and [`Greater`](mgpu_core::Greater) for every element type.
///
/// # Examples
///
/// ```
/// use mgpu_merge::kernels::MergeKernels;
/// fn takes<C: MergeKernels<f32, u64>>(_: C) {}
/// takes(mgpu_core::Greater);
/// ```
pub trait MergeKernels<K, V>: Comparator<K> {
    /// The sm_90 kernels.
    type Sm90: KernelSet<K, V, Self>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<K, V, Self>;
}

/// The single list of merge instantiations (every element type as keys, with no values
/// and with 4- and 8-byte values, by `Less` and `Greater`) and their kernels:
/// `for_each_merge_instance!(entries)` makes the nvptx entry points (kernels-ptx/entries),
/// `for_each_merge_instance!(host)` the entry names and the [`MergeKernels`] impls, both
/// with [`mgpu_core::family_instance!`]. (The partitions are `mgpu_partition`'s
/// `partition_merge_*` kernels.)
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_merge_instance {
    ($mode:ident) => {
        $crate::__core::for_each_element!($crate::for_each_merge_instance!(@cmp $mode, Less, less));
        $crate::__core::for_each_element!(
            $crate::for_each_merge_instance!(@cmp $mode, Greater, greater)
        );
    };
    // Each key type's blocksort shapes, keys alone and with 4-byte values: 4-byte keys
    // take their own (`tuning::SORT_KEYS4`, `tuning::SORT_PAIRS4`), the others `SORT`.
    (@cmp $mode:ident, $cmp:ident, $name:ident, i32) => {
        $crate::for_each_merge_instance!(@sorts $mode, $cmp, $name, i32, SORT_KEYS4, SORT_PAIRS4);
    };
    (@cmp $mode:ident, $cmp:ident, $name:ident, u32) => {
        $crate::for_each_merge_instance!(@sorts $mode, $cmp, $name, u32, SORT_KEYS4, SORT_PAIRS4);
    };
    (@cmp $mode:ident, $cmp:ident, $name:ident, f32) => {
        $crate::for_each_merge_instance!(@sorts $mode, $cmp, $name, f32, SORT_KEYS4, SORT_PAIRS4);
    };
    (@cmp $mode:ident, $cmp:ident, $name:ident, $k:ident) => {
        $crate::for_each_merge_instance!(@sorts $mode, $cmp, $name, $k, SORT, SORT);
    };
    (@sorts $mode:ident, $cmp:ident, $name:ident, $k:ident, $keys:ident, $pairs4:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$k, (), $crate::__core::$cmp>, width: $k, name: [$k _ $name];
            impl MergeKernels<$k, ()> for $crate::__core::$cmp {
                [Blocksort merge_blocksort $keys], [Merge merge_merge MERGE];
            }
        }
        $crate::for_each_merge_instance!(@pairs $mode, $cmp, $name, $k, u32, $pairs4);
        $crate::for_each_merge_instance!(@pairs $mode, $cmp, $name, $k, u64, SORT);
    };
    (@pairs $mode:ident, $cmp:ident, $name:ident, $k:ident, $v:ident, $st:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$k, $v, $crate::__core::$cmp>, width: ($k, $v),
                name: [$k _ $v _ $name];
            impl MergeKernels<$k, $v> for $crate::__core::$cmp {
                [Blocksort merge_blocksort_pairs $st], [Merge merge_merge_pairs MERGE];
            }
        }
    };
}

for_each_merge_instance!(host);
