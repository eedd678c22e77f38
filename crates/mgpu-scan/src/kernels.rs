//! The scan family's kernels as [`Kernel`] types, their tuning, and the one list of
//! instantiations that both the nvptx entry points and the host dispatch are generated
//! from.

use crate::device::{self, ScanArgs};
use core::marker::PhantomData;
use mgpu_core::{AssociativeOp, Cta, Element, Kernel};

/// The name of the PTX module (family) every scan kernel lives in.
pub const MODULE: &str = "scan";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type). A value is one
/// input element, its width the element's size. `VT` is odd so thread-order shared-memory
/// accesses are free of bank conflicts.
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The look-back, spine and downsweep kernels: 256 threads of 15 (4-byte) or 7
    /// (8-byte) elements on sm_90, 11 or 5 on sm_70; built to fit 1536 threads per SM
    /// (40 registers a thread).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(mgpu_scan::kernels::tuning::SCAN.shape(Arch::Sm90).nv(4), 256 * 15);
    /// ```
    pub const SCAN: Tuning = Tuning {
        sm70: Shape {
            nt: 256,
            vt4: 11,
            vt8: 5,
        },
        sm90: Shape {
            nt: 256,
            vt4: 15,
            vt8: 7,
        },
        threads_per_sm4: 1536,
        threads_per_sm8: 1536,
    };

    /// The reduction kernel (`partials`, 32 registers): the scan's tiles, built to fit a
    /// full SM (2048 threads), so more 16-byte loads are in flight.
    ///
    /// ```
    /// assert_eq!(mgpu_scan::kernels::tuning::REDUCE.min_ctas_per_sm(4, 256), 8);
    /// ```
    pub const REDUCE: Tuning = SCAN.fitting(2048);
}

mgpu_core::kernel_type! {
    /// [`device::lookback`]: single-pass scan (integers).
    pub struct Lookback<T: Element, Op: AssociativeOp<T>>;
    args: ScanArgs<T>,
    module: MODULE,
    tuning: tuning::SCAN,
    width: core::mem::size_of::<T>(),
    shared: device::shared_bytes(core::mem::size_of::<T>(), NT, VT),
    body: device::lookback,
}
mgpu_core::kernel_type! {
    /// [`device::partials`]: per-CTA reductions.
    pub struct Partials<T: Element, Op: AssociativeOp<T>>;
    args: ScanArgs<T>,
    module: MODULE,
    tuning: tuning::REDUCE,
    width: core::mem::size_of::<T>(),
    shared: device::shared_bytes(core::mem::size_of::<T>(), NT, VT),
    body: device::partials,
}
mgpu_core::kernel_type! {
    /// [`device::spine`]: one-CTA scan of the partials.
    pub struct Spine<T: Element, Op: AssociativeOp<T>>;
    args: ScanArgs<T>,
    module: MODULE,
    tuning: tuning::SCAN,
    width: core::mem::size_of::<T>(),
    shared: device::shared_bytes(core::mem::size_of::<T>(), NT, VT),
    body: device::spine,
}
mgpu_core::kernel_type! {
    /// [`device::downsweep`]: per-CTA scans from the partials (floats).
    pub struct Downsweep<T: Element, Op: AssociativeOp<T>>;
    args: ScanArgs<T>,
    module: MODULE,
    tuning: tuning::SCAN,
    width: core::mem::size_of::<T>(),
    shared: device::shared_bytes(core::mem::size_of::<T>(), NT, VT),
    body: device::downsweep,
}

/// A kernel slot a type/operator pair does not use (floats have no look-back kernel,
/// integers no downsweep). Never launched; not in the PTX.
pub struct Unused<T>(PhantomData<T>);

impl<T: Element> Kernel for Unused<T> {
    type Args = ScanArgs<T>;
    const MODULE: &'static str = MODULE;
    const ENTRY: &'static str = "scan_unused";
    const NT: u32 = 32;
    const VT: u32 = 1;
    const SHARED_BYTES: u32 = 0;
    fn body<C: Cta>(_: &C, _: &ScanArgs<T>) {
        unreachable!("the scan host never launches an unused kernel slot")
    }
}

