//! The segmented reduction's kernels as [`Kernel`](mgpu_core::Kernel) types, their
//! tuning, and the one list of instantiations that both the nvptx entry points and the
//! host dispatch are generated from.

use crate::device::{self, SegReduceArgs, Values};
use core::mem::size_of;
use mgpu_core::{AssociativeOp, Element};
use mgpu_ctasearch::Idx;

/// The name of the PTX module (family) every segmented reduction kernel lives in.
///
/// ```
/// assert_eq!(mgpu_segreduce::kernels::MODULE, "segreduce");
/// ```
pub const MODULE: &str = "segreduce";

/// Launch shapes (the kit's one [`Tuning`](mgpu_core::Tuning) type).
pub mod tuning {
    use mgpu_core::{Shape, Tuning};

    /// The tiles: a value is one merge step (a value or a segment start), its width the
    /// wider of the element and the index ([`Wider`](super::Wider)). 128 threads of 15
    /// steps (13 for 8-byte widths) on sm_90, 7 on sm_70; built to fit 1536 threads per SM
    /// for 4-byte widths and 1024 for 8-byte ones. 4-byte elements with u64 segment starts
    /// spilled 16 to 24 bytes in the 4-byte shape; in the 8-byte one they take 4 to 9 %
    /// less time on an H200 at 2^24 (i32, segments of mean 10 and 1000). On an H100 at
    /// 2^27, segments of mean 10: 11 steps took 1.48 times a copy for i32 and 2.27 for
    /// f64, 15 and 11 steps 1.33 and 1.95; 19 steps at 1024 threads 1.41 for i32. On an
    /// H200 at 2^27, f64 mean 1000, 11, 13 and 15 steps took 1.19, 1.11-1.13 and 1.23
    /// copies (docs/segreduce.md).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_segreduce::kernels::tuning::TILES;
    /// assert_eq!((t.shape(Arch::Sm90).nv(4), t.shape(Arch::Sm90).nv(8)), (1920, 1664));
    /// ```
    pub const TILES: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape {
            nt: 128,
            vt4: 15,
            vt8: 13,
        },
        threads_per_sm4: 1536,
        threads_per_sm8: 1024,
    };

    /// SpMV's tiles: 128 threads of 5 steps for 4-byte widths and 7 for 8-byte ones on
    /// sm_90 (7 on sm_70), 1024 threads an SM (64 registers), the width the wider of
    /// the element and the column index ([`Wider`](super::Wider)). A thread issues all
    /// its gathers and matrix values before its first product (predicated loads,
    /// [`crate::device::Values::value_or`]), so each step holds its column, its gathered
    /// value and its matrix value at once. At 9 steps for every width (before), the
    /// kernels with u64 columns or 8-byte integers spilled 4 to 64 bytes; at 7 none
    /// does but three 4-byte spills, at 5 none. On an H200, three rounds in one
    /// process, 9 / 7 / 5 steps, copy ratios at 2^24: f64 4.18-4.31 / 3.95-4.04 /
    /// 3.97-4.11, f32 3.82-3.94 / 3.85-3.95 / 3.68-3.73, f64 with u64 indices 4.63-4.89 /
    /// 4.19-4.27 / 4.15-4.22 (2^27 11.1 / 8.7 / 8.8), i64 4.23-4.36 / 3.91-4.03 /
    /// 4.09-4.21; f64 and f32 at 2^27 within 1 % (docs/segreduce.md). Longer tiles lost
    /// before: f64 took 8.9 copies at 11 steps, 9.8 at 13 and 9.9 at 15 (2^27, gathers
    /// then issued one round trip apart), and 4-byte values at 15 steps and 1536
    /// threads spilled 80 to 128 bytes. A [`crate::SegReducePlan`] makes partitions for
    /// each shape it meets.
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_segreduce::kernels::tuning::SPMV;
    /// assert_eq!((t.shape(Arch::Sm90).nv(4), t.shape(Arch::Sm90).nv(8)), (640, 896));
    /// ```
    pub const SPMV: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape {
            nt: 128,
            vt4: 5,
            vt8: 7,
        },
        threads_per_sm4: 1024,
        threads_per_sm8: 1024,
    };

    /// The spine: a value is one tile of [`TILES`]; 256 threads of one tile each, so a
    /// CTA joins 256 tiles. Its threads fold their tiles serially (a read-modify-write of
    /// a result each), so it is latency-bound: on an H100 at 2^24, 8 tiles a thread (5
    /// CTAs in all) took 12 us of a 68 us reduction.
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(mgpu_segreduce::kernels::tuning::SPINE.shape(Arch::Sm90).nv(8), 256);
    /// ```
    pub const SPINE: Tuning = Tuning::uniform(Shape::uniform(256, 1), 1024);

    /// A warp a segment ([`crate::warps::warp_segments`]) and a warp a piece of the longer
    /// ones ([`crate::warps::long_segments`]): 256 threads, each lane
    /// holding 16 values in flight for 4-byte widths and 8 for 8-byte ones, 2048 threads
    /// an SM (32 registers). On an H200, segments of mean 1000, the whole call took
    /// 0.62-0.67 / 0.50 copies for i32 and 1.06-1.11 / 0.97-0.98 for f64 at 2^24 / 2^27,
    /// about the bound (docs/segreduce.md).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_segreduce::kernels::tuning::WARPS;
    /// assert_eq!((t.shape(Arch::Sm90).nv(4), t.shape(Arch::Sm90).nv(8)), (4096, 2048));
    /// ```
    pub const WARPS: Tuning = Tuning {
        sm70: Shape::uniform(256, 8),
        sm90: Shape {
            nt: 256,
            vt4: 16,
            vt8: 8,
        },
        threads_per_sm4: 2048,
        threads_per_sm8: 2048,
    };

    /// Reduce-by-key's passes ([`crate::rbk`]): a value is one item. The passes over the
    /// keys and over the values must cut the same tiles whatever the key and value
    /// widths, so both widths take the same shape: 128 threads of 11 items on sm_90, 7 on
    /// sm_70; 16 CTAs an SM with 4-byte keys or values (32 registers: on an H200 at 2^27
    /// the heads pass ran at 81 % of DRAM's bandwidth with 12 CTAs an SM and 85 % with
    /// 16).
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// let t = mgpu_segreduce::kernels::tuning::RBK;
    /// assert_eq!((t.shape(Arch::Sm90).nv(4), t.shape(Arch::Sm90).nv(8)), (1408, 1408));
    /// ```
    pub const RBK: Tuning = Tuning {
        sm70: Shape::uniform(128, 7),
        sm90: Shape::uniform(128, 11),
        threads_per_sm4: 2048,
        threads_per_sm8: 1024,
    };
}

