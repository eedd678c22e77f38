//! The CTA load-balancing search in the simulator, against `upper_bound - 1` and the
//! ranks `a - scan[object]`: several NT/VT, partial tiles, empty objects, runs of empty
//! objects, u32 and u64 indices, with and without the preceding B element; and seed 001's
//! 40 objects in tiles of 30 (its "Divide into 4 equal partitions" example).

use mgpu_core::sim::{launch, SimCta};
use mgpu_core::{Cta, Less};
use mgpu_ctasearch::*;
use mgpu_testkit::seed001::{EXC_SCAN, LBS, RANKS, TILES};
use mgpu_testkit::Rng;

/// Runs the CTA search over every tile; returns (objects, ranks, tiles).
fn run<I: Idx, const NT: usize, const VT: usize>(
    scan: &[I],
    total: I,
    preceding: bool,
) -> (Vec<I>, Vec<I>, Vec<LoadBalanceTile<I>>) {
    let nv = (NT * VT) as u64;
    let n = scan.len() as u64;
    let steps = total.to_u64() + n;
    let tiles = steps.div_ceil(nv).max(1);
    let mp: Vec<u64> = (0..=tiles)
        .map(|t| unsafe {
            merge_path(
                Counting(I::ZERO),
                total.to_u64(),
                scan,
                n,
                (t * nv).min(steps),
                Upper,
                Less,
            )
        })
        .collect();
    let t = total.to_usize();
    let mut obj = vec![I::from_u32(u32::MAX); t];
    let mut rank = vec![I::from_u32(u32::MAX); t];
    let mut info = vec![LoadBalanceTile::<I>::default(); tiles as usize];
    let p = [
        scan.as_ptr() as usize,
        mp.as_ptr() as usize,
        obj.as_mut_ptr() as usize,
        rank.as_mut_ptr() as usize,
        info.as_mut_ptr() as usize,
    ];
    let bytes = cta_load_balance_shared_len(NT * VT) * core::mem::size_of::<I>();
    launch(tiles as u32, NT as u32, bytes, &|cta: &SimCta| unsafe {
        let sh = cta.shared::<I>(0);
        let r = cta_load_balance::<_, I, NT, VT>(
            cta,
            cta.block(),
            total,
            p[0] as *const I,
            I::from_usize(scan.len()),
            p[1] as *const u64,
            sh,
            preceding,
            // Valid scans: checking their order must not change a thing.
            cta.block().is_multiple_of(2),
        );
        if cta.tid() == 0 {
            *(p[4] as *mut LoadBalanceTile<I>).add(cta.block() as usize) = r;
        }
        let mut i = cta.tid();
        while i < r.a_count() {
            let a = r.a0.wrapping_add(I::from_u32(i));
            let o = *sh.add(i as usize);
            *(p[2] as *mut I).add(a.to_usize()) = o;
            if preceding {
                // The object's scan value is in the tile's B slots.
                let j = o.wrapping_sub(r.b0).to_u32();
                assert!(j < r.b_count(), "object {o:?} outside the tile's B {r:?}");
                let s = *sh.add((r.b_shared() + j) as usize);
                *(p[3] as *mut I).add(a.to_usize()) = a.wrapping_sub(s);
            }
            i += NT as u32;
        }
    });
    (obj, rank, info)
}

fn check<I: Idx, const NT: usize, const VT: usize>(counts: &[u32]) {
    let mut scan = Vec::new();
    let mut total = 0u64;
    for &c in counts {
        scan.push(I::from_u64(total));
        total += c as u64;
    }
    let want: Vec<I> = (0..total)
        .map(|a| I::from_usize(scan.partition_point(|&x| x.to_u64() <= a) - 1))
        .collect();
    for preceding in [false, true] {
        let (obj, rank, _) = run::<I, NT, VT>(&scan, I::from_u64(total), preceding);
        assert_eq!(
            obj, want,
            "NT {NT} VT {VT} preceding {preceding} counts {counts:?}"
        );
        if preceding {
            for a in 0..total as usize {
                assert_eq!(
                    rank[a].to_u64(),
                    a as u64 - scan[want[a].to_usize()].to_u64(),
                    "rank of {a}"
                );
            }
        }
    }
}

fn random_counts(rng: &mut Rng, n: usize, max: u64) -> Vec<u32> {
    (0..n).map(|_| rng.below(max + 1) as u32).collect()
}

