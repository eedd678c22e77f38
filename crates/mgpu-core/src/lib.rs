//! # mgpu-core: the base layer of mgpu
//!
//! Layer: **base**. Everything else in mgpu depends on this crate; it depends on nothing
//! of ours. It holds:
//!
//! - [`Cta`]: the abstraction device code is written against (thread and block ids,
//!   barrier, shared memory, warp vote and shuffles with member masks, grid-scope atomics
//!   and fences). Two implementations: `NvptxCta` on `nvptx64` (intrinsics and `asm!`)
//!   and, on the host, the coroutine simulator in [`sim`] that runs a CTA's threads on one
//!   OS thread.
//! - The seeds' operators as zero-sized types ([`Plus`], [`Maximum`], ...), the
//!   [`AssociativeOp`] trait for the ones reductions and scans accept, and comparators
//!   ([`Less`], [`Greater`], [`EqualTo`]).
//! - [`Element`] (i32, u32, i64, u64, f32, f64) and [`Index`] (u32, u64).
//! - [`Bounds`]: lower- or upper-bound search semantics as a run-time value, shared by the
//!   device searches, the partition launchers and the CPU partitions.
//! - [`Kernel`]: a kernel body with its entry name, module and launch shape, which the
//!   host runtime launches on the GPU by name and in the simulator by body, and the
//!   [`kernel_entry!`] macro that instantiates the `extern "ptx-kernel"` entry point.
//! - The family kit every algorithm crate declares its kernels with: one tuning type
//!   ([`Tuning`], [`Shape`]), [`EntryName`], [`kernel_type!`] (a kernel type and its
//!   `Kernel` impl; [`kernel_types!`] for several), [`kernel_impl!`] (the impl of a
//!   kernel written by hand), [`kernel_set!`] (a family's kernel set),
//!   [`family_instance!`] (one instance's entries or host impls; [`for_each_element!`]
//!   walks the element types), [`tuned!`] (an instance at an
//!   architecture's shape) and [`by_arch!`] (the host's one dispatch on the device's
//!   architecture); [`Source`], [`Violation`] and [`checks`], the shared concepts of the
//!   host APIs.
//!
//! Device code here is `no_std`; the simulator is host only.
//!
//! # Examples
//!
//! ```
//! use mgpu_core::{AssociativeOp, BinaryOp, Maximum, Plus};
//! assert_eq!(<Plus as BinaryOp<u32>>::apply(u32::MAX, 2), 1); // wrapping, as on the GPU
//! assert_eq!(<Maximum as AssociativeOp<i32>>::identity(), i32::MIN);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        asm_experimental_arch,
        stdarch_nvptx,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        link_llvm_intrinsics
    )
)]
// The device build needs the two internal features above (the PTX intrinsics); nightly
// warns about them on every build.
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

mod bounds;
#[cfg(not(target_arch = "nvptx64"))]
pub mod checks;
mod cta;
#[cfg(not(target_arch = "nvptx64"))]
mod error;
mod family;
mod kernel;
mod ops;
mod sequence;
pub mod status;
mod types;
#[cfg(not(target_arch = "nvptx64"))]
mod violation;
mod warp;

#[cfg(target_arch = "nvptx64")]
mod nvptx;
#[cfg(not(target_arch = "nvptx64"))]
pub mod sim;

pub use bounds::Bounds;
pub use cta::{load_read_only_or, load_streaming, load_streaming_or, Cta, WARP_SIZE};
#[cfg(not(target_arch = "nvptx64"))]
pub use error::{Error, Result};
pub use family::{EntryName, Shape, Tuning};
pub use kernel::{Arch, Kernel};
pub use ops::{
    AssociativeOp, BinaryOp, BitAnd, BitOr, BitXor, Comparator, EqualTo, Greater, Less, Mat2Mul,
    Maximum, Minimum, Minus, Modulus, Multiplies, OrderEstimate, Plus,
};
pub use sequence::{Sequence, Source};
pub use types::{Element, Index, Integer};
#[cfg(not(target_arch = "nvptx64"))]
pub use violation::Violation;
pub use warp::{shfl_down, shfl_idx, shfl_up, shfl_xor};

#[cfg(target_arch = "nvptx64")]
pub use nvptx::NvptxCta;

/// The `paste` macro, for the families' exported macros (entry names built from type
/// and operator names).
#[doc(hidden)]
pub use paste as __paste;

/// Everything public in this crate, under one path: `family_crate!` re-exports it as a
/// family's `__core`, the path the family's exported macros reach the kit through (a
/// module, because `use $crate as name` needs a newer compiler than our rust-version).
#[doc(hidden)]
pub mod __kit {
    pub use crate::*;
}

/// Marker re-exported so `kernel_entry!` expansions need no direct dependency on core.
#[doc(hidden)]
pub mod __private {
    #[cfg(target_arch = "nvptx64")]
    pub use crate::nvptx::NvptxCta;
}
