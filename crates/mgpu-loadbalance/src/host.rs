//! Host launchers of the load-balancing search, generic over [`Device`].
//!
//! Dense scans (a mean count of at most `mgpu_partition::OBJECT_TILES_MAX_MEAN`) run in object tiles
//! (`device::MODE_OBJECTS`): a fixed number of objects a tile, no partition search, and
//! a second launch for the chunks of tiles that overflow. Other scans run in two phases,
//! as in the seed: `mgpu_partition::load_balance_partitions` finds the first work item of
//! every tile of `NV` merge steps (one search per tile boundary), then one launch of the
//! search kernel maps each tile. The kernel validates the scan as it reads it and raises a
//! per-launch error word, which the launchers read back: they always synchronise.

use crate::device::{
    LoadBalanceArgs, ERROR_FIRST, ERROR_TOTAL, ERROR_UNSORTED, MODE_OBJECTS, MODE_SEARCH,
    MODE_SPILL,
};
use crate::kernels::{KernelSet, LoadBalanceIndex};
use mgpu_core::{Index, Kernel, Plus, Violation};
use mgpu_runtime::{
    Device, DeviceSlice, DeviceSliceMut, DeviceVec, Error, ErrorWord, Pending, Result,
};
use mgpu_scan::ScanOp;
use std::ptr::null_mut;

/// Object indices `0..n` must fit `I` (the outputs are object indices).
fn objects_fit<I: Index>(n: usize) -> Result<()> {
    if (n as u64 - 1) > Index::to_u64(I::MAX) {
        return Err(Error::IndexOverflow {
            what: "object index",
            max: Index::to_u64(I::MAX),
        });
    }
    Ok(())
}

/// What each bit of the search kernel's error word means.
fn meaning(total: u64) -> [(u32, Violation); 3] {
    [
        (ERROR_FIRST, Violation::ScanStart),
        (ERROR_UNSORTED, Violation::ScanOrder),
        (ERROR_TOTAL, Violation::ScanPastTotal { total }),
    ]
}

fn run<D: Device, I: LoadBalanceIndex, S: KernelSet<I>>(
    scan: DeviceSlice<'_, I, D>,
    total: u64,
    objects: *mut I,
    ranks: *mut I,
) -> Result<Pending<D>> {
    let nv = S::Search::NV as usize;
    let dev = scan.device();
    let n = scan.len();
    if n == 0 {
        if total != 0 {
            Violation::check([Violation::TotalWithoutIntervals { total }])?;
        }
        return Ok(Pending::done());
    }
    objects_fit::<I>(n)?;
    let steps = total as usize + n;
    let grid = steps.div_ceil(nv);
    if grid > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "load-balancing search: {steps} merge steps are more than one launch can take"
        )));
    }
    if let Some(k) = mgpu_partition::object_tiles(total as usize, n, nv) {
        return run_object_tiles::<D, I, S>(scan, total, k, objects, ranks);
    }
    // One wave of tiles finds its own partitions, with an error word that needs no
    // memset. Otherwise the search kernel is a dependent launch of the partitions' kernel,
    // which is the last thing queued before it and zeroes its error word.
    let search = mgpu_partition::partitions_in_tiles(dev, grid, S::Search::MIN_CTAS_PER_SM);
    let (mp, error) =
        mgpu_partition::load_balance_partitions_or_slots(scan, total as usize, nv, search)?;
    let mut args = LoadBalanceArgs::empty();
    (args.scan, args.num_objects, args.total) = (scan.as_ptr(), n as u64, total);
    (args.mp, args.objects, args.ranks) = (mp.as_mut_ptr(), objects, ranks);
    args.error = error.as_mut_ptr();
    args.mode = if search { MODE_SEARCH } else { 0 };
    // SAFETY: `mp` has grid + 1 partitions (or slots the tiles write them to), the outputs
    // `total` elements (checked by the callers), `error` one zeroed word: what
    // `device::load_balance` documents.
    unsafe {
        if search {
            dev.launch::<S::Search>(grid as u32, &args)?;
        } else {
            dev.launch_dependent::<S::Search>(grid as u32, &args)?;
        }
    }
    Ok(Pending::new(error, &meaning(total)))
}

