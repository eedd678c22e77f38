//! `sprs` interop (feature `sprs`): the segmented reduction and SpMV take a sprs CSR
//! matrix view directly.

use crate::{Backend, Buffer};
use mgpu_core::{AssociativeOp, BinaryOp, Element, Error, Multiplies, Plus, Result};
use mgpu_loadbalance::LoadBalanceIndex;
use mgpu_segreduce::device::SpmvBinary;
use mgpu_segreduce::kernels::SpmvForm;
use mgpu_segreduce::SegReduceOp;
use sprs::{CsMatViewI, SpIndex};

/// A CSR view's values, columns and row starts (without the final end) as buffers of
/// `backend`.
type Uploaded<T, I> = (Buffer<T>, Buffer<I>, Buffer<I>);

fn upload<T: Element, I: LoadBalanceIndex + SpIndex>(
    backend: &Backend,
    a: &CsMatViewI<'_, T, I>,
) -> Result<Uploaded<T, I>> {
    if !a.is_csr() {
        return Err(Error::InvalidInput(
            "a CSC matrix: convert it with to_csr() first".into(),
        ));
    }
    let indptr = a.indptr();
    let indptr = indptr.to_proper();
    Ok((
        backend.upload(a.data())?,
        backend.upload(a.indices())?,
        backend.upload(&indptr[..a.rows()])?,
    ))
}

impl Backend {
    /// [`Backend::spmv_csr`] of a sprs CSR matrix view and a dense vector of `a.cols()`
    /// elements: one element per row, `sum of a[r, c] * x[c]`. The indices must be u32 or
    /// u64 (`sprs::CsMatI<T, u32>`, or read with `read_matrix_market::<T, u32, _>`).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] for a CSC view; [`Error::LengthMismatch`] when `x` does not
    /// have `a.cols()` elements; otherwise as [`Backend::spmv_csr`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let mut t = sprs::TriMatI::<f64, u32>::new((2, 3));
    /// t.add_triplet(0, 0, 1.0);
    /// t.add_triplet(0, 2, 2.0);
    /// t.add_triplet(1, 1, 3.0);
    /// let a = t.to_csr::<u32>();
    /// let backend = Backend::cpu();
    /// let x = backend.upload(&[1.0, 10.0, 100.0])?;
    /// assert_eq!(backend.spmv_sprs(a.view(), &x)?.to_vec()?, vec![201.0, 30.0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn spmv_sprs<T: Element, I: LoadBalanceIndex + SpIndex>(
        &self,
        a: CsMatViewI<'_, T, I>,
        x: &Buffer<T>,
    ) -> Result<Buffer<T>>
    where
        SpmvBinary: SpmvForm<T, I>,
        Plus: AssociativeOp<T>,
        Multiplies: BinaryOp<T>,
    {
        Error::check_len("spmv_sprs vector (one per column)", a.cols(), x.len())?;
        let (m, cols, csr) = upload(self, &a)?;
        self.spmv_csr(&m, &cols, &csr, x)
    }

    /// [`Backend::seg_reduce_csr`] of a sprs CSR matrix view's rows: one element per row,
    /// its stored values reduced with `Op` in order (the identity for an empty row).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] for a CSC view; otherwise as [`Backend::seg_reduce_csr`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Maximum};
    /// let mut t = sprs::TriMatI::<i32, u32>::new((3, 3));
    /// t.add_triplet(0, 1, 4);
    /// t.add_triplet(2, 0, -1);
    /// t.add_triplet(2, 2, 7);
    /// let a = t.to_csr::<u32>();
    /// let rows = Backend::cpu().seg_reduce_sprs(a.view(), Maximum)?;
    /// assert_eq!(rows.to_vec()?, vec![4, i32::MIN, 7]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn seg_reduce_sprs<T: Element, I: LoadBalanceIndex + SpIndex, Op: SegReduceOp<T, I>>(
        &self,
        a: CsMatViewI<'_, T, I>,
        op: Op,
    ) -> Result<Buffer<T>> {
        let (values, _, csr) = upload(self, &a)?;
        self.seg_reduce_csr(&values, &csr, op)
    }
}
