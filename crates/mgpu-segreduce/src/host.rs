//! Host launchers of the segmented reduction, generic over [`Device`].
//!
//! Up to three launches on the device's stream: the load-balancing partitions of the values
//! against the CSR (`mgpu_partition::load_balance_partitions`), the tiles
//! ([`seg_reduce_tiles`](crate::device::seg_reduce_tiles), a dependent launch that checks
//! the CSR as it reads it), and, with more than one tile, the spine
//! ([`spine`](crate::device::spine), one launch). The `_into` form returns at once with a
//! [`Pending`] verdict; the plain form waits for it.

use crate::device::{
    SegReduceArgs, SpmvBinary, SpmvIndirectBinary, SpmvIndirectUnary, SpmvUnary, ERROR_CAPACITY, ERROR_COLUMN, ERROR_FIRST, ERROR_GATHER,
    ERROR_TOTAL, ERROR_UNSORTED,
};
use crate::kernels::{by_warp, IndirectOp, KernelSet, RbkKey, RbkOp, SegReduceOp, SpmvForm, WarpOp};
use crate::rbk::RbkKeysArgs;
use mgpu_core::{Element, Kernel, Plus, Violation};
use mgpu_loadbalance::LoadBalanceIndex;
use mgpu_runtime::{Device, DeviceSlice, DeviceSliceMut, Error, ErrorWord, Pending, Result, Temp};

/// What each bit of the tiles' error word means (`vec_len`: SpMV's vector; `data_len`:
/// the indirect reduction's data).
fn meaning(total: u64, vec_len: usize, data_len: usize) -> [(u32, Violation); 5] {
    [
        (ERROR_FIRST, Violation::ScanStart),
        (ERROR_UNSORTED, Violation::ScanOrder),
        (ERROR_TOTAL, Violation::ScanPastTotal { total }),
        (ERROR_COLUMN, Violation::ColumnRange { vec_len }),
        (ERROR_GATHER, Violation::GatherRange { input_len: data_len }),
    ]
}

/// The inputs besides the values: SpMV's columns and vector, the indirect reduction's
/// sources (with `data`'s length), or both (indirect SpMV; the nonzeros' count is the
/// columns').
enum Extra<'a, T, I, D: Device> {
    None,
    Spmv(DeviceSlice<'a, I, D>, DeviceSlice<'a, T, D>),
    Indirect(DeviceSlice<'a, I, D>, usize),
    SpmvIndirect(DeviceSlice<'a, I, D>, DeviceSlice<'a, T, D>, DeviceSlice<'a, I, D>),
}


/// The tiles of `nv` merge steps over `total` values and `n` segments, checked to fit one
/// launch.
fn grid_of(total: usize, n: usize, nv: usize) -> Result<usize> {
    let steps = total + n;
    let grid = steps.div_ceil(nv);
    if grid > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "seg_reduce_csr: {steps} merge steps are more than one launch can take"
        )));
    }
    Ok(grid)
}

/// Queues the reduction of `total` values (`data`, null for unary SpMV) over the
/// segments `csr` into `output` with the kernel set `S` (checked by the caller):
/// partitions, then [`queue_tiles`].
fn run<D: Device, T: Element, I: LoadBalanceIndex, S: KernelSet<T, I>>(
    data: *const T,
    total: usize,
    csr: DeviceSlice<'_, I, D>,
    output: DeviceSliceMut<'_, T, D>,
    extra: Extra<'_, T, I, D>,
) -> Result<Pending<D>> {
    if csr.is_empty() {
        return Ok(Pending::done());
    }
    let nv = S::Tiles::NV as usize;
    grid_of(total, csr.len(), nv)?;
    // The tiles are a dependent launch of the partitions' kernel, which is the last thing
    // queued before them and zeroes their error word (no memset).
    let error = ErrorWord::uncleared(csr.device())?;
    let mp = mgpu_partition::load_balance_partitions_clearing(csr, total, nv, &error)?;
    queue_tiles::<D, T, I, S>(data, total, csr, output, extra, &mp, error, true)
}

/// The mean segment length from which [`seg_reduce_csr_into`] and a plan's
/// [`SegReducePlan::seg_reduce_into`] reduce a warp a segment ([`crate::warps`]) when
/// the operator's operands may be folded in any order (`AssociativeOp::COMMUTATIVE`).
/// At mean 10 a warp would idle most of its lanes; at mean 1000 (f64, an H200, 2^24) the
/// warps took 1.06-1.11 copies where the partitions, tiles and spine took 1.26-1.27
/// (docs/segreduce.md). The threshold between is not tuned.
pub(crate) const WARP_MEAN: usize = 256;

/// Whether `total` values over `n` segments are reduced a warp a segment with `Op`.
fn takes_warps<T: Element, Op: mgpu_core::AssociativeOp<T>>(total: usize, n: usize) -> bool {
    Op::COMMUTATIVE && n > 0 && total / n >= WARP_MEAN
}

/// Queues the reduction of `total` values (`data`) over the `csr` segments a warp a
/// segment with `Op`'s kernels for the device's architecture: the warps, and the long
/// segments' pieces (a dependent launch, which ends at once when none was listed). Its
/// two words (the error and the pieces' count) are clean words of the pool: no memset.
fn run_warps_by_arch<D: Device, T: Element, I: LoadBalanceIndex, Op: WarpOp<T, I>>(
    data: *const T,
    total: usize,
    csr: DeviceSlice<'_, I, D>,
    output: DeviceSliceMut<'_, T, D>,
) -> Result<Pending<D>> {
    mgpu_core::by_arch!(
        csr.device().arch(),
        Op as WarpOp<T, I>,
        run_warps::<D, T, I>(data, total, csr, output)
    )
}

/// [`run_warps_by_arch`] with the kernel set of one architecture.
fn run_warps<D: Device, T: Element, I: LoadBalanceIndex, S: by_warp::KernelSet<T, I>>(
    data: *const T,
    total: usize,
    csr: DeviceSlice<'_, I, D>,
    mut output: DeviceSliceMut<'_, T, D>,
) -> Result<Pending<D>> {
    let (dev, n) = (csr.device(), csr.len());
    let nv = crate::warps::PIECE;
    // A listed segment has more than `nv` values, so its pieces number at most twice its
    // values over `nv`.
    let pieces = 2 * (total / nv) + 2;
    let segs = Temp::<u64, D>::new(dev, pieces)?;
    let done = Temp::<u32, D>::new(dev, pieces)?;
    let owner = Temp::<u32, D>::new(dev, pieces)?;
    let partials = Temp::<T, D>::new(dev, pieces)?;
    let error = ErrorWord::clean(dev)?;
    let count = dev.pool().clean_word(dev)?;
    let args = SegReduceArgs {
        data,
        total: total as u64,
        csr: csr.as_ptr(),
        num_segments: n as u64,
        nv: nv as u64,
        output: output.as_mut_ptr(),
        error: error.as_mut_ptr(),
        long_count: count as *mut u32,
        long_segs: segs.as_mut_ptr(),
        long_done: done.as_mut_ptr(),
        piece_owner: owner.as_mut_ptr(),
        partials: partials.as_mut_ptr(),
        ..Default::default()
    };
    let warps_per_cta = S::Warps::NT as usize / mgpu_core::WARP_SIZE as usize;
    let grid = n.div_ceil(warps_per_cta).min(u32::MAX as usize) as u32;
    let long_grid = dev.info().sm_count.max(1) * S::Long::MIN_CTAS_PER_SM.max(1);
    // SAFETY: `csr` has `n` starts, `data` `total` values, `output` `n` slots (checked by
    // the callers); the count is a zeroed word and the list arrays are sized as
    // `warps::warp_segments` documents; the long kernel is a dependent launch of the warps.
    let launched = unsafe {
        dev.launch::<S::Warps>(grid, &args)
            .and_then(|()| dev.launch_dependent::<S::Long>(long_grid, &args))
    };
    // SAFETY: the word came from the pool's clean words; it is zeroed again (with its
    // block) only by a memset queued after these launches.
    unsafe { dev.pool().give_dirty(count) };
    launched?;
    Ok(Pending::new(error, &meaning(total as u64, 0, 0)))
}

