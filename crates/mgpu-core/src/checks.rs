//! The argument checks of each algorithm that every backend makes (the GPU launchers, the
//! CPU backend, the facade before it allocates), written once so that the same bad call
//! gives the same [`Error`], kind and text, everywhere. Checks of the data
//! itself are [`Violation`]s.

use crate::{Error, Index, Result, Violation};

/// Bulk remove's sizes, in this order: at most `source_len` indices, an output of
/// `source_len - indices` (when `output` is given: the facade allocates its own), a source
/// length that fits `I`.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::bulk_remove::<u32>(10, 4, Some(6)).is_ok());
/// let e = checks::bulk_remove::<u32>(10, 4, Some(5)).unwrap_err();
/// assert_eq!(e.to_string(), "bulk_remove output: expected length 6, got 5");
/// assert!(checks::bulk_remove::<u32>(3, 4, None).is_err());
/// ```
pub fn bulk_remove<I: Index>(
    source_len: usize,
    indices: usize,
    output: Option<usize>,
) -> Result<()> {
    if indices > source_len {
        return Err(Error::LengthMismatch {
            what: "bulk_remove indices (at most the source length)",
            expected: source_len,
            got: indices,
        });
    }
    if let Some(out) = output {
        Error::check_len("bulk_remove output", source_len - indices, out)?;
    }
    Error::check_fits::<I>("bulk_remove source length", source_len)
}

/// Bulk insert's sizes, in this order: one index per value, an output of
/// `source_len + values` (when `output` is given), a source length that fits `I`.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::bulk_insert::<u64>(10, 2, 2, Some(12)).is_ok());
/// let e = checks::bulk_insert::<u64>(10, 2, 3, None).unwrap_err();
/// assert_eq!(e.to_string(), "bulk_insert indices (one per value): expected length 2, got 3");
/// ```
pub fn bulk_insert<I: Index>(
    source_len: usize,
    values: usize,
    indices: usize,
    output: Option<usize>,
) -> Result<()> {
    Error::check_len("bulk_insert indices (one per value)", values, indices)?;
    if let Some(out) = output {
        Error::check_len("bulk_insert output", source_len + values, out)?;
    }
    Error::check_fits::<I>("bulk_insert source length", source_len)
}

/// The exact last value of the sequence `first + step * k`, `k < len` (no wrapping), or
/// `None` when it is empty.
fn sequence_last<I: Index>(first: I, step: I, len: usize) -> Option<u128> {
    (len > 0).then(|| first.to_u64() as u128 + step.to_u64() as u128 * (len as u128 - 1))
}

/// Bulk remove indices given as the sequence `first + step * k`, `k < len`: strictly
/// increasing (a step of at least 1 when there are two or more) and every one below
/// `source_len`, computed exactly (a sequence that would wrap the index type is out of
/// range, not wrapped). The device launchers check generated indices with it on the host,
/// and so does the facade before the CPU backend sees them.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::bulk_remove_sequence(0u32, 2, 5, 10).is_ok());
/// let e = checks::bulk_remove_sequence(u32::MAX, 2, 2, 3000).unwrap_err().to_string();
/// assert!(e.ends_with("a remove index is out of range (source length 3000)"), "{e}");
/// assert!(checks::bulk_remove_sequence(7u32, 0, 2, 3000).is_err());
/// ```
pub fn bulk_remove_sequence<I: Index>(
    first: I,
    step: I,
    len: usize,
    source_len: usize,
) -> Result<()> {
    let last = sequence_last(first, step, len);
    Violation::check(
        [
            (len > 1 && step.to_u64() == 0).then_some(Violation::RemoveOrder),
            last.filter(|&l| l >= source_len as u128)
                .map(|_| Violation::RemoveRange { source_len }),
        ]
        .into_iter()
        .flatten(),
    )
}

/// Bulk insert indices given as the sequence `first + step * k`, `k < len`: every one at
/// most `source_len`, computed exactly (a step of 0 repeats an index, which insert
/// allows).
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::bulk_insert_sequence(3u64, 0, 100, 3).is_ok());
/// assert!(checks::bulk_insert_sequence(2999u32, 2, 2, 3000).is_err());
/// ```
pub fn bulk_insert_sequence<I: Index>(
    first: I,
    step: I,
    len: usize,
    source_len: usize,
) -> Result<()> {
    let past = sequence_last(first, step, len).is_some_and(|l| l > source_len as u128);
    Violation::check(past.then_some(Violation::InsertRange { source_len }))
}

/// The segmented reduction's sizes over CSR, in this order: one output per segment (when
/// `output` is given: the facade allocates its own), no values without segments, value
/// and segment counts that fit `I` (the CSR holds value indices; the kernels index
/// segments with `I`).
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::seg_reduce_csr::<u32>(100, 7, Some(7)).is_ok());
/// assert!(checks::seg_reduce_csr::<u32>(0, 0, Some(0)).is_ok());
/// let e = checks::seg_reduce_csr::<u32>(100, 7, Some(6)).unwrap_err();
/// assert_eq!(e.to_string(), "seg_reduce_csr output (one per segment): expected length 7, got 6");
/// let e = checks::seg_reduce_csr::<u32>(5, 0, None).unwrap_err();
/// assert_eq!(e.to_string(), "invalid input: 5 values with no segments");
/// ```
pub fn seg_reduce_csr<I: Index>(
    values: usize,
    segments: usize,
    output: Option<usize>,
) -> Result<()> {
    if let Some(out) = output {
        Error::check_len("seg_reduce_csr output (one per segment)", segments, out)?;
    }
    if segments == 0 && values > 0 {
        Violation::check([Violation::ValuesWithoutSegments {
            values: values as u64,
        }])?;
    }
    Error::check_fits::<I>("seg_reduce_csr value count", values)?;
    Error::check_fits::<I>("seg_reduce_csr segment count", segments)
}

