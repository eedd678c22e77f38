//! The partition kernels as [`Kernel`] types and the one instance list that both the nvptx
//! entry points and the host dispatch are generated from.
//!
//! Instantiations (20 entries per architecture, the same for sm_70 and sm_90: a partition
//! kernel is one search per group of lanes, the group size chosen at run time, with nothing
//! to tune but `NT`):
//! - `partition_merge_<t>_<less|greater>` for t in i32, u32, i64, u64, f32, f64: Merge Path
//!   partitions, lower or upper bound and merge or mergesort (`coop`) chosen at run time;
//! - `partition_search_<i>`, `partition_csr_<i>`, `partition_lbs_<i>`,
//!   `partition_counting_<i>` for i in u32, u64.

use crate::device::{self, CountingArgs, CsrArgs, LbsArgs, MergeArgs, SearchArgs};
use core::marker::PhantomData;
use core::mem::size_of;
use mgpu_core::{Element, EntryName, Index, Kernel, OrderEstimate};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) of every partition kernel.
pub const MODULE: &str = "partition";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type): the same on every
/// architecture, 128 threads, one partition point per group of lanes (a value is one
/// thread).
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The Merge Path kernels: built to fit 1024 threads (8 CTAs) per SM, 64 registers,
    /// which the k-ary search needs (its `K - 1` probes hold two keys each; at 32
    /// registers it spilled 24 to 100 bytes). They run groups of 32 lanes for at most
    /// [`crate::COOP_MAX_PARTITIONS`] points (32,768 threads) and one lane per point above,
    /// one wave either way.
    ///
    /// ```
    /// assert_eq!(mgpu_partition::kernels::tuning::MERGE.min_ctas_per_sm(4, 128), 8);
    /// ```
    pub const MERGE: Tuning = Tuning::uniform(Shape::uniform(128, 1), 1024);

    /// The integer-keyed kernels (search, CSR, load-balancing, counting): 1024 threads (8
    /// CTAs) per SM, 64 registers. They hold both the interpolation search (`f64`
    /// estimates) and the cooperative bisection, which spill under 32 registers; they run
    /// one lane per partition point (a few thousand threads), or groups of 32 lanes for at
    /// most [`crate::COOP_MAX_PARTITIONS`] points, far from filling an SM either way.
    ///
    /// ```
    /// assert_eq!(mgpu_partition::kernels::tuning::INDEX.min_ctas_per_sm(8, 128), 8);
    /// ```
    pub const INDEX: Tuning = Tuning::uniform(Shape::uniform(128, 1), 1024);
}

/// Threads per CTA of every partition kernel (a group of 1 to 32 lanes per partition
/// point).
pub const NT: usize = tuning::MERGE.sm90.nt;

/// Merge Path partitions of `T` keys ordered by `C` ([`device::merge_partition`]).
pub struct MergePartition<T, C>(PhantomData<(T, C)>);
/// Binary-search partitions over an `I` array ([`device::search_partition`]).
pub struct SearchPartition<I>(PhantomData<I>);
/// CSR partitions over `I` row offsets ([`device::csr_partition`]).
pub struct CsrPartition<I>(PhantomData<I>);
/// Load-balancing partitions over an `I` scan ([`device::lbs_partition`]).
pub struct LbsPartition<I>(PhantomData<I>);
/// Merge Path partitions of `I` indices (an array or a sequence) against the counting
/// positions ([`device::counting_partition`]).
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_partition::kernels::CountingPartition<u64>;
/// assert_eq!((K::ENTRY, K::NT, K::SHARED_BYTES), ("partition_counting_u64", 128, 0));
/// ```
pub struct CountingPartition<I>(PhantomData<I>);

mgpu_core::kernel_impl! {
    impl[T: Element, C: OrderEstimate<T>] MergePartition<T, C>;
    args: MergeArgs<T>, module: MODULE, nt: NT, vt: 1,
    shared: 0, min_ctas: tuning::MERGE.min_ctas_per_sm(size_of::<T>(), NT);
    fn body<X>(cta, args) {
        // SAFETY: the host launcher sizes every buffer as the body documents.
        unsafe { device::merge_partition::<X, T, C, NT>(cta, args) }
    }
}

macro_rules! index_kernel {
    ($k:ident, $args:ident, $body:ident) => {
        mgpu_core::kernel_impl! {
            impl[I: Idx] $k<I>;
            args: $args<I>, module: MODULE, nt: NT, vt: 1,
            shared: 0, min_ctas: tuning::INDEX.min_ctas_per_sm(size_of::<I>(), NT);
            fn body<X>(cta, args) {
                // SAFETY: the host launcher sizes every buffer as the body documents.
                unsafe { device::$body::<X, I, NT>(cta, args) }
            }
        }
    };
}
index_kernel!(SearchPartition, SearchArgs, search_partition);
index_kernel!(CsrPartition, CsrArgs, csr_partition);
index_kernel!(LbsPartition, LbsArgs, lbs_partition);
index_kernel!(CountingPartition, CountingArgs, counting_partition);

