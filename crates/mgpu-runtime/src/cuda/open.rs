//! Opening a [`Context`]: on a device's primary context ([`Context::new`], which turns a
//! missing driver or device into [`Error::NoDevice`]), on a caller's stream
//! ([`Context::from_stream`]) or with an older architecture's PTX ([`Context::with_arch`]),
//! and reading the device's properties.

use super::driver::{describe, plain_error, probe_driver};
use super::modules::Modules;
use super::{Context, Inner};
use crate::{DeviceInfo, Error, Pool, Result};
use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError};
use mgpu_core::Arch;
use std::sync::{Arc, Mutex, OnceLock};

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
            modules: Mutex::new(Modules::new()?),
        })))
    }
}
