//! Host launchers of the bulk family, generic over [`Device`].

use crate::device::{
    BulkArgs, ERROR_ORDER, ERROR_RANGE, MODE_INDEX_SEQUENCE, MODE_SEQUENCE, MODE_SPILL, SPILL_WORDS,
};
use crate::kernels::{
    insert_nv, remove_ctas_per_sm, remove_nv, remove_tile_indices, BulkElement, KernelSet,
};
use mgpu_core::{checks, Index, Violation};
use mgpu_ctasearch::Bounds;
use mgpu_partition::{IndexSource, PartitionIndex};
use mgpu_runtime::{
    Device, DeviceSlice, DeviceSliceMut, Error, ErrorWord, Pending, Result, Temp,
};

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
/// fn takes<T: BulkData>(_: T) {}
/// takes(1.5f32);
/// ```
pub trait BulkData: BulkElement<u32> + BulkElement<u64> {}
impl<T: BulkElement<u32> + BulkElement<u64>> BulkData for T {}

/// Where bulk values or indices come from: a device array, or a generated sequence
/// `first + step * k` (the seeds' `counting_iterator` and `step_iterator`; wrapping for
/// integers): the one [`mgpu_core::Source`] with device slices.
///
/// # Examples
///
/// ```
/// use mgpu_bulk::Source;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let v = DeviceVec::from_slice(&dev, &[3u32, 9]).unwrap();
/// let a: Source<'_, u32, Simulator> = v.as_slice().into();
/// assert!(matches!(a, Source::Array(_)));
/// let s: Source<'_, i64, Simulator> = Source::step(10, -1);
/// assert!(matches!(s, Source::Sequence { first: 10, step: -1 }));
/// ```
pub type Source<'a, T, D> = mgpu_core::Source<DeviceSlice<'a, T, D>, T>;

/// What each bit of the bulk kernels' error word means.
fn meaning(insert: bool, source_len: usize) -> [(u32, Violation); 2] {
    if insert {
        [
            (ERROR_ORDER, Violation::InsertOrder),
            (ERROR_RANGE, Violation::InsertRange { source_len }),
        ]
    } else {
        [
            (ERROR_ORDER, Violation::RemoveOrder),
            (ERROR_RANGE, Violation::RemoveRange { source_len }),
        ]
    }
}

/// The number of `indices`: an array's length, or `implied` for a generated sequence
/// (which has as many elements as the other arguments call for).
fn index_count<I: Copy + 'static, D: Device>(indices: &Source<'_, I, D>, implied: usize) -> usize {
    indices.array().map_or(implied, |a| a.len())
}

fn grid_fits(grid: usize) -> Result<()> {
    if grid >= (1usize << 31) {
        return Err(Error::InvalidInput(format!(
            "{grid} CTAs is more than one launch can run"
        )));
    }
    Ok(())
}

/// Queues `S`'s remove (`insert == false`) or insert kernel, `grid` CTAs; `dependent`: a
/// programmatic dependent launch of the kernel queued just before it (insert's partitions,
/// or remove's index tiles for the spill launch).
///
/// # Safety
/// `args` as `device::bulk_remove` / `device::bulk_insert` documents.
unsafe fn launch<D: Device, T, I, S: KernelSet<T, I>>(
    dev: &D,
    insert: bool,
    dependent: bool,
    grid: usize,
    args: &BulkArgs<T, I>,
) -> Result<()> {
    let grid = grid as u32;
    // SAFETY: forwarded from the caller.
    unsafe {
        match (insert, dependent) {
            (false, false) => dev.launch::<S::Remove>(grid, args),
            (false, true) => dev.launch_dependent::<S::Remove>(grid, args),
            (true, false) => dev.launch::<S::Insert>(grid, args),
            (true, true) => dev.launch_dependent::<S::Insert>(grid, args),
        }
    }
}

mgpu_runtime::queued_and_blocking! {
    /// Bulk remove (the seeds' `BulkRemove`), queued without synchronising: `output` gets the
    /// elements of `source` whose positions are not in `indices` (sorted, unique, each
    /// `< source.len()`), in order. The returned [`Pending`] reports invalid indices.
    ///
    /// `indices` is a device array or a generated sequence (`Source::step(first, step)`, the
    /// seeds' `step_iterator`); a sequence has `source.len() - output.len()` elements and is
    /// checked on the host (step at least 1 when it has two or more elements, last element
    /// below `source.len()`, computed without wrapping).
    ///
    /// Tiled by the indices: each tile takes `K` consecutive indices and the source
    /// elements from its first index to the next tile's, so no tile searches (`K` from
    /// `kernels::remove_tile_indices`); tiles whose range is longer than a tile hand it,
    /// in chunks, to a second, dependent launch. A generated sequence is tiled by the
    /// source instead (each tile computes its indices).
    ///
    /// # Errors
    /// At once: `output.len() != source.len() - indices.len()` (or more indices than source
    /// elements), a source length past `I`. From [`Pending::wait`]: indices not strictly
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
    pub fn bulk_remove_into[D: Device, T: BulkData + BulkElement<I>, I: BulkIndex](
        source: DeviceSlice<'_, T, D>,
        indices: Source<'_, I, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue_remove(source, indices, output)
    }

    /// [`bulk_remove_into`], then [`Pending::wait`]: validates, synchronises.
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
    pub fn bulk_remove;

    /// Bulk insert (the seeds' `BulkInsert`), queued without synchronising: `output` gets
    /// `source` with `values[k]` inserted before source position `indices[k]` (sorted,
    /// duplicates allowed, each `<= source.len()`; `source.len()` appends). Values with equal
    /// indices keep their order and precede the source element at that index. The returned
    /// [`Pending`] reports invalid indices.
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
    /// source.len() + indices.len()`, a source length past `I`. From [`Pending::wait`]:
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
    pub fn bulk_insert_into[D: Device, T: BulkData + BulkElement<I>, I: BulkIndex](
        values: Source<'_, T, D>,
        indices: Source<'_, I, D>,
        source: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue_insert(values, indices, source, output)
    }

    /// [`bulk_insert_into`], then [`Pending::wait`]: validates, synchronises.
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
    pub fn bulk_insert;
}

