//! # mgpu-bulk: bulk remove and bulk insert
//!
//! Layer: **algorithms**. Depends on `mgpu-core`, `mgpu-ctasearch` and `mgpu-ctascan`
//! (device), and on `mgpu-runtime` and `mgpu-partition` (host). `no_std` on nvptx64, where
//! only the kernel bodies exist.
//!
//! The seeds' BulkRemove and BulkInsert (Modern GPU page 003): fine-grained parallel array
//! surgery.
//!
//! | function | result |
//! | --- | --- |
//! | [`bulk_remove`] | `source` without the positions in `indices` (sorted, unique, in range) |
//! | [`bulk_insert`] | `source` with `values[k]` inserted before position `indices[k]` (sorted, `<= source.len()`) |
//!
//! Values with equal insert indices keep their order and come before the source element at
//! that index (the seed's lower-bound Merge Path). Remove is tiled by its indices (each
//! tile takes `K` consecutive indices and the source elements between its first and the
//! next tile's, so nothing is searched); insert is partitioned by
//! `mgpu_partition::merge_path_counting_partitions` (the lower-bound Merge Path of the
//! insert indices against the source positions `0, 1, 2, ...`, never materialised; see
//! `docs/bulk.md`). Values and indices may be device arrays
//! or generated sequences ([`Source`]; generated indices are checked on the host).
//!
//! Each function has an asynchronous `_into` form returning a [`Pending`](mgpu_runtime::Pending), and a safe
//! form that synchronises and reports invalid input as an [`Error`](mgpu_runtime::Error):
//! the checks run inside the kernels (indices unsorted, duplicated where they must be
//! unique, out of range) and no input makes a kernel touch memory outside its buffers.
//! CPU equivalents with the same semantics and messages: `mgpu_cpu::bulk_remove`,
//! `mgpu_cpu::bulk_insert`; backend-neutral: `mgpu::Backend::bulk_remove`/`bulk_insert`.
//!
//! - `device`: the kernel bodies; `kernels`: kernel types, tuning, the instantiation list;
//!   `host` (re-exported at the top): the launchers, generic over [`mgpu_runtime::Device`].
//!
//! # Examples
//!
//! The seed's comment example of BulkRemove, on the simulator (a CUDA `Context` works the
//! same):
//!
//! ```
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let source = DeviceVec::from_slice(&dev, &(0..10).collect::<Vec<i32>>()).unwrap();
//! let remove = DeviceVec::from_slice(&dev, &[1u32, 3, 4, 5, 7, 8]).unwrap();
//! let mut out = DeviceVec::<i32, _>::zeros(&dev, 4).unwrap();
//! mgpu_bulk::bulk_remove(source.as_slice(), remove.as_slice().into(), out.as_mut_slice()).unwrap();
//! assert_eq!(out.to_vec().unwrap(), vec![0, 2, 6, 9]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;

mgpu_core::family_crate!();

pub use kernels::BulkElement;