/// Queues the tiles (a dependent launch when `dependent`: the partitions' kernel was the
/// last thing queued) and the spine, with the partitions `mp` of `csr` over `total`
/// values in tiles of `S::Tiles::NV` steps.
#[allow(clippy::too_many_arguments)]
fn queue_tiles<D: Device, T: Element, I: LoadBalanceIndex, S: KernelSet<T, I>>(
    data: *const T,
    total: usize,
    csr: DeviceSlice<'_, I, D>,
    mut output: DeviceSliceMut<'_, T, D>,
    extra: Extra<'_, T, I, D>,
    mp: &Temp<u64, D>,
    error: ErrorWord<D>,
    dependent: bool,
) -> Result<Pending<D>> {
    let (dev, n, nv) = (csr.device(), csr.len(), S::Tiles::NV as usize);
    let grid = grid_of(total, n, nv)?;
    let carry = Temp::<T, D>::new(dev, grid)?;
    let (vec_len, data_len) = match &extra {
        Extra::Spmv(_, v) => (v.len(), 0),
        Extra::Indirect(_, len) => (0, *len),
        Extra::SpmvIndirect(c, v, _) => (v.len(), c.len()),
        Extra::None => (0, 0),
    };
    let mut args = SegReduceArgs {
        data,
        total: total as u64,
        csr: csr.as_ptr(),
        num_segments: n as u64,
        mp: mp.as_mut_ptr(),
        tiles: grid as u64,
        nv: nv as u64,
        output: output.as_mut_ptr(),
        carry_out: carry.as_mut_ptr(),
        error: error.as_mut_ptr(),
        ..Default::default()
    };
    match extra {
        Extra::Spmv(cols, vec) => {
            (args.cols, args.vec, args.vec_len) = (cols.as_ptr(), vec.as_ptr(), vec_len as u64);
        }
        Extra::Indirect(sources, len) => (args.sources, args.data_len) = (sources.as_ptr(), len as u64),
        Extra::SpmvIndirect(cols, vec, sources) => {
            (args.cols, args.vec, args.vec_len) = (cols.as_ptr(), vec.as_ptr(), vec_len as u64);
            (args.sources, args.data_len) = (sources.as_ptr(), data_len as u64);
        }
        Extra::None => {}
    }
    // SAFETY: `mp` has grid + 1 partitions, `carry` grid slots, `output` n (checked),
    // `error` one word: what `device::seg_reduce_tiles` documents.
    unsafe {
        if dependent {
            dev.launch_dependent::<S::Tiles>(grid as u32, &args)?;
        } else {
            dev.launch::<S::Tiles>(grid as u32, &args)?;
        }
    }
    queue_spine::<D, T, I, S::Spine>(dev, &mut args)?;
    Ok(Pending::new(error, &meaning(total as u64, vec_len, data_len)))
}

/// Queues the spine (`device::spine`, one launch) over `args.tiles` tiles whose kernel
/// ran just before (nothing for one tile), with the chunk arrays the chunks publish their
/// folds in (their flags in the pool's epoch block, never cleared).
fn queue_spine<D: Device, T: Element, I, S>(dev: &D, args: &mut SegReduceArgs<T, I>) -> Result<()>
where
    S: Kernel<Args = SegReduceArgs<T, I>>,
{
    if args.tiles <= 1 {
        return Ok(());
    }
    let chunks = (args.tiles as usize).div_ceil(S::NV as usize);
    let chunk_carry = Temp::<T, D>::new(dev, chunks)?;
    let chunk_ends = Temp::<u32, D>::new(dev, chunks)?;
    args.chunk_carry = chunk_carry.as_mut_ptr();
    args.chunk_ends = chunk_ends.as_mut_ptr();
    if chunks > 1 {
        // A 64-bit word a chunk: its flag is the word's high half (`device::spine`).
        let (flags, epoch) = dev.pool().epoch_block(dev, chunks)?;
        (args.chunk_flags, args.epoch) = (flags as *mut u32, epoch);
    }
    // SAFETY: the tiles' kernel (queued just before, same stream) fills `carry_out` and
    // the results the spine reads (a dependent launch: it waits for that grid's end); the
    // chunk arrays have `chunks` slots and the flags `2 * chunks`, of older epochs.
    unsafe { dev.launch_dependent::<S>(chunks as u32, args) }
}

/// A plan's partitions of `csr` over `total` values in tiles of `nv` steps, the grid
/// checked to fit first.
fn plan_partitions<I: LoadBalanceIndex, D: Device>(
    csr: DeviceSlice<'_, I, D>,
    total: usize,
    nv: usize,
) -> Result<Temp<u64, D>> {
    grid_of(total, csr.len(), nv)?;
    mgpu_partition::load_balance_partitions(csr, total, nv)
}

/// A segment geometry prepared once (seed 002's `SegReduceCsrPreprocess` and
/// `SpmvPreprocess`): the CSR and its load-balancing partitions for `total` values of
/// `T`, which [`SegReducePlan::seg_reduce_into`] and [`SegReducePlan::spmv_into`] then
/// apply to new values, skipping the partition search. It borrows the CSR (checked again
/// by every apply, as it is read) and owns the partitions: those of the segmented
/// reduction's tile shape, made by [`SegReducePlan::new`], and those of SpMV's where its
/// tiles differ (8-byte values), made by the first SpMV apply.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Maximum, Plus};
/// use mgpu_runtime::{DeviceVec, Simulator};
/// use mgpu_segreduce::SegReducePlan;
/// let dev = Simulator::new();
/// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap(); // lengths 2, 0, 3
/// let plan = SegReducePlan::<i32, u32, _>::new(csr.as_slice(), 5).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
/// for (values, op_sum) in [([1, 2, 3, 4, 5], [3, 0, 12]), ([5, 5, 1, 1, 1], [10, 0, 3])] {
///     let data = DeviceVec::from_slice(&dev, &values).unwrap();
///     plan.seg_reduce(data.as_slice(), out.as_mut_slice(), Plus).unwrap();
///     assert_eq!(out.to_vec().unwrap(), op_sum);
/// }
/// let data = DeviceVec::from_slice(&dev, &[1, 2, 3, 4, 5]).unwrap();
/// plan.seg_reduce(data.as_slice(), out.as_mut_slice(), Maximum).unwrap();
/// assert_eq!(out.to_vec().unwrap(), [2, i32::MIN, 5]);
/// ```
pub struct SegReducePlan<'a, T: Element, I: LoadBalanceIndex, D: Device> {
    csr: DeviceSlice<'a, I, D>,
    total: usize,
    nv: usize,
    mp: Option<Temp<u64, D>>,
    /// The partitions for another tile shape (`(nv, mp)`), made by its first apply.
    other: std::sync::OnceLock<(usize, Temp<u64, D>)>,
    _values: std::marker::PhantomData<T>,
}

