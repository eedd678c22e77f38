//! Host launchers of the interval family, generic over [`Device`].

use crate::device::{
    IntervalArgs, ERROR_GATHER, ERROR_SCAN_ORDER, ERROR_SCAN_START, ERROR_SCATTER, ERROR_TOTAL,
    MODE_DIRECT, MODE_GATHER, MODE_OBJECTS, MODE_SCATTER, MODE_SEARCH, MODE_SEQUENCE,
    MODE_SPILL,
};
use crate::kernels::{IntervalElement, KernelSet};
use mgpu_core::{Index, Kernel, Plus, Violation};
use mgpu_partition::PartitionIndex;
use mgpu_runtime::{Device, DeviceSlice, DeviceSliceMut, Error, ErrorWord, Pending, Result};
use mgpu_scan::ScanOp;

/// The index types of the interval family: u32 and u64 (the seeds' `int` is u32).
///
/// # Examples
///
/// ```
/// fn takes<I: mgpu_intervalmove::IntervalIndex>(_: I) {}
/// takes(3u32);
/// takes(3u64);
/// ```
pub trait IntervalIndex: PartitionIndex + Index {}
impl IntervalIndex for u32 {}
impl IntervalIndex for u64 {}

/// Where interval data comes from: a device array, or a generated sequence
/// `first + step * position` (the seeds' `counting_iterator`; wrapping for integers): the
/// one [`mgpu_core::Source`] with device slices.
///
/// # Examples
///
/// ```
/// use mgpu_intervalmove::Source;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let v = DeviceVec::from_slice(&dev, &[1i32, 2]).unwrap();
/// let a: Source<'_, i32, Simulator> = v.as_slice().into();
/// assert!(matches!(a, Source::Array(_)));
/// let c: Source<'_, i32, Simulator> = Source::counting(0);
/// assert!(matches!(c, Source::Sequence { first: 0, step: 1 }));
/// ```
pub type Source<'a, T, D> = mgpu_core::Source<DeviceSlice<'a, T, D>, T>;

/// Element types the interval family moves: i32, u32, i64, u64, f32, f64.
///
/// # Examples
///
/// ```
/// use mgpu_intervalmove::IntervalData;
/// fn takes<T: IntervalData>(_: T) {}
/// takes(1.5f32);
/// ```
pub trait IntervalData: IntervalElement<u32> + IntervalElement<u64> {}
impl<T: IntervalElement<u32> + IntervalElement<u64>> IntervalData for T {}

/// What each bit of the interval kernels' error word means.
fn meaning(total: usize, input_len: Option<usize>, output_len: usize) -> [(u32, Violation); 5] {
    [
        (ERROR_SCAN_START, Violation::ScanStart),
        (ERROR_SCAN_ORDER, Violation::ScanOrder),
        (
            ERROR_TOTAL,
            Violation::ScanPastTotal {
                total: total as u64,
            },
        ),
        (
            ERROR_GATHER,
            Violation::GatherRange {
                input_len: input_len.unwrap_or(0),
            },
        ),
        (ERROR_SCATTER, Violation::ScatterRange { output_len }),
    ]
}

enum Which {
    Expand,
    Move,
    Naive,
}

/// What an interval total too large for the index type is called in its
/// [`Error::IndexOverflow`].
pub const INTERVAL_TOTAL: &str = "interval total";

