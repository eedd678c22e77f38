//! Interval expand, move, gather and scatter on any backend: `mgpu-intervalmove` on a GPU
//! device, `mgpu-cpu` on the host.

use super::{host, pick, pick_mut, Pick};
use crate::buffer::Buffer;
use crate::Backend;
use mgpu_core::Sequence;
use mgpu_core::{Element, Error, Result};
use mgpu_cpu::intervalmove as cpu;
use mgpu_intervalmove::{IntervalData, IntervalElement, IntervalIndex, Source};
use mgpu_runtime::{Context, Simulator};

/// Where interval data comes from on a [`Backend`]: a buffer, or the generated sequence
/// `first + step * position` (the seeds' `counting_iterator`; wrapping for integers): the
/// one [`mgpu_core::Source`] with buffers.
///
/// # Examples
///
/// ```
/// use mgpu::{Backend, IntervalSource};
/// let backend = Backend::cpu();
/// let values = backend.upload(&[1i32, 2])?;
/// let a: IntervalSource<'_, i32> = (&values).into();
/// assert!(matches!(a, IntervalSource::Array(_)));
/// assert!(matches!(IntervalSource::counting(3i32), IntervalSource::Sequence { first: 3, step: 1 }));
/// # Ok::<(), mgpu::Error>(())
/// ```
pub type IntervalSource<'a, T> = mgpu_core::Source<&'a Buffer<T>, T>;

impl<'a, T: Copy + 'static> From<&'a Buffer<T>> for IntervalSource<'a, T> {
    fn from(b: &'a Buffer<T>) -> Self {
        IntervalSource::Array(b)
    }
}

/// The operation, with the gather and scatter starts it reads.
#[derive(Clone, Copy)]
enum Op<'a, I: Copy + 'static> {
    Expand,
    Naive,
    Move(&'a Buffer<I>, &'a Buffer<I>),
    Gather(&'a Buffer<I>),
    Scatter(&'a Buffer<I>),
}

impl<'a, I: Copy + 'static> Op<'a, I> {
    fn gather(self) -> Option<&'a Buffer<I>> {
        match self {
            Op::Move(g, _) | Op::Gather(g) => Some(g),
            _ => None,
        }
    }

    fn scatter(self) -> Option<&'a Buffer<I>> {
        match self {
            Op::Move(_, s) | Op::Scatter(s) => Some(s),
            _ => None,
        }
    }
}

fn gpu<D: Pick, T: IntervalData + IntervalElement<I>, I: IntervalIndex>(
    op: Op<'_, I>,
    scan: &Buffer<I>,
    total: usize,
    input: IntervalSource<'_, T>,
    output: &mut Buffer<T>,
) -> Result<()> {
    use mgpu_intervalmove as im;
    let s = pick::<D, I>(scan)?;
    let src: Source<'_, T, D> = input.try_map_array(pick::<D, T>)?;
    let out = pick_mut::<D, T>(output)?;
    match op {
        Op::Expand => im::interval_expand(s, total, src, out),
        Op::Naive => im::interval_expand_naive(s, total, src, out),
        Op::Move(g, sc) => im::interval_move(s, total, pick(g)?, pick(sc)?, src, out),
        Op::Gather(g) => im::interval_gather(s, total, pick(g)?, src, out),
        Op::Scatter(sc) => im::interval_scatter(s, total, pick(sc)?, src, out),
    }
}

