//! The segmented reduction's suite, written once and run on every backend (STYLE.md,
//! "One suite, every backend"; `mgpu_testkit::backend_tests!` and `device_tests!`):
//!
//! - [`backend`]: `Backend::seg_reduce_csr` on the CPU backend, the simulator with either
//!   tuning, and CUDA (ignored without a GPU), against the test kit's plain loop: seed
//!   002's demonstration (golden); segment lengths uniform in [0, 2·avg] for averages 1,
//!   10 and 1000 up to 10^8 values (the backend's budget), heavy-tailed lengths, the
//!   kit's edge cases (all empty, one segment holding everything, runs of thousands of
//!   empty segments, length 1), sizes around every tile; every element type and operator
//!   (integers bit for bit, floats within a stated tolerance), the non-commutative 2x2
//!   matrix product (order, bit for bit), random inputs (proptest); the bad-input errors,
//!   the same text on every backend.
//! - [`rbk`]: `Backend::reduce_by_key` on every backend against the plain loop: seed
//!   002's demonstration (golden); runs of mean 1, 10 and 1000 up to 10^8 items, one run,
//!   all distinct, sizes around every tile; every key type (float keys with NaNs, -0.0
//!   and infinities; integer extremes), every operator and the 2x2 matrix product
//!   (order); random inputs; keys and values of different lengths.
//! - [`device`]: what only the crate's own launchers show, on the simulators and CUDA:
//!   bad CSRs write nothing outside the output, the queued form; and, on the simulator
//!   with small tiles, the spine across several chunks of tiles.
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod backend;
mod device;
mod rbk;