/// The search in object tiles of `k` objects (`MODE_OBJECTS`), then the launch that maps
/// the chunks of the tiles that overflow (`MODE_SPILL`, persistent CTAs).
fn run_object_tiles<D: Device, I: LoadBalanceIndex, S: KernelSet<I>>(
    scan: DeviceSlice<'_, I, D>,
    total: u64,
    k: usize,
    objects: *mut I,
    ranks: *mut I,
) -> Result<Pending<D>> {
    let nv = S::Search::NV as usize;
    let dev = scan.device();
    let n = scan.len();
    let ctas = S::Search::MIN_CTAS_PER_SM;
    let launch = mgpu_partition::ObjectTileLaunch::new(dev, total as usize, n, nv, k, ctas)?;
    let error = ErrorWord::clean(dev)?;
    let mut args = LoadBalanceArgs::empty();
    (args.scan, args.num_objects, args.total) = (scan.as_ptr(), n as u64, total);
    (args.objects, args.ranks, args.error) = (objects, ranks, error.as_mut_ptr());
    (args.mode, args.object_tiles) = (MODE_OBJECTS, launch.list);
    // SAFETY: the outputs have `total` elements (checked by the callers), `error` and the
    // list's count are zeroed words, the list has room for every chunk: what
    // `device::load_balance` documents.
    unsafe {
        dev.launch::<S::Search>(launch.tiles as u32, &args)?;
        args.mode = MODE_SPILL;
        dev.launch_dependent::<S::Search>(launch.persistent as u32, &args)?;
    }
    Ok(Pending::new(error, &meaning(total)))
}

fn dispatch<D: Device, I: LoadBalanceIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: I,
    objects: *mut I,
    ranks: *mut I,
) -> Result<Pending<D>> {
    let total = Index::to_u64(total);
    mgpu_core::by_arch!(
        scan.device().arch(),
        I as LoadBalanceIndex,
        run::<D, I>(scan, total, objects, ranks)
    )
}

/// The load-balancing search (Modern GPU's `LoadBalanceSearch`, seed 001): `scan` is the
/// exclusive scan of `n` objects' work-item counts and `total` their sum; `output[i]`
/// becomes the object that generated work item `i`, `upper_bound(scan, i) - 1`, for every
/// `i < total`. It is the inverse of the scan: object `o` appears `counts[o]` times, in
/// order, and objects with no work items do not appear.
///
/// Dense scans (a mean count of at most `mgpu_partition::OBJECT_TILES_MAX_MEAN`) run in object tiles
/// (a fixed number of objects a tile, no partition search; `device::MODE_OBJECTS`);
/// others in two phases: the upper-bound Merge Path partitions of the work items against
/// the scan (`mgpu_partition::load_balance_partitions`), then one kernel that runs the
/// CTA load-balancing search on each tile. The kernel validates the scan as it reads it
/// and this function reads the verdict back: it **synchronises**.
///
/// # Errors
/// - [`Error::LengthMismatch`] when `output.len() != total`;
/// - [`Error::IndexOverflow`] when there are more objects than `I` can index
///   (`n - 1 > I::MAX`);
/// - [`Error::InvalidInput`] when `scan[0] != 0`, when the scan decreases anywhere, when
///   `scan[n - 1] > total` (the total disagrees with the scan), or when `total > 0` with
///   no objects. Then `output` holds unspecified values, but nothing outside it was
///   written and nothing outside `scan` read.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Error, Simulator};
/// let dev = Simulator::new();
/// // Counts 2, 5, 3, 0, 1.
/// let scan = DeviceVec::from_slice(&dev, &[0u32, 2, 7, 10, 10]).unwrap();
/// let mut out = DeviceVec::<u32, _>::zeros(&dev, 11).unwrap();
/// mgpu_loadbalance::load_balance_search(scan.as_slice(), 11, out.as_mut_slice()).unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
///
/// let bad = DeviceVec::from_slice(&dev, &[0u32, 7, 2, 10, 10]).unwrap();
/// assert!(matches!(
///     mgpu_loadbalance::load_balance_search(bad.as_slice(), 11, out.as_mut_slice()),
///     Err(Error::InvalidInput(_))
/// ));
/// ```
pub fn load_balance_search<D: Device, I: LoadBalanceIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: I,
    output: DeviceSliceMut<'_, I, D>,
) -> Result<()> {
    load_balance_search_into(scan, total, output)?.wait()
}

