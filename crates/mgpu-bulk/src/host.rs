//! Host launchers of the bulk family, generic over [`Device`].

use crate::device::{BulkArgs, ERROR_ORDER, ERROR_RANGE, MODE_INDEX_SEQUENCE, MODE_SEQUENCE};
use crate::kernels::{BulkElement, KernelSet};
use mgpu_core::{Arch, Index};
use mgpu_ctasearch::Bounds;
use mgpu_partition::{IndexSource, PartitionIndex};
use mgpu_runtime::{Device, DeviceSlice, DeviceSliceMut, Error, ErrorWord, Result};

/// The index types of the bulk family: u32 and u64 (the seeds' `int` is u32). Indices
/// are a device array or a generated sequence ([`Source`]).
///
/// # Examples
///
/// ```
/// fn takes<I: mgpu_bulk::BulkIndex>(_: I) {}
/// takes(3u32);
/// takes(3u64);
/// ```
pub trait BulkIndex: PartitionIndex + Index + BulkData {}
impl BulkIndex for u32 {}
impl BulkIndex for u64 {}

/// Element types the bulk family moves: i32, u32, i64, u64, f32, f64.
///
/// # Examples
///
/// ```
/// use mgpu_bulk::BulkData;
/// assert_eq!(<f32 as BulkData>::ONE, 1.0);
/// ```
pub trait BulkData: BulkElement<u32> + BulkElement<u64> {
    /// 1 (the step of a counting sequence).
    const ONE: Self;
}
macro_rules! data {
    ($($t:ty => $one:expr),*) => {$( impl BulkData for $t { const ONE: Self = $one; } )*};
}
data!(i32 => 1, u32 => 1, i64 => 1, u64 => 1, f32 => 1.0, f64 => 1.0);

/// Where the inserted values or the indices come from: a device array, or a generated sequence
/// `first + step * k` (the seeds' `counting_iterator` and `step_iterator`; wrapping for
/// integers, `first + step * (k as T)` for floats).
///
/// # Examples
///
/// ```
/// use mgpu_bulk::Source;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let v = DeviceVec::from_slice(&dev, &[1i32, 2]).unwrap();
/// let a: Source<'_, i32, Simulator> = v.as_slice().into();
/// assert!(matches!(a, Source::Array(_)));
/// let s: Source<'_, i32, Simulator> = Source::step(1000, 10);
/// assert!(matches!(s, Source::Sequence { first: 1000, step: 10 }));
/// ```
pub enum Source<'a, T, D: Device> {
    /// A device array.
    Array(DeviceSlice<'a, T, D>),
    /// The generated sequence `first + step * k`.
    Sequence {
        /// Element 0.
        first: T,
        /// Difference between consecutive elements.
        step: T,
    },
}

impl<'a, T: BulkData, D: Device> Source<'a, T, D> {
    /// `first, first + 1, first + 2, ...` (the seeds' `counting_iterator<T>(first)`).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_bulk::Source;
    /// let s: Source<'_, f64, mgpu_runtime::Simulator> = Source::counting(2.0);
    /// assert!(matches!(s, Source::Sequence { first: 2.0, step: 1.0 }));
    /// ```
    pub fn counting(first: T) -> Self {
        Source::Sequence {
            first,
            step: T::ONE,
        }
    }

    /// `first, first + step, first + 2 * step, ...` (the seeds' `step_iterator`).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_bulk::Source;
    /// let s: Source<'_, i64, mgpu_runtime::Simulator> = Source::step(10, -1);
    /// assert!(matches!(s, Source::Sequence { first: 10, step: -1 }));
    /// ```
    pub fn step(first: T, step: T) -> Self {
        Source::Sequence { first, step }
    }
}

impl<'a, T, D: Device> From<DeviceSlice<'a, T, D>> for Source<'a, T, D> {
    fn from(s: DeviceSlice<'a, T, D>) -> Self {
        Source::Array(s)
    }
}

