//! The pure functions against plain definitions, with proptest: binary search against
//! `partition_point`, Merge Path against the split of a sequential merge (both bounds,
//! many ties, empty sides), serial merge against the sequential merge, serial
//! load-balancing search against `upper_bound - 1`, the merge ranges against their
//! definitions.

use mgpu_core::{Comparator, Greater, Less};
use mgpu_ctasearch::*;
use proptest::prelude::*;

/// The sequential merge: `true` for each output taken from A. Lower bounds take A on
/// ties (`!comp(b, a)`), upper bounds take B on ties (A only when `comp(a, b)`).
fn merge_sources<T: Copy, C: Comparator<T>>(a: &[T], b: &[T], upper: bool) -> Vec<bool> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() || j < b.len() {
        let take_a = if j == b.len() {
            true
        } else if i == a.len() {
            false
        } else if upper {
            C::compare(&a[i], &b[j])
        } else {
            !C::compare(&b[j], &a[i])
        };
        out.push(take_a);
        if take_a {
            i += 1
        } else {
            j += 1
        }
    }
    out
}

/// Plain load-balancing search: `upper_bound(scan, a) - 1` for every work item `a`.
fn cpu_lbs(scan: &[u32], total: u32) -> Vec<u32> {
    (0..total)
        .map(|a| scan.partition_point(|&x| x <= a) as u32 - 1)
        .collect()
}

fn sorted(max_len: usize, max_key: u32) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(0..=max_key, 0..=max_len).prop_map(|mut v| {
        v.sort();
        v
    })
}

fn scan_of(counts: &[u32]) -> (Vec<u32>, u32) {
    let mut s = Vec::with_capacity(counts.len());
    let mut t = 0;
    for &c in counts {
        s.push(t);
        t += c;
    }
    (s, t)
}

