//! The cooperative searches in the simulator against the serial ones, bit for bit: every
//! group size (1, 2, 4, 8, 16, 32 lanes), sorted and unsorted (garbage) inputs, many ties
//! and all-equal keys, empty inputs, every diagonal from 0 to |A| + |B|, both bounds (as
//! types and as run-time values), Less and Greater, u32 and u64 indices, 4- and 8-byte
//! keys. Several groups share each warp, each with its own key or diagonal, so the tests
//! also check that groups' ballots and shuffles stay apart.

use mgpu_core::sim::{launch, SimCta};
use mgpu_core::{Comparator, Cta, Greater, Less};
use mgpu_ctasearch::*;
use proptest::prelude::*;

/// Threads per simulated CTA: 4 warps.
const NT: usize = 128;

/// Runs `f(cta, query)` in groups of `2^lanes_log2` lanes, group `g` of each launch taking
/// query `first + g`, for queries `0..queries`. Checks that all lanes of a group agree and
/// returns one result per query.
fn per_group<R: Copy + Default + PartialEq + core::fmt::Debug>(
    lanes_log2: u32,
    queries: usize,
    f: &(dyn Fn(&SimCta, usize) -> R + Sync),
) -> Vec<R> {
    let groups = NT >> lanes_log2;
    let mut out = vec![R::default(); queries];
    for first in (0..queries).step_by(groups) {
        let mut lanes = vec![R::default(); NT];
        let p = lanes.as_mut_ptr();
        launch(1, NT as u32, 0, &|cta: &SimCta| {
            let q = first + (cta.tid() as usize >> lanes_log2);
            // Whole groups only (as the partition kernels exit): the ballots' masks are
            // exactly the group.
            if q < queries {
                let r = f(cta, q);
                unsafe { *p.add(cta.tid() as usize) = r };
            }
        });
        for (g, chunk) in lanes.chunks(1 << lanes_log2).enumerate() {
            if first + g < queries {
                assert!(
                    chunk.iter().all(|r| *r == chunk[0]),
                    "lanes of group {g} disagree: {chunk:?}"
                );
                out[first + g] = chunk[0];
            }
        }
    }
    out
}

/// Key sequences: sorted (ascending for Less, descending for Greater) or left as drawn.
fn keys(max_len: usize, max_key: u32) -> impl Strategy<Value = (Vec<u32>, bool)> {
    (prop::collection::vec(0..max_key, 0..max_len), any::<bool>())
}

fn arrange<C: 'static>(mut v: Vec<u32>, sorted: bool) -> Vec<u32> {
    if sorted {
        v.sort_unstable();
        if std::any::TypeId::of::<C>() == std::any::TypeId::of::<Greater>() {
            v.reverse();
        }
    }
    v
}

/// Every diagonal of a and b, every group size, both bounds, both index types.
fn check_merge_path<T: Copy + Send + Sync + PartialEq, C: Comparator<T>>(a: &[T], b: &[T]) {
    let n = a.len() + b.len();
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let want: Vec<u64> = (0..=n as u64)
            .map(|d| unsafe {
                merge_path(
                    a,
                    a.len() as u64,
                    b,
                    b.len() as u64,
                    d,
                    bounds,
                    C::default(),
                )
            })
            .collect();
        for lanes_log2 in 0..=COOP_MAX_LANES_LOG2 {
            let got64 = merge_path_coop_all::<T, C, u64>(lanes_log2, a, b, bounds);
            assert_eq!(got64, want, "u64, {lanes_log2} {bounds:?}");
            let got32 = merge_path_coop_all::<T, C, u32>(lanes_log2, a, b, bounds);
            assert_eq!(got32, want, "u32, {lanes_log2} {bounds:?}");
        }
    }
}

/// [`merge_path_coop`] at every diagonal of a and b in groups of `2^lanes_log2` lanes,
/// with index type `I`, as u64.
fn merge_path_coop_all<T: Copy + Send + Sync, C: Comparator<T>, I: Idx>(
    lanes_log2: u32,
    a: &[T],
    b: &[T],
    bounds: Bounds,
) -> Vec<u64> {
    let (pa, pb) = (a.as_ptr() as usize, b.as_ptr() as usize);
    let (a_count, b_count) = (a.len() as u64, b.len() as u64);
    per_group(lanes_log2, a.len() + b.len() + 1, &|cta, d| unsafe {
        merge_path_coop(
            cta,
            lanes_log2,
            pa as *const T,
            I::from_u64(a_count),
            pb as *const T,
            I::from_u64(b_count),
            I::from_u64(d as u64),
            bounds,
            C::default(),
        )
        .to_u64()
    })
}

