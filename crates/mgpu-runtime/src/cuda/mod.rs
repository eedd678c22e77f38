//! The CUDA device: a cudarc driver-API context, one stream, kernel modules loaded lazily
//! (cubins, or JIT-compiled PTX).
//!
//! Design notes:
//!
//! - The driver library is loaded at run time (cudarc `dynamic-loading`). cudarc panics
//!   when `libcuda` or one of its entry points is missing, so [`Context::new`] first looks
//!   for the library and for every entry point this module uses (through cudarc's own
//!   loader, so both look in the same places) and returns [`Error::NoDevice`] instead. A
//!   `catch_unwind` around the first driver calls is a last line of defence.
//! - [`Context::new`] uses the device's *primary* context, the one the CUDA runtime,
//!   cuBLAS and cudarc's [`CudaContext::new`] use, so mgpu memory and other libraries'
//!   memory live in one context. All of a [`Context`]'s work goes on one non-blocking
//!   stream (its own, or the caller's with [`Context::from_stream`]).
//! - Memory comes from the stream-ordered allocator (`cuMemAllocAsync`) when the device
//!   has memory pools, so frees need no synchronisation; otherwise from `cuMemAlloc`.
//! - A kernel's module is loaded on first use and kept with its function until the last
//!   clone of the context is dropped: its family's ahead-of-time cubin on a device of the
//!   cubin's architecture (sm_90), else one PTX module per kernel entry, cut out of its
//!   family's committed PTX and JIT-compiled, so a first call compiles only the kernels it
//!   launches (a family's whole module took seconds: 6.4 s for scan on an H100 with an
//!   empty JIT cache; `MGPU_KERNEL_LOAD=entry` or `family` picks those, for measuring).
//!   The driver caches JIT-compiled code across processes.
//! - A device fault (trap, illegal address, ...) poisons the CUDA context for good: it is
//!   reported as [`Error::ContextLost`] and every later call returns that at once.
//!
//! The module's files:
//!
//! - `driver`: finding and loading the driver library and its entry points
//!   ([`Error::NoDevice`] instead of cudarc's panics), and classifying driver errors
//!   (faults that poison the context, descriptions).
//! - `open`: opening a [`Context`] ([`Context::new`], [`Context::from_stream`],
//!   [`Context::with_arch`]) and reading the device's properties.
//! - `interop`: cudarc's stream and context, and cudarc buffers borrowed as mgpu slices.
//! - `modules`: the per-context cache of kernel modules, loaded on first use: a family's
//!   ahead-of-time cubin on a device of its architecture, else one module per kernel
//!   entry JIT-compiled from the family's PTX (the committed PTX, or a file of
//!   `MGPU_PTX_DIR`), and the kernel functions looked up in them.
//! - `launch`: queuing a kernel, plain or as a programmatic dependent launch.
//! - `device`: the [`Device`] impl (memory, copies, fills, launches, synchronisation).
//! - this file: [`Context`] and the state its clones share (fault poisoning, error
//!   mapping, binding the context to a thread, freeing, and the teardown of the last clone).
//!
//! [`CudaContext::new`]: cudarc::driver::CudaContext::new
//! [`Device`]: crate::Device

mod device;
mod driver;
mod interop;
mod launch;
mod modules;
mod open;

use crate::{DeviceInfo, Error, Pool, Result};
use cudarc::driver::{result, sys, CudaStream, DriverError};
use driver::{describe, is_fatal};
use modules::Modules;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

struct Inner {
    info: DeviceInfo,
    pool: Pool,
    stream: Arc<CudaStream>,
    /// Memory comes from `cuMemAllocAsync` (else `cuMemAlloc`).
    async_alloc: bool,
    /// Set by the first device fault: the description every later call returns.
    lost: OnceLock<String>,
    /// Loaded modules: per family its cubin, or one per kernel entry
    /// ([`Kernel::ENTRY`](mgpu_core::Kernel::ENTRY)) of its PTX (see `modules`).
    modules: Mutex<Modules>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let blocks = self.pool.drain();
        // After a fault the context can do nothing; its memory and modules go when the
        // driver destroys it (the last release of the primary context).
        if self.lost.get().is_some() || self.stream.context().bind_to_thread().is_err() {
            return;
        }
        for (ptr, bytes) in blocks {
            // SAFETY: pool blocks were allocated by alloc_bytes with this size class, and
            // no clone of the context (hence no user of the pool) is left.
            unsafe { self.free(ptr, bytes) };
        }
        // Kernels still queued may be running code of the modules unloaded below.
        let _ = self.stream.synchronize();
        let modules = self
            .modules
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for handle in modules.drain() {
            // SAFETY: loaded by load_module, unloaded once; no work is queued any more.
            let _ = unsafe { result::module::unload(handle) };
        }
    }
}

