//! Simulator vs CPU: the seeds' examples (golden), random and edge-case inputs (proptest:
//! empty input, all-zero counts, long runs of zeros, one count holding all the work, sizes
//! around multiples of the tile; a few tiles each), on both architectures' tunings, and
//! every bad-input error.

use mgpu_core::Arch;
use mgpu_cpu::intervalmove as cpu;
use mgpu_intervalmove::{self as im, IntervalData, IntervalIndex, Source};
use mgpu_runtime::{DeviceVec, Error, Simulator};
use mgpu_testkit::Rng;
use proptest::prelude::*;

fn scan_of<I: IntervalIndex>(counts: &[u64]) -> (Vec<I>, usize) {
    let mut acc = 0u64;
    let scan = counts
        .iter()
        .map(|&c| {
            let s = <I as mgpu_core::Index>::from_usize(acc as usize).unwrap();
            acc += c;
            s
        })
        .collect();
    (scan, acc as usize)
}

const EXPAND_COUNTS: [u32; 20] = [
    2, 5, 7, 16, 0, 1, 0, 0, 14, 10, 3, 14, 2, 1, 11, 2, 1, 0, 5, 6,
];
const FIB: [i32; 20] = [
    1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765,
];
const MOVE_COUNTS: [u32; 20] = [3, 9, 1, 9, 8, 5, 10, 2, 5, 2, 8, 6, 5, 2, 4, 0, 8, 2, 5, 6];
const GATHER: [u32; 20] = [
    75, 86, 17, 2, 67, 24, 37, 11, 95, 35, 52, 18, 47, 0, 13, 75, 78, 60, 62, 29,
];
const SCATTER: [u32; 20] = [
    10, 80, 99, 27, 41, 71, 15, 0, 36, 13, 89, 49, 66, 97, 76, 76, 2, 25, 61, 55,
];

#[rustfmt::skip]
const EXPANDED: [i32; 100] = [
    1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 8, 34, 34, 34, 34, 34, 34, 34, 34, 34,
    34, 34, 34, 34, 34, 55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 89, 89, 89, 144, 144,
    144, 144, 144, 144, 144, 144, 144, 144, 144, 144, 144, 144, 233, 233, 377, 610, 610, 610, 610, 610,
    610, 610, 610, 610, 610, 610, 987, 987, 1597, 4181, 4181, 4181, 4181, 4181, 6765, 6765, 6765, 6765, 6765, 6765,
];
#[rustfmt::skip]
const MOVED: [i32; 100] = [
    11, 12, 78, 79, 80, 81, 82, 83, 84, 85, 75, 76, 77, 35, 36, 37, 38, 39, 40, 41,
    42, 43, 44, 45, 46, 60, 61, 2, 3, 4, 5, 6, 7, 8, 9, 10, 95, 96, 97, 98,
    99, 67, 68, 69, 70, 71, 72, 73, 74, 18, 19, 20, 21, 22, 23, 29, 30, 31, 32, 33,
    34, 62, 63, 64, 65, 66, 47, 48, 49, 50, 51, 24, 25, 26, 27, 28, 13, 14, 15, 16,
    86, 87, 88, 89, 90, 91, 92, 93, 94, 52, 53, 54, 55, 56, 57, 58, 59, 0, 1, 17,
];

fn devs() -> [Simulator; 2] {
    [Simulator::new(), Simulator::with_arch(Arch::Sm70)]
}

