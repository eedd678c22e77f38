//! Bulk remove and bulk insert on any backend: `mgpu-bulk` on a GPU device, `mgpu-cpu` on
//! the host.

use super::{foreign, host, pick, pick_mut, Pick};
use crate::buffer::Buffer;
use crate::Backend;
use mgpu_bulk::{BulkData, BulkElement, BulkIndex, Source};
#[cfg(doc)]
use mgpu_core::Error; // the errors the docs name
use mgpu_core::Result;
use mgpu_core::Sequence;
use mgpu_runtime::{Context, Simulator};

/// Indices or values of a bulk operation on a [`Backend`]: a buffer, or the generated
/// sequence `first + step * k` of `len` elements (the seeds' `counting_iterator` and
/// `step_iterator`; wrapping for integer values, while generated indices must not wrap).
///
/// # Examples
///
/// ```
/// use mgpu::{Backend, BulkSource};
/// let backend = Backend::cpu();
/// let idx = backend.upload(&[1u32, 2])?;
/// let a: BulkSource<'_, u32> = (&idx).into();
/// assert_eq!(a.len(), 2);
/// assert_eq!(BulkSource::step(2u32, 5, 20).len(), 20);
/// # Ok::<(), mgpu::Error>(())
/// ```
pub enum BulkSource<'a, T: Copy + 'static> {
    /// A buffer of the backend.
    Buffer(&'a Buffer<T>),
    /// The generated sequence `first + step * k`, `k < len`.
    Sequence {
        /// Element 0.
        first: T,
        /// Difference between consecutive elements.
        step: T,
        /// Number of elements.
        len: usize,
    },
}

impl<T: BulkData> BulkSource<'_, T> {
    /// `first, first + 1, ...` (`len` elements).
    ///
    /// # Examples
    ///
    /// ```
    /// let s = mgpu::BulkSource::counting(7u64, 3);
    /// assert!(matches!(s, mgpu::BulkSource::Sequence { first: 7, step: 1, len: 3 }));
    /// ```
    pub fn counting(first: T, len: usize) -> Self {
        BulkSource::Sequence {
            first,
            step: T::ONE,
            len,
        }
    }

    /// `first, first + step, ...` (`len` elements).
    ///
    /// # Examples
    ///
    /// ```
    /// let s = mgpu::BulkSource::step(1000i32, 10, 20);
    /// assert!(matches!(s, mgpu::BulkSource::Sequence { first: 1000, step: 10, len: 20 }));
    /// ```
    pub fn step(first: T, step: T, len: usize) -> Self {
        BulkSource::Sequence { first, step, len }
    }
}

impl<T: Copy + 'static> BulkSource<'_, T> {
    /// Number of elements.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(mgpu::BulkSource::counting(0i32, 4).len(), 4);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            BulkSource::Buffer(b) => b.len(),
            BulkSource::Sequence { len, .. } => *len,
        }
    }

    /// Whether it has no elements.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(mgpu::BulkSource::counting(0i32, 0).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, T: Copy + 'static> From<&'a Buffer<T>> for BulkSource<'a, T> {
    fn from(b: &'a Buffer<T>) -> Self {
        BulkSource::Buffer(b)
    }
}

fn device_source<'a, D: Pick, T: BulkData>(s: &BulkSource<'a, T>) -> Result<Source<'a, T, D>> {
    Ok(match s {
        BulkSource::Buffer(b) => Source::Array(pick(b)?),
        BulkSource::Sequence { first, step, .. } => Source::step(*first, *step),
    })
}

fn host_vec<T: Sequence>(s: &BulkSource<'_, T>) -> Result<Vec<T>> {
    match s {
        BulkSource::Buffer(Buffer::Host(v)) => Ok(v.clone()),
        BulkSource::Buffer(_) => Err(foreign()),
        BulkSource::Sequence { first, step, len } => Ok((0..*len as u64)
            .map(|k| T::sequence(*first, *step, k))
            .collect()),
    }
}

fn gpu_remove<D: Pick, T: BulkData + BulkElement<I>, I: BulkIndex>(
    source: &Buffer<T>,
    indices: &BulkSource<'_, I>,
    out: &mut Buffer<T>,
) -> Result<()> {
    let i = device_source::<D, I>(indices)?;
    mgpu_bulk::bulk_remove(pick(source)?, i, pick_mut(out)?)
}

fn gpu_insert<D: Pick, T: BulkData + BulkElement<I>, I: BulkIndex>(
    values: &BulkSource<'_, T>,
    indices: &BulkSource<'_, I>,
    source: &Buffer<T>,
    out: &mut Buffer<T>,
) -> Result<()> {
    let v = device_source::<D, T>(values)?;
    let i = device_source::<D, I>(indices)?;
    mgpu_bulk::bulk_insert(v, i, pick(source)?, pick_mut(out)?)
}

