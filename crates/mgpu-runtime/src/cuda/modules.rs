//! The PTX module cache: each kernel family's module is JIT-compiled on first use, from the
//! committed PTX of `mgpu-kernels-ptx` or from `$MGPU_PTX_DIR`, and kept with the kernel
//! functions looked up in it (and their dynamic shared memory opt-in) until the last clone
//! of the [`Context`](super::Context) is dropped.

use super::Inner;
use crate::{Error, Result};
use cudarc::driver::{result, sys};
use mgpu_core::Kernel;
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString};
use std::sync::PoisonError;

/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_MAX_DYNAMIC_SHARED: u32 = 48 * 1024;

/// Bytes kept of the JIT compiler's error log.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// A loaded PTX module and the functions looked up in it.
pub(super) struct Module {
    pub(super) handle: sys::CUmodule,
    functions: HashMap<&'static str, Function>,
}

#[derive(Clone, Copy)]
struct Function {
    handle: sys::CUfunction,
    /// The dynamic shared memory the function has been opted in to (0: the default 48 KiB).
    shared_opt_in: u32,
}

// SAFETY: driver module and function handles are plain identifiers, valid on any thread
// once the owning context is bound (every use binds it first); the map is behind a Mutex.
unsafe impl Send for Module {}

impl Inner {
    /// JIT-compiles `family`'s PTX for this device: the committed PTX, or
    /// `$MGPU_PTX_DIR/<family>_<arch>.ptx` when that variable names a folder holding that
    /// file (a knob for measuring PTX variants with the same binaries, not for users).
    fn load_module(&self, family: &'static str) -> Result<sys::CUmodule> {
        let arch = self.info.arch.name();
        let file = std::env::var_os("MGPU_PTX_DIR")
            .map(|d| std::path::PathBuf::from(d).join(format!("{family}_{arch}.ptx")))
            .filter(|p| p.is_file());
        let text;
        let ptx = if let Some(p) = file {
            text = std::fs::read_to_string(&p)
                .map_err(|e| Error::Cuda(format!("reading {}: {e}", p.display())))?;
            Some(text.as_str())
        } else {
            mgpu_kernels_ptx::ptx(family, arch)
        };
        let ptx = ptx.ok_or_else(|| {
            let known: Vec<&str> = mgpu_kernels_ptx::families().collect();
            Error::Cuda(format!(
                "no PTX for kernel family \"{family}\" ({arch}) in mgpu-kernels-ptx \
                 (registered: {known:?}); generate kernels-ptx/ptx/{family}_sm_70.ptx and \
                 _sm_90.ptx with `cargo xtask ptx` and add {family} to the families! list \
                 in kernels-ptx/src/lib.rs"
            ))
        })?;
        let src = CString::new(ptx)
            .map_err(|_| Error::Cuda(format!("the {family} PTX ({arch}) contains a NUL byte")))?;
        let mut log = vec![0u8; JIT_LOG_BYTES];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = [
            log.as_mut_ptr().cast::<c_void>(),
            std::ptr::without_provenance_mut::<c_void>(log.len()),
        ];
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `src` is NUL-terminated PTX text; the options point at `log`, which
        // outlives the call, and give its size.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                src.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        }
        .result();
        self.check(r, || {
            let text = CStr::from_bytes_until_nul(&log)
                .map(|s| s.to_string_lossy().trim().to_string())
                .unwrap_or_default();
            format!(
                "JIT-compiling the {family} PTX ({arch}) on {}: {text}",
                self.info.name
            )
        })?;
        Ok(module)
    }

    /// The function of kernel `K`, loading its module on first use (the context is current).
    pub(super) fn function<K: Kernel>(&self) -> Result<sys::CUfunction> {
        let mut modules = self.modules.lock().unwrap_or_else(PoisonError::into_inner);
        let module = match modules.entry(K::MODULE) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let handle = self.load_module(K::MODULE)?;
                e.insert(Module {
                    handle,
                    functions: HashMap::new(),
                })
            }
        };
        let function = match module.functions.get(K::ENTRY) {
            Some(&f) => f,
            None => {
                let name = CString::new(K::ENTRY).map_err(|_| {
                    Error::Cuda(format!(
                        "kernel entry name {:?} contains a NUL byte",
                        K::ENTRY
                    ))
                })?;
                // SAFETY: the module is loaded and stays loaded while the context lives.
                let r = unsafe { result::module::get_function(module.handle, name) };
                let handle = self.check(r, || {
                    format!(
                        "looking up entry point {} in the {} PTX ({}); is the committed PTX \
                         stale? (`cargo xtask ptx`)",
                        K::ENTRY,
                        K::MODULE,
                        self.info.arch.name()
                    )
                })?;
                Function {
                    handle,
                    shared_opt_in: 0,
                }
            }
        };
        let mut function = function;
        if K::SHARED_BYTES > DEFAULT_MAX_DYNAMIC_SHARED && K::SHARED_BYTES > function.shared_opt_in
        {
            // SAFETY: a valid function handle of the current context.
            let r = unsafe {
                result::function::set_function_attribute(
                    function.handle,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    K::SHARED_BYTES as i32,
                )
            };
            self.check(r, || {
                format!(
                    "allowing {} bytes of dynamic shared memory for {} on {}",
                    K::SHARED_BYTES,
                    K::ENTRY,
                    self.info.name
                )
            })?;
            function.shared_opt_in = K::SHARED_BYTES;
        }
        module.functions.insert(K::ENTRY, function);
        Ok(function.handle)
    }
}
