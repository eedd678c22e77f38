//! The scan demonstration: the seeds' `Scan(counts)` on their 50 object counts.

use crate::print_array;
use mgpu::{Backend, Result};

/// The seeds' 50 object counts (the load-balancing search demonstration of seed 001).
///
/// # Examples
///
/// ```
/// let total: u32 = mgpu_demo::OBJECT_COUNTS.iter().sum();
/// assert_eq!(total, 125);
/// ```
pub const OBJECT_COUNTS: [u32; 50] = [
    0, 3, 5, 2, 1, 3, 1, 5, 4, 5, 2, 5, 4, 0, 2, 3, 1, 4, 0, 5, 4, 3, 2, 4, 2, 4, 3, 3, 0, 3, 1, 4,
    4, 4, 4, 2, 0, 3, 0, 5, 0, 0, 0, 0, 2, 2, 3, 0, 4, 4,
];

/// The scan demonstration on `backend`: [`OBJECT_COUNTS`], their exclusive scan
/// (`backend.scan_counts_exclusive_in_place`, the seeds' `Scan(counts)`) and the total,
/// in the seeds' layout, starting with a blank line:
///
/// ```text
///
/// SCAN DEMONSTRATION:
///
/// Object counts
///     0:     0    3    5    2    1    3    1    5    4    5
/// ...
///
/// Scan of object counts:
///     0:     0    0    3    8   10   11   14   15   20   24
/// ...
/// Total:  125
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
/// let text = mgpu_demo::scan_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[1], "SCAN DEMONSTRATION:");
/// assert_eq!(lines[10], "Scan of object counts:");
/// assert_eq!(lines[11], "    0:     0    0    3    8   10   11   14   15   20   24");
/// assert_eq!(lines.last(), Some(&"Total:  125"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn scan_demo(backend: &Backend) -> Result<String> {
    let mut counts = backend.upload(&OBJECT_COUNTS)?;
    let total = backend.scan_counts_exclusive_in_place(&mut counts)?;
    let offsets = counts.to_vec()?;

    let mut text = String::from("\nSCAN DEMONSTRATION:\n\n");
    text += "Object counts\n";
    text += &print_array(&OBJECT_COUNTS, 10);
    text += "\nScan of object counts:\n";
    text += &print_array(&offsets, 10);
    text += &format!("Total: {total:4}\n");
    Ok(text)
}