impl Backend {
    fn check_source<T: Copy + 'static>(&self, s: &BulkSource<'_, T>, what: &str) -> Result<()> {
        if let BulkSource::Buffer(b) = s {
            self.view(b, what)?;
        }
        Ok(())
    }

    /// Bulk remove (the seeds' `BulkRemove`, seed 003): returns `source` without the
    /// elements at `indices` (sorted, unique, each below `source.len()`), a new buffer of
    /// `source.len() - indices.len()` elements. `I` is u32 (the seeds' `int`) or u64.
    /// Synchronises (the indices are validated on the device and the verdict read back).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the indices are not strictly increasing or one is out of
    /// range, or a buffer belongs to another backend; [`Error::LengthMismatch`] when there
    /// are more indices than elements; [`Error::IndexOverflow`] when `source.len()` does not
    /// fit `I`; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// The seed's comment example: indices 1, 3, 4, 5, 7, 8 of 10 elements leave A0 A2 A6 A9.
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let source = backend.upload(&[10i32, 11, 12, 13, 14, 15, 16, 17, 18, 19])?;
    /// let indices = backend.upload(&[1u32, 3, 4, 5, 7, 8])?;
    /// let out = backend.bulk_remove(&source, (&indices).into())?;
    /// assert_eq!(out.to_vec()?, vec![10, 12, 16, 19]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn bulk_remove<T, I>(
        &self,
        source: &Buffer<T>,
        indices: BulkSource<'_, I>,
    ) -> Result<Buffer<T>>
    where
        T: BulkData + BulkElement<I> + Sequence,
        I: BulkIndex + Sequence,
    {
        self.view(source, "source")?;
        self.check_source(&indices, "indices")?;
        let (n, m) = (source.len(), indices.len());
        mgpu_core::checks::bulk_remove::<I>(n, m, None)?; // before allocating
        if let BulkSource::Sequence { first, step, len } = indices {
            mgpu_core::checks::bulk_remove_sequence(first, step, len, n)?;
        }
        let mut out = self.zeros::<T>(n - m)?;
        match &mut out {
            Buffer::Cuda(_) => gpu_remove::<Context, T, I>(source, &indices, &mut out)?,
            Buffer::Simulator(_) => gpu_remove::<Simulator, T, I>(source, &indices, &mut out)?,
            Buffer::Host(o) => mgpu_cpu::bulk_remove(host(source)?, &host_vec(&indices)?, o)?,
        }
        Ok(out)
    }

    /// Bulk insert (the seeds' `BulkInsert`, seed 003): returns `source` with `values[k]`
    /// inserted before position `indices[k]` (sorted, duplicates allowed, each at most
    /// `source.len()`, which appends), a new buffer of `source.len() + values.len()`
    /// elements. Values with equal indices keep their order and come before the source
    /// element at that index. Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the indices are not non-decreasing or one is past
    /// `source.len()`, or a buffer belongs to another backend; [`Error::LengthMismatch`]
    /// when `values` and `indices` differ in length; [`Error::IndexOverflow`] when
    /// `source.len()` does not fit `I`; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// The seed's comment example: indices 1, 1, 2, 3, 3 into 3 elements give
    /// B0 A0 A1 B1 A2 B2 A3 A4.
    ///
    /// ```
    /// use mgpu::{Backend, BulkSource};
    /// let backend = Backend::cpu();
    /// let source = backend.upload(&[0i32, 1, 2])?;
    /// let indices = backend.upload(&[1u32, 1, 2, 3, 3])?;
    /// let out = backend.bulk_insert(BulkSource::counting(100, 5), (&indices).into(), &source)?;
    /// assert_eq!(out.to_vec()?, vec![0, 100, 101, 1, 102, 2, 103, 104]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn bulk_insert<T, I>(
        &self,
        values: BulkSource<'_, T>,
        indices: BulkSource<'_, I>,
        source: &Buffer<T>,
    ) -> Result<Buffer<T>>
    where
        T: BulkData + BulkElement<I> + Sequence,
        I: BulkIndex + Sequence,
    {
        self.view(source, "source")?;
        self.check_source(&values, "values")?;
        self.check_source(&indices, "indices")?;
        let (n, m) = (source.len(), values.len());
        mgpu_core::checks::bulk_insert::<I>(n, m, indices.len(), None)?; // before allocating
        if let BulkSource::Sequence { first, step, len } = indices {
            mgpu_core::checks::bulk_insert_sequence(first, step, len, n)?;
        }
        let mut out = self.zeros::<T>(n + m)?;
        match &mut out {
            Buffer::Cuda(_) => gpu_insert::<Context, T, I>(&values, &indices, source, &mut out)?,
            Buffer::Simulator(_) => {
                gpu_insert::<Simulator, T, I>(&values, &indices, source, &mut out)?
            }
            Buffer::Host(o) => {
                mgpu_cpu::bulk_insert(&host_vec(&values)?, &host_vec(&indices)?, host(source)?, o)?
            }
        }
        Ok(out)
    }
}
