//! The seeds' worked tables as golden tests: seed 001's 40-object load-balancing search
//! (exclusive scan, LBS, ranks) and its Merge Path tile example, seed 002's upper-bound
//! minus one example, seed 004's blocksort pass table for NT = 8, VT = 7.

use mgpu_core::Less;
use mgpu_ctasearch::*;

/// Seed 001's counts, exclusive scan, load-balancing search and ranks.
use mgpu_testkit::seed001::{COUNTS, EXC_SCAN, LBS, RANKS, TILES};

#[test]
fn seed001_scan_lbs_and_ranks() {
    let mut scan = [0u32; 40];
    let mut total = 0;
    for (s, &c) in scan.iter_mut().zip(&COUNTS) {
        *s = total;
        total += c;
    }
    assert_eq!(scan, EXC_SCAN);
    assert_eq!(total, 79);
    // The whole search in one guarded serial run (79 + 40 steps).
    let mut lbs = [0u32; 119];
    let n = unsafe {
        serial_load_balance_search_guarded::<u32, _, 119>(
            &scan[..],
            0,
            79,
            u32::MAX,
            0,
            40,
            lbs.as_mut_ptr(),
        )
    };
    assert_eq!(n, 79);
    assert_eq!(lbs[..79], LBS);
    let ranks: Vec<u32> = (0..79)
        .map(|i| i - scan[lbs[i as usize] as usize])
        .collect();
    assert_eq!(ranks, RANKS);
    // And item by item with the upper-bound binary search, minus one.
    for a in 0..79u32 {
        assert_eq!(
            unsafe { binary_search(&scan[..], 40u32, a, Upper, Less) } - 1,
            LBS[a as usize]
        );
    }
}

/// Seed 001's "Divide into 4 equal partitions": the 119 steps of the merge of the 79 work
/// items with the 40 scan values, cut by cross-diagonals 0, 30, 60, 90, 119 ([`TILES`],
/// with the seed's misprint corrected): we test the definition.
#[test]
fn seed001_merge_path_tiles() {
    let diags = [0u32, 30, 60, 90, 119];
    let mp: Vec<u64> = diags
        .iter()
        .map(
            |&d| unsafe { merge_path(Counting(0u32), 79, &EXC_SCAN[..], 40, d, Upper, Less) }
                as u64,
        )
        .collect();
    assert_eq!(mp, [0, 21, 38, 58, 79]);
    let tiles: Vec<[u64; 4]> = (0..4)
        .map(|t| {
            let r = compute_merge_range(79u64, 40, t, 0, 30, mp[t as usize], mp[t as usize + 1]);
            [r.a0, r.a1, r.b0, r.b1]
        })
        .collect();
    assert_eq!(tiles, TILES.map(|r| r.map(u64::from)));
    // The seed's point about ranks: tile 1's first item (21) comes from object 8, which
    // the upper-bound path put in tile 0; loading the preceding B element (8) fixes it.
    assert_eq!(LBS[21], 8);
    assert_eq!(tiles[1][2], 9);
}

/// Seed 002: CSR { 0, 957, 1008, 2000, 2312 }, tiles of 1000: lower bound gives rows
/// { 0, 2, 3 } (wrong for tile 1), upper bound minus one gives { 0, 1, 3 }.
#[test]
fn seed002_upper_bound_minus_one() {
    let csr = [0u32, 957, 1008, 2000, 2312];
    let keys = [0u32, 1000, 2000];
    let lower: Vec<u32> = keys
        .iter()
        .map(|&k| unsafe { binary_search(&csr[..], 5u32, k, Lower, Less) })
        .collect();
    let upper: Vec<u32> = keys
        .iter()
        .map(|&k| unsafe { binary_search(&csr[..], 5u32, k, Upper, Less) } - 1)
        .collect();
    assert_eq!(lower, [0, 2, 3]);
    assert_eq!(upper, [0, 1, 3]);
}

/// Seed 004's table "NT = 8, VT = 7, count = 49 (full tile)". Its intervals are those of a
/// full tile of NT * VT = 56 keys (the misprint in the seeds' README), so the table is
/// checked with count = 56; with count = 49 the same table holds with every end clamped
/// to 49, which is checked from the definition.
#[test]
fn seed004_blocksort_pass_table() {
    // (a0, a1, b0, b1, diag) per tid for coop = 2, 4, 8, as printed.
    type Row = (u32, u32, u32, u32, u32);
    #[rustfmt::skip]
    let table: [[Row; 3]; 8] = [
        [(0, 7, 7, 14, 0),    (0, 14, 14, 28, 0),  (0, 28, 28, 56, 0)],
        [(0, 7, 7, 14, 7),    (0, 14, 14, 28, 7),  (0, 28, 28, 56, 7)],
        [(14, 21, 21, 28, 0), (0, 14, 14, 28, 14), (0, 28, 28, 56, 14)],
        [(14, 21, 21, 28, 7), (0, 14, 14, 28, 21), (0, 28, 28, 56, 21)],
        [(28, 35, 35, 42, 0), (28, 42, 42, 56, 0), (0, 28, 28, 56, 28)],
        [(28, 35, 35, 42, 7), (28, 42, 42, 56, 7), (0, 28, 28, 56, 35)],
        [(42, 49, 49, 56, 0), (28, 42, 42, 56, 14), (0, 28, 28, 56, 42)],
        [(42, 49, 49, 56, 7), (28, 42, 42, 56, 21), (0, 28, 28, 56, 49)],
    ];
    for (tid, row) in table.iter().enumerate() {
        for (k, &want) in row.iter().enumerate() {
            let coop = 2 << k;
            let p = blocksort_pass(tid as u32, 56, coop, 7);
            assert_eq!(
                (p.a0, p.a1, p.b0, p.b1, p.diag),
                want,
                "tid {tid} coop {coop}"
            );
            let c = blocksort_pass(tid as u32, 49, coop, 7);
            let clamp = |x: u32| x.min(49);
            assert_eq!(
                (c.a0, c.a1, c.b0, c.b1, c.diag),
                (
                    clamp(want.0),
                    clamp(want.1),
                    clamp(want.2),
                    clamp(want.3),
                    clamp(want.4)
                ),
                "count 49, tid {tid} coop {coop}"
            );
        }
    }
}

/// The blocksort pass and the mergesort frame agree: a thread's lists are the frame of
/// `coop` threads with grain VT.
#[test]
fn blocksort_pass_is_the_frame_with_grain_vt() {
    for coop in [2u32, 4, 8, 16] {
        for tid in 0..16u32 {
            let p = blocksort_pass(tid, 1000, coop, 7);
            let f = find_mergesort_frame(coop, tid, 7);
            assert_eq!((p.a0, p.b0, p.b1), (f.a0, f.b0, f.b0 + f.size));
        }
    }
}