#[test]
fn cta_lbs_random_shapes() {
    let mut rng = Rng::new(7);
    for n in [1usize, 2, 7, 31, 64, 100, 257] {
        let c = random_counts(&mut rng, n, 5);
        check::<u32, 32, 3>(&c);
        check::<u32, 64, 7>(&c);
        check::<u64, 32, 5>(&c);
        check::<u32, 8, 1>(&c);
    }
}

#[test]
fn cta_lbs_adversarial() {
    let mut rng = Rng::new(11);
    // All empty objects but one; long runs of empties; one huge object; all ones.
    let mut c = vec![0u32; 300];
    c[150] = 40;
    check::<u32, 32, 3>(&c);
    check::<u32, 32, 3>(&[500]);
    check::<u64, 32, 3>(&[0, 0, 0, 500, 0, 0]);
    check::<u32, 32, 3>(&vec![1u32; 333]);
    let mut c = random_counts(&mut rng, 200, 3);
    for x in c.iter_mut().take(120).skip(40) {
        *x = 0;
    }
    check::<u32, 64, 3>(&c);
    // Sizes around a multiple of NV = 96 steps: total + objects = 95, 96, 97, 192.
    for (objs, items) in [(45usize, 50u32), (46, 50), (47, 50), (92, 100)] {
        let mut c = vec![0u32; objs];
        for i in 0..items as usize {
            c[i % objs] += 1;
        }
        check::<u32, 32, 3>(&c);
    }
}

/// Seed 001's 40 objects (79 work items) in tiles of NV = 30 (NT = 10, VT = 3): the
/// seed's four tiles, its load-balancing search and its ranks, with the preceding B
/// element loaded (the seed prints tile 3 as B = (31, 40); the definition gives 32, see
/// the seeds' README, and with the preceding element the tile loads from 31).
#[test]
fn seed001_tiles_in_the_simulator() {
    let scan = EXC_SCAN.to_vec();
    let ranges = |tiles: &[LoadBalanceTile<u32>]| -> Vec<[u32; 4]> {
        tiles.iter().map(|r| [r.a0, r.a1, r.b0, r.b1]).collect()
    };
    let (obj, rank, tiles) = run::<u32, 10, 3>(&scan, 79, false);
    assert_eq!(ranges(&tiles), TILES);
    assert_eq!(
        tiles.iter().map(|r| r.extended).collect::<Vec<_>>(),
        [true, true, true, false]
    );
    let _ = rank;
    let (obj2, rank, tiles) = run::<u32, 10, 3>(&scan, 79, true);
    assert_eq!(obj, obj2);
    // With the preceding B element, tiles 1 to 3 load B from one earlier.
    let preceding = [
        [0, 21, 0, 9],
        [21, 38, 8, 22],
        [38, 58, 21, 32],
        [58, 79, 31, 40],
    ];
    assert_eq!(ranges(&tiles), preceding);
    assert_eq!(obj, LBS);
    assert_eq!(rank, RANKS);
}

/// A CTA merge in the simulator, the way merge kernels use these blocks: both tile lists
/// in shared memory (A then B), each thread a Lower Merge Path at `VT * tid` and a
/// guarded serial merge, for several NT/VT and partial tiles; equal to a stable merge.
#[test]
fn cta_merge_with_merge_path_and_serial_merge() {
    fn go<const NT: usize, const VT: usize>(a: &[i32], b: &[i32]) {
        let nv = NT * VT;
        assert!(a.len() + b.len() <= nv);
        let mut keys_out = vec![0i32; nv];
        let mut idx_out = vec![0u32; nv];
        let p = [
            a.as_ptr() as usize,
            b.as_ptr() as usize,
            keys_out.as_mut_ptr() as usize,
            idx_out.as_mut_ptr() as usize,
        ];
        let (na, nb) = (a.len() as u32, b.len() as u32);
        launch(1, NT as u32, nv * 4, &|cta: &SimCta| unsafe {
            let sh = cta.shared::<i32>(0);
            let mut i = cta.tid();
            while i < na + nb {
                *sh.add(i as usize) = if i < na {
                    *(p[0] as *const i32).add(i as usize)
                } else {
                    *(p[1] as *const i32).add((i - na) as usize)
                };
                i += NT as u32;
            }
            cta.sync();
            let diag = (VT as u32 * cta.tid()).min(na + nb);
            let keys = sh as *const i32;
            let mp = merge_path(keys, na, keys.add(na as usize), nb, diag, Lower, Less);
            let (k, ix): ([i32; VT], [u32; VT]) =
                serial_merge_guarded(keys, mp, na, na + diag - mp, na + nb, Less);
            for j in 0..VT {
                let o = VT * cta.tid() as usize + j;
                if o < (na + nb) as usize {
                    *(p[2] as *mut i32).add(o) = k[j];
                    *(p[3] as *mut u32).add(o) = ix[j];
                }
            }
        });
        let all: Vec<i32> = a.iter().chain(b).copied().collect();
        let mut want: Vec<(i32, u32)> = all
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u32))
            .collect();
        want.sort_by_key(|&(k, i)| (k, i)); // stable: A (lower positions) first on ties
        let n = all.len();
        let got: Vec<(i32, u32)> = keys_out[..n]
            .iter()
            .copied()
            .zip(idx_out[..n].iter().copied())
            .collect();
        assert_eq!(got, want, "NT {NT} VT {VT}");
    }
    let mut rng = Rng::new(3);
    for (na, nb) in [
        (0usize, 0usize),
        (0, 50),
        (50, 0),
        (40, 56),
        (48, 48),
        (13, 7),
    ] {
        let mut a: Vec<i32> = (0..na).map(|_| rng.below(10) as i32).collect();
        let mut b: Vec<i32> = (0..nb).map(|_| rng.below(10) as i32).collect();
        a.sort();
        b.sort();
        go::<32, 3>(&a, &b);
        go::<16, 7>(&a, &b);
        go::<64, 5>(&a, &b);
    }
}

