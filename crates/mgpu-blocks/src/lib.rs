//! # mgpu-blocks: the `blocks` test-kernel family
//!
//! Layer: **tooling** (test kernels), above the device blocks. It depends on the device
//! blocks it instantiates (`mgpu-core`, `mgpu-sortnetwork`, `mgpu-loadstore`,
//! `mgpu-ctascan`, `mgpu-ctasearch`) and, on the host, on `mgpu-runtime`; nothing depends
//! on it but `kernels-ptx/entries`, which makes the `blocks` PTX family from
//! [`for_each_blocks_instance!`].
//!
//! [`kernels`] holds small kernels that instantiate every device building block (the
//! sorting networks, `mgpu-loadstore`'s gathers, scatters, interval copies, guarded
//! strided shared-memory copies and merge-value transfer, `mgpu-ctascan`'s segmented
//! reduction and segmented tile scan, `mgpu-ctasearch`'s Merge Path, serial merges and CTA
//! load-balancing search), so that `cargo xtask ptx --check` sees each block compiled for
//! sm_70 and sm_90 and the GPU tests run them; the host wrappers ([`sort_pairs_in_threads`],
//! [`merge_keys`], [`load_balance_search`], ...) run them on any `Device` in tests. They
//! are not an algorithm API. The device-block crates themselves depend on `mgpu-core`
//! only.
//!
//! # Examples
//!
//! ```
//! use mgpu_runtime::Simulator;
//! let (keys, idx) = mgpu_blocks::merge_keys(&Simulator::new(), &[1, 4, 9], &[2, 3, 10]).unwrap();
//! assert_eq!(keys, vec![1, 2, 3, 4, 9, 10]);
//! assert_eq!(idx.len(), 6);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod kernels;

mgpu_core::family_crate!();
