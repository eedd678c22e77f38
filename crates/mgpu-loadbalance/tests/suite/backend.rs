//! The load-balancing search through the facade, on every backend: the three forms
//! against the test kit's plain-loop search, bit for bit.

use mgpu::{Backend, Error, Index, LoadBalanceIndex, Plus, ScanOp};
use mgpu_testkit::expect_invalid;
use mgpu_testkit::seed001::{COUNTS, EXC_SCAN, LBS, RANKS};
use mgpu_testkit::{self as kit, Rng, Target};
use proptest::prelude::*;

/// The index types of the search.
pub trait Ix: LoadBalanceIndex {}
impl<I: LoadBalanceIndex> Ix for I where Plus: ScanOp<I> {}

fn to<I: Index>(v: &[u64]) -> Vec<I> {
    kit::to_index(v)
}

fn seed_001_worked_example(b: &Backend, _: Target) {
    let c = b.upload(&COUNTS).unwrap();
    let (scan, total) = b.scan_counts_exclusive(&c).unwrap();
    assert_eq!((scan.to_vec().unwrap(), total), (EXC_SCAN.to_vec(), 79));
    let (obj, total) = b.load_balance_search_counts(&c).unwrap();
    assert_eq!((obj.to_vec().unwrap(), total), (LBS.to_vec(), 79));
    let s = b.upload(&EXC_SCAN).unwrap();
    assert_eq!(
        b.load_balance_search(&s, 79).unwrap().to_vec().unwrap(),
        LBS
    );
    let (o, r) = b.load_balance_search_ranks(&s, 79).unwrap();
    assert_eq!(
        (o.to_vec().unwrap(), r.to_vec().unwrap()),
        (LBS.to_vec(), RANKS.to_vec())
    );
}

/// The three forms on `b` (counts; scan; scan with ranks) == the plain-loop search of
/// `counts` as `I`, bit for bit. The scan form is timed on CUDA.
fn check<I: Ix>(b: &Backend, t: Target, what: &str, counts: &[u64])
where
    Plus: ScanOp<I>,
{
    let (scan, total) = kit::offsets(counts);
    let (objects, ranks) = kit::load_balance_search(&scan, total);
    let (objects, ranks) = (to::<I>(&objects), to::<I>(&ranks));
    let c = b.upload(&to::<I>(counts)).unwrap();
    let s = b.upload(&to::<I>(&scan)).unwrap();
    let total_i = I::from_u64_wrapping(total);
    let what = format!("{what} {}", std::any::type_name::<I>());
    let o = t.timed(&what, total as usize, || {
        b.load_balance_search(&s, total_i).unwrap()
    });
    assert!(o.to_vec().unwrap() == objects, "{what}: objects differ");
    let (o, r) = b.load_balance_search_ranks(&s, total_i).unwrap();
    assert!(
        o.to_vec().unwrap() == objects,
        "{what}: objects (ranks form) differ"
    );
    assert!(r.to_vec().unwrap() == ranks, "{what}: ranks differ");
    let (o, t2) = b.load_balance_search_counts(&c).unwrap();
    assert!(t2 == total_i, "{what}: total");
    assert!(
        o.to_vec().unwrap() == objects,
        "{what}: objects (counts form) differ"
    );
}

/// [`check`] for u32 and u64.
fn both(b: &Backend, t: Target, what: &str, counts: &[u64]) {
    check::<u32>(b, t, what, counts);
    check::<u64>(b, t, what, counts);
}

/// Real counts: the row lengths of the sparse matrix `lund_a` (a CSR-to-COO expansion's
/// search: each nonzero's row), once and repeated past several tiles of both tunings;
/// and the weeks with a reading in each year of Mauna Loa's CO2 record (52 or 53, fewer
/// where weeks are missing, 0 for the years before and after).
fn real_counts(b: &Backend, t: Target) {
    let rows = kit::lund_a_row_lengths();
    for copies in [1, 3, 11] {
        let c: Vec<u64> = rows
            .iter()
            .copied()
            .cycle()
            .take(copies * rows.len())
            .collect();
        both(b, t, &format!("lund_a row lengths x{copies}"), &c);
    }
    let mut per_year = vec![0u64; 50];
    for (date, co2) in kit::co2_weekly() {
        if !co2.is_nan() {
            per_year[(date / 10_000 - 1955) as usize] += 1;
        }
    }
    both(b, t, "co2 weeks per year", &per_year);
}