/// A decreasing scan with `check_order`: the search is skipped (every item slot keeps the
/// simulator's poison), so threads whose Merge Path ranges would overlap never write.
/// (Without `check_order` the searches run and write the slots, ranges overlapping:
/// callers that pass `false` check the order first.)
#[test]
fn cta_lbs_skips_the_search_on_a_decreasing_scan() {
    let scan = [0u32, 5, 3, 8];
    let mp = [0u64, 10]; // every item in the one tile
    let mut slots = vec![0u32; 10];
    let (sp, mpp, op) = (
        scan.as_ptr() as usize,
        mp.as_ptr() as usize,
        slots.as_mut_ptr() as usize,
    );
    launch(
        1,
        4,
        cta_load_balance_shared_len(16) * 4,
        &|cta: &SimCta| unsafe {
            let sh = cta.shared::<u32>(0);
            let t = cta_load_balance::<_, u32, 4, 4>(
                cta,
                0,
                10,
                sp as *const u32,
                4,
                mpp as *const u64,
                sh,
                false,
                true,
            );
            let mut i = cta.tid();
            while i < t.a_count() {
                *(op as *mut u32).add(i as usize) = *sh.add(i as usize);
                i += 4;
            }
        },
    );
    assert!(slots.iter().all(|&v| v == 0xA5A5_A5A5), "{slots:?}");
}

/// `scan_decreases` over every start offset within a 16-byte group, counts around the
/// group and tile sizes, with no descent and with one descent at each place (and garbage
/// around the values, which it must ignore).
fn scan_decreases_finds<I: Idx, const NT: usize, const VT: usize>() {
    let per = 16 / core::mem::size_of::<I>();
    for offset in 0..per {
        for count in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65, 97, NT * VT + 2] {
            for drop in core::iter::once(None).chain((1..count).map(Some)) {
                let values: Vec<u64> = (0..count as u64)
                    .map(|k| {
                        if Some(k as usize) == drop {
                            0
                        } else {
                            3 * k + 1
                        }
                    })
                    .collect();
                let mut found = [false];
                let (vp, fp) = (values.as_ptr() as usize, found.as_mut_ptr() as usize);
                let slots = offset + count + 2 * per;
                launch(1, NT as u32, slots * 8, &|cta: &SimCta| unsafe {
                    let sh = cta.shared::<I>(0);
                    if cta.tid() == 0 {
                        for s in 0..slots {
                            // Garbage that decreases, outside the values.
                            *sh.add(s) = I::from_u64((slots - s) as u64);
                        }
                        for k in 0..count {
                            *sh.add(offset + k) = I::from_u64(*(vp as *const u64).add(k));
                        }
                    }
                    cta.sync();
                    let b = sh.add(offset);
                    let bad = scan_decreases::<_, I, NT, VT>(cta, b, count as u32);
                    if cta.sync_or(bad) && cta.tid() == 0 {
                        *(fp as *mut bool) = true;
                    }
                });
                assert_eq!(
                    found[0],
                    drop.is_some(),
                    "offset {offset} count {count} drop {drop:?}"
                );
            }
        }
    }
}

#[test]
fn scan_decreases_every_place() {
    scan_decreases_finds::<u32, 32, 3>();
    scan_decreases_finds::<u64, 32, 2>();
    scan_decreases_finds::<u32, 64, 1>();
}
