//! What only `mgpu-intervalmove`'s own launchers show, on the simulators and CUDA: the
//! counts forms, outputs of the wrong length, a total past the index type, and garbage
//! input writing nothing outside its output.

use crate::golden::*;
use mgpu_cpu::intervalmove as cpu;
use mgpu_intervalmove::{self as im, Source};
use mgpu_runtime::{Device, DeviceSliceMut, DeviceVec, Error};
use mgpu_testkit::{Guarded, Target};
use proptest::prelude::*;

/// The seeds' demonstrations through the counts forms: the scan is computed on the device.
fn seed_counts_forms<D: Device>(dev: &D, _: Target) {
    let counts = DeviceVec::from_slice(dev, &EXPAND_COUNTS).unwrap();
    let vals = DeviceVec::from_slice(dev, &FIB).unwrap();
    let mut out = DeviceVec::<i32, _>::zeros(dev, 100).unwrap();
    let total = im::interval_expand_counts(
        counts.as_slice(),
        vals.as_slice().into(),
        out.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(total, 100);
    assert_eq!(out.to_vec().unwrap(), EXPANDED);

    let counts = DeviceVec::from_slice(dev, &MOVE_COUNTS).unwrap();
    let g = DeviceVec::from_slice(dev, &GATHER).unwrap();
    let s = DeviceVec::from_slice(dev, &SCATTER).unwrap();
    let mut out = DeviceVec::<i32, _>::zeros(dev, 100).unwrap();
    let total = im::interval_move_counts(
        counts.as_slice(),
        g.as_slice(),
        s.as_slice(),
        Source::counting(0),
        out.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(total, 100);
    assert_eq!(out.to_vec().unwrap(), MOVED);
}

/// Outputs and values of the wrong length are `LengthMismatch`, an empty scan with a
/// positive total `InvalidInput`, and a total past the index type `IndexOverflow` (before
/// anything is written: the output is not memory).
fn output_lengths_and_overflow<D: Device>(dev: &D, _: Target) {
    let vals = DeviceVec::from_slice(dev, &[1i32; 4]).unwrap();
    let s = DeviceVec::from_slice(dev, &[0u32, 1]).unwrap();
    let mut out = DeviceVec::<i32, _>::zeros(dev, 3).unwrap();
    assert!(matches!(
        im::interval_expand(s.as_slice(), 3, vals.as_slice().into(), out.as_mut_slice()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        im::interval_expand(
            s.as_slice(),
            4,
            vals.slice(0..2).unwrap().into(),
            out.as_mut_slice()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    let empty = DeviceVec::<u32, _>::zeros(dev, 0).unwrap();
    assert!(matches!(
        im::interval_expand(empty.as_slice(), 3, Source::counting(0), out.as_mut_slice()),
        Err(Error::InvalidInput(_))
    ));
    let s = DeviceVec::from_slice(dev, &[0u32]).unwrap();
    // SAFETY: the call must refuse the total before it touches the output.
    let e = im::interval_expand_into(s.as_slice(), 1 << 32, Source::counting(0i32), unsafe {
        DeviceSliceMut::from_raw(dev, 0, 1 << 32)
    });
    assert!(matches!(e, Err(Error::IndexOverflow { .. })));
}

/// Any scan, starts, total and output length (32 cases, as the earlier `proptest!`
/// block): nothing is written outside the output, and the CPU backend agrees on whether
/// the input is valid (and on the result when it is).
fn garbage_input_is_memory_safe<D: Device>(dev: &D, _: Target) {
    let strategy = (
        proptest::collection::vec(0u32..3000, 1..1200),
        proptest::collection::vec(any::<u32>(), 1200),
        proptest::collection::vec(0u32..2000, 1200),
        0usize..3000,
        0usize..2500,
        any::<bool>(),
        any::<bool>(),
    );
    mgpu_testkit::proptest_runner(32)
        .run(
            &strategy,
            |(mut scan, starts, small, total, out_len, wild, sorted)| {
                if sorted {
                    scan.sort_unstable();
                }
                let n = scan.len();
                let pick: &[u32] = if wild { &starts[..n] } else { &small[..n] };
                let s = DeviceVec::from_slice(dev, &scan).unwrap();
                let g = DeviceVec::from_slice(dev, pick).unwrap();
                let input = DeviceVec::from_slice(dev, &vec![7u32; 1000]).unwrap();
                let few = input.slice(0..n.min(1000)).unwrap();
                let mut o = Guarded::<u32, D>::new(dev, total).unwrap();
                let _ = im::interval_expand(s.as_slice(), total, few.into(), o.slice());
                let _ = im::interval_expand(s.as_slice(), total, Source::counting(1), o.slice());
                let _ =
                    im::interval_expand_naive(s.as_slice(), total, Source::counting(1), o.slice());
                let _ = im::interval_gather(
                    s.as_slice(),
                    total,
                    g.as_slice(),
                    input.as_slice().into(),
                    o.slice(),
                );
                o.check_guards("expand and gather");
                let mut o = Guarded::<u32, D>::new(dev, out_len).unwrap();
                let (gs, ss) = (g.as_slice(), s.as_slice());
                let _ = im::interval_move(ss, total, gs, gs, input.as_slice().into(), o.slice());
                let _ = im::interval_move(ss, total, gs, ss, Source::counting(0), o.slice());
                let inp = DeviceVec::from_slice(dev, &vec![3u32; total]).unwrap();
                let _ = im::interval_scatter(ss, total, gs, inp.as_slice().into(), o.slice());
                o.check_guards("move and scatter");
                // The CPU backend agrees on whether the input is valid.
                let mut w = vec![0u32; total];
                let seq = cpu::Source::Sequence { first: 1, step: 1 };
                let cpu_ok = cpu::interval_expand(&scan, seq, &mut w).is_ok();
                let mut o = Guarded::<u32, D>::new(dev, total).unwrap();
                let dev_ok =
                    im::interval_expand(s.as_slice(), total, Source::counting(1), o.slice())
                        .is_ok();
                prop_assert_eq!(cpu_ok, dev_ok);
                if dev_ok {
                    prop_assert_eq!(o.to_vec(), w);
                }
                Ok(())
            },
        )
        .unwrap();
}

mgpu_testkit::device_tests! {
    seed_counts_forms,
    output_lengths_and_overflow,
    garbage_input_is_memory_safe,
}

/// Both ways the move kernel stores ([`MODE_DIRECT`](mgpu_intervalmove::device::MODE_DIRECT):
/// item by item from registers; without it, interval by interval from shared memory),
/// launched on the simulator in tiles of 32 x 3 over the same intervals: the same outputs
/// and error bits, and the test kit's plain loop (or, where a gather and a scatter run
/// past the arrays, the items that lie inside them). The host picks one by size, so the
/// facade's tests reach only the direct stores on the simulator; CUDA runs both (outputs
/// above `DIRECT_STORE_BYTES`).
#[test]
fn move_store_paths_agree() {
    use mgpu_core::sim;
    use mgpu_intervalmove::device::{self, IntervalArgs, MODE_GATHER, MODE_SCATTER};
    use mgpu_intervalmove::kernels::Move;
    use mgpu_testkit::{self as kit, Rng};
    let mut rng = Rng::new(0x57053);
    // Counts uniform in [0, 20], [0, 2] and [0, 300] (intervals longer than a tile), the
    // gather and scatter starts laid out in two different random orders.
    let mut cases: Vec<(Vec<u64>, Vec<u64>, Vec<u64>)> = [(500, 20), (150, 2), (2000, 300)]
        .into_iter()
        .map(|(items, max)| {
            let counts = kit::uniform_counts(&mut rng, items, max);
            let g = kit::shuffled_layout(&mut rng, &counts);
            (counts.clone(), g, kit::shuffled_layout(&mut rng, &counts))
        })
        .collect();
    // Two intervals of 4 over 8 outputs: one reads past the input (5..9), the other
    // writes past the output (6..10).
    let mut bad = (vec![0u64; 9], vec![0u64; 9], vec![0u64; 9]);
    (bad.0[3], bad.0[5], bad.1[3], bad.2[5]) = (4, 4, 5, 6);
    cases.push(bad);
    for (case, (counts, gather, scatter)) in cases.iter().enumerate() {
        let (scan, total) = kit::offsets(counts);
        let input: Vec<i32> = (0..total as i32).map(|x| 3 * x + 1).collect();
        let (scan32, g32, s32) = (
            kit::to_index::<u32>(&scan),
            kit::to_index::<u32>(gather),
            kit::to_index::<u32>(scatter),
        );
        let mp = mgpu_cpu::partition::load_balance_partitions(&scan32, total as usize, 96).unwrap();
        let run = |direct: bool| {
            let (mut out, mut err) = (vec![-1i32; total as usize], [0u32]);
            let mut a = IntervalArgs::<i32, u32>::empty();
            (a.total, a.num_intervals) = (total as u32, counts.len() as u32);
            (a.scan, a.mp, a.gather, a.scatter) =
                (scan32.as_ptr(), mp.as_ptr(), g32.as_ptr(), s32.as_ptr());
            (a.input, a.input_len) = (input.as_ptr(), input.len() as u64);
            (a.output, a.output_len) = (out.as_mut_ptr(), out.len() as u64);
            a.error = err.as_mut_ptr();
            a.mode = MODE_GATHER | MODE_SCATTER | if direct { device::MODE_DIRECT } else { 0 };
            sim::launch_kernel::<Move<i32, u32, 32, 3>>(mp.len() as u32 - 1, &a);
            (out, err[0])
        };
        let (direct, staged) = (run(true), run(false));
        assert_eq!(direct, staged, "case {case}");
        let want = if case == 3 {
            // Interval 3: inputs 5, 6, 7 to outputs 0, 1, 2; interval 5: inputs 0, 1 to 6, 7.
            (
                vec![16, 19, 22, -1, -1, -1, 1, 4],
                device::ERROR_GATHER | device::ERROR_SCATTER,
            )
        } else {
            let mut want = vec![-1i32; total as usize];
            kit::interval_move(&scan, total, gather, scatter, &input, &mut want);
            (want, 0)
        };
        assert_eq!(direct, want, "case {case}");
    }
}