/// The validation result of a queued bulk launch: the launch's error word, read back by
/// [`PendingCheck::wait`] (which synchronises). Dropping it skips the check (the launch
/// still ran memory-safely).
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let src = DeviceVec::from_slice(&dev, &[1i32, 2, 3]).unwrap();
/// let idx = DeviceVec::from_slice(&dev, &[1u32]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 2).unwrap();
/// let pending = mgpu_bulk::bulk_remove_into(src.as_slice(), idx.as_slice().into(), out.as_mut_slice()).unwrap();
/// pending.wait().unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![1, 3]);
/// ```
#[must_use = "wait() reports invalid input"]
pub struct PendingCheck<D: Device> {
    error: ErrorWord<D>,
    insert: bool,
    source_len: usize,
}

impl<D: Device> PendingCheck<D> {
    /// Synchronises and reports what the kernel found wrong with the indices, if anything,
    /// as [`Error::InvalidInput`] naming it (the messages of `mgpu_cpu::bulk`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let src = DeviceVec::from_slice(&dev, &[1i32, 2, 3]).unwrap();
    /// let idx = DeviceVec::from_slice(&dev, &[2u32, 1]).unwrap(); // not sorted
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 1).unwrap();
    /// let p = mgpu_bulk::bulk_remove_into(src.as_slice(), idx.as_slice().into(), out.as_mut_slice()).unwrap();
    /// assert!(p.wait().unwrap_err().to_string().contains("not sorted"));
    /// ```
    pub fn wait(self) -> Result<()> {
        let w = self.error.read()?;
        if w == 0 {
            return Ok(());
        }
        let n = self.source_len;
        let mut what = Vec::new();
        if self.insert {
            if w & ERROR_ORDER != 0 {
                what.push("the insert indices are not sorted".to_string());
            }
            if w & ERROR_RANGE != 0 {
                what.push(format!("an insert index is past the source length {n}"));
            }
        } else {
            if w & ERROR_ORDER != 0 {
                what.push("the remove indices are not sorted and unique".to_string());
            }
            if w & ERROR_RANGE != 0 {
                what.push(format!(
                    "a remove index is out of range (source length {n})"
                ));
            }
        }
        Err(Error::InvalidInput(what.join("; ")))
    }
}

fn same_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected != got {
        return Err(Error::LengthMismatch {
            what,
            expected,
            got,
        });
    }
    Ok(())
}

/// The length of `indices` (`m` for a sequence) and, for a sequence, its last element
/// (exact, never wrapped).
fn index_len<I: BulkIndex, D: Device>(
    indices: &Source<'_, I, D>,
    m: usize,
) -> (usize, Option<u128>) {
    match indices {
        Source::Array(a) => (a.len(), None),
        Source::Sequence { first, step } => {
            let last = if m == 0 {
                None
            } else {
                Some(Index::to_u64(*first) as u128 + Index::to_u64(*step) as u128 * (m as u128 - 1))
            };
            (m, last)
        }
    }
}

fn grid_fits(grid: usize) -> Result<()> {
    if grid >= (1usize << 31) {
        return Err(Error::InvalidInput(format!(
            "{grid} CTAs is more than one launch can run"
        )));
    }
    Ok(())
}

/// Elements per tile of `dev`'s remove (`insert == false`) or insert kernels.
fn nv<D: Device, T: BulkElement<I>, I>(dev: &D, insert: bool) -> usize {
    match (dev.arch(), insert) {
        (Arch::Sm90, false) => <<T as BulkElement<I>>::Sm90 as KernelSet<T, I>>::NV,
        (Arch::Sm90, true) => <<T as BulkElement<I>>::Sm90 as KernelSet<T, I>>::NV_INSERT,
        (Arch::Sm70, false) => <<T as BulkElement<I>>::Sm70 as KernelSet<T, I>>::NV,
        (Arch::Sm70, true) => <<T as BulkElement<I>>::Sm70 as KernelSet<T, I>>::NV_INSERT,
    }
}

