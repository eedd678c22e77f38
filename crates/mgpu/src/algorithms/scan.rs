//! Scan and reduce on any backend: `mgpu-scan` on a GPU device, `mgpu-cpu` on the host.

use crate::backend::{View, ViewMut};
use crate::buffer::{Buffer, BufferDevice};
use crate::Backend;
use mgpu_core::{Element, Index, Plus, Result};
use mgpu_runtime::DeviceVec;
use mgpu_scan::{ScanKind, ScanOp};

impl Backend {
    /// Exclusive scan (the seeds' `ScanExc`): a new buffer with
    /// `out[i] = x[0] op … op x[i-1]` (the operator's identity for `i = 0`), and the
    /// total `x[0] op … op x[n-1]` (the identity when `x` is empty). Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) if `input` belongs to another
    /// backend; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Plus};
    /// let backend = Backend::cpu();
    /// let x = backend.upload(&[1.5f64, 2.0, 0.5])?;
    /// let (scanned, total) = backend.scan_exclusive(&x, Plus)?;
    /// assert_eq!(scanned.to_vec()?, vec![0.0, 1.5, 3.5]);
    /// assert_eq!(total, 4.0);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn scan_exclusive<T: Element, Op: ScanOp<T>>(
        &self,
        input: &Buffer<T>,
        op: Op,
    ) -> Result<(Buffer<T>, T)> {
        self.scan(input, ScanKind::Exclusive, op)
    }

    /// Inclusive scan: a new buffer with `out[i] = x[0] op … op x[i]`, and the total.
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::scan_exclusive`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, BitXor};
    /// let backend = Backend::cpu();
    /// let x = backend.upload(&[1u32, 2, 4, 1])?;
    /// let (scanned, total) = backend.scan_inclusive(&x, BitXor)?;
    /// assert_eq!(scanned.to_vec()?, vec![1, 3, 7, 6]);
    /// assert_eq!(total, 6);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn scan_inclusive<T: Element, Op: ScanOp<T>>(
        &self,
        input: &Buffer<T>,
        op: Op,
    ) -> Result<(Buffer<T>, T)> {
        self.scan(input, ScanKind::Inclusive, op)
    }

    /// [`Backend::scan_exclusive`] in place; returns the total. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::scan_exclusive`]; a buffer of another backend is left untouched.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Multiplies};
    /// let backend = Backend::cpu();
    /// let mut x = backend.upload(&[2i32, 3, 4])?;
    /// assert_eq!(backend.scan_exclusive_in_place(&mut x, Multiplies)?, 24);
    /// assert_eq!(x.to_vec()?, vec![1, 2, 6]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn scan_exclusive_in_place<T: Element, Op: ScanOp<T>>(
        &self,
        data: &mut Buffer<T>,
        op: Op,
    ) -> Result<T> {
        self.scan_in_place(data, ScanKind::Exclusive, op)
    }

    /// [`Backend::scan_inclusive`] in place; returns the total. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::scan_exclusive`]; a buffer of another backend is left untouched.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Minimum};
    /// let backend = Backend::cpu();
    /// let mut x = backend.upload(&[5f32, 7.0, 2.0, 3.0])?;
    /// assert_eq!(backend.scan_inclusive_in_place(&mut x, Minimum)?, 2.0);
    /// assert_eq!(x.to_vec()?, vec![5.0, 5.0, 2.0, 2.0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn scan_inclusive_in_place<T: Element, Op: ScanOp<T>>(
        &self,
        data: &mut Buffer<T>,
        op: Op,
    ) -> Result<T> {
        self.scan_in_place(data, ScanKind::Inclusive, op)
    }

    /// The reduction `x[0] op … op x[n-1]` (the seeds' `Reduce`); the operator's identity
    /// when `x` is empty. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::scan_exclusive`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Maximum};
    /// let backend = Backend::cpu();
    /// assert_eq!(backend.reduce(&backend.upload(&[3u64, 9, 1])?, Maximum)?, 9);
    /// let empty = backend.upload::<f64>(&[])?;
    /// assert_eq!(backend.reduce(&empty, Maximum)?, f64::NEG_INFINITY);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn reduce<T: Element, Op: ScanOp<T>>(&self, input: &Buffer<T>, op: Op) -> Result<T> {
        match self.view(input, "input")? {
            View::Gpu(x) => mgpu_scan::reduce(x.as_slice(), op),
            View::Sim(x) => mgpu_scan::reduce(x.as_slice(), op),
            View::Host(x) => Ok(mgpu_cpu::reduce::<T, Op>(x)),
        }
    }

    /// The seeds' `Scan(counts)` into a new buffer: the exclusive sum scan of `counts`
    /// (counts become offsets) and the total. `I` is u32 (the seeds' `int`) or u64.
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::IndexOverflow`](crate::Error::IndexOverflow) when the total does not fit
    /// `I` (never a wrapped total); otherwise as [`Backend::scan_exclusive`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Error};
    /// let backend = Backend::cpu();
    /// let counts = backend.upload(&[3u32, 2, 5])?;
    /// let (offsets, total) = backend.scan_counts_exclusive(&counts)?;
    /// assert_eq!(offsets.to_vec()?, vec![0, 3, 5]);
    /// assert_eq!(total, 10);
    ///
    /// let too_many = backend.upload(&[u32::MAX, 1])?;
    /// assert!(matches!(
    ///     backend.scan_counts_exclusive(&too_many),
    ///     Err(Error::IndexOverflow { .. })
    /// ));
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn scan_counts_exclusive<I: Index>(&self, counts: &Buffer<I>) -> Result<(Buffer<I>, I)>
    where
        Plus: ScanOp<I>,
    {
        match self.view(counts, "counts")? {
            View::Gpu(x) => gpu_scan_counts(x),
            View::Sim(x) => gpu_scan_counts(x),
            View::Host(x) => {
                let mut out = vec![I::ZERO; x.len()];
                let total = mgpu_cpu::scan_counts_exclusive(x, &mut out)?;
                Ok((Buffer::Host(out), total))
            }
        }
    }

    /// The seeds' `Scan(counts)` in place: `counts` become their exclusive sum scan (the
    /// offsets), and the total is returned. `I` is u32 (the seeds' `int`) or u64.
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::IndexOverflow`](crate::Error::IndexOverflow) when the total does not fit
    /// `I` (never a wrapped total; the buffer's contents are then unspecified); otherwise
    /// as [`Backend::scan_exclusive`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let mut counts = backend.upload(&[1u64, 0, 4])?;
    /// assert_eq!(backend.scan_counts_exclusive_in_place(&mut counts)?, 5);
    /// assert_eq!(counts.to_vec()?, vec![0, 1, 1]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn scan_counts_exclusive_in_place<I: Index>(&self, counts: &mut Buffer<I>) -> Result<I>
    where
        Plus: ScanOp<I>,
    {
        match self.view_mut(counts, "counts")? {
            ViewMut::Gpu(x) => mgpu_scan::scan_counts_exclusive_in_place(x.as_mut_slice()),
            ViewMut::Sim(x) => mgpu_scan::scan_counts_exclusive_in_place(x.as_mut_slice()),
            ViewMut::Host(x) => mgpu_cpu::scan_counts_exclusive_in_place(x),
        }
    }

    /// A scan of `kind` into a new buffer, and the total.
    fn scan<T: Element, Op: ScanOp<T>>(
        &self,
        input: &Buffer<T>,
        kind: ScanKind,
        op: Op,
    ) -> Result<(Buffer<T>, T)> {
        match self.view(input, "input")? {
            View::Gpu(x) => gpu_scan(x, kind, op),
            View::Sim(x) => gpu_scan(x, kind, op),
            View::Host(x) => {
                let mut out = vec![T::ZERO; x.len()];
                let total = match kind {
                    ScanKind::Exclusive => mgpu_cpu::scan_exclusive::<T, Op>(x, &mut out)?,
                    ScanKind::Inclusive => mgpu_cpu::scan_inclusive::<T, Op>(x, &mut out)?,
                };
                Ok((Buffer::Host(out), total))
            }
        }
    }

    /// A scan of `kind` in place, returning the total.
    fn scan_in_place<T: Element, Op: ScanOp<T>>(
        &self,
        data: &mut Buffer<T>,
        kind: ScanKind,
        op: Op,
    ) -> Result<T> {
        match self.view_mut(data, "data")? {
            ViewMut::Gpu(x) => gpu_scan_in_place(x, kind, op),
            ViewMut::Sim(x) => gpu_scan_in_place(x, kind, op),
            ViewMut::Host(x) => Ok(match kind {
                ScanKind::Exclusive => mgpu_cpu::scan_exclusive_in_place::<T, Op>(x),
                ScanKind::Inclusive => mgpu_cpu::scan_inclusive_in_place::<T, Op>(x),
            }),
        }
    }
}

