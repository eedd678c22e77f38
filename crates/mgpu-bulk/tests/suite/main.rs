//! The bulk family's suite, written once and run on every backend (STYLE.md, "One suite,
//! every backend"; `mgpu_testkit::backend_tests!` and `device_tests!`):
//!
//! - [`backend`]: bulk remove and bulk insert through the facade's `Backend` on the CPU
//!   backend, the simulator with either tuning, and CUDA (ignored without a GPU): the
//!   seed's demonstrations and walk-throughs (golden), edge cases (remove all, none, every
//!   other; insert before index 0, after the end, into nothing), random inputs (proptest)
//!   and the sizes of `ANCHORS.md` (half removed, n/2 inserted) against the test kit's
//!   plain loops, bit for bit, every element type with u32 and u64 indices, generated
//!   values and indices, and every bad-input error (the backend stays usable, a failed
//!   call's error bits never reach the next call). Sizes grow with the backend: the
//!   simulator runs the edge cases and a few tiles, the CPU backend a million, CUDA up to
//!   10^8 (each size and the GPU time printed there).
//! - [`device`]: what only the crate's own launchers show, on the simulators and CUDA:
//!   outputs of the wrong length, the asynchronous `_into` forms writing nothing outside
//!   their output, and bulk insert's Merge Path partitions
//!   (`mgpu_partition::merge_path_counting_partitions`) against the serial search of the
//!   family's former kernel and the merge itself.
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod backend;
mod device;
mod golden;
