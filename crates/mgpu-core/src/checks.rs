//! The argument checks of each algorithm that every backend makes (the GPU launchers, the
//! CPU backend, the facade before it allocates), written once so that the same bad call
//! gives the same [`Error`](crate::Error), kind and text, everywhere. Checks of the data
//! itself are [`Violation`](crate::Violation)s.

use crate::{Error, Index, Result};

/// Bulk remove's sizes, in this order: at most `source_len` indices, an output of
/// `source_len - indices` (when `output` is given: the facade allocates its own), a source
/// length that fits `I`.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::bulk_remove::<u32>(10, 4, Some(6)).is_ok());
/// let e = checks::bulk_remove::<u32>(10, 4, Some(5)).unwrap_err();
/// assert_eq!(e.to_string(), "bulk_remove output: expected length 6, got 5");
/// assert!(checks::bulk_remove::<u32>(3, 4, None).is_err());
/// ```
pub fn bulk_remove<I: Index>(
    source_len: usize,
    indices: usize,
    output: Option<usize>,
) -> Result<()> {
    if indices > source_len {
        return Err(Error::LengthMismatch {
            what: "bulk_remove indices (at most the source length)",
            expected: source_len,
            got: indices,
        });
    }
    if let Some(out) = output {
        Error::check_len("bulk_remove output", source_len - indices, out)?;
    }
    Error::check_fits::<I>("bulk_remove source length", source_len)
}

/// Bulk insert's sizes, in this order: one index per value, an output of
/// `source_len + values` (when `output` is given), a source length that fits `I`.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::bulk_insert::<u64>(10, 2, 2, Some(12)).is_ok());
/// let e = checks::bulk_insert::<u64>(10, 2, 3, None).unwrap_err();
/// assert_eq!(e.to_string(), "bulk_insert indices (one per value): expected length 2, got 3");
/// ```
pub fn bulk_insert<I: Index>(
    source_len: usize,
    values: usize,
    indices: usize,
    output: Option<usize>,
) -> Result<()> {
    Error::check_len("bulk_insert indices (one per value)", values, indices)?;
    if let Some(out) = output {
        Error::check_len("bulk_insert output", source_len + values, out)?;
    }
    Error::check_fits::<I>("bulk_insert source length", source_len)
}