fn gpu_scan<D: BufferDevice, T: Element, Op: ScanOp<T>>(
    x: &DeviceVec<T, D>,
    kind: ScanKind,
    op: Op,
) -> Result<(Buffer<T>, T)> {
    let mut out = DeviceVec::uninit(x.device(), x.len())?;
    let total = match kind {
        ScanKind::Exclusive => mgpu_scan::scan_exclusive(x.as_slice(), out.as_mut_slice(), op)?,
        ScanKind::Inclusive => mgpu_scan::scan_inclusive(x.as_slice(), out.as_mut_slice(), op)?,
    };
    Ok((D::wrap(out), total))
}

fn gpu_scan_in_place<D: BufferDevice, T: Element, Op: ScanOp<T>>(
    x: &mut DeviceVec<T, D>,
    kind: ScanKind,
    op: Op,
) -> Result<T> {
    match kind {
        ScanKind::Exclusive => mgpu_scan::scan_exclusive_in_place(x.as_mut_slice(), op),
        ScanKind::Inclusive => mgpu_scan::scan_inclusive_in_place(x.as_mut_slice(), op),
    }
}

fn gpu_scan_counts<D: BufferDevice, I: Index>(x: &DeviceVec<I, D>) -> Result<(Buffer<I>, I)>
where
    Plus: ScanOp<I>,
{
    let mut out = DeviceVec::uninit(x.device(), x.len())?;
    let total = mgpu_scan::scan_counts_exclusive(x.as_slice(), out.as_mut_slice())?;
    Ok((D::wrap(out), total))
}