/// Reduce-by-key's passes over the keys ([`crate::rbk::rbk_heads`],
/// [`crate::rbk::rbk_keys`]), per key type and comparator.
pub mod rbk_keys {
    pub use super::tuning;
    use crate::rbk::{self, RbkKeysArgs};
    use core::mem::size_of;
    use mgpu_core::{Comparator, Element};

    mgpu_core::kernel_types! {
        impl[K: Element, Eq: Comparator<K>] args: RbkKeysArgs<K>, module: super::MODULE,
            width: size_of::<K>();
        /// [`rbk::rbk_heads`].
        ///
        /// ```
        /// use mgpu_core::{EqualTo, Kernel};
        /// type K = mgpu_segreduce::kernels::rbk_keys::Heads<f32, EqualTo, 128, 11>;
        /// assert_eq!((K::ENTRY, K::NV), ("segreduce_rbk_heads_f32_eq", 1408));
        /// ```
        pub struct Heads {
            tuning: tuning::RBK,
            shared: rbk::heads_shared_bytes(NT, VT, size_of::<K>()),
            body: rbk::rbk_heads,
        }
        /// [`rbk::rbk_keys`].
        ///
        /// ```
        /// use mgpu_core::{EqualTo, Kernel};
        /// type K = mgpu_segreduce::kernels::rbk_keys::Keys<u64, EqualTo, 128, 11>;
        /// assert_eq!(K::ENTRY, "segreduce_rbk_keys_u64_eq");
        /// ```
        pub struct Keys {
            tuning: tuning::RBK,
            shared: 0,
            body: rbk::rbk_keys,
        }
    }

