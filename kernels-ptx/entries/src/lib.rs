//! # mgpu-kernels: every kernel entry point, for nvptx64
//!
//! Layer: **kernels**. This crate holds no logic: it instantiates the `extern "ptx-kernel"`
//! entry point of each kernel of each family, from the family crate's single instance list
//! (for the scan family, `mgpu_scan::for_each_scan_instance!`). `cargo xtask ptx` builds it
//! once per family (cargo feature) and architecture (`--cfg mgpu_arch="sm_70"|"sm_90"`,
//! which picks the tuning table) into `kernels-ptx/ptx/<family>_<arch>.ptx`. On the host
//! it is empty.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]

/// The scan family: look-back scan (integers), partials, spine, downsweep (floats).
#[cfg(feature = "scan")]
pub mod scan {
    mgpu_scan::for_each_scan_instance!(entries);
}

/// The blocks family: test kernels that instantiate every device building block
/// (sorting networks, gather/scatter, interval copies, merge-value transfer, segmented
/// reduction core, Merge Path with the serial merges, CTA load-balancing search), from
/// `mgpu_blocks::for_each_blocks_instance!`.
#[cfg(feature = "blocks")]
pub mod blocks {
    use mgpu_core::kernel_entry;
    mgpu_blocks::for_each_blocks_instance!(kernel_entry);
}

/// The partition family: Merge Path (merge and mergesort), binary-search, CSR,
/// load-balancing and counting (Bulk Insert) partitions, a group of 1 to 32 lanes per
/// partition point.
#[cfg(feature = "partition")]
pub mod partition {
    use mgpu_partition::partition_entries;
    mgpu_partition::for_each_partition_instance!(partition_entries);
}

/// The load-balancing search family: the search kernel for u32 and u64 indices, from
/// `mgpu_loadbalance::for_each_loadbalance_instance!`.
#[cfg(feature = "loadbalance")]
pub mod loadbalance {
    mgpu_loadbalance::for_each_loadbalance_instance!(entries);
}

/// The interval family: load-balanced expand and move/gather/scatter, and the naive
/// expand, for every element type with u32 and u64 indices, from
/// `mgpu_intervalmove::for_each_intervalmove_instance!`.
#[cfg(feature = "intervalmove")]
pub mod intervalmove {
    mgpu_intervalmove::for_each_intervalmove_instance!(entries);
}

/// The bulk family: bulk remove and bulk insert for every element type with u32 and u64
/// indices, from `mgpu_bulk::for_each_bulk_instance!`.
#[cfg(feature = "bulk")]
pub mod bulk {
    mgpu_bulk::for_each_bulk_instance!(entries);
}
