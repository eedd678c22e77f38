//! # mgpu-sortnetwork: sorting networks on a thread's registers
//!
//! Layer: **device blocks**. The networks depend on `mgpu-core` only (for
//! [`Comparator`]); `no_std` on nvptx64. They are plain functions (not generic over `Cta`)
//! that sort one thread's `[K; VT]`, tested directly on the host.
//!
//! The `blocks` test kernels that put these networks (and the other device blocks) into
//! PTX live in `mgpu-blocks`.
//!
//! - [`odd_even_transpose_sort_keys`], [`odd_even_transpose_sort_pairs`] and
//!   [`odd_even_transpose_sort_flags`]: the odd-even transposition sort of seed 004, which
//!   blocksort runs on each thread's `VT` keys before the merge passes. `VT (VT - 1) / 2`
//!   comparisons, **stable** for a strict comparator; the `_flags` form sorts segments
//!   marked by head flags independently (segmented sort).
//! - [`odd_even_merge_sort_keys`] and [`odd_even_merge_sort_pairs`]: Batcher's odd-even
//!   merge sort network, `O(VT log² VT)` comparisons, not stable.
//!
//! Every loop bound is a constant, so after unrolling (`cargo xtask ptx` builds with a high
//! unroll threshold) each array index is a constant and the arrays stay in registers; each
//! compare-and-swap becomes two selects per array.
//!
//! # Examples
//!
//! ```
//! use mgpu_core::Less;
//! use mgpu_sortnetwork::{odd_even_merge_sort_keys, odd_even_transpose_sort_pairs};
//! let mut keys = [3, 1, 2, 1];
//! let mut vals = [0, 1, 2, 3];
//! odd_even_transpose_sort_pairs::<_, _, Less, 4>(&mut keys, &mut vals);
//! assert_eq!((keys, vals), ([1, 1, 2, 3], [1, 3, 2, 0]));
//! let mut k = [9u64, 4, 7, 1, 8];
//! odd_even_merge_sort_keys::<_, Less, 5>(&mut k);
//! assert_eq!(k, [1, 4, 7, 8, 9]);
//! ```
//!
//! [`Comparator`]: mgpu_core::Comparator
#![cfg_attr(target_arch = "nvptx64", no_std)]

mod batcher;
mod transpose;

pub use batcher::{
    odd_even_merge_sort_comparators, odd_even_merge_sort_keys, odd_even_merge_sort_pairs,
};
pub use transpose::{
    odd_even_transpose_sort_flags, odd_even_transpose_sort_keys, odd_even_transpose_sort_pairs,
};

#[cfg(test)]
mod tests;
