//! Small helpers of the checks: the expected bad-input error, and proptest properties
//! inside a check function.

use mgpu_core::Error;
use proptest::test_runner::{Config, TestRunner};

/// Panics unless `r` is `Err(Error::InvalidInput(m))` with `m` containing `what` (any
/// message for `""`), naming what came instead.
///
/// # Examples
///
/// ```
/// use mgpu_core::Error;
/// let r: Result<(), Error> = Err(Error::InvalidInput("scan[0] is not 0".into()));
/// mgpu_testkit::expect_invalid(r, "is not 0");
/// ```
pub fn expect_invalid<T>(r: Result<T, Error>, what: &str) {
    match r {
        Err(Error::InvalidInput(m)) => assert!(m.contains(what), "{m}"),
        Err(e) => panic!("expected InvalidInput({what}), got {e}"),
        Ok(_) => panic!("expected InvalidInput({what}), got Ok"),
    }
}

/// A proptest runner of `cases` cases, for a property inside a check function (the
/// `proptest!` macro writes its own `#[test]`, which the suite macros could not
/// instantiate per backend). Failures are not persisted to files; the failing input is in
/// the panic message.
///
/// # Examples
///
/// ```
/// use proptest::prelude::*;
/// let seen = std::cell::Cell::new(0);
/// mgpu_testkit::proptest_runner(24)
///     .run(&(0u32..100), |x| {
///         seen.set(seen.get() + 1);
///         prop_assert!(x < 100);
///         Ok(())
///     })
///     .unwrap();
/// assert_eq!(seen.get(), 24);
/// ```
pub fn proptest_runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}