/// Checks the sizes, computes the partitions and queues the kernel.
#[allow(clippy::too_many_arguments)]
fn queue<D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex>(
    which: Which,
    scan: DeviceSlice<'_, I, D>,
    total: usize,
    gather: Option<DeviceSlice<'_, I, D>>,
    scatter: Option<DeviceSlice<'_, I, D>>,
    input: Source<'_, T, D>,
    mut output: DeviceSliceMut<'_, T, D>,
) -> Result<Pending<D>> {
    let dev = scan.device();
    let n = scan.len();
    Error::check_fits::<I>(INTERVAL_TOTAL, total)?;
    Error::check_fits::<I>("number of intervals", n)?;
    if n == 0 && total > 0 {
        Violation::check([Violation::TotalWithoutIntervals {
            total: total as u64,
        }])?;
    }
    if let Some(g) = &gather {
        Error::check_len("gather starts (one per interval)", n, g.len())?;
    }
    if let Some(s) = &scatter {
        Error::check_len("scatter starts (one per interval)", n, s.len())?;
    }
    let mut args = IntervalArgs::<T, I>::empty();
    args.total = <I as Index>::from_usize(total).expect("checked");
    args.num_intervals = <I as Index>::from_usize(n).expect("checked");
    args.scan = scan.as_ptr();
    let input_len = match &input {
        Source::Array(s) => {
            args.input = s.as_ptr();
            args.input_len = s.len() as u64;
            Some(s.len())
        }
        Source::Sequence { first, step } => {
            args.first = *first;
            args.step = *step;
            args.mode |= MODE_SEQUENCE;
            None
        }
    };
    match (&which, input_len) {
        (Which::Expand | Which::Naive, Some(l)) => {
            Error::check_len("values (one per interval)", n, l)?
        }
        (Which::Move, Some(l)) if gather.is_none() => {
            Error::check_len("input (one per output)", total, l)?
        }
        _ => {}
    }
    if scatter.is_none() {
        Error::check_len("output (one per output item)", total, output.len())?;
    }
    if let Some(g) = &gather {
        args.gather = g.as_ptr();
        args.mode |= MODE_GATHER;
    }
    if let Some(s) = &scatter {
        args.scatter = s.as_ptr();
        args.mode |= MODE_SCATTER;
    }
    args.output = output.as_mut_ptr();
    args.output_len = output.len() as u64;
    if n == 0 {
        return Ok(Pending::done());
    }
    let meaning = meaning(total, input_len, output.len());
    let error = match which {
        Which::Naive => {
            let error = ErrorWord::zeroed(dev)?;
            args.error = error.as_mut_ptr();
            let grid = n.div_ceil(<T as IntervalElement<I>>::Naive::NT as usize);
            grid_fits(grid)?;
            // SAFETY: buffers sized as `device::expand_naive` documents (checked above).
            unsafe { dev.launch::<<T as IntervalElement<I>>::Naive>(grid as u32, &args)? };
            error
        }
        Which::Expand | Which::Move => {
            let expand = matches!(which, Which::Expand);
            mgpu_core::by_arch!(
                dev.arch(),
                T as IntervalElement<I>,
                launch_lbs::<D, T, I>(&scan, expand, &mut args)
            )?
        }
    };
    Ok(Pending::new(error, &meaning))
}

fn grid_fits(grid: usize) -> Result<()> {
    if grid >= (1usize << 31) {
        return Err(Error::InvalidInput(format!(
            "{grid} CTAs is more than one launch can run"
        )));
    }
    Ok(())
}

/// Output bytes up to which a move with a scatter stores each item from its register
/// ([`MODE_DIRECT`]) rather than interval by interval from shared memory: about what
/// stays in a data-center GPU's L2 with the input beside it. On an H100 (i32, 2^20
/// outputs) the direct stores took a move of mean-10 counts from 0.0212 to 0.0235 ms to
/// 0.0164 to 0.0172, and of mean-1 counts from 0.0615 to 0.0655 to 0.0288 to 0.0294; at
/// 2^24 and more, whole-interval stores are the faster ones (docs/intervalmove.md).
///
/// ```
/// assert_eq!(mgpu_intervalmove::DIRECT_STORE_BYTES, 8 << 20);
/// ```
pub const DIRECT_STORE_BYTES: usize = 8 << 20;

/// Whether a move stores item by item ([`MODE_DIRECT`]): always without a scatter (the
/// stores are then in output order), and for outputs of at most [`DIRECT_STORE_BYTES`];
/// `MGPU_MOVE_STORES=direct` or `interval` forces one or the other (for measuring).
fn direct_stores(scatter: bool, output_bytes: usize) -> bool {
    static FORCED: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    let forced = *FORCED.get_or_init(|| match std::env::var("MGPU_MOVE_STORES").ok()?.trim() {
        "direct" => Some(true),
        "interval" => Some(false),
        _ => None,
    });
    forced.unwrap_or(!scatter || output_bytes <= DIRECT_STORE_BYTES)
}