    mgpu_core::kernel_set! {
        /// The key passes of one key type and comparator for one architecture.
        ///
        /// ```
        /// use mgpu_core::{EqualTo, Kernel};
        /// use mgpu_segreduce::kernels::{rbk_keys::KernelSet, RbkKey};
        /// type S = <EqualTo as RbkKey<i32>>::Sm90;
        /// assert_eq!(<S as KernelSet<i32>>::Heads::NV, 1408);
        /// ```
        pub trait KernelSet<K> for RbkKeysArgs<K> {
            /// Pass 1, the heads.
            Heads,
            /// Pass 3, the head keys to their runs.
            Keys,
        }
    }
}

/// Reduce-by-key's pass over the values ([`crate::rbk::rbk_reduce`]) and the segmented
/// reduction's spine, per value type and operator.
pub mod rbk_values {
    pub use super::tuning;
    use crate::device::SegReduceArgs;
    use crate::rbk;
    use core::mem::size_of;
    use mgpu_core::{AssociativeOp, Element};

    mgpu_core::kernel_types! {
        impl[T: Element, Op: AssociativeOp<T>] args: SegReduceArgs<T, u64>, module: super::MODULE,
            width: size_of::<T>();
        /// [`rbk::rbk_reduce`].
        ///
        /// ```
        /// use mgpu_core::{Kernel, Plus};
        /// type K = mgpu_segreduce::kernels::rbk_values::Reduce<i32, Plus, 128, 11>;
        /// assert_eq!(K::ENTRY, "segreduce_rbk_i32_plus");
        /// ```
        pub struct Reduce {
            tuning: tuning::RBK,
            shared: rbk::reduce_shared_bytes(NT, VT, size_of::<T>()),
            body: rbk::rbk_reduce,
        }
    }

    mgpu_core::kernel_set! {
        /// The value pass and spine of one value type and operator for one architecture.
        ///
        /// ```
        /// use mgpu_core::{Kernel, Maximum};
        /// use mgpu_segreduce::kernels::{rbk_values::KernelSet, RbkOp};
        /// type S = <Maximum as RbkOp<f64>>::Sm90;
        /// assert_eq!(<S as KernelSet<f64>>::Reduce::ENTRY, "segreduce_rbk_f64_max");
        /// ```
        pub trait KernelSet<T> for SegReduceArgs<T, u64> {
            /// Pass 4, the values.
            Reduce,
            /// The spine.
            Spine,
        }
    }
}

/// The segmented reduction a warp a segment ([`crate::warps`]), per element, index and
/// operator.
pub mod by_warp {
    pub use super::tuning;
    use super::Wider;
    use crate::device::SegReduceArgs;
    use crate::warps;
    use core::mem::size_of;
    use mgpu_core::{AssociativeOp, Element};
    use mgpu_ctasearch::Idx;

    mgpu_core::kernel_types! {
        impl[T: Element, I: Idx, Op: AssociativeOp<T>] args: SegReduceArgs<T, I>,
            module: super::MODULE, width: size_of::<Wider<T, I>>();
        /// [`warps::warp_segments`].
        ///
        /// ```
        /// use mgpu_core::{Kernel, Plus};
        /// type K = mgpu_segreduce::kernels::by_warp::Warps<f64, u32, Plus, 256, 8>;
        /// assert_eq!(K::ENTRY, "segreduce_warps_f64_u32_plus");
        /// ```
        pub struct Warps {
            tuning: tuning::WARPS,
            shared: 0,
            body: warps::warp_segments,
        }
        /// [`warps::long_segments`]: the warps' shape (a lane's values in flight, `VT`),
        /// whose `NV` is not the pieces' length ([`warps::PIECE`] is).
        ///
        /// ```
        /// use mgpu_core::{Kernel, Plus};
        /// type K = mgpu_segreduce::kernels::by_warp::Long<i32, u64, Plus, 256, 8>;
        /// assert_eq!((K::ENTRY, K::SHARED_BYTES), ("segreduce_long_i32_u64_plus", 0));
        /// ```
        pub struct Long {
            tuning: tuning::WARPS,
            shared: 0,
            body: warps::long_segments,
        }
    }

