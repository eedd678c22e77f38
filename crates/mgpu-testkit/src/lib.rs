//! # mgpu-testkit: what the GPU test suites share
//!
//! Layer: **tooling** (dev-only, host only). Depends on `mgpu-core` and `mgpu-runtime`;
//! only tests depend on it.
//!
//! - **Size caps** for sanitizer runs: `bundle/run.sh --sanitize` (and `cargo xtask
//!   test-gpu --sanitize`) run every GPU test binary under compute-sanitizer with
//!   `MGPU_TEST_MAX_LEN` set. [`max_len`] reads it; [`sizes`] keeps the sizes of a list
//!   that fit under it (every edge case stays, the large sizes go), and [`cap`] shrinks one
//!   size to it. `run.sh` also names the tool in `MGPU_TEST_SANITIZER`: under racecheck
//!   ([`racecheck`]), whose every shared-memory access is tracked, a suite with many
//!   inputs a size may run fewer of them.
//! - **Guarded outputs**: [`Guarded`] is an output buffer with guard words before and
//!   after it, so a test sees any write outside the output a call was given.
//! - **Seeded random inputs**: [`Rng`] (SplitMix64) is the one generator the tests draw
//!   their random inputs from, the same stream for the same seed on every run.
//! - **Shared inputs** drawn from it: [`uniform_counts`] (uniform in `[0, 2·avg]`, cut to
//!   cover exactly n items, as `ANCHORS.md` describes), [`pareto_counts`] (heavy-tailed),
//!   [`edge_counts`] (all zero, one huge, leading and trailing zeros, thousands of zeros
//!   in a row, length 1), [`sorted_unique_indices`] (bulk remove), [`sorted_indices`]
//!   (bulk insert, duplicates allowed), [`shuffled_layout`] (interval move's starts),
//!   [`uniform_values`], [`sorted_values`] (merge keys, ascending or descending, ties when
//!   the range is small) and [`random_bits`].
//! - **Plain-loop references**: [`exclusive_scan`] and [`inclusive_scan`] (left folds),
//!   [`load_balance_search`], [`interval_expand`], [`interval_gather`],
//!   [`interval_scatter`], [`interval_move`], [`bulk_remove`], [`bulk_insert`], and the
//!   sequential merge ([`merge_sources`]) with its Merge Path partitions by definition
//!   ([`merge_splits`]), the stable merges [`merge`] and [`merge_pairs`] (ties A first),
//!   and the stable sort's permutation [`sort_stable`] (std's `sort_by`), applied with
//!   [`permute`].
//! - **Check helpers**: [`expect_invalid`] (the bad-input error and its message) and
//!   [`proptest_runner`] (a property with its case count inside a check function).
//! - **Real data** ([`co2_weekly`]: Mauna Loa's weekly CO2 readings, with duplicates,
//!   runs and missing weeks as NaN; [`lund_a_row_lengths`]: the row lengths of a real
//!   sparse matrix), for inputs nobody here made.
//! - **Seed 001's worked example** ([`seed001`]), which more than one suite checks.
//! - **One suite, every backend**: a family's checks are written once, as functions of a
//!   backend and its [`Target`]; [`backend_tests!`] makes one `#[test]` per check on the
//!   facade's CPU backend, the simulator (both tunings) and CUDA (ignored without a GPU),
//!   and [`device_tests!`] the same for the family crates' own launchers on the
//!   simulators and CUDA. Each target has a size budget ([`Target::sizes`]): small on
//!   the simulator, a million on the CPU, up to 10^8 on CUDA, all under the sanitizer
//!   cap.
//!
//! Large tests (sizes past 2^31) are named `large_*` and are `#[ignore]`d like every GPU
//! test; `run.sh` runs them only with `--large` and skips them otherwise.
//!
//! # Examples
//!
//! ```
//! use mgpu_runtime::Simulator;
//! let dev = Simulator::new();
//! let mut out = mgpu_testkit::Guarded::<u32, _>::new(&dev, 4).unwrap();
//! out.slice().copy_from_host(&[1, 2, 3, 4]).unwrap();
//! out.check_guards("copy");
//! assert_eq!(out.to_vec(), vec![1, 2, 3, 4]);
//! assert!(mgpu_testkit::sizes(&[0, 1, 1 << 10]).contains(&1));
//! let mut rng = mgpu_testkit::Rng::new(1);
//! assert!(rng.below(10) < 10);
//! ```
#![cfg(not(target_arch = "nvptx64"))]

