//! The CUDA device: a cudarc driver-API context, one stream, lazily JIT-compiled PTX modules.
//!
//! Design notes:
//!
//! - The driver library is loaded at run time (cudarc `dynamic-loading`). cudarc panics
//!   when `libcuda` or one of its entry points is missing, so [`Context::new`] first looks
//!   for the library and for every entry point this file uses (through cudarc's own loader,
//!   so both look in the same places) and returns [`Error::NoDevice`] instead. A
//!   `catch_unwind` around the first driver calls is a last line of defence.
//! - [`Context::new`] uses the device's *primary* context, the one the CUDA runtime,
//!   cuBLAS and cudarc's [`CudaContext::new`] use, so mgpu memory and other libraries'
//!   memory live in one context. All of a [`Context`]'s work goes on one non-blocking
//!   stream (its own, or the caller's with [`Context::from_stream`]).
//! - Memory comes from the stream-ordered allocator (`cuMemAllocAsync`) when the device
//!   has memory pools, so frees need no synchronisation; otherwise from `cuMemAlloc`.
//! - A family's PTX module is JIT-compiled on first use (about 160 ms for a small module
//!   on an H100, cached by the driver afterwards) and kept with its functions until the
//!   last clone of the context is dropped.
//! - A device fault (trap, illegal address, ...) poisons the CUDA context for good: it is
//!   reported as [`Error::ContextLost`] and every later call returns that at once.

use crate::{Device, DeviceInfo, DeviceSlice, DeviceSliceMut, Error, Pool, Result};
use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError};
use mgpu_core::{Arch, Kernel};
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Driver entry points used here, directly or through cudarc. cudarc resolves each on first
/// call and panics when one is missing, so [`probe_driver`] checks them all up front. The
/// list is the CUDA 11.2 driver API (stream-ordered allocation), far below what the
/// committed PTX needs anyway (ISA 7.0: CUDA 11.0 for sm_70, ISA 7.8: CUDA 12.0 for sm_90).
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

/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_MAX_DYNAMIC_SHARED: u32 = 48 * 1024;

/// Bytes kept of the JIT compiler's error log.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// Whether the driver library and every entry point we call can be loaded; checked once
/// per process. Never panics and prints nothing.
fn probe_driver() -> std::result::Result<(), String> {
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
fn has_launch_ex() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        // SAFETY: only called with a context, so the library is present; a lookup only.
        let lib = unsafe { sys::culib() };
        unsafe { lib.get::<*const c_void>(b"cuLaunchKernelEx") }.is_ok()
    })
}

