//! The bulk family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, BulkArgs, Sequence};
use mgpu_core::{Arch, Kernel};
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

    /// Bulk remove: 128 threads of 7 source elements (the seed's shape) on both
    /// architectures; built to fit 1536 threads per SM (40 registers) for 4-byte elements
    /// and 1024 (64 registers, which the 8-byte instances need to hold a tile without
    /// spilling) for larger ones. The kernel is bound by its loads in flight: on an H100,
    /// i32 at 2^27 went from 1.24 to 1.17 times a copy with 1536 threads instead of 1024
    /// (2048 spill and were slower).
    ///
    /// ```
    /// let t = mgpu_bulk::kernels::tuning::REMOVE;
    /// assert_eq!((t.min_ctas_per_sm(4, 128), t.min_ctas_per_sm(8, 128)), (12, 8));
    /// ```
    pub const REMOVE: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape::uniform(128, 7),
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

mgpu_core::kernel_type! {
    /// [`device::bulk_remove`].
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_bulk::kernels::Remove<i32, u32, 128, 7>;
    /// assert_eq!((K::ENTRY, K::NV), ("bulk_remove_i32_u32", 896));
    /// ```
    pub struct Remove<T: Sequence, I: Idx>;
    args: BulkArgs<T, I>,
    module: MODULE,
    tuning: tuning::REMOVE,
    width: core::mem::size_of::<T>(),
    shared: device::remove_shared_bytes(NT, VT, core::mem::size_of::<T>(), core::mem::size_of::<I>()),
    body: device::bulk_remove,
}
mgpu_core::kernel_type! {
    /// [`device::bulk_insert`].
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_bulk::kernels::Insert<u64, u32, 128, 7>;
    /// assert_eq!(K::ENTRY, "bulk_insert_u64_u32");
    /// ```
    pub struct Insert<T: Sequence, I: Idx>;
    args: BulkArgs<T, I>,
    module: MODULE,
    tuning: tuning::INSERT,
    width: core::mem::size_of::<T>(),
    shared: device::shared_bytes(NT, VT, core::mem::size_of::<T>(), core::mem::size_of::<I>()),
    body: device::bulk_insert,
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
/// ```
pub fn remove_nv<T: BulkElement<I>, I>(arch: Arch) -> usize {
    fn of<T, I, S: KernelSet<T, I>>() -> usize {
        S::Remove::NV as usize
    }
    mgpu_core::by_arch!(arch, T as BulkElement<I>, of::<T, I>())
}

/// Outputs per tile of bulk insert for `T`/`I` on `arch`.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_bulk::kernels::insert_nv::<i32, u32>(Arch::Sm90), 896);
/// ```
pub fn insert_nv<T: BulkElement<I>, I>(arch: Arch) -> usize {
    fn of<T, I, S: KernelSet<T, I>>() -> usize {
        S::Insert::NV as usize
    }
    mgpu_core::by_arch!(arch, T as BulkElement<I>, of::<T, I>())
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

/// Calls `$m!(data, type, index)` for every bulk instantiation: the single list the entry
/// points (kernels-ptx/entries) and the host dispatch are generated from. (Bulk insert's
/// partitions are `mgpu_partition`'s `partition_counting_<index>` kernels.)
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_bulk_instance {
    ($m:ident) => {
        $m!(data, i32, u32);
        $m!(data, u32, u32);
        $m!(data, i64, u32);
        $m!(data, u64, u32);
        $m!(data, f32, u32);
        $m!(data, f64, u32);
        $m!(data, i32, u64);
        $m!(data, u32, u64);
        $m!(data, i64, u64);
        $m!(data, u64, u64);
        $m!(data, f32, u64);
        $m!(data, f64, u64);
    };
}

/// The kernel type of `$kernel` for `$t`/`$i` at the shape of `$arch` (`Sm70`, `Sm90`,
/// `TARGET`).
#[doc(hidden)]
#[macro_export]
macro_rules! bulk_kernel_type {
    ($kernel:ident, $tuning:ident, $t:ident, $i:ident, $arch:ident) => {
        $crate::__core::tuned!(
            $crate::kernels::$kernel<$t, $i>,
            $crate::kernels::tuning::$tuning,
            $arch,
            ::core::mem::size_of::<$t>()
        )
    };
}

/// The nvptx entry points of one instantiation, for the arch named by `mgpu_arch`.
#[doc(hidden)]
#[macro_export]
macro_rules! bulk_entries {
    (data, $t:ident, $i:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!([<bulk_remove_ $t _ $i>], $crate::bulk_kernel_type!(Remove, REMOVE, $t, $i, TARGET));
            $crate::__core::kernel_entry!([<bulk_insert_ $t _ $i>], $crate::bulk_kernel_type!(Insert, INSERT, $t, $i, TARGET));
        }
    };
}

macro_rules! names_and_dispatch {
    (data, $t:ident, $i:ident) => {
        impl<const NT: usize, const VT: usize> mgpu_core::EntryName for Remove<$t, $i, NT, VT> {
            const NAME: &'static str = concat!("bulk_remove_", stringify!($t), "_", stringify!($i));
        }
        impl<const NT: usize, const VT: usize> mgpu_core::EntryName for Insert<$t, $i, NT, VT> {
            const NAME: &'static str = concat!("bulk_insert_", stringify!($t), "_", stringify!($i));
        }
        impl BulkElement<$i> for $t {
            type Sm90 = Set<
                crate::bulk_kernel_type!(Remove, REMOVE, $t, $i, Sm90),
                crate::bulk_kernel_type!(Insert, INSERT, $t, $i, Sm90),
            >;
            type Sm70 = Set<
                crate::bulk_kernel_type!(Remove, REMOVE, $t, $i, Sm70),
                crate::bulk_kernel_type!(Insert, INSERT, $t, $i, Sm70),
            >;
        }
    };
}

for_each_bulk_instance!(names_and_dispatch);
