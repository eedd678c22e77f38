//! The bulk family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, BulkArgs, Sequence};
use core::mem::size_of;
use mgpu_core::Arch;
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) every bulk kernel lives in.
///
/// ```
/// assert_eq!(mgpu_bulk::kernels::MODULE, "bulk");
/// ```
pub const MODULE: &str = "bulk";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type). A value is one
/// source element (remove) or one output (insert), its width the element's size.
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// Bulk remove: 128 threads of 7 source elements a range (the seed's shape), and 8 for
    /// 4-byte elements on sm_90; built to fit 1536 threads per SM (40 registers) for 4-byte
    /// elements and 1024 (64 registers, which the 8-byte instances need to hold a tile
    /// without spilling) for larger ones. The kernel is bound by its loads in flight: on an
    /// H100, i32 at 2^27 went from 1.24 to 1.17 times a copy with 1536 threads instead of
    /// 1024 (2048 spill and were slower). The index tiles issue instructions in about 80 %
    /// of cycles and each tile has a fixed cost (its ends, its scan), so 8 a thread (the
    /// same 40 registers, no stack in the index tiles' path) took i32 at 2^27 from 0.408
    /// to 0.393 ms, 3 % faster; 9 a thread spill 80 bytes at 40 registers. Source tiles of
    /// 256 x 7 (before the index tiles) halved the partitions but were much slower (i32 at
    /// 2^27 1.39 against 1.16; docs/bulk.md).
    ///
    /// ```
    /// let t = mgpu_bulk::kernels::tuning::REMOVE;
    /// assert_eq!((t.min_ctas_per_sm(4, 128), t.min_ctas_per_sm(8, 128)), (12, 8));
    /// ```
    pub const REMOVE: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape {
            nt: 128,
            vt4: 8,
            vt8: 7,
        },
        threads_per_sm4: 1536,
        threads_per_sm8: 1024,
    };

    /// Bulk insert: 128 threads of 7 outputs (the seed's shape) on both architectures;
    /// built to fit 1536 threads per SM (40 registers; its tiles are latency-bound, so more
    /// of them in flight is what counts) for every element size. Larger CTAs halve the
    /// partitions but measured much slower (H100, i32 at 2^27: 623 us for the insert kernel
    /// with 128 threads, 813 with 256, 963 with 512; docs/bulk.md).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(mgpu_bulk::kernels::tuning::INSERT.shape(Arch::Sm90).nv(8), 896);
    /// ```
    pub const INSERT: Tuning = Tuning::uniform(Shape::uniform(128, 7), 1536);
}

mgpu_core::kernel_types! {
    impl[T: Sequence, I: Idx] args: BulkArgs<T, I>, module: MODULE, width: size_of::<T>();
    /// [`device::bulk_remove`].
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_bulk::kernels::Remove<i32, u32, 128, 7>;
    /// assert_eq!((K::ENTRY, K::NV), ("bulk_remove_i32_u32", 896));
    /// ```
    pub struct Remove {
        tuning: tuning::REMOVE,
        shared: device::remove_shared_bytes(NT, VT, size_of::<T>(), size_of::<I>()),
        body: device::bulk_remove,
    }
    /// [`device::bulk_insert`].
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_bulk::kernels::Insert<u64, u32, 128, 7>;
    /// assert_eq!(K::ENTRY, "bulk_insert_u64_u32");
    /// ```
    pub struct Insert {
        tuning: tuning::INSERT,
        shared: device::shared_bytes(NT, VT, size_of::<T>(), size_of::<I>()),
        body: device::bulk_insert,
    }
}

mgpu_core::kernel_set! {
    /// The kernels of one element/index pair for one architecture.
    ///
    /// ```
    /// use mgpu_bulk::{kernels::{Insert, KernelSet, Remove, Set}, BulkElement};
    /// use mgpu_core::Kernel;
    /// type S = <i32 as BulkElement<u32>>::Sm90;
    /// assert_eq!(<S as KernelSet<i32, u32>>::Insert::NV, 896);
    /// type T = Set<Remove<f32, u64, 64, 3>, Insert<f32, u64, 64, 4>>;
    /// assert_eq!(<T as KernelSet<f32, u64>>::Insert::NV, 256);
    /// ```
    pub trait KernelSet<T, I> for BulkArgs<T, I> {
        /// The remove kernel.
        Remove,
        /// The insert kernel.
        Insert,
    }
}

