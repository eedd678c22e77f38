//! The bulk family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, BulkArgs, Sequence};
use core::marker::PhantomData;
use mgpu_core::{Cta, Kernel};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) every bulk kernel lives in.
///
/// ```
/// assert_eq!(mgpu_bulk::kernels::MODULE, "bulk");
/// ```
pub const MODULE: &str = "bulk";

/// Launch shapes, one table per architecture (the seeds' launch box).
pub mod tuning {
    /// One architecture's shape.
    ///
    /// ```
    /// let t = mgpu_bulk::kernels::tuning::SM90;
    /// assert_eq!(t.nt * t.vt, 896);
    /// ```
    #[derive(Clone, Copy, Debug)]
    pub struct Table {
        /// Threads per CTA.
        pub nt: usize,
        /// Elements (remove: source elements; insert: outputs) per thread.
        pub vt: usize,
    }
    /// Hopper (sm_90) bulk remove: 128 threads, 7 elements per thread (the seed's shape).
    pub const SM90: Table = Table { nt: 128, vt: 7 };
    /// Volta to Ada (sm_70) bulk remove: 128 threads, 7 elements per thread (the seed's
    /// shape).
    pub const SM70: Table = Table { nt: 128, vt: 7 };
    /// Hopper (sm_90) bulk insert: 128 threads, 7 outputs per thread. Larger CTAs halve the
    /// partitions but measured much slower (H100, i32 at 2^27: 623 us for the insert
    /// kernel with 128 threads, 813 with 256, 963 with 512; docs/bulk.md).
    ///
    /// ```
    /// let t = mgpu_bulk::kernels::tuning::SM90_INSERT;
    /// assert_eq!(t.nt, 128);
    /// ```
    pub const SM90_INSERT: Table = Table { nt: 128, vt: 7 };
    /// Volta to Ada (sm_70) bulk insert: the seed's shape.
    pub const SM70_INSERT: Table = Table { nt: 128, vt: 7 };
    /// Threads per SM bulk remove is built to fit (`.minnctapersm`) for elements of
    /// `elem_bytes` bytes: 1536 (40 registers) for 4-byte elements, 1024 (64 registers,
    /// which the 8-byte instances need to hold a tile without spilling) for larger ones.
    /// The kernel is bound by its loads in flight: on an H100, i32 at 2^27 went from 1.24
    /// to 1.17 times a copy with 1536 threads instead of 1024 (2048 spill and were slower).
    ///
    /// ```
    /// use mgpu_bulk::kernels::tuning::remove_threads_per_sm;
    /// assert_eq!((remove_threads_per_sm(4), remove_threads_per_sm(8)), (1536, 1024));
    /// ```
    pub const fn remove_threads_per_sm(elem_bytes: usize) -> usize {
        if elem_bytes <= 4 {
            1536
        } else {
            1024
        }
    }
    /// Threads per SM bulk insert is built to fit (40 registers; its tiles are
    /// latency-bound, so more of them in flight is what counts), for every element size.
    ///
    /// ```
    /// assert_eq!(mgpu_bulk::kernels::tuning::insert_threads_per_sm(8), 1536);
    /// ```
    pub const fn insert_threads_per_sm(_elem_bytes: usize) -> usize {
        1536
    }

    /// The remove table of the architecture the PTX is being built for (`--cfg
    /// mgpu_arch=...`).
    #[cfg(mgpu_arch = "sm_70")]
    pub const ARCH_TABLE: Table = SM70;
    /// The remove table of the architecture the PTX is being built for (`--cfg
    /// mgpu_arch=...`).
    #[cfg(not(mgpu_arch = "sm_70"))]
    pub const ARCH_TABLE: Table = SM90;
    /// The insert table of the architecture the PTX is being built for.
    #[cfg(mgpu_arch = "sm_70")]
    pub const ARCH_INSERT_TABLE: Table = SM70_INSERT;
    /// The insert table of the architecture the PTX is being built for.
    #[cfg(not(mgpu_arch = "sm_70"))]
    pub const ARCH_INSERT_TABLE: Table = SM90_INSERT;
}

/// Entry names of kernel instantiations (implemented by the instance list).
///
/// ```
/// use mgpu_bulk::kernels::{EntryName, Insert};
/// assert_eq!(<Insert<f32, u64, 128, 7> as EntryName>::NAME, "bulk_insert_f32_u64");
/// ```
pub trait EntryName {
    /// `bulk_<kernel>_<type>_<index>`.
    const NAME: &'static str;
}

/// [`device::bulk_remove`].
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_bulk::kernels::Remove<i32, u32, 128, 7>;
/// assert_eq!(K::ENTRY, "bulk_remove_i32_u32");
/// ```
pub struct Remove<T, I, const NT: usize, const VT: usize>(PhantomData<(T, I)>);
/// [`device::bulk_insert`].
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_bulk::kernels::Insert<u64, u32, 128, 7>;
/// assert_eq!(K::ENTRY, "bulk_insert_u64_u32");
/// ```
pub struct Insert<T, I, const NT: usize, const VT: usize>(PhantomData<(T, I)>);

