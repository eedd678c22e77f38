//! [`Backend`]: where a program's buffers live and its algorithms run.

use crate::buffer::{Buffer, BufferDevice};
use mgpu_core::{Element, Error, Result};
use mgpu_runtime::{Context, Device, DeviceVec, Simulator};
use std::fmt;

/// Where buffers live and algorithms run: a CUDA device, the CTA simulator, or the CPU.
///
/// Every algorithm is a method with the same signature and semantics on every backend,
/// taking and returning [`Buffer`]s made by the same backend, so one program runs on the
/// GPU or on the CPU unchanged:
///
/// - [`Backend::Cuda`]: the kernels on a CUDA GPU (`mgpu-scan` and the other algorithm
///   crates over a [`Context`]).
/// - [`Backend::Simulator`]: the same kernels in the CTA simulator on host memory: slow,
///   exact, and available everywhere; for tests.
/// - [`Backend::Cpu`]: the rayon CPU backend (`mgpu-cpu`) on host vectors.
///
/// Calls that return a host value (a total, a reduction) wait for the device (they
/// synchronise); the others only queue work on a GPU backend's stream. The backend is
/// cheap to clone (clones share the device, its stream and its memory pool).
///
/// # Examples
///
/// ```
/// use mgpu::{Backend, Plus};
/// let backend = Backend::detect(); // CUDA device 0 if there is one, else the CPU
/// println!("running on {}", backend.describe());
/// let x = backend.upload(&[1u64, 2, 3])?;
/// let (scanned, total) = backend.scan_exclusive(&x, Plus)?;
/// assert_eq!(scanned.to_vec()?, vec![0, 1, 3]);
/// assert_eq!(total, 6);
/// # Ok::<(), mgpu::Error>(())
/// ```
#[derive(Clone)]
pub enum Backend {
    /// A CUDA device, through its [`Context`].
    Cuda(Context),
    /// The GPU kernels run by the CTA [`Simulator`] on host memory.
    Simulator(Simulator),
    /// The rayon CPU backend on host memory.
    Cpu,
}

impl Backend {
    /// CUDA device 0 when [`Context::new`]`(0)` succeeds, else the CPU backend. Never
    /// panics: without a driver or a usable device it quietly picks the CPU.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let backend = Backend::detect();
    /// assert!(matches!(backend, Backend::Cuda(_) | Backend::Cpu));
    /// if let Backend::Cpu = backend {
    ///     assert_eq!(backend.describe(), "no CUDA device: CPU backend");
    /// }
    /// ```
    pub fn detect() -> Backend {
        Context::new(0).map_or(Backend::Cpu, Backend::Cuda)
    }

