//! Interval expand, gather, scatter and move through the facade, on every backend: each
//! result against the test kit's plain loops, bit for bit.

use crate::golden::*;
use mgpu::Sequence;
use mgpu::{Backend, Buffer, Error, IntervalData, IntervalElement, IntervalIndex, IntervalSource};
use mgpu_testkit::{self as kit, Rng, Target};
use proptest::prelude::*;

/// Tile of the sm_90 and sm_70 tunings (NT * VT).
const NV: usize = 128 * 7;

/// The element types of the facade's interval calls, with index type `I`.
pub trait Elem<I>: IntervalData + IntervalElement<I> + Sequence {}
impl<T: IntervalData + IntervalElement<I> + Sequence, I> Elem<I> for T {}

/// `first + step * k` (wrapping for integers), as the facade's CPU path generates it.
fn seq<T: Sequence>(first: T, step: T, k: u64) -> T {
    <T as Sequence>::sequence(first, step, k)
}

fn up<I: IntervalIndex>(b: &Backend, v: &[u64]) -> Buffer<I> {
    b.upload(&kit::to_index::<I>(v)).unwrap()
}

fn got<T: mgpu::Element>(x: &Buffer<T>) -> Vec<[u32; 2]> {
    kit::bits(&x.to_vec().unwrap())
}

/// The target to pass to [`check`] for no timing print.
const UNTIMED: Target = Target::Cpu;

/// Every call on `b` == the plain loops, bit for bit, for these counts: expand (values,
/// and the sequence `1, 2, ...`), the naive expand when `naive`, gather, scatter and move
/// (values, and the sequence `0, 1, ...`), the starts laid out in two random orders
/// (seeds `seed` and `seed ^ 0xABCD`). Timed on CUDA.
fn check<T: Elem<I>, I: IntervalIndex>(
    b: &Backend,
    t: Target,
    name: &str,
    counts: &[u64],
    seed: u64,
    naive: bool,
) {
    let (scan, total) = kit::offsets(counts);
    let n = counts.len();
    let len = total as usize;
    let vals: Vec<T> = (0..n.max(len) as u64)
        .map(|i| seq(T::ZERO, T::ONE, i.wrapping_mul(2654435761)))
        .collect();
    let gather = kit::shuffled_layout(&mut Rng::new(seed), counts);
    let scatter = kit::shuffled_layout(&mut Rng::new(seed ^ 0xABCD), counts);
    let (sd, gd, scd) = (up::<I>(b, &scan), up::<I>(b, &gather), up::<I>(b, &scatter));
    let vd = b.upload(&vals[..n]).unwrap();
    let id = b.upload(&vals[..len]).unwrap();
    let tag = format!("{name} {}/{}", T::NAME, std::any::type_name::<I>());
    let timed =
        |what: &str, f: &mut dyn FnMut() -> Buffer<T>| t.timed(&format!("{what} {tag}"), len, f);

    let want = kit::bits(&kit::interval_expand(&scan, total, &vals[..n]));
    let e = timed("expand", &mut || {
        b.interval_expand(&sd, len, (&vd).into()).unwrap()
    });
    assert_eq!(got(&e), want, "expand {tag}");
    if naive {
        let e = timed("expand naive", &mut || {
            b.interval_expand_naive(&sd, len, (&vd).into()).unwrap()
        });
        assert_eq!(got(&e), want, "naive expand {tag}");
    }
    let ones: Vec<T> = (0..n as u64).map(|k| seq(T::ONE, T::ONE, k)).collect();
    let e = b
        .interval_expand(&sd, len, IntervalSource::counting(T::ONE))
        .unwrap();
    let want = kit::interval_expand(&scan, total, &ones);
    assert_eq!(got(&e), kit::bits(&want), "expand of a sequence {tag}");

    let g = timed("gather", &mut || {
        b.interval_gather(&sd, len, &gd, (&id).into()).unwrap()
    });
    let want = kit::interval_gather(&scan, total, &gather, &vals[..len]);
    assert_eq!(got(&g), kit::bits(&want), "gather {tag}");

    let mut want = vec![T::ZERO; len];
    kit::interval_scatter(&scan, total, &scatter, &vals[..len], &mut want);
    let s = timed("scatter", &mut || {
        let mut o = b.zeros::<T>(len).unwrap();
        b.interval_scatter(&sd, len, &scd, (&id).into(), &mut o)
            .unwrap();
        o
    });
    assert_eq!(got(&s), kit::bits(&want), "scatter {tag}");

    let mut want = vec![T::ZERO; len];
    kit::interval_move(&scan, total, &gather, &scatter, &vals[..len], &mut want);
    let m = timed("move", &mut || {
        let mut o = b.zeros::<T>(len).unwrap();
        b.interval_move(&sd, len, &gd, &scd, (&id).into(), &mut o)
            .unwrap();
        o
    });
    assert_eq!(got(&m), kit::bits(&want), "move {tag}");
    let counting: Vec<T> = (0..len as u64).map(|k| seq(T::ZERO, T::ONE, k)).collect();
    kit::interval_move(&scan, total, &gather, &scatter, &counting, &mut want);
    let mut m = b.zeros::<T>(len).unwrap();
    b.interval_move(
        &sd,
        len,
        &gd,
        &scd,
        IntervalSource::counting(T::ZERO),
        &mut m,
    )
    .unwrap();
    assert_eq!(got(&m), kit::bits(&want), "move of a sequence {tag}");
}

