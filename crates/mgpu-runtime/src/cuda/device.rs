//! The [`Device`] impl of [`Context`]: allocation (stream-ordered where the device has
//! memory pools) and freeing, copies between host and device, fills, launches (dependent
//! ones programmatic on sm_90) and synchronisation, all on the context's stream.

use super::driver::has_launch_ex;
use super::Context;
use crate::{Device, DeviceInfo, Error, Pool, Result};
use cudarc::driver::{result, sys};
use mgpu_core::{Arch, Kernel};

impl Device for Context {
    fn info(&self) -> &DeviceInfo {
        &self.0.info
    }

    fn pool(&self) -> &Pool {
        &self.0.pool
    }

    fn alloc_bytes(&self, bytes: usize) -> Result<u64> {
        self.0.alive()?;
        if bytes == 0 {
            return Ok(0);
        }
        self.0.enter()?;
        // SAFETY: allocation only; the memory is used on this context's stream.
        let r = unsafe {
            if self.0.async_alloc {
                result::malloc_async(self.0.cu_stream(), bytes)
            } else {
                result::malloc_sync(bytes)
            }
        };
        match r {
            Ok(ptr) => {
                debug_assert_eq!(ptr % 256, 0, "CUDA allocations are 256-byte aligned");
                Ok(ptr)
            }
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                Err(Error::OutOfMemory { bytes })
            }
            Err(e) => Err(self.0.fail(e, || format!("allocating {bytes} bytes"))),
        }
    }

    unsafe fn free_bytes(&self, ptr: u64, bytes: usize) {
        if ptr == 0 || bytes == 0 || self.0.enter().is_err() {
            return;
        }
        self.0.free(ptr, bytes)
    }

    unsafe fn copy_htod(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()> {
        self.0.alive()?;
        if bytes == 0 {
            return Ok(());
        }
        self.0.enter()?;
        let r = sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, self.0.cu_stream()).result();
        self.0.check(r, || {
            format!("copying {bytes} bytes to the device at {dst:#x}")
        })?;
        // The source may be pageable memory the caller reuses on return.
        let r = self.0.stream.synchronize();
        self.0.check(r, || {
            format!("waiting for a copy of {bytes} bytes to the device")
        })
    }

    unsafe fn copy_dtoh(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()> {
        self.0.alive()?;
        if bytes == 0 {
            return Ok(());
        }
        self.0.enter()?;
        let r = sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, self.0.cu_stream()).result();
        self.0.check(r, || {
            format!("copying {bytes} bytes from the device at {src:#x}")
        })?;
        let r = self.0.stream.synchronize();
        self.0.check(r, || {
            format!("waiting for a copy of {bytes} bytes from the device")
        })
    }

    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.0.alive()?;
        if bytes == 0 {
            return Ok(());
        }
        self.0.enter()?;
        let r = result::memcpy_dtod_async(dst, src, bytes, self.0.cu_stream());
        self.0.check(r, || {
            format!("copying {bytes} bytes from {src:#x} to {dst:#x} on the device")
        })
    }

    unsafe fn memset(&self, dst: u64, value: u8, bytes: usize) -> Result<()> {
        self.0.alive()?;
        if bytes == 0 {
            return Ok(());
        }
        self.0.enter()?;
        let r = result::memset_d8_async(dst, value, bytes, self.0.cu_stream());
        self.0.check(r, || {
            format!("filling {bytes} bytes at {dst:#x} with {value:#04x}")
        })
    }

    unsafe fn launch<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()> {
        self.launch_with::<K>(grid, args, false)
    }

    unsafe fn launch_dependent<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()> {
        let pdl = self.0.info.arch == Arch::Sm90 && has_launch_ex();
        self.launch_with::<K>(grid, args, pdl)
    }

    fn synchronize(&self) -> Result<()> {
        self.0.enter()?;
        let r = self.0.stream.synchronize();
        self.0.check(r, || "waiting for the stream".to_string())
    }
}