    mgpu_core::kernel_set! {
        /// The warps and the long segments' kernel of one element/index/operator triple
        /// for one architecture.
        ///
        /// ```
        /// use mgpu_core::{Kernel, Plus};
        /// use mgpu_segreduce::kernels::{by_warp::KernelSet, WarpOp};
        /// type S = <Plus as WarpOp<i32, u32>>::Sm90;
        /// type L = <S as KernelSet<i32, u32>>::Long;
        /// assert_eq!((L::NT, L::VT, L::MIN_CTAS_PER_SM), (256, 16, 8));
        /// ```
        pub trait KernelSet<T, I> for SegReduceArgs<T, I> {
            /// The warps.
            Warps,
            /// The long segments' pieces (a dependent launch).
            Long,
        }
    }
}

/// The operators the segmented reduction reduces a warp a segment ([`crate::warps`]):
/// every [`SegReduceOp`].
///
/// ```
/// fn takes<Op: mgpu_segreduce::kernels::WarpOp<f64, u32>>(_: Op) {}
/// takes(mgpu_core::Plus);
/// ```
pub trait WarpOp<T: Element, I>: AssociativeOp<T> {
    /// The sm_90 kernels.
    type Sm90: by_warp::KernelSet<T, I>;
    /// The sm_70 kernels.
    type Sm70: by_warp::KernelSet<T, I>;
}

/// A key type and comparator reduce-by-key has kernels for: every element type with
/// [`EqualTo`](mgpu_core::EqualTo) (`==`: a NaN key is a run of its own).
///
/// # Examples
///
/// ```
/// fn takes<Eq: mgpu_segreduce::kernels::RbkKey<f64>>(_: Eq) {}
/// takes(mgpu_core::EqualTo);
/// ```
pub trait RbkKey<K: Element>: mgpu_core::Comparator<K> {
    /// The sm_90 kernels.
    type Sm90: rbk_keys::KernelSet<K>;
    /// The sm_70 kernels.
    type Sm70: rbk_keys::KernelSet<K>;
}

/// An operator reduce-by-key has kernels for, with values `T`: the same as
/// [`SegReduceOp`]'s.
///
/// # Examples
///
/// ```
/// fn takes<Op: mgpu_segreduce::kernels::RbkOp<u64>>(_: Op) {}
/// takes(mgpu_core::Mat2Mul);
/// ```
pub trait RbkOp<T: Element>: AssociativeOp<T> {
    /// The sm_90 kernels.
    type Sm90: rbk_values::KernelSet<T>;
    /// The sm_70 kernels.
    type Sm70: rbk_values::KernelSet<T>;
}

/// The width that picks the tiles' shape ([`tuning::TILES`], [`tuning::SPMV`]): a type as
/// large as the wider of the element `T` and the index `I`, so that 4-byte elements with
/// u64 segment starts (or SpMV columns) take the 8-byte shape (their 4-byte shape spilled
/// registers).
///
/// ```
/// use core::mem::size_of;
/// use mgpu_segreduce::kernels::Wider;
/// assert_eq!((size_of::<Wider<i32, u32>>(), size_of::<Wider<f32, u64>>()), (4, 8));
/// assert_eq!(size_of::<Wider<f64, u32>>(), 8);
/// ```
#[derive(Clone, Copy)]
pub union Wider<T: Copy, I: Copy> {
    /// The element.
    pub element: T,
    /// The index.
    pub index: I,
}