use mgpu_core::Element;
use mgpu_runtime::{Device, DeviceSliceMut, DeviceVec, Result};

mod check;
mod gen;
mod real;
mod reference;
mod rng;
pub mod seed001;
mod target;
pub use check::{expect_invalid, proptest_runner};
pub use gen::{
    bits, edge_counts, pareto_counts, random_bits, shuffled_layout, sorted_indices,
    sorted_unique_indices, sorted_values, to_index, uniform_counts, uniform_values, EdgeCounts,
    FromU64,
};
/// `paste!`, for test files that name their tests from parts (`[<large_ $check>]`).
pub use paste::paste;
pub use real::{co2_weekly, lund_a_row_lengths};
pub use reference::{
    bulk_insert, bulk_remove, exclusive_scan, inclusive_scan, interval_expand, interval_gather,
    interval_move, interval_scatter, load_balance_search, merge, merge_pairs, merge_sources,
    merge_splits, offsets, permute, reduce_by_key, seg_reduce_csr, sort_stable, spmv_csr,
};
pub use rng::Rng;
pub use target::{Target, CPU_BUDGET, SIMULATOR_BUDGET};

/// The environment variable that caps test sizes (elements), set by the sanitizer runs.
pub const MAX_LEN_VAR: &str = "MGPU_TEST_MAX_LEN";

/// The largest input size a test may use, from [`MAX_LEN_VAR`]; `usize::MAX` when it is
/// unset. Panics on a value that is not a number, so a typo cannot silently run the full
/// sizes under a sanitizer.
///
/// ```
/// // Unset in `cargo test`: no cap.
/// if std::env::var_os(mgpu_testkit::MAX_LEN_VAR).is_none() {
///     assert_eq!(mgpu_testkit::max_len(), usize::MAX);
/// }
/// ```
pub fn max_len() -> usize {
    match std::env::var(MAX_LEN_VAR) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{MAX_LEN_VAR}={v:?} is not a number of elements")),
        Err(_) => usize::MAX,
    }
}

/// The environment variable naming the sanitizer tool a run is under (`run.sh
/// --sanitize` sets it for each tool).
pub const SANITIZER_VAR: &str = "MGPU_TEST_SANITIZER";

/// Whether the tests run under compute-sanitizer's racecheck ([`SANITIZER_VAR`] is
/// `racecheck`). Racecheck tracks every shared-memory access, so a sort test of a few
/// hundred calls does not finish in minutes; a suite may then run one input and one
/// comparator a size (every size and tile shape still).
///
/// ```
/// if std::env::var_os(mgpu_testkit::SANITIZER_VAR).is_none() {
///     assert!(!mgpu_testkit::racecheck());
/// }
/// ```
pub fn racecheck() -> bool {
    std::env::var(SANITIZER_VAR).is_ok_and(|t| t.trim() == "racecheck")
}

/// Whether the sizes are capped (a sanitizer run).
///
/// ```
/// assert_eq!(mgpu_testkit::capped(), mgpu_testkit::max_len() != usize::MAX);
/// ```
pub fn capped() -> bool {
    max_len() != usize::MAX
}

/// The sizes of `all` that are at most [`max_len`], in order: all of them without a cap.
///
/// ```
/// let s = mgpu_testkit::sizes(&[0, 1, 1279, 1280, 1281]);
/// assert!(s.contains(&0) && s.contains(&1));
/// ```
pub fn sizes(all: &[usize]) -> Vec<usize> {
    let max = max_len();
    all.iter().copied().filter(|&n| n <= max).collect()
}

/// `n`, or [`max_len`] where that is smaller.
///
/// ```
/// assert!(mgpu_testkit::cap(10) <= 10);
/// ```
pub fn cap(n: usize) -> usize {
    n.min(max_len())
}

