//! Host launchers of scan and reduce, generic over [`Device`].

use crate::device::{
    ordered_slots, ScanArgs, ERROR_OVERFLOW, FLAG_CHECK_MONOTONIC, FLAG_INCLUSIVE,
};
use crate::kernels::{KernelSet, ScanOp};
use mgpu_core::{Element, Index, Kernel, Plus};
use mgpu_ctascan::ScanKind;
use mgpu_runtime::{Device, DeviceSlice, DeviceSliceMut, Error, Result, Temp};
use std::ptr::null_mut;

/// One scan or reduction to queue.
struct Job<T> {
    input: *const T,
    output: *mut T,
    n: usize,
    flags: u32,
    /// Device address the total goes to.
    total: *mut T,
}

/// Queues the kernel of `job` with the kernel set `S` (of the device's architecture): the
/// scan (one launch, one CTA per tile) or the reduction (`reduce_only`). Returns the error
/// word when the job checks for overflow (integer look-back), for the caller to read.
fn queue<D: Device, T: Element, Op: ScanOp<T>, S: KernelSet<T>>(
    dev: &D,
    job: &Job<T>,
    reduce_only: bool,
) -> Result<Option<Temp<u32, D>>> {
    // The reduction's tiles and the scan's may differ (the ordered look-back's 8-byte
    // tiles are larger).
    let nv = if reduce_only {
        S::Partials::NV
    } else {
        S::Scan::NV
    } as usize;
    let tiles = job.n.div_ceil(nv);
    if tiles >= (1usize << 31) {
        return Err(Error::InvalidInput(format!(
            "{} elements is more than one launch can scan",
            job.n
        )));
    }
    let mut args = ScanArgs {
        input: job.input,
        output: job.output,
        n: job.n as u64,
        status: null_mut(),
        values: null_mut(),
        total: job.total,
        error: null_mut(),
        epoch: 0,
        flags: job.flags,
        tiles_per_cta: 0,
    };
    if reduce_only {
        // As many CTAs as fit, each publishing its partial in the epoch block, one word
        // per 32 bits of a partial.
        let max_grid = (dev.info().sm_count as usize * S::Partials::MIN_CTAS_PER_SM as usize).max(1);
        let per_cta = tiles.div_ceil(max_grid.min(tiles));
        let grid = tiles.div_ceil(per_cta);
        args.tiles_per_cta = per_cta as u32;
        let (status, epoch) = dev.pool().epoch_block(dev, grid * T::WORDS)?;
        args.status = status as *mut u64;
        args.epoch = epoch;
        // SAFETY: `status` holds a word per 32 bits of each CTA's partial.
        unsafe { dev.launch::<S::Partials>(grid as u32, &args)? };
        return Ok(None);
    }
    if job.flags & FLAG_CHECK_MONOTONIC != 0 && !Op::LOOKBACK {
        return Err(Error::InvalidInput(
            "the overflow check needs an integer scan".into(),
        ));
    }
    // The look-back publishes one status word per tile (8-byte values: aggregates and
    // inclusive prefixes in `values`); the ordered look-back one per 32 bits of a value,
    // for every tile, group and superblock.
    let (words, values) = if Op::LOOKBACK {
        (tiles, if T::WORDS == 2 { 2 * tiles } else { 0 })
    } else {
        (T::WORDS * ordered_slots(tiles as u64) as usize, 0)
    };
    let (status, epoch) = dev.pool().epoch_block(dev, words)?;
    let values = Temp::<T, D>::new(dev, values)?;
    args.status = status as *mut u64;
    args.epoch = epoch;
    args.values = values.as_mut_ptr();
    let error = if job.flags & FLAG_CHECK_MONOTONIC != 0 {
        Some(Temp::<u32, D>::zeroed(dev, 1)?)
    } else {
        None
    };
    if let Some(e) = &error {
        args.error = e.as_mut_ptr();
    }
    // SAFETY: the buffers are sized as `device::lookback` and `device::ordered` document.
    unsafe { dev.launch::<S::Scan>(tiles as u32, &args)? };
    Ok(error)
}

/// Dispatches on the device's architecture; returns the error word (see `queue`).
fn dispatch<D: Device, T: Element, Op: ScanOp<T>>(
    dev: &D,
    job: &Job<T>,
    reduce_only: bool,
) -> Result<Option<Temp<u32, D>>> {
    mgpu_core::by_arch!(
        dev.arch(),
        Op as ScanOp<T>,
        queue::<D, T, Op>(dev, job, reduce_only)
    )
}

