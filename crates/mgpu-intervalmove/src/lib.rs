//! # mgpu-intervalmove: interval expand, move, gather and scatter
//!
//! Layer: **algorithms**. Depends on `mgpu-core`, `mgpu-ctasearch` and `mgpu-loadstore`
//! (device), and on `mgpu-runtime`, `mgpu-partition` and `mgpu-scan` (host). `no_std` on
//! nvptx64, where only the kernel bodies exist.
//!
//! The seeds' IntervalExpand, IntervalMove, IntervalGather and IntervalScatter (Modern GPU
//! page 000): many variable-length fills or copies in one launch, load-balanced by the
//! load-balancing search (page 001). With `scan` the exclusive scan of the interval counts
//! and, for output item `i`, `object(i)` its interval and `rank(i) = i - scan[object(i)]`:
//!
//! | function | result |
//! | --- | --- |
//! | [`interval_expand`] | `output[i] = values[object(i)]` |
//! | [`interval_move`] | `output[scatter[obj] + rank] = input[gather[obj] + rank]` |
//! | [`interval_gather`] | `output[i] = input[gather[obj] + rank]` |
//! | [`interval_scatter`] | `output[scatter[obj] + rank] = input[i]` |
//!
//! Inputs are device arrays or generated sequences ([`Source`]). Each function has an
//! asynchronous `_into` form returning a [`Pending`](mgpu_runtime::Pending), and a safe form that
//! synchronises and reports invalid input as an [`Error`](mgpu_runtime::Error): the checks
//! run inside the kernels (a scan that is not non-decreasing or does not start at 0, a scan
//! past the total, gather or scatter ranges outside their arrays) and no input makes a
//! kernel touch memory outside its buffers. Overlapping destination intervals of
//! [`interval_move`]/[`interval_scatter`] are memory-safe: each overlapped element gets the
//! value of one of its writers, unspecified which.
//!
//! - `device`: the kernel bodies; `kernels`: kernel types, tuning, the instantiation list;
//!   `host` (re-exported at the top): the launchers, generic over [`mgpu_runtime::Device`].
//!
//! # Examples
//!
//! The seeds' comment example of IntervalExpand, on the simulator (a CUDA `Context` works
//! the same):
//!
//! ```
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let counts = DeviceVec::from_slice(&dev, &[1u32, 2, 1, 0, 4, 2, 3, 0, 2]).unwrap();
//! let values = DeviceVec::from_slice(&dev, &[0i32, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
//! let mut out = DeviceVec::<i32, _>::zeros(&dev, 15).unwrap();
//! let total = mgpu_intervalmove::interval_expand_counts(counts.as_slice(), values.as_slice().into(), out.as_mut_slice()).unwrap();
//! assert_eq!(total, 15);
//! assert_eq!(out.to_vec().unwrap(), vec![0, 1, 1, 2, 4, 4, 4, 4, 5, 5, 6, 6, 6, 8, 8]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;

mgpu_core::family_crate!();

pub use kernels::IntervalElement;
