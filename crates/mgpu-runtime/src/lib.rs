//! # mgpu-runtime: the host runtime
//!
//! Layer: **host runtime** (host only). Depends on `mgpu-core` and cudarc; nothing of ours
//! depends on it but the algorithm crates' `host.rs` launchers, the facade and tools.
//!
//! - [`Device`]: what a host launcher needs of a machine (allocate, copy, launch a
//!   [`Kernel`](mgpu_core::Kernel), synchronise). Implemented by [`Context`] (a CUDA
//!   device through cudarc's driver API, loaded at run time) and by [`Simulator`] (the
//!   coroutine CTA simulator of `mgpu-core` on host memory), so every launcher runs
//!   unchanged in `cargo test` on a machine without a GPU.
//! - [`DeviceVec`], [`DeviceSlice`], [`DeviceSliceMut`]: typed device memory.
//! - [`Pool`]: the caching allocator for the temporaries every call needs.
//! - [`Error`]: every failure, including [`Error::NoDevice`] and [`Error::ContextLost`].
//!
//! # Examples
//!
//! ```
//! use mgpu_runtime::{Device, DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let v = DeviceVec::from_slice(&dev, &[1u32, 2, 3]).unwrap();
//! assert_eq!(v.to_vec().unwrap(), vec![1, 2, 3]);
//! assert_eq!(dev.info().name, "mgpu CTA simulator");
//! ```
#![cfg(not(target_arch = "nvptx64"))]

mod buffer;
mod cuda;
mod device;
mod pending;
mod pool;
mod simulator;

pub use buffer::{DeviceSlice, DeviceSliceMut, DeviceVec, ErrorWord, Temp};
pub use cuda::Context;
pub use device::{Device, DeviceInfo};
pub use mgpu_core::{Error, Result};
pub use pending::Pending;
pub use pool::Pool;
pub use simulator::Simulator;

pub use mgpu_core::Arch;
