//! The load-balancing search's suite, written once and run on every backend (STYLE.md,
//! "One suite, every backend"; `mgpu_testkit::backend_tests!` and `device_tests!`):
//!
//! - [`backend`]: the three forms (scan, ranks, counts) through the facade's `Backend` on
//!   the CPU backend, the simulator with either tuning, and CUDA (ignored without a GPU),
//!   against the test kit's plain-loop search, bit for bit, u32 and u64: seed 001's worked
//!   example (golden), counts uniform in [0, 20] and [0, 2] up to 10^8 work items (the
//!   backend's budget: a few tiles on the simulator, a million on the CPU, everything on
//!   CUDA, each size and the GPU time printed there), runs of 10^6 zero counts, one count
//!   of 2^26, the kit's edge cases, sizes around every tile, real counts (the row lengths
//!   of the sparse matrix `lund_a`, Mauna Loa's weeks per year), random counts
//!   (proptest), and the bad-input errors.
//! - [`device`]: what only the crate's own launchers show, on the simulators and CUDA:
//!   bad scans write nothing outside their outputs (also 3 * 10^6 objects), arbitrary
//!   scans give the CPU backend's error or result (proptest), output lengths and a total
//!   past the index type.
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod backend;
mod device;
