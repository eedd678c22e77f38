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

/// One family's module: the entry points of its instance list,
/// `<crate>::for_each_<family>_instance!(entries)`, behind the family's feature.
macro_rules! family {
    ($(#[$doc:meta])* $feature:literal $name:ident: $($list:ident)::+) => {
        $(#[$doc])*
        #[cfg(feature = $feature)]
        pub mod $name {
            $($list)::+!(entries);
        }
    };
}

family! {
    /// The scan family: look-back scan (integers), ordered look-back scan (floats),
    /// partials (reduce, every type).
    "scan" scan: mgpu_scan::for_each_scan_instance
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

family! {
    /// The load-balancing search family: the search kernel for u32 and u64 indices.
    "loadbalance" loadbalance: mgpu_loadbalance::for_each_loadbalance_instance
}

family! {
    /// The interval family: load-balanced expand and move/gather/scatter, and the naive
    /// expand, for every element type with u32 and u64 indices.
    "intervalmove" intervalmove: mgpu_intervalmove::for_each_intervalmove_instance
}

family! {
    /// The bulk family: bulk remove and bulk insert for every element type with u32 and
    /// u64 indices.
    "bulk" bulk: mgpu_bulk::for_each_bulk_instance
}

family! {
    /// The segmented reduction family: the tiles and the two spine passes, for every
    /// element type and operator with u32 and u64 indices.
    "segreduce" segreduce: mgpu_segreduce::for_each_segreduce_instance
}

family! {
    /// The merge family: the blocksort and the merge tiles (merges and mergesort passes)
    /// for every key type by `Less` and `Greater`, keys only or with 4- or 8-byte values.
    "merge" merge: mgpu_merge::for_each_merge_instance
}