/// A comparator the Merge Path partition kernel is instantiated with for `T`: [`Less`] and
/// [`Greater`] for every element type. Another one does not compile:
///
/// ```compile_fail
/// fn f(d: &mgpu_runtime::DeviceVec<u32, mgpu_runtime::Simulator>) {
///     let _ = mgpu_partition::merge_path_partitions(d.as_slice(), d.as_slice(), 10,
///         mgpu_ctasearch::Bounds::Lower, mgpu_core::EqualTo);
/// }
/// ```
///
/// # Examples
///
/// ```
/// use mgpu_partition::MergeComparator;
/// fn takes<C: MergeComparator<f64>>(_: C) {}
/// takes(mgpu_core::Greater);
/// ```
///
/// [`Less`]: mgpu_core::Less
/// [`Greater`]: mgpu_core::Greater
pub trait MergeComparator<T: Element>: OrderEstimate<T> {
    /// The kernel.
    type Kernel: Kernel<Args = MergeArgs<T>>;
}

/// An index type the index-array partition kernels are instantiated for: u32 and u64.
///
/// # Examples
///
/// ```
/// use mgpu_partition::PartitionIndex;
/// fn takes<I: PartitionIndex>(_: I) {}
/// takes(5u64);
/// ```
pub trait PartitionIndex: Index + Idx {
    /// [`SearchPartition`].
    type Search: Kernel<Args = SearchArgs<Self>>;
    /// [`CsrPartition`].
    type Csr: Kernel<Args = CsrArgs<Self>>;
    /// [`LbsPartition`].
    type Lbs: Kernel<Args = LbsArgs<Self>>;
    /// [`CountingPartition`].
    type Counting: Kernel<Args = CountingArgs<Self>>;
}

/// Calls `$m!(merge, type, Comparator, name)` and `$m!(index, type)` for every partition
/// instantiation: the single list the entry points (kernels-ptx/entries) and the host
/// dispatch are generated from.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_partition_instance {
    ($m:ident) => {
        $crate::__core::for_each_element!($crate::for_each_partition_instance!(@cmp $m));
        $m!(index, u32);
        $m!(index, u64);
    };
    (@cmp $m:ident, $t:ident) => {
        $m!(merge, $t, Less, less);
        $m!(merge, $t, Greater, greater);
    };
}

/// The nvptx entry points of one instantiation.
#[doc(hidden)]
#[macro_export]
macro_rules! partition_entries {
    (merge, $t:ident, $cmp:ident, $name:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!([<partition_merge_ $t _ $name>],
                $crate::kernels::MergePartition<$t, $crate::__core::$cmp>);
        }
    };
    (index, $t:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!([<partition_search_ $t>], $crate::kernels::SearchPartition<$t>);
            $crate::__core::kernel_entry!([<partition_csr_ $t>], $crate::kernels::CsrPartition<$t>);
            $crate::__core::kernel_entry!([<partition_lbs_ $t>], $crate::kernels::LbsPartition<$t>);
            $crate::__core::kernel_entry!([<partition_counting_ $t>], $crate::kernels::CountingPartition<$t>);
        }
    };
}

macro_rules! names_and_dispatch {
    (merge, $t:ident, $cmp:ident, $name:ident) => {
        impl EntryName for MergePartition<$t, mgpu_core::$cmp> {
            const NAME: &'static str =
                concat!("partition_merge_", stringify!($t), "_", stringify!($name));
        }
        impl MergeComparator<$t> for mgpu_core::$cmp {
            type Kernel = MergePartition<$t, mgpu_core::$cmp>;
        }
    };
    (index, $t:ident) => {
        impl EntryName for SearchPartition<$t> {
            const NAME: &'static str = concat!("partition_search_", stringify!($t));
        }
        impl EntryName for CsrPartition<$t> {
            const NAME: &'static str = concat!("partition_csr_", stringify!($t));
        }
        impl EntryName for LbsPartition<$t> {
            const NAME: &'static str = concat!("partition_lbs_", stringify!($t));
        }
        impl EntryName for CountingPartition<$t> {
            const NAME: &'static str = concat!("partition_counting_", stringify!($t));
        }
        impl PartitionIndex for $t {
            type Search = SearchPartition<$t>;
            type Csr = CsrPartition<$t>;
            type Lbs = LbsPartition<$t>;
            type Counting = CountingPartition<$t>;
        }
    };
}

for_each_partition_instance!(names_and_dispatch);