impl<'a, T: Element, I: LoadBalanceIndex, D: Device> SegReducePlan<'a, T, I, D>
where
    Plus: SegReduceOp<T, I>,
{
    /// Prepares the segments `csr` over `total` values: checks the sizes as
    /// [`seg_reduce_csr_into`] does and queues the partitions (for the tile shape of
    /// `T`'s width on the device's architecture).
    ///
    /// # Errors
    /// [`Error::IndexOverflow`] when `total` or the segment count does not fit `I`,
    /// [`Error::InvalidInput`] for values with no segments; out of memory and device
    /// errors. A bad CSR is reported by each apply.
    pub fn new(csr: DeviceSlice<'a, I, D>, total: usize) -> Result<Self> {
        mgpu_core::checks::seg_reduce_csr::<I>(total, csr.len(), None)?;
        let nv = crate::kernels::nv::<T, I, Plus>(csr.device().arch());
        let mp = if csr.is_empty() {
            None
        } else {
            Some(plan_partitions(csr, total, nv)?)
        };
        Ok(SegReducePlan {
            csr,
            total,
            nv,
            mp,
            other: std::sync::OnceLock::new(),
            _values: std::marker::PhantomData,
        })
    }

    /// Segments.
    ///
    /// ```
    /// # let dev = mgpu_runtime::Simulator::new();
    /// # let csr = mgpu_runtime::DeviceVec::from_slice(&dev, &[0u32, 4]).unwrap();
    /// let plan = mgpu_segreduce::SegReducePlan::<f32, u32, _>::new(csr.as_slice(), 9).unwrap();
    /// assert_eq!((plan.segments(), plan.values()), (2, 9));
    /// ```
    pub fn segments(&self) -> usize {
        self.csr.len()
    }

    /// Values (or nonzeros) the plan was made for.
    ///
    /// ```
    /// # let dev = mgpu_runtime::Simulator::new();
    /// # let csr = mgpu_runtime::DeviceVec::from_slice(&dev, &[0u64]).unwrap();
    /// let plan = mgpu_segreduce::SegReducePlan::<u64, u64, _>::new(csr.as_slice(), 3).unwrap();
    /// assert_eq!(plan.values(), 3);
    /// ```
    pub fn values(&self) -> usize {
        self.total
    }

    /// An apply's output holds one result per segment of the plan.
    fn check_output(&self, output: &DeviceSliceMut<'_, T, D>) -> Result<()> {
        Error::check_len("seg_reduce plan output (one per segment)", self.csr.len(), output.len())
    }

    /// Queues `S`'s tiles and spine over the plan's partitions.
    fn apply<S: KernelSet<T, I>>(
        &self,
        data: *const T,
        output: DeviceSliceMut<'_, T, D>,
        extra: Extra<'_, T, I, D>,
    ) -> Result<Pending<D>> {
        self.check_output(&output)?;
        let Some(mp) = &self.mp else {
            return Ok(Pending::done());
        };
        let nv = S::Tiles::NV as usize;
        let mp = if nv == self.nv {
            mp
        } else {
            // Another shape (SpMV's tiles): its partitions, made once (queued before the
            // tiles, on the same stream).
            if self.other.get().is_none() {
                let other = plan_partitions(self.csr, self.total, nv)?;
                let _ = self.other.set((nv, other));
            }
            match self.other.get() {
                Some((other_nv, other)) if *other_nv == nv => other,
                _ => {
                    return Err(Error::InvalidInput(
                        "seg_reduce plan: made for two other tile shapes".into(),
                    ))
                }
            }
        };
        let error = ErrorWord::zeroed(self.csr.device())?;
        queue_tiles::<D, T, I, S>(data, self.total, self.csr, output, extra, mp, error, false)
    }

    /// [`seg_reduce_csr_into`] of new values over the plan's segments (seed 002's
    /// `SegReduceApply`), queued.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `data` does not hold the plan's value count or
    /// `output` its segment count; from [`Pending::wait`], a bad CSR as
    /// [`seg_reduce_csr_into`].
    ///
    /// # Examples
    ///
    /// See [`SegReducePlan`].
    pub fn seg_reduce_into<Op: SegReduceOp<T, I>>(
        &self,
        data: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
        _op: Op,
    ) -> Result<Pending<D>> {
        Error::check_len("seg_reduce plan values", self.total, data.len())?;
        if takes_warps::<T, Op>(self.total, self.csr.len()) {
            self.check_output(&output)?;
            return run_warps_by_arch::<D, T, I, Op>(data.as_ptr(), self.total, self.csr, output);
        }
        mgpu_core::by_arch!(
            self.csr.device().arch(),
            Op as SegReduceOp<T, I>,
            apply_set::<T, I, D>(self, data.as_ptr(), output, Extra::None)
        )
    }

    /// [`SegReducePlan::seg_reduce_into`], then [`Pending::wait`].
    ///
    /// # Errors
    /// As [`SegReducePlan::seg_reduce_into`], and its verdict.
    ///
    /// # Examples
    ///
    /// See [`SegReducePlan`].
    pub fn seg_reduce<Op: SegReduceOp<T, I>>(
        &self,
        data: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
        op: Op,
    ) -> Result<()> {
        self.seg_reduce_into(data, output, op)?.wait()
    }

    /// [`spmv_csr_into`] of a matrix with the plan's rows (the plan's values are the
    /// nonzeros) and a vector (seed 002's `SpmvBinaryApply`), queued.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `matrix` or `cols` does not hold the plan's nonzero
    /// count or `output` its row count; from [`Pending::wait`], a bad CSR or a column
    /// past the vector.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[0u32, 2, 1]).unwrap();
    /// let m = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, 3.0]).unwrap();
    /// let plan = mgpu_segreduce::SegReducePlan::<f64, u32, _>::new(csr.as_slice(), 3).unwrap();
    /// let mut y = DeviceVec::<f64, _>::zeros(&dev, 3).unwrap();
    /// for (x, want) in [([1.0, 10.0, 100.0], [201.0, 0.0, 30.0]), ([1.0, 1.0, 1.0], [3.0, 0.0, 3.0])] {
    ///     let x = DeviceVec::from_slice(&dev, &x).unwrap();
    ///     plan.spmv(m.as_slice(), cols.as_slice(), x.as_slice(), y.as_mut_slice()).unwrap();
    ///     assert_eq!(y.to_vec().unwrap(), want);
    /// }
    /// ```
    pub fn spmv_into(
        &self,
        matrix: DeviceSlice<'_, T, D>,
        cols: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>>
    where
        SpmvBinary: SpmvForm<T, I>,
    {
        Error::check_len("spmv plan matrix values", self.total, matrix.len())?;
        Error::check_len("spmv plan columns", self.total, cols.len())?;
        mgpu_core::by_arch!(
            self.csr.device().arch(),
            SpmvBinary as SpmvForm<T, I>,
            apply_set::<T, I, D>(self, matrix.as_ptr(), output, Extra::Spmv(cols, vec))
        )
    }

    /// [`SegReducePlan::spmv_into`], then [`Pending::wait`].
    ///
    /// # Errors
    /// As [`SegReducePlan::spmv_into`], and its verdict.
    ///
    /// # Examples
    ///
    /// See [`SegReducePlan::spmv_into`].
    pub fn spmv(
        &self,
        matrix: DeviceSlice<'_, T, D>,
        cols: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<()>
    where
        SpmvBinary: SpmvForm<T, I>,
    {
        self.spmv_into(matrix, cols, vec, output)?.wait()
    }

    /// [`spmv_csr_indirect_into`] of a matrix with the plan's row lengths (the plan's
    /// values are the nonzeros), its rows at `sources`, and a vector, queued.
    ///
    /// # Errors
    /// As [`SegReducePlan::spmv_into`], also [`Error::LengthMismatch`] when `sources` does
    /// not hold one start per row; from [`Pending::wait`], also a row reaching past the
    /// nonzeros.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 1]).unwrap(); // row lengths 1, 2
    /// let plan = mgpu_segreduce::SegReducePlan::<f64, u32, _>::new(csr.as_slice(), 3).unwrap();
    /// // The rows stored the other way round: row 1 at nonzero 0, row 0 at nonzero 2.
    /// let m = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, 3.0]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[0u32, 1, 1]).unwrap();
    /// let sources = DeviceVec::from_slice(&dev, &[2u32, 0]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[1.0, 10.0]).unwrap();
    /// let mut y = DeviceVec::<f64, _>::zeros(&dev, 2).unwrap();
    /// plan.spmv_indirect_into(m.as_slice(), cols.as_slice(), sources.as_slice(), x.as_slice(), y.as_mut_slice())
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![30.0, 21.0]);
    /// ```
    pub fn spmv_indirect_into(
        &self,
        matrix: DeviceSlice<'_, T, D>,
        cols: DeviceSlice<'_, I, D>,
        sources: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>>
    where
        SpmvIndirectBinary: SpmvForm<T, I>,
    {
        Error::check_len("spmv plan matrix values", self.total, matrix.len())?;
        Error::check_len("spmv plan columns", self.total, cols.len())?;
        Error::check_len("spmv plan sources (one per row)", self.csr.len(), sources.len())?;
        let extra = Extra::SpmvIndirect(cols, vec, sources);
        mgpu_core::by_arch!(
            self.csr.device().arch(),
            SpmvIndirectBinary as SpmvForm<T, I>,
            apply_set::<T, I, D>(self, matrix.as_ptr(), output, extra)
        )
    }
}

/// [`SegReducePlan::apply`] with the kernel set `S` that `by_arch!` picks.
fn apply_set<'p, T: Element, I: LoadBalanceIndex, D: Device, S: KernelSet<T, I>>(
    plan: &SegReducePlan<'p, T, I, D>,
    data: *const T,
    output: DeviceSliceMut<'_, T, D>,
    extra: Extra<'_, T, I, D>,
) -> Result<Pending<D>>
where
    Plus: SegReduceOp<T, I>,
{
    plan.apply::<S>(data, output, extra)
}

mgpu_runtime::queued_and_blocking! {
    /// Segmented reduction over CSR (Modern GPU's `SegReduceCsr`, seed 002), queued
    /// without synchronising: `output[j]` becomes the reduction with `Op` of segment `j`,
    /// the values `data[csr[j]..csr[j + 1]]` (the last segment runs to the end of `data`),
    /// combined in order (`x0 op x1 op ...`), or `Op`'s identity when the segment is empty.
    ///
    /// `csr` holds one start per segment: an exclusive scan of the segment lengths, so it
    /// starts at 0, never decreases and stays at most `data.len()`. Empty segments, runs of
    /// them, and a segment holding every value all run at full speed: tiles cut the merge
    /// of the values with the segment starts evenly (see the crate documentation). The
    /// operator need not be commutative (it is applied in segment order), and the result
    /// has the same bits on every run, floats included. Segments of 256 values or more on
    /// average, with an operator whose operands may be folded in any order
    /// (`AssociativeOp::COMMUTATIVE`), are reduced a warp a segment (one launch, no
    /// partitions: [`crate::warps`]); the operands are then folded in another order, which
    /// changes float results by rounding only, and still the same bits every run.
    ///
    /// # Errors
    /// At once: [`Error::LengthMismatch`] when `output.len() != csr.len()`,
    /// [`Error::IndexOverflow`] when `data.len()` does not fit `I`, and
    /// [`Error::InvalidInput`] for values with no segments. From [`Pending::wait`]:
    /// [`Error::InvalidInput`] when `csr[0] != 0`, the starts decrease, or a start is past
    /// `data.len()`; then `output` holds unspecified values, but nothing outside it was
    /// written and nothing outside the inputs read.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Maximum;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let data = DeviceVec::from_slice(&dev, &[3.5f32, -1.0, 8.0, 2.0]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 1, 1]).unwrap(); // lengths 1, 0, 3
    /// let mut out = DeviceVec::<f32, _>::zeros(&dev, 3).unwrap();
    /// let pending = mgpu_segreduce::seg_reduce_csr_into(
    ///     data.as_slice(), csr.as_slice(), out.as_mut_slice(), Maximum,
    /// ).unwrap();
    /// pending.wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![3.5, f32::NEG_INFINITY, 8.0]);
    /// ```
    pub fn seg_reduce_csr_into[D: Device, T: Element, I: LoadBalanceIndex, Op: SegReduceOp<T, I>](
        data: DeviceSlice<'_, T, D>,
        csr: DeviceSlice<'_, I, D>,
        output: DeviceSliceMut<'_, T, D>,
        _op: Op,
    ) -> Result<Pending<D>> {
        mgpu_core::checks::seg_reduce_csr::<I>(data.len(), csr.len(), Some(output.len()))?;
        if takes_warps::<T, Op>(data.len(), csr.len()) {
            return run_warps_by_arch::<D, T, I, Op>(data.as_ptr(), data.len(), csr, output);
        }
        mgpu_core::by_arch!(
            csr.device().arch(),
            Op as SegReduceOp<T, I>,
            run::<D, T, I>(data.as_ptr(), data.len(), csr, output, Extra::None)
        )
    }
    /// [`seg_reduce_csr_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// Seed 002's demonstration: segment starts 0, 9, 19, 25, 71, 87, 97 over 100 values.
    ///
    /// ```
    /// use mgpu_core::Plus;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let values: Vec<i32> = (0..100).map(|i| i % 5 + 1).collect();
    /// let data = DeviceVec::from_slice(&dev, &values).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 9, 19, 25, 71, 87, 97]).unwrap();
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 7).unwrap();
    /// mgpu_segreduce::seg_reduce_csr(data.as_slice(), csr.as_slice(), out.as_mut_slice(), Plus)
    ///     .unwrap();
    /// let expect: Vec<i32> = [0usize, 9, 19, 25, 71, 87, 97, 100]
    ///     .windows(2)
    ///     .map(|w| values[w[0]..w[1]].iter().sum())
    ///     .collect();
    /// assert_eq!(out.to_vec().unwrap(), expect);
    /// ```
    pub fn seg_reduce_csr;

    /// CSR sparse matrix times dense vector (seed 002's `SpmvCsrBinary` with its default
    /// operators), queued without synchronising: `output[r]` becomes the sum over row
    /// `r`'s nonzeros `k` (`csr[r]..csr[r + 1]`, the last row to the end) of
    /// `matrix[k] * vec[cols[k]]`, in order, 0 for an empty row. The rows are the
    /// segmented reduction's segments, so empty rows, power-law row lengths and one dense
    /// row cost the same per nonzero.
    ///
    /// # Errors
    /// As [`seg_reduce_csr_into`] (the nonzeros are its values and the rows its
    /// segments), also at once [`Error::LengthMismatch`] when `cols.len() !=
    /// matrix.len()`, and from [`Pending::wait`] [`Error::InvalidInput`] when a column is
    /// at or past `vec.len()` (such a product is never read from memory).
    ///
    /// # Examples
    ///
    /// `[1 0 2; 0 0 0; 0 3 0]` times `[1, 10, 100]`.
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let m = DeviceVec::from_slice(&dev, &[1.0f64, 2.0, 3.0]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[0u32, 2, 1]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[1.0f64, 10.0, 100.0]).unwrap();
    /// let mut y = DeviceVec::<f64, _>::zeros(&dev, 3).unwrap();
    /// mgpu_segreduce::spmv_csr_into(m.as_slice(), cols.as_slice(), csr.as_slice(), x.as_slice(), y.as_mut_slice())
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![201.0, 0.0, 30.0]);
    /// ```
    pub fn spmv_csr_into[D: Device, T: Element, I: LoadBalanceIndex](
        matrix: DeviceSlice<'_, T, D>,
        cols: DeviceSlice<'_, I, D>,
        csr: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>>
    where [SpmvBinary: SpmvForm<T, I>]
    {
        mgpu_core::checks::spmv_csr::<I>(Some(matrix.len()), cols.len(), csr.len(), Some(output.len()))?;
        mgpu_core::by_arch!(
            csr.device().arch(),
            SpmvBinary as SpmvForm<T, I>,
            run::<D, T, I>(matrix.as_ptr(), cols.len(), csr, output, Extra::Spmv(cols, vec))
        )
    }
    /// [`spmv_csr_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let m = DeviceVec::from_slice(&dev, &[2i64, 5]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[1u64, 0]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u64]).unwrap(); // one row: 2 x[1] + 5 x[0]
    /// let x = DeviceVec::from_slice(&dev, &[3i64, 4]).unwrap();
    /// let mut y = DeviceVec::<i64, _>::zeros(&dev, 1).unwrap();
    /// mgpu_segreduce::spmv_csr(m.as_slice(), cols.as_slice(), csr.as_slice(), x.as_slice(), y.as_mut_slice()).unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![23]);
    /// ```
    pub fn spmv_csr;

    /// CSR SpMV over a semiring (seed 002's `SpmvCsrBinary` with its `mul` and `add`
    /// operators), queued without synchronising: `output[r]` becomes `Add` over row `r`'s
    /// nonzeros `k` of `Mul(matrix[k], vec[cols[k]])`, in order, `Add`'s identity for an
    /// empty row ([`Semiring`](crate::kernels::Semiring)`(Plus, Minimum)`: one step of
    /// shortest paths, `+inf` or `MAX` for a row with no edges). Errors as
    /// [`spmv_csr_into`].
    ///
    /// # Examples
    ///
    /// Edge weights `[1 0 2; 0 0 0; 0 3 0]` (a zero: no edge) and distances `[0, 10, 100]`:
    /// row 0 reaches min(1 + 0, 2 + 100).
    ///
    /// ```
    /// use mgpu_core::{Minimum, Plus};
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// use mgpu_segreduce::kernels::Semiring;
    /// let dev = Simulator::new();
    /// let w = DeviceVec::from_slice(&dev, &[1i32, 2, 3]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[0u32, 2, 1]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
    /// let d = DeviceVec::from_slice(&dev, &[0i32, 10, 100]).unwrap();
    /// let mut y = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
    /// mgpu_segreduce::spmv_csr_semiring_into(
    ///     w.as_slice(), cols.as_slice(), csr.as_slice(), d.as_slice(), y.as_mut_slice(),
    ///     Semiring(Plus, Minimum),
    /// ).unwrap().wait().unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![1, i32::MAX, 13]);
    /// ```
    pub fn spmv_csr_semiring_into[D: Device, T: Element, I: LoadBalanceIndex, Mul, Add](
        matrix: DeviceSlice<'_, T, D>,
        cols: DeviceSlice<'_, I, D>,
        csr: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
        _semiring: crate::kernels::Semiring<Mul, Add>,
    ) -> Result<Pending<D>>
    where [crate::kernels::Semiring<Mul, Add>: crate::kernels::SpmvSemiring<T, I>]
    {
        mgpu_core::checks::spmv_csr::<I>(Some(matrix.len()), cols.len(), csr.len(), Some(output.len()))?;
        mgpu_core::by_arch!(
            csr.device().arch(),
            crate::kernels::Semiring<Mul, Add> as crate::kernels::SpmvSemiring<T, I>,
            run::<D, T, I>(matrix.as_ptr(), cols.len(), csr, output, Extra::Spmv(cols, vec))
        )
    }
    /// [`spmv_csr_semiring_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// Or-and (reachability): which rows reach a set vertex.
    ///
    /// ```
    /// use mgpu_core::{BitAnd, BitOr};
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// use mgpu_segreduce::kernels::Semiring;
    /// let dev = Simulator::new();
    /// let ones = DeviceVec::from_slice(&dev, &[1u32; 3]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[0u32, 2, 1]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
    /// let set = DeviceVec::from_slice(&dev, &[0u32, 1, 0]).unwrap();
    /// let mut y = DeviceVec::<u32, _>::zeros(&dev, 3).unwrap();
    /// mgpu_segreduce::spmv_csr_semiring(
    ///     ones.as_slice(), cols.as_slice(), csr.as_slice(), set.as_slice(), y.as_mut_slice(),
    ///     Semiring(BitAnd, BitOr),
    /// ).unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![0, 0, 1]);
    /// ```
    pub fn spmv_csr_semiring;

    /// Unary CSR SpMV (seed 002's `SpmvCsrUnary` with its default operator), queued
    /// without synchronising: `output[r]` becomes the sum of `vec[cols[k]]` over row `r`'s
    /// nonzeros `k` (a pattern matrix of ones times the vector). Errors as
    /// [`spmv_csr_into`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let cols = DeviceVec::from_slice(&dev, &[0u32, 2, 1]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[1.0f32, 10.0, 100.0]).unwrap();
    /// let mut y = DeviceVec::<f32, _>::zeros(&dev, 3).unwrap();
    /// mgpu_segreduce::spmv_csr_unary_into(cols.as_slice(), csr.as_slice(), x.as_slice(), y.as_mut_slice())
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![101.0, 0.0, 10.0]);
    /// ```
    pub fn spmv_csr_unary_into[D: Device, T: Element, I: LoadBalanceIndex](
        cols: DeviceSlice<'_, I, D>,
        csr: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>>
    where [SpmvUnary: SpmvForm<T, I>]
    {
        mgpu_core::checks::spmv_csr::<I>(None, cols.len(), csr.len(), Some(output.len()))?;
        mgpu_core::by_arch!(
            csr.device().arch(),
            SpmvUnary as SpmvForm<T, I>,
            run::<D, T, I>(std::ptr::null(), cols.len(), csr, output, Extra::Spmv(cols, vec))
        )
    }
    /// [`spmv_csr_unary_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let cols = DeviceVec::from_slice(&dev, &[1u32, 1, 0]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[5u32, 7]).unwrap();
    /// let mut y = DeviceVec::<u32, _>::zeros(&dev, 1).unwrap();
    /// mgpu_segreduce::spmv_csr_unary(cols.as_slice(), csr.as_slice(), x.as_slice(), y.as_mut_slice()).unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![19]);
    /// ```
    pub fn spmv_csr_unary;

    /// Indirect CSR SpMV (seed 002's `SpmvCsrIndirectBinary` with its default operators),
    /// queued without synchronising: as [`spmv_csr_into`], but row `r`'s nonzeros start at
    /// `matrix[sources[r]]` and `cols[sources[r]]` instead of at `csr[r]`. The row lengths
    /// still come from `csr` (the last row runs to `cols.len()`), so the rows may be
    /// stored in any order, overlapping or not ([`spmv_csr_into`] is this with
    /// `sources == csr`).
    ///
    /// # Errors
    /// As [`spmv_csr_into`]; also at once [`Error::LengthMismatch`] when `sources` does not
    /// have one start per row, and from [`Pending::wait`] [`Error::InvalidInput`] when a
    /// non-empty row reaches past the nonzeros (never read).
    ///
    /// # Examples
    ///
    /// `[1 0 2; 0 0 0; 0 3 0]` times `[1, 10, 100]`, the rows stored last to first.
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let m = DeviceVec::from_slice(&dev, &[3.0f64, 1.0, 2.0]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[1u32, 0, 2]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap(); // lengths 2, 0, 1
    /// let sources = DeviceVec::from_slice(&dev, &[1u32, 3, 0]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[1.0f64, 10.0, 100.0]).unwrap();
    /// let mut y = DeviceVec::<f64, _>::zeros(&dev, 3).unwrap();
    /// mgpu_segreduce::spmv_csr_indirect_into(
    ///     m.as_slice(), cols.as_slice(), csr.as_slice(), sources.as_slice(), x.as_slice(), y.as_mut_slice(),
    /// ).unwrap().wait().unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![201.0, 0.0, 30.0]);
    /// ```
    pub fn spmv_csr_indirect_into[D: Device, T: Element, I: LoadBalanceIndex](
        matrix: DeviceSlice<'_, T, D>,
        cols: DeviceSlice<'_, I, D>,
        csr: DeviceSlice<'_, I, D>,
        sources: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>>
    where [SpmvIndirectBinary: SpmvForm<T, I>]
    {
        mgpu_core::checks::spmv_csr_indirect::<I>(Some(matrix.len()), cols.len(), csr.len(), sources.len(), Some(output.len()))?;
        let extra = Extra::SpmvIndirect(cols, vec, sources);
        mgpu_core::by_arch!(
            csr.device().arch(),
            SpmvIndirectBinary as SpmvForm<T, I>,
            run::<D, T, I>(matrix.as_ptr(), cols.len(), csr, output, extra)
        )
    }
    /// [`spmv_csr_indirect_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// Two rows sharing their nonzeros (both start at 0).
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let m = DeviceVec::from_slice(&dev, &[2i32, 5]).unwrap();
    /// let cols = DeviceVec::from_slice(&dev, &[1u32, 0]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 1]).unwrap(); // lengths 1, 1
    /// let sources = DeviceVec::from_slice(&dev, &[0u32, 0]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[3i32, 4]).unwrap();
    /// let mut y = DeviceVec::<i32, _>::zeros(&dev, 2).unwrap();
    /// mgpu_segreduce::spmv_csr_indirect(m.as_slice(), cols.as_slice(), csr.as_slice(), sources.as_slice(), x.as_slice(), y.as_mut_slice()).unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![8, 8]);
    /// ```
    pub fn spmv_csr_indirect;

    /// Indirect unary CSR SpMV (seed 002's `SpmvCsrIndirectUnary` with its default
    /// operator), queued without synchronising: as [`spmv_csr_unary_into`], but row `r`'s
    /// columns start at `cols[sources[r]]`. Errors as [`spmv_csr_indirect_into`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let cols = DeviceVec::from_slice(&dev, &[1u32, 0, 2]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap(); // lengths 2, 1
    /// let sources = DeviceVec::from_slice(&dev, &[1u32, 0]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[1.0f32, 10.0, 100.0]).unwrap();
    /// let mut y = DeviceVec::<f32, _>::zeros(&dev, 2).unwrap();
    /// mgpu_segreduce::spmv_csr_indirect_unary_into(cols.as_slice(), csr.as_slice(), sources.as_slice(), x.as_slice(), y.as_mut_slice())
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![101.0, 10.0]);
    /// ```
    pub fn spmv_csr_indirect_unary_into[D: Device, T: Element, I: LoadBalanceIndex](
        cols: DeviceSlice<'_, I, D>,
        csr: DeviceSlice<'_, I, D>,
        sources: DeviceSlice<'_, I, D>,
        vec: DeviceSlice<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>>
    where [SpmvIndirectUnary: SpmvForm<T, I>]
    {
        mgpu_core::checks::spmv_csr_indirect::<I>(None, cols.len(), csr.len(), sources.len(), Some(output.len()))?;
        let extra = Extra::SpmvIndirect(cols, vec, sources);
        mgpu_core::by_arch!(
            csr.device().arch(),
            SpmvIndirectUnary as SpmvForm<T, I>,
            run::<D, T, I>(std::ptr::null(), cols.len(), csr, output, extra)
        )
    }
    /// [`spmv_csr_indirect_unary_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let cols = DeviceVec::from_slice(&dev, &[1u64, 1, 0]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u64]).unwrap();
    /// let sources = DeviceVec::from_slice(&dev, &[0u64]).unwrap();
    /// let x = DeviceVec::from_slice(&dev, &[5u32, 7]).unwrap();
    /// let mut y = DeviceVec::<u32, _>::zeros(&dev, 1).unwrap();
    /// mgpu_segreduce::spmv_csr_indirect_unary(cols.as_slice(), csr.as_slice(), sources.as_slice(), x.as_slice(), y.as_mut_slice()).unwrap();
    /// assert_eq!(y.to_vec().unwrap(), vec![19]);
    /// ```
    pub fn spmv_csr_indirect_unary;

    /// The indirect segmented reduction (seed 002's `IndirectReduceCsr`), queued without
    /// synchronising: as [`seg_reduce_csr_into`], but segment `j`'s values start at
    /// `data[sources[j]]` instead of `data[csr[j]]`. The segment lengths still come from
    /// `csr` (the last one runs to `data.len()`), so `csr` is the exclusive scan of the
    /// lengths of segments that `sources` places anywhere in `data`, in any order,
    /// overlapping or not.
    ///
    /// # Errors
    /// As [`seg_reduce_csr_into`]; also at once [`Error::LengthMismatch`] when `sources`
    /// does not have one start per segment, and from [`Pending::wait`]
    /// [`Error::InvalidInput`] when a non-empty segment's values reach past `data`
    /// (never read).
    ///
    /// # Examples
    ///
    /// Segments of lengths 2 and 3 whose values start at `data[3]` and `data[0]`.
    ///
    /// ```
    /// use mgpu_core::Plus;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let data = DeviceVec::from_slice(&dev, &[1i32, 2, 3, 40, 50]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap();
    /// let sources = DeviceVec::from_slice(&dev, &[3u32, 0]).unwrap();
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 2).unwrap();
    /// mgpu_segreduce::indirect_reduce_csr_into(data.as_slice(), csr.as_slice(), sources.as_slice(), out.as_mut_slice(), Plus)
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![90, 6]);
    /// ```
    pub fn indirect_reduce_csr_into[D: Device, T: Element, I: LoadBalanceIndex, Op: IndirectOp<T, I>](
        data: DeviceSlice<'_, T, D>,
        csr: DeviceSlice<'_, I, D>,
        sources: DeviceSlice<'_, I, D>,
        output: DeviceSliceMut<'_, T, D>,
        _op: Op,
    ) -> Result<Pending<D>> {
        mgpu_core::checks::indirect_reduce_csr::<I>(data.len(), csr.len(), sources.len(), Some(output.len()))?;
        let extra = Extra::Indirect(sources, data.len());
        mgpu_core::by_arch!(
            csr.device().arch(),
            Op as IndirectOp<T, I>,
            run::<D, T, I>(data.as_ptr(), data.len(), csr, output, extra)
        )
    }
    /// [`indirect_reduce_csr_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Maximum;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let data = DeviceVec::from_slice(&dev, &[7u64, 1, 9]).unwrap();
    /// let csr = DeviceVec::from_slice(&dev, &[0u64, 2]).unwrap(); // lengths 2, 1
    /// let sources = DeviceVec::from_slice(&dev, &[1u64, 0]).unwrap();
    /// let mut out = DeviceVec::<u64, _>::zeros(&dev, 2).unwrap();
    /// mgpu_segreduce::indirect_reduce_csr(data.as_slice(), csr.as_slice(), sources.as_slice(), out.as_mut_slice(), Maximum).unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![9, 7]);
    /// ```
    pub fn indirect_reduce_csr;
}