/// Errors after which the CUDA context is unusable: the driver returns them ("sticky") from
/// every later call in the context, which must be destroyed.
fn is_fatal(code: sys::CUresult) -> bool {
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
fn describe(e: DriverError) -> String {
    match e.error_string() {
        Ok(s) => format!("{:?} ({})", e.0, s.to_string_lossy()),
        Err(_) => format!("{:?}", e.0),
    }
}

/// Classifies an error where no [`Context`] exists yet (creating one).
fn plain_error(e: DriverError, what: &str) -> Error {
    let text = format!("{what}: {}", describe(e));
    if is_fatal(e.0) {
        Error::ContextLost(text)
    } else {
        Error::Cuda(text)
    }
}

/// A loaded PTX module and the functions looked up in it.
struct Module {
    handle: sys::CUmodule,
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

struct Inner {
    info: DeviceInfo,
    pool: Pool,
    stream: Arc<CudaStream>,
    /// Memory comes from `cuMemAllocAsync` (else `cuMemAlloc`).
    async_alloc: bool,
    /// Set by the first device fault: the description every later call returns.
    lost: OnceLock<String>,
    /// Loaded modules by family ([`Kernel::MODULE`]).
    modules: Mutex<HashMap<&'static str, Module>>,
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
        for (_, m) in modules.drain() {
            // SAFETY: loaded by load_module, unloaded once; no work is queued any more.
            let _ = unsafe { result::module::unload(m.handle) };
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
    fn function<K: Kernel>(&self) -> Result<sys::CUfunction> {
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

/// A CUDA device: a context (the device's primary context), one stream all work goes on,
/// the kernel modules (the committed PTX of `mgpu-kernels-ptx`, JIT-compiled per family on
/// first use), the temporaries' [`Pool`] and the device's [`DeviceInfo`].
///
/// Cloning is cheap and shares all of it; memory cached by the pool is freed when the last
/// clone (and the last [`DeviceVec`](crate::DeviceVec) on it) is dropped.
///
/// Launches, device-to-device copies and fills are asynchronous on the stream; copies to
/// the host and [`Device::synchronize`] wait for it.
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

impl Context {
    /// Opens CUDA device `ordinal` (0 is the first): retains its primary context and
    /// creates a non-blocking stream for this `Context`'s work.
    ///
    /// Never panics: without a CUDA driver (or with one older than CUDA 11.2), without a
    /// device `ordinal`, when the device cannot be opened, or when it is older than
    /// compute capability 7.0, it returns [`Error::NoDevice`] saying which.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Context, Device, Error};
    /// match Context::new(0) {
    ///     Ok(ctx) => println!("{} ({:?})", ctx.info().name, ctx.arch()),
    ///     Err(Error::NoDevice(why)) => println!("no GPU: {why}"),
    ///     Err(e) => panic!("{e}"),
    /// }
    /// // An ordinal no machine has.
    /// assert!(matches!(Context::new(1 << 20), Err(Error::NoDevice(_))));
    /// ```
    pub fn new(ordinal: usize) -> Result<Context> {
        probe_driver().map_err(Error::NoDevice)?;
        let opened = std::panic::catch_unwind(|| Self::open(ordinal)).unwrap_or_else(|p| {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the CUDA driver could not be used".to_string());
            Err(Error::NoDevice(why))
        })?;
        Self::from_stream(opened)
    }

    /// The driver calls of [`Context::new`] once the driver is known to be loadable.
    fn open(ordinal: usize) -> Result<Arc<CudaStream>> {
        let no_device =
            |what: &str, e: DriverError| Error::NoDevice(format!("{what}: {}", describe(e)));
        result::init().map_err(|e| no_device("initialising the CUDA driver", e))?;
        let count =
            result::device::get_count().map_err(|e| no_device("counting CUDA devices", e))?;
        let count = usize::try_from(count).unwrap_or(0);
        if ordinal >= count {
            return Err(Error::NoDevice(format!(
                "no device {ordinal}: the driver sees {count} CUDA device(s)"
            )));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| no_device(&format!("opening CUDA device {ordinal}"), e))?;
        ctx.new_stream()
            .map_err(|e| plain_error(e, &format!("creating a stream on device {ordinal}")))
    }

    /// A `Context` whose work goes on the caller's `stream` (and in its CUDA context), so
    /// mgpu calls are ordered with the caller's own kernels, copies and libraries on that
    /// stream, without copies or extra synchronisation. mgpu's allocations are
    /// stream-ordered on that stream too.
    ///
    /// Errors: [`Error::NoDevice`] if the stream's device is older than compute
    /// capability 7.0; [`Error::Cuda`] / [`Error::ContextLost`] if its properties cannot
    /// be read.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Context, Device, Error};
    /// # let Ok(ctx) = Context::new(0) else { return };
    /// // e.g. a stream of cudarc, shared with the caller's own kernels:
    /// let stream = ctx.cuda_context().new_stream().unwrap();
    /// let mine = Context::from_stream(stream.clone()).unwrap();
    /// assert_eq!(mine.stream(), &stream);
    /// assert_eq!(mine.info(), ctx.info());
    /// ```
    pub fn from_stream(stream: Arc<CudaStream>) -> Result<Context> {
        Self::on_stream(stream, None)
    }

    /// A `Context` on the same stream that uses the PTX and tuning table of an older
    /// architecture, for example [`Arch::Sm70`] on a Hopper GPU (PTX JIT-compiles forward),
    /// to test or compare that code path on newer hardware. Buffers of the two contexts
    /// are interchangeable in the sense that both queue on one stream, but each keeps its
    /// own pool and modules.
    ///
    /// Errors: [`Error::NoDevice`] when the device is older than `arch`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Arch, Context, Device};
    /// # let Ok(ctx) = Context::new(0) else { return };
    /// let volta = ctx.with_arch(Arch::Sm70).unwrap();
    /// assert_eq!(volta.arch(), Arch::Sm70);
    /// ```
    pub fn with_arch(&self, arch: Arch) -> Result<Context> {
        Self::on_stream(self.0.stream.clone(), Some(arch))
    }

    /// [`Context::from_stream`], with the PTX of `arch` instead of the device's own.
    fn on_stream(stream: Arc<CudaStream>, arch: Option<Arch>) -> Result<Context> {
        let ctx = stream.context().clone();
        let ordinal = ctx.ordinal();
        let what = |q: &str| format!("reading the {q} of CUDA device {ordinal}");
        ctx.bind_to_thread()
            .map_err(|e| plain_error(e, &what("context")))?;
        let name = ctx.name().map_err(|e| plain_error(e, &what("name")))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| plain_error(e, &what("compute capability")))?;
        let sm_count = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| plain_error(e, &what("multiprocessor count")))?;
        let total_memory = ctx
            .total_mem()
            .map_err(|e| plain_error(e, &what("memory size")))?;
        let cc = (
            u32::try_from(major).unwrap_or(0),
            u32::try_from(minor).unwrap_or(0),
        );
        let native = Arch::for_compute_capability(cc.0, cc.1).ok_or_else(|| {
            Error::NoDevice(format!(
                "device {ordinal} ({name}) has compute capability {major}.{minor}; mgpu \
                 needs 7.0 (Volta) or later"
            ))
        })?;
        let arch = match arch {
            None => native,
            Some(Arch::Sm90) if native == Arch::Sm70 => {
                return Err(Error::NoDevice(format!(
                    "device {ordinal} ({name}) has compute capability {major}.{minor}: \
                     the sm_90 PTX needs 9.0 or later"
                )))
            }
            Some(a) => a,
        };
        Ok(Context(Arc::new(Inner {
            info: DeviceInfo {
                name,
                compute_capability: cc,
                sm_count: u32::try_from(sm_count).unwrap_or(0),
                total_memory,
                arch,
            },
            pool: Pool::default(),
            async_alloc: ctx.has_async_alloc(),
            stream,
            lost: OnceLock::new(),
            modules: Mutex::new(HashMap::new()),
        })))
    }

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

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("ordinal", &self.cuda_context().ordinal())
            .field("info", &self.0.info)
            .field("lost", &self.0.lost.get())
            .finish_non_exhaustive()
    }
}

impl Context {
    /// [`Device::launch`], as a programmatic dependent launch (`cuLaunchKernelEx` with
    /// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`) when `dependent`.
    unsafe fn launch_with<K: Kernel>(
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

    #[test]
    fn context_is_send_and_sync() {
        fn check<T: Send + Sync + 'static>() {}
        check::<Context>();
    }
}
