//! Segmented reduction (seed 002) on the host, with the GPU backend's checks and
//! semantics: segments reduced in order, the identity for an empty one.

use mgpu_core::{
    checks, AssociativeOp, BinaryOp, Comparator, Element, Index, Multiplies, Plus, Result,
    Violation,
};
use rayon::prelude::*;
use std::ops::Range;

use crate::chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};
use crate::loadbalance::validate;
use crate::reduce::reduce;

/// Segmented reduction over CSR (Modern GPU's `SegReduceCsr`, seed 002): `output[j]`
/// becomes the reduction with `Op` of segment `j`, the values `data[csr[j]..csr[j + 1]]`
/// (the last segment runs to the end of `data`), combined in order, or `Op`'s identity
/// when the segment is empty. The same semantics and errors as the GPU backend
/// (`mgpu_segreduce::seg_reduce_csr`).
///
/// Each segment is reduced as [`reduce`] reduces a slice: deterministic for any number of
/// threads, bit for bit equal to a left-to-right loop for integers (which wrap) and, for
/// floats, on segments shorter than [`PARALLEL_MIN_LEN`](crate::PARALLEL_MIN_LEN). The
/// GPU groups float operands by its tiles instead, so float sums agree with it within
/// rounding. Many short segments are reduced in parallel, in chunks of segments.
///
/// # Errors
/// - [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch) when
///   `output.len() != csr.len()`;
/// - [`Error::IndexOverflow`](mgpu_core::Error::IndexOverflow) when `data.len()` or the
///   segment count does not fit `I`;
/// - [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) for values with no segments,
///   and when `csr[0] != 0`, the starts decrease, or a start is past `data.len()`.
///   Nothing is written then.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Maximum, Plus};
/// let mut out = [0i32; 4];
/// mgpu_cpu::seg_reduce_csr::<i32, u32, Plus>(&[1, 2, 3, 4, 5, 6], &[0, 2, 2, 5], &mut out)?;
/// assert_eq!(out, [3, 0, 12, 6]); // lengths 2, 0, 3, 1
/// let mut max = [0.0f64; 2];
/// mgpu_cpu::seg_reduce_csr::<f64, u64, Maximum>(&[1.5, -2.0], &[0, 0], &mut max)?;
/// assert_eq!(max, [f64::NEG_INFINITY, 1.5]);
/// assert!(mgpu_cpu::seg_reduce_csr::<i32, u32, Plus>(&[1, 2], &[0, 3], &mut out[..2]).is_err());
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn seg_reduce_csr<T: Element, I: Index, Op: AssociativeOp<T>>(
    data: &[T],
    csr: &[I],
    output: &mut [T],
) -> Result<()> {
    checks::seg_reduce_csr::<I>(data.len(), csr.len(), Some(output.len()))?;
    validate(csr, data.len() as u64)?;
    for_each_segment(csr, data.len(), output, |_, range| {
        reduce::<T, Op>(&data[range])
    });
    Ok(())
}

/// `output[j] = f(j, segment j's range of values)` for every segment of `csr` over `total`
/// values (the last runs to `total`), in parallel over chunks of segments for long inputs.
fn for_each_segment<T: Send, I: Index>(
    csr: &[I],
    total: usize,
    output: &mut [T],
    f: impl Fn(usize, std::ops::Range<usize>) -> T + Sync,
) {
    let n = csr.len();
    let segment = |j: usize| {
        let end = if j + 1 < n {
            csr[j + 1].to_usize()
        } else {
            total
        };
        f(j, csr[j].to_usize()..end)
    };
    if n + total < PARALLEL_MIN_LEN {
        for (j, out) in output.iter_mut().enumerate() {
            *out = segment(j);
        }
    } else {
        output
            .par_chunks_mut(CHUNK_LEN)
            .enumerate()
            .for_each(|(c, outs)| {
                for (k, out) in outs.iter_mut().enumerate() {
                    *out = segment(c * CHUNK_LEN + k);
                }
            });
    }
}

/// Segment `j`'s values in a layout where it starts at `sources[j]` (`sources` is `csr`
/// for the direct forms), as many as `csr` gives it (the last segment runs to `total`):
/// `None` when a non-empty segment reaches past `total`; an empty one reads nothing,
/// wherever its source.
fn source_range<I: Index>(
    csr: &[I],
    sources: &[I],
    total: usize,
    j: usize,
) -> Option<Range<usize>> {
    let end = if j + 1 < csr.len() {
        csr[j + 1].to_usize()
    } else {
        total
    };
    let (src, len) = (sources[j].to_u64(), (end - csr[j].to_usize()) as u64);
    if len == 0 {
        Some(0..0)
    } else {
        (src + len <= total as u64).then_some(src as usize..(src + len) as usize)
    }
}