// ---------------------------------------------------------------------------------------
// Reduce-by-key (crate::rbk).

/// What reduce-by-key's error word means.
fn rbk_meaning(capacity: usize) -> [(u32, Violation); 1] {
    [(ERROR_CAPACITY, Violation::RunsPastOutput { capacity })]
}

/// Passes 1 and 2 over `keys` (see [`crate::rbk`]), queued: the codes, the runs before
/// each tile and the head keys; the run count goes to `count` (one word).
struct KeyPass<K: Element, D: Device> {
    total: usize,
    tiles: usize,
    nv: usize,
    codes: Temp<u32, D>,
    heads: Temp<u64, D>,
    head_keys: Temp<K, D>,
}

fn queue_heads<D: Device, K: Element, S: crate::kernels::rbk_keys::KernelSet<K>>(
    keys: DeviceSlice<'_, K, D>,
    count: *mut u64,
) -> Result<KeyPass<K, D>> {
    let dev = keys.device();
    let (total, nv) = (keys.len(), S::Heads::NV as usize);
    let tiles = total.div_ceil(nv);
    if tiles > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "reduce_by_key: {total} keys are more than one launch can take"
        )));
    }
    let codes = Temp::<u32, D>::new(dev, tiles * S::Heads::NT as usize)?;
    let counts = Temp::<u64, D>::new(dev, tiles)?;
    let heads = Temp::<u64, D>::new(dev, tiles)?;
    let head_keys = Temp::<K, D>::new(dev, total)?;
    let args = RbkKeysArgs {
        keys: keys.as_ptr(),
        total: total as u64,
        codes: codes.as_mut_ptr(),
        counts: counts.as_mut_ptr(),
        head_keys: head_keys.as_mut_ptr(),
        ..Default::default()
    };
    // SAFETY: the temps have the lengths `rbk::rbk_heads` documents; the grid is
    // `total.div_ceil(nv)`.
    unsafe { dev.launch::<S::Heads>(tiles as u32, &args)? };
    // SAFETY: `counts` and `heads` hold `tiles` words and `count` one (the caller's).
    let (counts_in, heads_out, total_out) = unsafe {
        (
            DeviceSlice::<u64, D>::from_raw(dev, counts.as_mut_ptr() as u64, tiles),
            DeviceSliceMut::<u64, D>::from_raw(dev, heads.as_mut_ptr() as u64, tiles),
            DeviceSliceMut::<u64, D>::from_raw(dev, count as u64, 1),
        )
    };
    mgpu_scan::scan_into(
        counts_in,
        heads_out,
        mgpu_scan::ScanKind::Exclusive,
        Some(total_out),
        Plus,
    )?;
    Ok(KeyPass {
        total,
        tiles,
        nv,
        codes,
        heads,
        head_keys,
    })
}

