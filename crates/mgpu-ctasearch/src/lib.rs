//! # mgpu-ctasearch: searches and merges inside a tile
//!
//! Layer: **device blocks**. Depends on `mgpu-core` and `mgpu-loadstore` (its strided
//! copies); `no_std` on nvptx64. Everything here is `#[inline(always)]` and generic, so it
//! compiles into the kernels that use it (no `.extern .func` in the PTX), and register
//! arrays `[T; VT]` are indexed only by loop constants.
//!
//! What it holds (Modern GPU's `ctasearch.cuh`, `ctamerge.cuh`, `ctaloadbalance.cuh` and
//! the range helpers of `kernels/merge.cuh`, seeds 001, 003, 004):
//!
//! - [`binary_search`]: lower and upper bound over any [`Keys`] sequence with any
//!   [`Comparator`](mgpu_core::Comparator);
//! - [`merge_path`]: the Merge Path cross-diagonal search (lower and upper bound);
//! - [`binary_search_coop`], [`binary_search_coop_left`] and [`merge_path_coop`]: the same
//!   searches run by a group of 2 to 32 lanes of a warp, a few bisection levels per round
//!   of loads, bit for bit the serial result (for latency-bound searches in global memory);
//! - [`serial_merge`] / [`serial_merge_guarded`]: `VT` outputs of a merge with their
//!   source positions, without and with range checks;
//! - [`serial_load_balance_search`] / [`serial_load_balance_search_guarded`] and the CTA
//!   load-balancing search [`cta_load_balance`];
//! - [`compute_merge_range`], [`find_mergesort_frame`], [`find_mergesort_interval`] and
//!   [`blocksort_pass`]: the input ranges of a tile or thread from Merge Path partitions.
//!
//! Sequences are anything implementing [`Keys`]: raw pointers into global or shared
//! memory on the device, slices on the host, and [`Counting`] (the natural numbers).
//! Positions are an [`Idx`]: `u32` inside a tile, `u64` for global offsets. Bounds are
//! types ([`Lower`], [`Upper`]) or a run-time value ([`Bounds`]).
//!
//! The pure functions are tested on the host against plain definitions (a sequential
//! merge, `upper_bound - 1`) with proptest and the seeds' worked tables; the CTA search
//! runs in the `mgpu_core::sim` simulator.
//!
//! # Examples
//!
//! ```
//! use mgpu_core::Less;
//! use mgpu_ctasearch::{merge_path, serial_merge_guarded, Lower};
//! let a = [1u32, 3, 5, 7];
//! let b = [2u32, 3, 8];
//! // Split the 7 outputs of the merge at 4: how many come from A?
//! let mp = unsafe { merge_path(&a[..], 4u32, &b[..], 3, 4, Lower, Less) };
//! assert_eq!(mp, 2); // 1(a) 2(b) 3(a) 3(b) | 5 7 8: two of the first four from A
//! // Merge the rest from one array holding A then B (B starts at 4).
//! let keys = [1u32, 3, 5, 7, 2, 3, 8];
//! let (k, _): ([u32; 3], [u32; 3]) =
//!     unsafe { serial_merge_guarded(&keys[..], mp, 4, 4 + 4 - mp, 7, Less) };
//! assert_eq!(k, [5, 7, 8]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

mod coop;
mod idx;
mod interp;
mod kary;
mod keys;
mod lbs;
mod merge;
mod range;
mod search;

pub use coop::{binary_search_coop, binary_search_coop_left, merge_path_coop, COOP_MAX_LANES_LOG2};
pub use idx::Idx;
pub use interp::{
    interpolation_partition_point, interpolation_partition_point_from,
    interpolation_partition_point_rounds, interpolation_search, interpolation_search_left,
    interpolation_window, merge_path_interpolation, merge_path_interpolation_by,
    merge_path_interpolation_rounds, INTERPOLATION_WINDOW,
};
pub use kary::{binary_search_kary, kary_partition_point, merge_path_kary, KARY_MAX_LOG2};
pub use keys::{ArrayOrSequence, Counting, Keys};
pub use lbs::{
    chunk_tile, cta_load_balance, cta_load_balance_copy_async, cta_load_balance_partitions,
    cta_load_balance_search, cta_load_balance_shared_len, cta_object_tile_copy_async,
    cta_spill_object_tile, for_each_strided, load_balance_tile, object_tile_chunks,
    object_tile_errors, scan_decreases, serial_load_balance_search,
    serial_load_balance_search_guarded, LoadBalanceTile, ObjectTile, SpillList, CHUNK_WORDS,
    LOAD_ROWS,
};
pub use merge::{
    serial_merge, serial_merge_guarded, serial_merge_guarded_with, serial_merge_padded,
    serial_merge_padded_with, serial_merge_tile_with,
};
pub use range::{
    blocksort_pass, compute_merge_range, find_mergesort_frame, find_mergesort_interval,
    BlocksortPass, MergeRange, MergesortFrame,
};
pub use search::{binary_search, merge_path, Bounds, Lower, SearchBounds, Upper};