/// [`load_balance_search`] queued without synchronising: the returned
/// [`Pending`] reports invalid input when waited on. The form for pipelines and
/// benchmarks.
///
/// # Errors
/// At once: an output of the wrong length, more objects than `I` can index, work items
/// with no objects. From [`Pending::wait`]: the scan errors of
/// [`load_balance_search`].
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let scan = DeviceVec::from_slice(&dev, &[0u64, 0, 3]).unwrap();
/// let mut out = DeviceVec::<u64, _>::zeros(&dev, 4).unwrap();
/// mgpu_loadbalance::load_balance_search_into(scan.as_slice(), 4, out.as_mut_slice()).unwrap().wait().unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![1, 1, 1, 2]);
/// ```
pub fn load_balance_search_into<D: Device, I: LoadBalanceIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: I,
    mut output: DeviceSliceMut<'_, I, D>,
) -> Result<Pending<D>> {
    Error::check_len("output", Index::to_usize(total), output.len())?;
    dispatch(scan, total, output.as_mut_ptr(), null_mut())
}

/// [`load_balance_search`] that also writes each work item's rank in its object:
/// `ranks[i] = i - scan[objects[i]]` (the seed's work-item rank; the kernel reads the scan
/// value of the object before each tile for it). Synchronises.
///
/// # Errors
/// As [`load_balance_search`]; either output of a length other than `total` is
/// [`Error::LengthMismatch`].
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let scan = DeviceVec::from_slice(&dev, &[0u64, 2, 7, 10, 10]).unwrap();
/// let mut obj = DeviceVec::<u64, _>::zeros(&dev, 11).unwrap();
/// let mut rank = DeviceVec::<u64, _>::zeros(&dev, 11).unwrap();
/// mgpu_loadbalance::load_balance_search_ranks(scan.as_slice(), 11, obj.as_mut_slice(), rank.as_mut_slice()).unwrap();
/// assert_eq!(obj.to_vec().unwrap(), vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank.to_vec().unwrap(), vec![0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// ```
pub fn load_balance_search_ranks<D: Device, I: LoadBalanceIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: I,
    mut objects: DeviceSliceMut<'_, I, D>,
    mut ranks: DeviceSliceMut<'_, I, D>,
) -> Result<()> {
    Error::check_len("objects", Index::to_usize(total), objects.len())?;
    Error::check_len("ranks", Index::to_usize(total), ranks.len())?;
    dispatch(scan, total, objects.as_mut_ptr(), ranks.as_mut_ptr())?.wait()
}

/// The convenience form: scans `counts` (the objects' work-item counts) with
/// `mgpu_scan::scan_counts_exclusive` and runs [`load_balance_search`] on the result;
/// returns the objects of the work items (a new vector of `total` elements) and `total`.
/// Synchronises.
///
/// # Errors
/// [`Error::IndexOverflow`] when the counts sum past `I::MAX`; out of memory and device
/// errors.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Error, Simulator};
/// let dev = Simulator::new();
/// let counts = DeviceVec::from_slice(&dev, &[2u32, 5, 3, 0, 1]).unwrap();
/// let (obj, total) = mgpu_loadbalance::load_balance_search_counts(counts.as_slice()).unwrap();
/// assert_eq!(total, 11);
/// assert_eq!(obj.to_vec().unwrap(), vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
///
/// let huge = DeviceVec::from_slice(&dev, &[u32::MAX, 1]).unwrap();
/// assert!(matches!(
///     mgpu_loadbalance::load_balance_search_counts(huge.as_slice()),
///     Err(Error::IndexOverflow { .. })
/// ));
/// ```
#[allow(clippy::type_complexity)]
pub fn load_balance_search_counts<'a, D: Device, I: LoadBalanceIndex>(
    counts: DeviceSlice<'a, I, D>,
) -> Result<(DeviceVec<I, D>, I)>
where
    Plus: ScanOp<I>,
{
    let dev = counts.device();
    let mut scan = DeviceVec::<I, D>::uninit(dev, counts.len())?;
    let total = mgpu_scan::scan_counts_exclusive(counts, scan.as_mut_slice())?;
    let mut out = DeviceVec::<I, D>::uninit(dev, Index::to_usize(total))?;
    load_balance_search(scan.as_slice(), total, out.as_mut_slice())?;
    Ok((out, total))
}