fn flags(kind: ScanKind) -> u32 {
    match kind {
        ScanKind::Inclusive => FLAG_INCLUSIVE,
        ScanKind::Exclusive => 0,
    }
}

/// Reads one element from the device (synchronises).
fn read_one<D: Device, T: Copy + 'static>(dev: &D, p: *mut T) -> Result<T> {
    // SAFETY: p addresses one element on `dev`.
    let v = unsafe { DeviceSlice::<T, D>::from_raw(dev, p as u64, 1) }.to_vec()?;
    Ok(v[0])
}

/// Queues a scan of `input` into `output` and, if given, writes the total (the reduction of
/// the whole input) to `total[0]` on the device. Asynchronous: nothing is read back, so it
/// costs no synchronisation (the form for pipelines and benchmarks).
///
/// # Errors
/// `output` or `total` of the wrong length.
///
/// # Examples
///
/// ```
/// use mgpu_core::Maximum;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// use mgpu_scan::{scan_into, ScanKind};
/// let dev = Simulator::new();
/// let x = DeviceVec::from_slice(&dev, &[3i64, -1, 7, 2]).unwrap();
/// let mut y = DeviceVec::<i64, _>::zeros(&dev, 4).unwrap();
/// let mut t = DeviceVec::<i64, _>::zeros(&dev, 1).unwrap();
/// scan_into(x.as_slice(), y.as_mut_slice(), ScanKind::Inclusive, Some(t.as_mut_slice()), Maximum).unwrap();
/// assert_eq!(y.to_vec().unwrap(), vec![3, 3, 7, 7]);
/// assert_eq!(t.to_vec().unwrap(), vec![7]);
/// ```
pub fn scan_into<D: Device, T: Element, Op: ScanOp<T>>(
    input: DeviceSlice<'_, T, D>,
    mut output: DeviceSliceMut<'_, T, D>,
    kind: ScanKind,
    total: Option<DeviceSliceMut<'_, T, D>>,
    _op: Op,
) -> Result<()> {
    Error::check_len("output", input.len(), output.len())?;
    let dev = input.device();
    let total_ptr = match total {
        Some(mut t) if t.len() == 1 => t.as_mut_ptr(),
        Some(t) => {
            return Err(Error::LengthMismatch {
                what: "total",
                expected: 1,
                got: t.len(),
            })
        }
        None => null_mut(),
    };
    if input.is_empty() {
        if !total_ptr.is_null() {
            let id = [Op::identity()];
            // SAFETY: total_ptr addresses one element.
            unsafe {
                dev.copy_htod(
                    total_ptr as u64,
                    id.as_ptr() as *const u8,
                    std::mem::size_of::<T>(),
                )?
            };
        }
        return Ok(());
    }
    let scratch;
    let total_ptr = if total_ptr.is_null() {
        scratch = Temp::<T, D>::new(dev, 1)?;
        scratch.as_mut_ptr()
    } else {
        total_ptr
    };
    let job = Job {
        input: input.as_ptr(),
        output: output.as_mut_ptr(),
        n: input.len(),
        flags: flags(kind),
        total: total_ptr,
    };
    dispatch::<D, T, Op>(dev, &job, false)?;
    Ok(())
}

/// Scans `input` into `output` and returns the total. Synchronises (reads the total back).
fn scan_sync<D: Device, T: Element, Op: ScanOp<T>>(
    dev: &D,
    input: *const T,
    output: *mut T,
    n: usize,
    flags: u32,
) -> Result<T> {
    if n == 0 {
        return Ok(Op::identity());
    }
    let total = Temp::<T, D>::new(dev, 1)?;
    let job = Job {
        input,
        output,
        n,
        flags,
        total: total.as_mut_ptr(),
    };
    let error = dispatch::<D, T, Op>(dev, &job, false)?;
    let t = read_one(dev, total.as_mut_ptr())?;
    if flags & FLAG_CHECK_MONOTONIC != 0 {
        let error = error.expect("the overflow check runs on the look-back path");
        if read_one(dev, error.as_mut_ptr())? & ERROR_OVERFLOW != 0 {
            return Err(Error::IndexOverflow {
                what: "scan total",
                max: u64::MAX,
            });
        }
    }
    Ok(t)
}