impl<K: Element, D: Device> KeyPass<K, D> {
    /// Pass 3, queued: the head keys to `keys_out`.
    fn queue_keys<S: crate::kernels::rbk_keys::KernelSet<K>>(
        &self,
        dev: &D,
        count: *const u64,
        mut keys_out: DeviceSliceMut<'_, K, D>,
        error: &ErrorWord<D>,
    ) -> Result<()> {
        let args = RbkKeysArgs {
            total: self.total as u64,
            head_keys: self.head_keys.as_mut_ptr(),
            heads: self.heads.as_mut_ptr(),
            run_count: count,
            keys_out: keys_out.as_mut_ptr(),
            capacity: keys_out.len() as u64,
            error: error.as_mut_ptr(),
            ..Default::default()
        };
        let grid = crate::rbk::keys_grid(self.tiles, S::Keys::NT as usize);
        // SAFETY: passes 1 and 2 filled the temps (a dependent launch: the kernel waits for
        // the scan's end before reading); `keys_out` has `capacity` slots; the grid covers
        // the tiles a warp each.
        unsafe { dev.launch_dependent::<S::Keys>(grid as u32, &args) }
    }

    /// Pass 4 and the spine, queued: the values' reductions to `values_out`, and, given
    /// `keys_out` (a reduction without a plan), pass 3's work too: the head keys to
    /// `keys_out`, the capacity then the shorter of the two outputs.
    fn queue_values<T: Element, S: crate::kernels::rbk_values::KernelSet<T>>(
        &self,
        dev: &D,
        count: *const u64,
        values: DeviceSlice<'_, T, D>,
        mut values_out: DeviceSliceMut<'_, T, D>,
        keys_out: Option<DeviceSliceMut<'_, K, D>>,
        error: &ErrorWord<D>,
    ) -> Result<()> {
        if S::Reduce::NV as usize != self.nv {
            return Err(Error::InvalidInput(
                "reduce_by_key: the key and value passes cut different tiles".into(),
            ));
        }
        let carry = Temp::<T, D>::new(dev, self.tiles)?;
        let mut args = SegReduceArgs::<T, u64> {
            data: values.as_ptr(),
            total: self.total as u64,
            output: values_out.as_mut_ptr(),
            carry_out: carry.as_mut_ptr(),
            error: error.as_mut_ptr(),
            tiles: self.tiles as u64,
            heads: self.heads.as_mut_ptr(),
            run_count: count,
            codes: self.codes.as_mut_ptr(),
            capacity: values_out.len() as u64,
            ..Default::default()
        };
        if let Some(mut keys_out) = keys_out {
            args.head_keys = self.head_keys.as_mut_ptr() as *const u32;
            args.keys_out = keys_out.as_mut_ptr() as *mut u32;
            args.key_words = K::WORDS as u32;
            args.capacity = args.capacity.min(keys_out.len() as u64);
        }
        // SAFETY: passes 1 and 2 filled codes, heads and head_keys (a dependent launch: the
        // kernel waits for the grid before it to end); `values_out` (and `keys_out`, when
        // given) have `capacity` slots, `carry` one per tile.
        unsafe { dev.launch_dependent::<S::Reduce>(self.tiles as u32, &args)? };
        // The spine reads the runs from `heads`.
        queue_spine::<D, T, u64, S::Spine>(dev, &mut args)
    }
}

