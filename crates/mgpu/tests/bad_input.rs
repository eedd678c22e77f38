//! Bad input on the device path and on the CPU backend (issue 15, item 4).
//!
//! Every bad input the families document, and every error bit their kernels' fused
//! validation raises, runs on the device path (the GPU launchers: in the CTA simulator
//! here, on CUDA device 0 in the `gpu_*` tests) and on the CPU backend (`mgpu::cpu`) with
//! the same input. Each case checks that
//!
//! - the device call (the asynchronous `_into` form and its `wait()`, or the plain form
//!   where there is no `_into`) returns an `Err` of the expected variant;
//! - every output is a [`mgpu_testkit::Guarded`] slice, and nothing was written into the
//!   256 guard words before and after it (checked after the call);
//! - the CPU backend's equivalent call returns an `Err` of the same variant (compared with
//!   `std::mem::discriminant`; both messages are printed, one line per case, `bad input |
//!   case | variant | device message | CPU message or "same text"`: run with
//!   `--nocapture` to see them). Where the CPU backend has no equivalent call the line
//!   says so;
//! - the device is still usable: a small valid call of the same family right after gives
//!   the right result (this also catches a stale error word leaking into the next call).
//!
//! Kernel-detected faults are placed in the first tile, at the boundary of tiles 0 and 1
//! (the object or index that straddles it), in a middle tile and in the last (partial)
//! tile, for sizes of three and a half tiles (tile sizes from the crates' `kernels::tuning`
//! tables through their `KernelSet` constants, for the device's architecture); the case
//! names say which tile each fault landed in. The simulator runs each text with both tuning
//! tables (sm_90 and sm_70); the GPU adds sizes of about 6 * 10^4 and 10^6 (merge steps or
//! elements), kept under `MGPU_TEST_MAX_LEN` when the sanitizers set it.
//!
//! # Cases and expected variants
//!
//! Scan (`scan.rs`):
//! - `scan_into` with an output one short / one over (exclusive, inclusive):
//!   `LengthMismatch` (CPU: `scan_exclusive` / `scan_inclusive`).
//! - `scan_into` with a total of 0 or 2 elements, `reduce_into` with an output of 0 or 2:
//!   `LengthMismatch` (no CPU equivalent: the CPU backend returns totals by value).
//! - `scan_counts_exclusive` with an output one short: `LengthMismatch`.
//! - Count sums past `I::MAX` (`u32`, `u64`; into an output and in place), detected by the
//!   look-back kernel: the running sum crossing `I::MAX` at a count in each of the four
//!   places; four counts of `2^(bits-1)` in a middle tile (the sum wraps back to exactly
//!   0); equal counts crossing halfway: `IndexOverflow`.
//!
//! Load-balancing search (`loadbalance.rs`; `u32` and `u64`; the `_into` form, and also the
//! ranks form for no objects, `scan[0] = 1` and the middle-tile cases):
//! - output of `total + 1`; ranks form with objects or ranks of the wrong length:
//!   `LengthMismatch`.
//! - work items with no objects (host check): `InvalidInput`.
//! - `load_balance_search_counts` with a count sum past `u32`: `IndexOverflow`.
//! - Kernel (`ERROR_FIRST`, `ERROR_UNSORTED`, `ERROR_TOTAL`): `scan[0] = 1`; the scan dipping
//!   by 1 at each place; a total below the scan (the scan crosses the total at an object in
//!   each place); the scan dropping to 0 and spiking past the total in a middle tile:
//!   `InvalidInput`.
//!
//! Interval expand, naive expand, gather, scatter, move (`intervalmove.rs`; `i32`/`u32` and
//! `f64`/`u64`):
//! - values, gather starts, scatter starts or the scatter input of the wrong length; an
//!   output other than the total for expand and gather: `LengthMismatch` (no CPU
//!   equivalent for the output case: the CPU expand and gather take the total from the
//!   output).
//! - a total of 2^32 with `u32` indices: `IndexOverflow` (expand: no CPU equivalent; move,
//!   scatter: on both).
//! - a total with no intervals: `InvalidInput`; a count sum past `u32` in
//!   `interval_expand_counts` and `interval_move_counts`: `IndexOverflow` (CPU: the count
//!   scan).
//! - Kernel (`ERROR_SCAN_START`, `ERROR_SCAN_ORDER`, `ERROR_TOTAL`): `scan[0] = 1` (all five
//!   calls); the scan dipping by 1 and a total below the scan at each place (expand, naive,
//!   move): `InvalidInput`.
//! - Kernel (`ERROR_GATHER`, `ERROR_SCATTER`): an interval's gather range ending one past
//!   the input, or its scatter range one past the output, at each place; starts of
//!   `I::MAX` (the range wraps around the index type) in a middle tile; an interval three
//!   tiles long that passes its array only at its last element (gather, scatter and move):
//!   `InvalidInput`. (Starts of `I::MAX` for an interval with no elements are accepted by
//!   both backends, with equal outputs.)
//! - Overlapping scatter ranges (scatter and move): **not an error, memory-safe, the
//!   writer unspecified**, as `interval_move_into` documents ("each overlapped output
//!   element gets the value of one of the intervals that write it, unspecified which"); the
//!   kernel has no overlap check (`ERROR_SCATTER` is only for positions past the output).
//!   The test checks `Ok` on both backends, the guards, that every device output element
//!   holds the value of one of its writers (or its poison when no interval writes it), and
//!   that the CPU backend holds the last writer's (it copies intervals in order). Two
//!   windows of 200 intervals: one across the tile 0|1 boundary all stored at one start,
//!   one in a middle tile each one element after the previous.
//!
//! Bulk remove and insert (`bulk.rs`; `i32`/`u32` and `f64`/`u64`):
//! - remove: more indices than source elements; an output one short or one over:
//!   `LengthMismatch`. Generated indices with step 0, with the last index at `n`, or at
//!   2^40 (`u64`), checked on the host: `InvalidInput` (the CPU backend gets the sequence
//!   written out).
//! - insert: values and indices of different lengths; an output of the wrong length (array
//!   and generated values): `LengthMismatch`. Generated indices whose last is past `n`
//!   (generated or array values): `InvalidInput`.
//! - Kernel remove (`ERROR_ORDER`, `ERROR_RANGE`): two neighbours swapped, an index repeated
//!   and an index of `n`, at each place; the last index of tile 0 and the first of tile 1
//!   swapped; index 0 set to `I::MAX`: `InvalidInput`.
//! - Kernel insert: two different neighbours swapped and an index of `n + 1`, at each place;
//!   a swap across the tile 0|1 boundary; index 0 set to `I::MAX`: `InvalidInput`.
//!
//! The segmented reduction (`segreduce.rs`; `u32` and `u64` indices):
//! - seg_reduce_csr with an output of `n + 1`, SpMV with one column short, the indirect
//!   reduction with one source short, reduce-by-key with one value short:
//!   `LengthMismatch`. Values with no segments; reduce-by-key outputs one slot short of the
//!   runs (keys or values), the count still right: `InvalidInput`.
//! - Kernel (`ERROR_FIRST`, `ERROR_UNSORTED`, `ERROR_TOTAL`, checked in shared memory as
//!   the tiles load the CSR): `csr[0] = 1`; a start dipping by 1 and the starts past the
//!   total from a segment on, at each place: `InvalidInput`.
//! - Kernel (`ERROR_COLUMN`, `ERROR_GATHER`): a column equal to the vector's length, and a
//!   segment's source range ending one past the data, in the middle tile: `InvalidInput`.
//!
//! Random damage (`fuzz.rs`): valid inputs of two or three tiles with one to three random
//! changes (swaps, nudges by -2 to 2, random values); both backends must agree (both accept
//! with the same output, or both reject with the same variant).
//!
//! Not covered: more objects, intervals or source elements than the index type can count
//! (`n - 1 > u32::MAX` or `n > u32::MAX`: the input alone would be 16 GiB), and grids past
//! 2^31 CTAs.