/// [`bulk_remove_into`]'s checks and launch.
fn queue_remove<D: Device, T: BulkData + BulkElement<I>, I: BulkIndex>(
    source: DeviceSlice<'_, T, D>,
    indices: Source<'_, I, D>,
    mut output: DeviceSliceMut<'_, T, D>,
) -> Result<Pending<D>> {
    let dev = source.device();
    let n = source.len();
    // A generated sequence has as many indices as elements leave the source.
    let m = index_count(&indices, n.saturating_sub(output.len()));
    checks::bulk_remove::<I>(n, m, Some(output.len()))?;
    if let Source::Sequence { first, step } = indices {
        checks::bulk_remove_sequence(first, step, m, n)?;
    }
    if n == 0 {
        return Ok(Pending::done());
    }
    let arch = dev.arch();
    let nv = remove_nv::<T, I>(arch);
    let mut args = BulkArgs::<T, I>::empty();
    args.source = source.as_ptr();
    args.source_len = n as u64;
    args.num_indices = m as u64;
    args.output = output.as_mut_ptr();
    args.output_len = output.len() as u64;
    // No memset: a clean word from the pool.
    let error = ErrorWord::clean(dev)?;
    args.error = error.as_mut_ptr();
    match &indices {
        Source::Array(a) => {
            // Index tiles, then the chunks they spill (a dependent launch of persistent
            // CTAs: as many as fit on the device at once).
            args.indices = a.as_ptr();
            let k = remove_tile_indices(nv, n, m);
            let tiles = m.div_ceil(k).max(1);
            grid_fits(tiles)?;
            let capacity = n.div_ceil(nv) + tiles;
            let spilled = Temp::<u64, D>::new(dev, SPILL_WORDS * capacity)?;
            let spill = dev.pool().clean_word(dev)?;
            args.tile_indices = k as u64;
            args.spilled = spilled.as_mut_ptr();
            args.spill = spill as *mut u32;
            args.spill_capacity = capacity as u64;
            let persistent = dev.info().sm_count as usize * remove_ctas_per_sm::<T, I>(arch);
            // SAFETY: buffers sized as `device::bulk_remove` documents (lengths checked
            // above, `spilled` holding `capacity` chunks, `spill` a zeroed word).
            let queued = unsafe {
                mgpu_core::by_arch!(
                    arch,
                    T as BulkElement<I>,
                    launch::<D, T, I>(dev, false, false, tiles, &args)
                )
                .and_then(|()| {
                    args.mode |= MODE_SPILL;
                    mgpu_core::by_arch!(
                        arch,
                        T as BulkElement<I>,
                        launch::<D, T, I>(dev, false, true, persistent.max(1), &args)
                    )
                })
            };
            // SAFETY: the word came from `clean_word`; the launches using it are queued.
            unsafe { dev.pool().give_dirty(spill) };
            queued?;
        }
        Source::Sequence { first, step } => {
            (args.index_first, args.index_step) = (*first, *step);
            args.mode |= MODE_INDEX_SEQUENCE;
            let grid = n.div_ceil(nv);
            grid_fits(grid)?;
            // SAFETY: buffers sized as `device::bulk_remove` documents (checked above).
            unsafe {
                mgpu_core::by_arch!(
                    arch,
                    T as BulkElement<I>,
                    launch::<D, T, I>(dev, false, false, grid, &args)
                )?
            };
        }
    }
    Ok(Pending::new(error, &meaning(false, n)))
}

/// [`bulk_insert_into`]'s checks and launch.
fn queue_insert<D: Device, T: BulkData + BulkElement<I>, I: BulkIndex>(
    values: Source<'_, T, D>,
    indices: Source<'_, I, D>,
    source: DeviceSlice<'_, T, D>,
    mut output: DeviceSliceMut<'_, T, D>,
) -> Result<Pending<D>> {
    let dev = source.device();
    let n = source.len();
    // Generated values or indices have as many elements as the other array; when both
    // are generated, one per output slot past the source.
    let implied = match (&values, &indices) {
        (Source::Array(v), _) => v.len(),
        (Source::Sequence { .. }, Source::Array(i)) => i.len(),
        (Source::Sequence { .. }, Source::Sequence { .. }) => output.len().saturating_sub(n),
    };
    let m = index_count(&indices, implied);
    checks::bulk_insert::<I>(n, implied, m, Some(output.len()))?;
    if let Source::Sequence { first, step } = indices {
        checks::bulk_insert_sequence(first, step, m, n)?;
    }
    let mut args = BulkArgs::<T, I>::empty();
    match &values {
        Source::Array(v) => args.values = v.as_ptr(),
        Source::Sequence { first, step } => {
            args.first = *first;
            args.step = *step;
            args.mode |= MODE_SEQUENCE;
        }
    }
    if n + m == 0 {
        return Ok(Pending::done());
    }
    let nv = insert_nv::<T, I>(dev.arch());
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
    // The kernel is a dependent launch of the partitions' kernel, queued just before it.
    unsafe {
        mgpu_core::by_arch!(
            dev.arch(),
            T as BulkElement<I>,
            launch::<D, T, I>(dev, true, true, grid, &args)
        )?
    };
    Ok(Pending::new(error, &meaning(true, n)))
}
