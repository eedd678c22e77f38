//! # mgpu-merge: merge and mergesort (seed 004)
//!
//! Layer: **algorithms**. Device code depends on `mgpu-core`, `mgpu-ctasearch` (Merge
//! Path, the serial merges, the mergesort frames), `mgpu-loadstore` (tile transposes, the
//! merge-value transfer) and `mgpu-sortnetwork` (the odd-even transposition sort, and
//! Batcher's network for keys alone); the
//! host launchers on `mgpu-runtime` and `mgpu-partition` (the Merge Path partitions).
//!
//! | function | what it computes |
//! | --- | --- |
//! | [`merge_keys`], [`merge_keys_into`] | the stable merge of two sorted arrays (A first on equal keys) |
//! | [`merge_pairs`], [`merge_pairs_into`] | the same with a value per key, moved with it |
//! | [`mergesort_keys`] | the keys sorted in place, stably |
//! | [`mergesort_pairs`] | keys sorted in place, their values moved with them (the seeds' `MergesortPairs`, Thrust's `sort_by_key`) |
//! | [`mergesort_indices`] | keys sorted in place, and the permutation that sorts them |
//!
//! Comparators are [`Less`](mgpu_core::Less) (ascending) and
//! [`Greater`](mgpu_core::Greater) (descending) for every element type; floats are ordered
//! by IEEE totalOrder (`f64::total_cmp`: `-0.0` before `+0.0`, NaNs at the ends by sign),
//! the same on every backend. Values of pairs may be any element type (they are moved
//! as 4- or 8-byte bits). Sizes are `usize`, with 64-bit offsets inside.
//!
//! # How it sorts
//!
//! As the seed: a blocksort kernel sorts tiles of `NT * VT` keys (a sorting network in
//! each thread's registers, the odd-even transposition sort when values follow and
//! Batcher's for keys alone, then `log2(NT)` merge passes in shared
//! memory), then `ceil(log2(tiles))` global merge passes, each a Merge Path partition
//! kernel (`mgpu_partition::mergesort_partitions`) and a merge kernel in which `coop`
//! CTAs merge two sorted lists into one. The passes ping-pong between the caller's
//! buffer and a temporary, starting where the last pass lands in the caller's buffer. See
//! `docs/merge.md`.
//!
//! The CPU backend's versions are `mgpu_cpu`'s functions of the same names (rayon's
//! stable `par_sort_by`, the same results bit for bit).
//!
//! # Examples
//!
//! ```
//! use mgpu_core::Less;
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let mut keys = DeviceVec::from_slice(&dev, &[5i32, -1, 3, 3, 0]).unwrap();
//! mgpu_merge::mergesort_keys(keys.as_mut_slice(), Less).unwrap();
//! assert_eq!(keys.to_vec().unwrap(), vec![-1, 0, 3, 3, 5]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;

mgpu_core::family_crate!();

pub use kernels::MergeKernels;