// The crate root is tests/bad_input.rs, so its modules would be looked up beside it in
// tests/ (where bulk.rs and intervalmove.rs are other test targets): name their files.
#[path = "bad_input/bulk.rs"]
mod bulk;
#[path = "bad_input/common.rs"]
mod common;
#[path = "bad_input/fuzz.rs"]
mod fuzz;
#[path = "bad_input/intervalmove.rs"]
mod intervalmove;
#[path = "bad_input/loadbalance.rs"]
mod loadbalance;
#[path = "bad_input/scan.rs"]
mod scan;
#[path = "bad_input/segreduce.rs"]
mod segreduce;

use common::Scale;

/// One `#[test]` per case group on the simulator (both tuning tables) and one, named with
/// a `gpu_` prefix and ignored without a GPU, on CUDA device 0: `name => text` or, for a
/// text generic over its element and index types, `name<T, ...> => text` (the test named
/// `name_T_...`) or `name[T, ...] => text` (the types not in the name), where `text` is a
/// function of `(&D: Device, Scale)`.
macro_rules! instances {
    ($($name:ident $(<$($t:ident),+>)? $([$($u:ident),+])? => $($text:ident)::+;)*) => {
        mgpu_testkit::paste! {$(
            #[test]
            fn [<$name $($(_ $t)+)?>]() {
                // Both tuning tables: sm_90 (the H100's) and sm_70.
                for arch in [mgpu::Arch::Sm90, mgpu::Arch::Sm70] {
                    $($text)::+ $(::<_, $($t),+>)? $(::<_, $($u),+>)?(&mgpu::Simulator::with_arch(arch), Scale::Sim)
                }
            }

            #[test]
            #[ignore = "needs a CUDA GPU"]
            fn [<gpu_ $name $($(_ $t)+)?>]() {
                let dev = mgpu::Context::new(0).expect("needs a CUDA GPU");
                $($text)::+ $(::<_, $($t),+>)? $(::<_, $($u),+>)?(&dev, Scale::Gpu)
            }
        )*}
    };
}

