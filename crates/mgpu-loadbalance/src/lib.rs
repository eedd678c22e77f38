//! # mgpu-loadbalance: load-balancing search
//!
//! Layer: **algorithms**. Depends on `mgpu-core`, `mgpu-ctasearch` (the CTA
//! load-balancing search) and `mgpu-partition` (the load-balance partitions) on the device
//! and the host, and on `mgpu-runtime` and `mgpu-scan` (the count scan) on the host only;
//! `no_std` on nvptx64, where only the kernel bodies exist.
//!
//! Holds Modern GPU's `LoadBalanceSearch` (seed 001): given the exclusive scan of the
//! work-item counts of `n` objects and the total number of work items, it writes for each
//! work item `i` the index of the object that generated it, `upper_bound(scan, i) - 1`,
//! and optionally its rank in that object, `i - scan[object]`.
//!
//! - `device`: the kernel body (generic over [`Cta`](mgpu_core::Cta)) and its arguments;
//!   each tile validates what it reads before searching.
//! - `kernels`: the kernel as a type, its tuning tables and the instance list
//!   `for_each_loadbalance_instance!` shared by the PTX entries and the host dispatch.
//! - the host launchers (re-exported at the top), generic over [`mgpu_runtime::Device`]:
//!   [`load_balance_search`], [`load_balance_search_ranks`] and
//!   [`load_balance_search_counts`].
//!
//! The CPU equivalent is `mgpu_cpu::load_balance_search`; `docs/loadbalance.md` explains
//! the semantics with the seed's worked example.
//!
//! # Examples
//!
//! The seed's example: counts 2, 5, 3, 0, 1.
//!
//! ```
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new(); // or mgpu_runtime::Context::new(0)? on a GPU
//! let counts = DeviceVec::from_slice(&dev, &[2u32, 5, 3, 0, 1]).unwrap();
//! let (objects, total) = mgpu_loadbalance::load_balance_search_counts(counts.as_slice()).unwrap();
//! assert_eq!(total, 11);
//! assert_eq!(objects.to_vec().unwrap(), vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;

mgpu_core::family_crate!();

pub use kernels::LoadBalanceIndex;
