//! The load-balancing search kernel as a [`Kernel`](mgpu_core::Kernel) type, its tuning, and the one instance
//! list that both the nvptx entry points and the host dispatch are generated from.
//!
//! Instantiations: `loadbalance_search_u32` and `loadbalance_search_u64`, with the shape of
//! the architecture's table (`--cfg mgpu_arch`) under the same names in each PTX file.

use crate::device::{self, LoadBalanceArgs};
use core::mem::size_of;
use mgpu_core::{Arch, Index};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) of the load-balancing search kernels.
pub const MODULE: &str = "loadbalance";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type). A value is one merge
/// step (a work item or an object), its width the index type's size.
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The search: 128 threads of 23 (u32) or 7 (u64) steps on sm_90, 7 on sm_70 (the
    /// seeds' launch box); built to fit 1536 threads (12 CTAs) per SM. 31 steps a thread
    /// measured slower with mean-1 counts on an H100 (docs/loadbalance.md).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_loadbalance::kernels::tuning::SEARCH;
    /// assert_eq!((t.shape(Arch::Sm90).nv(4), t.shape(Arch::Sm70).vt(8)), (128 * 23, 7));
    /// ```
    pub const SEARCH: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape {
            nt: 128,
            vt4: 23,
            vt8: 7,
        },
        threads_per_sm4: 1536,
        threads_per_sm8: 1536,
    };
}

mgpu_core::kernel_types! {
    impl[I: Idx] args: LoadBalanceArgs<I>, module: MODULE, width: size_of::<I>();
    /// [`device::load_balance`] for `I` indices, `NT` threads of `VT` steps.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_loadbalance::kernels::Search<u32, 128, 11>;
    /// assert_eq!((K::ENTRY, K::NV), ("loadbalance_search_u32", 128 * 11));
    /// ```
    pub struct Search {
        tuning: tuning::SEARCH,
        shared: device::shared_bytes(size_of::<I>(), NT, VT),
        body: device::load_balance,
    }
}

mgpu_core::kernel_set! {
    /// The kernels of one index type for one architecture: the search alone.
    ///
    /// ```
    /// use mgpu_loadbalance::kernels::KernelSet;
    /// use mgpu_core::Kernel;
    /// type S = <u64 as mgpu_loadbalance::LoadBalanceIndex>::Sm90;
    /// assert_eq!(<S as KernelSet<u64>>::Search::NV, 128 * 7);
    /// ```
    pub trait KernelSet<I> for LoadBalanceArgs<I> {
        /// The search kernel.
        Search,
    }
}

/// Merge steps per tile of the search for `I` on `arch`: the tile the host partitions by.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_loadbalance::kernels::nv::<u32>(Arch::Sm70), 128 * 7);
/// ```
pub fn nv<I: LoadBalanceIndex>(arch: Arch) -> usize {
    mgpu_core::by_arch!(arch, I as LoadBalanceIndex, <KernelSet<I>>::Search::NV) as usize
}

/// An index type the load-balancing search is instantiated for: u32 and u64.
///
/// # Examples
///
/// ```
/// use mgpu_loadbalance::LoadBalanceIndex;
/// fn takes<I: LoadBalanceIndex>(_: I) {}
/// takes(7u64);
/// ```
pub trait LoadBalanceIndex: Index + Idx + mgpu_partition::PartitionIndex {
    /// The sm_90 kernels.
    type Sm90: KernelSet<Self>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<Self>;
}

/// The single list of load-balancing search instantiations (u32 and u64) and their
/// kernel: `for_each_loadbalance_instance!(entries)` makes the nvptx entry points
/// (kernels-ptx/entries), `for_each_loadbalance_instance!(host)` the entry names and the
/// [`LoadBalanceIndex`] impls, both with [`mgpu_core::family_instance!`].
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_loadbalance_instance {
    ($mode:ident) => {
        $crate::for_each_loadbalance_instance!(@instance $mode, u32);
        $crate::for_each_loadbalance_instance!(@instance $mode, u64);
    };
    (@instance $mode:ident, $t:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$t>, width: $t, name: [$t];
            impl LoadBalanceIndex for $t {
                [Search loadbalance_search SEARCH];
            }
        }
    };
}

for_each_loadbalance_instance!(host);