/// Counts uniform in [0, 20] (mean 10, `ANCHORS.md`) and [0, 2] (mean 1), up to 10^8
/// work items within the budget.
fn uniform_counts(b: &Backend, t: Target) {
    for items in t.sizes(&[0, 1, 1000, 1 << 20, 10_000_000, 100_000_000]) {
        let c = kit::uniform_counts(&mut Rng::new(items as u64), items, 20);
        both(b, t, "uniform [0, 20]", &c);
        let c = kit::uniform_counts(&mut Rng::new(items as u64 + 7), items, 2);
        both(b, t, "uniform [0, 2]", &c);
    }
}

/// Runs of 10^6 zero counts between small counts (within the budget, runs of a 21st of
/// it), one count of 2^26 among 10^6 zeros at the start, middle and end (half of the
/// budget among as many zeros), all zero counts, and the kit's edge cases.
fn zero_runs_and_one_big_count(b: &Backend, t: Target) {
    let run = t.cap_share(1_000_000, 21);
    let mut v = Vec::new();
    for k in 0..20u64 {
        v.extend(std::iter::repeat_n(0, run));
        v.extend(kit::uniform_counts(&mut Rng::new(k), run / 10, 20));
    }
    both(b, t, "runs of 10^6 zeros", &v);
    let n = t.cap_share(1_000_000, 2);
    for at in [0usize, n / 2, n - 1] {
        let mut v = vec![0u64; n];
        v[at] = t.cap_share(1 << 26, 2) as u64;
        both(b, t, "one count of 2^26", &v);
    }
    both(b, t, "all zero", &vec![0u64; t.cap(3_000_000)]);
    // Mean-1 counts with a count of 2000 every 3001 objects (mean 1.7: object tiles):
    // several tiles spill their Merge Path chunks in one launch.
    let mut rng = Rng::new(9);
    let v: Vec<u64> = (0..t.cap_share(200_000, 4))
        .map(|i| if i % 3001 == 1234 { 2000 } else { rng.below(3) })
        .collect();
    both(b, t, "mean 1, a count of 2000 every 3001", &v);
    for case in kit::edge_counts(&mut Rng::new(1), t.cap_share(100_000, 2)) {
        both(b, t, case.name, &case.counts);
    }
    // Blocks of 500 zero counts in every third block, a few tiles (mean-10 and mean-1
    // counts, and all zero).
    for (seed, n, max) in [
        (1, 0, 5),
        (2, 1, 5),
        (3, 700, 20),
        (4, 2500, 2),
        (5, 1200, 0),
    ] {
        let mut rng = Rng::new(seed);
        let c: Vec<u64> = (0..n)
            .map(|i| {
                if (i / 500) % 3 == 1 {
                    0
                } else {
                    rng.below(max + 1)
                }
            })
            .collect();
        both(b, t, "blocks of zeros", &c);
    }
}

/// Objects + work items around multiples of every tile: the empty, single and tiny
/// inputs, half the objects of count 1 (and the rest 0), all the work in the last object.
fn around_the_tile(b: &Backend, t: Target) {
    for c in [&[][..], &[0], &[0; 5000], &[7]] {
        both(b, t, "tiny", c);
    }
    let nv90 = mgpu_loadbalance::kernels::nv::<u32>(mgpu_core::Arch::Sm90);
    let nv90_64 = mgpu_loadbalance::kernels::nv::<u64>(mgpu_core::Arch::Sm90);
    for nv in [896usize, 1408, nv90, nv90_64] {
        let mut steps = vec![nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv, 2 * nv + 1];
        steps.extend([3 * nv - 1, 3 * nv + 1, 7 * nv]);
        for steps in t.sizes(&steps) {
            // Objects of count 1 and 0 alternating: objects + items = steps.
            let objects = steps * 2 / 3;
            let v: Vec<u64> = (0..objects)
                .map(|i| ((i % 2 == 0) && i / 2 < steps - objects) as u64)
                .collect();
            both(b, t, "around the tile, alternating", &v);
            // Half the objects of count 1, the rest zero, the remainder on the first.
            let total = steps - objects;
            let mut c = vec![0u64; objects];
            for x in c.iter_mut().take(total) {
                *x = 1;
            }
            c[0] += (steps - objects - total.min(objects)) as u64;
            both(b, t, "around the tile, ones first", &c);
            // All the work in the last object.
            let mut c = vec![0u64; nv / 3];
            *c.last_mut().unwrap() = (steps - nv / 3) as u64;
            both(b, t, "around the tile, last", &c);
        }
    }
}