impl Inner {
    fn cu_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }

    /// `Err(ContextLost)` once a fault has been seen.
    fn alive(&self) -> Result<()> {
        match self.lost.get() {
            Some(s) => Err(Error::ContextLost(s.clone())),
            None => Ok(()),
        }
    }

    /// Maps a driver error, poisoning the context on a fault.
    fn fail(&self, e: DriverError, what: impl FnOnce() -> String) -> Error {
        let text = format!("{}: {}", what(), describe(e));
        if is_fatal(e.0) {
            let _ = self.lost.set(text.clone());
            Error::ContextLost(text)
        } else {
            Error::Cuda(text)
        }
    }

    fn check<T>(
        &self,
        r: std::result::Result<T, DriverError>,
        what: impl FnOnce() -> String,
    ) -> Result<T> {
        r.map_err(|e| self.fail(e, what))
    }

    /// Checks the context is alive and makes it current on this thread.
    fn enter(&self) -> Result<()> {
        self.alive()?;
        let r = self.stream.context().bind_to_thread();
        self.check(r, || "binding the CUDA context to this thread".to_string())
    }

    /// Frees without reporting (the context is current).
    unsafe fn free(&self, ptr: u64, bytes: usize) {
        let r = if self.async_alloc {
            result::free_async(ptr, self.cu_stream())
        } else {
            // cuMemFree does not wait for our (non-blocking) stream: drain it first.
            self.stream
                .synchronize()
                .and_then(|()| result::free_sync(ptr))
        };
        if let Err(e) = r {
            // Nothing to report to; a fault still poisons the context.
            let _ = self.fail(e, || format!("freeing {bytes} bytes at {ptr:#x}"));
        }
    }
}

/// A CUDA device: a context (the device's primary context), one stream all work goes on,
/// the kernel modules (the committed PTX of `mgpu-kernels-ptx`, JIT-compiled one kernel
/// entry at a time, on its first launch), the temporaries' [`Pool`] and the device's
/// [`DeviceInfo`].
///
/// Cloning is cheap and shares all of it; memory cached by the pool is freed when the last
/// clone (and the last [`DeviceVec`](crate::DeviceVec) on it) is dropped.
///
/// Launches, device-to-device copies and fills are asynchronous on the stream; copies to
/// the host and [`Device::synchronize`](crate::Device::synchronize) wait for it.
///
/// # Errors
///
/// - [`Error::NoDevice`] from [`Context::new`] when there is no CUDA driver, no device with
///   that ordinal, or the device is older than compute capability 7.0 (Volta).
/// - [`Error::ContextLost`] after a device fault (a trap, an out-of-bounds access): the
///   CUDA context is unusable and every later call of this `Context` returns it at once.
///   Drop every clone and every buffer of it (the driver resets the device's primary
///   context when its last user releases it) and create a new one.
/// - [`Error::OutOfMemory`] when an allocation fails for lack of memory.
/// - [`Error::Cuda`] for any other driver failure, including a kernel family missing
///   from `mgpu-kernels-ptx`.
///
/// # Examples
///
/// Runs on machines with and without a GPU:
///
/// ```
/// use mgpu_runtime::{Context, Device, DeviceVec, Error};
/// match Context::new(0) {
///     Ok(ctx) => {
///         let v = DeviceVec::from_slice(&ctx, &[1u32, 2, 3]).unwrap();
///         assert_eq!(v.to_vec().unwrap(), vec![1, 2, 3]);
///         assert!(ctx.info().compute_capability >= (7, 0));
///     }
///     Err(Error::NoDevice(why)) => println!("no GPU here: {why}"),
///     Err(e) => panic!("{e}"),
/// }
/// ```
#[derive(Clone)]
pub struct Context(Arc<Inner>);

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("ordinal", &self.cuda_context().ordinal())
            .field("info", &self.0.info)
            .field("lost", &self.0.lost.get())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_send_and_sync() {
        fn check<T: Send + Sync + 'static>() {}
        check::<Context>();
    }
}
