//! The seeds' merge and mergesort (Modern GPU's `MergeKeys`/`MergePairs` and
//! `MergesortKeys`/`MergesortPairs`/`MergesortIndices`) on host slices, with the GPU's
//! semantics and validation (mgpu-merge).
//!
//! - [`merge_keys`], [`merge_pairs`]: the stable merge of two inputs sorted by the
//!   comparator `C`: on equal keys A's elements come first (B's head is taken only when
//!   `C::compare(b, a)`), values follow their keys. An input that is not sorted by `C` is
//!   [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) (nothing is written then).
//! - [`mergesort_keys`], [`mergesort_pairs`], [`mergesort_indices`]: stable sorts by `C`
//!   (equal keys keep their input order), in place, values or the sorting permutation
//!   following the keys.
//!
//! Everything orders through `C::compare` only. For floats [`Less`](mgpu_core::Less) and
//! [`Greater`](mgpu_core::Greater) are IEEE 754's totalOrder ([`f64::total_cmp`]'s:
//! `-NaN < -inf < … < -0.0 < +0.0 < … < +inf < +NaN`), so NaNs and signed zeros have one
//! place and the results are the same bits on every backend.
//!
//! The merges cut the output into fixed chunks ([`CHUNK_LEN`] outputs, one chunk below
//! [`PARALLEL_MIN_LEN`]); each chunk's start in A and B is its lower-bound Merge Path split
//! ([`merge_path_partitions`]), and the chunks are merged sequentially in parallel. A
//! stable merge is unique, so the result is the sequential merge's for any thread count.
//! The sorts are rayon's stable [`par_sort_by`](rayon::slice::ParallelSliceMut::par_sort_by),
//! whose result a stable sort also fixes.

use core::cmp::Ordering;

use mgpu_core::{Comparator, Element, Index, Result, Violation};
use rayon::prelude::*;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};
use crate::partition::{merge_path_partitions, Bounds};