mgpu_core::kernel_set! {
    /// The kernels of one type/operator pair for one architecture (every kernel of a set
    /// has the same tile, `Partials::NV` values).
    pub trait KernelSet<T> for ScanArgs<T> {
        /// Single-pass scan, or [`Unused`].
        Lookback,
        /// Per-CTA reductions.
        Partials,
        /// One-CTA spine scan.
        Spine,
        /// Per-CTA downsweep, or [`Unused`].
        Downsweep,
    }
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

/// Elements per tile of the scan of `T` with `Op` on `arch` (every kernel of a set has the
/// same tile).
///
/// ```
/// use mgpu_core::{Arch, Plus};
/// assert_eq!(mgpu_scan::kernels::nv::<u32, Plus>(Arch::Sm90), 256 * 15);
/// assert_eq!(mgpu_scan::kernels::nv::<f64, Plus>(Arch::Sm70), 256 * 5);
/// ```
pub fn nv<T: Element, Op: ScanOp<T>>(arch: mgpu_core::Arch) -> usize {
    fn of<T: Element, S: KernelSet<T>>() -> usize {
        S::Partials::NV as usize
    }
    mgpu_core::by_arch!(arch, Op as ScanOp<T>, of::<T>())
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

/// The kernel type of `$kernel` for `$t`/`$op` at the shape of `$arch` (`Sm70`, `Sm90`,
/// `TARGET`).
#[doc(hidden)]
#[macro_export]
macro_rules! scan_kernel_type {
    ($kernel:ident, $tuning:ident, $t:ident, $op:ident, $arch:ident) => {
        $crate::__core::tuned!(
            $crate::kernels::$kernel<$t, $crate::__core::$op>,
            $crate::kernels::tuning::$tuning,
            $arch,
            ::core::mem::size_of::<$t>()
        )
    };
}

/// The nvptx entry points of one instantiation, for the arch named by `mgpu_arch`.
#[doc(hidden)]
#[macro_export]
macro_rules! scan_entries {
    (int, $t:ident, $op:ident, $name:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!([<scan_lookback_ $t _ $name>], $crate::scan_kernel_type!(Lookback, SCAN, $t, $op, TARGET));
            $crate::__core::kernel_entry!([<scan_partials_ $t _ $name>], $crate::scan_kernel_type!(Partials, REDUCE, $t, $op, TARGET));
            $crate::__core::kernel_entry!([<scan_spine_ $t _ $name>], $crate::scan_kernel_type!(Spine, SCAN, $t, $op, TARGET));
        }
    };
    (float, $t:ident, $op:ident, $name:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!([<scan_partials_ $t _ $name>], $crate::scan_kernel_type!(Partials, REDUCE, $t, $op, TARGET));
            $crate::__core::kernel_entry!([<scan_spine_ $t _ $name>], $crate::scan_kernel_type!(Spine, SCAN, $t, $op, TARGET));
            $crate::__core::kernel_entry!([<scan_downsweep_ $t _ $name>], $crate::scan_kernel_type!(Downsweep, SCAN, $t, $op, TARGET));
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
        impl<const NT: usize, const VT: usize> mgpu_core::EntryName for $k<$t, mgpu_core::$op, NT, VT> {
            const NAME: &'static str =
                concat!("scan_", stringify!($kname), "_", stringify!($t), "_", stringify!($name));
        }
    };
    (@set int, $t:ident, $op:ident) => {
        impl ScanOp<$t> for mgpu_core::$op {
            const LOOKBACK: bool = true;
            type Sm90 = names_and_dispatch!(@int_set $t, $op, Sm90);
            type Sm70 = names_and_dispatch!(@int_set $t, $op, Sm70);
        }
    };
    (@set float, $t:ident, $op:ident) => {
        impl ScanOp<$t> for mgpu_core::$op {
            const LOOKBACK: bool = false;
            type Sm90 = names_and_dispatch!(@float_set $t, $op, Sm90);
            type Sm70 = names_and_dispatch!(@float_set $t, $op, Sm70);
        }
    };
    (@int_set $t:ident, $op:ident, $arch:ident) => {
        Set<
            crate::scan_kernel_type!(Lookback, SCAN, $t, $op, $arch),
            crate::scan_kernel_type!(Partials, REDUCE, $t, $op, $arch),
            crate::scan_kernel_type!(Spine, SCAN, $t, $op, $arch),
            Unused<$t>,
        >
    };
    (@float_set $t:ident, $op:ident, $arch:ident) => {
        Set<
            Unused<$t>,
            crate::scan_kernel_type!(Partials, REDUCE, $t, $op, $arch),
            crate::scan_kernel_type!(Spine, SCAN, $t, $op, $arch),
            crate::scan_kernel_type!(Downsweep, SCAN, $t, $op, $arch),
        >
    };
}

for_each_scan_instance!(names_and_dispatch);