macro_rules! bulk_kernel {
    ($name:ident, $body:ident, $shared:ident, $threads:ident) => {
        impl<T: Sequence, I: Idx, const NT: usize, const VT: usize> Kernel for $name<T, I, NT, VT>
        where
            Self: EntryName,
        {
            type Args = BulkArgs<T, I>;
            const MODULE: &'static str = MODULE;
            const ENTRY: &'static str = <Self as EntryName>::NAME;
            const NT: u32 = NT as u32;
            const SHARED_BYTES: u32 =
                device::$shared(NT, VT, core::mem::size_of::<T>(), core::mem::size_of::<I>())
                    as u32;
            const MIN_CTAS_PER_SM: u32 = (tuning::$threads(core::mem::size_of::<T>()) / NT) as u32;
            #[inline(always)]
            fn body<C: Cta>(cta: &C, args: &Self::Args) {
                // SAFETY: the host launcher sizes every buffer as the body documents.
                unsafe { device::$body::<C, T, I, NT, VT>(cta, args) }
            }
        }
    };
}
bulk_kernel!(
    Remove,
    bulk_remove,
    remove_shared_bytes,
    remove_threads_per_sm
);
bulk_kernel!(Insert, bulk_insert, shared_bytes, insert_threads_per_sm);

/// The kernels of one element/index pair for one architecture.
///
/// ```
/// use mgpu_bulk::{kernels::KernelSet, BulkElement};
/// assert_eq!(<<i32 as BulkElement<u32>>::Sm90 as KernelSet<i32, u32>>::NV_INSERT, 896);
/// ```
pub trait KernelSet<T, I> {
    /// Source elements per remove tile (`NT * VT`).
    const NV: usize;
    /// Outputs per insert tile (`NT * VT`).
    const NV_INSERT: usize;
    /// The remove kernel.
    type Remove: Kernel<Args = BulkArgs<T, I>>;
    /// The insert kernel.
    type Insert: Kernel<Args = BulkArgs<T, I>>;
}

/// A [`KernelSet`] from its parts.
///
/// ```
/// use mgpu_bulk::kernels::{Insert, KernelSet, Remove, Set};
/// type S = Set<Remove<f32, u64, 64, 3>, Insert<f32, u64, 64, 4>, 192, 256>;
/// assert_eq!(<S as KernelSet<f32, u64>>::NV_INSERT, 256);
/// ```
pub struct Set<R, N, const NV: usize, const NVI: usize>(PhantomData<(R, N)>);

impl<T, I, R, N, const NV: usize, const NVI: usize> KernelSet<T, I> for Set<R, N, NV, NVI>
where
    R: Kernel<Args = BulkArgs<T, I>>,
    N: Kernel<Args = BulkArgs<T, I>>,
{
    const NV: usize = NV;
    const NV_INSERT: usize = NVI;
    type Remove = R;
    type Insert = N;
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

/// The nvptx entry points of one instantiation, for the arch named by `mgpu_arch`.
#[doc(hidden)]
#[macro_export]
macro_rules! bulk_entries {
    (data, $t:ident, $i:ident) => {
        $crate::__paste::paste! {
            $crate::__core::kernel_entry!([<bulk_remove_ $t _ $i>], $crate::kernels::Remove<$t, $i, { $crate::kernels::tuning::ARCH_TABLE.nt }, { $crate::kernels::tuning::ARCH_TABLE.vt }>);
            $crate::__core::kernel_entry!([<bulk_insert_ $t _ $i>], $crate::kernels::Insert<$t, $i, { $crate::kernels::tuning::ARCH_INSERT_TABLE.nt }, { $crate::kernels::tuning::ARCH_INSERT_TABLE.vt }>);
        }
    };
}

macro_rules! names_and_dispatch {
    (data, $t:ident, $i:ident) => {
        impl<const NT: usize, const VT: usize> EntryName for Remove<$t, $i, NT, VT> {
            const NAME: &'static str = concat!("bulk_remove_", stringify!($t), "_", stringify!($i));
        }
        impl<const NT: usize, const VT: usize> EntryName for Insert<$t, $i, NT, VT> {
            const NAME: &'static str = concat!("bulk_insert_", stringify!($t), "_", stringify!($i));
        }
        impl BulkElement<$i> for $t {
            type Sm90 = Set<
                Remove<$t, $i, { tuning::SM90.nt }, { tuning::SM90.vt }>,
                Insert<$t, $i, { tuning::SM90_INSERT.nt }, { tuning::SM90_INSERT.vt }>,
                { tuning::SM90.nt * tuning::SM90.vt },
                { tuning::SM90_INSERT.nt * tuning::SM90_INSERT.vt },
            >;
            type Sm70 = Set<
                Remove<$t, $i, { tuning::SM70.nt }, { tuning::SM70.vt }>,
                Insert<$t, $i, { tuning::SM70_INSERT.nt }, { tuning::SM70_INSERT.vt }>,
                { tuning::SM70.nt * tuning::SM70.vt },
                { tuning::SM70_INSERT.nt * tuning::SM70_INSERT.vt },
            >;
        }
    };
}

for_each_bulk_instance!(names_and_dispatch);
