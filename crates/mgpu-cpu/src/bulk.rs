//! The seeds' bulk remove and bulk insert (Modern GPU's `BulkRemove`/`BulkInsert`, page
//! 003) on host slices, with the GPU's semantics and validation (mgpu-bulk).
//!
//! - [`bulk_remove`]: `output` is `source` without the positions named by `indices`
//!   (sorted, unique, each `< source.len()`); `output.len() == source.len() - indices.len()`.
//! - [`bulk_insert`]: `output` is `source` with `values[k]` inserted before source position
//!   `indices[k]` (sorted, duplicates allowed, each `<= source.len()`; `source.len()` means
//!   after the end); values with equal indices keep their order and come before the source
//!   element at that position (the seed's lower-bound Merge Path: an insert index `i` goes
//!   before source position `i`). `output.len() == source.len() + values.len()`.
//!
//! Both run in parallel over fixed output chunks ([`CHUNK_LEN`]) for long inputs; the
//! results are plain copies, so they are exact and independent of the thread count.

use mgpu_core::{Element, Index, Result, Violation};
use rayon::prelude::*;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};

/// Checks remove indices: strictly increasing and below `n`.
fn check_remove<I: Index>(indices: &[I], n: usize) -> Result<()> {
    Violation::check(
        [
            indices
                .windows(2)
                .any(|w| w[0] >= w[1])
                .then_some(Violation::RemoveOrder),
            indices
                .iter()
                .any(|i| i.to_u64() >= n as u64)
                .then_some(Violation::RemoveRange { source_len: n }),
        ]
        .into_iter()
        .flatten(),
    )
}

/// Checks insert indices: non-decreasing and at most `n`.
fn check_insert<I: Index>(indices: &[I], n: usize) -> Result<()> {
    Violation::check(
        [
            indices
                .windows(2)
                .any(|w| w[0] > w[1])
                .then_some(Violation::InsertOrder),
            indices
                .iter()
                .any(|i| i.to_u64() > n as u64)
                .then_some(Violation::InsertRange { source_len: n }),
        ]
        .into_iter()
        .flatten(),
    )
}

/// Splits `output` into consecutive pieces of the given lengths.
fn split_lengths<'a, T>(mut output: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut pieces = Vec::with_capacity(lens.len());
    for &l in lens {
        let (a, b) = core::mem::take(&mut output).split_at_mut(l);
        pieces.push(a);
        output = b;
    }
    pieces
}

/// Removes the elements of `source` at `indices` (sorted and unique), writing the rest,
/// in order, to `output` (Modern GPU's `BulkRemove`).
///
/// Errors: `output.len() != source.len() - indices.len()` (or more indices than elements)
/// is [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch); indices not strictly increasing, or one
/// `>= source.len()`, is [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) (nothing is written then).
///
/// # Examples
///
/// The seed's comment example: source length 10, indices 1, 3, 4, 5, 7, 8 leave A0 A2 A6 A9.
///
/// ```
/// let source: Vec<i32> = (0..10).collect();
/// let mut out = [0i32; 4];
/// mgpu_cpu::bulk_remove(&source, &[1u32, 3, 4, 5, 7, 8], &mut out)?;
/// assert_eq!(out, [0, 2, 6, 9]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn bulk_remove<T: Element, I: Index>(
    source: &[T],
    indices: &[I],
    output: &mut [T],
) -> Result<()> {
    let n = source.len();
    mgpu_core::checks::bulk_remove::<I>(n, indices.len(), Some(output.len()))?;
    check_remove(indices, n)?;
    // One piece per source chunk: the indices in the chunk are found by binary search
    // (the seed's binary-search partitions), its output is the chunk minus those.
    let chunk = if n < PARALLEL_MIN_LEN {
        n.max(1)
    } else {
        CHUNK_LEN
    };
    let starts: Vec<usize> = (0..n.div_ceil(chunk))
        .map(|c| indices.partition_point(|i| i.to_u64() < (c * chunk) as u64))
        .chain(core::iter::once(indices.len()))
        .collect();
    let lens: Vec<usize> = (0..starts.len() - 1)
        .map(|c| ((c + 1) * chunk).min(n) - c * chunk - (starts[c + 1] - starts[c]))
        .collect();
    let pieces = split_lengths(output, &lens);
    pieces.into_par_iter().enumerate().for_each(|(c, out)| {
        let lo = c * chunk;
        let hi = (lo + chunk).min(n);
        let mut next = starts[c];
        let mut o = 0;
        for (j, &x) in source[lo..hi].iter().enumerate() {
            if next < starts[c + 1] && indices[next].to_usize() == lo + j {
                next += 1;
            } else {
                out[o] = x;
                o += 1;
            }
        }
    });
    Ok(())
}

