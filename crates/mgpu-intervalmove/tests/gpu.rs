//! GPU cross-checks of the interval family: GPU == `mgpu_cpu::intervalmove` bit for bit
//! for expand (load-balanced and naive), gather, scatter and move, up to 10^8 outputs, with
//! counts uniform in [0, 20] and [0, 2], runs of 10^6 zero counts, one count of 2^26, sizes
//! around the tile, every element type, generated inputs, and every bad-input error.
//! Prints each size and the synchronised GPU time (after a warm-up that JIT-loads the
//! module). Ignored without a GPU: run with `cargo xtask test-gpu`, or the bundle's
//! `run.sh`.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

use mgpu_cpu::intervalmove as cpu;
use mgpu_intervalmove::{self as im, IntervalData, IntervalElement, IntervalIndex, Source};
use mgpu_runtime::{Context, Device, DeviceVec};
use mgpu_testkit::Rng;
use std::time::Instant;

fn ctx() -> Context {
    Context::new(0).expect("needs a CUDA GPU")
}

/// Tile of the sm_90 and sm_70 tunings (NT * VT).
const NV: usize = 128 * 7;

/// Counts uniform in `[0, max]` until they cover exactly `n` outputs.
fn uniform_counts(n: usize, max: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    let mut acc = 0usize;
    while acc < n {
        let c = (rng.below(max + 1) as usize).min(n - acc);
        v.push(c as u64);
        acc += c;
    }
    v
}

/// `n`, or at most a `parts`-th of the sanitizer cap: for one of `parts` pieces of an input
/// that must fit under the cap together. `n` itself without a cap.
fn cap_share(n: usize, parts: usize) -> usize {
    n.min(mgpu_testkit::max_len() / parts)
}

/// Runs of 10^6 zero counts around small counts, and one count of 2^26 (under the sanitizer
/// cap, runs of a quarter of it and one count of half of it, so that the counts and the
/// outputs each fit under it).
fn adversarial_counts() -> Vec<u64> {
    let run = cap_share(1_000_000, 4);
    let mut v = vec![0u64; run];
    v.extend(uniform_counts(run, 3, 7));
    v.extend(std::iter::repeat_n(0, run));
    v.push(cap_share(1 << 26, 2) as u64);
    v.extend(std::iter::repeat_n(0, run));
    v.extend(uniform_counts(5_000, 20, 8));
    v
}

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

/// The intervals laid out contiguously in a random order: the starts.
fn layout<I: IntervalIndex>(counts: &[u64], seed: u64) -> Vec<I> {
    let n = counts.len();
    let mut rng = Rng::new(seed);
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
}

fn timed(dev: &Context, what: &str, n: usize, f: impl Fn()) {
    f();
    dev.synchronize().unwrap();
    let t = Instant::now();
    f();
    dev.synchronize().unwrap();
    println!(
        "{what:<34} outputs = {n:>11}  {:>10.1} us",
        t.elapsed().as_secs_f64() * 1e6
    );
}

fn bits<T: mgpu_core::Element>(v: &[T]) -> Vec<[u32; 2]> {
    v.iter().map(|x| x.to_words()).collect()
}

