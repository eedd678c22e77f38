//! The mergesort demonstrations of seed 004 (`DemoSortKeys`, `DemoSortPairs`).

use crate::print::demonstration;
use crate::print_array;
use mgpu::{Backend, Less, Result};

/// The 100 keys seed 004's sort keys demonstration printed as its input (its
/// `GenRandom<int>(100, 0, 99)`).
#[rustfmt::skip]
pub const SORT_KEYS: [i32; 100] = [
    5, 95, 68, 53, 4, 87, 7, 93, 52, 66, 9, 28, 81, 6, 81, 23, 72, 70, 14, 19,
    65, 42, 51, 93, 97, 14, 64, 64, 80, 47, 45, 43, 43, 24, 82, 50, 8, 90, 13, 7,
    17, 71, 39, 61, 83, 18, 80, 39, 6, 27, 39, 85, 52, 90, 41, 61, 65, 18, 62, 51,
    29, 82, 43, 35, 1, 81, 98, 29, 16, 17, 10, 49, 37, 19, 19, 86, 48, 20, 33, 61,
    95, 87, 92, 39, 5, 94, 73, 16, 26, 97, 42, 56, 54, 59, 94, 13, 41, 56, 98, 55,
];

/// The 100 keys seed 004's sort pairs demonstration printed as its input (its
/// `GenRandom<int>(100, 0, 99)`).
#[rustfmt::skip]
pub const SORT_PAIRS_KEYS: [i32; 100] = [
    30, 31, 70, 12, 66, 73, 53, 24, 69, 82, 66, 18, 17, 31, 12, 88, 99, 67, 17, 73,
    3, 6, 56, 13, 88, 8, 66, 0, 19, 45, 36, 63, 46, 52, 98, 49, 15, 33, 85, 25,
    64, 23, 37, 17, 19, 59, 42, 72, 48, 87, 12, 70, 58, 23, 22, 47, 38, 1, 58, 74,
    25, 65, 29, 7, 61, 47, 26, 99, 82, 53, 98, 89, 73, 77, 34, 20, 58, 90, 10, 37,
    90, 84, 87, 32, 81, 32, 26, 65, 59, 58, 2, 4, 42, 76, 31, 49, 16, 48, 17, 42,
];

/// The sort keys demonstration on `backend`: [`SORT_KEYS`] sorted in place by
/// `backend.mergesort_keys` with `Less` (the seeds' `MergesortKeys` with
/// `mgpu::less<int>()`), in the seed's layout, starting with two blank lines:
///
/// ```text
///
///
/// SORT KEYS DEMONSTRATION:
///
/// Input:
///     0:     5   95   68   53    4   87    7   93   52   66
/// ...
/// Sorted output:
///     0:     1    4    5    5    6    6    7    7    8    9
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
/// let text = mgpu_demo::sort_keys_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "SORT KEYS DEMONSTRATION:");
/// assert_eq!(lines[16], "Sorted output:");
/// assert_eq!(lines[17], "    0:     1    4    5    5    6    6    7    7    8    9");
/// assert_eq!(lines.last(), Some(&"   90:    93   93   94   94   95   95   97   97   98   98"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn sort_keys_demo(backend: &Backend) -> Result<String> {
    let mut data = backend.upload(&SORT_KEYS)?;
    backend.mergesort_keys(&mut data, Less)?;
    Ok(demonstration(
        "SORT KEYS",
        &[
            ("Input", print_array(&SORT_KEYS, 10)),
            ("Sorted output", print_array(&data.to_vec()?, 10)),
        ],
    ))
}

/// The sort pairs demonstration on `backend`: [`SORT_PAIRS_KEYS`] with the values 0 to 99
/// (the seed's `FillAscending<int>(N, 0, 1)`) sorted by key in place by
/// `backend.mergesort_pairs` with `Less` (the seeds' `MergesortPairs`), in the seed's
/// layout, starting with two blank lines. The sort is stable, so the sorted values of
/// equal keys are in increasing order: they are the permutation that sorts the keys.
///
/// The first label is `Input keys:`, as the seed's `DemoSortPairs` prints it; the output
/// shown on the seed's page reads `Input:` there, which its code does not print.
///
/// ```text
///
///
/// SORT PAIRS DEMONSTRATION:
///
/// Input keys:
///     0:    30   31   70   12   66   73   53   24   69   82
/// ...
/// Sorted keys:
///     0:     0    1    2    3    4    6    7    8   10   12
/// ...
/// Sorted values:
///     0:    27   57   90   20   91   21   63   25   78    3
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
/// let text = mgpu_demo::sort_pairs_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "SORT PAIRS DEMONSTRATION:");
/// assert_eq!(lines[4], "Input keys:");
/// assert_eq!(lines[28], "Sorted values:");
/// assert_eq!(lines[29], "    0:    27   57   90   20   91   21   63   25   78    3");
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn sort_pairs_demo(backend: &Backend) -> Result<String> {
    const N: usize = SORT_PAIRS_KEYS.len();
    let values: Vec<i32> = (0..N as i32).collect();
    let mut keys = backend.upload(&SORT_PAIRS_KEYS)?;
    let mut vals = backend.upload(&values)?;
    backend.mergesort_pairs(&mut keys, &mut vals, Less)?;
    // "Input keys", as the seed's code prints it (its page's printout shows "Input").
    Ok(demonstration(
        "SORT PAIRS",
        &[
            ("Input keys", print_array(&SORT_PAIRS_KEYS, 10)),
            ("Sorted keys", print_array(&keys.to_vec()?, 10)),
            ("Sorted values", print_array(&vals.to_vec()?, 10)),
        ],
    ))
}
