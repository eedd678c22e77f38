//! The interval family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, IntervalArgs, Sequence};
use core::marker::PhantomData;
use core::mem::size_of;
use mgpu_core::{Arch, EntryName, Kernel};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) every interval kernel lives in.
///
/// ```
/// assert_eq!(mgpu_intervalmove::kernels::MODULE, "intervalmove");
/// ```
pub const MODULE: &str = "intervalmove";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type). A value is one
/// merge step (an output or an interval); the shapes do not depend on its width.
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The expand: 128 threads of 15 steps on sm_90 (a long tile amortises the Merge Path
    /// search; it needs little state per step), 7 on sm_70 (the seeds' shape); built to fit
    /// 1536 threads per SM (40 registers).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(mgpu_intervalmove::kernels::tuning::EXPAND.shape(Arch::Sm90).nv(4), 1920);
    /// ```
    pub const EXPAND: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape::uniform(128, 15),
        threads_per_sm4: 1536,
        threads_per_sm8: 1536,
    };

    /// Move, gather and scatter: 128 threads of 7 steps on both architectures (the move
    /// stages its tile's values in shared memory: a smaller tile fits more CTAs per SM; on
    /// an H100, mean-10 counts, i32, 11 took 4.78 / 5.57 times a copy at 2^24 / 2^27
    /// outputs, 7 took 4.42 to 4.62 / 5.47); built to fit 1536 threads per SM.
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(mgpu_intervalmove::kernels::tuning::MOVE.shape(Arch::Sm90).nv(8), 896);
    /// ```
    pub const MOVE: Tuning = Tuning::uniform(Shape::uniform(128, 7), 1536);

    /// The naive expand: one thread per interval, 128 threads, no occupancy bound
    /// (`.minnctapersm 1`).
    ///
    /// ```
    /// assert_eq!(mgpu_intervalmove::kernels::tuning::NAIVE.min_ctas_per_sm(4, 128), 1);
    /// ```
    pub const NAIVE: Tuning = Tuning::uniform(Shape::uniform(128, 1), 128);
}

mgpu_core::kernel_types! {
    impl[T: Sequence, I: Idx] args: IntervalArgs<T, I>, module: MODULE, width: size_of::<T>();
    /// [`device::expand`]: load-balanced interval expand.
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_intervalmove::kernels::Expand<i32, u32, 128, 7>;
    /// assert_eq!((K::ENTRY, K::NV), ("intervalmove_expand_i32_u32", 896));
    /// ```
    pub struct Expand {
        tuning: tuning::EXPAND,
        shared: device::shared_bytes(size_of::<I>(), NT, VT, 1, size_of::<T>()),
        body: device::expand,
    }
    /// [`device::interval_move`]: load-balanced interval move, gather and scatter.
    ///
    /// ```
    /// use mgpu_core::Kernel;
    /// type K = mgpu_intervalmove::kernels::Move<f64, u64, 128, 7>;
    /// assert_eq!(K::ENTRY, "intervalmove_move_f64_u64");
    /// ```
    pub struct Move {
        tuning: tuning::MOVE,
        shared: device::move_shared_bytes(size_of::<T>(), size_of::<I>(), NT, VT),
        body: device::interval_move,
    }
}

/// [`device::expand_naive`]: one thread per interval.
///
/// ```
/// use mgpu_core::Kernel;
/// type K = mgpu_intervalmove::kernels::Naive<u64, u32, 128>;
/// assert_eq!((K::ENTRY, K::SHARED_BYTES), ("intervalmove_naive_u64_u32", 0));
/// ```
pub struct Naive<T, I, const NT: usize>(PhantomData<(T, I)>);

