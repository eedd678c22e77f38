//! The segmented reduction on any backend: `mgpu-segreduce` on a GPU device, `mgpu-cpu`
//! on the host.

use super::{host, pick, pick_mut, Pick};
use crate::{Backend, Buffer};
use mgpu_core::{AssociativeOp, BinaryOp, Multiplies, Plus};
use mgpu_core::{Element, Result};
use mgpu_loadbalance::LoadBalanceIndex;
use mgpu_runtime::{Context, Simulator};
use mgpu_segreduce::device::{SpmvBinary, SpmvIndirectBinary, SpmvIndirectUnary, SpmvUnary};
use mgpu_segreduce::kernels::{IndirectOp, RbkKey, RbkOp, Semiring, SpmvForm, SpmvSemiring};
use mgpu_segreduce::SegReduceOp;

impl Backend {
    /// Segmented reduction over CSR (the seeds' `SegReduceCsr`, seed 002): returns a new
    /// buffer of `csr.len()` elements whose element `j` is the reduction with `Op` of
    /// segment `j`, the values `data[csr[j]..csr[j + 1]]` (the last segment runs to the
    /// end of `data`), combined in order, or `Op`'s identity when the segment is empty.
    /// `csr` is the exclusive scan of the segment lengths (it starts at 0, never
    /// decreases, and stays at most `data.len()`); empty segments need nothing special,
    /// and the operator need not be commutative. Synchronises (the CSR is validated on
    /// the device and the verdict read back).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `csr[0] != 0`, the starts
    /// decrease, a start is past `data.len()`, there are values but no segments, or a
    /// buffer belongs to another backend;
    /// [`Error::IndexOverflow`](crate::Error::IndexOverflow) when `data.len()` or the
    /// segment count does not fit `I`; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Plus};
    /// let backend = Backend::cpu();
    /// let data = backend.upload(&[1i32, 2, 3, 4, 5, 6])?;
    /// let csr = backend.upload(&[0u32, 2, 2, 5])?; // lengths 2, 0, 3, 1
    /// let sums = backend.seg_reduce_csr(&data, &csr, Plus)?;
    /// assert_eq!(sums.to_vec()?, vec![3, 0, 12, 6]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn seg_reduce_csr<T: Element, I: LoadBalanceIndex, Op: SegReduceOp<T, I>>(
        &self,
        data: &Buffer<T>,
        csr: &Buffer<I>,
        op: Op,
    ) -> Result<Buffer<T>> {
        self.view(data, "data")?;
        self.view(csr, "csr")?;
        mgpu_core::checks::seg_reduce_csr::<I>(data.len(), csr.len(), None)?; // before allocating
        let mut out = self.zeros::<T>(csr.len())?;
        match &mut out {
            Buffer::Cuda(_) => gpu::<Context, T, I, Op>(data, csr, &mut out, op)?,
            Buffer::Simulator(_) => gpu::<Simulator, T, I, Op>(data, csr, &mut out, op)?,
            Buffer::Host(o) => mgpu_cpu::seg_reduce_csr::<T, I, Op>(host(data)?, host(csr)?, o)?,
        }
        Ok(out)
    }

    /// The indirect segmented reduction (the seeds' `IndirectReduceCsr`): as
    /// [`Backend::seg_reduce_csr`], but segment `j`'s values start at `data[sources[j]]`
    /// (the lengths still come from `csr`, the last one running to `data.len()`).
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::seg_reduce_csr`]; also
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when `sources` does not have
    /// one start per segment, and [`Error::InvalidInput`](crate::Error::InvalidInput) when
    /// a non-empty segment's values reach past `data`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Plus};
    /// let backend = Backend::cpu();
    /// let data = backend.upload(&[1i32, 2, 3, 40, 50])?;
    /// let csr = backend.upload(&[0u32, 2])?; // lengths 2, 3
    /// let sources = backend.upload(&[3u32, 0])?;
    /// assert_eq!(backend.indirect_reduce_csr(&data, &csr, &sources, Plus)?.to_vec()?, vec![90, 6]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn indirect_reduce_csr<T: Element, I: LoadBalanceIndex, Op: IndirectOp<T, I>>(
        &self,
        data: &Buffer<T>,
        csr: &Buffer<I>,
        sources: &Buffer<I>,
        op: Op,
    ) -> Result<Buffer<T>> {
        self.view(data, "data")?;
        self.view(csr, "csr")?;
        self.view(sources, "sources")?;
        mgpu_core::checks::indirect_reduce_csr::<I>(data.len(), csr.len(), sources.len(), None)?;
        let mut out = self.zeros::<T>(csr.len())?;
        match &mut out {
            Buffer::Cuda(_) => gpu_indirect::<Context, T, I, Op>(data, csr, sources, &mut out, op)?,
            Buffer::Simulator(_) => {
                gpu_indirect::<Simulator, T, I, Op>(data, csr, sources, &mut out, op)?
            }
            Buffer::Host(o) => mgpu_cpu::indirect_reduce_csr::<T, I, Op>(
                host(data)?,
                host(csr)?,
                host(sources)?,
                o,
            )?,
        }
        Ok(out)
    }

    /// CSR sparse matrix times dense vector (the seeds' `SpmvCsrBinary` with its default
    /// operators): returns a new buffer of `csr.len()` elements (one per row) whose
    /// element `r` is the sum over row `r`'s nonzeros `k` of `matrix[k] * vec[cols[k]]`,
    /// in order, 0 for an empty row. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::seg_reduce_csr`] with the nonzeros as the values and the rows as the
    /// segments; also [`Error::LengthMismatch`](crate::Error::LengthMismatch) when
    /// `cols.len() != matrix.len()`, and
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when a column is at or past
    /// `vec.len()`.
    ///
    /// # Examples
    ///
    /// `[1 0 2; 0 0 0; 0 3 0]` times `[1, 10, 100]`:
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let m = backend.upload(&[1.0f64, 2.0, 3.0])?;
    /// let cols = backend.upload(&[0u32, 2, 1])?;
    /// let csr = backend.upload(&[0u32, 2, 2])?;
    /// let x = backend.upload(&[1.0f64, 10.0, 100.0])?;
    /// assert_eq!(backend.spmv_csr(&m, &cols, &csr, &x)?.to_vec()?, vec![201.0, 0.0, 30.0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn spmv_csr<T: Element, I: LoadBalanceIndex>(
        &self,
        matrix: &Buffer<T>,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        vec: &Buffer<T>,
    ) -> Result<Buffer<T>>
    where
        SpmvBinary: SpmvForm<T, I>,
        Plus: AssociativeOp<T>,
        Multiplies: BinaryOp<T>,
    {
        self.view(matrix, "matrix")?;
        let mut out = self.spmv_output(cols, csr, vec, Some(matrix.len()))?;
        match &mut out {
            Buffer::Cuda(_) => gpu_spmv::<Context, T, I>(matrix, cols, csr, vec, &mut out)?,
            Buffer::Simulator(_) => gpu_spmv::<Simulator, T, I>(matrix, cols, csr, vec, &mut out)?,
            Buffer::Host(o) => {
                mgpu_cpu::spmv_csr(host(matrix)?, host(cols)?, host(csr)?, host(vec)?, o)?
            }
        }
        Ok(out)
    }

    /// Unary CSR SpMV (the seeds' `SpmvCsrUnary` with its default operator): element `r`
    /// of the result is the sum of `vec[cols[k]]` over row `r`'s nonzeros `k`.
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::spmv_csr`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let cols = backend.upload(&[1u32, 1, 0])?;
    /// let csr = backend.upload(&[0u32, 2])?;
    /// let x = backend.upload(&[5i32, 7])?;
    /// assert_eq!(backend.spmv_csr_unary(&cols, &csr, &x)?.to_vec()?, vec![14, 5]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn spmv_csr_unary<T: Element, I: LoadBalanceIndex>(
        &self,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        vec: &Buffer<T>,
    ) -> Result<Buffer<T>>
    where
        SpmvUnary: SpmvForm<T, I>,
        Plus: AssociativeOp<T>,
    {
        let mut out = self.spmv_output(cols, csr, vec, None)?;
        match &mut out {
            Buffer::Cuda(_) => gpu_spmv_unary::<Context, T, I>(cols, csr, vec, &mut out)?,
            Buffer::Simulator(_) => gpu_spmv_unary::<Simulator, T, I>(cols, csr, vec, &mut out)?,
            Buffer::Host(o) => mgpu_cpu::spmv_csr_unary(host(cols)?, host(csr)?, host(vec)?, o)?,
        }
        Ok(out)
    }

    /// Indirect CSR SpMV (the seeds' `SpmvCsrIndirectBinary` with its default operators):
    /// as [`Backend::spmv_csr`], but row `r`'s nonzeros start at `matrix[sources[r]]` and
    /// `cols[sources[r]]` (the row lengths still come from `csr`, the last row running to
    /// `cols.len()`), so the rows may be stored in any order. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::spmv_csr`]; also a `sources` length other than the row count, and a
    /// non-empty row reaching past the nonzeros.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let m = backend.upload(&[3.0f64, 1.0, 2.0])?;
    /// let cols = backend.upload(&[1u32, 0, 2])?;
    /// let csr = backend.upload(&[0u32, 2, 2])?; // row lengths 2, 0, 1
    /// let sources = backend.upload(&[1u32, 3, 0])?;
    /// let x = backend.upload(&[1.0f64, 10.0, 100.0])?;
    /// let y = backend.spmv_csr_indirect(&m, &cols, &csr, &sources, &x)?;
    /// assert_eq!(y.to_vec()?, vec![201.0, 0.0, 30.0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn spmv_csr_indirect<T: Element, I: LoadBalanceIndex>(
        &self,
        matrix: &Buffer<T>,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        sources: &Buffer<I>,
        vec: &Buffer<T>,
    ) -> Result<Buffer<T>>
    where
        SpmvIndirectBinary: SpmvForm<T, I>,
        SpmvIndirectUnary: SpmvForm<T, I>,
        Plus: AssociativeOp<T>,
        Multiplies: BinaryOp<T>,
    {
        self.view(matrix, "matrix")?;
        let mut out = self.spmv_indirect_output(cols, csr, sources, vec, Some(matrix.len()))?;
        match &mut out {
            Buffer::Cuda(_) => {
                gpu_spmv_indirect::<Context, T, I>(Some(matrix), cols, csr, sources, vec, &mut out)?
            }
            Buffer::Simulator(_) => gpu_spmv_indirect::<Simulator, T, I>(
                Some(matrix),
                cols,
                csr,
                sources,
                vec,
                &mut out,
            )?,
            Buffer::Host(o) => mgpu_cpu::spmv_csr_indirect(
                host(matrix)?,
                host(cols)?,
                host(csr)?,
                host(sources)?,
                host(vec)?,
                o,
            )?,
        }
        Ok(out)
    }

    /// Indirect unary CSR SpMV (the seeds' `SpmvCsrIndirectUnary` with its default
    /// operator): as [`Backend::spmv_csr_unary`], but row `r`'s columns start at
    /// `cols[sources[r]]`. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::spmv_csr_indirect`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let cols = backend.upload(&[1u32, 1, 0])?;
    /// let csr = backend.upload(&[0u32, 2])?; // row lengths 2, 1
    /// let sources = backend.upload(&[1u32, 0])?;
    /// let x = backend.upload(&[5i32, 7])?;
    /// assert_eq!(backend.spmv_csr_indirect_unary(&cols, &csr, &sources, &x)?.to_vec()?, vec![12, 7]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn spmv_csr_indirect_unary<T: Element, I: LoadBalanceIndex>(
        &self,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        sources: &Buffer<I>,
        vec: &Buffer<T>,
    ) -> Result<Buffer<T>>
    where
        SpmvIndirectBinary: SpmvForm<T, I>,
        SpmvIndirectUnary: SpmvForm<T, I>,
        Plus: AssociativeOp<T>,
    {
        let mut out = self.spmv_indirect_output(cols, csr, sources, vec, None)?;
        match &mut out {
            Buffer::Cuda(_) => {
                gpu_spmv_indirect::<Context, T, I>(None, cols, csr, sources, vec, &mut out)?
            }
            Buffer::Simulator(_) => {
                gpu_spmv_indirect::<Simulator, T, I>(None, cols, csr, sources, vec, &mut out)?
            }
            Buffer::Host(o) => mgpu_cpu::spmv_csr_indirect_unary(
                host(cols)?,
                host(csr)?,
                host(sources)?,
                host(vec)?,
                o,
            )?,
        }
        Ok(out)
    }

    /// Indirect SpMV's buffer and size checks, then its output (one element per row).
    fn spmv_indirect_output<T: Element, I: LoadBalanceIndex>(
        &self,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        sources: &Buffer<I>,
        vec: &Buffer<T>,
        matrix: Option<usize>,
    ) -> Result<Buffer<T>> {
        self.view(sources, "sources")?;
        mgpu_core::checks::spmv_csr_indirect::<I>(
            matrix,
            cols.len(),
            csr.len(),
            sources.len(),
            None,
        )?;
        self.spmv_output(cols, csr, vec, matrix)
    }

    /// SpMV's buffer and size checks, then its output (one element per row).
    /// CSR SpMV over a semiring (the seeds' `SpmvCsrBinary` with its `mul` and `add`
    /// operators): as [`Backend::spmv_csr`], with row `r`'s element `Add` over its
    /// nonzeros of `Mul(matrix[k], vec[cols[k]])`, `Add`'s identity for an empty row.
    /// [`Semiring`]`(Plus, Minimum)` (min-plus: shortest paths) and `(Plus, Maximum)` for
    /// every element type, `(BitAnd, BitOr)` (reachability) for the integers.
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::spmv_csr`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Minimum, Plus, Semiring};
    /// let backend = Backend::cpu();
    /// let w = backend.upload(&[1.0f32, 2.0, 3.0])?;
    /// let cols = backend.upload(&[0u32, 2, 1])?;
    /// let csr = backend.upload(&[0u32, 2, 2])?;
    /// let d = backend.upload(&[0.0f32, 10.0, 100.0])?;
    /// let y = backend.spmv_csr_semiring(&w, &cols, &csr, &d, Semiring(Plus, Minimum))?;
    /// assert_eq!(y.to_vec()?, vec![1.0, f32::INFINITY, 13.0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn spmv_csr_semiring<T: Element, I: LoadBalanceIndex, Mul, Add>(
        &self,
        matrix: &Buffer<T>,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        vec: &Buffer<T>,
        semiring: Semiring<Mul, Add>,
    ) -> Result<Buffer<T>>
    where
        Semiring<Mul, Add>: SpmvSemiring<T, I>,
        Mul: BinaryOp<T>,
        Add: AssociativeOp<T>,
    {
        self.view(matrix, "matrix")?;
        let mut out = self.spmv_output(cols, csr, vec, Some(matrix.len()))?;
        match &mut out {
            Buffer::Cuda(_) => {
                gpu_semiring::<Context, T, I, Mul, Add>(matrix, cols, csr, vec, &mut out, semiring)?
            }
            Buffer::Simulator(_) => gpu_semiring::<Simulator, T, I, Mul, Add>(
                matrix, cols, csr, vec, &mut out, semiring,
            )?,
            Buffer::Host(o) => mgpu_cpu::spmv_csr_semiring::<T, I, Mul, Add>(
                host(matrix)?,
                host(cols)?,
                host(csr)?,
                host(vec)?,
                o,
            )?,
        }
        Ok(out)
    }

    /// Reduce-by-key (the seeds' `ReduceByKey`): a run is a maximal stretch of adjacent
    /// keys that `Eq` calls equal ([`EqualTo`](crate::EqualTo): `==`, so a NaN key is a
    /// run of its own). Returns the runs' first keys and their values reduced with `Op`
    /// in order (the operator need not be commutative), one element per run. Synchronises
    /// (the run count is read back to size the outputs).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when `values` does not have
    /// one value per key; [`Error::InvalidInput`](crate::Error::InvalidInput) when a
    /// buffer belongs to another backend; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, EqualTo, Plus};
    /// let backend = Backend::cpu();
    /// let keys = backend.upload(&[3u32, 3, 1, 1, 1, 3])?;
    /// let values = backend.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let (k, v) = backend.reduce_by_key(&keys, &values, EqualTo, Plus)?;
    /// assert_eq!((k.to_vec()?, v.to_vec()?), (vec![3, 1, 3], vec![3.0, 12.0, 6.0]));
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn reduce_by_key<K: Element, T: Element, Eq: RbkKey<K>, Op: RbkOp<T>>(
        &self,
        keys: &Buffer<K>,
        values: &Buffer<T>,
        eq: Eq,
        op: Op,
    ) -> Result<(Buffer<K>, Buffer<T>)> {
        self.view(keys, "keys")?;
        self.view(values, "values")?;
        mgpu_core::checks::reduce_by_key(keys.len(), values.len())?;
        match self {
            Backend::Cuda(_) => gpu_rbk::<Context, K, T, Eq, Op>(self, keys, values, eq, op),
            Backend::Simulator(_) => gpu_rbk::<Simulator, K, T, Eq, Op>(self, keys, values, eq, op),
            Backend::Cpu => {
                let (mut ko, mut vo) = (vec![K::ZERO; keys.len()], vec![T::ZERO; keys.len()]);
                let runs = mgpu_cpu::reduce_by_key::<K, T, Eq, Op>(
                    host(keys)?,
                    host(values)?,
                    &mut ko,
                    &mut vo,
                )?;
                ko.truncate(runs);
                vo.truncate(runs);
                Ok((Buffer::Host(ko), Buffer::Host(vo)))
            }
        }
    }

    fn spmv_output<T: Element, I: LoadBalanceIndex>(
        &self,
        cols: &Buffer<I>,
        csr: &Buffer<I>,
        vec: &Buffer<T>,
        matrix: Option<usize>,
    ) -> Result<Buffer<T>> {
        self.view(cols, "cols")?;
        self.view(csr, "csr")?;
        self.view(vec, "vec")?;
        mgpu_core::checks::spmv_csr::<I>(matrix, cols.len(), csr.len(), None)?; // before allocating
        self.zeros::<T>(csr.len())
    }
}

/// The indirect reduction on a GPU device.
fn gpu_indirect<D: Pick, T: Element, I: LoadBalanceIndex, Op: IndirectOp<T, I>>(
    data: &Buffer<T>,
    csr: &Buffer<I>,
    sources: &Buffer<I>,
    out: &mut Buffer<T>,
    op: Op,
) -> Result<()> {
    let (d, c, s) = (
        pick::<D, T>(data)?,
        pick::<D, I>(csr)?,
        pick::<D, I>(sources)?,
    );
    mgpu_segreduce::indirect_reduce_csr(d, c, s, pick_mut::<D, T>(out)?, op)
}

/// Binary SpMV on a GPU device.
fn gpu_spmv<D: Pick, T: Element, I: LoadBalanceIndex>(
    matrix: &Buffer<T>,
    cols: &Buffer<I>,
    csr: &Buffer<I>,
    vec: &Buffer<T>,
    out: &mut Buffer<T>,
) -> Result<()>
where
    SpmvBinary: SpmvForm<T, I>,
{
    let (m, c, r, v) = (
        pick::<D, T>(matrix)?,
        pick::<D, I>(cols)?,
        pick::<D, I>(csr)?,
        pick::<D, T>(vec)?,
    );
    mgpu_segreduce::spmv_csr(m, c, r, v, pick_mut::<D, T>(out)?)
}

/// Indirect SpMV on a GPU device: binary with a matrix, else unary.
fn gpu_spmv_indirect<D: Pick, T: Element, I: LoadBalanceIndex>(
    matrix: Option<&Buffer<T>>,
    cols: &Buffer<I>,
    csr: &Buffer<I>,
    sources: &Buffer<I>,
    vec: &Buffer<T>,
    out: &mut Buffer<T>,
) -> Result<()>
where
    SpmvIndirectBinary: SpmvForm<T, I>,
    SpmvIndirectUnary: SpmvForm<T, I>,
{
    let (c, r, s, v) = (
        pick::<D, I>(cols)?,
        pick::<D, I>(csr)?,
        pick::<D, I>(sources)?,
        pick::<D, T>(vec)?,
    );
    let o = pick_mut::<D, T>(out)?;
    match matrix {
        Some(m) => mgpu_segreduce::spmv_csr_indirect(pick::<D, T>(m)?, c, r, s, v, o),
        None => mgpu_segreduce::spmv_csr_indirect_unary(c, r, s, v, o),
    }
}

/// Unary SpMV on a GPU device.
fn gpu_spmv_unary<D: Pick, T: Element, I: LoadBalanceIndex>(
    cols: &Buffer<I>,
    csr: &Buffer<I>,
    vec: &Buffer<T>,
    out: &mut Buffer<T>,
) -> Result<()>
where
    SpmvUnary: SpmvForm<T, I>,
{
    let (c, r, v) = (pick::<D, I>(cols)?, pick::<D, I>(csr)?, pick::<D, T>(vec)?);
    mgpu_segreduce::spmv_csr_unary(c, r, v, pick_mut::<D, T>(out)?)
}

fn gpu<D: Pick, T: Element, I: LoadBalanceIndex, Op: SegReduceOp<T, I>>(
    data: &Buffer<T>,
    csr: &Buffer<I>,
    out: &mut Buffer<T>,
    op: Op,
) -> Result<()> {
    mgpu_segreduce::seg_reduce_csr(
        pick::<D, T>(data)?,
        pick::<D, I>(csr)?,
        pick_mut::<D, T>(out)?,
        op,
    )
}

fn gpu_rbk<D: Pick, K: Element, T: Element, Eq: RbkKey<K>, Op: RbkOp<T>>(
    backend: &Backend,
    keys: &Buffer<K>,
    values: &Buffer<T>,
    eq: Eq,
    op: Op,
) -> Result<(Buffer<K>, Buffer<T>)> {
    let plan = mgpu_segreduce::ReduceByKeyPlan::new(pick::<D, K>(keys)?, eq)?;
    let (mut ko, mut vo) = (
        backend.zeros::<K>(plan.runs())?,
        backend.zeros::<T>(plan.runs())?,
    );
    plan.keys_into(pick_mut::<D, K>(&mut ko)?)?.wait()?;
    plan.reduce(pick::<D, T>(values)?, pick_mut::<D, T>(&mut vo)?, op)?;
    Ok((ko, vo))
}

fn gpu_semiring<D: Pick, T: Element, I: LoadBalanceIndex, Mul, Add>(
    matrix: &Buffer<T>,
    cols: &Buffer<I>,
    csr: &Buffer<I>,
    vec: &Buffer<T>,
    out: &mut Buffer<T>,
    semiring: Semiring<Mul, Add>,
) -> Result<()>
where
    Semiring<Mul, Add>: SpmvSemiring<T, I>,
{
    let (m, c, r, v) = (
        pick::<D, T>(matrix)?,
        pick::<D, I>(cols)?,
        pick::<D, I>(csr)?,
        pick::<D, T>(vec)?,
    );
    mgpu_segreduce::spmv_csr_semiring(m, c, r, v, pick_mut::<D, T>(out)?, semiring)
}