fn seed_expand_demo(b: &Backend, _: Target) {
    let (scan, total) = scan_of(&EXPAND_COUNTS);
    assert_eq!(total, 100);
    let s = up::<u32>(b, &scan);
    let v = b.upload(&FIB).unwrap();
    let e = b.interval_expand(&s, 100, (&v).into()).unwrap();
    assert_eq!(e.to_vec().unwrap(), EXPANDED);
    let e = b.interval_expand_naive(&s, 100, (&v).into()).unwrap();
    assert_eq!(e.to_vec().unwrap(), EXPANDED);
    assert_eq!(kit::interval_expand(&scan, total, &FIB), EXPANDED);
}

fn seed_move_demo(b: &Backend, _: Target) {
    let (scan, total) = scan_of(&MOVE_COUNTS);
    assert_eq!(total, 100);
    let s = up::<u32>(b, &scan);
    let g = b.upload(&GATHER).unwrap();
    let sc = b.upload(&SCATTER).unwrap();
    let mut out = b.zeros::<i32>(100).unwrap();
    b.interval_move(&s, 100, &g, &sc, IntervalSource::counting(0), &mut out)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), MOVED);
}

/// "IntervalGather treats scatter_global the same as indices_global", and symmetrically.
fn seed_comment_example_and_gather_scatter(b: &Backend, _: Target) {
    let (scan, _) = scan_of(&MOVE_COUNTS);
    let s = up::<u32>(b, &scan);
    let g = b.upload(&GATHER).unwrap();
    let sc = b.upload(&SCATTER).unwrap();
    let gathered = b
        .interval_gather(&s, 100, &g, IntervalSource::counting(0u64))
        .unwrap();
    let mut moved = b.zeros::<u64>(100).unwrap();
    b.interval_move(&s, 100, &g, &s, IntervalSource::counting(0), &mut moved)
        .unwrap();
    assert_eq!(gathered.to_vec().unwrap(), moved.to_vec().unwrap());
    let mut scattered = b.zeros::<u64>(100).unwrap();
    b.interval_scatter(&s, 100, &sc, IntervalSource::counting(0), &mut scattered)
        .unwrap();
    b.interval_move(&s, 100, &s, &sc, IntervalSource::counting(0), &mut moved)
        .unwrap();
    assert_eq!(scattered.to_vec().unwrap(), moved.to_vec().unwrap());
}

