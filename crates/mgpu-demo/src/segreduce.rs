//! The segmented reduction demonstration of seed 002 (`DemoSegReduceCsr`).

use crate::print::demonstration_titled;
use crate::print_array;
use mgpu::{Backend, Plus, Result};

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