/// `output[r]` becomes `Add` over row `r`'s nonzeros `k` (from `sources[r]`; `sources` is
/// `csr` for the direct forms) of `value(k)`, after the CSR checks and those of the rows'
/// nonzeros, the only ones read: their columns, and (indirect) their range (nothing is
/// written when a check fails).
fn spmv<T: Element, I: Index, Add: AssociativeOp<T>>(
    cols: &[I],
    csr: &[I],
    sources: &[I],
    vec_len: usize,
    output: &mut [T],
    value: impl Fn(usize) -> T + Sync,
) -> Result<()> {
    let nonzeros = cols.len();
    validate(csr, nonzeros as u64)?;
    // Per row: (reaches past the nonzeros, has a column past the vector).
    let check = |j: usize| match source_range(csr, sources, nonzeros, j) {
        None => (true, false),
        Some(r) => (false, cols[r].iter().any(|c| c.to_usize() >= vec_len)),
    };
    let or = |a: (bool, bool), b: (bool, bool)| (a.0 || b.0, a.1 || b.1);
    let (outside, past) = if csr.len() + nonzeros < PARALLEL_MIN_LEN {
        (0..csr.len()).map(check).fold((false, false), or)
    } else {
        (0..csr.len())
            .into_par_iter()
            .map(check)
            .reduce(|| (false, false), or)
    };
    Violation::check(
        [
            past.then_some(Violation::ColumnRange { vec_len }),
            outside.then_some(Violation::GatherRange {
                input_len: nonzeros,
            }),
        ]
        .into_iter()
        .flatten(),
    )?;
    for_each_segment(csr, nonzeros, output, |j, _| {
        let range = source_range(csr, sources, nonzeros, j).unwrap_or(0..0);
        range.fold(Add::identity(), |acc, k| Add::apply(acc, value(k)))
    });
    Ok(())
}

/// CSR SpMV over a semiring (seed 002's `SpmvCsrBinary` with its `mul` and `add`
/// operators): `output[r]` becomes `Add` over row `r`'s nonzeros `k` of
/// `Mul(matrix[k], vec[cols[k]])`, in order (`Add`'s identity for an empty row). The
/// same semantics and errors as the GPU backend (`mgpu_segreduce::spmv_csr_semiring`).
///
/// # Errors
/// As [`spmv_csr`].
///
/// # Examples
///
/// Min-plus: one relaxation step of shortest paths.
///
/// ```
/// use mgpu_core::{Minimum, Plus};
/// let mut d = [0i32; 3];
/// mgpu_cpu::spmv_csr_semiring::<i32, u32, Plus, Minimum>(&[1, 2, 3], &[0, 2, 1], &[0, 2, 2], &[0, 10, 100], &mut d)?;
/// assert_eq!(d, [1, i32::MAX, 13]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn spmv_csr_semiring<T: Element, I: Index, Mul: BinaryOp<T>, Add: AssociativeOp<T>>(
    matrix: &[T],
    cols: &[I],
    csr: &[I],
    vec: &[T],
    output: &mut [T],
) -> Result<()> {
    checks::spmv_csr::<I>(
        Some(matrix.len()),
        cols.len(),
        csr.len(),
        Some(output.len()),
    )?;
    spmv::<T, I, Add>(cols, csr, csr, vec.len(), output, |k| {
        Mul::apply(matrix[k], vec[cols[k].to_usize()])
    })
}

/// CSR sparse matrix times dense vector (seed 002's `SpmvCsrBinary` with its default
/// operators): `output[r]` becomes the sum over row `r`'s nonzeros `k`
/// (`csr[r]..csr[r + 1]`, the last row to the end) of `matrix[k] * vec[cols[k]]`, in
/// order (0 for an empty row). The same semantics and errors as the GPU backend
/// (`mgpu_segreduce::spmv_csr`); float sums agree with it within rounding.
///
/// # Errors
/// As [`seg_reduce_csr`] with the nonzeros as the values and the rows as the segments;
/// also [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch) when `cols.len() !=
/// matrix.len()`, and [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) when a
/// column is at or past `vec.len()`.
///
/// # Examples
///
/// `[1 0 2; 0 0 0; 0 3 0]` times `[1, 10, 100]`:
///
/// ```
/// let mut y = [0.0f64; 3];
/// mgpu_cpu::spmv_csr::<f64, u32>(&[1.0, 2.0, 3.0], &[0, 2, 1], &[0, 2, 2], &[1.0, 10.0, 100.0], &mut y)?;
/// assert_eq!(y, [201.0, 0.0, 30.0]);
/// let e = mgpu_cpu::spmv_csr::<f64, u32>(&[1.0], &[3], &[0], &[1.0, 2.0], &mut y[..1]).unwrap_err();
/// assert_eq!(e.to_string(), "invalid input: a column index is past the vector's length 2");
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn spmv_csr<T: Element, I: Index>(
    matrix: &[T],
    cols: &[I],
    csr: &[I],
    vec: &[T],
    output: &mut [T],
) -> Result<()>
where
    Plus: AssociativeOp<T>,
    Multiplies: BinaryOp<T>,
{
    spmv_csr_semiring::<T, I, Multiplies, Plus>(matrix, cols, csr, vec, output)
}

