//! The load-balancing search kernel as a [`Kernel`] type, its tuning, and the one instance
//! list that both the nvptx entry points and the host dispatch are generated from.
//!
//! Instantiations: `loadbalance_search_u32` and `loadbalance_search_u64`, with the shape of
//! the architecture's table (`--cfg mgpu_arch`) under the same names in each PTX file.

use crate::device::{self, LoadBalanceArgs};
use core::marker::PhantomData;
use mgpu_core::{Cta, Index, Kernel};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) of the load-balancing search kernels.
pub const MODULE: &str = "loadbalance";

/// Launch shapes, one table per architecture (moderngpu's launch box).
pub mod tuning {
    /// One architecture's shapes.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = mgpu_loadbalance::kernels::tuning::SM90;
    /// assert_eq!(t.vt(4) * t.nt, 128 * 23);
    /// ```
    #[derive(Clone, Copy, Debug)]
    pub struct Table {
        /// Threads per CTA.
        pub nt: usize,
        /// Merge steps per thread for 4-byte indices.
        pub vt4: usize,
        /// Merge steps per thread for 8-byte indices.
        pub vt8: usize,
    }

    impl Table {
        /// Steps per thread for an index of `bytes` bytes.
        ///
        /// # Examples
        ///
        /// ```
        /// assert_eq!(mgpu_loadbalance::kernels::tuning::SM70.vt(8), 7);
        /// ```
        pub const fn vt(&self, bytes: usize) -> usize {
            if bytes == 4 {
                self.vt4
            } else {
                self.vt8
            }
        }
    }

    /// Hopper (sm_90): 128 threads, 23 (u32) or 7 (u64) steps per thread.
    pub const SM90: Table = Table {
        nt: 128,
        vt4: 23,
        vt8: 7,
    };
    /// Volta to Ada (sm_70): 128 threads, 7 steps per thread (the seeds' launch box).
    pub const SM70: Table = Table {
        nt: 128,
        vt4: 7,
        vt8: 7,
    };

    /// CTAs per SM the kernels are built to fit (`.minnctapersm`): 1536 threads per SM.
    pub const MIN_CTAS_PER_SM: u32 = 12;

    /// The table of the architecture the PTX is being built for (`--cfg mgpu_arch=...`,
    /// set by `cargo xtask ptx`); sm_90 elsewhere.
    #[cfg(mgpu_arch = "sm_70")]
    pub const ARCH_TABLE: Table = SM70;
    /// The table of the architecture the PTX is being built for (`--cfg mgpu_arch=...`,
    /// set by `cargo xtask ptx`); sm_90 elsewhere.
    #[cfg(not(mgpu_arch = "sm_70"))]
    pub const ARCH_TABLE: Table = SM90;
}

/// Entry names of kernel instantiations (implemented by the instance list).
pub trait EntryName {
    /// `loadbalance_search_<index type>`.
    const NAME: &'static str;
}

/// [`device::load_balance`] for `I` indices, `NT` threads of `VT` steps.
///
/// # Examples
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_loadbalance::kernels::Search<u32, 128, 11>;
/// assert_eq!(K::ENTRY, "loadbalance_search_u32");
/// ```
pub struct Search<I, const NT: usize, const VT: usize>(PhantomData<I>);

impl<I: Idx, const NT: usize, const VT: usize> Kernel for Search<I, NT, VT>
where
    Self: EntryName,
{
    type Args = LoadBalanceArgs<I>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = device::shared_bytes(core::mem::size_of::<I>(), NT, VT) as u32;
    const MIN_CTAS_PER_SM: u32 = tuning::MIN_CTAS_PER_SM;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, args: &LoadBalanceArgs<I>) {
        // SAFETY: the host launcher sizes every buffer as the body documents.
        unsafe { device::load_balance::<C, I, NT, VT>(cta, args) }
    }
}

/// An index type the load-balancing search is instantiated for: u32 and u64.
///
/// # Examples
///
/// ```
/// use mgpu_loadbalance::LoadBalanceIndex;
/// assert_eq!(<u64 as LoadBalanceIndex>::NV_SM90, 128 * 7);
/// ```
pub trait LoadBalanceIndex: Index + Idx + mgpu_partition::PartitionIndex {
    /// Merge steps per tile on sm_90.
    const NV_SM90: usize;
    /// Merge steps per tile on sm_70.
    const NV_SM70: usize;
    /// The sm_90 kernel.
    type Sm90: Kernel<Args = LoadBalanceArgs<Self>>;
    /// The sm_70 kernel.
    type Sm70: Kernel<Args = LoadBalanceArgs<Self>>;
}

/// Calls `$m!(type)` for every load-balancing search instantiation: the single list the
/// entry points (kernels-ptx/entries) and the host dispatch are generated from.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_loadbalance_instance {
    ($m:ident) => {
        $m!(u32);
        $m!(u64);
    };
}

/// The kernel type for `$t` with the `$table` tuning.
#[doc(hidden)]
#[macro_export]
macro_rules! loadbalance_kernel_type {
    ($t:ident, $table:ident) => {
        $crate::kernels::Search<
            $t,
            { $crate::kernels::tuning::$table.nt },
            { $crate::kernels::tuning::$table.vt(core::mem::size_of::<$t>()) },
        >
    };
}

/// The nvptx entry point of one instantiation, for the arch named by `mgpu_arch`.
#[doc(hidden)]
#[macro_export]
macro_rules! loadbalance_entries {
    ($t:ident) => {
        $crate::__paste::paste! {
            $crate::__core::kernel_entry!([<loadbalance_search_ $t>], $crate::loadbalance_kernel_type!($t, ARCH_TABLE));
        }
    };
}

macro_rules! names_and_dispatch {
    ($t:ident) => {
        impl<const NT: usize, const VT: usize> EntryName for Search<$t, NT, VT> {
            const NAME: &'static str = concat!("loadbalance_search_", stringify!($t));
        }
        impl LoadBalanceIndex for $t {
            const NV_SM90: usize = tuning::SM90.nt * tuning::SM90.vt(core::mem::size_of::<$t>());
            const NV_SM70: usize = tuning::SM70.nt * tuning::SM70.vt(core::mem::size_of::<$t>());
            type Sm90 = crate::loadbalance_kernel_type!($t, SM90);
            type Sm70 = crate::loadbalance_kernel_type!($t, SM70);
        }
    };
}

for_each_loadbalance_instance!(names_and_dispatch);
