//! The segmented reduction demonstrations of seed 002 (`DemoSegReduceCsr`,
//! `DemoReduceByKey`).

use crate::print::demonstration_titled;
use crate::print_array;
use mgpu::{Backend, EqualTo, Plus, Result};

/// Seed 002's segment starts: 7 segments over 100 values.
pub const SEGMENT_STARTS: [u32; 7] = [0, 9, 19, 25, 71, 87, 97];

/// The 100 values seed 002's demonstration printed (its `GenRandom<int>(100, 1, 5)`).
#[rustfmt::skip]
pub const SEGMENT_VALUES: [i32; 100] = [
    1, 5, 5, 1, 2, 5, 1, 1, 4, 4, 5, 3, 4, 4, 4, 2, 2, 4, 2, 5,
    5, 1, 5, 1, 4, 5, 1, 4, 2, 2, 2, 3, 3, 1, 4, 2, 4, 2, 1, 2,
    5, 1, 2, 2, 3, 1, 2, 5, 4, 1, 2, 5, 4, 2, 4, 1, 3, 2, 4, 4,
    4, 4, 4, 3, 4, 4, 1, 5, 1, 1, 3, 2, 3, 1, 4, 1, 1, 4, 4, 4,
    3, 5, 5, 3, 2, 1, 5, 5, 4, 5, 4, 2, 2, 3, 5, 5, 1, 4, 1, 5,
];

/// The segmented reduction demonstration on `backend`: [`SEGMENT_VALUES`] reduced with
/// `Plus` over the segments [`SEGMENT_STARTS`] by `backend.seg_reduce_csr` (the seeds'
/// `SegReduceCsr`), in the seed's layout, starting with two blank lines:
///
/// ```text
///
///
/// SEGMENTED REDUCE-CSR DEMONSTRATION
///
/// Segment starts (CSR):
///     0:     0    9   19   25   71   87   97
/// ...
/// Reduced values:
///     0:    25   34   21  129   48   36   10
/// ```
///
/// # Errors
///
/// The backend's errors (none on the CPU backend).
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// let text = mgpu_demo::seg_reduce_demo(&Backend::cpu())?;
/// assert!(text.ends_with("Reduced values:\n    0:    25   34   21  129   48   36   10\n"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn seg_reduce_demo(backend: &Backend) -> Result<String> {
    let data = backend.upload(&SEGMENT_VALUES)?;
    let csr = backend.upload(&SEGMENT_STARTS)?;
    let reduced = backend.seg_reduce_csr(&data, &csr, Plus)?.to_vec()?;
    Ok(demonstration_titled(
        "SEGMENTED REDUCE-CSR DEMONSTRATION",
        &[
            ("Segment starts (CSR)", print_array(&SEGMENT_STARTS, 10)),
            ("Values", print_array(&SEGMENT_VALUES, 10)),
            ("Reduced values", print_array(&reduced, 10)),
        ],
    ))
}

/// The run lengths of seed 002's reduce-by-key keys (keys 0 to 8, its
/// `keys[i] = keys[i - 1] + (0 == Rand(0, 9))` as it printed them).
pub const KEY_RUNS: [usize; 9] = [3, 3, 29, 8, 2, 11, 13, 1, 30];

/// The 100 values seed 002's reduce-by-key demonstration printed (its
/// `GenRandom<int>(100, 1, 5)`).
#[rustfmt::skip]
pub const KEY_VALUES: [i32; 100] = [
    2, 4, 2, 4, 1, 5, 3, 2, 4, 4, 2, 5, 2, 2, 5, 3, 3, 5, 3, 3,
    2, 2, 1, 4, 4, 2, 1, 4, 1, 3, 1, 3, 2, 4, 2, 5, 1, 2, 1, 5,
    4, 4, 1, 5, 4, 1, 5, 2, 3, 4, 1, 2, 4, 2, 5, 4, 3, 4, 5, 3,
    3, 4, 2, 1, 1, 2, 3, 3, 2, 2, 2, 4, 1, 5, 5, 2, 2, 4, 3, 1,
    3, 5, 4, 1, 2, 3, 2, 2, 5, 5, 1, 3, 3, 3, 4, 5, 5, 2, 4, 3,
];

/// The reduce-by-key demonstration on `backend`: [`KEY_VALUES`] reduced with `Plus` by the
/// runs of the keys that [`KEY_RUNS`] describes, by `backend.reduce_by_key` (the seeds'
/// `ReduceByKey`), in the seed's layout, starting with two blank lines:
///
/// ```text
///
///
/// REDUCE BY KEY DEMONSTRATION
///
/// Keys:
///     0:     0    0    0    1    1    1    2    2    2    2
/// ...
/// Reduced values:
///     0:     8   10   82   23    9   33   36    2   94
/// ```
///
/// # Errors
///
/// The backend's errors (none on the CPU backend).
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// let text = mgpu_demo::reduce_by_key_demo(&Backend::cpu())?;
/// assert!(text.ends_with("Reduced values:\n    0:     8   10   82   23    9   33   36    2   94\n"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn reduce_by_key_demo(backend: &Backend) -> Result<String> {
    let keys: Vec<i32> = KEY_RUNS
        .iter()
        .enumerate()
        .flat_map(|(k, &len)| std::iter::repeat_n(k as i32, len))
        .collect();
    let (reduced_keys, reduced) = backend.reduce_by_key(
        &backend.upload(&keys)?,
        &backend.upload(&KEY_VALUES)?,
        EqualTo,
        Plus,
    )?;
    Ok(demonstration_titled(
        "REDUCE BY KEY DEMONSTRATION",
        &[
            ("Keys", print_array(&keys, 10)),
            ("Values", print_array(&KEY_VALUES, 10)),
            ("Reduced keys", print_array(&reduced_keys.to_vec()?, 10)),
            ("Reduced values", print_array(&reduced.to_vec()?, 10)),
        ],
    ))
}
