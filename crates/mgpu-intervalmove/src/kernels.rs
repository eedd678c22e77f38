//! The interval family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, IntervalArgs, Sequence};
use core::marker::PhantomData;
use mgpu_core::{Cta, Kernel};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) every interval kernel lives in.
///
/// ```
/// assert_eq!(mgpu_intervalmove::kernels::MODULE, "intervalmove");
/// ```
pub const MODULE: &str = "intervalmove";

/// Launch shapes, one table per architecture (the seeds' launch box).
pub mod tuning {
    /// One architecture's shapes.
    ///
    /// ```
    /// let t = mgpu_intervalmove::kernels::tuning::SM90;
    /// assert_eq!((t.nt * t.vt_expand, t.nt * t.vt_move), (1920, 896));
    /// ```
    #[derive(Clone, Copy, Debug)]
    pub struct Table {
        /// Threads per CTA of the load-balanced kernels.
        pub nt: usize,
        /// Merge steps (outputs plus intervals) per thread of the expand.
        pub vt_expand: usize,
        /// Merge steps per thread of move, gather and scatter.
        pub vt_move: usize,
    }
    /// Hopper (sm_90): 128 threads; 15 steps per thread for the expand (a long tile
    /// amortises the Merge Path search; it needs little state per step), 7 for the move
    /// (which stages its tile's values in shared memory: a smaller tile fits more CTAs per
    /// SM; on an H100, mean-10 counts, i32, 11 took 4.78 / 5.57 times a copy at 2^24 /
    /// 2^27 outputs, 7 took 4.42 to 4.62 / 5.47).
    pub const SM90: Table = Table {
        nt: 128,
        vt_expand: 15,
        vt_move: 7,
    };
    /// Volta to Ada (sm_70): 128 threads, 7 steps per thread (the seeds' shape).
    pub const SM70: Table = Table {
        nt: 128,
        vt_expand: 7,
        vt_move: 7,
    };
    /// Threads per CTA of the naive expand.
    pub const NAIVE_NT: usize = 128;
    /// Threads per SM the expand is built to fit (`.minnctapersm`; 40 registers).
    pub const EXPAND_THREADS_PER_SM: usize = 1536;
    /// Threads per SM move, gather and scatter are built to fit (40 registers).
    pub const MOVE_THREADS_PER_SM: usize = 1536;

    /// The table of the architecture the PTX is being built for (`--cfg mgpu_arch=...`).
    #[cfg(mgpu_arch = "sm_70")]
    pub const ARCH_TABLE: Table = SM70;
    /// The table of the architecture the PTX is being built for (`--cfg mgpu_arch=...`).
    #[cfg(not(mgpu_arch = "sm_70"))]
    pub const ARCH_TABLE: Table = SM90;
}

/// Entry names of kernel instantiations (implemented by the instance list).
///
/// ```
/// use mgpu_intervalmove::kernels::{EntryName, Naive};
/// assert_eq!(<Naive<f32, u64, 128> as EntryName>::NAME, "intervalmove_naive_f32_u64");
/// ```
pub trait EntryName {
    /// `intervalmove_<kernel>_<type>_<index>`.
    const NAME: &'static str;
}

/// [`device::expand`]: load-balanced interval expand.
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_intervalmove::kernels::Expand<i32, u32, 128, 7>;
/// assert_eq!(K::ENTRY, "intervalmove_expand_i32_u32");
/// ```
pub struct Expand<T, I, const NT: usize, const VT: usize>(PhantomData<(T, I)>);
/// [`device::interval_move`]: load-balanced interval move, gather and scatter.
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_intervalmove::kernels::Move<f64, u64, 128, 7>;
/// assert_eq!(K::ENTRY, "intervalmove_move_f64_u64");
/// ```
pub struct Move<T, I, const NT: usize, const VT: usize>(PhantomData<(T, I)>);
/// [`device::expand_naive`]: one thread per interval.
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_intervalmove::kernels::Naive<u64, u32, 128>;
/// assert_eq!((K::ENTRY, K::SHARED_BYTES), ("intervalmove_naive_u64_u32", 0));
/// ```
pub struct Naive<T, I, const NT: usize>(PhantomData<(T, I)>);

