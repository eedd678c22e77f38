//! Queuing a kernel on a [`Context`]'s stream: a plain launch (`cuLaunchKernel`) or a
//! programmatic dependent launch (`cuLaunchKernelEx`), with the kernel's `Args` struct as
//! its single by-value parameter.

use super::Context;
use crate::Result;
use cudarc::driver::{result, sys};
use mgpu_core::Kernel;
use std::ffi::c_void;

impl Context {
    /// The kernel modules this context has loaded, sorted, each as `"<family> cubin"` (the
    /// family's ahead-of-time cubin), `"<family> entry <name>"` (one entry's PTX,
    /// JIT-compiled) or `"<family> family"` (the family's whole PTX,
    /// `MGPU_KERNEL_LOAD=family`). For tests and measurements.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::Context;
    /// if let Ok(ctx) = Context::new(0) {
    ///     assert!(ctx.loaded_modules().is_empty()); // nothing launched yet
    /// }
    /// ```
    #[doc(hidden)]
    pub fn loaded_modules(&self) -> Vec<String> {
        self.0.loaded_modules()
    }

    /// [`Device::launch`], as a programmatic dependent launch (`cuLaunchKernelEx` with
    /// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`) when `dependent`.
    ///
    /// [`Device::launch`]: crate::Device::launch
    pub(super) unsafe fn launch_with<K: Kernel>(
        &self,
        grid: u32,
        args: &K::Args,
        dependent: bool,
    ) -> Result<()> {
        self.0.alive()?;
        if grid == 0 {
            return Ok(());
        }
        self.0.enter()?;
        let function = self.0.function::<K>()?;
        // The entry point's single parameter is the Args struct by value: the driver copies
        // it from this pointer when the launch is queued.
        let mut args: K::Args = *args;
        let mut params = [(&mut args as *mut K::Args).cast::<c_void>()];
        let r = if dependent {
            let mut attr: sys::CUlaunchAttribute = std::mem::zeroed();
            attr.id =
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            let config = sys::CUlaunchConfig {
                gridDimX: grid,
                gridDimY: 1,
                gridDimZ: 1,
                blockDimX: K::NT,
                blockDimY: 1,
                blockDimZ: 1,
                sharedMemBytes: K::SHARED_BYTES,
                hStream: self.0.cu_stream(),
                attrs: &mut attr,
                numAttrs: 1,
            };
            // SAFETY: `config` and `attr` outlive the call; `params` holds one pointer to
            // the by-value argument, as for cuLaunchKernel.
            sys::cuLaunchKernelEx(&config, function, params.as_mut_ptr(), std::ptr::null_mut())
                .result()
        } else {
            result::launch_kernel(
                function,
                (grid, 1, 1),
                (K::NT, 1, 1),
                K::SHARED_BYTES,
                self.0.cu_stream(),
                &mut params,
            )
        };
        self.0.check(r, || {
            format!(
                "launching {} ({grid} CTAs of {} threads, {} bytes of dynamic shared memory{})",
                K::ENTRY,
                K::NT,
                K::SHARED_BYTES,
                if dependent { ", dependent" } else { "" }
            )
        })
    }
}
