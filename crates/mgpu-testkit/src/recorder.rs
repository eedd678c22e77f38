//! [`Recorder`]: a device that records the kernels host launchers prepare and launch.

use mgpu_core::Kernel;
use mgpu_runtime::{Device, DeviceInfo, KernelRef, Pool, Result};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

/// What a host launcher asked of a [`Recorder`].
///
/// # Examples
///
/// ```
/// use mgpu_runtime::KernelRef;
/// use mgpu_testkit::Event;
/// let k = KernelRef { module: "demo", entry: "demo_k", shared_bytes: 0 };
/// assert_ne!(Event::Prepare(vec![k]), Event::Launch(k));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// [`Device::prepare`] with this list.
    Prepare(Vec<KernelRef>),
    /// [`Device::launch`] or [`Device::launch_dependent`] of this kernel (grid above 0).
    Launch(KernelRef),
}

/// A [`Device`] that runs everything on `D` (the simulator, in tests) and records every
/// [`Device::prepare`] list and every launch, in order, so a test can check that a
/// launcher prepares exactly the kernels it launches ([`Recorder::check_prepared`]).
/// Clones share the record.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Device, DeviceVec, KernelRef, Simulator};
/// use mgpu_testkit::{Event, Recorder};
/// let dev = Recorder::new(Simulator::new());
/// let k = KernelRef { module: "demo", entry: "demo_k", shared_bytes: 0 };
/// dev.prepare(&[k]).unwrap();
/// assert_eq!(DeviceVec::from_slice(&dev, &[1u8, 2]).unwrap().to_vec().unwrap(), [1, 2]);
/// assert_eq!(dev.take(), [Event::Prepare(vec![k])]);
/// assert!(dev.take().is_empty());
/// ```
#[derive(Clone)]
pub struct Recorder<D: Device> {
    inner: D,
    events: Arc<Mutex<Vec<Event>>>,
}

impl<D: Device> Recorder<D> {
    /// A recorder running on `inner`, with nothing recorded.
    ///
    /// ```
    /// let dev = mgpu_testkit::Recorder::new(mgpu_runtime::Simulator::new());
    /// assert!(dev.take().is_empty());
    /// ```
    pub fn new(inner: D) -> Self {
        Recorder {
            inner,
            events: Arc::default(),
        }
    }

    fn record(&self, event: Event) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }

    /// The events recorded since the last `take`, oldest first; the record is emptied.
    ///
    /// ```
    /// use mgpu_runtime::Device;
    /// let dev = mgpu_testkit::Recorder::new(mgpu_runtime::Simulator::new());
    /// dev.prepare(&[]).unwrap();
    /// assert_eq!(dev.take(), [mgpu_testkit::Event::Prepare(vec![])]);
    /// ```
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Takes the events of one call (see [`Recorder::take`]) and checks that it prepared
    /// exactly the kernels it launched, before its first launch: the kernels named by
    /// the `prepare` lists before the first launch are the kernels launched. Panics
    /// otherwise, naming `what`. Returns the entries launched, sorted.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Device, Simulator};
    /// let dev = mgpu_testkit::Recorder::new(Simulator::new());
    /// // A call that launches nothing prepares nothing.
    /// assert!(dev.check_prepared("nothing").is_empty());
    /// ```
    pub fn check_prepared(&self, what: &str) -> Vec<&'static str> {
        let events = self.take();
        let first_launch = events
            .iter()
            .position(|e| matches!(e, Event::Launch(_)))
            .unwrap_or(events.len());
        let prepared: BTreeSet<(&str, &str, u32)> = events[..first_launch]
            .iter()
            .flat_map(|e| match e {
                Event::Prepare(list) => list.clone(),
                Event::Launch(_) => Vec::new(),
            })
            .map(|k| (k.module, k.entry, k.shared_bytes))
            .collect();
        let launched: BTreeSet<(&str, &str, u32)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Launch(k) => Some((k.module, k.entry, k.shared_bytes)),
                Event::Prepare(_) => None,
            })
            .collect();
        assert_eq!(
            prepared, launched,
            "{what}: the kernels prepared before the first launch (left) are not the kernels \
             launched (right); events: {events:?}"
        );
        launched.into_iter().map(|(_, entry, _)| entry).collect()
    }
}

impl<D: Device> Device for Recorder<D> {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn pool(&self) -> &Pool {
        self.inner.pool()
    }
    fn alloc_bytes(&self, bytes: usize) -> Result<u64> {
        self.inner.alloc_bytes(bytes)
    }
    unsafe fn free_bytes(&self, ptr: u64, bytes: usize) {
        // SAFETY: forwarded.
        unsafe { self.inner.free_bytes(ptr, bytes) }
    }
    unsafe fn copy_htod(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()> {
        // SAFETY: forwarded.
        unsafe { self.inner.copy_htod(dst, src, bytes) }
    }
    unsafe fn copy_dtoh(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()> {
        // SAFETY: forwarded.
        unsafe { self.inner.copy_dtoh(dst, src, bytes) }
    }
    unsafe fn copy_dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        // SAFETY: forwarded.
        unsafe { self.inner.copy_dtod(dst, src, bytes) }
    }
    unsafe fn memset(&self, dst: u64, value: u8, bytes: usize) -> Result<()> {
        // SAFETY: forwarded.
        unsafe { self.inner.memset(dst, value, bytes) }
    }
    unsafe fn launch<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()> {
        if grid > 0 {
            self.record(Event::Launch(KernelRef::of::<K>()));
        }
        // SAFETY: forwarded.
        unsafe { self.inner.launch::<K>(grid, args) }
    }
    unsafe fn launch_dependent<K: Kernel>(&self, grid: u32, args: &K::Args) -> Result<()> {
        if grid > 0 {
            self.record(Event::Launch(KernelRef::of::<K>()));
        }
        // SAFETY: forwarded.
        unsafe { self.inner.launch_dependent::<K>(grid, args) }
    }
    fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }
    fn prepare(&self, kernels: &[KernelRef]) -> Result<()> {
        self.record(Event::Prepare(kernels.to_vec()));
        self.inner.prepare(kernels)
    }
}
