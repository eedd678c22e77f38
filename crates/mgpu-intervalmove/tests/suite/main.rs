//! The interval family's suite, written once and run on every backend (STYLE.md, "One
//! suite, every backend"; `mgpu_testkit::backend_tests!` and `device_tests!`):
//!
//! - [`backend`]: interval expand (load-balanced and naive), gather, scatter and move
//!   through the facade's `Backend` on the CPU backend, the simulator with either tuning,
//!   and CUDA (ignored without a GPU), against the test kit's plain loops, bit for bit:
//!   the seeds' examples (golden), counts uniform in [0, 20] and [0, 2] at sizes around
//!   the tile and up to 10^8 outputs (the backend's budget: a few tiles on the simulator,
//!   a million on the CPU, everything on CUDA, each size and the GPU time printed there),
//!   the edge-case counts (runs of 10^6 zeros, one count of 2^26, all zero, the kit's
//!   edge cases), real counts (the row lengths of the sparse matrix `lund_a`), random
//!   counts (proptest), every element type, generated inputs,
//!   overlapping scatters, and every bad-input error.
//! - [`device`]: what only the crate's own launchers show, on the simulators and CUDA:
//!   the counts forms (`interval_expand_counts`, `interval_move_counts`), outputs of the
//!   wrong length, a total past the index type, and garbage input writing nothing outside
//!   its output.
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod backend;
mod device;
mod golden;
