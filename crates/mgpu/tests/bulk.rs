//! The facade's bulk functions on the CPU backend and the simulator: the same results from
//! the same input (buffers and generated sequences), errors for invalid input and for
//! buffers of another backend.

use mgpu::{Backend, BulkSource, Error};

fn run(b: &Backend) -> Vec<Vec<f32>> {
    let src: Vec<f32> = (0..2500).map(|i| i as f32 * 0.5).collect();
    let source = b.upload(&src).unwrap();
    let remove: Vec<u64> = (0..2500).filter(|i| i % 7 < 3).collect();
    let remove = b.upload(&remove).unwrap();
    let ins: Vec<u32> = (0..1800).map(|k| (k * 4 / 3) as u32).collect();
    let ins = b.upload(&ins).unwrap();
    let vals: Vec<f32> = (0..1800).map(|k| -(k as f32)).collect();
    let vals = b.upload(&vals).unwrap();
    [
        b.bulk_remove(&source, (&remove).into()).unwrap(),
        b.bulk_remove(&source, BulkSource::step(5u32, 2, 1200))
            .unwrap(),
        b.bulk_insert((&vals).into(), (&ins).into(), &source)
            .unwrap(),
        b.bulk_insert(
            BulkSource::counting(-1.0, 1000),
            BulkSource::step(2500u64, 0, 1000),
            &source,
        )
        .unwrap(),
        b.bulk_insert((&vals).into(), BulkSource::step(0u32, 1, 1800), &source)
            .unwrap(),
    ]
    .iter()
    .map(|x| x.to_vec().unwrap())
    .collect()
}

#[test]
fn cpu_and_simulator_agree() {
    assert_eq!(run(&Backend::cpu()), run(&Backend::simulator()));
}

#[test]
fn invalid_input_and_foreign_buffers() {
    for b in [Backend::cpu(), Backend::simulator()] {
        let source = b.upload(&[1i32, 2, 3]).unwrap();
        let bad = b.upload(&[2u32, 1]).unwrap();
        let e = b.bulk_remove(&source, (&bad).into()).unwrap_err();
        assert!(e.to_string().contains("not sorted and unique"), "{e}");
        let e = b
            .bulk_insert(BulkSource::counting(0, 2), (&bad).into(), &source)
            .unwrap_err();
        assert!(e.to_string().contains("not sorted"), "{e}");
        let e = b
            .bulk_insert(BulkSource::counting(0, 3), (&bad).into(), &source)
            .unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
        let e = b
            .bulk_remove(&source, BulkSource::counting(0u32, 4))
            .unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
        let e = b
            .bulk_remove(&source, BulkSource::step(1u64, 1, 3))
            .unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
    }
    let other = Backend::simulator().upload(&[1i32, 2]).unwrap();
    let idx = Backend::cpu().upload(&[0u32]).unwrap();
    assert!(Backend::cpu().bulk_remove(&other, (&idx).into()).is_err());
}