/// The ordering `C::compare` defines: `Less` when `a` goes strictly before `b`, `Greater`
/// when `b` goes strictly before `a`, else `Equal` (equivalent keys, kept in input order by
/// a stable sort).
#[inline]
fn ordering<T, C: Comparator<T>>(a: &T, b: &T) -> Ordering {
    if C::compare(a, b) {
        Ordering::Less
    } else if C::compare(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Whether no element of `x` goes strictly before its predecessor (in parallel for long
/// inputs).
fn is_sorted<T: Sync, C: Comparator<T>>(x: &[T]) -> bool {
    let descends = |w: &[T]| C::compare(&w[1], &w[0]);
    if x.len() < PARALLEL_MIN_LEN {
        !x.windows(2).any(descends)
    } else {
        !x.par_windows(2).any(descends)
    }
}

/// The stable merge of the pairs `a` and `b` (keys sorted by `C`, values one per key) into
/// `keys_out` and `values_out`, whose lengths the caller has checked. A merge of keys
/// alone passes unit values, which cost nothing.
fn merge_by<K: Element, V: Copy + Send + Sync, C: Comparator<K>>(
    a: (&[K], &[V]),
    b: (&[K], &[V]),
    keys_out: &mut [K],
    values_out: &mut [V],
) -> Result<()> {
    let sorted = is_sorted::<K, C>(a.0) && is_sorted::<K, C>(b.0);
    Violation::check((!sorted).then_some(Violation::MergeOrder))?;
    let n = keys_out.len();
    let chunk = if n < PARALLEL_MIN_LEN {
        n.max(1)
    } else {
        CHUNK_LEN
    };
    // Entry c: how many of the first c * chunk outputs come from A.
    let splits = merge_path_partitions::<K, C>(a.0, b.0, chunk, Bounds::Lower)?;
    keys_out
        .par_chunks_mut(chunk)
        .zip(values_out.par_chunks_mut(chunk))
        .enumerate()
        .for_each(|(c, (keys, values))| {
            let (a0, a1) = (splits[c] as usize, splits[c + 1] as usize);
            let (d0, d1) = (c * chunk, c * chunk + keys.len());
            let (b0, b1) = (d0 - a0, d1 - a1);
            merge_serial::<K, V, C>(
                (&a.0[a0..a1], &a.1[a0..a1]),
                (&b.0[b0..b1], &b.1[b0..b1]),
                keys,
                values,
            );
        });
    Ok(())
}

/// The sequential stable merge of all of `a` and `b` into outputs of their total length:
/// B's head goes first only when it goes strictly before A's.
fn merge_serial<K: Copy, V: Copy, C: Comparator<K>>(
    a: (&[K], &[V]),
    b: (&[K], &[V]),
    keys_out: &mut [K],
    values_out: &mut [V],
) {
    debug_assert_eq!(a.0.len() + b.0.len(), keys_out.len());
    let (mut i, mut j) = (0, 0);
    for (k, v) in keys_out.iter_mut().zip(values_out.iter_mut()) {
        if j < b.0.len() && (i == a.0.len() || C::compare(&b.0[j], &a.0[i])) {
            (*k, *v) = (b.0[j], b.1[j]);
            j += 1;
        } else {
            (*k, *v) = (a.0[i], a.1[i]);
            i += 1;
        }
    }
}

/// Merges `a` and `b`, both sorted by `C`, into `output` (Modern GPU's `MergeKeys`):
/// stable, so on equal keys the elements of `a` come first.
///
/// Errors: `output.len() != a.len() + b.len()` is
/// [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch); an input with an element that
/// goes strictly before its predecessor is
/// [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) (which input is not named, as
/// on the GPU), and nothing is written then.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Greater, Less};
///
/// let mut out = [0i32; 7];
/// mgpu_cpu::merge_keys(&[1, 3, 3, 8], &[2, 3, 9], &mut out, Less)?;
/// assert_eq!(out, [1, 2, 3, 3, 3, 8, 9]);
///
/// // Descending inputs merge with `Greater`.
/// let mut out = [0u64; 4];
/// mgpu_cpu::merge_keys(&[9, 4], &[7, 1], &mut out, Greater)?;
/// assert_eq!(out, [9, 7, 4, 1]);
///
/// // An input out of order is an error.
/// let e = mgpu_cpu::merge_keys(&[1, 2], &[5, 4], &mut out, Less).unwrap_err();
/// assert_eq!(e.to_string(), "invalid input: a merge input is not sorted by the comparator");
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn merge_keys<T: Element, C: Comparator<T>>(
    a: &[T],
    b: &[T],
    output: &mut [T],
    _comp: C,
) -> Result<()> {
    mgpu_core::checks::merge(a.len(), b.len(), output.len())?;
    merge_by::<T, (), C>(
        (a, &vec![(); a.len()]),
        (b, &vec![(); b.len()]),
        output,
        &mut vec![(); a.len() + b.len()],
    )
}

/// Merges the pairs `(a_keys, a_values)` and `(b_keys, b_values)`, keys sorted by `C`,
/// into `keys_out` and `values_out` (Modern GPU's `MergePairs`): stable, so on equal keys
/// the pairs of A come first; each value follows its key.
///
/// Errors: a value list not one per key, or an output not `a_keys.len() + b_keys.len()`
/// long, is [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch); keys out of order
/// as for [`merge_keys`].
///
/// # Examples
///
/// On the tie at key 3, A's value (`'a'`) comes before B's (`'B'`).
///
/// ```
/// use mgpu_core::Less;
///
/// let (mut keys, mut values) = ([0u32; 4], [' '; 4]);
/// mgpu_cpu::merge_pairs(&[1, 3], &['a', 'b'], &[3, 4], &['B', 'C'], &mut keys, &mut values, Less)?;
/// assert_eq!(keys, [1, 3, 3, 4]);
/// assert_eq!(values, ['a', 'b', 'B', 'C']);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn merge_pairs<K: Element, V: Copy + Send + Sync, C: Comparator<K>>(
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
    keys_out: &mut [K],
    values_out: &mut [V],
    _comp: C,
) -> Result<()> {
    mgpu_core::checks::merge_pairs(
        [a_keys.len(), a_values.len()],
        [b_keys.len(), b_values.len()],
        [keys_out.len(), values_out.len()],
    )?;
    merge_by::<K, V, C>((a_keys, a_values), (b_keys, b_values), keys_out, values_out)
}

/// Sorts `keys` in place by `C`, stably (Modern GPU's `MergesortKeys`).
///
/// # Examples
///
/// The seed's example:
///
/// ```
/// use mgpu_core::Less;
///
/// let mut keys = [13, 90, 83, 12, 96, 91, 22, 63, 30, 9, 54, 27, 18, 54, 99, 95];
/// mgpu_cpu::mergesort_keys(&mut keys, Less)?;
/// assert_eq!(keys, [9, 12, 13, 18, 22, 27, 30, 54, 54, 63, 83, 90, 91, 95, 96, 99]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
///
/// Floats sort by IEEE totalOrder, as [`f64::total_cmp`] does: NaNs at the ends by sign,
/// `-0.0` before `+0.0`.
///
/// ```
/// use mgpu_core::Less;
///
/// let mut keys = [1.5, f64::NAN, 0.0, -f64::NAN, -0.0, f64::NEG_INFINITY, -2.0];
/// let mut expected = keys;
/// expected.sort_by(|a, b| a.total_cmp(b));
/// mgpu_cpu::mergesort_keys(&mut keys, Less)?;
/// assert_eq!(keys.map(f64::to_bits), expected.map(f64::to_bits));
/// assert_eq!(keys[3].to_bits(), (-0.0f64).to_bits());
/// assert!(keys[0].is_nan() && keys[6].is_nan());
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn mergesort_keys<T: Element, C: Comparator<T>>(keys: &mut [T], _comp: C) -> Result<()> {
    keys.par_sort_by(ordering::<T, C>);
    Ok(())
}

/// Sorts `keys` in place by `C`, stably, `values` (one per key) following their keys: the
/// body of [`mergesort_pairs`] and [`mergesort_indices`].
fn sort_pairs_by<K: Element, V: Copy + Send + Sync, C: Comparator<K>>(
    keys: &mut [K],
    values: &mut [V],
) {
    let mut pairs: Vec<(K, V)> = keys
        .par_iter()
        .zip(values.par_iter())
        .map(|(&k, &v)| (k, v))
        .collect();
    pairs.par_sort_by(|x, y| ordering::<K, C>(&x.0, &y.0));
    keys.par_iter_mut()
        .zip(values.par_iter_mut())
        .zip(pairs.par_iter())
        .for_each(|((k, v), &(pk, pv))| (*k, *v) = (pk, pv));
}

/// Sorts `keys` in place by `C`, stably, each value of `values` following its key (Modern
/// GPU's `MergesortPairs`).
///
/// Errors: `values.len() != keys.len()` is
/// [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch).
///
/// # Examples
///
/// Equal keys keep their values' input order:
///
/// ```
/// use mgpu_core::Less;
///
/// let mut keys = [3u32, 1, 3, 1, 2];
/// let mut values = ['a', 'b', 'c', 'd', 'e'];
/// mgpu_cpu::mergesort_pairs(&mut keys, &mut values, Less)?;
/// assert_eq!(keys, [1, 1, 2, 3, 3]);
/// assert_eq!(values, ['b', 'd', 'e', 'a', 'c']);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn mergesort_pairs<K: Element, V: Copy + Send + Sync, C: Comparator<K>>(
    keys: &mut [K],
    values: &mut [V],
    _comp: C,
) -> Result<()> {
    mgpu_core::checks::sort_pairs(keys.len(), values.len())?;
    sort_pairs_by::<K, V, C>(keys, values);
    Ok(())
}

/// Sorts `keys` in place by `C`, stably, and writes to `indices` the permutation that
/// sorts them: `indices[j]` is the input position of the key now at `j`, equal keys in
/// input order (Modern GPU's `MergesortIndices`).
///
/// Errors: `indices.len() != keys.len()` is
/// [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch); more keys than `I` can
/// index is [`Error::IndexOverflow`](mgpu_core::Error::IndexOverflow).
///
/// # Examples
///
/// ```
/// use mgpu_core::Greater;
///
/// let mut keys = [5i64, 9, 5, 7];
/// let mut indices = [0u32; 4];
/// mgpu_cpu::mergesort_indices(&mut keys, &mut indices, Greater)?;
/// assert_eq!(keys, [9, 7, 5, 5]);
/// assert_eq!(indices, [1, 3, 0, 2]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn mergesort_indices<K: Element, I: Index, C: Comparator<K>>(
    keys: &mut [K],
    indices: &mut [I],
    _comp: C,
) -> Result<()> {
    mgpu_core::checks::sort_indices::<I>(keys.len(), indices.len())?;
    indices.par_iter_mut().enumerate().for_each(|(j, i)| {
        *i = I::from_usize(j).expect("checked: every position fits the index type");
    });
    sort_pairs_by::<K, I, C>(keys, indices);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::{Error, Greater, Less};

    /// The serial stable merge by definition (two pointers, A first on ties).
    fn merge_ref<T: Copy>(a: &[T], b: &[T], before: impl Fn(&T, &T) -> bool) -> Vec<T> {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < a.len() || j < b.len() {
            if i == a.len() || (j < b.len() && before(&b[j], &a[i])) {
                out.push(b[j]);
                j += 1;
            } else {
                out.push(a[i]);
                i += 1;
            }
        }
        out
    }

    /// A small generator (SplitMix64), so the tests need no kit.
    fn random(seed: u64, n: usize) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^ (z >> 31)
            })
            .collect()
    }

    /// Sorted keys in `[0, range)` and, as values, their positions tagged by list.
    fn sorted_pairs(seed: u64, n: usize, range: u64, tag: u64) -> (Vec<u64>, Vec<u64>) {
        let mut k: Vec<u64> = random(seed, n).iter().map(|x| x % range).collect();
        k.sort();
        (k, (0..n as u64).map(|i| tag + i).collect())
    }

    fn check_merge(na: usize, nb: usize, range: u64) {
        let (ak, av) = sorted_pairs(na as u64, na, range, 0);
        let (bk, bv) = sorted_pairs(nb as u64 + 1000, nb, range, 1 << 40);
        let mut keys = vec![0; na + nb];
        merge_keys(&ak, &bk, &mut keys, Less).unwrap();
        assert_eq!(keys, merge_ref(&ak, &bk, |x, y| x < y), "{na} + {nb}");
        let mut values = vec![0; na + nb];
        merge_pairs(&ak, &av, &bk, &bv, &mut keys, &mut values, Less).unwrap();
        let a: Vec<_> = ak.iter().copied().zip(av.iter().copied()).collect();
        let b: Vec<_> = bk.iter().copied().zip(bv.iter().copied()).collect();
        let expected = merge_ref(&a, &b, |x, y| x.0 < y.0);
        let got: Vec<_> = keys.into_iter().zip(values).collect();
        assert_eq!(got, expected, "{na} + {nb} pairs");
    }

    #[test]
    fn merges_of_small_sizes() {
        for na in 0..=5 {
            for nb in 0..=5 {
                for range in [1, 3, 100] {
                    check_merge(na, nb, range);
                }
            }
        }
    }

    #[test]
    fn long_merges_are_the_serial_merge() {
        let n = 3 * PARALLEL_MIN_LEN;
        // Many ties (range 1000) and almost none; lopsided sizes put whole chunks in one list.
        check_merge(n / 2 + 17, n / 2 - 5, 1000);
        check_merge(n / 3, 2 * n / 3 + 1, u64::MAX);
        check_merge(n, 3, 10);
        check_merge(1, n, 1);
        check_merge(n, 0, 5);
    }

    #[test]
    fn merges_with_greater() {
        let mut a: Vec<i32> = random(1, 300)
            .iter()
            .map(|&x| (x % 50) as i32 - 25)
            .collect();
        let mut b: Vec<i32> = random(2, 200)
            .iter()
            .map(|&x| (x % 50) as i32 - 25)
            .collect();
        a.sort_by(|x, y| y.cmp(x));
        b.sort_by(|x, y| y.cmp(x));
        let mut out = vec![0; 500];
        merge_keys(&a, &b, &mut out, Greater).unwrap();
        assert_eq!(out, merge_ref(&a, &b, |x, y| x > y));
        // Ascending inputs are out of order for Greater.
        assert!(merge_keys(&[1, 2], &[0], &mut [0; 3], Greater).is_err());
    }

    /// Floats of every class: NaNs of both signs and payloads, infinities, signed zeros.
    fn special_floats(seed: u64, n: usize) -> Vec<f64> {
        let specials = [
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7FF0_0000_0000_0001),
            f64::from_bits(0xFFF8_0000_0000_0002),
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
        ];
        random(seed, n)
            .iter()
            .map(|&r| {
                if r % 3 == 0 {
                    f64::from_bits(r)
                } else {
                    specials[(r >> 8) as usize % specials.len()]
                }
            })
            .collect()
    }

    #[test]
    fn floats_sort_and_merge_by_total_order() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for n in [0, 1, 2, 5, 100, 3 * PARALLEL_MIN_LEN] {
            let mut keys = special_floats(n as u64, n);
            let mut expected = keys.clone();
            expected.sort_by(|a, b| a.total_cmp(b));
            let mut a = keys.clone();
            mergesort_keys(&mut keys, Less).unwrap();
            assert_eq!(bits(&keys), bits(&expected), "n = {n}");
            mergesort_keys(&mut a, Greater).unwrap();
            expected.sort_by(|a, b| b.total_cmp(a));
            assert_eq!(bits(&a), bits(&expected), "n = {n}, Greater");

            let mut a = special_floats(n as u64 + 1, n / 2);
            let mut b = special_floats(n as u64 + 2, n - n / 2);
            a.sort_by(|x, y| x.total_cmp(y));
            b.sort_by(|x, y| x.total_cmp(y));
            let mut out = vec![0.0; n];
            merge_keys(&a, &b, &mut out, Less).unwrap();
            let expected = merge_ref(&a, &b, |x, y| x.total_cmp(y).is_lt());
            assert_eq!(bits(&out), bits(&expected), "merge n = {n}");
        }
    }

    #[test]
    fn sorts_are_stable() {
        for n in [0, 1, 2, 3, 4, 5, 1000, 3 * PARALLEL_MIN_LEN] {
            let keys: Vec<u32> = random(n as u64, n).iter().map(|x| (x % 7) as u32).collect();
            let mut k = keys.clone();
            let mut v: Vec<u64> = (0..n as u64).collect();
            mergesort_pairs(&mut k, &mut v, Less).unwrap();
            let mut perm: Vec<usize> = (0..n).collect();
            perm.sort_by_key(|&i| keys[i]);
            assert_eq!(
                v,
                perm.iter().map(|&i| i as u64).collect::<Vec<_>>(),
                "n = {n}"
            );
            assert_eq!(k, perm.iter().map(|&i| keys[i]).collect::<Vec<_>>());

            let mut k = keys.clone();
            let mut idx = vec![0u32; n];
            mergesort_indices(&mut k, &mut idx, Less).unwrap();
            assert_eq!(idx, perm.iter().map(|&i| i as u32).collect::<Vec<_>>());
            let mut k2 = keys.clone();
            mergesort_keys(&mut k2, Less).unwrap();
            assert_eq!(k, k2);

            // All keys equal: the values do not move.
            let mut k = vec![4i32; n];
            let mut v: Vec<i64> = (0..n as i64).rev().collect();
            mergesort_pairs(&mut k, &mut v, Greater).unwrap();
            assert_eq!(v, (0..n as i64).rev().collect::<Vec<_>>());
        }
    }

    #[test]
    fn wrong_lengths_are_errors() {
        let len_err = |r: Result<()>| matches!(r, Err(Error::LengthMismatch { .. }));
        assert!(len_err(merge_keys(&[1], &[2], &mut [0; 3], Less)));
        assert!(len_err(merge_keys(&[1], &[2], &mut [0; 1], Less)));
        let (mut k, mut v) = ([0; 2], [0u8; 2]);
        assert!(len_err(merge_pairs(
            &[1],
            &[],
            &[2],
            &[1],
            &mut k,
            &mut v,
            Less
        )));
        assert!(len_err(merge_pairs(
            &[1],
            &[1],
            &[2],
            &[1, 2],
            &mut k,
            &mut v,
            Less
        )));
        assert!(len_err(merge_pairs(
            &[1],
            &[1],
            &[2],
            &[1],
            &mut k,
            &mut v[..1],
            Less
        )));
        assert!(merge_pairs(&[1], &[1], &[2], &[1], &mut k, &mut v, Less).is_ok());
        assert!(len_err(mergesort_pairs(&mut [1, 2], &mut [0u8], Less)));
        assert!(len_err(mergesort_indices(
            &mut [1, 2],
            &mut [0u32; 3],
            Less
        )));
    }

    #[test]
    fn unsorted_merge_inputs_are_errors() {
        let msg = || Error::InvalidInput("a merge input is not sorted by the comparator".into());
        let mut out = [7i32; 4];
        assert_eq!(merge_keys(&[2, 1], &[1, 2], &mut out, Less), Err(msg()));
        assert_eq!(merge_keys(&[1, 2], &[2, 1], &mut out, Less), Err(msg()));
        assert_eq!(merge_keys(&[2, 1], &[2, 1], &mut out, Less), Err(msg()));
        assert_eq!(out, [7; 4], "nothing written");
        let (mut k, mut v) = ([0; 4], [0; 4]);
        let e = merge_pairs(&[1, 1], &[0, 0], &[3, 2], &[0, 0], &mut k, &mut v, Less);
        assert_eq!(e, Err(msg()));
        // Equal neighbours are sorted; a long input out of order at its very end is not.
        let mut long: Vec<i32> = (0..3 * PARALLEL_MIN_LEN as i32).collect();
        let mut out = vec![0; long.len() + 2];
        assert!(merge_keys(&long, &[0, 0], &mut out, Less).is_ok());
        *long.last_mut().unwrap() = -1;
        assert_eq!(merge_keys(&[0, 0], &long, &mut out, Less), Err(msg()));
    }
}
