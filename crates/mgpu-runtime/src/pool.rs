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
    epochs: Mutex<EpochBlock>,
}

/// The block behind [`Pool::epoch_block`]: address, size in 8-byte words, last epoch.
#[derive(Default)]
struct EpochBlock {
    ptr: u64,
    words: usize,
    epoch: u32,
}

/// Epochs of [`Pool::epoch_block`] run from 1 to `EPOCH_LIMIT - 1` (30 bits), then the block
/// is zeroed and they start again.
pub const EPOCH_LIMIT: u32 = 1 << 30;

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

    /// A block of at least `words` 8-byte words whose contents are tagged with an epoch,
    /// and a fresh epoch (1 to `EPOCH_LIMIT - 1`, 2^30 - 1) for this use. Kernels that publish
    /// per-tile status (decoupled look-back) write the epoch into every word and treat a
    /// word of another epoch as unwritten, so the block never needs clearing between calls.
    /// It is zeroed (epoch 0, which no call gets) when it is first made, when it grows, and
    /// when the epochs wrap. All work is on one stream, so calls never overlap.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Device, Simulator};
    /// let dev = Simulator::new();
    /// let (p, e1) = dev.pool().epoch_block(&dev, 100).unwrap();
    /// let (q, e2) = dev.pool().epoch_block(&dev, 50).unwrap();
    /// assert_eq!((p, e2), (q, e1 + 1));
    /// ```
    pub fn epoch_block<D: crate::Device>(
        &self,
        dev: &D,
        words: usize,
    ) -> crate::Result<(u64, u32)> {
        let mut b = self.epochs.lock().unwrap();
        if b.words < words || b.epoch + 1 >= EPOCH_LIMIT {
            if b.words < words {
                if b.words > 0 {
                    // SAFETY: the old block is ours; work using it is queued before any reuse.
                    unsafe { self.give(b.ptr, b.words * 8) };
                }
                let grown = words.max(b.words * 2).max(1024);
                b.ptr = self.take(dev, grown * 8)?;
                b.words = Self::class(grown * 8) / 8;
            }
            // SAFETY: the block is ours and `words * 8` bytes long.
            unsafe { dev.memset(b.ptr, 0, b.words * 8)? };
            b.epoch = 0;
        }
        b.epoch += 1;
        Ok((b.ptr, b.epoch))
    }

    /// Takes every cached block out, for freeing: `(ptr, bytes)` pairs (the epoch block
    /// too, once the device is being dropped).
    pub fn drain(&self) -> Vec<(u64, usize)> {
        let mut m = self.free.lock().unwrap();
        let mut blocks: Vec<(u64, usize)> = m
            .drain()
            .flat_map(|(c, v)| v.into_iter().map(move |p| (p, c)))
            .collect();
        let mut e = self.epochs.lock().unwrap();
        if e.words > 0 {
            blocks.push((e.ptr, e.words * 8));
            *e = EpochBlock::default();
        }
        blocks
    }
}
