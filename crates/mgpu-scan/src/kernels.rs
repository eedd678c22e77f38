//! The scan family's kernels as [`Kernel`](mgpu_core::Kernel) types, their tuning, and
//! the one list of instantiations that both the nvptx entry points and the host dispatch
//! are generated from.

use crate::device::{self, ScanArgs};
use core::mem::size_of;
use mgpu_core::{AssociativeOp, Element};

/// The name of the PTX module (family) every scan kernel lives in.
pub const MODULE: &str = "scan";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type). A value is one
/// input element, its width the element's size. `VT` is odd so thread-order shared-memory
/// accesses are free of bank conflicts.
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The single-pass scans (look-back and ordered look-back): 256 threads of 15 values on
    /// sm_90 (3840 values: 15 KiB for 4-byte types, 30 KiB for 8-byte ones), 11 (4-byte)
    /// or 5 (8-byte) on sm_70; built to fit 1536 threads per SM (40 registers a thread).
    /// 8-byte tiles stay in shared memory from their asynchronous loads to their stores,
    /// so the values a thread holds do not count against the registers: as many values as
    /// a 4-byte tile, so half the look-backs and twice the bytes in flight per SM of
    /// 1792-value tiles (docs/scan.md).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(mgpu_scan::kernels::tuning::SCAN.shape(Arch::Sm90).nv(4), 256 * 15);
    /// assert_eq!(mgpu_scan::kernels::tuning::SCAN.shape(Arch::Sm90).nv(8), 256 * 15);
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
            vt8: 15,
        },
        threads_per_sm4: 1536,
        threads_per_sm8: 1536,
    };

    /// The reduction kernel (`partials`, 32 registers): the scan's 4-byte tiles and 8-byte
    /// tiles of 7 values a thread on sm_90 (its loads go through registers), built to fit
    /// a full SM (2048 threads), so more 16-byte loads are in flight.
    ///
    /// ```
    /// assert_eq!(mgpu_scan::kernels::tuning::REDUCE.min_ctas_per_sm(4, 256), 8);
    /// ```
    pub const REDUCE: Tuning = Tuning {
        sm70: SCAN.sm70,
        sm90: Shape {
            nt: 256,
            vt4: 15,
            vt8: 7,
        },
        threads_per_sm4: 2048,
        threads_per_sm8: 2048,
    };
}

mgpu_core::kernel_types! {
    impl[T: Element, Op: AssociativeOp<T>] args: ScanArgs<T>, module: MODULE,
        width: size_of::<T>();
    /// [`device::lookback`]: single-pass scan with decoupled look-back (integers).
    pub struct Lookback { tuning: tuning::SCAN, shared: device::shared_bytes(size_of::<T>(), NT, VT), body: device::lookback }
    /// [`device::ordered`]: single-pass scan with an ordered look-back (floats).
    pub struct Ordered { tuning: tuning::SCAN, shared: device::shared_bytes(size_of::<T>(), NT, VT), body: device::ordered }
    /// [`device::partials`]: the reduction.
    pub struct Partials { tuning: tuning::REDUCE, shared: device::shared_bytes(size_of::<T>(), NT, VT), body: device::partials }
}

mgpu_core::kernel_set! {
    /// The kernels of one type/operator pair for one architecture.
    pub trait KernelSet<T> for ScanArgs<T> {
        /// The scan: [`Lookback`] (integers) or [`Ordered`] (floats).
        Scan,
        /// The reduction.
        Partials,
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
    /// Whether the scan is the decoupled look-back, whose association order depends on
    /// timing (exactly associative: integers); else the ordered look-back (floats), whose
    /// order depends only on the size and the tile shape.
    const LOOKBACK: bool;
    /// The sm_90 kernels.
    type Sm90: KernelSet<T>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<T>;
}

/// Elements per tile of the scan of `T` with `Op` on `arch`.
///
/// ```
/// use mgpu_core::{Arch, Plus};
/// assert_eq!(mgpu_scan::kernels::nv::<u32, Plus>(Arch::Sm90), 256 * 15);
/// assert_eq!(mgpu_scan::kernels::nv::<f64, Plus>(Arch::Sm70), 256 * 5);
/// ```
pub fn nv<T: Element, Op: ScanOp<T>>(arch: mgpu_core::Arch) -> usize {
    mgpu_core::by_arch!(arch, Op as ScanOp<T>, <KernelSet<T>>::Scan::NV) as usize
}

/// The single list of scan instantiations (every integer type with plus, multiplies,
/// maximum, minimum, bit_and, bit_or and bit_xor; every float type with the first four)
/// and their kernels: `for_each_scan_instance!(entries)` makes the nvptx entry points
/// (kernels-ptx/entries), `for_each_scan_instance!(host)` the entry names and the
/// [`ScanOp`] impls, both with [`mgpu_core::family_instance!`]. Integers scan with the
/// [`Lookback`] kernel, floats with the [`Ordered`] one.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_scan_instance {
    ($mode:ident) => {
        $crate::__core::for_each_integer!($crate::for_each_scan_instance!(
            @ops $mode, int,
            [Plus plus, Multiplies mul, Maximum max, Minimum min, BitAnd and, BitOr or, BitXor xor]
        ));
        $crate::__core::for_each_float!($crate::for_each_scan_instance!(
            @ops $mode, float, [Plus plus, Multiplies mul, Maximum max, Minimum min]
        ));
    };
    (@ops $mode:ident, $kind:ident, [$($op:ident $name:ident),+], $t:ident) => {
        $( $crate::for_each_scan_instance!(@instance $mode, $kind, $t, $op, $name); )+
    };
    (@instance $mode:ident, int, $t:ident, $op:ident, $name:ident) => {
        $crate::for_each_scan_instance!(@set $mode, $t, $op, $name, true, [Lookback scan_lookback SCAN],
            [Partials scan_partials REDUCE]);
    };
    (@instance $mode:ident, float, $t:ident, $op:ident, $name:ident) => {
        $crate::for_each_scan_instance!(@set $mode, $t, $op, $name, false, [Ordered scan_ordered SCAN],
            [Partials scan_partials REDUCE]);
    };
    (@set $mode:ident, $t:ident, $op:ident, $name:ident, $lookback:literal, $($slot:tt),+) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$t, $crate::__core::$op>, width: $t, name: [$t _ $name];
            impl ScanOp<$t> for $crate::__core::$op {
                $($slot),+;
                const LOOKBACK: bool = $lookback;
            }
        }
    };
}

for_each_scan_instance!(host);