/// The number of inserted values among the first `d` outputs of a bulk insert: the
/// lower-bound Merge Path split of `indices` against the source positions `0..n` on
/// cross-diagonal `d` (the largest `a` with `indices[a - 1] <= d - a`).
fn insert_split<I: Index>(indices: &[I], n: usize, d: usize) -> usize {
    let mut lo = d.saturating_sub(n);
    let mut hi = d.min(indices.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if indices[mid - 1].to_u64() <= (d - mid) as u64 {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Inserts `values[k]` before position `indices[k]` of `source` (indices sorted,
/// duplicates allowed, each at most `source.len()`), writing the merged sequence to
/// `output` (Modern GPU's `BulkInsert`). Values with equal indices keep their order and
/// precede the source element at that index; index `source.len()` appends.
///
/// Errors: `indices.len() != values.len()` or `output.len() != source.len() +
/// values.len()` is [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch); indices not non-decreasing, or one past
/// `source.len()`, is [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) (nothing is written then).
///
/// # Examples
///
/// ```
/// let mut out = [0i32; 7];
/// mgpu_cpu::bulk_insert(&[100, 101, 102], &[0u32, 2, 2], &[0, 1, 2, 3], &mut out)?;
/// assert_eq!(out, [100, 0, 1, 101, 102, 2, 3]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn bulk_insert<T: Element, I: Index>(
    values: &[T],
    indices: &[I],
    source: &[T],
    output: &mut [T],
) -> Result<()> {
    let (m, n) = (values.len(), source.len());
    mgpu_core::checks::bulk_insert::<I>(n, m, indices.len(), Some(output.len()))?;
    check_insert(indices, n)?;
    let total = n + m;
    let chunk = if total < PARALLEL_MIN_LEN {
        total.max(1)
    } else {
        CHUNK_LEN
    };
    output
        .par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(c, out)| {
            let d = c * chunk;
            let mut a = insert_split(indices, n, d);
            let mut b = d - a;
            for o in out.iter_mut() {
                if a < m && (b >= n || indices[a].to_u64() <= b as u64) {
                    *o = values[a];
                    a += 1;
                } else {
                    *o = source[b];
                    b += 1;
                }
            }
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::Error;
    use proptest::prelude::*;

    fn remove_ref(source: &[i64], indices: &[u32]) -> Vec<i64> {
        source
            .iter()
            .enumerate()
            .filter(|(j, _)| !indices.contains(&(*j as u32)))
            .map(|(_, &x)| x)
            .collect()
    }

    fn insert_ref(values: &[i64], indices: &[u32], source: &[i64]) -> Vec<i64> {
        let mut out = Vec::new();
        for j in 0..=source.len() {
            for (k, &i) in indices.iter().enumerate() {
                if i as usize == j {
                    out.push(values[k]);
                }
            }
            if j < source.len() {
                out.push(source[j]);
            }
        }
        out
    }

    #[test]
    fn seed_demos() {
        let data: Vec<i32> = (0..100).collect();
        let remove: Vec<u32> = (0..34).map(|i| 3 * i).collect();
        let mut out = vec![0; 66];
        bulk_remove(&data, &remove, &mut out).unwrap();
        assert_eq!(&out[..6], &[1, 2, 4, 5, 7, 8]);
        assert_eq!(out[65], 98);
        let values: Vec<i32> = (0..20).map(|i| 1000 + 10 * i).collect();
        let idx: Vec<u32> = (0..20).map(|i| 2 + 5 * i).collect();
        let mut out = vec![0; 120];
        bulk_insert(&values, &idx, &data, &mut out).unwrap();
        assert_eq!(&out[..10], &[0, 1, 1000, 2, 3, 4, 5, 6, 1010, 7]);
        assert_eq!(&out[110..], &[1180, 92, 93, 94, 95, 96, 1190, 97, 98, 99]);
    }

    #[test]
    fn errors() {
        let s = [1i32, 2, 3];
        let mut o = [0i32; 1];
        assert!(bulk_remove(&s, &[1u32, 1], &mut o).is_err());
        assert!(bulk_remove(&s, &[2u32, 1], &mut o).is_err());
        assert!(bulk_remove(&s, &[1u32, 3], &mut o)
            .unwrap_err()
            .to_string()
            .contains("out of range"));
        let mut o2 = [0i32; 2];
        assert!(matches!(
            bulk_remove(&s, &[1u32, 2], &mut o2),
            Err(Error::LengthMismatch { .. })
        ));
        let mut o = [0i32; 5];
        assert!(bulk_insert(&[7, 8], &[2u32, 1], &s, &mut o)
            .unwrap_err()
            .to_string()
            .contains("not sorted"));
        assert!(bulk_insert(&[7, 8], &[2u32, 4], &s, &mut o)
            .unwrap_err()
            .to_string()
            .contains("past"));
        assert!(bulk_insert(&[7, 8], &[2u32, 3], &s, &mut o).is_ok());
        assert!(matches!(
            bulk_insert(&[7, 8], &[2u32, 3], &s, &mut o2),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(matches!(
            bulk_insert(&[7, 8], &[2u32], &s, &mut o),
            Err(Error::LengthMismatch { .. })
        ));
    }

    #[test]
    fn long_inputs_parallel() {
        let n = 3 * PARALLEL_MIN_LEN + 17;
        let source: Vec<i64> = (0..n as i64).collect();
        let idx: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).collect();
        let mut out = vec![0; n - idx.len()];
        bulk_remove(&source, &idx, &mut out).unwrap();
        assert!(out.iter().all(|x| x % 3 == 1));
        assert_eq!(out.len(), (n + 1) / 3);
        let values: Vec<i64> = (0..n as i64).map(|x| -x).collect();
        let idx: Vec<u32> = (0..n as u32).map(|i| i / 2 * 2).collect();
        let mut out = vec![0; 2 * n];
        bulk_insert(&values, &idx, &source, &mut out).unwrap();
        let mut expect = Vec::new();
        for j in 0..n {
            if j % 2 == 0 {
                expect.push(-(j as i64));
                if j + 1 < n {
                    expect.push(-(j as i64) - 1);
                }
            }
            expect.push(j as i64);
        }
        assert_eq!(out, expect);
    }

    proptest! {
        #[test]
        fn remove_matches_reference(n in 0usize..200, mask in proptest::collection::vec(any::<bool>(), 200)) {
            let source: Vec<i64> = (0..n as i64).map(|x| x * 7 - 3).collect();
            let idx: Vec<u32> = (0..n as u32).filter(|&i| mask[i as usize]).collect();
            let mut out = vec![0; n - idx.len()];
            bulk_remove(&source, &idx, &mut out).unwrap();
            prop_assert_eq!(out, remove_ref(&source, &idx));
        }

        #[test]
        fn insert_matches_reference(n in 0usize..100, mut idx in proptest::collection::vec(0u32..101, 0..100)) {
            for i in idx.iter_mut() { *i = (*i).min(n as u32); }
            idx.sort();
            let source: Vec<i64> = (0..n as i64).collect();
            let values: Vec<i64> = (0..idx.len() as i64).map(|x| 1000 + x).collect();
            let mut out = vec![0; n + idx.len()];
            bulk_insert(&values, &idx, &source, &mut out).unwrap();
            prop_assert_eq!(out, insert_ref(&values, &idx, &source));
        }
    }
}
