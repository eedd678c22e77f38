//! `Context::new` without a usable GPU: `Error::NoDevice`, no panic (not even a caught one).
//!
//! Alone in its test binary because it installs a panic hook.

use mgpu_runtime::{Context, Device, Error};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn new_reports_no_device_without_panicking() {
    let panics = Arc::new(AtomicUsize::new(0));
    let seen = panics.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
    }));

    // On a machine with a GPU, device 0 opens; everywhere else it is NoDevice.
    let first = Context::new(0);
    // No machine has these.
    let huge = Context::new(1 << 20);
    let max = Context::new(usize::MAX);

    std::panic::set_hook(previous);
    assert_eq!(panics.load(Ordering::SeqCst), 0, "Context::new panicked");

    match first {
        Ok(ctx) => {
            let info = ctx.info();
            assert!(info.compute_capability >= (7, 0), "{info:?}");
            assert!(info.sm_count > 0 && info.total_memory > 0, "{info:?}");
        }
        Err(Error::NoDevice(why)) => assert!(!why.is_empty()),
        Err(e) => panic!("expected a context or NoDevice, got {e:?}"),
    }
    for r in [huge, max] {
        match r {
            Err(Error::NoDevice(why)) => assert!(!why.is_empty()),
            other => panic!("expected NoDevice, got {other:?}"),
        }
    }
}
