//! Scan and reduce's suite, written once and run on every backend (STYLE.md, "One suite,
//! every backend"; `mgpu_testkit::backend_tests!` and `device_tests!`):
//!
//! - [`backend`]: every scan form (exclusive, inclusive, in place), reduce and the count
//!   scan through the facade's `Backend` on the CPU backend, the simulator with either
//!   tuning, and CUDA (ignored without a GPU), for every element type and operator,
//!   against a plain left-to-right fold: integers bit for bit; floats on inputs whose every
//!   partial result is exact, and arbitrary floats within a stated tolerance (and the same
//!   bits on every run). Sizes 0, 1, 2, 31, the edges of both tunings' tiles and of both
//!   element widths, a few tiles, and up to 10^8 within the backend's budget (a few tiles
//!   on the simulator, a million on the CPU, everything on CUDA); count-scan overflow in
//!   several places; the seeds' counts (golden); the look-back status block reused.
//! - [`device`]: what only the crate's own launchers show, on the simulators and CUDA:
//!   unaligned slices, output lengths; and on CUDA only, scans of cudarc's buffers, a
//!   device fault reported as `ContextLost`, the sm_70 PTX and tuning on a newer GPU.
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod backend;
mod common;
mod device;