/// Bulk remove (the seeds' `BulkRemove`), queued without synchronising: `output` gets the
/// elements of `source` whose positions are not in `indices` (sorted, unique, each
/// `< source.len()`), in order. The returned [`PendingCheck`] reports invalid indices.
///
/// `indices` is a device array or a generated sequence (`Source::step(first, step)`, the
/// seeds' `step_iterator`); a sequence has `source.len() - output.len()` elements and is
/// checked on the host (step at least 1 when it has two or more elements, last element
/// below `source.len()`, computed without wrapping).
///
/// Partitioned by `mgpu_partition::binary_search_partitions` (lower bound of each tile's
/// first source position in the indices; for a sequence each tile computes it), then one
/// kernel.
///
/// # Errors
/// At once: `output.len() != source.len() - indices.len()` (or more indices than source
/// elements), a source length past `I`. From [`PendingCheck::wait`]: indices not strictly
/// increasing, or out of range.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let src = DeviceVec::from_slice(&dev, &[1.5f64, 2.5, 3.5]).unwrap();
/// let idx = DeviceVec::from_slice(&dev, &[0u64, 2]).unwrap();
/// let mut out = DeviceVec::<f64, _>::zeros(&dev, 1).unwrap();
/// mgpu_bulk::bulk_remove_into(src.as_slice(), idx.as_slice().into(), out.as_mut_slice())
///     .unwrap().wait().unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![2.5]);
/// ```
pub fn bulk_remove_into<D: Device, T: BulkData + BulkElement<I>, I: BulkIndex>(
    source: DeviceSlice<'_, T, D>,
    indices: Source<'_, I, D>,
    mut output: DeviceSliceMut<'_, T, D>,
) -> Result<PendingCheck<D>> {
    let dev = source.device();
    let n = source.len();
    // A generated sequence has as many indices as elements leave the source.
    let (m, last) = index_len(&indices, n.saturating_sub(output.len()));
    if m > n {
        return Err(Error::LengthMismatch {
            what: "bulk_remove indices (at most the source length)",
            expected: n,
            got: m,
        });
    }
    same_len("bulk_remove output", n - m, output.len())?;
    Error::check_fits::<I>("bulk_remove source length", n)?;
    if let (Source::Sequence { step, .. }, Some(last)) = (&indices, last) {
        if m > 1 && Index::to_u64(*step) == 0 {
            return Err(Error::InvalidInput(
                "the remove indices are not sorted and unique".to_string(),
            ));
        }
        if last >= n as u128 {
            return Err(Error::InvalidInput(format!(
                "a remove index is out of range (source length {n})"
            )));
        }
    }
    let mut check = PendingCheck {
        error: ErrorWord::none(),
        insert: false,
        source_len: n,
    };
    if n == 0 {
        return Ok(check);
    }
    let nv = nv::<D, T, I>(dev, false);
    let grid = n.div_ceil(nv);
    grid_fits(grid)?;
    let mut args = BulkArgs::<T, I>::empty();
    // With an index array the partitions' kernel zeroes the error word (no memset).
    let (mp, error) = match &indices {
        Source::Array(a) => {
            args.indices = a.as_ptr();
            let error = ErrorWord::uncleared(dev)?;
            let mp = mgpu_partition::binary_search_partitions_clearing(
                *a,
                n,
                nv,
                Bounds::Lower,
                &error,
            )?;
            args.mp = mp.as_mut_ptr();
            (Some(mp), error)
        }
        Source::Sequence { first, step } => {
            (args.index_first, args.index_step) = (*first, *step);
            args.mode |= MODE_INDEX_SEQUENCE;
            (None, ErrorWord::zeroed(dev)?)
        }
    };
    args.source = source.as_ptr();
    args.source_len = n as u64;
    args.num_indices = m as u64;
    args.output = output.as_mut_ptr();
    args.output_len = output.len() as u64;
    args.error = error.as_mut_ptr();
    // SAFETY: buffers sized as `device::bulk_remove` documents: the partitions have
    // `grid + 1` entries, the lengths were checked above.
    // With an index array the kernel is a dependent launch of the partitions' kernel
    // (queued just before it); generated indices have no partitions.
    type Sm90Remove<T, I> = <<T as BulkElement<I>>::Sm90 as KernelSet<T, I>>::Remove;
    type Sm70Remove<T, I> = <<T as BulkElement<I>>::Sm70 as KernelSet<T, I>>::Remove;
    unsafe {
        match (dev.arch(), mp.is_some()) {
            (Arch::Sm90, true) => dev.launch_dependent::<Sm90Remove<T, I>>(grid as u32, &args)?,
            (Arch::Sm90, false) => dev.launch::<Sm90Remove<T, I>>(grid as u32, &args)?,
            (Arch::Sm70, _) => dev.launch::<Sm70Remove<T, I>>(grid as u32, &args)?,
        }
    }
    drop(mp);
    check.error = error;
    Ok(check)
}