/// Every key from below the smallest to above the largest, every group size, both bounds
/// and both index types; also the key left of the result.
fn check_binary_search<C: Comparator<u32>>(data: &[u32]) {
    let max = data.iter().copied().max().unwrap_or(0);
    let keys: Vec<u32> = (0..=max + 1).collect();
    let pd = data.as_ptr() as usize;
    let count = data.len();
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let want: Vec<u64> = keys
            .iter()
            .map(|&k| unsafe { binary_search(data, count as u64, k, bounds, C::default()) })
            .collect();
        let want_left: Vec<(u64, Option<u32>)> = want
            .iter()
            .map(|&r| (r, r.checked_sub(1).map(|i| data[i as usize])))
            .collect();
        for lanes_log2 in 0..=COOP_MAX_LANES_LOG2 {
            let got = per_group(lanes_log2, keys.len(), &|cta, q| unsafe {
                binary_search_coop(
                    cta,
                    lanes_log2,
                    pd as *const u32,
                    count as u64,
                    keys[q],
                    bounds,
                    C::default(),
                )
            });
            assert_eq!(got, want, "u64, {lanes_log2} {bounds:?}");
            let got = per_group(lanes_log2, keys.len(), &|cta, q| unsafe {
                let (r, l) = binary_search_coop_left(
                    cta,
                    lanes_log2,
                    pd as *const u32,
                    count as u32,
                    keys[q],
                    bounds,
                    C::default(),
                );
                (r as u64, l)
            });
            assert_eq!(got, want_left, "left u32, {lanes_log2} {bounds:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn merge_path_coop_is_merge_path((a, sa) in keys(48, 8), (b, sb) in keys(48, 8)) {
        check_merge_path::<u32, Less>(&arrange::<Less>(a.clone(), sa), &arrange::<Less>(b.clone(), sb));
        check_merge_path::<u32, Greater>(&arrange::<Greater>(a, sa), &arrange::<Greater>(b, sb));
    }

    #[test]
    fn merge_path_coop_on_wide_keys((a, sa) in keys(40, 1000), (b, sb) in keys(80, 1000)) {
        let a: Vec<f64> = arrange::<Less>(a, sa).into_iter().map(|x| x as f64 * 0.5).collect();
        let b: Vec<f64> = arrange::<Less>(b, sb).into_iter().map(|x| x as f64 * 0.5).collect();
        check_merge_path::<f64, Less>(&a, &b);
    }

    #[test]
    fn binary_search_coop_is_binary_search((v, sorted) in keys(70, 20)) {
        check_binary_search::<Less>(&arrange::<Less>(v.clone(), sorted));
        check_binary_search::<Greater>(&arrange::<Greater>(v, sorted));
    }
}

#[test]
fn edge_cases() {
    // Empty inputs, one side empty, all keys equal, long runs.
    check_merge_path::<u32, Less>(&[], &[]);
    check_merge_path::<u32, Less>(&[], &[1, 2, 3]);
    check_merge_path::<u32, Less>(&[4; 70], &[]);
    check_merge_path::<u32, Less>(&[5; 40], &[5; 90]);
    check_merge_path::<u32, Greater>(&[5; 33], &[5; 31]);
    check_binary_search::<Less>(&[]);
    check_binary_search::<Less>(&[7; 100]);
    check_binary_search::<Less>(&[0; 1]);
    // Sizes around powers of two (the group's tree covers 2^g - 1 positions a round).
    for n in [1usize, 2, 3, 7, 8, 31, 32, 33, 63, 64, 65, 255, 256, 1000] {
        let v: Vec<u32> = (0..n as u32).map(|i| i / 3).collect();
        check_binary_search::<Less>(&v);
        let garbage: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761) >> 27)
            .collect();
        check_binary_search::<Less>(&garbage);
    }
}

/// Large ranges (many rounds) with typed bounds, u64 keys and indices.
#[test]
fn long_searches_with_typed_bounds() {
    let a: Vec<u64> = (0..5000u64).map(|i| i * 7 / 3).collect();
    let b: Vec<u64> = (0..3000u64).map(|i| i * 11 / 4).collect();
    let garbage: Vec<u64> = (0..4000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 50)
        .collect();
    let diags: Vec<u64> = (0..=8000).step_by(37).chain([7999, 8000]).collect();
    for lanes_log2 in 0..=COOP_MAX_LANES_LOG2 {
        let (pa, pb, pg) = (
            a.as_ptr() as usize,
            b.as_ptr() as usize,
            garbage.as_ptr() as usize,
        );
        let got = per_group(lanes_log2, diags.len(), &|cta, q| unsafe {
            merge_path_coop(
                cta,
                lanes_log2,
                pa as *const u64,
                5000u64,
                pb as *const u64,
                3000,
                diags[q],
                Upper,
                Less,
            )
        });
        let want: Vec<u64> = diags
            .iter()
            .map(|&d| unsafe { merge_path(&a[..], 5000u64, &b[..], 3000, d, Upper, Less) })
            .collect();
        assert_eq!(got, want);
        // Merge Path of garbage against garbage, lower bound.
        let got = per_group(lanes_log2, diags.len(), &|cta, q| unsafe {
            merge_path_coop(
                cta,
                lanes_log2,
                pg as *const u64,
                4000u64,
                pg as *const u64,
                4000,
                diags[q],
                Lower,
                Less,
            )
        });
        let want: Vec<u64> = diags
            .iter()
            .map(|&d| unsafe {
                merge_path(&garbage[..], 4000u64, &garbage[..], 4000, d, Lower, Less)
            })
            .collect();
        assert_eq!(got, want);
        let keys: Vec<u64> = (0..12000).step_by(13).collect();
        let got = per_group(lanes_log2, keys.len(), &|cta, q| unsafe {
            binary_search_coop_left(
                cta,
                lanes_log2,
                pa as *const u64,
                5000u64,
                keys[q],
                Upper,
                Less,
            )
        });
        let want: Vec<(u64, Option<u64>)> = keys
            .iter()
            .map(|&k| {
                let r = unsafe { binary_search(&a[..], 5000u64, k, Upper, Less) };
                (r, r.checked_sub(1).map(|i| a[i as usize]))
            })
            .collect();
        assert_eq!(got, want);
    }
}