/// Unary CSR SpMV (seed 002's `SpmvCsrUnary` with its default operator): `output[r]`
/// becomes the sum of `vec[cols[k]]` over row `r`'s nonzeros `k`. Errors as
/// [`spmv_csr`].
///
/// # Examples
///
/// ```
/// let mut y = [0u32; 2];
/// mgpu_cpu::spmv_csr_unary::<u32, u64>(&[1, 1, 0], &[0, 2], &[5, 7], &mut y)?;
/// assert_eq!(y, [14, 5]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn spmv_csr_unary<T: Element, I: Index>(
    cols: &[I],
    csr: &[I],
    vec: &[T],
    output: &mut [T],
) -> Result<()>
where
    Plus: AssociativeOp<T>,
{
    checks::spmv_csr::<I>(None, cols.len(), csr.len(), Some(output.len()))?;
    spmv::<T, I, Plus>(cols, csr, csr, vec.len(), output, |k| {
        vec[cols[k].to_usize()]
    })
}

/// Indirect CSR SpMV (seed 002's `SpmvCsrIndirectBinary` with its default operators):
/// as [`spmv_csr`], but row `r`'s nonzeros start at `matrix[sources[r]]` and
/// `cols[sources[r]]`; the row lengths come from `csr` (the last row runs to
/// `cols.len()`). The same semantics and errors as the GPU backend
/// (`mgpu_segreduce::spmv_csr_indirect`): only the rows' nonzeros are read and checked.
///
/// # Errors
/// As [`spmv_csr`]; also [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch) when
/// `sources` does not have one start per row, and
/// [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) when a non-empty row reaches
/// past the nonzeros.
///
/// # Examples
///
/// `[1 0 2; 0 0 0; 0 3 0]` times `[1, 10, 100]`, the rows stored last to first:
///
/// ```
/// let mut y = [0.0f64; 3];
/// mgpu_cpu::spmv_csr_indirect::<f64, u32>(&[3.0, 1.0, 2.0], &[1, 0, 2], &[0, 2, 2], &[1, 3, 0], &[1.0, 10.0, 100.0], &mut y)?;
/// assert_eq!(y, [201.0, 0.0, 30.0]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn spmv_csr_indirect<T: Element, I: Index>(
    matrix: &[T],
    cols: &[I],
    csr: &[I],
    sources: &[I],
    vec: &[T],
    output: &mut [T],
) -> Result<()>
where
    Plus: AssociativeOp<T>,
    Multiplies: BinaryOp<T>,
{
    checks::spmv_csr_indirect::<I>(
        Some(matrix.len()),
        cols.len(),
        csr.len(),
        sources.len(),
        Some(output.len()),
    )?;
    spmv::<T, I, Plus>(cols, csr, sources, vec.len(), output, |k| {
        Multiplies::apply(matrix[k], vec[cols[k].to_usize()])
    })
}

/// Indirect unary CSR SpMV (seed 002's `SpmvCsrIndirectUnary` with its default
/// operator): as [`spmv_csr_unary`], but row `r`'s columns start at `cols[sources[r]]`.
/// Errors as [`spmv_csr_indirect`].
///
/// # Examples
///
/// ```
/// let mut y = [0u32; 2];
/// mgpu_cpu::spmv_csr_indirect_unary::<u32, u64>(&[1, 1, 0], &[0, 2], &[1, 0], &[5, 7], &mut y)?;
/// assert_eq!(y, [12, 7]);
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn spmv_csr_indirect_unary<T: Element, I: Index>(
    cols: &[I],
    csr: &[I],
    sources: &[I],
    vec: &[T],
    output: &mut [T],
) -> Result<()>
where
    Plus: AssociativeOp<T>,
{
    checks::spmv_csr_indirect::<I>(
        None,
        cols.len(),
        csr.len(),
        sources.len(),
        Some(output.len()),
    )?;
    spmv::<T, I, Plus>(cols, csr, sources, vec.len(), output, |k| {
        vec[cols[k].to_usize()]
    })
}

