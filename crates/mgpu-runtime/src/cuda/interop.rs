//! Interop with cudarc and other CUDA code: the [`Context`]'s stream and cudarc context,
//! and cudarc device buffers borrowed as mgpu slices without a copy.

use super::Context;
use crate::{DeviceSlice, DeviceSliceMut};
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

impl Context {
    /// The stream all of this context's work goes on; queue your own work on it to order
    /// it with mgpu's (for example with cudarc's launch builder).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::Context;
    /// # let Ok(ctx) = Context::new(0) else { return };
    /// ctx.stream().synchronize().unwrap();
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.0.stream
    }

    /// The cudarc context (the device's primary context for [`Context::new`]), for
    /// interop: new streams, events, cudarc allocations, other libraries.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::Context;
    /// # let Ok(ctx) = Context::new(0) else { return };
    /// assert_eq!(ctx.cuda_context().ordinal(), 0);
    /// ```
    pub fn cuda_context(&self) -> &Arc<CudaContext> {
        self.0.stream.context()
    }

    /// Borrows a cudarc device buffer (`CudaSlice`, `CudaView`, `CudaViewMut`) as a
    /// read-only mgpu slice, without a copy, so mgpu algorithms run on memory that cudarc,
    /// cuBLAS or your own kernels own.
    ///
    /// The buffer must live on this context's device. mgpu queues its work on
    /// [`Context::stream`]: if the buffer is written on another stream, order the two
    /// (an event, or a synchronisation) before the mgpu call.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::Context;
    /// # let Ok(ctx) = Context::new(0) else { return };
    /// let buf = ctx.stream().clone_htod(&[1u32, 2, 3]).unwrap();
    /// assert_eq!(ctx.borrow_cuda(&buf).to_vec().unwrap(), vec![1, 2, 3]);
    /// ```
    pub fn borrow_cuda<'a, T: Copy + 'static, S: cudarc::driver::DevicePtr<T>>(
        &'a self,
        buf: &'a S,
    ) -> DeviceSlice<'a, T, Context> {
        let (ptr, _read_recorded) = buf.device_ptr(&self.0.stream);
        let len = cudarc::driver::DeviceSlice::len(buf);
        // SAFETY: the cudarc buffer covers `len` elements and is borrowed for 'a.
        unsafe { DeviceSlice::from_raw(self, ptr, len) }
    }

    /// Borrows a cudarc device buffer (`CudaSlice`, `CudaViewMut`) as a writable mgpu
    /// slice, without a copy. The same stream rule as [`Context::borrow_cuda`] applies.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::Context;
    /// # let Ok(ctx) = Context::new(0) else { return };
    /// let mut buf = ctx.stream().alloc_zeros::<u32>(2).unwrap();
    /// ctx.borrow_cuda_mut(&mut buf).copy_from_host(&[7, 8]).unwrap();
    /// assert_eq!(ctx.stream().clone_dtoh(&buf).unwrap(), vec![7, 8]);
    /// ```
    pub fn borrow_cuda_mut<'a, T: Copy + 'static, S: cudarc::driver::DevicePtrMut<T>>(
        &'a self,
        buf: &'a mut S,
    ) -> DeviceSliceMut<'a, T, Context> {
        let len = cudarc::driver::DeviceSlice::len(buf);
        let (ptr, _write_recorded) = buf.device_ptr_mut(&self.0.stream);
        // SAFETY: the cudarc buffer covers `len` elements and is borrowed mutably for 'a.
        unsafe { DeviceSliceMut::from_raw(self, ptr, len) }
    }
}