/// Queues the load-balanced expand or move with its partitions and returns its error
/// word: expand over a dense scan runs in object tiles (`mgpu_partition::object_tiles`,
/// no partitions); one wave of expand's tiles finds its own partitions ([`MODE_SEARCH`],
/// a word that needs no memset); move and larger grids are a dependent launch of the
/// partitions' kernel, which zeroes the word.
fn launch_lbs<D: Device, T: IntervalData, I: IntervalIndex, S: KernelSet<T, I>>(
    scan: &DeviceSlice<'_, I, D>,
    expand: bool,
    args: &mut IntervalArgs<T, I>,
) -> Result<ErrorWord<D>> {
    let dev = scan.device();
    let total = Index::to_usize(args.total);
    let (nv, ctas) = if expand {
        (S::Expand::NV, S::Expand::MIN_CTAS_PER_SM)
    } else {
        (S::Move::NV, S::Move::MIN_CTAS_PER_SM)
    };
    let nv = nv as usize;
    let grid = (total + scan.len()).div_ceil(nv);
    grid_fits(grid)?;
    if let Some(k) = mgpu_partition::object_tiles(total, scan.len(), nv).filter(|_| expand) {
        return launch_object_tiles::<D, T, I, S>(dev, k, nv, ctas, scan.len(), args);
    }
    if !expand
        && direct_stores(
            args.mode & MODE_SCATTER != 0,
            total.saturating_mul(core::mem::size_of::<T>()),
        )
    {
        args.mode |= MODE_DIRECT;
    }
    // (Move keeps the partition kernel: with its direct stores, tiles searching their own
    // partitions made a 2^20 move slower on an H100, 0.0183 to 0.0192 ms against 0.0164 to
    // 0.0172.)
    let search = expand && mgpu_partition::partitions_in_tiles(dev, grid, ctas);
    if search {
        args.mode |= MODE_SEARCH;
    }
    let (mp, error) = mgpu_partition::load_balance_partitions_or_slots(*scan, total, nv, search)?;
    args.mp = mp.as_mut_ptr();
    args.error = error.as_mut_ptr();
    // SAFETY: buffers sized as `device::expand`/`device::interval_move` document: the
    // partitions have `grid + 1` entries (or slots the tiles write them to), the rest was
    // checked by `queue`.
    unsafe {
        if search {
            dev.launch::<S::Expand>(grid as u32, args)?
        } else if expand {
            dev.launch_dependent::<S::Expand>(grid as u32, args)?
        } else {
            dev.launch_dependent::<S::Move>(grid as u32, args)?
        }
    }
    Ok(error)
}

/// Queues the expand in object tiles of `k` intervals (`MODE_OBJECTS`: no partitions),
/// then the launch that maps the chunks of the tiles that overflow (`MODE_SPILL`,
/// persistent CTAs); returns the error word (a clean word: no memset).
fn launch_object_tiles<D: Device, T: IntervalData, I: IntervalIndex, S: KernelSet<T, I>>(
    dev: &D,
    k: usize,
    nv: usize,
    ctas: u32,
    n: usize,
    args: &mut IntervalArgs<T, I>,
) -> Result<ErrorWord<D>> {
    let total = Index::to_usize(args.total);
    let launch = mgpu_partition::ObjectTileLaunch::new(dev, total, n, nv, k, ctas)?;
    grid_fits(launch.tiles)?;
    let error = ErrorWord::clean(dev)?;
    args.error = error.as_mut_ptr();
    args.mode |= MODE_OBJECTS;
    args.object_tiles = launch.list;
    // SAFETY: buffers sized as `device::expand` documents (checked by `queue`), `error`
    // and the list's count zeroed words, the list with room for every chunk.
    unsafe {
        dev.launch::<S::Expand>(launch.tiles as u32, args)?;
        args.mode = (args.mode & !MODE_OBJECTS) | MODE_SPILL;
        dev.launch_dependent::<S::Expand>(launch.persistent as u32, args)?;
    }
    Ok(error)
}