mgpu_core::kernel_impl! {
    impl[T: Sequence, I: Idx, const NT: usize] Naive<T, I, NT>;
    args: IntervalArgs<T, I>, module: MODULE, nt: NT, vt: 1,
    shared: 0, min_ctas: tuning::NAIVE.min_ctas_per_sm(size_of::<T>(), NT);
    fn body<C>(cta, args) {
        // SAFETY: the host launcher sizes every buffer as the body documents.
        unsafe { device::expand_naive::<C, T, I, NT>(cta, args) }
    }
}

mgpu_core::kernel_set! {
    /// The kernels of one element/index pair for one architecture.
    ///
    /// ```
    /// use mgpu_intervalmove::{kernels::{Expand, KernelSet, Move, Set}, IntervalElement};
    /// use mgpu_core::Kernel;
    /// type S = <i32 as IntervalElement<u32>>::Sm90;
    /// assert_eq!((<S as KernelSet<i32, u32>>::Expand::NV, <S as KernelSet<i32, u32>>::Move::NV), (1920, 896));
    /// type T = Set<Expand<f32, u64, 64, 5>, Move<f32, u64, 64, 3>>;
    /// assert_eq!(<T as KernelSet<f32, u64>>::Move::NV, 192);
    /// ```
    pub trait KernelSet<T, I> for IntervalArgs<T, I> {
        /// The load-balanced expand.
        Expand,
        /// The load-balanced move/gather/scatter.
        Move,
    }
}

/// Merge steps per tile of the expand for `T`/`I` on `arch`.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_intervalmove::kernels::expand_nv::<i32, u32>(Arch::Sm70), 896);
/// ```
pub fn expand_nv<T: IntervalElement<I>, I>(arch: Arch) -> usize {
    mgpu_core::by_arch!(arch, T as IntervalElement<I>, <KernelSet<T, I>>::Expand::NV) as usize
}

/// Merge steps per tile of move, gather and scatter for `T`/`I` on `arch`.
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(mgpu_intervalmove::kernels::move_nv::<f64, u64>(Arch::Sm90), 896);
/// ```
pub fn move_nv<T: IntervalElement<I>, I>(arch: Arch) -> usize {
    mgpu_core::by_arch!(arch, T as IntervalElement<I>, <KernelSet<T, I>>::Move::NV) as usize
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

/// The single list of interval instantiations (every element type with u32 and u64
/// indices) and their kernels: `for_each_intervalmove_instance!(entries)` makes the nvptx
/// entry points (kernels-ptx/entries), `for_each_intervalmove_instance!(host)` the entry
/// names and the [`IntervalElement`] impls, both with [`mgpu_core::family_instance!`]; the
/// naive expand, untuned, is added to each.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_intervalmove_instance {
    ($mode:ident) => {
        $crate::__core::for_each_element!($crate::for_each_intervalmove_instance!(@instance $mode, u32));
        $crate::__core::for_each_element!($crate::for_each_intervalmove_instance!(@instance $mode, u64));
    };
    (@instance $mode:ident, $i:ident, $t:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$t, $i>, width: $t, name: [$t _ $i];
            impl IntervalElement<$i> for $t {
                [Expand intervalmove_expand EXPAND], [Move intervalmove_move MOVE];
                type Naive = $crate::for_each_intervalmove_instance!(@naive_type $t, $i);
            }
        }
        $crate::for_each_intervalmove_instance!(@naive $mode, $t, $i);
    };
    (@naive_type $t:ident, $i:ident) => {
        $crate::kernels::Naive<$t, $i, { $crate::kernels::tuning::NAIVE.sm90.nt }>
    };
    (@naive entries, $t:ident, $i:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!(
                [<intervalmove_naive_ $t _ $i>],
                $crate::for_each_intervalmove_instance!(@naive_type $t, $i)
            );
        }
    };
    (@naive host, $t:ident, $i:ident) => {
        impl<const NT: usize> EntryName for Naive<$t, $i, NT> {
            const NAME: &'static str =
                concat!("intervalmove_naive_", stringify!($t), "_", stringify!($i));
        }
    };
}

for_each_intervalmove_instance!(host);
