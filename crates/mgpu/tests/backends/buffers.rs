//! Buffers: upload, zeros, results that stay on their backend, and buffers of another
//! backend.

use mgpu::{Backend, Buffer, Error, Maximum, Plus};
use mgpu_testkit::Target;

/// Upload and read back every element type; zeros; `len` and `is_empty`.
pub fn upload_and_zeros(backend: &Backend, _: Target) {
    assert_eq!(
        backend.upload(&[1i32, -2]).unwrap().to_vec().unwrap(),
        [1, -2]
    );
    assert_eq!(
        backend.upload(&[u32::MAX]).unwrap().to_vec().unwrap(),
        [u32::MAX]
    );
    assert_eq!(
        backend.upload(&[i64::MIN, 3]).unwrap().to_vec().unwrap(),
        [i64::MIN, 3]
    );
    assert_eq!(
        backend.upload(&[u64::MAX]).unwrap().to_vec().unwrap(),
        [u64::MAX]
    );
    assert_eq!(
        backend.upload(&[0.5f32, -1.0]).unwrap().to_vec().unwrap(),
        [0.5, -1.0]
    );
    assert_eq!(
        backend.upload(&[1e300f64]).unwrap().to_vec().unwrap(),
        [1e300]
    );
    let many: Vec<u32> = (0..10_000).collect();
    let buf = backend.upload(&many).unwrap();
    assert_eq!((buf.len(), buf.is_empty()), (10_000, false));
    assert_eq!(buf.to_vec().unwrap(), many);

    let z = backend.zeros::<f64>(5).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![0.0; 5]);
    let z = backend.zeros::<i64>(0).unwrap();
    assert!(z.is_empty() && z.to_vec().unwrap().is_empty());
    let empty = backend.upload::<u64>(&[]).unwrap();
    assert_eq!((empty.len(), empty.is_empty()), (0, true));
}

/// Buffers the backend returns are its own: they feed its next calls, also through a
/// clone of the backend; the variant matches the backend.
pub fn results_stay_on_the_backend(backend: &Backend, _: Target) {
    let x = backend.upload(&[3i32, 1, 4, 1, 5]).unwrap();
    let (inclusive, total) = backend.scan_inclusive(&x, Plus).unwrap();
    assert_eq!(total, 14);
    let (again, _) = backend.clone().scan_exclusive(&inclusive, Maximum).unwrap();
    assert_eq!(again.to_vec().unwrap(), vec![i32::MIN, 3, 4, 8, 9]);
    assert_eq!(backend.reduce(&again, Maximum).unwrap(), 9);
    let mut z = backend.zeros::<u32>(3).unwrap();
    assert_eq!(backend.scan_counts_exclusive_in_place(&mut z).unwrap(), 0);
    let matching = matches!(
        (backend, &again),
        (Backend::Cuda(_), Buffer::Cuda(_))
            | (Backend::Simulator(_), Buffer::Simulator(_))
            | (Backend::Cpu, Buffer::Host(_))
    );
    assert!(matching, "{backend:?} returned {again:?}");
}

/// Backends whose buffers `backend` must refuse: the other kinds, and another instance of
/// its own kind where instances do not share memory and streams.
fn strangers(backend: &Backend) -> Vec<Backend> {
    match backend {
        Backend::Cpu => vec![Backend::simulator()],
        Backend::Simulator(_) => vec![Backend::cpu(), Backend::simulator()],
        Backend::Cuda(_) => vec![
            Backend::cpu(),
            Backend::simulator(),
            Backend::cuda(0).expect("needs a CUDA GPU"),
        ],
    }
}

fn assert_foreign<T: std::fmt::Debug>(r: mgpu::Result<T>, what: &str) {
    match r {
        Err(Error::InvalidInput(msg)) => {
            assert!(
                msg.contains(&format!("the {what} buffer belongs to")),
                "{msg}"
            );
            assert!(msg.contains("backend that made them"), "{msg}");
        }
        other => panic!("expected InvalidInput for a foreign {what} buffer, got {other:?}"),
    }
}

/// A buffer of another backend is `Error::InvalidInput` with a clear message, and an
/// in-place call leaves it untouched.
pub fn foreign_buffers_are_refused(backend: &Backend, _: Target) {
    for other in strangers(backend) {
        let x = other.upload(&[1i32, 2, 3]).unwrap();
        assert_foreign(backend.scan_exclusive(&x, Plus), "input");
        assert_foreign(backend.scan_inclusive(&x, Plus), "input");
        assert_foreign(backend.reduce(&x, Maximum), "input");
        let mut y = other.upload(&[1i32, 2, 3]).unwrap();
        assert_foreign(backend.scan_exclusive_in_place(&mut y, Plus), "data");
        assert_foreign(backend.scan_inclusive_in_place(&mut y, Plus), "data");
        assert_eq!(y.to_vec().unwrap(), vec![1, 2, 3]);
        let mut c = other.upload(&[1u32, 2]).unwrap();
        assert_foreign(backend.scan_counts_exclusive(&c), "counts");
        assert_foreign(backend.scan_counts_exclusive_in_place(&mut c), "counts");
        assert_eq!(c.to_vec().unwrap(), vec![1, 2]);
        // And the other way round.
        let mine = backend.upload(&[5u64]).unwrap();
        assert_foreign(other.reduce(&mine, Plus), "input");
    }
}

mgpu_testkit::backend_tests! {
    upload_and_zeros,
    results_stay_on_the_backend,
    foreign_buffers_are_refused,
}
