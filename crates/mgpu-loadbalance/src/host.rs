//! Host launchers of the load-balancing search, generic over [`Device`].
//!
//! Two phases, as in the seed: `mgpu_partition::load_balance_partitions` finds the first
//! work item of every tile of `NV` merge steps (one thread per tile boundary), then one
//! launch of the search kernel maps each tile. The kernel validates the scan as it reads
//! it and raises a per-launch error word, which the launchers read back: they always
//! synchronise.

use crate::device::{LoadBalanceArgs, ERROR_FIRST, ERROR_TOTAL, ERROR_UNSORTED};
use crate::kernels::LoadBalanceIndex;
use mgpu_core::{Arch, Index, Kernel, Plus};
use mgpu_runtime::{Device, DeviceSlice, DeviceSliceMut, DeviceVec, Error, ErrorWord, Result};
use mgpu_scan::ScanOp;
use std::ptr::null_mut;

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected != got {
        return Err(Error::LengthMismatch {
            what,
            expected,
            got,
        });
    }
    Ok(())
}

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

/// The error a nonzero error word stands for.
fn error_of(word: u32, total: u64) -> Error {
    let why = if word & ERROR_FIRST != 0 {
        "scan[0] is not 0: the scan must be the exclusive scan of the counts".to_string()
    } else if word & ERROR_UNSORTED != 0 {
        "the scan is not non-decreasing".to_string()
    } else if word & ERROR_TOTAL != 0 {
        format!("the total {total} is less than the last scan value")
    } else {
        format!("unknown error word {word:#x}")
    };
    Error::InvalidInput(format!("load-balancing search: {why}"))
}

/// Partitions, one launch of `K`, and the error check (synchronises).
/// A queued load-balancing search whose input check is still on the device: the kernel's
/// error word. [`LoadBalanceCheck::wait`] synchronises and reports it; dropping it skips the
/// check (the launch still ran memory-safely).
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let scan = DeviceVec::from_slice(&dev, &[0u32, 2]).unwrap();
/// let mut out = DeviceVec::<u32, _>::zeros(&dev, 3).unwrap();
/// let pending = mgpu_loadbalance::load_balance_search_into(scan.as_slice(), 3, out.as_mut_slice()).unwrap();
/// pending.wait().unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![0, 0, 1]);
/// ```
#[must_use = "wait() reports invalid input"]
pub struct LoadBalanceCheck<D: Device> {
    error: ErrorWord<D>,
    total: u64,
}

impl<D: Device> LoadBalanceCheck<D> {
    /// Synchronises and reports what the kernel found wrong with the scan, if anything.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{DeviceVec, Error, Simulator};
    /// let dev = Simulator::new();
    /// let bad = DeviceVec::from_slice(&dev, &[0u32, 3, 1]).unwrap();
    /// let mut out = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
    /// let p = mgpu_loadbalance::load_balance_search_into(bad.as_slice(), 4, out.as_mut_slice()).unwrap();
    /// assert!(matches!(p.wait(), Err(Error::InvalidInput(_))));
    /// ```
    pub fn wait(self) -> Result<()> {
        let word = self.error.read()?;
        if word != 0 {
            return Err(error_of(word, self.total));
        }
        Ok(())
    }
}

fn run<D: Device, I: LoadBalanceIndex, K: Kernel<Args = LoadBalanceArgs<I>>>(
    scan: DeviceSlice<'_, I, D>,
    total: u64,
    nv: usize,
    objects: *mut I,
    ranks: *mut I,
) -> Result<LoadBalanceCheck<D>> {
    let dev = scan.device();
    let n = scan.len();
    if n == 0 {
        if total != 0 {
            return Err(Error::InvalidInput(format!(
                "load-balancing search: {total} work items but no objects"
            )));
        }
        return Ok(LoadBalanceCheck {
            error: ErrorWord::none(),
            total,
        });
    }
    objects_fit::<I>(n)?;
    let steps = total as usize + n;
    let grid = steps.div_ceil(nv);
    if grid > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "load-balancing search: {steps} merge steps are more than one launch can take"
        )));
    }
    // The search kernel is a dependent launch of the partitions' kernel, which is the last
    // thing queued before it and zeroes its error word (no memset).
    let error = ErrorWord::uncleared(dev)?;
    let mp = mgpu_partition::load_balance_partitions_clearing(scan, total as usize, nv, &error)?;
    let args = LoadBalanceArgs {
        scan: scan.as_ptr(),
        num_objects: n as u64,
        total,
        mp: mp.as_mut_ptr(),
        objects,
        ranks,
        error: error.as_mut_ptr(),
    };
    // SAFETY: `mp` has grid + 1 partitions, the outputs `total` elements (checked by the
    // callers), `error` one word: what `device::load_balance` documents.
    unsafe { dev.launch_dependent::<K>(grid as u32, &args)? };
    Ok(LoadBalanceCheck { error, total })
}

fn dispatch<D: Device, I: LoadBalanceIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: I,
    objects: *mut I,
    ranks: *mut I,
) -> Result<LoadBalanceCheck<D>> {
    let total = Index::to_u64(total);
    match scan.device().arch() {
        Arch::Sm90 => run::<D, I, I::Sm90>(scan, total, I::NV_SM90, objects, ranks),
        Arch::Sm70 => run::<D, I, I::Sm70>(scan, total, I::NV_SM70, objects, ranks),
    }
}

/// The load-balancing search (Modern GPU's `LoadBalanceSearch`, seed 001): `scan` is the
/// exclusive scan of `n` objects' work-item counts and `total` their sum; `output[i]`
/// becomes the object that generated work item `i`, `upper_bound(scan, i) - 1`, for every
/// `i < total`. It is the inverse of the scan: object `o` appears `counts[o]` times, in
/// order, and objects with no work items do not appear.
///
/// Two phases: the upper-bound Merge Path partitions of the work items against the scan
/// (`mgpu_partition::load_balance_partitions`), then one kernel that runs the CTA
/// load-balancing search on each tile. The kernel validates the scan as it reads it and
/// this function reads the verdict back: it **synchronises**.
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
/// [`LoadBalanceCheck`] reports invalid input when waited on. The form for pipelines and
/// benchmarks.
///
/// # Errors
/// At once: an output of the wrong length, more objects than `I` can index, work items
/// with no objects. From [`LoadBalanceCheck::wait`]: the scan errors of
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
) -> Result<LoadBalanceCheck<D>> {
    check_len("output", Index::to_usize(total), output.len())?;
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
    check_len("objects", Index::to_usize(total), objects.len())?;
    check_len("ranks", Index::to_usize(total), ranks.len())?;
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
