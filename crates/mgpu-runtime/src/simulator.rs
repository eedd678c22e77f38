//! The simulator device: host memory and the coroutine CTA simulator.

use crate::{Device, DeviceInfo, Pool, Result};
use mgpu_core::{Arch, Kernel};
use std::alloc::{alloc, dealloc, Layout};
use std::sync::Arc;

const ALIGN: usize = 256;

struct Inner {
    info: DeviceInfo,
    pool: Pool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        for (p, bytes) in self.pool.drain() {
            // SAFETY: pool blocks were allocated by alloc_bytes with this size class.
            unsafe { free(p, bytes) };
        }
    }
}

unsafe fn free(ptr: u64, bytes: usize) {
    if bytes != 0 {
        dealloc(
            ptr as *mut u8,
            Layout::from_size_align(bytes, ALIGN).unwrap(),
        );
    }
}

/// A [`Device`] that runs kernels in the coroutine CTA simulator of `mgpu-core` on host
/// memory, CTAs one at a time in block order. Slow, exact, and available everywhere: the
/// test suite runs every host launcher on it.
///
/// It reports the tuning of an [`Arch`] (sm_90 by default), so both tuning tables can be
/// tested.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Arch, Device, Simulator};
/// let sim = Simulator::with_arch(Arch::Sm70);
/// assert_eq!(sim.arch(), Arch::Sm70);
/// ```
#[derive(Clone)]
pub struct Simulator(Arc<Inner>);

impl Default for Simulator {
    fn default() -> Self {
        Self::new()
    }
}

impl Simulator {
    /// A simulator with the sm_90 tuning.
    pub fn new() -> Self {
        Self::with_arch(Arch::Sm90)
    }

    /// A simulator with the tuning of `arch`.
    pub fn with_arch(arch: Arch) -> Self {
        let cc = arch.compute_capability();
        Simulator(Arc::new(Inner {
            info: DeviceInfo {
                name: "mgpu CTA simulator".to_string(),
                compute_capability: cc,
                sm_count: 4,
                total_memory: 1 << 32,
                arch,
            },
            pool: Pool::default(),
        }))
    }
}

impl Device for Simulator {
    fn info(&self) -> &DeviceInfo {
        &self.0.info
    }
    fn pool(&self) -> &Pool {
        &self.0.pool
    }
    fn alloc_bytes(&self, bytes: usize) -> Result<u64> {
        if bytes == 0 {
            return Ok(0);
        }
        let layout = Layout::from_size_align(bytes, ALIGN)
            .map_err(|_| crate::Error::OutOfMemory { bytes })?;
        // SAFETY: non-zero size.
        let p = unsafe { alloc(layout) };
        if p.is_null() {
            return Err(crate::Error::OutOfMemory { bytes });
        }
        Ok(p as u64)
    }
    unsafe fn free_bytes(&self, ptr: u64, bytes: usize) {
        free(ptr, bytes)
    }
    unsafe fn copy_htod(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()> {
        if bytes != 0 {
            std::ptr::copy_nonoverlapping(src, dst as *mut u8, bytes);
        }
        Ok(())
    }
    unsafe fn copy_dtoh(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()> {
        if bytes != 0 {
            std::ptr::copy_nonoverlapping(src as *const u8, dst, bytes);
        }
        Ok(())
    }
    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes != 0 {
            std::ptr::copy(src as *const u8, dst as *mut u8, bytes);
        }
        Ok(())
    }
    unsafe fn memset(&self, dst: u64, value: u8, bytes: usize) -> Result<()> {
        if bytes != 0 {
            std::ptr::write_bytes(dst as *mut u8, value, bytes);
        }
        Ok(())
    }
    unsafe fn launch<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()> {
        if grid > 0 {
            mgpu_core::sim::launch_kernel::<K>(grid, args);
        }
        Ok(())
    }
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
}