/// Source elements per tile of bulk remove for `T`/`I` on `arch`.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_bulk::kernels::remove_nv::<f64, u64>(Arch::Sm70), 896);
/// assert_eq!(mgpu_bulk::kernels::remove_nv::<i32, u32>(Arch::Sm90), 1024);
/// assert_eq!(mgpu_bulk::kernels::remove_nv::<i64, u32>(Arch::Sm90), 896);
/// ```
pub fn remove_nv<T: BulkElement<I>, I>(arch: Arch) -> usize {
    mgpu_core::by_arch!(arch, T as BulkElement<I>, <KernelSet<T, I>>::Remove::NV) as usize
}

/// CTAs of bulk remove that fit on one SM for `T`/`I` on `arch` (its launch bounds): the
/// spilled chunks' persistent launch has that many per SM.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_bulk::kernels::remove_ctas_per_sm::<i32, u32>(Arch::Sm90), 12);
/// ```
pub fn remove_ctas_per_sm<T: BulkElement<I>, I>(arch: Arch) -> usize {
    mgpu_core::by_arch!(
        arch,
        T as BulkElement<I>,
        <KernelSet<T, I>>::Remove::MIN_CTAS_PER_SM
    ) as usize
}

/// Indices an index tile of bulk remove takes (`K`), for `m` indices in `n` source
/// elements and tiles of `nv` elements: 0.9 of the indices `nv` elements hold on average,
/// so that a tile's range (`K` indices and the kept elements between them) fits in `nv`
/// elements unless the removals cluster (at half of 2^27 elements removed at random, a
/// range of mean 806 and standard deviation 28 against 896); at least 1 and at most `nv`.
///
/// ```
/// use mgpu_bulk::kernels::remove_tile_indices;
/// assert_eq!(remove_tile_indices(896, 1 << 27, 1 << 26), 403);
/// assert_eq!(remove_tile_indices(896, 1000, 1000), 806);
/// assert_eq!((remove_tile_indices(896, 1000, 0), remove_tile_indices(896, 0, 0)), (1, 1));
/// ```
pub fn remove_tile_indices(nv: usize, n: usize, m: usize) -> usize {
    if n == 0 {
        return 1;
    }
    (nv as u128 * m as u128 * 9 / (10 * n as u128)).clamp(1, nv as u128) as usize
}

/// Outputs per tile of bulk insert for `T`/`I` on `arch`.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_bulk::kernels::insert_nv::<i32, u32>(Arch::Sm90), 896);
/// ```
pub fn insert_nv<T: BulkElement<I>, I>(arch: Arch) -> usize {
    mgpu_core::by_arch!(arch, T as BulkElement<I>, <KernelSet<T, I>>::Insert::NV) as usize
}

/// An element type with bulk kernels for index type `I` (every [`Element`] with u32 and
/// u64).
///
/// [`Element`]: mgpu_core::Element
///
/// # Examples
///
/// ```
/// use mgpu_bulk::BulkElement;
/// fn takes<T: BulkElement<u64>>(_: T) {}
/// takes(1.5f64);
/// ```
pub trait BulkElement<I>: Sequence {
    /// The sm_90 kernels.
    type Sm90: KernelSet<Self, I>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<Self, I>;
}

/// The single list of bulk instantiations (every element type with u32 and u64 indices)
/// and their kernels: `for_each_bulk_instance!(entries)` makes the nvptx entry points
/// (kernels-ptx/entries), `for_each_bulk_instance!(host)` the entry names and the
/// [`BulkElement`] impls, both with [`mgpu_core::family_instance!`]. (Bulk insert's
/// partitions are `mgpu_partition`'s `partition_counting_<index>` kernels.)
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_bulk_instance {
    ($mode:ident) => {
        $crate::__core::for_each_element!($crate::for_each_bulk_instance!(@instance $mode, u32));
        $crate::__core::for_each_element!($crate::for_each_bulk_instance!(@instance $mode, u64));
    };
    (@instance $mode:ident, $i:ident, $t:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$t, $i>, width: $t, name: [$t _ $i];
            impl BulkElement<$i> for $t {
                [Remove bulk_remove REMOVE], [Insert bulk_insert INSERT];
            }
        }
    };
}

for_each_bulk_instance!(host);