/// Queues the whole reduction by key with the kernel sets `SK` and `SV`, the run count
/// going to `count` (one word on the device).
#[allow(clippy::too_many_arguments)]
fn rbk_run<D, K, T, SK, SV>(
    keys: DeviceSlice<'_, K, D>,
    values: DeviceSlice<'_, T, D>,
    keys_out: DeviceSliceMut<'_, K, D>,
    values_out: DeviceSliceMut<'_, T, D>,
    count: *mut u64,
) -> Result<Pending<D>>
where
    D: Device,
    K: Element,
    T: Element,
    SK: crate::kernels::rbk_keys::KernelSet<K>,
    SV: crate::kernels::rbk_values::KernelSet<T>,
{
    let dev = keys.device();
    let capacity = keys_out.len().min(values_out.len());
    if keys.is_empty() {
        // SAFETY: `count` is one word.
        unsafe { dev.memset(count as u64, 0, 8)? };
        return Ok(Pending::done());
    }
    let error = ErrorWord::zeroed(dev)?;
    let pass = queue_heads::<D, K, SK>(keys, count)?;
    pass.queue_values::<T, SV>(dev, count, values, values_out, Some(keys_out), &error)?;
    Ok(Pending::new(error, &rbk_meaning(capacity)))
}

/// [`rbk_run`] with the kernel sets of the device's architecture.
fn rbk_dispatch<D: Device, K: Element, T: Element, Eq: RbkKey<K>, Op: RbkOp<T>>(
    keys: DeviceSlice<'_, K, D>,
    values: DeviceSlice<'_, T, D>,
    keys_out: DeviceSliceMut<'_, K, D>,
    values_out: DeviceSliceMut<'_, T, D>,
    count: *mut u64,
) -> Result<Pending<D>> {
    mgpu_core::checks::reduce_by_key(keys.len(), values.len())?;
    match keys.device().arch() {
        mgpu_core::Arch::Sm70 => rbk_run::<D, K, T, Eq::Sm70, Op::Sm70>(
            keys, values, keys_out, values_out, count,
        ),
        mgpu_core::Arch::Sm90 => rbk_run::<D, K, T, Eq::Sm90, Op::Sm90>(
            keys, values, keys_out, values_out, count,
        ),
    }
}