macro_rules! lbs_kernel {
    ($name:ident, $body:ident, $shared:ident, $threads:ident) => {
        impl<T: Sequence, I: Idx, const NT: usize, const VT: usize> Kernel for $name<T, I, NT, VT>
        where
            Self: EntryName,
        {
            type Args = IntervalArgs<T, I>;
            const MODULE: &'static str = MODULE;
            const ENTRY: &'static str = <Self as EntryName>::NAME;
            const NT: u32 = NT as u32;
            const SHARED_BYTES: u32 =
                $shared(core::mem::size_of::<T>(), core::mem::size_of::<I>(), NT, VT) as u32;
            const MIN_CTAS_PER_SM: u32 = (tuning::$threads / NT) as u32;
            #[inline(always)]
            fn body<C: Cta>(cta: &C, args: &Self::Args) {
                // SAFETY: the host launcher sizes every buffer as the body documents.
                unsafe { device::$body::<C, T, I, NT, VT>(cta, args) }
            }
        }
    };
}
/// Shared bytes of the expand from (element bytes, index bytes, NT, VT).
const fn expand_shared(t: usize, i: usize, nt: usize, vt: usize) -> usize {
    device::shared_bytes(i, nt, vt, 1, t)
}
/// Shared bytes of the move from (element bytes, index bytes, NT, VT).
const fn move_shared(t: usize, i: usize, nt: usize, vt: usize) -> usize {
    device::move_shared_bytes(t, i, nt, vt)
}
lbs_kernel!(Expand, expand, expand_shared, EXPAND_THREADS_PER_SM);
lbs_kernel!(Move, interval_move, move_shared, MOVE_THREADS_PER_SM);

impl<T: Sequence, I: Idx, const NT: usize> Kernel for Naive<T, I, NT>
where
    Self: EntryName,
{
    type Args = IntervalArgs<T, I>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = <Self as EntryName>::NAME;
    const NT: u32 = NT as u32;
    const SHARED_BYTES: u32 = 0;
    #[inline(always)]
    fn body<C: Cta>(cta: &C, args: &Self::Args) {
        // SAFETY: the host launcher sizes every buffer as the body documents.
        unsafe { device::expand_naive::<C, T, I, NT>(cta, args) }
    }
}

/// The kernels of one element/index pair for one architecture.
///
/// ```
/// use mgpu_intervalmove::{kernels::KernelSet, IntervalElement};
/// type S = <i32 as IntervalElement<u32>>::Sm90;
/// assert_eq!((S::NV_EXPAND, S::NV_MOVE), (1920, 896));
/// ```
pub trait KernelSet<T, I> {
    /// Merge steps per tile of the expand (`NT * VT`).
    const NV_EXPAND: usize;
    /// Merge steps per tile of move, gather and scatter.
    const NV_MOVE: usize;
    /// The load-balanced expand.
    type Expand: Kernel<Args = IntervalArgs<T, I>>;
    /// The load-balanced move/gather/scatter.
    type Move: Kernel<Args = IntervalArgs<T, I>>;
}

/// A [`KernelSet`] from its parts.
///
/// ```
/// use mgpu_intervalmove::kernels::{Expand, KernelSet, Move, Set};
/// type S = Set<Expand<f32, u64, 64, 5>, Move<f32, u64, 64, 3>, 320, 192>;
/// assert_eq!(<S as KernelSet<f32, u64>>::NV_MOVE, 192);
/// ```
pub struct Set<E, M, const NV_EXPAND: usize, const NV_MOVE: usize>(PhantomData<(E, M)>);

impl<T, I, E, M, const NVE: usize, const NVM: usize> KernelSet<T, I> for Set<E, M, NVE, NVM>
where
    E: Kernel<Args = IntervalArgs<T, I>>,
    M: Kernel<Args = IntervalArgs<T, I>>,
{
    const NV_EXPAND: usize = NVE;
    const NV_MOVE: usize = NVM;
    type Expand = E;
    type Move = M;
}

