//! The device trait every host launcher is generic over, and [`KernelRef`], what a
//! launcher names the kernels it is about to launch with ([`Device::prepare`]).

use crate::{Pool, Result};
use mgpu_core::{Arch, Kernel};

/// A kernel named by what locates its compiled code: its PTX module (family), its entry
/// point and its dynamic shared memory (which may need an opt-in before the launch). A
/// small `Copy` value, so a launcher can list the kernels it is about to launch for
/// [`Device::prepare`] without naming their `Args` types.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Cta, Kernel};
/// use mgpu_runtime::KernelRef;
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Args { out: *mut u32 }
/// struct Demo;
/// impl Kernel for Demo {
///     type Args = Args;
///     const MODULE: &'static str = "demo";
///     const ENTRY: &'static str = "demo_kernel";
///     const NT: u32 = 32;
///     const VT: u32 = 1;
///     const SHARED_BYTES: u32 = 64 * 1024;
///     fn body<C: Cta>(_: &C, _: &Args) {}
/// }
/// // Const-friendly: a launcher may keep its lists in constants.
/// const DEMO: KernelRef = KernelRef::of::<Demo>();
/// assert_eq!((DEMO.module, DEMO.entry, DEMO.shared_bytes), ("demo", "demo_kernel", 65536));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelRef {
    /// The PTX module (family) holding the entry point, [`Kernel::MODULE`].
    pub module: &'static str,
    /// The entry point's name, [`Kernel::ENTRY`].
    pub entry: &'static str,
    /// Dynamic shared memory per CTA in bytes, [`Kernel::SHARED_BYTES`].
    pub shared_bytes: u32,
}

impl KernelRef {
    /// The descriptor of kernel `K`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta, Kernel};
    /// use mgpu_runtime::KernelRef;
    /// #[derive(Clone, Copy)]
    /// #[repr(C)]
    /// struct Args;
    /// struct Noop;
    /// impl Kernel for Noop {
    ///     type Args = Args;
    ///     const MODULE: &'static str = "demo";
    ///     const ENTRY: &'static str = "demo_noop";
    ///     const NT: u32 = 32;
    ///     const VT: u32 = 1;
    ///     const SHARED_BYTES: u32 = 0;
    ///     fn body<C: Cta>(_: &C, _: &Args) {}
    /// }
    /// let k = KernelRef::of::<Noop>();
    /// assert_eq!(k, KernelRef { module: "demo", entry: "demo_noop", shared_bytes: 0 });
    /// ```
    pub const fn of<K: Kernel>() -> KernelRef {
        KernelRef {
            module: K::MODULE,
            entry: K::ENTRY,
            shared_bytes: K::SHARED_BYTES,
        }
    }
}

/// Facts about a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Marketing name, e.g. `"NVIDIA H100 80GB HBM3"`.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Global memory in bytes.
    pub total_memory: usize,
    /// Which committed PTX (and tuning table) this device uses.
    pub arch: Arch,
}