/// Reduce-by-key (seed 002's `ReduceByKey`), queued, the run count left on the device
/// (the seed's `count_global`: no synchronisation): a run is a maximal stretch of
/// adjacent keys that `Eq` calls equal (`EqualTo`: `==`, so a NaN key is a run of its
/// own); run `r`'s first key goes to `keys_out[r]`, its values combined in order with
/// `Op` (which need not be commutative) to `values_out[r]`, and the number of runs to
/// `count[0]`. Both outputs need a slot per run (`keys.len()` is always enough).
///
/// # Errors
/// [`Error::LengthMismatch`] when `values` does not have one value per key or `count`
/// is not one word; from [`Pending::wait`], [`Error::InvalidInput`] when there are more
/// runs than output slots (then the outputs are untouched; the count is still written).
///
/// # Examples
///
/// ```
/// use mgpu_core::{EqualTo, Plus};
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let keys = DeviceVec::from_slice(&dev, &[4u32, 4, 9, 4, 4, 4]).unwrap();
/// let vals = DeviceVec::from_slice(&dev, &[1i64, 2, 3, 4, 5, 6]).unwrap();
/// let mut ko = DeviceVec::<u32, _>::zeros(&dev, 6).unwrap();
/// let mut vo = DeviceVec::<i64, _>::zeros(&dev, 6).unwrap();
/// let mut count = DeviceVec::<u64, _>::zeros(&dev, 1).unwrap();
/// let pending = mgpu_segreduce::reduce_by_key_into(
///     keys.as_slice(), vals.as_slice(), ko.as_mut_slice(), vo.as_mut_slice(),
///     count.as_mut_slice(), EqualTo, Plus,
/// ).unwrap();
/// pending.wait().unwrap();
/// assert_eq!(count.to_vec().unwrap(), [3]);
/// assert_eq!(&ko.to_vec().unwrap()[..3], &[4, 9, 4]);
/// assert_eq!(&vo.to_vec().unwrap()[..3], &[3, 3, 15]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn reduce_by_key_into<D: Device, K: Element, T: Element, Eq: RbkKey<K>, Op: RbkOp<T>>(
    keys: DeviceSlice<'_, K, D>,
    values: DeviceSlice<'_, T, D>,
    keys_out: DeviceSliceMut<'_, K, D>,
    values_out: DeviceSliceMut<'_, T, D>,
    mut count: DeviceSliceMut<'_, u64, D>,
    _eq: Eq,
    _op: Op,
) -> Result<Pending<D>> {
    Error::check_len("reduce_by_key count", 1, count.len())?;
    rbk_dispatch::<D, K, T, Eq, Op>(keys, values, keys_out, values_out, count.as_mut_ptr())
}

/// [`reduce_by_key_into`] with the count read back: returns the number of runs (the
/// first that many slots of `keys_out` and `values_out` hold them). Synchronises.
///
/// # Errors
/// As [`reduce_by_key_into`], and its verdict.
///
/// # Examples
///
/// Seed 002's demonstration (its first 20 keys and values).
///
/// ```
/// use mgpu_core::{EqualTo, Plus};
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let keys = DeviceVec::from_slice(&dev, &[0i32, 0, 0, 1, 1, 1, 2, 2, 2, 2]).unwrap();
/// let vals = DeviceVec::from_slice(&dev, &[2i32, 4, 2, 4, 1, 5, 3, 2, 4, 4]).unwrap();
/// let mut ko = DeviceVec::<i32, _>::zeros(&dev, 10).unwrap();
/// let mut vo = DeviceVec::<i32, _>::zeros(&dev, 10).unwrap();
/// let runs = mgpu_segreduce::reduce_by_key(
///     keys.as_slice(), vals.as_slice(), ko.as_mut_slice(), vo.as_mut_slice(), EqualTo, Plus,
/// ).unwrap();
/// assert_eq!(runs, 3);
/// assert_eq!(&vo.to_vec().unwrap()[..3], &[8, 10, 13]);
/// ```
pub fn reduce_by_key<D: Device, K: Element, T: Element, Eq: RbkKey<K>, Op: RbkOp<T>>(
    keys: DeviceSlice<'_, K, D>,
    values: DeviceSlice<'_, T, D>,
    keys_out: DeviceSliceMut<'_, K, D>,
    values_out: DeviceSliceMut<'_, T, D>,
    _eq: Eq,
    _op: Op,
) -> Result<usize> {
    let count = Temp::<u64, D>::new(keys.device(), 1)?;
    rbk_dispatch::<D, K, T, Eq, Op>(keys, values, keys_out, values_out, count.as_mut_ptr())?
        .wait()?;
    Ok(count.to_vec()?[0] as usize)
}