instances! {
    scan_lengths => scan::lengths;
    count_scan_overflow<u32> => scan::count_overflow;
    count_scan_overflow<u64> => scan::count_overflow;

    load_balance_host_checks => loadbalance::host_checks;
    load_balance_scan_faults<u32> => loadbalance::scan_faults;
    load_balance_scan_faults<u64> => loadbalance::scan_faults;

    interval_host_checks => intervalmove::host_checks;
    interval_scan_faults<i32, u32> => intervalmove::scan_faults;
    interval_scan_faults<f64, u64> => intervalmove::scan_faults;
    interval_range_faults<i32, u32> => intervalmove::range_faults;
    interval_range_faults<f64, u64> => intervalmove::range_faults;
    interval_overlapping_scatter[i32, u32] => intervalmove::overlapping_scatter;

    bulk_host_checks => bulk::host_checks;
    bulk_remove_faults<i32, u32> => bulk::remove_faults;
    bulk_remove_faults<f64, u64> => bulk::remove_faults;
    bulk_insert_faults<i32, u32> => bulk::insert_faults;
    bulk_insert_faults<f64, u64> => bulk::insert_faults;

    segreduce_host_checks => segreduce::host_checks;
    segreduce_csr_faults<u32> => segreduce::csr_faults;
    segreduce_csr_faults<u64> => segreduce::csr_faults;

    fuzz_load_balance => fuzz::load_balance;
    fuzz_intervals => fuzz::intervals;
    fuzz_bulk => fuzz::bulk;
}
