//! The merge family's suite, written once and run on every backend (STYLE.md, "One suite,
//! every backend"; `mgpu_testkit::backend_tests!`): merge and mergesort through the
//! facade's `Backend` on the CPU backend, the simulator with either tuning, and CUDA
//! (ignored without a GPU), against the test kit's plain loops (`mgpu_testkit::merge`,
//! `sort_stable`), bit for bit: the seed's 16 keys, sizes 0 to 5, tile multiples and
//! one off them, every key type by `Less` and `Greater`, keys all equal (stability seen
//! through the values), sorted, reversed, few distinct, floats with NaNs of both signs,
//! infinities and signed zeros; real data (Mauna Loa's weekly CO2 readings, with their
//! duplicates and missing weeks as NaN: `mgpu_testkit::co2_weekly`); pairs with values of
//! other types, indices u32 and u64; merges of sorted arrays with ties across them; every bad input (sizes, an unsorted
//! merge input on either side, garbage that must stay memory-safe). Sizes grow with the
//! backend: the simulator runs a few tiles, the CPU backend a million, CUDA up to 10^8
//! (each size and the GPU time printed there).
//!
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod backend;