/// [`scan_sync`] from `input` into `output`, which must have the same length.
fn scan_slices<D: Device, T: Element, Op: ScanOp<T>>(
    input: DeviceSlice<'_, T, D>,
    mut output: DeviceSliceMut<'_, T, D>,
    flags: u32,
) -> Result<T> {
    Error::check_len("output", input.len(), output.len())?;
    scan_sync::<D, T, Op>(
        input.device(),
        input.as_ptr(),
        output.as_mut_ptr(),
        input.len(),
        flags,
    )
}

/// Exclusive scan: `output[i] = input[0] op ... op input[i-1]` (the identity for `i = 0`).
/// Returns the total, the reduction of the whole input (synchronises).
///
/// The seeds' `ScanExc`. `input` and `output` have the same length, else
/// [`Error::LengthMismatch`].
///
/// # Examples
///
/// ```
/// use mgpu_core::Plus;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let x = DeviceVec::from_slice(&dev, &[1.5f64, 2.0, 0.5]).unwrap();
/// let mut y = DeviceVec::<f64, _>::zeros(&dev, 3).unwrap();
/// let total = mgpu_scan::scan_exclusive(x.as_slice(), y.as_mut_slice(), Plus).unwrap();
/// assert_eq!(total, 4.0);
/// assert_eq!(y.to_vec().unwrap(), vec![0.0, 1.5, 3.5]);
/// ```
pub fn scan_exclusive<D: Device, T: Element, Op: ScanOp<T>>(
    input: DeviceSlice<'_, T, D>,
    output: DeviceSliceMut<'_, T, D>,
    _op: Op,
) -> Result<T> {
    scan_slices::<D, T, Op>(input, output, 0)
}

/// Inclusive scan: `output[i] = input[0] op ... op input[i]`. Returns the total
/// (synchronises).
///
/// # Examples
///
/// ```
/// use mgpu_core::BitXor;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let x = DeviceVec::from_slice(&dev, &[1u32, 2, 4, 1]).unwrap();
/// let mut y = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
/// assert_eq!(mgpu_scan::scan_inclusive(x.as_slice(), y.as_mut_slice(), BitXor).unwrap(), 6);
/// assert_eq!(y.to_vec().unwrap(), vec![1, 3, 7, 6]);
/// ```
pub fn scan_inclusive<D: Device, T: Element, Op: ScanOp<T>>(
    input: DeviceSlice<'_, T, D>,
    output: DeviceSliceMut<'_, T, D>,
    _op: Op,
) -> Result<T> {
    scan_slices::<D, T, Op>(input, output, FLAG_INCLUSIVE)
}

/// Exclusive scan in place; returns the total (synchronises).
///
/// # Examples
///
/// ```
/// use mgpu_core::Multiplies;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let mut x = DeviceVec::from_slice(&dev, &[2i32, 3, 4]).unwrap();
/// assert_eq!(mgpu_scan::scan_exclusive_in_place(x.as_mut_slice(), Multiplies).unwrap(), 24);
/// assert_eq!(x.to_vec().unwrap(), vec![1, 2, 6]);
/// ```
pub fn scan_exclusive_in_place<D: Device, T: Element, Op: ScanOp<T>>(
    mut data: DeviceSliceMut<'_, T, D>,
    _op: Op,
) -> Result<T> {
    let p = data.as_mut_ptr();
    scan_sync::<D, T, Op>(data.device(), p, p, data.len(), 0)
}

/// Inclusive scan in place; returns the total (synchronises).
///
/// # Examples
///
/// ```
/// use mgpu_core::Minimum;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let mut x = DeviceVec::from_slice(&dev, &[5f32, 7.0, 2.0, 3.0]).unwrap();
/// assert_eq!(mgpu_scan::scan_inclusive_in_place(x.as_mut_slice(), Minimum).unwrap(), 2.0);
/// assert_eq!(x.to_vec().unwrap(), vec![5.0, 5.0, 2.0, 2.0]);
/// ```
pub fn scan_inclusive_in_place<D: Device, T: Element, Op: ScanOp<T>>(
    mut data: DeviceSliceMut<'_, T, D>,
    _op: Op,
) -> Result<T> {
    let p = data.as_mut_ptr();
    scan_sync::<D, T, Op>(data.device(), p, p, data.len(), FLAG_INCLUSIVE)
}