    /// The rayon CPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Plus};
    /// let cpu = Backend::cpu();
    /// assert_eq!(cpu.reduce(&cpu.upload(&[2i32, 3])?, Plus)?, 5);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn cpu() -> Backend {
        Backend::Cpu
    }

    /// CUDA device `ordinal` (0 is the first), with a stream of its own.
    ///
    /// # Errors
    ///
    /// [`Error::NoDevice`] without a CUDA driver, without device `ordinal`, or when the
    /// device is older than compute capability 7.0 (see [`Context::new`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Error};
    /// match Backend::cuda(0) {
    ///     Ok(gpu) => println!("{}", gpu.describe()),
    ///     Err(e) => assert!(matches!(e, Error::NoDevice(_))),
    /// }
    /// // No machine has this device.
    /// assert!(matches!(Backend::cuda(1 << 20), Err(Error::NoDevice(_))));
    /// ```
    pub fn cuda(ordinal: usize) -> Result<Backend> {
        Context::new(ordinal).map(Backend::Cuda)
    }

    /// The GPU kernels in a new CTA simulator with the sm_90 tuning. For tests: it runs
    /// the real kernels one CTA at a time on the host, so keep inputs small.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Multiplies};
    /// let sim = Backend::simulator();
    /// assert_eq!(sim.describe(), "mgpu CTA simulator");
    /// assert_eq!(sim.reduce(&sim.upload(&[2i64, 3, 4])?, Multiplies)?, 24);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn simulator() -> Backend {
        Backend::Simulator(Simulator::new())
    }

    /// What the backend runs on, for people: the device name with its compute capability
    /// and SM count for CUDA (e.g. `"NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"`),
    /// `"mgpu CTA simulator"` for the simulator, and `"no CUDA device: CPU backend"` for the
    /// CPU.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// assert_eq!(Backend::cpu().describe(), "no CUDA device: CPU backend");
    /// ```
    pub fn describe(&self) -> String {
        match self {
            Backend::Cuda(ctx) => {
                let info = ctx.info();
                let (major, minor) = info.compute_capability;
                format!("{} (sm_{major}{minor}, {} SMs)", info.name, info.sm_count)
            }
            Backend::Simulator(sim) => sim.info().name.clone(),
            Backend::Cpu => "no CUDA device: CPU backend".to_string(),
        }
    }

    /// A copy of `host` in a new buffer on this backend.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let buf = Backend::cpu().upload(&[1.5f32, 2.5])?;
    /// assert_eq!(buf.len(), 2);
    /// assert_eq!(buf.to_vec()?, vec![1.5, 2.5]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn upload<T: Copy + 'static>(&self, host: &[T]) -> Result<Buffer<T>> {
        Ok(match self {
            Backend::Cuda(ctx) => Buffer::Cuda(DeviceVec::from_slice(ctx, host)?),
            Backend::Simulator(sim) => Buffer::Simulator(DeviceVec::from_slice(sim, host)?),
            Backend::Cpu => Buffer::Host(host.to_vec()),
        })
    }

    /// A new buffer of `n` zeros on this backend.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let buf = Backend::simulator().zeros::<u64>(3)?;
    /// assert_eq!(buf.to_vec()?, vec![0, 0, 0]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn zeros<T: Element>(&self, n: usize) -> Result<Buffer<T>> {
        Ok(match self {
            Backend::Cuda(ctx) => Buffer::Cuda(DeviceVec::zeros(ctx, n)?),
            Backend::Simulator(sim) => Buffer::Simulator(DeviceVec::zeros(sim, n)?),
            Backend::Cpu => Buffer::Host(vec![T::ZERO; n]),
        })
    }

    /// `buf` seen as living on this backend, or [`Error::InvalidInput`] naming `what` when
    /// it was made by another backend (another kind, or another CUDA context or simulator
    /// instance). A clone of a backend is the same backend.
    pub(crate) fn view<'a, T: Copy + 'static>(
        &self,
        buf: &'a Buffer<T>,
        what: &str,
    ) -> Result<View<'a, T>> {
        if !self.owns(buf) {
            return Err(self.foreign(buf, what));
        }
        Ok(match buf {
            Buffer::Cuda(v) => View::Gpu(v),
            Buffer::Simulator(v) => View::Sim(v),
            Buffer::Host(v) => View::Host(v),
        })
    }

    /// [`Backend::view`] for writing.
    pub(crate) fn view_mut<'a, T: Copy + 'static>(
        &self,
        buf: &'a mut Buffer<T>,
        what: &str,
    ) -> Result<ViewMut<'a, T>> {
        if !self.owns(buf) {
            return Err(self.foreign(buf, what));
        }
        Ok(match buf {
            Buffer::Cuda(v) => ViewMut::Gpu(v),
            Buffer::Simulator(v) => ViewMut::Sim(v),
            Buffer::Host(v) => ViewMut::Host(v),
        })
    }

    /// Whether `buf` was made by this backend (or a clone of it).
    fn owns<T: Copy + 'static>(&self, buf: &Buffer<T>) -> bool {
        match (self, buf) {
            (Backend::Cuda(ctx), Buffer::Cuda(v)) => same_instance(ctx, v),
            (Backend::Simulator(sim), Buffer::Simulator(v)) => same_instance(sim, v),
            (Backend::Cpu, Buffer::Host(_)) => true,
            _ => false,
        }
    }

    /// The error for a buffer `what` that another backend made.
    fn foreign<T: Copy + 'static>(&self, buf: &Buffer<T>, what: &str) -> Error {
        let backend = match self {
            Backend::Cuda(_) => format!("the CUDA backend ({})", self.describe()),
            Backend::Simulator(_) => "the simulator backend".to_string(),
            Backend::Cpu => "the CPU backend".to_string(),
        };
        let other = match (self, buf) {
            (Backend::Cuda(_), Buffer::Cuda(_)) => "another CUDA context",
            (Backend::Simulator(_), Buffer::Simulator(_)) => "another simulator instance",
            (_, Buffer::Cuda(_)) => "the CUDA backend",
            (_, Buffer::Simulator(_)) => "the simulator backend",
            (_, Buffer::Host(_)) => "the CPU backend",
        };
        Error::InvalidInput(format!(
            "the {what} buffer belongs to {other}, not to {backend}: use buffers with the \
             backend that made them (upload the data to this backend, or clone one Backend \
             to share it)"
        ))
    }
}