/// An element type with interval kernels for index type `I` (every [`Element`] with u32 and
/// u64).
///
/// [`Element`]: mgpu_core::Element
///
/// # Examples
///
/// ```
/// use mgpu_intervalmove::IntervalElement;
/// fn takes<T: IntervalElement<u64>>(_: T) {}
/// takes(1.5f32);
/// ```
pub trait IntervalElement<I>: Sequence {
    /// The sm_90 kernels.
    type Sm90: KernelSet<Self, I>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<Self, I>;
    /// The naive expand.
    type Naive: Kernel<Args = IntervalArgs<Self, I>>;
}

/// Calls `$m!(type, index)` for every interval instantiation: the single list the entry
/// points (kernels-ptx/entries) and the host dispatch are generated from.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_intervalmove_instance {
    ($m:ident) => {
        $m!(i32, u32);
        $m!(u32, u32);
        $m!(i64, u32);
        $m!(u64, u32);
        $m!(f32, u32);
        $m!(f64, u32);
        $m!(i32, u64);
        $m!(u32, u64);
        $m!(i64, u64);
        $m!(u64, u64);
        $m!(f32, u64);
        $m!(f64, u64);
    };
}

/// The nvptx entry points of one instantiation, for the arch named by `mgpu_arch`.
#[doc(hidden)]
#[macro_export]
macro_rules! intervalmove_entries {
    ($t:ident, $i:ident) => {
        $crate::__paste::paste! {
            $crate::__core::kernel_entry!([<intervalmove_expand_ $t _ $i>], $crate::kernels::Expand<$t, $i, { $crate::kernels::tuning::ARCH_TABLE.nt }, { $crate::kernels::tuning::ARCH_TABLE.vt_expand }>);
            $crate::__core::kernel_entry!([<intervalmove_move_ $t _ $i>], $crate::kernels::Move<$t, $i, { $crate::kernels::tuning::ARCH_TABLE.nt }, { $crate::kernels::tuning::ARCH_TABLE.vt_move }>);
            $crate::__core::kernel_entry!([<intervalmove_naive_ $t _ $i>], $crate::kernels::Naive<$t, $i, { $crate::kernels::tuning::NAIVE_NT }>);
        }
    };
}

macro_rules! names_and_dispatch {
    ($t:ident, $i:ident) => {
        impl<const NT: usize, const VT: usize> EntryName for Expand<$t, $i, NT, VT> {
            const NAME: &'static str =
                concat!("intervalmove_expand_", stringify!($t), "_", stringify!($i));
        }
        impl<const NT: usize, const VT: usize> EntryName for Move<$t, $i, NT, VT> {
            const NAME: &'static str =
                concat!("intervalmove_move_", stringify!($t), "_", stringify!($i));
        }
        impl<const NT: usize> EntryName for Naive<$t, $i, NT> {
            const NAME: &'static str =
                concat!("intervalmove_naive_", stringify!($t), "_", stringify!($i));
        }
        impl IntervalElement<$i> for $t {
            type Sm90 = Set<
                Expand<$t, $i, { tuning::SM90.nt }, { tuning::SM90.vt_expand }>,
                Move<$t, $i, { tuning::SM90.nt }, { tuning::SM90.vt_move }>,
                { tuning::SM90.nt * tuning::SM90.vt_expand },
                { tuning::SM90.nt * tuning::SM90.vt_move },
            >;
            type Sm70 = Set<
                Expand<$t, $i, { tuning::SM70.nt }, { tuning::SM70.vt_expand }>,
                Move<$t, $i, { tuning::SM70.nt }, { tuning::SM70.vt_move }>,
                { tuning::SM70.nt * tuning::SM70.vt_expand },
                { tuning::SM70.nt * tuning::SM70.vt_move },
            >;
            type Naive = Naive<$t, $i, { tuning::NAIVE_NT }>;
        }
    };
}

for_each_intervalmove_instance!(names_and_dispatch);
