//! The load-balancing search demonstration of seed 001 (`DemoLBS`): the 50 object
//! counts, their scan and total, and the object that generated each work item.

use crate::{print_array, OBJECT_COUNTS};
use mgpu::{Backend, Result};

/// The load-balancing search demonstration on `backend`: [`OBJECT_COUNTS`], their
/// exclusive scan and total (`backend.scan_counts_exclusive_in_place`, the seeds'
/// `Scan(counts)`), then `backend.load_balance_search` of the scan (the seeds'
/// `LoadBalanceSearch`): the 125 object references, in the seed's layout, starting with
/// two blank lines as the seed's `printf("\n\nLOAD-BALANCING SEARCH DEMONSTRATION:\n\n")`:
///
/// ```text
///
///
/// LOAD-BALANCING SEARCH DEMONSTRATION:
///
/// Object counts
///     0:     0    3    5    2    1    3    1    5    4    5
/// ...
/// Total:  125
///
/// Object references:
///     0:     1    1    1    2    2    2    2    2    3    3
/// ...
///   120:    48   49   49   49   49
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
/// let text = mgpu_demo::load_balance_demo(&Backend::cpu())?;
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines[2], "LOAD-BALANCING SEARCH DEMONSTRATION:");
/// assert_eq!(lines[17], "Total:  125");
/// assert_eq!(lines[19], "Object references:");
/// assert_eq!(lines.last(), Some(&"  120:    48   49   49   49   49"));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub fn load_balance_demo(backend: &Backend) -> Result<String> {
    let mut counts = backend.upload(&OBJECT_COUNTS)?;
    let total = backend.scan_counts_exclusive_in_place(&mut counts)?;
    let refs = backend.load_balance_search(&counts, total)?;

    let mut text = String::from("\n\nLOAD-BALANCING SEARCH DEMONSTRATION:\n\n");
    text += "Object counts\n";
    text += &print_array(&OBJECT_COUNTS, 10);
    text += "\nScan of object counts:\n";
    text += &print_array(&counts.to_vec()?, 10);
    text += &format!("Total: {total:4}\n");
    text += "\nObject references:\n";
    text += &print_array(&refs.to_vec()?, 10);
    Ok(text)
}