impl Backend {
    fn interval_op<T, I>(
        &self,
        op: Op<'_, I>,
        scan: &Buffer<I>,
        total: usize,
        input: IntervalSource<'_, T>,
        output: &mut Buffer<T>,
    ) -> Result<()>
    where
        T: IntervalData + IntervalElement<I> + Sequence,
        I: IntervalIndex,
    {
        self.view(scan, "scan")?;
        if let Some(g) = op.gather() {
            self.view(g, "gather")?;
        }
        if let Some(s) = op.scatter() {
            self.view(s, "scatter")?;
        }
        if let IntervalSource::Array(b) = &input {
            self.view(b, "input")?;
        }
        self.view_mut(output, "output")?;
        match output {
            Buffer::Cuda(_) => gpu::<Context, T, I>(op, scan, total, input, output),
            Buffer::Simulator(_) => gpu::<Simulator, T, I>(op, scan, total, input, output),
            Buffer::Host(out) => {
                let s = host(scan)?;
                let src: cpu::Source<'_, T> = input.try_map_array(host)?;
                if matches!(op, Op::Expand | Op::Naive | Op::Gather(_)) && out.len() != total {
                    return Err(Error::LengthMismatch {
                        what: "output (one per output item)",
                        expected: total,
                        got: out.len(),
                    });
                }
                match op {
                    Op::Expand | Op::Naive => cpu::interval_expand(s, src, out),
                    Op::Move(g, sc) => cpu::interval_move(s, total, host(g)?, host(sc)?, src, out),
                    Op::Gather(g) => cpu::interval_gather(s, host(g)?, src, out),
                    Op::Scatter(sc) => cpu::interval_scatter(s, total, host(sc)?, src, out),
                }
            }
        }
    }

    /// [`Backend::interval_op`] into a new buffer of `total` elements.
    fn interval_new<T, I>(
        &self,
        op: Op<'_, I>,
        scan: &Buffer<I>,
        total: usize,
        input: IntervalSource<'_, T>,
    ) -> Result<Buffer<T>>
    where
        T: IntervalData + IntervalElement<I> + Sequence,
        I: IntervalIndex,
    {
        // Before the allocation: a total past `I` is an error, not a huge allocation.
        Error::check_fits::<I>(mgpu_intervalmove::INTERVAL_TOTAL, total)?;
        let mut out = self.zeros::<T>(total)?;
        self.interval_op(op, scan, total, input, &mut out)?;
        Ok(out)
    }