/// A run geometry prepared once (seed 002's `ReduceByKeyPreprocess`): the keys' passes
/// (their run heads, and the head keys), after which [`ReduceByKeyPlan::runs`] is known
/// on the host, [`ReduceByKeyPlan::keys_into`] writes the runs' keys, and
/// [`ReduceByKeyPlan::reduce_into`] reduces new values by the same runs, reading only
/// the values (seed 002's `ReduceByKeyApply`). It owns its temporaries (the codes, the
/// runs per tile, the head keys); the keys themselves are not read again.
///
/// # Examples
///
/// ```
/// use mgpu_core::{EqualTo, Maximum, Plus};
/// use mgpu_runtime::{DeviceVec, Simulator};
/// use mgpu_segreduce::ReduceByKeyPlan;
/// let dev = Simulator::new();
/// let keys = DeviceVec::from_slice(&dev, &[1.5f32, 1.5, f32::NAN, f32::NAN, 2.0]).unwrap();
/// let plan = ReduceByKeyPlan::new(keys.as_slice(), EqualTo).unwrap();
/// assert_eq!(plan.runs(), 4); // NaN != NaN: each NaN is a run
/// let mut ko = DeviceVec::<f32, _>::zeros(&dev, 4).unwrap();
/// plan.keys_into(ko.as_mut_slice()).unwrap().wait().unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 4).unwrap();
/// let vals = DeviceVec::from_slice(&dev, &[3, 1, 4, 1, 5]).unwrap();
/// plan.reduce(vals.as_slice(), out.as_mut_slice(), Plus).unwrap();
/// assert_eq!(out.to_vec().unwrap(), [4, 4, 1, 5]);
/// plan.reduce(vals.as_slice(), out.as_mut_slice(), Maximum).unwrap();
/// assert_eq!(out.to_vec().unwrap(), [3, 4, 1, 5]);
/// ```
pub struct ReduceByKeyPlan<K: Element, D: Device, Eq: RbkKey<K> = mgpu_core::EqualTo> {
    dev: D,
    pass: Option<KeyPass<K, D>>,
    count: Temp<u64, D>,
    runs: usize,
    eq: std::marker::PhantomData<fn(Eq)>,
}

impl<K: Element, D: Device, Eq: RbkKey<K>> ReduceByKeyPlan<K, D, Eq> {
    /// Runs the keys' passes and reads the run count back (synchronises).
    ///
    /// # Errors
    /// Out of memory and device errors; more keys than one launch can take.
    pub fn new(keys: DeviceSlice<'_, K, D>, _eq: Eq) -> Result<Self> {
        let dev = keys.device().clone();
        let count = Temp::<u64, D>::new(&dev, 1)?;
        let pass = if keys.is_empty() {
            // SAFETY: one word.
            unsafe { dev.memset(count.as_mut_ptr() as u64, 0, 8)? };
            None
        } else {
            Some(match dev.arch() {
                mgpu_core::Arch::Sm70 => queue_heads::<D, K, Eq::Sm70>(keys, count.as_mut_ptr())?,
                mgpu_core::Arch::Sm90 => queue_heads::<D, K, Eq::Sm90>(keys, count.as_mut_ptr())?,
            })
        };
        let runs = match pass {
            None => 0,
            Some(_) => count.to_vec()?[0] as usize,
        };
        Ok(ReduceByKeyPlan {
            dev,
            pass,
            count,
            runs,
            eq: std::marker::PhantomData,
        })
    }

    /// The number of runs.
    ///
    /// ```
    /// # let dev = mgpu_runtime::Simulator::new();
    /// let keys = mgpu_runtime::DeviceVec::from_slice(&dev, &[1u64, 1, 2]).unwrap();
    /// let plan = mgpu_segreduce::ReduceByKeyPlan::new(keys.as_slice(), mgpu_core::EqualTo).unwrap();
    /// assert_eq!(plan.runs(), 2);
    /// ```
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The run count on the device (one word), for launches queued after this.
    ///
    /// ```
    /// # let dev = mgpu_runtime::Simulator::new();
    /// let keys = mgpu_runtime::DeviceVec::from_slice(&dev, &[5i32, 6]).unwrap();
    /// let plan = mgpu_segreduce::ReduceByKeyPlan::new(keys.as_slice(), mgpu_core::EqualTo).unwrap();
    /// assert_eq!(plan.count_on_device().to_vec().unwrap(), [2]);
    /// ```
    pub fn count_on_device(&self) -> DeviceSlice<'_, u64, D> {
        // SAFETY: the temp is one word, written by the scan (or below, when empty).
        unsafe { DeviceSlice::from_raw(&self.dev, self.count.as_mut_ptr() as u64, 1) }
    }

    /// The first key of each run to `keys_out` (at least [`ReduceByKeyPlan::runs`]
    /// slots), queued.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `keys_out` has fewer slots than runs.
    ///
    /// # Examples
    ///
    /// See [`ReduceByKeyPlan`].
    pub fn keys_into(&self, keys_out: DeviceSliceMut<'_, K, D>) -> Result<Pending<D>> {
        self.check_out("reduce_by_key plan keys_out", keys_out.len())?;
        let Some(pass) = &self.pass else {
            return Ok(Pending::done());
        };
        let error = ErrorWord::zeroed(&self.dev)?;
        match self.dev.arch() {
            mgpu_core::Arch::Sm70 => pass.queue_keys::<Eq::Sm70>(&self.dev, self.count.as_mut_ptr(), keys_out, &error)?,
            mgpu_core::Arch::Sm90 => pass.queue_keys::<Eq::Sm90>(&self.dev, self.count.as_mut_ptr(), keys_out, &error)?,
        }
        Ok(Pending::new(error, &rbk_meaning(self.runs)))
    }

    fn check_out(&self, what: &'static str, len: usize) -> Result<()> {
        if len < self.runs {
            return Err(Error::LengthMismatch {
                what,
                expected: self.runs,
                got: len,
            });
        }
        Ok(())
    }

    /// `values` (one per key of the plan) reduced by the plan's runs with `Op` into
    /// `values_out` (at least [`ReduceByKeyPlan::runs`] slots), queued.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `values` does not have the plan's key count or
    /// `values_out` has fewer slots than runs.
    ///
    /// # Examples
    ///
    /// See [`ReduceByKeyPlan`].
    pub fn reduce_into<T: Element, Op: RbkOp<T>>(
        &self,
        values: DeviceSlice<'_, T, D>,
        values_out: DeviceSliceMut<'_, T, D>,
        _op: Op,
    ) -> Result<Pending<D>> {
        let total = self.pass.as_ref().map_or(0, |p| p.total);
        mgpu_core::checks::reduce_by_key(total, values.len())?;
        self.check_out("reduce_by_key plan values_out", values_out.len())?;
        let Some(pass) = &self.pass else {
            return Ok(Pending::done());
        };
        let error = ErrorWord::zeroed(&self.dev)?;
        let count = self.count.as_mut_ptr();
        match self.dev.arch() {
            mgpu_core::Arch::Sm70 => pass.queue_values::<T, Op::Sm70>(&self.dev, count, values, values_out, None, &error)?,
            mgpu_core::Arch::Sm90 => pass.queue_values::<T, Op::Sm90>(&self.dev, count, values, values_out, None, &error)?,
        }
        Ok(Pending::new(error, &rbk_meaning(self.runs)))
    }

    /// [`ReduceByKeyPlan::reduce_into`], then [`Pending::wait`].
    ///
    /// # Errors
    /// As [`ReduceByKeyPlan::reduce_into`].
    ///
    /// # Examples
    ///
    /// See [`ReduceByKeyPlan`].
    pub fn reduce<T: Element, Op: RbkOp<T>>(
        &self,
        values: DeviceSlice<'_, T, D>,
        values_out: DeviceSliceMut<'_, T, D>,
        op: Op,
    ) -> Result<()> {
        self.reduce_into(values, values_out, op)?.wait()
    }
}