/// A machine host launchers run on: the CUDA [`crate::Context`] or the
/// [`crate::Simulator`].
///
/// Device addresses are `u64` (host addresses in the simulator). Work is ordered on one
/// stream: launches and device-to-device copies are asynchronous, copies to the host
/// synchronise.
///
/// # Examples
///
/// A launcher generic over the device:
///
/// ```
/// use mgpu_runtime::{Device, DeviceVec, Result, Simulator};
/// fn roundtrip<D: Device>(dev: &D) -> Result<Vec<u64>> {
///     DeviceVec::from_slice(dev, &[7u64, 8])?.to_vec()
/// }
/// assert_eq!(roundtrip(&Simulator::new()).unwrap(), vec![7, 8]);
/// ```
pub trait Device: Clone + Send + Sync + 'static {
    /// Facts about the device.
    fn info(&self) -> &DeviceInfo;
    /// The tuning table / PTX the device uses.
    fn arch(&self) -> Arch {
        self.info().arch
    }
    /// The pool temporaries come from.
    fn pool(&self) -> &Pool;
    /// Allocates `bytes` (at least 256-byte aligned, contents undefined). Zero bytes
    /// allocates nothing and returns 0.
    fn alloc_bytes(&self, bytes: usize) -> Result<u64>;
    /// Frees an allocation of `alloc_bytes`, ordered after the work queued so far.
    ///
    /// # Safety
    /// `ptr` came from `alloc_bytes(bytes)` on this device and is not used afterwards.
    unsafe fn free_bytes(&self, ptr: u64, bytes: usize);
    /// Copies host memory to the device; the host memory may be reused on return.
    ///
    /// # Safety
    /// `src` is valid for `bytes` reads; `dst` is a device range of `bytes`.
    unsafe fn copy_htod(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()>;
    /// Copies device memory to the host, after the work queued so far (synchronises).
    ///
    /// # Safety
    /// `dst` is valid for `bytes` writes; `src` is a device range of `bytes`.
    unsafe fn copy_dtoh(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()>;
    /// Queues a device-to-device copy.
    ///
    /// # Safety
    /// Both are device ranges of `bytes`.
    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()>;
    /// Queues filling `bytes` bytes with `value`.
    ///
    /// # Safety
    /// `dst` is a device range of `bytes`.
    unsafe fn memset(&self, dst: u64, value: u8, bytes: usize) -> Result<()>;
    /// Queues kernel `K` on `grid` CTAs of `K::NT` threads.
    ///
    /// # Safety
    /// `args` must describe device memory the kernel may access as it will.
    unsafe fn launch<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()>;
    /// Queues kernel `K` like [`Device::launch`], as a programmatic dependent launch of the
    /// kernel queued just before it where the device supports it (sm_90): `K`'s CTAs may
    /// start while that kernel finishes, and must call
    /// [`mgpu_core::Cta::grid_dependency_wait`] before reading what it wrote (which that
    /// kernel may speed up with [`mgpu_core::Cta::launch_dependents`]). Elsewhere, and by
    /// default, an ordinary launch.
    ///
    /// # Safety
    /// As for [`Device::launch`]; `K` waits before it reads the previous kernel's output.
    unsafe fn launch_dependent<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()> {
        self.launch::<K>(grid, args)
    }
    /// Waits for the queued work; reports a device fault as [`crate::Error::ContextLost`].
    fn synchronize(&self) -> Result<()>;
    /// Gets the `kernels` a call is about to launch ready, all at once: on a CUDA
    /// [`crate::Context`], the modules not loaded yet are JIT-compiled concurrently (one
    /// host thread each) and the functions looked up, so a call's first launches do not
    /// compile their kernels one after the other. Launching a kernel that was not
    /// prepared still works (it is loaded on its first launch); preparing one that is
    /// ready does nothing. The default, and the [`crate::Simulator`]'s, does nothing.
    ///
    /// A launcher calls it once, before its first launch, listing every kernel that call
    /// launches on the device's architecture.
    ///
    /// # Errors
    ///
    /// What the first launch of each kernel would return: a family or entry missing from
    /// the PTX, a JIT failure (the first one, in list order, when several fail; the
    /// modules that compiled are kept), a lost context.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Device, KernelRef, Simulator};
    /// fn first_call<D: Device>(dev: &D) -> mgpu_runtime::Result<()> {
    ///     const KERNELS: [KernelRef; 2] = [
    ///         KernelRef { module: "demo", entry: "demo_partition", shared_bytes: 0 },
    ///         KernelRef { module: "demo", entry: "demo_search", shared_bytes: 8192 },
    ///     ];
    ///     dev.prepare(&KERNELS)?;
    ///     // ... then launch them as usual.
    ///     Ok(())
    /// }
    /// first_call(&Simulator::new()).unwrap();
    /// ```
    fn prepare(&self, kernels: &[KernelRef]) -> Result<()> {
        let _ = kernels;
        Ok(())
    }
}
