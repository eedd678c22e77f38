//! The segmented reduction on any backend: `mgpu-segreduce` on a GPU device, `mgpu-cpu`
//! on the host.

use super::{host, pick, pick_mut, Pick};
use crate::{Backend, Buffer};
use mgpu_core::{Element, Result};
use mgpu_loadbalance::LoadBalanceIndex;
use mgpu_runtime::{Context, Simulator};
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