mgpu_runtime::queued_and_blocking! {
    /// Interval expand (the seeds' `IntervalExpand`), queued without synchronising: output item
    /// `i` gets `values[object(i)]`, the value of the interval that generated it. `scan` is the
    /// exclusive scan of the intervals' counts and `total` their sum (`output.len()`). The
    /// returned [`Pending`] reports invalid input.
    ///
    /// # Errors
    /// At once: lengths that disagree, a total or interval count past `I`, a total with no
    /// intervals. From [`Pending::wait`]: a scan that does not start at 0, is not
    /// non-decreasing or passes the total.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_intervalmove::Source;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u64, 1, 1]).unwrap(); // counts 1, 0, 2
    /// let mut out = DeviceVec::<u32, _>::zeros(&dev, 3).unwrap();
    /// mgpu_intervalmove::interval_expand_into(scan.as_slice(), 3, Source::counting(5), out.as_mut_slice())
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![5, 7, 7]);
    /// ```
    pub fn interval_expand_into[D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex](
        scan: DeviceSlice<'_, I, D>,
        total: usize,
        values: Source<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue(Which::Expand, scan, total, None, None, values, output)
    }

    /// [`interval_expand_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// The seeds' comment example: counts 1, 2, 1, 0, 4, 2, 3, 0, 2 of the values 0 to 8.
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32, 1, 3, 4, 4, 8, 10, 13, 13]).unwrap();
    /// let vals = DeviceVec::from_slice(&dev, &[0i32, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 15).unwrap();
    /// mgpu_intervalmove::interval_expand(scan.as_slice(), 15, vals.as_slice().into(), out.as_mut_slice()).unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![0, 1, 1, 2, 4, 4, 4, 4, 5, 5, 6, 6, 6, 8, 8]);
    /// ```
    pub fn interval_expand;

    /// The naive interval expand, one thread per interval (the seed's "miserably
    /// unsatisfying" version), queued without synchronising: same result and validation as
    /// [`interval_expand_into`], but an interval of a million outputs is written by one
    /// thread. The baseline the benchmark compares the load-balanced expand with.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap();
    /// let vals = DeviceVec::from_slice(&dev, &[1.5f64, 2.5]).unwrap();
    /// let mut out = DeviceVec::<f64, _>::zeros(&dev, 3).unwrap();
    /// mgpu_intervalmove::interval_expand_naive_into(scan.as_slice(), 3, vals.as_slice().into(), out.as_mut_slice())
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![1.5, 1.5, 2.5]);
    /// ```
    pub fn interval_expand_naive_into[
        D: Device,
        T: IntervalData + IntervalElement<I>,
        I: IntervalIndex,
    ](
        scan: DeviceSlice<'_, I, D>,
        total: usize,
        values: Source<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue(Which::Naive, scan, total, None, None, values, output)
    }

    /// [`interval_expand_naive_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32, 0, 1]).unwrap();
    /// let vals = DeviceVec::from_slice(&dev, &[4u64, 5, 6]).unwrap();
    /// let mut out = DeviceVec::<u64, _>::zeros(&dev, 2).unwrap();
    /// mgpu_intervalmove::interval_expand_naive(scan.as_slice(), 2, vals.as_slice().into(), out.as_mut_slice()).unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![5, 6]);
    /// ```
    pub fn interval_expand_naive;

    /// Interval move (the seeds' `IntervalMove`), queued without synchronising: a vectorised
    /// memcpy of interval `j`, `count[j]` elements, from `input[gather[j]..]` to
    /// `output[scatter[j]..]` (`count` given by the exclusive `scan` and `total`).
    ///
    /// Overlapping destination intervals are memory-safe: each overlapped output element gets
    /// the value of one of the intervals that write it, unspecified which.
    ///
    /// # Errors
    /// As [`interval_expand_into`]; also, from [`Pending::wait`], a gather range outside
    /// the input or a scatter range outside the output (those elements are not copied).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_intervalmove::Source;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap();       // counts 2, 1
    /// let gather = DeviceVec::from_slice(&dev, &[10u32, 20]).unwrap();
    /// let scatter = DeviceVec::from_slice(&dev, &[1u32, 0]).unwrap();
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
    /// mgpu_intervalmove::interval_move_into(scan.as_slice(), 3, gather.as_slice(), scatter.as_slice(),
    ///     Source::counting(0), out.as_mut_slice()).unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![20, 10, 11]);
    /// ```
    pub fn interval_move_into[D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex](
        scan: DeviceSlice<'_, I, D>,
        total: usize,
        gather: DeviceSlice<'_, I, D>,
        scatter: DeviceSlice<'_, I, D>,
        input: Source<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue(
            Which::Move,
            scan,
            total,
            Some(gather),
            Some(scatter),
            input,
            output,
        )
    }

    /// [`interval_move_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u64, 1]).unwrap();        // counts 1, 2
    /// let gather = DeviceVec::from_slice(&dev, &[0u64, 1]).unwrap();
    /// let scatter = DeviceVec::from_slice(&dev, &[2u64, 0]).unwrap();
    /// let input = DeviceVec::from_slice(&dev, &[7.0f32, 8.0, 9.0]).unwrap();
    /// let mut out = DeviceVec::<f32, _>::zeros(&dev, 3).unwrap();
    /// mgpu_intervalmove::interval_move(scan.as_slice(), 3, gather.as_slice(), scatter.as_slice(),
    ///     input.as_slice().into(), out.as_mut_slice()).unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![8.0, 9.0, 7.0]);
    /// ```
    pub fn interval_move;

    /// Interval gather (the seeds' `IntervalGather`), queued without synchronising: interval
    /// `j` is copied from `input[gather[j]..]` to the output contiguously, at `scan[j]`
    /// (`output.len() == total`).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap();        // counts 2, 1
    /// let gather = DeviceVec::from_slice(&dev, &[3u32, 0]).unwrap();
    /// let input = DeviceVec::from_slice(&dev, &[0i64, 1, 2, 3, 4]).unwrap();
    /// let mut out = DeviceVec::<i64, _>::zeros(&dev, 3).unwrap();
    /// mgpu_intervalmove::interval_gather_into(scan.as_slice(), 3, gather.as_slice(), input.as_slice().into(),
    ///     out.as_mut_slice()).unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![3, 4, 0]);
    /// ```
    pub fn interval_gather_into[D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex](
        scan: DeviceSlice<'_, I, D>,
        total: usize,
        gather: DeviceSlice<'_, I, D>,
        input: Source<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue(Which::Move, scan, total, Some(gather), None, input, output)
    }

    /// [`interval_gather_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32]).unwrap();
    /// let gather = DeviceVec::from_slice(&dev, &[1u32]).unwrap();
    /// let input = DeviceVec::from_slice(&dev, &[0u32, 1, 2]).unwrap();
    /// let mut out = DeviceVec::<u32, _>::zeros(&dev, 3).unwrap();     // 1, 2 and then past the input
    /// let e = mgpu_intervalmove::interval_gather(scan.as_slice(), 3, gather.as_slice(), input.as_slice().into(), out.as_mut_slice());
    /// assert!(e.unwrap_err().to_string().contains("gather range"));
    /// ```
    pub fn interval_gather;

    /// Interval scatter (the seeds' `IntervalScatter`), queued without synchronising: interval
    /// `j` is read contiguously from the input at `scan[j]` (`input` of `total` elements) and
    /// stored at `output[scatter[j]..]`. Overlapping destinations: as [`interval_move_into`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap();        // counts 2, 1
    /// let scatter = DeviceVec::from_slice(&dev, &[1u32, 0]).unwrap();
    /// let input = DeviceVec::from_slice(&dev, &[5i32, 6, 7]).unwrap();
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 4).unwrap();
    /// mgpu_intervalmove::interval_scatter_into(scan.as_slice(), 3, scatter.as_slice(), input.as_slice().into(),
    ///     out.as_mut_slice()).unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![7, 5, 6, 0]);
    /// ```
    pub fn interval_scatter_into[D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex](
        scan: DeviceSlice<'_, I, D>,
        total: usize,
        scatter: DeviceSlice<'_, I, D>,
        input: Source<'_, T, D>,
        output: DeviceSliceMut<'_, T, D>,
    ) -> Result<Pending<D>> {
        queue(Which::Move, scan, total, None, Some(scatter), input, output)
    }

    /// [`interval_scatter_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_intervalmove::Source;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let scan = DeviceVec::from_slice(&dev, &[0u64]).unwrap();
    /// let scatter = DeviceVec::from_slice(&dev, &[2u64]).unwrap();
    /// let mut out = DeviceVec::<f64, _>::zeros(&dev, 4).unwrap();
    /// mgpu_intervalmove::interval_scatter(scan.as_slice(), 2, scatter.as_slice(), Source::step(1.0, 0.5),
    ///     out.as_mut_slice()).unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![0.0, 0.0, 1.0, 1.5]);
    /// ```
    pub fn interval_scatter;
}