/// Every function on the GPU == the CPU, bit for bit, for these counts.
fn check<T, I>(dev: &Context, name: &str, counts: &[u64], seed: u64, naive: bool)
where
    T: IntervalData + IntervalElement<I> + mgpu_core::Sequence,
    I: IntervalIndex,
{
    let (scan, total) = scan_of::<I>(counts);
    let n = counts.len();
    let vals: Vec<T> = (0..n.max(total) as u64)
        .map(|i| {
            <T as mgpu_core::Sequence>::sequence(
                T::ZERO,
                <T as mgpu_core::Sequence>::ONE,
                i.wrapping_mul(2654435761),
            )
        })
        .collect();
    let gather = layout::<I>(counts, seed);
    let scatter = layout::<I>(counts, seed ^ 0xABCD);
    let sd = DeviceVec::from_slice(dev, &scan).unwrap();
    let gd = DeviceVec::from_slice(dev, &gather).unwrap();
    let scd = DeviceVec::from_slice(dev, &scatter).unwrap();
    let vd = DeviceVec::from_slice(dev, &vals[..n]).unwrap();
    let id = DeviceVec::from_slice(dev, &vals[..total]).unwrap();
    let mut got = DeviceVec::<T, _>::zeros(dev, total).unwrap();
    let mut want = vec![T::ZERO; total];
    let tag = format!("{name} {}/{}", T::NAME, std::any::type_name::<I>());

    cpu::interval_expand(&scan, (&vals[..n]).into(), &mut want).unwrap();
    timed(dev, &format!("expand {tag}"), total, || {
        let mut g = unsafe { mgpu_runtime::DeviceSliceMut::from_raw(dev, got.device_ptr(), total) };
        im::interval_expand(sd.as_slice(), total, vd.as_slice().into(), g.reborrow()).unwrap();
    });
    assert_eq!(bits(&got.to_vec().unwrap()), bits(&want), "expand {tag}");
    if naive {
        got.as_mut_slice()
            .copy_from_host(&vec![T::ZERO; total])
            .unwrap();
        timed(dev, &format!("expand naive {tag}"), total, || {
            let mut g =
                unsafe { mgpu_runtime::DeviceSliceMut::from_raw(dev, got.device_ptr(), total) };
            im::interval_expand_naive(sd.as_slice(), total, vd.as_slice().into(), g.reborrow())
                .unwrap();
        });
        assert_eq!(
            bits(&got.to_vec().unwrap()),
            bits(&want),
            "naive expand {tag}"
        );
    }
    cpu::interval_expand(
        &scan,
        cpu::Source::Sequence {
            first: T::ONE,
            step: T::ONE,
        },
        &mut want,
    )
    .unwrap();
    im::interval_expand(
        sd.as_slice(),
        total,
        Source::counting(T::ONE),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(
        bits(&got.to_vec().unwrap()),
        bits(&want),
        "expand of a sequence {tag}"
    );

    cpu::interval_gather(&scan, &gather, (&vals[..total]).into(), &mut want).unwrap();
    timed(dev, &format!("gather {tag}"), total, || {
        let mut g = unsafe { mgpu_runtime::DeviceSliceMut::from_raw(dev, got.device_ptr(), total) };
        im::interval_gather(
            sd.as_slice(),
            total,
            gd.as_slice(),
            id.as_slice().into(),
            g.reborrow(),
        )
        .unwrap();
    });
    assert_eq!(bits(&got.to_vec().unwrap()), bits(&want), "gather {tag}");

    cpu::interval_scatter(&scan, total, &scatter, (&vals[..total]).into(), &mut want).unwrap();
    timed(dev, &format!("scatter {tag}"), total, || {
        let mut g = unsafe { mgpu_runtime::DeviceSliceMut::from_raw(dev, got.device_ptr(), total) };
        im::interval_scatter(
            sd.as_slice(),
            total,
            scd.as_slice(),
            id.as_slice().into(),
            g.reborrow(),
        )
        .unwrap();
    });
    assert_eq!(bits(&got.to_vec().unwrap()), bits(&want), "scatter {tag}");

    cpu::interval_move(
        &scan,
        total,
        &gather,
        &scatter,
        (&vals[..total]).into(),
        &mut want,
    )
    .unwrap();
    timed(dev, &format!("move {tag}"), total, || {
        let mut g = unsafe { mgpu_runtime::DeviceSliceMut::from_raw(dev, got.device_ptr(), total) };
        im::interval_move(
            sd.as_slice(),
            total,
            gd.as_slice(),
            scd.as_slice(),
            id.as_slice().into(),
            g.reborrow(),
        )
        .unwrap();
    });
    assert_eq!(bits(&got.to_vec().unwrap()), bits(&want), "move {tag}");
    cpu::interval_move(
        &scan,
        total,
        &gather,
        &scatter,
        cpu::Source::Sequence {
            first: T::ZERO,
            step: T::ONE,
        },
        &mut want,
    )
    .unwrap();
    im::interval_move(
        sd.as_slice(),
        total,
        gd.as_slice(),
        scd.as_slice(),
        Source::counting(T::ZERO),
        got.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(
        bits(&got.to_vec().unwrap()),
        bits(&want),
        "move of a sequence {tag}"
    );
}

fn sizes() -> Vec<usize> {
    mgpu_testkit::sizes(&[
        0,
        1,
        NV - 1,
        NV,
        NV + 1,
        3 * NV,
        1_000_003,
        10_000_000,
        100_000_000,
    ])
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_mean_10_i32_u32() {
    let dev = ctx();
    for n in sizes() {
        check::<i32, u32>(
            &dev,
            "uniform[0,20]",
            &uniform_counts(n, 20, n as u64),
            1,
            true,
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_mean_1_f64_u64() {
    let dev = ctx();
    for n in sizes() {
        check::<f64, u64>(
            &dev,
            "uniform[0,2]",
            &uniform_counts(n, 2, n as u64 + 5),
            2,
            n <= 10_000_000,
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_zero_runs_and_one_count_of_2_pow_26() {
    let dev = ctx();
    let counts = adversarial_counts();
    check::<u32, u32>(&dev, "zero runs + 2^26", &counts, 3, false);
    check::<f32, u64>(&dev, "zero runs + 2^26", &counts, 4, false);
    // All the work in one count, and all-zero counts (the cap in sanitizer runs).
    let one = mgpu_testkit::cap(1 << 26) as u64;
    check::<i64, u32>(&dev, "one count", &[one], 5, true);
    let zeros = mgpu_testkit::cap(3_000_000);
    check::<u64, u64>(&dev, "all zero", &vec![0; zeros], 6, true);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_every_type() {
    let dev = ctx();
    // 10^6 outputs (the cap in sanitizer runs).
    let counts = uniform_counts(mgpu_testkit::cap(1_000_000), 20, 9);
    check::<i32, u64>(&dev, "uniform[0,20]", &counts, 10, true);
    check::<u32, u64>(&dev, "uniform[0,20]", &counts, 11, true);
    check::<i64, u64>(&dev, "uniform[0,20]", &counts, 12, true);
    check::<u64, u32>(&dev, "uniform[0,20]", &counts, 13, true);
    check::<f32, u32>(&dev, "uniform[0,20]", &counts, 14, true);
    check::<f64, u32>(&dev, "uniform[0,20]", &counts, 15, true);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_bad_input_errors() {
    let dev = ctx();
    let expand = |scan: &[u32], total: usize| {
        let s = DeviceVec::from_slice(&dev, scan).unwrap();
        let v = DeviceVec::from_slice(&dev, &vec![1i32; scan.len()]).unwrap();
        let mut out = DeviceVec::<i32, _>::zeros(&dev, total).unwrap();
        let a = im::interval_expand(s.as_slice(), total, v.as_slice().into(), out.as_mut_slice());
        let b =
            im::interval_expand_naive(s.as_slice(), total, v.as_slice().into(), out.as_mut_slice());
        (a.unwrap_err().to_string(), b.unwrap_err().to_string())
    };
    // 3 * 10^6 objects, the fault 17/30 of the way in (the cap in sanitizer runs, the fault
    // at the same fraction).
    let n = mgpu_testkit::cap(3_000_000);
    let mut bad: Vec<u32> = (0..n as u32).collect();
    bad[n * 17 / 30] = 5;
    for (a, b) in [expand(&[0, 3, 2], 4), expand(&bad, n)] {
        assert!(
            a.contains("not non-decreasing") && b.contains("not non-decreasing"),
            "{a} / {b}"
        );
    }
    let (a, b) = expand(&[1, 2, 3], 4);
    assert!(a.contains("does not start at 0") && b.contains("does not start at 0"));
    let (a, b) = expand(&[0, 2, 9], 4);
    assert!(a.contains("past the total") && b.contains("past the total"));
    let mut wild: Vec<u32> = (0..mgpu_testkit::cap(100_000) as u32)
        .map(|i| i.wrapping_mul(2654435761u32) ^ 0x5A5A)
        .collect();
    wild[0] = 0;
    let (a, b) = expand(&wild, mgpu_testkit::cap(1_000_000));
    println!("wild scan: {a} / {b}");

    let scan = DeviceVec::from_slice(&dev, &[0u64, 2, 4]).unwrap();
    let input = DeviceVec::from_slice(&dev, &vec![0u32; 1004]).unwrap();
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
    assert!(e.unwrap_err().to_string().contains("gather range"));
    let e = im::interval_move(
        scan.as_slice(),
        1004,
        ok.as_slice(),
        s_bad.as_slice(),
        input.as_slice().into(),
        out.as_mut_slice(),
    );
    assert!(e.unwrap_err().to_string().contains("scatter range"));
    // The context is still usable: no fault.
    let s = DeviceVec::from_slice(&dev, &[0u32, 1]).unwrap();
    let v = DeviceVec::from_slice(&dev, &[3i32, 4]).unwrap();
    let mut o = DeviceVec::<i32, _>::zeros(&dev, 2).unwrap();
    im::interval_expand(s.as_slice(), 2, v.as_slice().into(), o.as_mut_slice()).unwrap();
    assert_eq!(o.to_vec().unwrap(), vec![3, 4]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_overlapping_scatter_is_memory_safe() {
    let dev = ctx();
    // Three intervals of `len` = 5 * 10^5 (under the sanitizer cap, a third of it each)
    // into an output of 1.2 `len`.
    let len = cap_share(500_000, 3);
    let l = len as u32;
    let scan = DeviceVec::from_slice(&dev, &[0u32, l, 2 * l]).unwrap();
    let g = DeviceVec::from_slice(&dev, &[0u32, 0, 0]).unwrap();
    let s = DeviceVec::from_slice(&dev, &[10u32, 10, 100]).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, len + len / 5).unwrap();
    im::interval_move(
        scan.as_slice(),
        3 * len,
        g.as_slice(),
        s.as_slice(),
        Source::counting(0),
        out.as_mut_slice(),
    )
    .unwrap();
    let out = out.to_vec().unwrap();
    // Intervals 0 and 1 both cover [10, len + 10), interval 2 covers [100, len + 100);
    // every overlapped element holds one writer's value, and [len + 100, 1.2 len) is
    // written by no interval and keeps its zero (the first run of this test expected
    // writes there).
    assert!(out[..10].iter().all(|&v| v == 0));
    for (i, &v) in out.iter().enumerate().skip(10) {
        let v = v as usize;
        let ok = if i < len + 10 {
            v == i - 10 || (i >= 100 && v == i - 100)
        } else if i < len + 100 {
            v == i - 100
        } else {
            v == 0
        };
        assert!(ok, "{i}: {v}");
    }
}