#[test]
fn seed_expand_demo() {
    for dev in devs() {
        let counts = DeviceVec::from_slice(&dev, &EXPAND_COUNTS).unwrap();
        let vals = DeviceVec::from_slice(&dev, &FIB).unwrap();
        let mut out = DeviceVec::<i32, _>::zeros(&dev, 100).unwrap();
        let total = im::interval_expand_counts(
            counts.as_slice(),
            vals.as_slice().into(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(total, 100);
        assert_eq!(out.to_vec().unwrap(), EXPANDED);
        let mut naive = DeviceVec::<i32, _>::zeros(&dev, 100).unwrap();
        let (scan, _) = scan_of::<u32>(&EXPAND_COUNTS.map(|c| c as u64));
        let s = DeviceVec::from_slice(&dev, &scan).unwrap();
        im::interval_expand_naive(
            s.as_slice(),
            100,
            vals.as_slice().into(),
            naive.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(naive.to_vec().unwrap(), EXPANDED);
    }
}

#[test]
fn seed_move_demo() {
    for dev in devs() {
        let counts = DeviceVec::from_slice(&dev, &MOVE_COUNTS).unwrap();
        let g = DeviceVec::from_slice(&dev, &GATHER).unwrap();
        let s = DeviceVec::from_slice(&dev, &SCATTER).unwrap();
        let mut out = DeviceVec::<i32, _>::zeros(&dev, 100).unwrap();
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
    let (scan, total) = scan_of::<u32>(&MOVE_COUNTS.map(|c| c as u64));
    let mut out = [0i32; 100];
    cpu::interval_move(
        &scan,
        total,
        &GATHER,
        &SCATTER,
        cpu::Source::Sequence { first: 0, step: 1 },
        &mut out,
    )
    .unwrap();
    assert_eq!(out, MOVED);
}

#[test]
fn seed_comment_example_and_gather_scatter() {
    // "IntervalGather treats scatter_global the same as indices_global", and symmetrically.
    let dev = Simulator::new();
    let (scan, total) = scan_of::<u32>(&MOVE_COUNTS.map(|c| c as u64));
    let sd = DeviceVec::from_slice(&dev, &scan).unwrap();
    let g = DeviceVec::from_slice(&dev, &GATHER).unwrap();
    let s = DeviceVec::from_slice(&dev, &SCATTER).unwrap();
    let mut a = DeviceVec::<u64, _>::zeros(&dev, total).unwrap();
    let mut b = DeviceVec::<u64, _>::zeros(&dev, total).unwrap();
    im::interval_gather(
        sd.as_slice(),
        total,
        g.as_slice(),
        Source::counting(0),
        a.as_mut_slice(),
    )
    .unwrap();
    im::interval_move(
        sd.as_slice(),
        total,
        g.as_slice(),
        sd.as_slice(),
        Source::counting(0),
        b.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
    im::interval_scatter(
        sd.as_slice(),
        total,
        s.as_slice(),
        Source::counting(0),
        a.as_mut_slice(),
    )
    .unwrap();
    im::interval_move(
        sd.as_slice(),
        total,
        sd.as_slice(),
        s.as_slice(),
        Source::counting(0),
        b.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
}

/// Every function on the simulator == the CPU for these counts.
fn check_all<
    T: IntervalData + mgpu_core::Sequence + mgpu_intervalmove::IntervalElement<I>,
    I: IntervalIndex,
>(
    dev: &Simulator,
    counts: &[u64],
    seed: u64,
) {
    let (scan, total) = scan_of::<I>(counts);
    let n = counts.len();
    let mut rng = Rng::new(seed);
    let vals: Vec<T> = (0..n.max(total))
        .map(|i| {
            <T as mgpu_core::Sequence>::sequence(
                T::ZERO,
                <T as mgpu_core::Sequence>::ONE,
                i as u64 * 3 + 1,
            )
        })
        .collect();
    // Gather and scatter: the intervals laid out in a random order (no overlap).
    let layout = |rng: &mut Rng| {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut starts = vec![I::ZERO; n];
        let mut acc = 0usize;
        for &j in &order {
            starts[j] = <I as mgpu_core::Index>::from_usize(acc).unwrap();
            acc += counts[j] as usize;
        }
        starts
    };
    let gather = layout(&mut rng);
    let scatter = layout(&mut rng);
    let sd = DeviceVec::from_slice(dev, &scan).unwrap();
    let gd = DeviceVec::from_slice(dev, &gather).unwrap();
    let scd = DeviceVec::from_slice(dev, &scatter).unwrap();
    let vd = DeviceVec::from_slice(dev, &vals[..n]).unwrap();
    let id = DeviceVec::from_slice(dev, &vals[..total]).unwrap();

    let mut want = vec![T::ZERO; total];
    let mut got = DeviceVec::<T, _>::zeros(dev, total).unwrap();
    cpu::interval_expand(&scan, (&vals[..n]).into(), &mut want).unwrap();
    im::interval_expand(
        sd.as_slice(),
        total,
        vd.as_slice().into(),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "expand");
    im::interval_expand_naive(
        sd.as_slice(),
        total,
        vd.as_slice().into(),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "naive expand");
    let seq = cpu::Source::Sequence {
        first: T::ONE,
        step: T::ONE,
    };
    cpu::interval_expand(&scan, seq, &mut want).unwrap();
    im::interval_expand(
        sd.as_slice(),
        total,
        Source::counting(T::ONE),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "expand of a sequence");

    cpu::interval_gather(&scan, &gather, (&vals[..total]).into(), &mut want).unwrap();
    im::interval_gather(
        sd.as_slice(),
        total,
        gd.as_slice(),
        id.as_slice().into(),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "gather");

    cpu::interval_scatter(&scan, total, &scatter, (&vals[..total]).into(), &mut want).unwrap();
    im::interval_scatter(
        sd.as_slice(),
        total,
        scd.as_slice(),
        id.as_slice().into(),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "scatter");

    cpu::interval_move(
        &scan,
        total,
        &gather,
        &scatter,
        (&vals[..total]).into(),
        &mut want,
    )
    .unwrap();
    im::interval_move(
        sd.as_slice(),
        total,
        gd.as_slice(),
        scd.as_slice(),
        id.as_slice().into(),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "move");
    cpu::interval_move(&scan, total, &gather, &scatter, seq, &mut want).unwrap();
    im::interval_move(
        sd.as_slice(),
        total,
        gd.as_slice(),
        scd.as_slice(),
        Source::counting(T::ONE),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(got.to_vec().unwrap(), want, "move of a sequence");
}

/// Count vectors: random, with zero runs, one big count, tile-boundary sizes.
fn counts_strategy() -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![
        Just(vec![]),
        (0usize..40).prop_map(|n| vec![0; n]),
        proptest::collection::vec(0u64..20, 0..400),
        proptest::collection::vec(0u64..3, 0..1500),
        (0usize..2000, 0usize..3000, 0u64..5).prop_map(|(zeros, at, c)| {
            let mut v = vec![c; 30];
            v.splice(at.min(30)..at.min(30), std::iter::repeat_n(0, zeros));
            v
        }),
        (0usize..200, 0usize..200, 1u64..3000).prop_map(|(n, at, big)| {
            let mut v = vec![0; n + 1];
            v[at.min(n)] = big;
            v
        }),
        // Sizes around multiples of the tile (896 steps): total + n near k * 896.
        (1usize..4, 0usize..5, prop::bool::ANY).prop_map(|(k, d, ones)| {
            let steps = k * 896 + d - 2;
            if ones {
                vec![1; steps / 2]
            } else {
                let mut v = vec![0; steps / 3];
                v[0] = (steps - steps / 3) as u64;
                v
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn sim_matches_cpu_i32_u32(counts in counts_strategy(), seed in any::<u64>()) {
        check_all::<i32, u32>(&Simulator::new(), &counts, seed);
    }
    #[test]
    fn sim_matches_cpu_f64_u64_sm70(counts in counts_strategy(), seed in any::<u64>()) {
        check_all::<f64, u64>(&Simulator::with_arch(Arch::Sm70), &counts, seed);
    }
}

#[test]
fn every_type() {
    let dev = Simulator::new();
    let counts: Vec<u64> = (0..300).map(|i| (i * 7 % 13) as u64).collect();
    check_all::<i32, u64>(&dev, &counts, 1);
    check_all::<u32, u32>(&dev, &counts, 2);
    check_all::<i64, u32>(&dev, &counts, 3);
    check_all::<u64, u64>(&dev, &counts, 4);
    check_all::<f32, u32>(&dev, &counts, 5);
    check_all::<f64, u32>(&dev, &counts, 6);
}

#[test]
fn overlapping_scatter_is_memory_safe() {
    let dev = Simulator::new();
    // Three intervals of 500 all scattered to 10.. of a 600-long output.
    let scan = DeviceVec::from_slice(&dev, &[0u32, 500, 1000]).unwrap();
    let g = DeviceVec::from_slice(&dev, &[0u32, 0, 0]).unwrap();
    let s = DeviceVec::from_slice(&dev, &[10u32, 10, 100]).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, 600).unwrap();
    im::interval_move(
        scan.as_slice(),
        1500,
        g.as_slice(),
        s.as_slice(),
        Source::counting(0),
        out.as_mut_slice(),
    )
    .unwrap();
    let out = out.to_vec().unwrap();
    assert!(out[..10].iter().all(|&v| v == 0));
    for (i, &v) in out.iter().enumerate().skip(10) {
        // One of the writers: rank i - 10 or i - 100.
        assert!(
            v as usize == i - 10 || (i >= 100 && v as usize == i - 100),
            "{i}: {v}"
        );
    }
}

fn err_text(e: Error) -> String {
    e.to_string()
}

#[test]
fn bad_input_errors() {
    let dev = Simulator::new();
    let vals = DeviceVec::from_slice(&dev, &[1i32; 4]).unwrap();
    let run = |scan: &[u32], total: usize| {
        let s = DeviceVec::from_slice(&dev, scan).unwrap();
        let v = DeviceVec::from_slice(&dev, &vec![1i32; scan.len()]).unwrap();
        let mut out = DeviceVec::<i32, _>::zeros(&dev, total).unwrap();
        let a = im::interval_expand(s.as_slice(), total, v.as_slice().into(), out.as_mut_slice())
            .map_err(err_text);
        let mut out2 = DeviceVec::<i32, _>::zeros(&dev, total).unwrap();
        let b = im::interval_expand_naive(
            s.as_slice(),
            total,
            v.as_slice().into(),
            out2.as_mut_slice(),
        )
        .map_err(err_text);
        let mut w = vec![0i32; total];
        let c = cpu::interval_expand(scan, (&vec![1i32; scan.len()][..]).into(), &mut w)
            .map_err(err_text);
        (a, b, c)
    };
    // Not non-decreasing, over several tiles (the partitions contradict the scan too).
    let mut bad: Vec<u32> = (0..3000).collect();
    bad[1700] = 5;
    for (a, b, c) in [run(&[0, 3, 2], 4), run(&bad, 3000)] {
        for r in [a, b, c] {
            assert!(r.unwrap_err().contains("not non-decreasing"));
        }
    }
    let (a, b, c) = run(&[1, 2, 3], 4);
    for r in [a, b, c] {
        assert!(r.unwrap_err().contains("does not start at 0"));
    }
    let (a, b, c) = run(&[0, 2, 9], 4);
    for r in [a, b, c] {
        let e = r.unwrap_err();
        assert!(e.contains("past the total"), "{e}");
    }
    // A decreasing scan with large values past the total.
    let (a, b, _) = run(&[0, u32::MAX, 7, 1, 0], 2000);
    assert!(a.is_err() && b.is_err());
    // The error word comes from the pool unzeroed (the partitions' kernel clears it): the
    // bits of the failed calls above must not reach a valid call that reuses the word.
    for _ in 0..2 {
        assert!(run(&bad, 3000).0.is_err());
        let (a, b, c) = run(&[0, 1, 3], 4);
        assert!(a.is_ok() && b.is_ok() && c.is_ok(), "{a:?} {b:?} {c:?}");
    }
    // Total past the index type.
    let s = DeviceVec::from_slice(&dev, &[0u32]).unwrap();
    let e = im::interval_expand_into(s.as_slice(), 1 << 32, Source::counting(0i32), unsafe {
        mgpu_runtime::DeviceSliceMut::from_raw(&dev, 0, 1 << 32)
    });
    assert!(matches!(e, Err(Error::IndexOverflow { .. })));
    // Lengths.
    let s = DeviceVec::from_slice(&dev, &[0u32, 1]).unwrap();
    let mut out = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
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
    let empty = DeviceVec::<u32, _>::zeros(&dev, 0).unwrap();
    assert!(matches!(
        im::interval_expand(empty.as_slice(), 3, Source::counting(0), out.as_mut_slice()),
        Err(Error::InvalidInput(_))
    ));
}

#[test]
fn bad_gather_scatter_ranges() {
    let dev = Simulator::new();
    let scan = DeviceVec::from_slice(&dev, &[0u64, 2, 4]).unwrap(); // counts 2, 2, 1000
    let input = DeviceVec::from_slice(&dev, &[0u32; 1004]).unwrap();
    let ok = DeviceVec::from_slice(&dev, &[0u64, 2, 4]).unwrap();
    let g_bad = DeviceVec::from_slice(&dev, &[0u64, 1003, 4]).unwrap();
    let s_bad = DeviceVec::from_slice(&dev, &[0u64, 2, u64::MAX - 1]).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, 1004).unwrap();
    let e = im::interval_move(
        scan.as_slice(),
        1004,
        g_bad.as_slice(),
        ok.as_slice(),
        input.as_slice().into(),
        out.as_mut_slice(),
    );
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("gather range is outside the input (length 1004)"));
    let e = im::interval_move(
        scan.as_slice(),
        1004,
        ok.as_slice(),
        s_bad.as_slice(),
        input.as_slice().into(),
        out.as_mut_slice(),
    );
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("scatter range is outside the output (length 1004)"));
    let e = im::interval_gather(
        scan.as_slice(),
        1004,
        g_bad.as_slice(),
        input.as_slice().into(),
        out.as_mut_slice(),
    );
    assert!(e.unwrap_err().to_string().contains("gather range"));
    let e = im::interval_scatter(
        scan.as_slice(),
        1004,
        s_bad.as_slice(),
        input.as_slice().into(),
        out.as_mut_slice(),
    );
    assert!(e.unwrap_err().to_string().contains("scatter range"));
    let mut w = vec![0u32; 1004];
    let h = vec![0u32; 1004];
    let e = cpu::interval_move(
        &[0u64, 2, 4],
        1004,
        &[0, 1003, 4],
        &[0, 2, 4],
        (&h[..]).into(),
        &mut w,
    );
    assert!(e.unwrap_err().to_string().contains("gather range"));
    let e = cpu::interval_scatter(
        &[0u64, 2, 4],
        1004,
        &[0, 2, u64::MAX - 1],
        (&h[..]).into(),
        &mut w,
    );
    assert!(e.unwrap_err().to_string().contains("scatter range"));
}

/// Guard cells around every output: whatever the input, nothing is written outside.
const GUARD: usize = 64;
const POISON: u32 = 0xDEAD_BEEF;

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn garbage_input_is_memory_safe(
        scan in proptest::collection::vec(0u32..3000, 1..1200),
        starts in proptest::collection::vec(any::<u32>(), 1200),
        small in proptest::collection::vec(0u32..2000, 1200),
        total in 0usize..3000,
        out_len in 0usize..2500,
        wild in any::<bool>(),
        sorted in any::<bool>(),
    ) {
        let dev = Simulator::new();
        let mut scan = scan;
        if sorted {
            scan.sort_unstable();
        }
        let n = scan.len();
        let pick: &[u32] = if wild { &starts[..n] } else { &small[..n] };
        let s = DeviceVec::from_slice(&dev, &scan).unwrap();
        let g = DeviceVec::from_slice(&dev, pick).unwrap();
        let input = DeviceVec::from_slice(&dev, &vec![7u32; 1000]).unwrap();
        let mut host = vec![POISON; out_len.max(total) + 2 * GUARD];
        host[GUARD..GUARD + out_len.max(total)].fill(0);
        let mut buf = DeviceVec::from_slice(&dev, &host).unwrap();
        let len = out_len.max(total);
        let check_guards = |buf: &DeviceVec<u32, Simulator>| {
            let v = buf.to_vec().unwrap();
            assert!(v[..GUARD].iter().all(|&x| x == POISON));
            assert!(v[GUARD + len..].iter().all(|&x| x == POISON));
        };
        {
            let mut o = buf.slice_mut(GUARD..GUARD + total).unwrap();
            let _ = im::interval_expand(s.as_slice(), total, input.slice(0..n.min(1000)).unwrap().into(), o.reborrow());
            let _ = im::interval_expand(s.as_slice(), total, Source::counting(1), o.reborrow());
            let _ = im::interval_expand_naive(s.as_slice(), total, Source::counting(1), o.reborrow());
            let _ = im::interval_gather(s.as_slice(), total, g.as_slice(), input.as_slice().into(), o.reborrow());
        }
        check_guards(&buf);
        {
            let mut o = buf.slice_mut(GUARD..GUARD + out_len).unwrap();
            let _ = im::interval_move(s.as_slice(), total, g.as_slice(), g.as_slice(), input.as_slice().into(), o.reborrow());
            let _ = im::interval_move(s.as_slice(), total, g.as_slice(), s.as_slice(), Source::counting(0), o.reborrow());
            let inp = DeviceVec::from_slice(&dev, &vec![3u32; total]).unwrap();
            let _ = im::interval_scatter(s.as_slice(), total, g.as_slice(), inp.as_slice().into(), o.reborrow());
        }
        check_guards(&buf);
        // The CPU agrees on whether the input is valid.
        let mut w = vec![0u32; total];
        let cpu_ok = cpu::interval_expand(&scan, cpu::Source::Sequence { first: 1, step: 1 }, &mut w).is_ok();
        let mut o = buf.slice_mut(GUARD..GUARD + total).unwrap();
        let gpu_ok = im::interval_expand(s.as_slice(), total, Source::counting(1), o.reborrow()).is_ok();
        prop_assert_eq!(cpu_ok, gpu_ok);
        if gpu_ok {
            prop_assert_eq!(o.as_slice().to_vec().unwrap(), w);
        }
    }
}