/// The indirect segmented reduction (seed 002's `IndirectReduceCsr`): as
/// [`seg_reduce_csr`], but segment `j`'s values start at `data[sources[j]]`; the lengths
/// come from `csr` (the last segment's is `data.len() - csr[n - 1]`). The same semantics
/// and errors as the GPU backend (`mgpu_segreduce::indirect_reduce_csr`).
///
/// # Errors
/// As [`seg_reduce_csr`]; also [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch)
/// when `sources` does not have one start per segment, and
/// [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) when a non-empty segment's
/// values reach past `data`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Plus;
/// let mut out = [0i32; 2];
/// mgpu_cpu::indirect_reduce_csr::<i32, u32, Plus>(&[1, 2, 3, 40, 50], &[0, 2], &[3, 0], &mut out)?;
/// assert_eq!(out, [90, 6]);
/// let e = mgpu_cpu::indirect_reduce_csr::<i32, u32, Plus>(&[1, 2, 3, 40, 50], &[0, 2], &[4, 0], &mut out);
/// assert_eq!(e.unwrap_err().to_string(), "invalid input: a gather range is outside the input (length 5)");
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn indirect_reduce_csr<T: Element, I: Index, Op: AssociativeOp<T>>(
    data: &[T],
    csr: &[I],
    sources: &[I],
    output: &mut [T],
) -> Result<()> {
    checks::indirect_reduce_csr::<I>(data.len(), csr.len(), sources.len(), Some(output.len()))?;
    validate(csr, data.len() as u64)?;
    let total = data.len();
    if (0..csr.len()).any(|j| source_range(csr, sources, total, j).is_none()) {
        Violation::check([Violation::GatherRange { input_len: total }])?;
    }
    for_each_segment(csr, total, output, |j, _| {
        reduce::<T, Op>(&data[source_range(csr, sources, total, j).unwrap_or(0..0)])
    });
    Ok(())
}

/// Reduce-by-key (Modern GPU's `ReduceByKey`, seed 002): a run is a maximal stretch of
/// adjacent keys that `Eq` calls equal (`EqualTo`: `==`, so a NaN key is a run of its
/// own); run `r`'s first key goes to `keys_out[r]` and its values, reduced with `Op` in
/// order, to `values_out[r]`. Returns the number of runs. The same semantics and errors
/// as the GPU backend (`mgpu_segreduce::reduce_by_key`); each run is reduced as
/// [`reduce`] reduces a slice.
///
/// # Errors
/// - [`Error::LengthMismatch`](mgpu_core::Error::LengthMismatch) when `values` does not
///   have one value per key;
/// - [`Error::InvalidInput`](mgpu_core::Error::InvalidInput) when there are more runs
///   than slots in the shorter output. Nothing is written then.
///
/// # Examples
///
/// ```
/// use mgpu_core::{EqualTo, Plus};
/// let (mut ko, mut vo) = ([0u32; 4], [0i32; 4]);
/// let runs = mgpu_cpu::reduce_by_key::<u32, i32, EqualTo, Plus>(
///     &[7, 7, 2, 7], &[1, 2, 3, 4], &mut ko, &mut vo)?;
/// assert_eq!((runs, ko, vo), (3, [7, 2, 7, 0], [3, 3, 4, 0]));
/// assert!(mgpu_cpu::reduce_by_key::<u32, i32, EqualTo, Plus>(
///     &[1, 2], &[1, 2], &mut ko[..1], &mut vo[..1]).is_err());
/// # Ok::<(), mgpu_core::Error>(())
/// ```
pub fn reduce_by_key<K: Element, T: Element, Eq: Comparator<K>, Op: AssociativeOp<T>>(
    keys: &[K],
    values: &[T],
    keys_out: &mut [K],
    values_out: &mut [T],
) -> Result<usize> {
    checks::reduce_by_key(keys.len(), values.len())?;
    let head = |i: usize| i == 0 || !Eq::compare(&keys[i - 1], &keys[i]);
    let starts: Vec<usize> = if keys.len() < PARALLEL_MIN_LEN {
        (0..keys.len()).filter(|&i| head(i)).collect()
    } else {
        (0..keys.len())
            .into_par_iter()
            .filter(|&i| head(i))
            .collect()
    };
    let capacity = keys_out.len().min(values_out.len());
    if starts.len() > capacity {
        Violation::check([Violation::RunsPastOutput { capacity }])?;
    }
    let runs = starts.len();
    let run = |r: usize| {
        let end = starts.get(r + 1).copied().unwrap_or(keys.len());
        (keys[starts[r]], reduce::<T, Op>(&values[starts[r]..end]))
    };
    if runs + keys.len() < PARALLEL_MIN_LEN {
        for r in 0..runs {
            (keys_out[r], values_out[r]) = run(r);
        }
    } else {
        keys_out[..runs]
            .par_iter_mut()
            .zip(values_out[..runs].par_iter_mut())
            .enumerate()
            .for_each(|(r, (k, v))| (*k, *v) = run(r));
    }
    Ok(runs)
}
