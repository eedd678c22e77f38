//! The scan family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, ScanArgs};
use core::marker::PhantomData;
use mgpu_core::{AssociativeOp, Cta, Element, Kernel};

/// The name of the PTX module (family) every scan kernel lives in.
pub const MODULE: &str = "scan";

/// Launch shapes, one table per architecture (CUB's tuning policies, moderngpu's launch
/// box). `VT` is odd so thread-order shared-memory accesses are free of bank conflicts.
pub mod tuning {
    /// One architecture's shapes.
    #[derive(Clone, Copy, Debug)]
    pub struct Table {
        /// Threads per CTA of every scan kernel.
        pub nt: usize,
        /// Values per thread for 4-byte types.
        pub vt4: usize,
        /// Values per thread for 8-byte types.
        pub vt8: usize,
    }

    impl Table {
        /// Values per thread for an element of `words` 32-bit words.
        pub const fn vt(&self, words: usize) -> usize {
            if words == 1 {
                self.vt4
            } else {
                self.vt8
            }
        }
    }

    /// Hopper (sm_90): 256 threads, 15 (4-byte) or 7 (8-byte) values per thread.
    pub const SM90: Table = Table {
        nt: 256,
        vt4: 15,
        vt8: 7,
    };
    /// Volta to Ada (sm_70): 256 threads, 11 or 5 values per thread.
    pub const SM70: Table = Table {
        nt: 256,
        vt4: 11,
        vt8: 5,
    };

    /// Threads per SM the scan kernels are built to fit (`.minnctapersm`): 1536, which
    /// bounds them to 40 registers a thread.
    pub const THREADS_PER_SM: usize = 1536;

    /// Threads per SM the reduction kernel (`partials`, 32 registers) is built to fit: a
    /// full SM, so more 16-byte loads are in flight.
    pub const REDUCE_THREADS_PER_SM: usize = 2048;

    /// CTAs per SM every scan kernel of `nt` threads is built to fit.
    pub const fn min_ctas_per_sm(nt: usize) -> u32 {
        (THREADS_PER_SM / nt) as u32
    }

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
    /// `scan_<kernel>_<type>_<op>`.
    const NAME: &'static str;
}

