//! Host tests of the networks against `sort_by` / `sort_by_key`.

use super::*;
use mgpu_core::{Comparator, Greater, Less};
use proptest::prelude::*;

/// Orders `(key, value)` pairs by key only (to test stability through the values).
#[derive(Clone, Copy, Default)]
struct ByKey;
impl Comparator<(u32, u32)> for ByKey {
    const NAME: &'static str = "by_key";
    fn compare(a: &(u32, u32), b: &(u32, u32)) -> bool {
        a.0 < b.0
    }
}

fn arr<T: Copy + Default, const N: usize>(v: &[T]) -> [T; N] {
    core::array::from_fn(|i| v[i])
}

/// Runs all variants on `v` (length N) and compares with a stable `sort_by_key`.
fn check<const N: usize>(v: &[u32]) {
    let mut want: Vec<(u32, u32)> = v.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
    want.sort_by_key(|p| p.0);
    let want_keys: Vec<u32> = want.iter().map(|p| p.0).collect();
    let want_vals: Vec<u32> = want.iter().map(|p| p.1).collect();

    // Odd-even transposition: stable, so the values (original indices) match too.
    let mut k: [u32; N] = arr(v);
    let mut val: [u32; N] = core::array::from_fn(|i| i as u32);
    odd_even_transpose_sort_pairs::<_, _, Less, N>(&mut k, &mut val);
    assert_eq!(&k[..], &want_keys[..]);
    assert_eq!(&val[..], &want_vals[..], "transposition sort is stable");

    let mut k: [u32; N] = arr(v);
    odd_even_transpose_sort_keys::<_, Less, N>(&mut k);
    assert_eq!(&k[..], &want_keys[..]);

    // Tuples through a key-only comparator: the same stability, seen from the keys.
    let mut t: [(u32, u32); N] = core::array::from_fn(|i| (v[i], i as u32));
    odd_even_transpose_sort_keys::<_, ByKey, N>(&mut t);
    assert_eq!(&t[..], &want[..]);

    // Batcher: sorted keys, and the values are a permutation carried with their keys.
    let mut k: [u32; N] = arr(v);
    let mut val: [u32; N] = core::array::from_fn(|i| i as u32);
    odd_even_merge_sort_pairs::<_, _, Less, N>(&mut k, &mut val);
    assert_eq!(&k[..], &want_keys[..]);
    for j in 0..N {
        assert_eq!(v[val[j] as usize], k[j], "values travel with their keys");
    }
    let mut seen = val.to_vec();
    seen.sort_unstable();
    assert_eq!(seen, (0..N as u32).collect::<Vec<_>>());

    let mut k: [u32; N] = arr(v);
    odd_even_merge_sort_keys::<_, Greater, N>(&mut k);
    let mut desc = want_keys.clone();
    desc.reverse();
    assert_eq!(&k[..], &desc[..]);
}

/// Segmented sort: each flagged segment sorted on its own, stably; nothing crosses.
fn check_flags<const N: usize>(v: &[u32], flags: u32) {
    let mut k: [u32; N] = arr(v);
    let mut val: [u32; N] = core::array::from_fn(|i| i as u32);
    odd_even_transpose_sort_flags::<_, _, Less, N>(&mut k, &mut val, flags);
    let mut start = 0;
    for end in 1..=N {
        if end == N || (flags >> end) & 1 == 1 {
            let mut seg: Vec<(u32, u32)> = (start..end).map(|i| (v[i], i as u32)).collect();
            seg.sort_by_key(|p| p.0);
            for (j, p) in seg.iter().enumerate() {
                assert_eq!(
                    (k[start + j], val[start + j]),
                    *p,
                    "segment [{start}, {end})"
                );
            }
            start = end;
        }
    }
}

macro_rules! sizes {
    ($($name:ident: $n:literal),*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            $(
            #[test]
            fn $name(v in proptest::collection::vec(0u32..6, $n), flags in any::<u32>()) {
                check::<$n>(&v);
                check_flags::<$n>(&v, flags);
            }
            )*
        }
    };
}

sizes!(n1: 1, n2: 2, n3: 3, n5: 5, n7: 7, n8: 8, n11: 11, n16: 16, n17: 17, n32: 32);

#[test]
fn all_zero_one_inputs_of_length_9() {
    // The 0-1 principle: a comparator network sorts every input iff it sorts every 0-1
    // input. 2^9 inputs cover both networks for VT = 9 exhaustively.
    for bits in 0u32..512 {
        let v: Vec<u32> = (0..9).map(|i| (bits >> i) & 1).collect();
        check::<9>(&v);
    }
}

#[test]
fn flags_block_every_swap() {
    // Every element its own segment: nothing moves.
    let mut k = [5, 4, 3, 2, 1];
    let mut v = [0, 1, 2, 3, 4];
    odd_even_transpose_sort_flags::<_, _, Less, 5>(&mut k, &mut v, !0);
    assert_eq!(k, [5, 4, 3, 2, 1]);
    assert_eq!(v, [0, 1, 2, 3, 4]);
    // Bit 0 is ignored: one segment.
    odd_even_transpose_sort_flags::<_, _, Less, 5>(&mut k, &mut v, 1);
    assert_eq!(k, [1, 2, 3, 4, 5]);
}

#[test]
fn batcher_comparator_counts() {
    // Known sizes of Batcher's network (n = 2, 4, 8, 16, 32).
    let counts: Vec<usize> = [2, 4, 8, 16, 32]
        .iter()
        .map(|&n| odd_even_merge_sort_comparators(n))
        .collect();
    assert_eq!(counts, vec![1, 5, 19, 63, 191]);
}