/// Whether `v` was allocated by this very device (or a clone of it): clones share the
/// device's state, so the address of its `info` identifies it.
fn same_instance<T: Copy + 'static, D: Device>(dev: &D, v: &DeviceVec<T, D>) -> bool {
    std::ptr::eq(dev.info(), v.device().info())
}

/// A buffer checked to live on the backend it is used with.
pub(crate) enum View<'a, T: Copy + 'static> {
    Gpu(&'a DeviceVec<T, Context>),
    Sim(&'a DeviceVec<T, Simulator>),
    Host(&'a [T]),
}

/// A writable buffer checked to live on the backend it is used with.
pub(crate) enum ViewMut<'a, T: Copy + 'static> {
    Gpu(&'a mut DeviceVec<T, Context>),
    Sim(&'a mut DeviceVec<T, Simulator>),
    Host(&'a mut Vec<T>),
}

/// Shows the variant and the device it runs on.
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// assert_eq!(format!("{:?}", Backend::cpu()), "Cpu");
/// ```
impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Cuda(ctx) => f.debug_tuple("Cuda").field(ctx).finish(),
            Backend::Simulator(sim) => f
                .debug_struct("Simulator")
                .field("arch", &sim.arch())
                .finish(),
            Backend::Cpu => f.write_str("Cpu"),
        }
    }
}

/// A backend on a CUDA context the caller made (for example with
/// [`Context::from_stream`], to share a stream with the caller's own kernels).
///
/// # Examples
///
/// ```
/// use mgpu::{Backend, Context};
/// if let Ok(ctx) = Context::new(0) {
///     let backend = Backend::from(ctx);
///     assert!(matches!(backend, Backend::Cuda(_)));
/// }
/// ```
impl From<Context> for Backend {
    fn from(ctx: Context) -> Backend {
        Backend::Cuda(ctx)
    }
}

/// A backend on a simulator the caller made (for example with the sm_70 tuning).
///
/// # Examples
///
/// ```
/// use mgpu::{Arch, Backend, Plus, Simulator};
/// let sim = Backend::from(Simulator::with_arch(Arch::Sm70));
/// assert_eq!(sim.reduce(&sim.upload(&[1u32, 2])?, Plus)?, 3);
/// # Ok::<(), mgpu::Error>(())
/// ```
impl From<Simulator> for Backend {
    fn from(sim: Simulator) -> Backend {
        Backend::Simulator(sim)
    }
}

/// Makes the [`Buffer`] variant of each GPU device.
impl BufferDevice for Context {
    fn wrap<T: Copy + 'static>(v: DeviceVec<T, Self>) -> Buffer<T> {
        Buffer::Cuda(v)
    }
}

impl BufferDevice for Simulator {
    fn wrap<T: Copy + 'static>(v: DeviceVec<T, Self>) -> Buffer<T> {
        Buffer::Simulator(v)
    }
}
