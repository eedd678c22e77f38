//! The seeds' `PrintArray`.

use std::fmt::{Display, Write};

/// The seeds' `PrintArray(data, "%4d", cols)`: `cols` values per row, each row the index
/// of its first value right-aligned in 5 columns, a colon and two spaces, then the values
/// right-aligned in 4 columns and separated by one space, and a newline. The last row may
/// be shorter; no values give an empty string.
///
/// # Panics
///
/// If `cols` is 0.
///
/// # Examples
///
/// ```
/// use mgpu_demo::print_array;
/// assert_eq!(
///     print_array(&[0, 3, 5, 12, 100], 3),
///     "    0:     0    3    5\n    3:    12  100\n"
/// );
/// assert_eq!(print_array::<u32>(&[], 10), "");
/// ```
pub fn print_array<T: Display>(values: &[T], cols: usize) -> String {
    assert!(cols > 0, "print_array needs at least one column");
    let mut out = String::new();
    for (row, chunk) in values.chunks(cols).enumerate() {
        write!(out, "{:5}:  ", row * cols).unwrap();
        for (i, v) in chunk.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            write!(out, "{v:4}").unwrap();
        }
        out.push('\n');
    }
    out
}

/// A demonstration's text in the seeds' layout: two blank lines, `{title} DEMONSTRATION:`
/// and a blank line, then each array (printed, 10 columns) under its label, with a blank
/// line between them.
pub(crate) fn demonstration(title: &str, arrays: &[(&str, String)]) -> String {
    demonstration_titled(&format!("{title} DEMONSTRATION:"), arrays)
}

/// [`demonstration`] with its whole title line given (seed 002 prints no colon).
pub(crate) fn demonstration_titled(title: &str, arrays: &[(&str, String)]) -> String {
    let mut text = format!("\n\n{title}\n\n");
    for (i, (label, printed)) in arrays.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text += label;
        text += ":\n";
        text += printed;
    }
    text
}