    /// Interval expand (the seeds' `IntervalExpand`, seed 000): `scan` is the exclusive scan
    /// of the intervals' counts and `total` their sum; returns a new buffer of `total`
    /// elements where item `i` is `values[object(i)]`, the value of the interval that
    /// generated it. `I` is u32 (the seeds' `int`) or u64. Synchronises (the input is
    /// validated on the device and the verdict read back).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when the scan does not start at 0, decreases, or passes
    /// `total`, or a buffer belongs to another backend; [`Error::LengthMismatch`] when
    /// `values` is not one per interval; [`Error::IndexOverflow`] when `total` does not fit
    /// `I`; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u32, 1, 3, 4, 4, 8, 10, 13, 13])?;
    /// let values = backend.upload(&[0i32, 1, 2, 3, 4, 5, 6, 7, 8])?;
    /// let out = backend.interval_expand(&scan, 15, (&values).into())?;
    /// assert_eq!(out.to_vec()?, vec![0, 1, 1, 2, 4, 4, 4, 4, 5, 5, 6, 6, 6, 8, 8]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn interval_expand<T, I>(
        &self,
        scan: &Buffer<I>,
        total: usize,
        values: IntervalSource<'_, T>,
    ) -> Result<Buffer<T>>
    where
        T: IntervalData + IntervalElement<I> + Sequence,
        I: IntervalIndex,
    {
        self.interval_new(Op::Expand, scan, total, values)
    }

    /// [`Backend::interval_expand`] by the naive kernel, one GPU thread per interval (the
    /// seed's "miserably unsatisfying" version; the benchmark's baseline). Same result; on
    /// the CPU backend the same code as `interval_expand`. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::interval_expand`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, IntervalSource};
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u64, 2])?;
    /// let out = backend.interval_expand_naive(&scan, 3, IntervalSource::counting(10u32))?;
    /// assert_eq!(out.to_vec()?, vec![10, 10, 11]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn interval_expand_naive<T, I>(
        &self,
        scan: &Buffer<I>,
        total: usize,
        values: IntervalSource<'_, T>,
    ) -> Result<Buffer<T>>
    where
        T: IntervalData + IntervalElement<I> + Sequence,
        I: IntervalIndex,
    {
        self.interval_new(Op::Naive, scan, total, values)
    }

    /// Interval move (the seeds' `IntervalMove`): for interval `j` with `count[j]` elements
    /// (from `scan` and `total`), `output[scatter[j] + r] = input[gather[j] + r]`. Output
    /// elements no interval covers keep their values. Overlapping destination intervals are
    /// memory-safe: each overlapped element gets the value of one of its writers,
    /// unspecified which (on the CPU backend, the later interval). Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::interval_expand`]; also a gather range outside `input` or a scatter
    /// range outside `output` ([`Error::InvalidInput`]; the elements inside are copied).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, IntervalSource};
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u32, 2])?; // counts 2, 1
    /// let gather = backend.upload(&[10u32, 20])?;
    /// let scatter = backend.upload(&[1u32, 0])?;
    /// let mut out = backend.zeros::<i32>(4)?;
    /// backend.interval_move(&scan, 3, &gather, &scatter, IntervalSource::counting(0), &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![20, 10, 11, 0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn interval_move<T, I>(
        &self,
        scan: &Buffer<I>,
        total: usize,
        gather: &Buffer<I>,
        scatter: &Buffer<I>,
        input: IntervalSource<'_, T>,
        output: &mut Buffer<T>,
    ) -> Result<()>
    where
        T: IntervalData + IntervalElement<I> + Sequence,
        I: IntervalIndex,
    {
        self.interval_op(Op::Move(gather, scatter), scan, total, input, output)
    }

    /// Interval gather (the seeds' `IntervalGather`): returns a new buffer of `total`
    /// elements where interval `j` is copied from `input[gather[j]..]` to `scan[j]..`.
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::interval_move`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u32, 2])?;
    /// let gather = backend.upload(&[3u32, 0])?;
    /// let input = backend.upload(&[0.5f64, 1.5, 2.5, 3.5, 4.5])?;
    /// let out = backend.interval_gather(&scan, 3, &gather, (&input).into())?;
    /// assert_eq!(out.to_vec()?, vec![3.5, 4.5, 0.5]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn interval_gather<T, I>(
        &self,
        scan: &Buffer<I>,
        total: usize,
        gather: &Buffer<I>,
        input: IntervalSource<'_, T>,
    ) -> Result<Buffer<T>>
    where
        T: IntervalData + IntervalElement<I> + Sequence + Element,
        I: IntervalIndex,
    {
        self.interval_new(Op::Gather(gather), scan, total, input)
    }

    /// Interval scatter (the seeds' `IntervalScatter`): interval `j` is read from
    /// `input[scan[j]..]` (`input` of `total` elements) and stored at
    /// `output[scatter[j]..]`. Overlaps: as [`Backend::interval_move`]. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::interval_move`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u32, 2])?;
    /// let scatter = backend.upload(&[1u32, 0])?;
    /// let input = backend.upload(&[5i64, 6, 7])?;
    /// let mut out = backend.zeros::<i64>(4)?;
    /// backend.interval_scatter(&scan, 3, &scatter, (&input).into(), &mut out)?;
    /// assert_eq!(out.to_vec()?, vec![7, 5, 6, 0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn interval_scatter<T, I>(
        &self,
        scan: &Buffer<I>,
        total: usize,
        scatter: &Buffer<I>,
        input: IntervalSource<'_, T>,
        output: &mut Buffer<T>,
    ) -> Result<()>
    where
        T: IntervalData + IntervalElement<I> + Sequence,
        I: IntervalIndex,
    {
        self.interval_op(Op::Scatter(scatter), scan, total, input, output)
    }
}
