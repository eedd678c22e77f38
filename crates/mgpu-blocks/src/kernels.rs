//! The `blocks` kernel family: small kernels that instantiate the device building blocks
//! (`mgpu-sortnetwork`'s sorting networks, `mgpu-loadstore`'s gather/scatter, interval copies,
//! guarded strided shared-memory copies and merge-value transfer, `mgpu-ctascan`'s
//! segmented reduction core and segmented tile scan, `mgpu-ctasearch`'s
//! Merge Path, serial merges and CTA load-balancing search) in PTX, so that
//! `cargo xtask ptx --check` sees each block compiled for sm_70 and sm_90 (registers,
//! no local memory) and the GPU tests run them. They are test and demonstration kernels,
//! not an algorithm API: each works tile by tile (`NT * VT` elements per CTA) with no
//! communication between tiles.
//!
//! The instance list [`for_each_blocks_instance!`](crate::for_each_blocks_instance) names
//! each entry point and its kernel type; `kernels-ptx/entries` makes the entry points from
//! it and the host wrappers (`host`, re-exported at the crate root) launch the same types.

use core::marker::PhantomData;
use mgpu_core::{AssociativeOp, Comparator, Cta, Element, EntryName};
use mgpu_ctascan::{
    cta_seg_scan_tile, seg_reduce_shared_bytes, seg_reduce_to_global, seg_scan_shared_bytes,
    ScanKind,
};
use mgpu_ctasearch as cs;
use mgpu_loadstore as ls;

/// The PTX module (family) of these kernels.
pub const MODULE: &str = "blocks";

/// Threads per CTA of every `blocks` kernel (both architectures: these kernels are not
/// tuned).
pub const NT: usize = 128;
/// Values per thread of every `blocks` kernel (odd: conflict-free thread-order transposes;
/// not a power of two: exercises the truncated Batcher network).
pub const VT: usize = 7;

/// The first element of tile `block` and the number of its elements (at most `nv`).
#[inline(always)]
fn tile<C: Cta>(cta: &C, nv: usize, count: u64) -> (usize, usize) {
    let start = cta.block() as usize * nv;
    (start, (count as usize - start).min(nv))
}

/// A `blocks` kernel: the kernel type `$name<params, NT, VT>` (with the doc comment given)
/// and its [`Kernel`](mgpu_core::Kernel) impl in [`MODULE`], `NT` threads of `VT` values,
/// one CTA per SM asked for, with the given arguments, shared bytes and body (as in
/// [`mgpu_core::kernel_impl!`]).
macro_rules! blocks_kernel {
    (
        $(#[$m:meta])*
        pub struct $name:ident<$($p:ident: $bound:path),+>;
        args: $args:ty,
        shared: $shared:expr;
        fn body<$c:ident>($cta:ident, $a:ident) $body:block
    ) => {
        $(#[$m])*
        pub struct $name<$($p,)+ const NT: usize, const VT: usize>(PhantomData<($($p,)+)>);

        mgpu_core::kernel_impl! {
            impl[$($p: $bound,)+ const NT: usize, const VT: usize] $name<$($p,)+ NT, VT>;
            args: $args, module: MODULE, nt: NT, vt: VT, shared: $shared, min_ctas: 1;
            fn body<$c>($cta, $a) $body
        }
    };
}

mod loadbalance;
mod merge;
mod movement;
mod segmented;
mod sort;

pub use loadbalance::*;
pub use merge::*;
pub use movement::*;
pub use segmented::*;
pub use sort::*;

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// Calls `$m!(entry_name, KernelType)` for every kernel of the `blocks` family: the one
/// list the entry points (`kernels-ptx/entries`) and the host wrappers use.
#[doc(hidden)]
#[macro_export]
macro_rules! for_each_blocks_instance {
    ($m:ident) => {
        $m!(blocks_sort_pairs_i32_less, $crate::kernels::SortPairs<i32, i32, $crate::__core::Less, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_batcher_keys_i32_less, $crate::kernels::BatcherKeys<i32, $crate::__core::Less, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_segreduce_i32_plus, $crate::kernels::SegReduce<i32, $crate::__core::Plus, { $crate::kernels::NT }, { $crate::kernels::VT }, false>);
        $m!(blocks_segreduce_f64_plus, $crate::kernels::SegReduce<f64, $crate::__core::Plus, { $crate::kernels::NT }, { $crate::kernels::VT }, true>);
        $m!(blocks_permute_i32, $crate::kernels::Permute<i32, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_merge_values_i64, $crate::kernels::MergeValues<i64, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_merge_keys_i32_less, $crate::kernels::MergeKeys<i32, $crate::__core::Less, { $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_load_balance_u32, $crate::kernels::LoadBalance<{ $crate::kernels::NT }, { $crate::kernels::VT }>);
        $m!(blocks_segscan_i32_plus, $crate::kernels::SegScan<i32, $crate::__core::Plus, { $crate::kernels::NT }, { $crate::kernels::VT }>);
    };
}

macro_rules! entry_name {
    ($name:ident, $k:ty) => {
        impl EntryName for $k {
            const NAME: &'static str = stringify!($name);
        }
    };
}
for_each_blocks_instance!(entry_name);