mgpu_core::kernel_types! {
    impl[T: Element, I: Idx, Op: AssociativeOp<T>] args: SegReduceArgs<T, I>, module: MODULE,
        width: size_of::<Wider<T, I>>();
    /// [`device::seg_reduce_tiles`].
    ///
    /// ```
    /// use mgpu_core::{Kernel, Plus};
    /// type K = mgpu_segreduce::kernels::Tiles<f64, u32, Plus, 128, 7>;
    /// assert_eq!((K::ENTRY, K::NV), ("segreduce_tiles_f64_u32_plus", 896));
    /// ```
    pub struct Tiles {
        tuning: tuning::TILES,
        shared: device::tiles_shared_bytes(NT, VT, size_of::<T>(), size_of::<I>()),
        body: device::seg_reduce_tiles,
    }
    /// [`device::indirect_tiles`]: the tiles reading each segment's values from its source.
    ///
    /// ```
    /// use mgpu_core::{Kernel, Plus};
    /// type K = mgpu_segreduce::kernels::IndirectTiles<i32, u32, Plus, 128, 15>;
    /// assert_eq!(K::ENTRY, "segreduce_indirect_i32_u32_plus");
    /// ```
    pub struct IndirectTiles {
        tuning: tuning::TILES,
        shared: device::tiles_shared_bytes(NT, VT, size_of::<T>(), size_of::<I>()),
        body: device::indirect_tiles,
    }
    /// [`device::spine`].
    ///
    /// ```
    /// use mgpu_core::{Kernel, Plus};
    /// type K = mgpu_segreduce::kernels::Spine<u64, u32, Plus, 256, 1>;
    /// assert_eq!((K::ENTRY, K::NV), ("segreduce_spine_u64_u32_plus", 256));
    /// ```
    pub struct Spine {
        tuning: tuning::SPINE,
        shared: device::spine_shared_bytes(NT, size_of::<T>()),
        body: device::spine,
    }
}

mgpu_core::kernel_type! {
    /// [`device::spmv_tiles`]: the tiles over SpMV's products
    /// ([`SpmvBinary`](device::SpmvBinary)) or gathered vector values
    /// ([`SpmvUnary`](device::SpmvUnary)); the spine is the segmented reduction's.
    ///
    /// ```
    /// use mgpu_core::{Kernel, Plus};
    /// use mgpu_segreduce::device::SpmvUnary;
    /// type K = mgpu_segreduce::kernels::SpmvTiles<f32, u64, Plus, SpmvUnary, 128, 15>;
    /// assert_eq!(K::ENTRY, "segreduce_spmv_unary_f32_u64");
    /// ```
    pub struct SpmvTiles<T: Element, I: Idx, Op: AssociativeOp<T>, V: Values<T, I>>;
    args: SegReduceArgs<T, I>,
    module: MODULE,
    tuning: tuning::SPMV,
    width: size_of::<Wider<T, I>>(),
    shared: device::tiles_shared_bytes(NT, VT, size_of::<T>(), size_of::<I>()),
    body: device::spmv_tiles,
}

mgpu_core::kernel_set! {
    /// The kernels of one element/index/operator triple for one architecture.
    ///
    /// ```
    /// use mgpu_core::{Kernel, Plus};
    /// use mgpu_segreduce::kernels::KernelSet;
    /// type S = <Plus as mgpu_segreduce::SegReduceOp<i32, u32>>::Sm90;
    /// assert_eq!(<S as KernelSet<i32, u32>>::Tiles::NV, 1920);
    /// ```
    pub trait KernelSet<T, I> for SegReduceArgs<T, I> {
        /// The tiles.
        Tiles,
        /// The spine (one launch with more than one tile).
        Spine,
    }
}

/// An operator the segmented reduction has kernels for, with elements `T` and indices
/// `I` (u32, u64): plus, multiplies, maximum and minimum for every element type; bit_and,
/// bit_or and bit_xor for integers; the 2x2 matrix product
/// [`Mat2Mul`](mgpu_core::Mat2Mul) for u64. A triple without kernels does not compile:
///
/// ```compile_fail
/// fn f(d: &mgpu_runtime::DeviceVec<f32, mgpu_runtime::Simulator>,
///      c: &mgpu_runtime::DeviceVec<u32, mgpu_runtime::Simulator>,
///      o: &mut mgpu_runtime::DeviceVec<f32, mgpu_runtime::Simulator>) {
///     let _ = mgpu_segreduce::seg_reduce_csr(d.as_slice(), c.as_slice(), o.as_mut_slice(), mgpu_core::BitXor);
/// }
/// ```
///
/// # Examples
///
/// ```
/// fn takes<Op: mgpu_segreduce::SegReduceOp<f64, u64>>(_: Op) {}
/// takes(mgpu_core::Minimum);
/// ```
pub trait SegReduceOp<T: Element, I>: WarpOp<T, I> {
    /// The sm_90 kernels.
    type Sm90: KernelSet<T, I>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<T, I>;
}