macro_rules! kernel_type {
    ($(#[$m:meta])* $name:ident, $body:ident, $threads_per_sm:expr) => {
        $(#[$m])*
        pub struct $name<T, Op, const NT: usize, const VT: usize>(PhantomData<(T, Op)>);

        impl<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize> Kernel for $name<T, Op, NT, VT>
        where
            Self: EntryName,
        {
            type Args = ScanArgs<T>;
            const MODULE: &'static str = MODULE;
            const ENTRY: &'static str = <Self as EntryName>::NAME;
            const NT: u32 = NT as u32;
            const SHARED_BYTES: u32 = device::shared_bytes(core::mem::size_of::<T>(), NT, VT) as u32;
            const MIN_CTAS_PER_SM: u32 = ($threads_per_sm / NT) as u32;
            #[inline(always)]
            fn body<C: Cta>(cta: &C, args: &ScanArgs<T>) {
                // SAFETY: the host launcher sizes every buffer as the body documents.
                unsafe { device::$body::<C, T, Op, NT, VT>(cta, args) }
            }
        }
    };
}

kernel_type!(
    /// [`device::lookback`]: single-pass scan (integers).
    Lookback,
    lookback,
    tuning::THREADS_PER_SM
);
kernel_type!(
    /// [`device::partials`]: per-CTA reductions.
    Partials,
    partials,
    tuning::REDUCE_THREADS_PER_SM
);
kernel_type!(
    /// [`device::spine`]: one-CTA scan of the partials.
    Spine,
    spine,
    tuning::THREADS_PER_SM
);
kernel_type!(
    /// [`device::downsweep`]: per-CTA scans from the partials (floats).
    Downsweep,
    downsweep,
    tuning::THREADS_PER_SM
);

/// A kernel slot a type/operator pair does not use (floats have no look-back kernel,
/// integers no downsweep). Never launched; not in the PTX.
pub struct Unused<T>(PhantomData<T>);

impl<T: Element> Kernel for Unused<T> {
    type Args = ScanArgs<T>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = "scan_unused";
    const NT: u32 = 32;
    const SHARED_BYTES: u32 = 0;
    fn body<C: Cta>(_: &C, _: &ScanArgs<T>) {
        unreachable!("the scan host never launches an unused kernel slot")
    }
}

/// The kernels of one type/operator pair for one architecture.
pub trait KernelSet<T: Element> {
    /// Values per tile (`NT * VT`).
    const NV: usize;
    /// Single-pass scan, or [`Unused`].
    type Lookback: Kernel<Args = ScanArgs<T>>;
    /// Per-CTA reductions.
    type Partials: Kernel<Args = ScanArgs<T>>;
    /// One-CTA spine scan.
    type Spine: Kernel<Args = ScanArgs<T>>;
    /// Per-CTA downsweep, or [`Unused`].
    type Downsweep: Kernel<Args = ScanArgs<T>>;
}

/// A [`KernelSet`] from its parts.
pub struct Set<L, P, S, D, const NV: usize>(PhantomData<(L, P, S, D)>);

impl<T: Element, L, P, S, D, const NV: usize> KernelSet<T> for Set<L, P, S, D, NV>
where
    L: Kernel<Args = ScanArgs<T>>,
    P: Kernel<Args = ScanArgs<T>>,
    S: Kernel<Args = ScanArgs<T>>,
    D: Kernel<Args = ScanArgs<T>>,
{
    const NV: usize = NV;
    type Lookback = L;
    type Partials = P;
    type Spine = S;
    type Downsweep = D;
}

/// An operator the scan family has kernels for, with `T`: plus, multiplies, maximum and
/// minimum for every element type; bit_and, bit_or and bit_xor for integers. A pair
/// without kernels does not compile:
///
/// ```compile_fail
/// fn f(d: &mgpu_runtime::DeviceVec<f32, mgpu_runtime::Simulator>) {
///     let _ = mgpu_scan::reduce(d.as_slice(), mgpu_core::BitXor);
/// }
/// ```
///
/// # Examples
///
/// ```
/// use mgpu_scan::ScanOp;
/// assert!(<mgpu_core::Plus as ScanOp<u32>>::LOOKBACK);
/// assert!(!<mgpu_core::Plus as ScanOp<f32>>::LOOKBACK);
/// ```
pub trait ScanOp<T: Element>: AssociativeOp<T> {
    /// Whether the single-pass look-back scan is used (exactly associative: integers).
    const LOOKBACK: bool;
    /// The sm_90 kernels.
    type Sm90: KernelSet<T>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<T>;
}

/// Calls `$m!(kind, type, Op, op_name)` for every scan instantiation: the single list the
/// entry points (kernels-ptx/entries) and the host dispatch are generated from.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_scan_instance {
    ($m:ident) => {
        $crate::for_each_scan_instance!(@int $m, i32);
        $crate::for_each_scan_instance!(@int $m, u32);
        $crate::for_each_scan_instance!(@int $m, i64);
        $crate::for_each_scan_instance!(@int $m, u64);
        $crate::for_each_scan_instance!(@float $m, f32);
        $crate::for_each_scan_instance!(@float $m, f64);
    };
    (@int $m:ident, $t:ident) => {
        $m!(int, $t, Plus, plus);
        $m!(int, $t, Multiplies, mul);
        $m!(int, $t, Maximum, max);
        $m!(int, $t, Minimum, min);
        $m!(int, $t, BitAnd, and);
        $m!(int, $t, BitOr, or);
        $m!(int, $t, BitXor, xor);
    };
    (@float $m:ident, $t:ident) => {
        $m!(float, $t, Plus, plus);
        $m!(float, $t, Multiplies, mul);
        $m!(float, $t, Maximum, max);
        $m!(float, $t, Minimum, min);
    };
}

/// The kernel type of `$kernel` for `$t`/`$op` with the `$table` tuning.
#[doc(hidden)]
#[macro_export]
macro_rules! scan_kernel_type {
    ($kernel:ident, $t:ident, $op:ident, $table:ident) => {
        $crate::kernels::$kernel<
            $t,
            $crate::__core::$op,
            { $crate::kernels::tuning::$table.nt },
            { $crate::kernels::tuning::$table.vt(<$t as $crate::__core::Element>::WORDS) },
        >
    };
}

/// The nvptx entry points of one instantiation, for the arch named by `mgpu_arch`.
#[doc(hidden)]
#[macro_export]
macro_rules! scan_entries {
    (int, $t:ident, $op:ident, $name:ident) => {
        $crate::__paste::paste! {
            $crate::__core::kernel_entry!([<scan_lookback_ $t _ $name>], $crate::scan_kernel_type!(Lookback, $t, $op, ARCH_TABLE));
            $crate::__core::kernel_entry!([<scan_partials_ $t _ $name>], $crate::scan_kernel_type!(Partials, $t, $op, ARCH_TABLE));
            $crate::__core::kernel_entry!([<scan_spine_ $t _ $name>], $crate::scan_kernel_type!(Spine, $t, $op, ARCH_TABLE));
        }
    };
    (float, $t:ident, $op:ident, $name:ident) => {
        $crate::__paste::paste! {
            $crate::__core::kernel_entry!([<scan_partials_ $t _ $name>], $crate::scan_kernel_type!(Partials, $t, $op, ARCH_TABLE));
            $crate::__core::kernel_entry!([<scan_spine_ $t _ $name>], $crate::scan_kernel_type!(Spine, $t, $op, ARCH_TABLE));
            $crate::__core::kernel_entry!([<scan_downsweep_ $t _ $name>], $crate::scan_kernel_type!(Downsweep, $t, $op, ARCH_TABLE));
        }
    };
}

macro_rules! names_and_dispatch {
    ($kind:ident, $t:ident, $op:ident, $name:ident) => {
        names_and_dispatch!(@name Lookback, lookback, $t, $op, $name);
        names_and_dispatch!(@name Partials, partials, $t, $op, $name);
        names_and_dispatch!(@name Spine, spine, $t, $op, $name);
        names_and_dispatch!(@name Downsweep, downsweep, $t, $op, $name);
        names_and_dispatch!(@set $kind, $t, $op);
    };
    (@name $k:ident, $kname:ident, $t:ident, $op:ident, $name:ident) => {
        impl<const NT: usize, const VT: usize> EntryName for $k<$t, mgpu_core::$op, NT, VT> {
            const NAME: &'static str =
                concat!("scan_", stringify!($kname), "_", stringify!($t), "_", stringify!($name));
        }
    };
    (@set int, $t:ident, $op:ident) => {
        impl ScanOp<$t> for mgpu_core::$op {
            const LOOKBACK: bool = true;
            type Sm90 = names_and_dispatch!(@int_set $t, $op, SM90);
            type Sm70 = names_and_dispatch!(@int_set $t, $op, SM70);
        }
    };
    (@set float, $t:ident, $op:ident) => {
        impl ScanOp<$t> for mgpu_core::$op {
            const LOOKBACK: bool = false;
            type Sm90 = names_and_dispatch!(@float_set $t, $op, SM90);
            type Sm70 = names_and_dispatch!(@float_set $t, $op, SM70);
        }
    };
    (@int_set $t:ident, $op:ident, $table:ident) => {
        Set<
            crate::scan_kernel_type!(Lookback, $t, $op, $table),
            crate::scan_kernel_type!(Partials, $t, $op, $table),
            crate::scan_kernel_type!(Spine, $t, $op, $table),
            Unused<$t>,
            { tuning::$table.nt * tuning::$table.vt(<$t as Element>::WORDS) },
        >
    };
    (@float_set $t:ident, $op:ident, $table:ident) => {
        Set<
            Unused<$t>,
            crate::scan_kernel_type!(Partials, $t, $op, $table),
            crate::scan_kernel_type!(Spine, $t, $op, $table),
            crate::scan_kernel_type!(Downsweep, $t, $op, $table),
            { tuning::$table.nt * tuning::$table.vt(<$t as Element>::WORDS) },
        >
    };
}

for_each_scan_instance!(names_and_dispatch);