/// Merge Path at every diagonal of `a` and `b` (sorted for `C`) against the split of the
/// sequential merge: both bounds, a u32 index with the bound as a value, a u64 index with
/// the bound as a type.
fn check_merge_path_split<T: Copy, C: Comparator<T>>(
    a: &[T],
    b: &[T],
) -> Result<(), TestCaseError> {
    for upper in [false, true] {
        let src = merge_sources::<T, C>(a, b, upper);
        let bounds = if upper { Bounds::Upper } else { Bounds::Lower };
        let mut from_a = 0u32;
        for diag in 0..=src.len() {
            let (na, nb, d) = (a.len() as u32, b.len() as u32, diag as u32);
            let mp = unsafe { merge_path(a, na, b, nb, d, bounds, C::default()) };
            prop_assert_eq!(mp, from_a, "diag {} upper {}", diag, upper);
            // The same with a u64 index and the bound as a type.
            let (na, nb, d) = (na as u64, nb as u64, d as u64);
            let mp64 = if upper {
                unsafe { merge_path(a, na, b, nb, d, Upper, C::default()) }
            } else {
                unsafe { merge_path(a, na, b, nb, d, Lower, C::default()) }
            };
            prop_assert_eq!(mp64, from_a as u64);
            if diag < src.len() && src[diag] {
                from_a += 1;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn binary_search_is_partition_point(v in sorted(40, 12), key in 0u32..14) {
        let n = v.len() as u32;
        let lo = unsafe { binary_search(&v[..], n, key, Lower, Less) };
        let hi = unsafe { binary_search(&v[..], n, key, Upper, Less) };
        prop_assert_eq!(lo as usize, v.partition_point(|&x| x < key));
        prop_assert_eq!(hi as usize, v.partition_point(|&x| x <= key));
        // Descending with Greater: the same in mirror.
        let d: Vec<u32> = v.iter().rev().copied().collect();
        let lo = unsafe { binary_search(&d[..], n as u64, key, Bounds::Lower, Greater) };
        let hi = unsafe { binary_search(&d[..], n as u64, key, Bounds::Upper, Greater) };
        prop_assert_eq!(lo as usize, d.partition_point(|&x| x > key));
        prop_assert_eq!(hi as usize, d.partition_point(|&x| x >= key));
    }

    #[test]
    fn merge_path_splits_the_sequential_merge(a in sorted(30, 6), b in sorted(30, 6)) {
        check_merge_path_split::<u32, Less>(&a, &b)?;
    }

    #[test]
    fn merge_path_with_greater_on_descending_keys(a in sorted(20, 5), b in sorted(20, 5)) {
        let a: Vec<i64> = a.iter().rev().map(|&x| x as i64).collect();
        let b: Vec<i64> = b.iter().rev().map(|&x| x as i64).collect();
        check_merge_path_split::<i64, Greater>(&a, &b)?;
    }

    #[test]
    fn serial_merge_continues_the_split(a in sorted(25, 8), b in sorted(25, 8), start in 0usize..50) {
        // keys = A, then B; merge VT = 5 outputs from the Lower split at `diag`.
        const VT: usize = 5;
        let (na, nb) = (a.len() as u32, b.len() as u32);
        let total = (na + nb) as usize;
        let diag = start.min(total) as u32;
        let keys: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
        let mp = unsafe { merge_path(&a[..], na, &b[..], nb, diag, Lower, Less) };
        let (k, idx): ([u32; VT], [u32; VT]) =
            unsafe { serial_merge_guarded(&keys[..], mp, na, na + diag - mp, na + nb, Less) };
        // Reference: the sequential merge with sources, positions in `keys`.
        let src = merge_sources::<u32, Less>(&a, &b, false);
        let (mut i, mut j) = (0u32, 0u32);
        let mut want = Vec::new();
        for &s in &src {
            if s { want.push((a[i as usize], i)); i += 1 } else { want.push((b[j as usize], na + j)); j += 1 }
        }
        let n = (total - diag as usize).min(VT);
        for t in 0..n {
            prop_assert_eq!((k[t], idx[t]), want[diag as usize + t]);
        }
        // Branch-free, with one readable slot past B (past A is B's first key): the same
        // outputs, whatever that slot holds.
        let mut padded = keys.clone();
        padded.push(start as u32 % 7);
        let (k3, idx3): ([u32; VT], [u32; VT]) =
            unsafe { serial_merge_padded(&padded[..], mp, na, na + diag - mp, na + nb, Less) };
        for t in 0..n {
            prop_assert_eq!((k3[t], idx3[t]), want[diag as usize + t]);
        }
        // The full form (no clamp: VT outputs remain, so no step finds both lists ended),
        // with the same readable slot past B.
        if n == VT {
            let mut got = Vec::new();
            unsafe {
                serial_merge_tile_with::<u32, _, _, VT>(true, &padded[..], mp, na, na + diag - mp, na + nb, Less, |_, k, i| got.push((k, i)))
            };
            prop_assert_eq!(&got[..], &want[diag as usize..diag as usize + VT]);
        }
        // Unguarded, with halos (A's and B's next keys after each list), when VT outputs
        // remain: the precondition of the unguarded form.
        if n == VT {
            let max = 9u32; // above every key: a halo that never wins before the list ends
            let mut halo_keys: Vec<u32> = a.clone();
            halo_keys.push(max);
            let b_at = halo_keys.len() as u32;
            halo_keys.extend(&b);
            halo_keys.push(max + 1);
            let (k2, idx2): ([u32; VT], [u32; VT]) =
                unsafe { serial_merge(&halo_keys[..], mp, b_at + diag - mp, Less) };
            for t in 0..n {
                let (key, pos) = want[diag as usize + t];
                let pos = if pos >= na { pos - na + b_at } else { pos };
                prop_assert_eq!((k2[t], idx2[t]), (key, pos));
            }
        }
    }

    #[test]
    fn serial_lbs_is_upper_bound_minus_one(counts in prop::collection::vec(0u32..6, 1..40), vt in 1usize..9) {
        let (scan, total) = scan_of(&counts);
        let want = cpu_lbs(&scan, total);
        let n = scan.len() as u32;
        // Split the merge of 0..total with the scan into runs of VT steps, as threads do.
        let steps = total + n;
        let mut got = vec![u32::MAX; total as usize];
        let mut t = 0;
        while t * (vt as u32) < steps.max(1) {
            let diag = (t * vt as u32).min(steps);
            let mp = unsafe { merge_path(Counting(0u32), total, &scan[..], n, diag, Upper, Less) };
            // A buffer for up to VT outputs (the last run may write fewer).
            let mut tmp = [0u32; 8];
            let w = match vt {
                1 => unsafe { serial_load_balance_search_guarded::<u32, _, 1>(&scan[..], mp, total, u32::MAX, diag - mp, n, tmp.as_mut_ptr()) },
                2 => unsafe { serial_load_balance_search_guarded::<u32, _, 2>(&scan[..], mp, total, u32::MAX, diag - mp, n, tmp.as_mut_ptr()) },
                3 => unsafe { serial_load_balance_search_guarded::<u32, _, 3>(&scan[..], mp, total, u32::MAX, diag - mp, n, tmp.as_mut_ptr()) },
                5 => unsafe { serial_load_balance_search_guarded::<u32, _, 5>(&scan[..], mp, total, u32::MAX, diag - mp, n, tmp.as_mut_ptr()) },
                _ => unsafe { serial_load_balance_search_guarded::<u32, _, 8>(&scan[..], mp, total, u32::MAX, diag - mp, n, tmp.as_mut_ptr()) },
            };
            for k in 0..w as usize {
                got[mp as usize + k] = tmp[k];
            }
            t += 1;
        }
        prop_assert_eq!(&got, &want);
        // Unguarded over full runs, with the halo (the scan padded with `total`, above every item).
        let mut padded = scan.clone();
        padded.push(total + 1);
        for t in 0..(steps / 4) {
            let diag = t * 4;
            let mp = unsafe { merge_path(Counting(0u32), total, &scan[..], n, diag, Upper, Less) };
            let mut tmp = [0u32; 4];
            let w = unsafe { serial_load_balance_search::<u32, 4>(padded.as_ptr(), mp, u32::MAX, diag - mp, tmp.as_mut_ptr()) };
            for k in 0..w as usize {
                prop_assert_eq!(tmp[k], want[mp as usize + k]);
            }
        }
    }

    #[test]
    fn merge_range_tiles_cover_both_inputs(a_count in 0u64..200, b_count in 0u64..200, nv in 1u64..40) {
        // Any monotone partitions (here: A-first) give disjoint, covering tiles of nv steps.
        let total = a_count + b_count;
        let tiles = total.div_ceil(nv);
        let mp = |t: u64| (t * nv).min(total).min(a_count);
        let (mut a_end, mut b_end) = (0, 0);
        for t in 0..tiles {
            let r = compute_merge_range(a_count, b_count, t, 0, nv, mp(t), mp(t + 1));
            prop_assert_eq!((r.a0, r.b0), (a_end, b_end));
            prop_assert_eq!(r.a_count() + r.b_count(), nv.min(total - t * nv));
            a_end = r.a1;
            b_end = r.b1;
        }
        prop_assert_eq!((a_end, b_end), (a_count, b_count));
    }
}

#[test]
fn merge_path_empty_sides_and_all_equal() {
    let e: [u32; 0] = [];
    let x = [4u32; 9];
    for d in 0..=9u32 {
        assert_eq!(
            unsafe { merge_path(&e[..], 0u32, &x[..], 9, d, Lower, Less) },
            0
        );
        assert_eq!(
            unsafe { merge_path(&x[..], 9u32, &e[..], 0, d, Upper, Less) },
            d
        );
    }
    // All equal: lower takes all of A first, upper all of B first.
    for d in 0..=18u32 {
        assert_eq!(
            unsafe { merge_path(&x[..], 9u32, &x[..], 9, d, Lower, Less) },
            d.min(9)
        );
        assert_eq!(
            unsafe { merge_path(&x[..], 9u32, &x[..], 9, d, Upper, Less) },
            d.saturating_sub(9)
        );
    }
}

#[test]
fn mergesort_frames_and_intervals() {
    // Plain definition: in pass `coop`, block `b` merges list pair number b / coop; its
    // A list is [nv * coop * (b / coop), + nv * coop / 2), its B list follows.
    let nv = 10u64;
    for coop in [2u64, 4, 8, 16] {
        for block in 0..40u64 {
            let f = find_mergesort_frame(coop, block, nv);
            let pair = block / coop;
            assert_eq!(f.a0, nv * coop * pair);
            assert_eq!(f.size, nv * coop / 2);
            assert_eq!(f.b0, f.a0 + f.size);
        }
    }
    // Intervals of a full merge pass over 4 lists of nv keys with A-first partitions that
    // split every tile evenly (mp = diag / 2 within each merge).
    let count = 35u64; // the last list is short
    for coop in [2u64, 4] {
        let blocks = count.div_ceil(nv);
        let mut covered = vec![0u32; count as usize];
        for block in 0..blocks {
            let f = find_mergesort_frame(coop, block, nv);
            let local = |blk: u64| {
                let g = find_mergesort_frame(coop, blk, nv);
                let a_len = count.min(g.a0 + g.size) - g.a0.min(count);
                let b_len = count.min(g.b0 + g.size) - count.min(g.b0);
                let diag = (nv * blk - g.a0).min(a_len + b_len);
                // A-first merge of lists whose keys interleave: take from A while it lasts
                // at half the rate.
                (diag / 2 + diag % 2)
                    .min(a_len)
                    .max(diag.saturating_sub(b_len))
            };
            let r =
                find_mergesort_interval(f, coop, block, nv, count, local(block), local(block + 1));
            for i in r.a0..r.a1 {
                covered[i as usize] += 1;
            }
            for i in r.b0..r.b1 {
                covered[i as usize] += 1;
            }
        }
        assert!(covered.iter().all(|&c| c == 1), "coop {coop}: {covered:?}");
    }
}