/// Guard words on each side of a [`Guarded`] output.
pub const GUARD: usize = 256;

/// An output of `len` elements on a device with [`GUARD`] guard elements on each side,
/// every word of them (and of the output) filled with a poison pattern before the call.
/// [`Guarded::check_guards`] panics when a call wrote into a guard.
///
/// ```
/// use mgpu_runtime::Simulator;
/// let dev = Simulator::new();
/// let out = mgpu_testkit::Guarded::<i64, _>::new(&dev, 3).unwrap();
/// out.check_guards("nothing");
/// assert!(out.to_vec().iter().all(|&v| v == mgpu_testkit::poison::<i64>()));
/// ```
pub struct Guarded<T: Element, D: Device> {
    buf: DeviceVec<T, D>,
    len: usize,
}

/// The poison value of guards and fresh outputs: every 32-bit word `0xDEADBEEF`.
///
/// ```
/// assert_eq!(mgpu_testkit::poison::<u32>(), 0xDEAD_BEEF);
/// ```
pub fn poison<T: Element>() -> T {
    T::from_words([0xDEAD_BEEF, 0xDEAD_BEEF])
}

impl<T: Element, D: Device> Guarded<T, D> {
    /// A poisoned output of `len` elements between two poisoned guards.
    pub fn new(dev: &D, len: usize) -> Result<Self> {
        let host = vec![poison::<T>(); len + 2 * GUARD];
        Ok(Guarded {
            buf: DeviceVec::from_slice(dev, &host)?,
            len,
        })
    }

    /// The output itself, to pass to a call.
    pub fn slice(&mut self) -> DeviceSliceMut<'_, T, D> {
        self.buf
            .slice_mut(GUARD..GUARD + self.len)
            .expect("the output lies inside the guarded buffer")
    }

    /// The output's contents.
    pub fn to_vec(&self) -> Vec<T> {
        self.buf.to_vec().expect("copy the guarded output back")[GUARD..GUARD + self.len].to_vec()
    }

    /// Panics, naming `what`, when any guard word was written.
    pub fn check_guards(&self, what: &str) {
        let all = self.buf.to_vec().expect("copy the guarded output back");
        let p = poison::<T>().to_words();
        let before = all[..GUARD].iter().position(|v| v.to_words() != p);
        let after = all[GUARD + self.len..]
            .iter()
            .position(|v| v.to_words() != p);
        assert!(
            before.is_none() && after.is_none(),
            "{what}: wrote outside its output of {} elements ({} before it, {} after it)",
            self.len,
            before.map_or("nothing".into(), |i| format!(
                "at {}",
                i as i64 - GUARD as i64
            )),
            after.map_or("nothing".into(), |i| format!("at len + {i}")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_runtime::Simulator;

    #[test]
    #[should_panic(
        expected = "wrote outside its output of 4 elements (nothing before it, at len + 0 after it)"
    )]
    fn a_write_past_the_end_is_caught() {
        let dev = Simulator::new();
        let mut g = Guarded::<u32, _>::new(&dev, 4).unwrap();
        g.buf
            .slice_mut(GUARD + 4..GUARD + 5)
            .unwrap()
            .copy_from_host(&[7])
            .unwrap();
        g.check_guards("past the end");
    }

    #[test]
    #[should_panic(expected = "at -1 before it")]
    fn a_write_before_the_start_is_caught() {
        let dev = Simulator::new();
        let mut g = Guarded::<f64, _>::new(&dev, 2).unwrap();
        g.buf
            .slice_mut(GUARD - 1..GUARD)
            .unwrap()
            .copy_from_host(&[0.0])
            .unwrap();
        g.check_guards("before the start");
    }

    #[test]
    fn sizes_keep_order_and_everything_without_a_cap() {
        if !capped() {
            assert_eq!(sizes(&[5, 0, 1 << 40]), vec![5, 0, 1 << 40]);
            assert_eq!(cap(1 << 40), 1 << 40);
        }
    }
}