/// A small example with empty intervals through every call, `f64` with `u64` indices.
fn small_example(b: &Backend, _: Target) {
    // Counts 3, 0, 0, 5, 1, 0, 2 (total 11) laid out in two orders; the scatter ranges
    // are disjoint (0..3 at 8, 3..8 at 0, 8 at 11, 9..11 at 5; output 7 is left alone),
    // since which writer wins an overlap is unspecified and differs between backends.
    let scan = [0u64, 3, 3, 3, 8, 9, 9];
    let (gather, scatter) = ([8u64, 0, 0, 0, 5, 6, 6], [8u64, 0, 0, 0, 11, 0, 5]);
    let values = [0.5f64, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5];
    let input: Vec<f64> = (0..11).map(|i| i as f64 * 0.25).collect();
    let (s, g, sc) = (
        up::<u64>(b, &scan),
        up::<u64>(b, &gather),
        up::<u64>(b, &scatter),
    );
    let (v, i) = (b.upload(&values).unwrap(), b.upload(&input).unwrap());
    let expanded = [0.5, 0.5, 0.5, 3.5, 3.5, 3.5, 3.5, 3.5, 4.5, 6.5, 6.5];
    let e = b.interval_expand(&s, 11, (&v).into()).unwrap();
    assert_eq!(e.to_vec().unwrap(), expanded);
    let e = b.interval_expand_naive(&s, 11, (&v).into()).unwrap();
    assert_eq!(e.to_vec().unwrap(), expanded);
    let e = b
        .interval_expand(&s, 11, IntervalSource::step(1.0, 2.0))
        .unwrap();
    assert_eq!(
        e.to_vec().unwrap(),
        [1.0, 1.0, 1.0, 7.0, 7.0, 7.0, 7.0, 7.0, 9.0, 13.0, 13.0]
    );
    let e = b.interval_gather(&s, 11, &g, (&i).into()).unwrap();
    assert_eq!(
        e.to_vec().unwrap(),
        kit::interval_gather(&scan, 11, &gather, &input)
    );
    let mut o = b.zeros::<f64>(12).unwrap();
    b.interval_scatter(&s, 11, &sc, (&i).into(), &mut o)
        .unwrap();
    let mut want = vec![0.0; 12];
    kit::interval_scatter(&scan, 11, &scatter, &input, &mut want);
    assert_eq!(o.to_vec().unwrap(), want);
    let mut o = b.zeros::<f64>(12).unwrap();
    b.interval_move(&s, 11, &g, &sc, (&i).into(), &mut o)
        .unwrap();
    let mut want = vec![0.0; 12];
    kit::interval_move(&scan, 11, &gather, &scatter, &input, &mut want);
    assert_eq!(o.to_vec().unwrap(), want);
}