/// CSR SpMV's sizes, in this order: one column per nonzero (`matrix` is `None` for the
/// unary form, which has no matrix values), then [`seg_reduce_csr`]'s checks with the
/// nonzeros as the values and the rows as the segments.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::spmv_csr::<u32>(Some(5), 5, 3, Some(3)).is_ok());
/// let e = checks::spmv_csr::<u32>(Some(5), 4, 3, None).unwrap_err();
/// assert_eq!(e.to_string(), "spmv_csr columns (one per nonzero): expected length 5, got 4");
/// ```
pub fn spmv_csr<I: Index>(
    matrix: Option<usize>,
    cols: usize,
    rows: usize,
    output: Option<usize>,
) -> Result<()> {
    if let Some(m) = matrix {
        Error::check_len("spmv_csr columns (one per nonzero)", m, cols)?;
    }
    seg_reduce_csr::<I>(cols, rows, output)
}

/// Indirect CSR SpMV's sizes, in this order: one source per row, then [`spmv_csr`]'s
/// checks.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::spmv_csr_indirect::<u32>(None, 5, 3, 3, Some(3)).is_ok());
/// let e = checks::spmv_csr_indirect::<u32>(Some(5), 5, 3, 2, None).unwrap_err();
/// assert_eq!(e.to_string(), "spmv_csr_indirect sources (one per row): expected length 3, got 2");
/// ```
pub fn spmv_csr_indirect<I: Index>(
    matrix: Option<usize>,
    cols: usize,
    rows: usize,
    sources: usize,
    output: Option<usize>,
) -> Result<()> {
    Error::check_len("spmv_csr_indirect sources (one per row)", rows, sources)?;
    spmv_csr::<I>(matrix, cols, rows, output)
}

/// The indirect segmented reduction's sizes, in this order: one source per segment, then
/// [`seg_reduce_csr`]'s checks.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::indirect_reduce_csr::<u32>(10, 3, 3, Some(3)).is_ok());
/// let e = checks::indirect_reduce_csr::<u32>(10, 3, 2, None).unwrap_err();
/// assert_eq!(e.to_string(), "indirect_reduce_csr sources (one per segment): expected length 3, got 2");
/// ```
pub fn indirect_reduce_csr<I: Index>(
    values: usize,
    segments: usize,
    sources: usize,
    output: Option<usize>,
) -> Result<()> {
    Error::check_len(
        "indirect_reduce_csr sources (one per segment)",
        segments,
        sources,
    )?;
    seg_reduce_csr::<I>(values, segments, output)
}

/// Reduce-by-key's sizes: one value per key.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::reduce_by_key(4, 4).is_ok());
/// let e = checks::reduce_by_key(4, 3).unwrap_err();
/// assert_eq!(e.to_string(), "reduce_by_key values (one per key): expected length 4, got 3");
/// ```
pub fn reduce_by_key(keys: usize, values: usize) -> Result<()> {
    Error::check_len("reduce_by_key values (one per key)", keys, values)
}

/// A merge's sizes: the output holds both inputs (`a + b`).
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::merge(3, 4, 7).is_ok());
/// let e = checks::merge(3, 4, 6).unwrap_err();
/// assert_eq!(e.to_string(), "merge output (both inputs): expected length 7, got 6");
/// ```
pub fn merge(a: usize, b: usize, output: usize) -> Result<()> {
    Error::check_len("merge output (both inputs)", a + b, output)
}

/// A merge of pairs' sizes, in this order: one A value per A key, one B value per B key,
/// output keys and values of `a + b` each.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::merge_pairs([2, 2], [3, 3], [5, 5]).is_ok());
/// let e = checks::merge_pairs([2, 1], [3, 3], [5, 5]).unwrap_err();
/// assert_eq!(e.to_string(), "merge A values (one per key): expected length 2, got 1");
/// ```
pub fn merge_pairs(a: [usize; 2], b: [usize; 2], output: [usize; 2]) -> Result<()> {
    Error::check_len("merge A values (one per key)", a[0], a[1])?;
    Error::check_len("merge B values (one per key)", b[0], b[1])?;
    merge(a[0], b[0], output[0])?;
    Error::check_len("merge output values (both inputs)", a[0] + b[0], output[1])
}

/// A sort of pairs' sizes: one value per key.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::sort_pairs(4, 4).is_ok());
/// let e = checks::sort_pairs(4, 5).unwrap_err();
/// assert_eq!(e.to_string(), "mergesort values (one per key): expected length 4, got 5");
/// ```
pub fn sort_pairs(keys: usize, values: usize) -> Result<()> {
    Error::check_len("mergesort values (one per key)", keys, values)
}

/// A sort of indices' sizes: one index per key, every index `0..keys` fitting `I`.
///
/// # Examples
///
/// ```
/// use mgpu_core::checks;
/// assert!(checks::sort_indices::<u32>(4, 4).is_ok());
/// assert!(checks::sort_indices::<u32>(4, 3).is_err());
/// assert!(checks::sort_indices::<u32>(0, 0).is_ok());
/// ```
pub fn sort_indices<I: Index>(keys: usize, indices: usize) -> Result<()> {
    Error::check_len("mergesort indices (one per key)", keys, indices)?;
    Error::check_fits::<I>("mergesort key count", keys.saturating_sub(1))
}
