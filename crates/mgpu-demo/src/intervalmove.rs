//! The interval expand and interval move demonstrations of seed 000 (`DemoIntervalExpand`,
//! `DemoIntervalMove`).

use crate::print::demonstration;
use crate::print_array;
use mgpu::{Backend, IntervalSource, Result};

/// Seed 000's expand counts.
const EXPAND_COUNTS: [u32; 20] = [
    2, 5, 7, 16, 0, 1, 0, 0, 14, 10, 3, 14, 2, 1, 11, 2, 1, 0, 5, 6,
];
/// Seed 000's expand values: the first 20 Fibonacci numbers.
const EXPAND_VALUES: [i32; 20] = [
    1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765,
];
/// Seed 000's interval move counts.
const MOVE_COUNTS: [u32; 20] = [3, 9, 1, 9, 8, 5, 10, 2, 5, 2, 8, 6, 5, 2, 4, 0, 8, 2, 5, 6];
/// Seed 000's interval gather starts.
const MOVE_GATHER: [u32; 20] = [
    75, 86, 17, 2, 67, 24, 37, 11, 95, 35, 52, 18, 47, 0, 13, 75, 78, 60, 62, 29,
];
/// Seed 000's interval scatter starts.
const MOVE_SCATTER: [u32; 20] = [
    10, 80, 99, 27, 41, 71, 15, 0, 36, 13, 89, 49, 66, 97, 76, 76, 2, 25, 61, 55,
];

/// The interval expand demonstration on `backend`: seed 000's 20 counts and Fibonacci
/// values, the counts scanned (`backend.scan_counts_exclusive`, the seeds' `Scan`), then
/// `backend.interval_expand` (the seeds' `IntervalExpand`), in the seed's layout, starting
/// with two blank lines:
///
/// ```text
///
///
/// INTERVAL-EXPAND DEMONSTRATION:
///
/// Expand counts:
///     0:     2    5    7   16    0    1    0    0   14   10
/// ...
/// Expanded data:
///     0:     1    1    1    1    1    1    1    2    2    2
/// ...
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
/// let text = mgpu_demo::interval_expand_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "INTERVAL-EXPAND DEMONSTRATION:");
/// assert_eq!(lines[13], "    0:     1    1    1    1    1    1    1    2    2    2");
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn interval_expand_demo(backend: &Backend) -> Result<String> {
    let counts = backend.upload(&EXPAND_COUNTS)?;
    let (scan, total) = backend.scan_counts_exclusive(&counts)?;
    let values = backend.upload(&EXPAND_VALUES)?;
    let data = backend.interval_expand(&scan, total as usize, (&values).into())?;

    Ok(demonstration(
        "INTERVAL-EXPAND",
        &[
            ("Expand counts", print_array(&EXPAND_COUNTS, 10)),
            ("Expand values", print_array(&EXPAND_VALUES, 10)),
            ("Expanded data", print_array(&data.to_vec()?, 10)),
        ],
    ))
}

/// The interval move demonstration on `backend`: seed 000's 20 counts, gather and scatter
/// starts, the counts scanned, then `backend.interval_move` of the counting sequence
/// (`IntervalSource::counting(0)`, the seed's `counting_iterator<int>(0)`) into 100
/// outputs, in the seed's layout, starting with two blank lines.
///
/// # Errors
///
/// The backend's errors (none on the CPU backend).
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// let text = mgpu_demo::interval_move_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "INTERVAL-MOVE DEMONSTRATION:");
/// assert_eq!(lines.last(), Some(&"   90:    53   54   55   56   57   58   59    0    1   17"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn interval_move_demo(backend: &Backend) -> Result<String> {
    let counts = backend.upload(&MOVE_COUNTS)?;
    let gather = backend.upload(&MOVE_GATHER)?;
    let scatter = backend.upload(&MOVE_SCATTER)?;
    let (scan, total) = backend.scan_counts_exclusive(&counts)?;
    let mut data = backend.zeros::<i32>(total as usize)?;
    backend.interval_move(
        &scan,
        total as usize,
        &gather,
        &scatter,
        IntervalSource::counting(0),
        &mut data,
    )?;

    Ok(demonstration(
        "INTERVAL-MOVE",
        &[
            ("Interval counts", print_array(&MOVE_COUNTS, 10)),
            ("Interval gather", print_array(&MOVE_GATHER, 10)),
            ("Interval scatter", print_array(&MOVE_SCATTER, 10)),
            ("Moved data", print_array(&data.to_vec()?, 10)),
        ],
    ))
}
