//! The caching allocator for temporaries.

use std::collections::HashMap;
use std::sync::Mutex;

/// Caches freed temporary allocations by size class (powers of two from 256 bytes), so
/// the partitions, carry-outs and flags every call needs cost no allocation after the
/// first call of a size. All work is on one stream, so a block given back can be handed
/// out again at once: the next user's work is queued after the last user's.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Device, Simulator};
/// let dev = Simulator::new();
/// let a = dev.pool().take(&dev, 1000).unwrap();
/// unsafe { dev.pool().give(a, 1000) };
/// let b = dev.pool().take(&dev, 1024).unwrap();
/// assert_eq!(a, b); // same size class: reused
/// ```
#[derive(Default)]
pub struct Pool {
    free: Mutex<HashMap<usize, Vec<u64>>>,
}

impl Pool {
    /// The size class of `bytes`.
    pub fn class(bytes: usize) -> usize {
        bytes.max(256).next_power_of_two()
    }

    /// An allocation of at least `bytes`, from the cache or from `dev`.
    pub fn take<D: crate::Device>(&self, dev: &D, bytes: usize) -> crate::Result<u64> {
        let class = Self::class(bytes);
        if let Some(p) = self
            .free
            .lock()
            .unwrap()
            .get_mut(&class)
            .and_then(|v| v.pop())
        {
            return Ok(p);
        }
        dev.alloc_bytes(class)
    }

    /// Gives an allocation of `take(bytes)` back to the cache.
    ///
    /// # Safety
    /// `ptr` came from `take(_, bytes)` of this pool and is not used afterwards by the host.
    pub unsafe fn give(&self, ptr: u64, bytes: usize) {
        self.free
            .lock()
            .unwrap()
            .entry(Self::class(bytes))
            .or_default()
            .push(ptr);
    }

    /// Takes every cached block out, for freeing: `(ptr, bytes)` pairs.
    pub fn drain(&self) -> Vec<(u64, usize)> {
        let mut m = self.free.lock().unwrap();
        m.drain()
            .flat_map(|(c, v)| v.into_iter().map(move |p| (p, c)))
            .collect()
    }
}
