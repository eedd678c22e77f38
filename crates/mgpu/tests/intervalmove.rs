//! The facade's interval functions on the CPU backend and the simulator: the same results
//! from the same input (non-overlapping destinations), errors for invalid input and for
//! buffers of another backend.

use mgpu::{Backend, Buffer, Error, IntervalSource};

struct Out {
    expand: Vec<f64>,
    naive: Vec<f64>,
    sequence: Vec<f64>,
    gather: Vec<f64>,
    scatter: Vec<f64>,
    moved: Vec<f64>,
}

fn run(b: &Backend) -> Out {
    // Counts 3, 0, 0, 5, 1, 0, 2 (total 11) laid out in two orders.
    let scan = b.upload(&[0u64, 3, 3, 3, 8, 9, 9]).unwrap();
    let gather = b.upload(&[8u64, 0, 0, 0, 5, 6, 6]).unwrap();
    let scatter = b.upload(&[0u64, 3, 3, 3, 9, 8, 1]).unwrap();
    let values = b.upload(&[0.5f64, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]).unwrap();
    let input: Vec<f64> = (0..11).map(|i| i as f64 * 0.25).collect();
    let input = b.upload(&input).unwrap();
    let expand = b.interval_expand(&scan, 11, (&values).into()).unwrap();
    let naive = b
        .interval_expand_naive(&scan, 11, (&values).into())
        .unwrap();
    let sequence = b
        .interval_expand(&scan, 11, IntervalSource::step(1.0, 2.0))
        .unwrap();
    let gathered = b
        .interval_gather(&scan, 11, &gather, (&input).into())
        .unwrap();
    let mut scattered = b.zeros::<f64>(12).unwrap();
    b.interval_scatter(&scan, 11, &scatter, (&input).into(), &mut scattered)
        .unwrap();
    let mut moved = b.zeros::<f64>(12).unwrap();
    b.interval_move(&scan, 11, &gather, &scatter, (&input).into(), &mut moved)
        .unwrap();
    let v = |x: &Buffer<f64>| x.to_vec().unwrap();
    Out {
        expand: v(&expand),
        naive: v(&naive),
        sequence: v(&sequence),
        gather: v(&gathered),
        scatter: v(&scattered),
        moved: v(&moved),
    }
}

#[test]
fn cpu_and_simulator_agree() {
    let c = run(&Backend::cpu());
    let s = run(&Backend::simulator());
    assert_eq!(
        c.expand,
        [0.5, 0.5, 0.5, 3.5, 3.5, 3.5, 3.5, 3.5, 4.5, 6.5, 6.5]
    );
    assert_eq!(c.naive, c.expand);
    assert_eq!(
        c.sequence,
        [1.0, 1.0, 1.0, 7.0, 7.0, 7.0, 7.0, 7.0, 9.0, 13.0, 13.0]
    );
    for (a, b) in [
        (&c.expand, &s.expand),
        (&c.naive, &s.naive),
        (&c.sequence, &s.sequence),
        (&c.gather, &s.gather),
        (&c.scatter, &s.scatter),
        (&c.moved, &s.moved),
    ] {
        assert_eq!(a, b);
    }
}

#[test]
fn invalid_input_and_foreign_buffers() {
    for b in [Backend::cpu(), Backend::simulator()] {
        let scan = b.upload(&[0u32, 4, 2]).unwrap();
        let values = b.upload(&[1i32, 2, 3]).unwrap();
        let e = b.interval_expand(&scan, 5, (&values).into()).unwrap_err();
        assert!(e.to_string().contains("not non-decreasing"), "{e}");
        let scan = b.upload(&[0u32, 1]).unwrap();
        let gather = b.upload(&[0u32, 9]).unwrap();
        let e = b
            .interval_gather(&scan, 3, &gather, (&values).into())
            .unwrap_err();
        assert!(e.to_string().contains("gather range"), "{e}");
        let other = Backend::simulator();
        let foreign = other.upload(&[0u32, 1]).unwrap();
        assert!(matches!(
            b.interval_expand(&foreign, 2, IntervalSource::counting(0i32)),
            Err(Error::InvalidInput(_))
        ));
    }
}