/// The SpMV forms the segmented reduction has kernels for, with elements `T` (every
/// element type) and indices `I` (u32, u64): [`SpmvBinary`](device::SpmvBinary) (matrix
/// values times the gathered vector values) and [`SpmvUnary`](device::SpmvUnary) (the
/// gathered vector values alone), summed per row, and their indirect forms
/// ([`SpmvIndirectBinary`](device::SpmvIndirectBinary),
/// [`SpmvIndirectUnary`](device::SpmvIndirectUnary): each row's nonzeros at its source). Their kernel sets share the spine with [`SegReduceOp`]'s `Plus`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Kernel;
/// use mgpu_segreduce::{device::SpmvBinary, kernels::{KernelSet, SpmvForm}};
/// type S = <SpmvBinary as SpmvForm<f64, u32>>::Sm90;
/// assert_eq!(<S as KernelSet<f64, u32>>::Tiles::ENTRY, "segreduce_spmv_binary_f64_u32");
/// ```
pub trait SpmvForm<T: Element, I>: Values<T, I> {
    /// The sm_90 kernels.
    type Sm90: KernelSet<T, I>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<T, I>;
}

/// A semiring `(Mul, Add)` for CSR SpMV (seed 002's `SpmvCsrBinary` with its `mul` and
/// `add` operators): `output[r]` is `Add` over row `r`'s nonzeros of
/// `Mul(matrix[k], vec[cols[k]])`, `Add`'s identity for an empty row.
///
/// ```
/// use mgpu_core::{Minimum, Plus};
/// let min_plus = mgpu_segreduce::kernels::Semiring(Plus, Minimum);
/// assert_eq!(format!("{min_plus:?}"), "Semiring(Plus, Minimum)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Semiring<Mul, Add>(pub Mul, pub Add);

/// The SpMV semirings with kernels, for elements `T` and indices `I` (u32, u64): min-plus
/// (`Semiring(Plus, Minimum)`, shortest paths) and max-plus (`Semiring(Plus, Maximum)`,
/// longest paths, bottlenecks) for every element type, or-and (`Semiring(BitAnd, BitOr)`,
/// reachability) for the integers. The plain product is [`SpmvForm`]'s.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Kernel, Maximum, Plus};
/// use mgpu_segreduce::kernels::{KernelSet, Semiring, SpmvSemiring};
/// type S = <Semiring<Plus, Maximum> as SpmvSemiring<f32, u64>>::Sm90;
/// assert_eq!(<S as KernelSet<f32, u64>>::Tiles::ENTRY, "segreduce_spmv_maxplus_f32_u64");
/// ```
pub trait SpmvSemiring<T: Element, I> {
    /// The sm_90 kernels.
    type Sm90: KernelSet<T, I>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<T, I>;
}

/// An operator the indirect segmented reduction has kernels for: the same as
/// [`SegReduceOp`]'s, sharing its spine.
///
/// # Examples
///
/// ```
/// fn takes<Op: mgpu_segreduce::kernels::IndirectOp<u64, u64>>(_: Op) {}
/// takes(mgpu_core::Mat2Mul);
/// ```
pub trait IndirectOp<T: Element, I>: AssociativeOp<T> {
    /// The sm_90 kernels.
    type Sm90: KernelSet<T, I>;
    /// The sm_70 kernels.
    type Sm70: KernelSet<T, I>;
}

/// Merge steps (values plus segment starts) per tile of the segmented reduction for
/// `T`/`I`/`Op` on `arch`.
///
/// ```
/// use mgpu_core::{Arch, Plus};
/// assert_eq!(mgpu_segreduce::kernels::nv::<i32, u32, Plus>(Arch::Sm90), 1920);
/// assert_eq!(mgpu_segreduce::kernels::nv::<f64, u64, Plus>(Arch::Sm70), 896);
/// ```
pub fn nv<T: Element, I, Op: SegReduceOp<T, I>>(arch: mgpu_core::Arch) -> usize {
    mgpu_core::by_arch!(arch, Op as SegReduceOp<T, I>, <KernelSet<T, I>>::Tiles::NV) as usize
}

