//! Errors of every mgpu call.

use std::fmt;

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong in an mgpu call.
///
/// # Examples
///
/// ```
/// use mgpu_core::Error;
/// let e = Error::LengthMismatch { what: "output", expected: 3, got: 2 };
/// assert_eq!(e.to_string(), "output: expected length 3, got 2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No CUDA driver, or no device with that ordinal, or the device is older than sm_70.
    NoDevice(String),
    /// The CUDA context is unusable after a device fault (a trap, an illegal address).
    /// Every later call on the same `mgpu_runtime::Context` returns this too; make a new one.
    ContextLost(String),
    /// A CUDA driver call failed.
    Cuda(String),
    /// Device memory is exhausted.
    OutOfMemory {
        /// Bytes asked for.
        bytes: usize,
    },
    /// An input or output had the wrong length.
    LengthMismatch {
        /// Which argument.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        got: usize,
    },
    /// A result (a total, a count) does not fit the index type.
    IndexOverflow {
        /// What overflowed.
        what: &'static str,
        /// The largest value of the index type.
        max: u64,
    },
    /// The input breaks a precondition (unsorted, out of range, ...); the text says which.
    InvalidInput(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDevice(s) => write!(f, "no CUDA device: {s}"),
            Error::ContextLost(s) => write!(f, "CUDA context lost after a device fault: {s}"),
            Error::Cuda(s) => write!(f, "CUDA error: {s}"),
            Error::OutOfMemory { bytes } => write!(f, "out of device memory ({bytes} bytes asked)"),
            Error::LengthMismatch {
                what,
                expected,
                got,
            } => {
                write!(f, "{what}: expected length {expected}, got {got}")
            }
            Error::IndexOverflow { what, max } => {
                write!(f, "{what} does not fit the index type (max {max})")
            }
            Error::InvalidInput(s) => write!(f, "invalid input: {s}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// `Ok` when `v` fits the index type `I`, else [`Error::IndexOverflow`] naming `what`:
    /// the one check every launcher and the CPU backend make of a size against `I`.
    ///
    /// ```
    /// use mgpu_core::Error;
    /// assert!(Error::check_fits::<u32>("total", u32::MAX as usize).is_ok());
    /// let e = Error::check_fits::<u32>("total", 1 << 32).unwrap_err();
    /// assert_eq!(e.to_string(), "total does not fit the index type (max 4294967295)");
    /// ```
    pub fn check_fits<I: crate::Index>(what: &'static str, v: usize) -> Result<()> {
        let max = I::MAX.to_u64();
        if v as u64 > max {
            return Err(Error::IndexOverflow { what, max });
        }
        Ok(())
    }

    /// `Ok` when `got == expected`, else [`Error::LengthMismatch`] naming `what`: the one
    /// length check of every launcher and of the CPU backend.
    ///
    /// ```
    /// use mgpu_core::Error;
    /// assert!(Error::check_len("output", 3, 3).is_ok());
    /// let e = Error::check_len("output", 3, 2).unwrap_err();
    /// assert_eq!(e.to_string(), "output: expected length 3, got 2");
    /// ```
    pub fn check_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
        if got != expected {
            return Err(Error::LengthMismatch {
                what,
                expected,
                got,
            });
        }
        Ok(())
    }
}
