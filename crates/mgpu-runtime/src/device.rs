//! The device trait every host launcher is generic over.

use crate::{Pool, Result};
use mgpu_core::{Arch, Kernel};

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
}