/// Sizes around the tile, then large ones, within the backend's budget.
fn sizes(t: Target) -> Vec<usize> {
    t.sizes(&[
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

/// Counts uniform in [0, 20] (mean 10, `ANCHORS.md`), `i32` with `u32` indices.
fn mean_10_i32_u32(b: &Backend, t: Target) {
    for n in sizes(t) {
        let counts = kit::uniform_counts(&mut Rng::new(n as u64), n, 20);
        check::<i32, u32>(b, t, "uniform[0,20]", &counts, 1, true);
    }
}

/// Counts uniform in [0, 2] (mean 1), `f64` with `u64` indices (the naive expand up to
/// 10^7).
fn mean_1_f64_u64(b: &Backend, t: Target) {
    for n in sizes(t) {
        let counts = kit::uniform_counts(&mut Rng::new(n as u64 + 5), n, 2);
        check::<f64, u64>(b, t, "uniform[0,2]", &counts, 2, n <= 10_000_000);
    }
}

/// Real counts: the row lengths of the sparse matrix `lund_a` (expanding per-row values
/// to its nonzeros, CSR to COO), once and repeated past several tiles, as `f64` with
/// `u32` indices and `i64` with `u64` indices.
fn real_counts(b: &Backend, t: Target) {
    let rows = kit::lund_a_row_lengths();
    for copies in [1, 11] {
        let counts: Vec<u64> = rows
            .iter()
            .copied()
            .cycle()
            .take(copies * rows.len())
            .collect();
        let what = format!("lund_a row lengths x{copies}");
        check::<f64, u32>(b, t, &what, &counts, 9, true);
        check::<i64, u64>(b, t, &what, &counts, 10, true);
    }
}

/// Runs of 10^6 zero counts around small counts, and one count of 2^26 (within the
/// budget, runs of a quarter of it and one count of half of it, so that the counts and
/// the outputs each fit); one count holding all the work, all-zero counts, the kit's
/// edge cases, and mean-1 counts with a count of 2000 every 3001 (tiles that spill).
fn zero_runs_and_one_huge_count(b: &Backend, t: Target) {
    let run = t.cap_share(1_000_000, 4);
    let mut counts = vec![0u64; run];
    counts.extend(kit::uniform_counts(&mut Rng::new(7), run, 3));
    counts.extend(std::iter::repeat_n(0, run));
    counts.push(t.cap_share(1 << 26, 2) as u64);
    counts.extend(std::iter::repeat_n(0, run));
    counts.extend(kit::uniform_counts(&mut Rng::new(8), 5_000, 20));
    check::<u32, u32>(b, t, "zero runs + 2^26", &counts, 3, false);
    check::<f32, u64>(b, t, "zero runs + 2^26", &counts, 4, false);
    let one = t.cap(1 << 26) as u64;
    check::<i64, u32>(b, t, "one count", &[one], 5, true);
    let zeros = t.cap(3_000_000);
    check::<u64, u64>(b, t, "all zero", &vec![0; zeros], 6, true);
    for case in kit::edge_counts(&mut Rng::new(9), t.cap_share(100_000, 2)) {
        check::<i32, u32>(b, t, case.name, &case.counts, 10, true);
    }
    // Mean-1 counts with a count of 2000 every 3001 intervals (mean 1.7: object tiles):
    // several tiles spill their Merge Path chunks in one launch.
    let mut rng = Rng::new(11);
    let counts: Vec<u64> = (0..t.cap_share(200_000, 4))
        .map(|i| if i % 3001 == 1234 { 2000 } else { rng.below(3) })
        .collect();
    check::<i32, u32>(
        b,
        t,
        "mean 1, a count of 2000 every 3001",
        &counts,
        12,
        true,
    );
    check::<f64, u64>(
        b,
        t,
        "mean 1, a count of 2000 every 3001",
        &counts,
        13,
        true,
    );
}

/// Every element type with either index type: periodic counts of 300 objects, and 10^6
/// outputs of counts uniform in [0, 20] (within the budget).
fn every_type(b: &Backend, t: Target) {
    /// `check::<T, I>` of `counts` for each `T, I` in turn, with seeds from `seed` up.
    macro_rules! check_types {
        ($name:expr, $counts:expr, $seed:expr; $($T:ty, $I:ty);+) => {{
            let mut seeds = $seed..;
            $(check::<$T, $I>(b, t, $name, $counts, seeds.next().unwrap(), true);)+
        }};
    }
    let counts: Vec<u64> = (0..300).map(|i| (i * 7 % 13) as u64).collect();
    check_types!("periodic", &counts, 1;
        i32, u64; u32, u32; i64, u32; u64, u64; f32, u32; f64, u32);
    let counts = kit::uniform_counts(&mut Rng::new(9), t.cap(1_000_000), 20);
    check_types!("uniform[0,20]", &counts, 10;
        i32, u64; u32, u64; i64, u64; u64, u32; f32, u32; f64, u32);
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

/// Random counts (24 cases, as the earlier `proptest!` block) through every call.
fn random_counts<T: Elem<I>, I: IntervalIndex>(b: &Backend, _: Target) {
    // The cases proptest once shrank failures to (the old simulator suite's regressions
    // file): no intervals at all.
    check::<T, I>(b, UNTIMED, "saved: no intervals", &[], 0, true);
    mgpu_testkit::proptest_runner(24)
        .run(&(counts_strategy(), any::<u64>()), |(counts, seed)| {
            check::<T, I>(b, UNTIMED, "random", &counts, seed, true);
            Ok(())
        })
        .unwrap();
}

/// Three intervals of `len` = 500 (5 * 10^5 within the budget, a third of it each) into
/// an output of 1.2 `len`, two of them onto the same place: every overlapped element
/// holds one writer's value, nothing is written outside the intervals.
fn overlapping_scatter_is_memory_safe(b: &Backend, t: Target) {
    for len in [500, t.cap_share(500_000, 3)] {
        let l = len as u32;
        let scan = b.upload(&[0u32, l, 2 * l]).unwrap();
        let g = b.upload(&[0u32, 0, 0]).unwrap();
        let s = b.upload(&[10u32, 10, 100]).unwrap();
        let mut out = b.zeros::<u32>(len + len / 5).unwrap();
        b.interval_move(
            &scan,
            3 * len,
            &g,
            &s,
            IntervalSource::counting(0),
            &mut out,
        )
        .unwrap();
        let out = out.to_vec().unwrap();
        // Intervals 0 and 1 both cover [10, len + 10), interval 2 covers
        // [100, len + 100); [len + 100, 1.2 len) is written by no interval.
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
            assert!(ok, "len {len}, {i}: {v}");
        }
    }
}

/// The error of an expand and of a naive expand of `scan` (`i32` values of 1).
fn expand_errors(b: &Backend, scan: &[u32], total: usize) -> (String, String) {
    let s = b.upload(scan).unwrap();
    let v = b.upload(&vec![1i32; scan.len()]).unwrap();
    let e = |r: Result<Buffer<i32>, Error>| r.map(|_| ()).unwrap_err().to_string();
    (
        e(b.interval_expand(&s, total, (&v).into())),
        e(b.interval_expand_naive(&s, total, (&v).into())),
    )
}

/// Every bad scan: not non-decreasing (over several tiles too: the partitions contradict
/// the scan there; and at 3 * 10^6 objects, 17/30 of the way in), not starting at 0,
/// past the total, a decreasing scan with values past the total; the backend stays
/// usable, and a failed call's error bits never reach the next call (the error word comes
/// from the pool unzeroed; the partitions' kernel clears it).
fn bad_scans(b: &Backend, t: Target) {
    let mut bad: Vec<u32> = (0..3000).collect();
    bad[1700] = 5;
    let n = t.cap(3_000_000);
    let mut far: Vec<u32> = (0..n as u32).collect();
    far[n * 17 / 30] = 5;
    for (scan, total) in [(&[0, 3, 2][..], 4), (&bad, 3000), (&far, n)] {
        let (a, c) = expand_errors(b, scan, total);
        assert!(
            a.contains("not non-decreasing") && c.contains("not non-decreasing"),
            "{a} / {c}"
        );
    }
    let (a, c) = expand_errors(b, &[1, 2, 3], 4);
    assert!(a.contains("does not start at 0") && c.contains("does not start at 0"));
    let (a, c) = expand_errors(b, &[0, 2, 9], 4);
    assert!(a.contains("past the total") && c.contains("past the total"));
    expand_errors(b, &[0, u32::MAX, 7, 1, 0], 2000);
    let mut wild: Vec<u32> = (0..t.cap(100_000) as u32)
        .map(|i| i.wrapping_mul(2654435761u32) ^ 0x5A5A)
        .collect();
    wild[0] = 0;
    let (a, c) = expand_errors(b, &wild, t.cap(1_000_000));
    if t == Target::Cuda {
        println!("wild scan: {a} / {c}");
    }
    let ok = |scan: &[u32]| {
        let s = b.upload(scan).unwrap();
        let v = b.upload(&[3i32, 4, 5]).unwrap();
        let e = b.interval_expand(&s, 4, (&v).into()).unwrap();
        assert_eq!(e.to_vec().unwrap(), [3, 4, 5, 5]);
        let e = b.interval_expand_naive(&s, 4, (&v).into()).unwrap();
        assert_eq!(e.to_vec().unwrap(), [3, 4, 5, 5]);
    };
    for _ in 0..2 {
        expand_errors(b, &bad, 3000);
        ok(&[0, 1, 2]);
    }
    // Values of another length than the scan; an empty scan with a positive total.
    let s = b.upload(&[0u32, 1]).unwrap();
    let v = b.upload(&[1i32, 2, 3, 4]).unwrap();
    let e = b.interval_expand(&s, 3, (&v).into()).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    let empty = b.upload::<u32>(&[]).unwrap();
    let e = b
        .interval_expand(&empty, 3, IntervalSource::counting(0i32))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidInput(_)), "{e}");
}

/// Panics unless `r` is an error whose message contains `what`.
fn expect_error<T>(r: Result<T, Error>, what: &str) {
    match r {
        Err(e) => assert!(e.to_string().contains(what), "{e}"),
        Ok(_) => panic!("expected an error containing {what:?}, got a result"),
    }
}

/// Gather ranges outside the input and scatter ranges outside the output (counts 2, 2,
/// 1000), and buffers of another backend.
fn bad_ranges_and_foreign_buffers(b: &Backend, _: Target) {
    let scan = up::<u64>(b, &[0, 2, 4]);
    let input = b.upload(&[0u32; 1004]).unwrap();
    let ok = up::<u64>(b, &[0, 2, 4]);
    let g_bad = up::<u64>(b, &[0, 1003, 4]);
    let s_bad = up::<u64>(b, &[0, 2, u64::MAX - 1]);
    let mut out = b.zeros::<u32>(1004).unwrap();
    expect_error(
        b.interval_move(&scan, 1004, &g_bad, &ok, (&input).into(), &mut out),
        "gather range is outside the input (length 1004)",
    );
    expect_error(
        b.interval_move(&scan, 1004, &ok, &s_bad, (&input).into(), &mut out),
        "scatter range is outside the output (length 1004)",
    );
    expect_error(
        b.interval_gather(&scan, 1004, &g_bad, (&input).into()),
        "gather range",
    );
    expect_error(
        b.interval_scatter(&scan, 1004, &s_bad, (&input).into(), &mut out),
        "scatter range",
    );
    // Still usable.
    let s = b.upload(&[0u32, 1]).unwrap();
    let v = b.upload(&[3i32, 4]).unwrap();
    let e = b.interval_expand(&s, 2, (&v).into()).unwrap();
    assert_eq!(e.to_vec().unwrap(), [3, 4]);

    let scan = b.upload(&[0u32, 4, 2]).unwrap();
    let values = b.upload(&[1i32, 2, 3]).unwrap();
    expect_error(
        b.interval_expand(&scan, 5, (&values).into()),
        "not non-decreasing",
    );
    let scan = b.upload(&[0u32, 1]).unwrap();
    let gather = b.upload(&[0u32, 9]).unwrap();
    expect_error(
        b.interval_gather(&scan, 3, &gather, (&values).into()),
        "gather range",
    );
    let foreign = Backend::simulator().upload(&[0u32, 1]).unwrap();
    assert!(matches!(
        b.interval_expand(&foreign, 2, IntervalSource::counting(0i32)),
        Err(Error::InvalidInput(_))
    ));
}

mgpu_testkit::backend_tests! {
    seed_expand_demo,
    seed_move_demo,
    seed_comment_example_and_gather_scatter,
    small_example,
    mean_10_i32_u32,
    mean_1_f64_u64,
    zero_runs_and_one_huge_count,
    real_counts,
    every_type,
    random_counts_i32_u32 = random_counts::<i32, u32>,
    random_counts_f64_u64 = random_counts::<f64, u64>,
    overlapping_scatter_is_memory_safe,
    bad_scans,
    bad_ranges_and_foreign_buffers,
}
