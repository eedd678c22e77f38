//! The load-balancing search on any backend: `mgpu-loadbalance` on a GPU device,
//! `mgpu-cpu` on the host.

use crate::backend::View;
use crate::buffer::{Buffer, BufferDevice};
use crate::Backend;
use mgpu_core::{Index, Plus, Result};
use mgpu_loadbalance::LoadBalanceIndex;
use mgpu_runtime::DeviceVec;
use mgpu_scan::ScanOp;

impl Backend {
    /// The load-balancing search (the seeds' `LoadBalanceSearch`, seed 001): `scan` is the
    /// exclusive scan of the objects' work-item counts and `total` their sum; returns a new
    /// buffer of `total` elements whose element `i` is the object that generated work item
    /// `i` (`upper_bound(scan, i) - 1`). `I` is u32 (the seeds' `int`) or u64.
    /// Synchronises (the scan is validated on the device and the verdict read back).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `scan[0] != 0`, the scan
    /// decreases, `scan[n - 1] > total`, `total > 0` with no objects, or `scan` belongs to
    /// another backend; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u32, 2, 7, 10, 10])?; // counts 2, 5, 3, 0, 1
    /// let objects = backend.load_balance_search(&scan, 11)?;
    /// assert_eq!(objects.to_vec()?, vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
    /// assert!(backend.load_balance_search(&scan, 9).is_err()); // scan[4] = 10 > 9
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn load_balance_search<I: LoadBalanceIndex>(
        &self,
        scan: &Buffer<I>,
        total: I,
    ) -> Result<Buffer<I>> {
        match self.view(scan, "scan")? {
            View::Gpu(s) => gpu_search(s, total),
            View::Sim(s) => gpu_search(s, total),
            View::Host(s) => {
                let mut out = vec![I::ZERO; Index::to_usize(total)];
                mgpu_cpu::load_balance_search(s, total, &mut out)?;
                Ok(Buffer::Host(out))
            }
        }
    }

    /// [`Backend::load_balance_search`] that also returns each work item's rank in its
    /// object, `ranks[i] = i - scan[objects[i]]`: `(objects, ranks)`. Synchronises.
    ///
    /// # Errors
    ///
    /// As [`Backend::load_balance_search`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let scan = backend.upload(&[0u64, 2, 7, 10, 10])?;
    /// let (objects, ranks) = backend.load_balance_search_ranks(&scan, 11)?;
    /// assert_eq!(objects.to_vec()?, vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
    /// assert_eq!(ranks.to_vec()?, vec![0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn load_balance_search_ranks<I: LoadBalanceIndex>(
        &self,
        scan: &Buffer<I>,
        total: I,
    ) -> Result<(Buffer<I>, Buffer<I>)> {
        match self.view(scan, "scan")? {
            View::Gpu(s) => gpu_search_ranks(s, total),
            View::Sim(s) => gpu_search_ranks(s, total),
            View::Host(s) => {
                let n = Index::to_usize(total);
                let (mut o, mut r) = (vec![I::ZERO; n], vec![I::ZERO; n]);
                mgpu_cpu::load_balance_search_ranks(s, total, &mut o, &mut r)?;
                Ok((Buffer::Host(o), Buffer::Host(r)))
            }
        }
    }

    /// The convenience form: scans `counts` (the objects' work-item counts, as
    /// [`Backend::scan_counts_exclusive`]) and runs the load-balancing search on the
    /// result; returns the objects of the work items and the total. Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::IndexOverflow`](crate::Error::IndexOverflow) when the counts sum past
    /// `I::MAX`; otherwise as [`Backend::load_balance_search`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::cpu();
    /// let counts = backend.upload(&[2u32, 5, 3, 0, 1])?;
    /// let (objects, total) = backend.load_balance_search_counts(&counts)?;
    /// assert_eq!(total, 11);
    /// assert_eq!(objects.to_vec()?, vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn load_balance_search_counts<I: LoadBalanceIndex>(
        &self,
        counts: &Buffer<I>,
    ) -> Result<(Buffer<I>, I)>
    where
        Plus: ScanOp<I>,
    {
        match self.view(counts, "counts")? {
            View::Gpu(c) => gpu_search_counts(c),
            View::Sim(c) => gpu_search_counts(c),
            View::Host(c) => {
                let (out, total) = mgpu_cpu::load_balance_search_counts(c)?;
                Ok((Buffer::Host(out), total))
            }
        }
    }
}

fn gpu_search<D: BufferDevice, I: LoadBalanceIndex>(
    scan: &DeviceVec<I, D>,
    total: I,
) -> Result<Buffer<I>> {
    let mut out = DeviceVec::uninit(scan.device(), Index::to_usize(total))?;
    mgpu_loadbalance::load_balance_search(scan.as_slice(), total, out.as_mut_slice())?;
    Ok(D::wrap(out))
}

fn gpu_search_ranks<D: BufferDevice, I: LoadBalanceIndex>(
    scan: &DeviceVec<I, D>,
    total: I,
) -> Result<(Buffer<I>, Buffer<I>)> {
    let n = Index::to_usize(total);
    let mut o = DeviceVec::uninit(scan.device(), n)?;
    let mut r = DeviceVec::uninit(scan.device(), n)?;
    mgpu_loadbalance::load_balance_search_ranks(
        scan.as_slice(),
        total,
        o.as_mut_slice(),
        r.as_mut_slice(),
    )?;
    Ok((D::wrap(o), D::wrap(r)))
}

fn gpu_search_counts<D: BufferDevice, I: LoadBalanceIndex>(
    counts: &DeviceVec<I, D>,
) -> Result<(Buffer<I>, I)>
where
    Plus: ScanOp<I>,
{
    let (out, total) = mgpu_loadbalance::load_balance_search_counts(counts.as_slice())?;
    Ok((D::wrap(out), total))
}