/// The exclusive scan of `counts` in a temporary (`mgpu_scan`), and its total: the scan
/// and total the `*_counts` forms pass on.
fn scan_counts<D: Device, I: IntervalIndex>(
    counts: DeviceSlice<'_, I, D>,
) -> Result<(mgpu_runtime::DeviceVec<I, D>, usize)>
where
    Plus: ScanOp<I>,
{
    let mut scan = mgpu_runtime::DeviceVec::<I, D>::uninit(counts.device(), counts.len())?;
    let total = mgpu_scan::scan_counts_exclusive(counts, scan.as_mut_slice())?;
    Ok((scan, Index::to_usize(total)))
}

/// Interval expand from the counts (the seeds' demo: `Scan(counts)`, then
/// `IntervalExpand`): scans `counts` into a temporary with `mgpu_scan`, then expands into
/// `output`, which must hold the sum of the counts. Returns that sum. Synchronises.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let counts = DeviceVec::from_slice(&dev, &[2u32, 0, 1]).unwrap();
/// let vals = DeviceVec::from_slice(&dev, &[7i32, 8, 9]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
/// let total = mgpu_intervalmove::interval_expand_counts(counts.as_slice(), vals.as_slice().into(), out.as_mut_slice()).unwrap();
/// assert_eq!((total, out.to_vec().unwrap()), (3, vec![7, 7, 9]));
/// ```
pub fn interval_expand_counts<D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex>(
    counts: DeviceSlice<'_, I, D>,
    values: Source<'_, T, D>,
    output: DeviceSliceMut<'_, T, D>,
) -> Result<usize>
where
    Plus: ScanOp<I>,
{
    let (scan, total) = scan_counts(counts)?;
    interval_expand(scan.as_slice(), total, values, output)?;
    Ok(total)
}