/// [`bulk_remove_into`], then [`PendingCheck::wait`]: validates, synchronises.
///
/// # Examples
///
/// The seed's comment example: source length 10, indices 1, 3, 4, 5, 7, 8 leave A0 A2 A6 A9.
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let src = DeviceVec::from_slice(&dev, &(0..10).collect::<Vec<u32>>()).unwrap();
/// let idx = DeviceVec::from_slice(&dev, &[1u32, 3, 4, 5, 7, 8]).unwrap();
/// let mut out = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
/// mgpu_bulk::bulk_remove(src.as_slice(), idx.as_slice().into(), out.as_mut_slice()).unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![0, 2, 6, 9]);
/// ```
pub fn bulk_remove<D: Device, T: BulkData + BulkElement<I>, I: BulkIndex>(
    source: DeviceSlice<'_, T, D>,
    indices: Source<'_, I, D>,
    output: DeviceSliceMut<'_, T, D>,
) -> Result<()> {
    bulk_remove_into(source, indices, output)?.wait()
}

/// Bulk insert (the seeds' `BulkInsert`), queued without synchronising: `output` gets
/// `source` with `values[k]` inserted before source position `indices[k]` (sorted,
/// duplicates allowed, each `<= source.len()`; `source.len()` appends). Values with equal
/// indices keep their order and precede the source element at that index. The returned
/// [`PendingCheck`] reports invalid indices.
///
/// `values` and `indices` are device arrays or generated sequences ([`Source`]). Generated
/// indices number `values.len()` (or, when the values are generated too,
/// `output.len() - source.len()`), and are checked on the host (last element at most
/// `source.len()`, computed without wrapping; a step of 0 puts them all at one position).
///
/// Partitioned as in the seed: a small kernel finds where each tile of `NT * VT` outputs
/// starts in the indices, by the lower-bound Merge Path of the indices against the source
/// positions `0, 1, 2, ...` (`mgpu_partition::merge_path_counting_partitions`, a group of
/// lanes per tile boundary); then one kernel.
///
/// # Errors
/// At once: `values` (an array) and `indices` of different lengths, `output.len() !=
/// source.len() + indices.len()`, a source length past `I`. From [`PendingCheck::wait`]:
/// indices not non-decreasing, or past `source.len()`.
///
/// # Examples
///
/// ```
/// use mgpu_bulk::Source;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let src = DeviceVec::from_slice(&dev, &[0i32, 1, 2, 3]).unwrap();
/// let idx = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 7).unwrap();
/// mgpu_bulk::bulk_insert_into(Source::counting(100), idx.as_slice().into(), src.as_slice(), out.as_mut_slice())
///     .unwrap().wait().unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![100, 0, 1, 101, 102, 2, 3]);
/// ```
pub fn bulk_insert_into<D: Device, T: BulkData + BulkElement<I>, I: BulkIndex>(
    values: Source<'_, T, D>,
    indices: Source<'_, I, D>,
    source: DeviceSlice<'_, T, D>,
    mut output: DeviceSliceMut<'_, T, D>,
) -> Result<PendingCheck<D>> {
    let dev = source.device();
    let n = source.len();
    // Generated indices: one per value, or per output slot past the source.
    let implied = match &values {
        Source::Array(v) => v.len(),
        Source::Sequence { .. } => output.len().saturating_sub(n),
    };
    let (m, last) = index_len(&indices, implied);
    let mut args = BulkArgs::<T, I>::empty();
    match &values {
        Source::Array(v) => {
            same_len("bulk_insert indices (one per value)", v.len(), m)?;
            args.values = v.as_ptr();
        }
        Source::Sequence { first, step } => {
            args.first = *first;
            args.step = *step;
            args.mode |= MODE_SEQUENCE;
        }
    }
    same_len("bulk_insert output", n + m, output.len())?;
    Error::check_fits::<I>("bulk_insert source length", n)?;
    if matches!(last, Some(l) if l > n as u128) {
        return Err(Error::InvalidInput(format!(
            "an insert index is past the source length {n}"
        )));
    }
    let mut check = PendingCheck {
        error: ErrorWord::none(),
        insert: true,
        source_len: n,
    };
    if n + m == 0 {
        return Ok(check);
    }
    let nv = nv::<D, T, I>(dev, true);
    let grid = (n + m).div_ceil(nv);
    grid_fits(grid)?;
    // Zeroed by the partitions' kernel (no memset).
    let error = ErrorWord::uncleared(dev)?;
    // The Merge Path partitions of the indices against the source positions.
    let part = match &indices {
        Source::Array(a) => {
            args.indices = a.as_ptr();
            IndexSource::Array(*a)
        }
        Source::Sequence { first, step } => {
            (args.index_first, args.index_step) = (*first, *step);
            args.mode |= MODE_INDEX_SEQUENCE;
            IndexSource::Sequence {
                first: *first,
                step: *step,
                len: m,
            }
        }
    };
    let mp = mgpu_partition::merge_path_counting_partitions_clearing(
        dev,
        part,
        n,
        nv,
        Bounds::Lower,
        &error,
    )?;
    debug_assert_eq!(mp.len(), grid + 1);
    args.mp = mp.as_mut_ptr();
    args.source = source.as_ptr();
    args.source_len = n as u64;
    args.num_indices = m as u64;
    args.output = output.as_mut_ptr();
    args.output_len = output.len() as u64;
    args.error = error.as_mut_ptr();
    // SAFETY: buffers sized as `device::bulk_insert` documents (checked above).
    unsafe {
        match dev.arch() {
            Arch::Sm90 => dev
                .launch_dependent::<<<T as BulkElement<I>>::Sm90 as KernelSet<T, I>>::Insert>(
                    grid as u32,
                    &args,
                )?,
            Arch::Sm70 => dev.launch::<<<T as BulkElement<I>>::Sm70 as KernelSet<T, I>>::Insert>(
                grid as u32,
                &args,
            )?,
        }
    }
    check.error = error;
    Ok(check)
}

/// [`bulk_insert_into`], then [`PendingCheck::wait`]: validates, synchronises.
///
/// # Examples
///
/// The seed's demonstration, shortened: values `1000, 1010, ...` before every 5th element
/// from position 2.
///
/// ```
/// use mgpu_bulk::Source;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let src = DeviceVec::from_slice(&dev, &(0..10).collect::<Vec<i32>>()).unwrap();
/// let idx = DeviceVec::from_slice(&dev, &[2u32, 7]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 12).unwrap();
/// mgpu_bulk::bulk_insert(Source::step(1000, 10), idx.as_slice().into(), src.as_slice(), out.as_mut_slice()).unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![0, 1, 1000, 2, 3, 4, 5, 6, 1010, 7, 8, 9]);
/// ```
pub fn bulk_insert<D: Device, T: BulkData + BulkElement<I>, I: BulkIndex>(
    values: Source<'_, T, D>,
    indices: Source<'_, I, D>,
    source: DeviceSlice<'_, T, D>,
    output: DeviceSliceMut<'_, T, D>,
) -> Result<()> {
    bulk_insert_into(values, indices, source, output)?.wait()
}
