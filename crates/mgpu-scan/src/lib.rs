//! # mgpu-scan: scan and reduce
//!
//! Layer: **algorithms**. Depends on `mgpu-core`, `mgpu-ctascan`, `mgpu-loadstore` (device)
//! and `mgpu-runtime` (host). `no_std` on nvptx64, where only the kernel bodies exist.
//!
//! - `device`: the kernel bodies (single-pass scans: decoupled look-back for integers, an
//!   ordered look-back for floats whose association order depends only on the size and
//!   the tile shape; the reduction).
//! - `kernels`: the kernels as types, their tuning tables, and the instantiation list.
//! - `host` (re-exported at the top): the launchers, generic over
//!   [`mgpu_runtime::Device`], so they run on a CUDA [`mgpu_runtime::Context`] and in the
//!   [`mgpu_runtime::Simulator`].
//!
//! Operators are passed as values of their zero-sized types (`Plus`, `Maximum`, ...).
//! Integer arithmetic wraps, as on the GPU. Results are deterministic: the same input on the
//! same device gives the same bits, floats included.
//!
//! # Examples
//!
//! The seeds' `Scan(counts)` on the simulator (a CUDA `Context` works the same):
//!
//! ```
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let mut counts = DeviceVec::from_slice(&dev, &[3u32, 2, 5]).unwrap();
//! let total = mgpu_scan::scan_counts_exclusive_in_place(counts.as_mut_slice()).unwrap();
//! assert_eq!(total, 10);
//! assert_eq!(counts.to_vec().unwrap(), vec![0, 3, 5]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;

mgpu_core::family_crate!();

pub use kernels::ScanOp;
pub use mgpu_ctascan::ScanKind;
