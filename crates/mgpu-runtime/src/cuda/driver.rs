//! Finding and loading the CUDA driver, and classifying its errors.
//!
//! cudarc loads `libcuda` at run time and panics when the library or an entry point is
//! missing; [`probe_driver`] checks for both once per process, without panicking, so
//! [`Context::new`](super::Context::new) can return [`Error::NoDevice`] instead.
//! [`has_launch_ex`] checks for the one optional entry point (programmatic dependent
//! launches). [`is_fatal`] tells the faults that poison a CUDA context from other
//! errors, [`describe`] words a driver error and [`plain_error`] maps one where no
//! `Context` exists yet.

use crate::Error;
use cudarc::driver::{sys, DriverError};
use std::ffi::c_void;
use std::sync::OnceLock;

/// Driver entry points used by the `cuda` module, directly or through cudarc. cudarc
/// resolves each on first call and panics when one is missing, so [`probe_driver`] checks
/// them all up front. The list is the CUDA 11.2 driver API (stream-ordered allocation), far
/// below what the committed PTX needs anyway (ISA 7.0: CUDA 11.0 for sm_70, ISA 7.8: CUDA
/// 12.0 for sm_90).
const REQUIRED_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamDestroy_v2",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD8Async",
    "cuModuleLoadDataEx",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
];

/// Whether the driver library and every entry point we call can be loaded; checked once
/// per process. Never panics and prints nothing.
pub(super) fn probe_driver() -> std::result::Result<(), String> {
    static PROBE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            // SAFETY: dlopen of the driver library under cudarc's candidate names; loading
            // it runs only the library's own initialisers.
            if !unsafe { sys::is_culib_present() } {
                return Err(
                    "the CUDA driver library (libcuda.so / nvcuda.dll) was not found; \
                     is the NVIDIA driver installed and on the library path?"
                        .to_string(),
                );
            }
            // SAFETY: the library is present (just checked), so `culib` does not panic; we
            // only look symbols up, never call them.
            let lib = unsafe { sys::culib() };
            let missing: Vec<&str> = REQUIRED_SYMBOLS
                .iter()
                .copied()
                .filter(|name| unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err())
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "the CUDA driver is too old (missing {}); mgpu needs a driver for CUDA \
                     11.2 or later (12.0 or later for sm_90 devices)",
                    missing.join(", ")
                ))
            }
        })
        .clone()
}

/// Whether the driver has `cuLaunchKernelEx` (CUDA 12.0), which programmatic dependent
/// launches need; checked once per process, after [`probe_driver`] succeeded.
pub(super) fn has_launch_ex() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        // SAFETY: only called with a context, so the library is present; a lookup only.
        let lib = unsafe { sys::culib() };
        unsafe { lib.get::<*const c_void>(b"cuLaunchKernelEx") }.is_ok()
    })
}

/// Errors after which the CUDA context is unusable: the driver returns them ("sticky") from
/// every later call in the context, which must be destroyed.
pub(super) fn is_fatal(code: sys::CUresult) -> bool {
    use sys::CUresult::*;
    matches!(
        code,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_NVLINK_UNCORRECTABLE
            | CUDA_ERROR_DEINITIALIZED
            | CUDA_ERROR_TENSOR_MEMORY_LEAK
            | CUDA_ERROR_CONTAINED
            | CUDA_ERROR_EXTERNAL_DEVICE
    )
}

/// `CUDA_ERROR_X (driver's description)`. Only called for errors a driver call returned,
/// so the driver library is loaded.
pub(super) fn describe(e: DriverError) -> String {
    match e.error_string() {
        Ok(s) => format!("{:?} ({})", e.0, s.to_string_lossy()),
        Err(_) => format!("{:?}", e.0),
    }
}

/// Classifies an error where no [`Context`](super::Context) exists yet (creating one).
pub(super) fn plain_error(e: DriverError, what: &str) -> Error {
    let text = format!("{what}: {}", describe(e));
    if is_fatal(e.0) {
        Error::ContextLost(text)
    } else {
        Error::Cuda(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sys::CUresult::*;

    #[test]
    fn faults_are_fatal_and_usage_errors_are_not() {
        for code in [
            CUDA_ERROR_ILLEGAL_ADDRESS,
            CUDA_ERROR_LAUNCH_FAILED,
            CUDA_ERROR_ILLEGAL_INSTRUCTION,
            CUDA_ERROR_MISALIGNED_ADDRESS,
            CUDA_ERROR_INVALID_PC,
            CUDA_ERROR_HARDWARE_STACK_ERROR,
            CUDA_ERROR_ASSERT,
            CUDA_ERROR_LAUNCH_TIMEOUT,
            CUDA_ERROR_CONTEXT_IS_DESTROYED,
        ] {
            assert!(is_fatal(code), "{code:?}");
        }
        for code in [
            CUDA_ERROR_INVALID_VALUE,
            CUDA_ERROR_OUT_OF_MEMORY,
            CUDA_ERROR_NOT_FOUND,
            CUDA_ERROR_INVALID_PTX,
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            CUDA_ERROR_NO_DEVICE,
        ] {
            assert!(!is_fatal(code), "{code:?}");
        }
    }
}
