//! The partition family's suite, written once and run on the simulator with either
//! tuning and on CUDA (ignored without a GPU) by `mgpu_testkit::device_tests!` (STYLE.md,
//! "One suite, every backend"). Partitions have no facade method: every check calls the
//! crate's own launchers or kernels on a `D: Device` and compares with
//! `mgpu_cpu::partition` (the CPU reference) or the serial definitions, bit for bit.
//!
//! - [`launchers`]: every launcher against the CPU: small random and adversarial inputs
//!   (all keys equal, one side empty, both empty, sizes around multiples of nv), every
//!   key type with Less and Greater, u32 and u64 indices; the sizes of the target's budget
//!   (tile edges on the simulator, up to 10^8 on CUDA, each size and its time printed
//!   there); bad arguments; the seeds' examples; the CPU partitions against their plain
//!   definitions (proptest, 48 cases).
//! - [`lanes`]: the kernels with every group size (1 to 32 lanes, the k-ary searches)
//!   against the one-thread serial definition, on sorted input and garbage (proptest, 48
//!   cases, and the cases proptest once shrank failures to); the launchers at partition
//!   counts on either side of the group-size rule; every group size at the benchmarks'
//!   sizes, timed on CUDA (the table `partition_lanes_log2` is tuned by).
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod common;
mod lanes;
mod launchers;