/// The single list of segmented reduction instantiations (u32 and u64 indices; every
/// integer type with plus, multiplies, maximum, minimum, bit_and, bit_or and bit_xor;
/// every float type with the first four; u64 with the 2x2 matrix product
/// [`Mat2Mul`](mgpu_core::Mat2Mul), which is not commutative) and their kernels:
/// `for_each_segreduce_instance!(entries)` makes the nvptx entry points
/// (kernels-ptx/entries), `for_each_segreduce_instance!(host)` the entry names and the
/// [`SegReduceOp`] impls, both with [`mgpu_core::family_instance!`].
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_segreduce_instance {
    ($mode:ident) => {
        $crate::for_each_segreduce_instance!(@index $mode, u32);
        $crate::for_each_segreduce_instance!(@index $mode, u64);
        $crate::__core::for_each_element!($crate::for_each_segreduce_instance!(@rbk_key $mode));
        $crate::__core::for_each_integer!($crate::for_each_segreduce_instance!(
            @rbk_ops $mode,
            [Plus plus, Multiplies mul, Maximum max, Minimum min, BitAnd and, BitOr or, BitXor xor]
        ));
        $crate::__core::for_each_float!($crate::for_each_segreduce_instance!(
            @rbk_ops $mode, [Plus plus, Multiplies mul, Maximum max, Minimum min]
        ));
        $crate::for_each_segreduce_instance!(@rbk_ops $mode, [Mat2Mul mat2mul], u64);
    };
    (@rbk_key $mode:ident, $k:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels::rbk_keys<$k, $crate::__core::EqualTo>, width: $k, name: [$k _ eq];
            impl RbkKey<$k> for $crate::__core::EqualTo {
                [Heads segreduce_rbk_heads RBK], [Keys segreduce_rbk_keys RBK];
            }
        }
    };
    (@rbk_ops $mode:ident, [$($op:ident $name:ident),+], $t:ident) => {
        $(
            $crate::__core::family_instance! {
                $mode $crate::kernels::rbk_values<$t, $crate::__core::$op>, width: $t,
                    name: [$t _ $name];
                impl RbkOp<$t> for $crate::__core::$op {
                    [Reduce segreduce_rbk RBK],
                    (<<$crate::__core::$op as SegReduceOp<$t, u64>>::Sm90
                        as KernelSet<$t, u64>>::Spine);
                }
            }
        )+
    };
    (@index $mode:ident, $i:ident) => {
        $crate::__core::for_each_integer!($crate::for_each_segreduce_instance!(
            @ops $mode, $i,
            [Plus plus, Multiplies mul, Maximum max, Minimum min, BitAnd and, BitOr or, BitXor xor]
        ));
        $crate::__core::for_each_float!($crate::for_each_segreduce_instance!(
            @ops $mode, $i, [Plus plus, Multiplies mul, Maximum max, Minimum min]
        ));
        $crate::for_each_segreduce_instance!(@ops $mode, $i, [Mat2Mul mat2mul], u64);
        $crate::__core::for_each_element!($crate::for_each_segreduce_instance!(@spmv $mode, $i));
        $crate::__core::for_each_integer!($crate::for_each_segreduce_instance!(@orand $mode, $i));
    };
    (@spmv $mode:ident, $i:ident, $t:ident) => {
        $crate::for_each_segreduce_instance!(@form $mode, $i, $t, SpmvBinary, segreduce_spmv_binary);
        $crate::for_each_segreduce_instance!(@form $mode, $i, $t, SpmvUnary, segreduce_spmv_unary);
        $crate::for_each_segreduce_instance!(
            @form $mode, $i, $t, SpmvIndirectBinary, segreduce_spmv_indirect_binary
        );
        $crate::for_each_segreduce_instance!(
            @form $mode, $i, $t, SpmvIndirectUnary, segreduce_spmv_indirect_unary
        );
        $crate::for_each_segreduce_instance!(@semiring $mode, $i, $t, Plus, Minimum, segreduce_spmv_minplus);
        $crate::for_each_segreduce_instance!(@semiring $mode, $i, $t, Plus, Maximum, segreduce_spmv_maxplus);
    };
    (@orand $mode:ident, $i:ident, $t:ident) => {
        $crate::for_each_segreduce_instance!(@semiring $mode, $i, $t, BitAnd, BitOr, segreduce_spmv_orand);
    };
    (@semiring $mode:ident, $i:ident, $t:ident, $mul:ident, $add:ident, $entry:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$t, $i, $crate::__core::$add,
                $crate::device::SpmvWith<$crate::__core::$mul>>,
                width: $crate::kernels::Wider<$t, $i>, name: [$t _ $i];
            impl SpmvSemiring<$t, $i>
                for $crate::kernels::Semiring<$crate::__core::$mul, $crate::__core::$add> {
                [SpmvTiles $entry SPMV],
                ($crate::__core::tuned!(
                    $crate::kernels::Spine<$t, $i, $crate::__core::$add>,
                    $crate::kernels::tuning::SPINE, Sm90, ::core::mem::size_of::<$t>()
                ));
            }
        }
    };
    (@form $mode:ident, $i:ident, $t:ident, $form:ident, $entry:ident) => {
        $crate::__core::family_instance! {
            $mode $crate::kernels<$t, $i, $crate::__core::Plus, $crate::device::$form>,
                width: $crate::kernels::Wider<$t, $i>, name: [$t _ $i];
            impl SpmvForm<$t, $i> for $crate::device::$form {
                [SpmvTiles $entry SPMV],
                ($crate::__core::tuned!(
                    $crate::kernels::Spine<$t, $i, $crate::__core::Plus>,
                    $crate::kernels::tuning::SPINE, Sm90, ::core::mem::size_of::<$t>()
                ));
            }
        }
    };
    (@ops $mode:ident, $i:ident, [$($op:ident $name:ident),+], $t:ident) => {
        $(
            $crate::__core::family_instance! {
                $mode $crate::kernels<$t, $i, $crate::__core::$op>,
                    width: $crate::kernels::Wider<$t, $i>, name: [$t _ $i _ $name];
                impl SegReduceOp<$t, $i> for $crate::__core::$op {
                    [Tiles segreduce_tiles TILES], [Spine segreduce_spine SPINE];
                }
            }
            $crate::__core::family_instance! {
                $mode $crate::kernels::by_warp<$t, $i, $crate::__core::$op>,
                    width: $crate::kernels::Wider<$t, $i>, name: [$t _ $i _ $name];
                impl WarpOp<$t, $i> for $crate::__core::$op {
                    [Warps segreduce_warps WARPS], [Long segreduce_long WARPS];
                }
            }
            $crate::for_each_segreduce_instance!(@indirect $mode, $i, $t, $op, $name);
        )+
    };
    (@indirect entries, $i:ident, $t:ident, $op:ident, $name:ident) => {
        $crate::__core::__paste::paste! {
            $crate::__core::kernel_entry!(
                [<segreduce_indirect_ $t _ $i _ $name>],
                $crate::__core::tuned!(
                    $crate::kernels::IndirectTiles<$t, $i, $crate::__core::$op>,
                    $crate::kernels::tuning::TILES, TARGET,
                    ::core::mem::size_of::<$crate::kernels::Wider<$t, $i>>()
                )
            );
        }
    };
    (@indirect host, $i:ident, $t:ident, $op:ident, $name:ident) => {
        impl<const NT: usize, const VT: usize> $crate::__core::EntryName
            for $crate::kernels::IndirectTiles<$t, $i, $crate::__core::$op, NT, VT>
        {
            const NAME: &'static str = concat!(
                "segreduce_indirect_", stringify!($t), "_", stringify!($i), "_", stringify!($name)
            );
        }
        impl IndirectOp<$t, $i> for $crate::__core::$op {
            type Sm90 = $crate::for_each_segreduce_instance!(@iset Sm90, $t, $i, $op);
            type Sm70 = $crate::for_each_segreduce_instance!(@iset Sm70, $t, $i, $op);
        }
    };
    (@iset $arch:ident, $t:ident, $i:ident, $op:ident) => {
        $crate::kernels::Set<
            $crate::__core::tuned!(
                $crate::kernels::IndirectTiles<$t, $i, $crate::__core::$op>,
                $crate::kernels::tuning::TILES, $arch,
                ::core::mem::size_of::<$crate::kernels::Wider<$t, $i>>()
            ),
            <<$crate::__core::$op as SegReduceOp<$t, $i>>::Sm90 as KernelSet<$t, $i>>::Spine,
        >
    };
}

for_each_segreduce_instance!(host);
