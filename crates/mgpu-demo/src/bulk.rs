//! The bulk remove and bulk insert demonstrations of seed 003 (`DemoBulkRemove`,
//! `DemoBulkInsert`).

use crate::print::demonstration;
use crate::print_array;
use mgpu::{Backend, BulkSource, Result};

/// The bulk remove demonstration on `backend`: the 100 integers 0 to 99 (the seed's
/// `FillAscending`), then `backend.bulk_remove` (the seeds' `BulkRemove`) of every 3rd
/// element (indices `0, 3, 6, ...`, 34 of them), in the seed's layout, starting with two
/// blank lines:
///
/// ```text
///
///
/// BULK REMOVE DEMONSTRATION:
///
/// Input array:
///     0:     0    1    2    3    4    5    6    7    8    9
/// ...
/// Removing every 3rd element:
///     0:     1    2    4    5    7    8   10   11   13   14
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
/// let text = mgpu_demo::bulk_remove_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "BULK REMOVE DEMONSTRATION:");
/// assert_eq!(lines.last(), Some(&"   60:    91   92   94   95   97   98"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn bulk_remove_demo(backend: &Backend) -> Result<String> {
    const N: usize = 100;
    let input: Vec<i32> = (0..N as i32).collect();
    let data = backend.upload(&input)?;
    let remove_count = N.div_ceil(3);
    let out = backend.bulk_remove(&data, BulkSource::step(0u32, 3, remove_count))?;

    Ok(demonstration(
        "BULK REMOVE",
        &[
            ("Input array", print_array(&input, 10)),
            (
                "Removing every 3rd element",
                print_array(&out.to_vec()?, 10),
            ),
        ],
    ))
}

/// The bulk insert demonstration on `backend`: the 100 integers 0 to 99, then
/// `backend.bulk_insert` (the seeds' `BulkInsert`) of the values `1000, 1010, ...`
/// (`step_iterator<int>(1000, 10)`) before positions `2, 7, 12, ...`
/// (`step_iterator<int>(2, 5)`), 20 of them, in the seed's layout, starting with two
/// blank lines.
///
/// # Errors
///
/// The backend's errors (none on the CPU backend).
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// let text = mgpu_demo::bulk_insert_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "BULK INSERT DEMONSTRATION:");
/// assert_eq!(lines[17], "    0:     0    1 1000    2    3    4    5    6 1010    7");
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn bulk_insert_demo(backend: &Backend) -> Result<String> {
    const N: usize = 100;
    let input: Vec<i32> = (0..N as i32).collect();
    let data = backend.upload(&input)?;
    let insert_count = (N - 2).div_ceil(5);
    let out = backend.bulk_insert(
        BulkSource::step(1000i32, 10, insert_count),
        BulkSource::step(2u32, 5, insert_count),
        &data,
    )?;

    Ok(demonstration(
        "BULK INSERT",
        &[
            ("Input array", print_array(&input, 10)),
            (
                "Inserting before every 5th element starting at item 2",
                print_array(&out.to_vec()?, 10),
            ),
        ],
    ))
}