/// The reduction `input[0] op ... op input[n-1]` (the identity when empty). Synchronises.
///
/// # Examples
///
/// ```
/// use mgpu_core::Maximum;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let x = DeviceVec::from_slice(&dev, &[3u64, 9, 1]).unwrap();
/// assert_eq!(mgpu_scan::reduce(x.as_slice(), Maximum).unwrap(), 9);
/// ```
pub fn reduce<D: Device, T: Element, Op: ScanOp<T>>(
    input: DeviceSlice<'_, T, D>,
    _op: Op,
) -> Result<T> {
    let dev = input.device();
    if input.is_empty() {
        return Ok(Op::identity());
    }
    let total = Temp::<T, D>::new(dev, 1)?;
    reduce_raw::<D, T, Op>(dev, &input, total.as_mut_ptr())?;
    read_one(dev, total.as_mut_ptr())
}

/// Queues the reduction of `input` into `out[0]` on the device (asynchronous).
///
/// # Examples
///
/// ```
/// use mgpu_core::Plus;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let x = DeviceVec::from_slice(&dev, &[1i32; 1000]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 1).unwrap();
/// mgpu_scan::reduce_into(x.as_slice(), out.as_mut_slice(), Plus).unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![1000]);
/// ```
pub fn reduce_into<D: Device, T: Element, Op: ScanOp<T>>(
    input: DeviceSlice<'_, T, D>,
    mut out: DeviceSliceMut<'_, T, D>,
    _op: Op,
) -> Result<()> {
    if out.len() != 1 {
        return Err(Error::LengthMismatch {
            what: "reduction output",
            expected: 1,
            got: out.len(),
        });
    }
    let dev = input.device();
    if input.is_empty() {
        return out.copy_from_host(&[Op::identity()]);
    }
    reduce_raw::<D, T, Op>(dev, &input, out.as_mut_ptr())
}

fn reduce_raw<D: Device, T: Element, Op: ScanOp<T>>(
    dev: &D,
    input: &DeviceSlice<'_, T, D>,
    total: *mut T,
) -> Result<()> {
    let job = Job {
        input: input.as_ptr(),
        output: null_mut(),
        n: input.len(),
        flags: 0,
        total,
    };
    dispatch::<D, T, Op>(dev, &job, true).map(|_| ())
}

fn index_overflow<I: Index>(e: Error) -> Error {
    match e {
        Error::IndexOverflow { what, .. } => Error::IndexOverflow {
            what,
            max: I::MAX.to_u64(),
        },
        e => e,
    }
}

/// The seeds' `Scan(counts)`: exclusive sum scan of counts, returning the total. A total
/// that does not fit `I` is [`Error::IndexOverflow`], never a wrapped value (then
/// `output` holds wrapped partial sums). Synchronises.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Error, Simulator};
/// let dev = Simulator::new();
/// let c = DeviceVec::from_slice(&dev, &[3u32, 2, 5]).unwrap();
/// let mut s = DeviceVec::<u32, _>::zeros(&dev, 3).unwrap();
/// assert_eq!(mgpu_scan::scan_counts_exclusive(c.as_slice(), s.as_mut_slice()).unwrap(), 10);
/// assert_eq!(s.to_vec().unwrap(), vec![0, 3, 5]);
///
/// let big = DeviceVec::from_slice(&dev, &[u32::MAX, 1]).unwrap();
/// let mut s = DeviceVec::<u32, _>::zeros(&dev, 2).unwrap();
/// assert!(matches!(
///     mgpu_scan::scan_counts_exclusive(big.as_slice(), s.as_mut_slice()),
///     Err(Error::IndexOverflow { .. })
/// ));
/// ```
pub fn scan_counts_exclusive<D: Device, I: Index>(
    counts: DeviceSlice<'_, I, D>,
    output: DeviceSliceMut<'_, I, D>,
) -> Result<I>
where
    Plus: ScanOp<I>,
{
    scan_slices::<D, I, Plus>(counts, output, FLAG_CHECK_MONOTONIC).map_err(index_overflow::<I>)
}

/// [`scan_counts_exclusive`] in place.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let mut c = DeviceVec::from_slice(&dev, &[1u64, 0, 4]).unwrap();
/// assert_eq!(mgpu_scan::scan_counts_exclusive_in_place(c.as_mut_slice()).unwrap(), 5);
/// assert_eq!(c.to_vec().unwrap(), vec![0, 1, 1]);
/// ```
pub fn scan_counts_exclusive_in_place<D: Device, I: Index>(
    mut counts: DeviceSliceMut<'_, I, D>,
) -> Result<I>
where
    Plus: ScanOp<I>,
{
    let p = counts.as_mut_ptr();
    scan_sync::<D, I, Plus>(counts.device(), p, p, counts.len(), FLAG_CHECK_MONOTONIC)
        .map_err(index_overflow::<I>)
}