/// Counts of a few tiles in several shapes.
fn counts_strategy() -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![
        // Empty or tiny.
        prop::collection::vec(0u64..4, 0..5),
        // Mean about 1 and about 10, a few tiles (nv = 1408 on sm_90, 896 on sm_70).
        prop::collection::vec(0u64..3, 0..3000),
        prop::collection::vec(0u64..21, 0..400),
        // Runs of thousands of zeros around a few nonzero counts.
        (0usize..5000, 0u64..50, 0usize..5000, 0u64..3000).prop_map(|(z0, c0, z1, c1)| {
            let mut v = vec![0u64; z0];
            v.push(c0);
            v.extend(std::iter::repeat_n(0, z1));
            v.push(c1);
            v
        }),
        // One count holding all the work.
        (0usize..300, 0u64..6000, 0usize..300).prop_map(|(a, big, b)| {
            let mut v = vec![0u64; a];
            v.push(big);
            v.extend(std::iter::repeat_n(0, b));
            v
        }),
    ]
}

/// Random counts (24 cases, as the earlier `proptest!` block).
fn random_counts<I: Ix>(b: &Backend, _: Target)
where
    Plus: ScanOp<I>,
{
    mgpu_testkit::proptest_runner(24)
        .run(&counts_strategy(), |counts| {
            check::<I>(b, Target::Cpu, "random", &counts);
            Ok(())
        })
        .unwrap();
}

/// Every bad input: the error and its message on every backend (the scan and ranks
/// forms), a total past the index type, buffers of another backend; the last scan value
/// equal to the total is fine.
fn bad_input(b: &Backend, _: Target) {
    let cases: Vec<(Vec<u32>, u32, &str)> = vec![
        (vec![0, 5, 3, 8], 10, "not non-decreasing"),
        (vec![0, 4, 2, 9], 10, "not non-decreasing"),
        (vec![0, 2, 7, 10, 10], 9, "a scan value is past the total 9"),
        (vec![0, 4, 9], 8, "a scan value is past the total 8"),
        (vec![1, 2, 7], 10, "the scan does not start at 0"),
        (vec![3, 4, 9], 10, "the scan does not start at 0"),
        (vec![], 3, "a total of 3 with no intervals"),
        (vec![], 1, "a total of 1 with no intervals"),
        // A descent far from the start, in a later tile.
        (
            (0..3000u32)
                .map(|i| if i == 2500 { 0 } else { i })
                .collect(),
            3000,
            "not non-decreasing",
        ),
        // A scan that jumps past the total in the middle.
        (
            (0..3000u32)
                .map(|i| if i > 1500 { 10_000 } else { i })
                .collect(),
            3000,
            "",
        ),
        // Descending everywhere.
        ((0..3000u32).rev().collect(), 5000, ""),
    ];
    for (scan, total, what) in &cases {
        let s = b.upload(scan).unwrap();
        expect_invalid(b.load_balance_search(&s, *total), what);
        expect_invalid(b.load_balance_search_ranks(&s, *total), what);
    }
    let s = b.upload(&[0u32, 2, 10]).unwrap();
    let o = b.load_balance_search(&s, 10).unwrap().to_vec().unwrap();
    assert_eq!(o, [0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    for counts in [&[u32::MAX, 1][..], &[u32::MAX, 1, 0]] {
        let c = b.upload(counts).unwrap();
        assert!(matches!(
            b.load_balance_search_counts(&c),
            Err(Error::IndexOverflow { max, .. }) if max == u32::MAX as u64
        ));
    }
    let other = match b {
        Backend::Cpu => Backend::simulator(),
        _ => Backend::cpu(),
    };
    let foreign = other.upload(&[0u32]).unwrap();
    expect_invalid(b.load_balance_search(&foreign, 0), "");
}

mgpu_testkit::backend_tests! {
    seed_001_worked_example,
    uniform_counts,
    zero_runs_and_one_big_count,
    around_the_tile,
    real_counts,
    random_counts_u32 = random_counts::<u32>,
    random_counts_u64 = random_counts::<u64>,
    bad_input,
}