/// Interval move from the counts: scans `counts` with `mgpu_scan`, then
/// [`interval_move`]. Returns the sum of the counts. Synchronises.
///
/// # Examples
///
/// ```
/// use mgpu_intervalmove::Source;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let counts = DeviceVec::from_slice(&dev, &[1u32, 2]).unwrap();
/// let gather = DeviceVec::from_slice(&dev, &[9u32, 0]).unwrap();
/// let scatter = DeviceVec::from_slice(&dev, &[0u32, 1]).unwrap();
/// let mut out = DeviceVec::<u64, _>::zeros(&dev, 3).unwrap();
/// let total = mgpu_intervalmove::interval_move_counts(counts.as_slice(), gather.as_slice(), scatter.as_slice(),
///     Source::counting(100), out.as_mut_slice()).unwrap();
/// assert_eq!((total, out.to_vec().unwrap()), (3, vec![109, 100, 101]));
/// ```
pub fn interval_move_counts<D: Device, T: IntervalData + IntervalElement<I>, I: IntervalIndex>(
    counts: DeviceSlice<'_, I, D>,
    gather: DeviceSlice<'_, I, D>,
    scatter: DeviceSlice<'_, I, D>,
    input: Source<'_, T, D>,
    output: DeviceSliceMut<'_, T, D>,
) -> Result<usize>
where
    Plus: ScanOp<I>,
{
    let (scan, total) = scan_counts(counts)?;
    interval_move(scan.as_slice(), total, gather, scatter, input, output)?;
    Ok(total)
}
