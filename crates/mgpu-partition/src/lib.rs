//! # mgpu-partition: global partitioning
//!
//! Layer: **partitioning**. Depends on `mgpu-core` and `mgpu-ctasearch` (device), and on
//! `mgpu-runtime` on the host only; `no_std` on nvptx64, where only the kernel bodies
//! exist.
//!
//! The coarse half of Modern GPU's two-level scheduling (seeds 001 to 004): before an
//! algorithm's kernel runs, one search per tile boundary finds in global memory where tile
//! `i` starts, so every tile then gets exactly its share of the work. Each search is run by
//! a group of 1 to 32 lanes of a warp ([`partition_lanes_log2`] picks the size), which
//! probe several levels of the bisection per round of loads
//! ([`mgpu_ctasearch::merge_path_coop`]), or, for the integer-keyed partitions, by one
//! lane that interpolates (the counting partitions) or probes `K - 1` positions a round
//! ([`partition_kary_log2`], [`mgpu_ctasearch::merge_path_kary`]): a partition kernel has
//! few searches of `log2(n)` dependent loads each, so it is bound by memory latency until
//! there are enough searches for their traffic to count.
//!
//! | launcher | seed name | entry `i` |
//! | --- | --- | --- |
//! | [`merge_path_partitions`] | `MergePathPartitions<Bounds>` | A start of tile `i` of a merge (lower or upper bound) |
//! | [`mergesort_partitions`] | same, with `coop` | A start of tile `i` in its mergesort pass' merge |
//! | [`binary_search_partitions`] | `BinarySearchPartitions<Bounds>` | bound of `nv * i` in a sorted index array |
//! | [`csr_partitions`] | `PartitionCsrSegReduce` | row of element `nv * i`, plus the continuation flag |
//! | [`load_balance_partitions`] | `MergePathPartitions<MgpuBoundsUpper>` on `counting_iterator` | first work item of tile `i` |
//! | [`merge_path_counting_partitions`] | `MergePathPartitions<Bounds>` of indices against `counting_iterator` | indices (array or [`IndexSource::Sequence`]) before tile `i` (Bulk Insert) |
//!
//! - `device`: the kernel bodies (generic over [`Cta`](mgpu_core::Cta)) and their
//!   `#[repr(C)]` arguments.
//! - `kernels`: the kernels as types, `NT`, and the instance list
//!   `for_each_partition_instance!` that the PTX entries and the host dispatch share.
//! - the host launchers (re-exported at the top), generic over
//!   [`mgpu_runtime::Device`].
//!
//! Partitions are `u64`, `ceil(n / nv) + 1` of them, whatever the index type of the data:
//! see [`CSR_CONTINUATION`] for the CSR flag's encoding. The CPU equivalents are in
//! `mgpu_cpu::partition` (for the counting partitions, its `merge_path_partitions` with the
//! positions `0..count` materialised); `docs/partition.md` explains each partition with the seeds'
//! worked examples.
//!
//! # Examples
//!
//! ```
//! use mgpu_core::Less;
//! use mgpu_ctasearch::Bounds;
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let a = DeviceVec::from_slice(&dev, &[0u64, 2, 4, 6, 8]).unwrap();
//! let b = DeviceVec::from_slice(&dev, &[1u64, 3, 5]).unwrap();
//! let mp = mgpu_partition::merge_path_partitions(a.as_slice(), b.as_slice(), 4, Bounds::Lower, Less).unwrap();
//! assert_eq!(mp.to_vec().unwrap(), vec![0, 2, 5]); // 0 1 2 3 | 4 5 6 8
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;

mgpu_core::family_crate!();

pub use device::{csr_limit_continues, csr_limit_row, CSR_CONTINUATION, INTERPOLATE, KARY_SHIFT};
pub use kernels::{MergeComparator, PartitionIndex};
