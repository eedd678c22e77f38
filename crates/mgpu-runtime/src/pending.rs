//! [`Pending`]: the one type of a queued launch whose input check is still on the device.

use crate::{Device, ErrorWord, Result};
use mgpu_core::Violation;

/// The validation verdict of a queued launch: the error word its kernels OR bits into as
/// they check the data they read (DESIGN §5), and the [`Violation`] each bit stands for.
/// [`Pending::wait`] synchronises, reads the word and reports what was found, with the same
/// texts as the CPU backend. Dropping it skips the check (the launch still ran
/// memory-safely: every store is clamped).
///
/// Every `*_into` launcher of the interval, bulk and load-balancing families returns one.
///
/// # Examples
///
/// ```
/// use mgpu_core::Violation;
/// use mgpu_runtime::{Device, ErrorWord, Pending, Simulator};
/// let dev = Simulator::new();
/// let word = ErrorWord::zeroed(&dev).unwrap();
/// // A kernel would OR bit 2 into the word here; the host writes it for the example.
/// unsafe { dev.copy_htod(word.as_mut_ptr() as u64, [2u32].as_ptr().cast(), 4).unwrap() };
/// let pending = Pending::new(word, &[(1, Violation::ScanStart), (2, Violation::ScanOrder)]);
/// assert_eq!(
///     pending.wait().unwrap_err().to_string(),
///     "invalid input: the scan is not non-decreasing"
/// );
/// assert!(Pending::<Simulator>::done().wait().is_ok());
/// ```
#[must_use = "wait() reports invalid input"]
pub struct Pending<D: Device> {
    error: ErrorWord<D>,
    meaning: Vec<(u32, Violation)>,
}

impl<D: Device> Pending<D> {
    /// A launch with nothing left to check (nothing was launched, or the host checked it
    /// all).
    ///
    /// ```
    /// assert!(mgpu_runtime::Pending::<mgpu_runtime::Simulator>::done().wait().is_ok());
    /// ```
    pub fn done() -> Self {
        Pending {
            error: ErrorWord::none(),
            meaning: Vec::new(),
        }
    }

    /// The verdict in `error`, whose bits mean `meaning` (bit, violation), reported in that
    /// order.
    ///
    /// ```
    /// use mgpu_core::Violation;
    /// use mgpu_runtime::{ErrorWord, Pending, Simulator};
    /// let dev = Simulator::new();
    /// let p = Pending::new(ErrorWord::zeroed(&dev).unwrap(), &[(1, Violation::InsertOrder)]);
    /// assert!(p.wait().is_ok());
    /// ```
    pub fn new(error: ErrorWord<D>, meaning: &[(u32, Violation)]) -> Self {
        Pending {
            error,
            meaning: meaning.to_vec(),
        }
    }

    /// Synchronises and reports what the kernels found wrong with the input, if anything,
    /// as [`mgpu_core::Error::InvalidInput`] naming every violation found.
    ///
    /// # Examples
    ///
    /// See [`Pending`].
    pub fn wait(self) -> Result<()> {
        Violation::check_word(self.error.read()?, &self.meaning)
    }
}

/// Writes a family's two public forms of each launcher from the queued one: `$into`, which
/// checks, queues and returns a [`Pending`] (its body given here), and `$name`, the same
/// followed by [`Pending::wait`] (validates, synchronises). Each keeps its own doc comment
/// and example. The generics go in brackets, and so do `where` bounds when there are some
/// (`-> Result<Pending<D>> where [Op: Family<T>] { .. }`). rustfmt leaves a macro's input
/// as it is, so a long body belongs in a private function that `$into` calls.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Device, DeviceSlice, Pending, Result};
/// mgpu_runtime::queued_and_blocking! {
///     /// Queues nothing.
///     pub fn touch_into[D: Device](x: DeviceSlice<'_, u32, D>) -> Result<Pending<D>> {
///         let _ = x.len();
///         Ok(Pending::done())
///     }
///     /// [`touch_into`], then [`Pending::wait`].
///     pub fn touch;
/// }
/// let dev = mgpu_runtime::Simulator::new();
/// let v = mgpu_runtime::DeviceVec::from_slice(&dev, &[1u32]).unwrap();
/// assert!(touch(v.as_slice()).is_ok());
/// ```
#[macro_export]
macro_rules! queued_and_blocking {
    ($(
        $(#[$into_doc:meta])*
        pub fn $into:ident [$($generics:tt)*] ($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty
        $(where [$($bounds:tt)*])?
        $body:block
        $(#[$doc:meta])*
        pub fn $name:ident;
    )+) => {$(
        $(#[$into_doc])*
        pub fn $into<$($generics)*>($($arg: $ty),*) -> $ret $(where $($bounds)*)? $body

        $(#[$doc])*
        pub fn $name<$($generics)*>($($arg: $ty),*) -> $crate::Result<()> $(where $($bounds)*)? {
            $into($($arg),*)?.wait()
        }
    )+};
}
