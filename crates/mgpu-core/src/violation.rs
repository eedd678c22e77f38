//! The preconditions an input can break that only its data shows, and the one text of
//! each: a GPU launcher maps its kernel's error-word bits to them, the CPU backend finds
//! them with loops, and both build the error with [`Violation::check`], so the same bad
//! input gives the same [`Error`] (kind and text) on every backend.
//!
//! An input that breaks several preconditions is reported by the first of them in the
//! order of the enum (the most basic first: a scan that does not start at 0 before one
//! that decreases, an unsorted index list before an index out of range). Where faults
//! are found differs by backend (a kernel checks what each tile reads, and one fault can
//! make a tile see another), the first one does not, so the message is the same
//! everywhere.

use crate::{Error, Result};
use std::fmt;

/// A broken precondition of an input, found in its data.
///
/// # Examples
///
/// ```
/// use mgpu_core::Violation;
/// assert_eq!(Violation::ScanOrder.to_string(), "the scan is not non-decreasing");
/// let e = Violation::check([Violation::ScanPastTotal { total: 9 }, Violation::ScanStart]);
/// assert_eq!(e.unwrap_err().to_string(), "invalid input: the scan does not start at 0");
/// assert!(Violation::check([]).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Violation {
    /// Work items (a total above 0) with no intervals (objects) to generate them.
    TotalWithoutIntervals {
        /// The total.
        total: u64,
    },
    /// Values (at least one) with no segments to reduce them into.
    ValuesWithoutSegments {
        /// The number of values.
        values: u64,
    },
    /// A scan (of counts, of segment starts) whose first value is not 0.
    ScanStart,
    /// A scan with a value below its predecessor.
    ScanOrder,
    /// A scan with a value past the total it scans to.
    ScanPastTotal {
        /// The total.
        total: u64,
    },
    /// A gather range (interval gather or move) reaching outside the input.
    GatherRange {
        /// The input's length.
        input_len: usize,
    },
    /// A scatter range (interval scatter or move) reaching outside the output.
    ScatterRange {
        /// The output's length.
        output_len: usize,
    },
    /// A column index (SpMV) at or past the dense vector's length.
    ColumnRange {
        /// The vector's length.
        vec_len: usize,
    },
    /// Bulk remove indices that are not strictly increasing.
    RemoveOrder,
    /// A bulk remove index at or past the source length.
    RemoveRange {
        /// The source length.
        source_len: usize,
    },
    /// Bulk insert indices that are not non-decreasing.
    InsertOrder,
    /// A bulk insert index past the source length.
    InsertRange {
        /// The source length.
        source_len: usize,
    },
    /// Reduce-by-key: more runs of equal keys than the outputs have slots.
    RunsPastOutput {
        /// The outputs' length.
        capacity: usize,
    },
    /// A merge input that is not sorted by the merge's comparator. Which input is not
    /// named: a GPU tile whose Merge Path partitions came out of order (only unsorted
    /// input does that) knows that one of them is unsorted, not which.
    MergeOrder,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Violation::ScanStart => write!(f, "the scan does not start at 0"),
            Violation::ScanOrder => write!(f, "the scan is not non-decreasing"),
            Violation::TotalWithoutIntervals { total } => {
                write!(f, "a total of {total} with no intervals")
            }
            Violation::ValuesWithoutSegments { values } => {
                write!(f, "{values} values with no segments")
            }
            Violation::ScanPastTotal { total } => {
                write!(f, "a scan value is past the total {total}")
            }
            Violation::GatherRange { input_len } => {
                write!(
                    f,
                    "a gather range is outside the input (length {input_len})"
                )
            }
            Violation::ScatterRange { output_len } => {
                write!(
                    f,
                    "a scatter range is outside the output (length {output_len})"
                )
            }
            Violation::ColumnRange { vec_len } => {
                write!(f, "a column index is past the vector's length {vec_len}")
            }
            Violation::RemoveOrder => write!(f, "the remove indices are not sorted and unique"),
            Violation::RemoveRange { source_len } => write!(
                f,
                "a remove index is out of range (source length {source_len})"
            ),
            Violation::InsertOrder => write!(f, "the insert indices are not sorted"),
            Violation::InsertRange { source_len } => {
                write!(f, "an insert index is past the source length {source_len}")
            }
            Violation::RunsPastOutput { capacity } => {
                write!(
                    f,
                    "the keys have more runs than the outputs' {capacity} slots"
                )
            }
            Violation::MergeOrder => {
                write!(f, "a merge input is not sorted by the comparator")
            }
        }
    }
}

impl Violation {
    /// `Ok` when nothing was found, else [`Error::InvalidInput`] naming the first violation
    /// in the enum's order (see the module documentation).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{Error, Violation};
    /// let found = [Violation::RemoveRange { source_len: 5 }, Violation::RemoveOrder];
    /// let e = Violation::check(found).unwrap_err();
    /// assert_eq!(e, Error::InvalidInput("the remove indices are not sorted and unique".into()));
    /// ```
    pub fn check(found: impl IntoIterator<Item = Violation>) -> Result<()> {
        match found.into_iter().min() {
            None => Ok(()),
            Some(v) => Err(Error::InvalidInput(v.to_string())),
        }
    }

    /// [`Violation::check`] of the violations whose bits are set in a kernel's error
    /// `word`, given what each bit means; a set bit that `meaning` does not name is an
    /// error of its own (a kernel and its launcher disagreeing).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Violation;
    /// let meaning = [(1, Violation::InsertOrder), (2, Violation::InsertRange { source_len: 4 })];
    /// assert!(Violation::check_word(0, &meaning).is_ok());
    /// let e = Violation::check_word(2, &meaning).unwrap_err().to_string();
    /// assert!(e.ends_with("an insert index is past the source length 4"), "{e}");
    /// let e = Violation::check_word(3, &meaning).unwrap_err().to_string();
    /// assert!(e.ends_with("the insert indices are not sorted"), "{e}");
    /// assert!(Violation::check_word(8, &meaning).unwrap_err().to_string().contains("0x8"));
    /// ```
    pub fn check_word(word: u32, meaning: &[(u32, Violation)]) -> Result<()> {
        let known = meaning.iter().fold(0, |m, (bit, _)| m | bit);
        if word & !known != 0 {
            return Err(Error::InvalidInput(format!(
                "unknown validation error word {word:#x}"
            )));
        }
        Self::check(
            meaning
                .iter()
                .filter(|(bit, _)| word & bit != 0)
                .map(|&(_, v)| v),
        )
    }
}
