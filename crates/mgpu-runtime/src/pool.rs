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
    clean: Mutex<CleanWords>,
}

/// The blocks behind [`Pool::clean_word`].
#[derive(Default)]
struct CleanWords {
    blocks: Vec<CleanBlock>,
}

/// A block of [`Pool::clean_word`]s: its address, the words known to hold 0, how many are
/// handed out, and how many came back not known to hold 0.
struct CleanBlock {
    ptr: u64,
    clean: Vec<u64>,
    out: usize,
    dirty: usize,
}

impl CleanWords {
    /// The block holding `word`.
    fn block_of(&mut self, word: u64) -> Option<&mut CleanBlock> {
        self.blocks
            .iter_mut()
            .find(|b| (b.ptr..b.ptr + CLEAN_BLOCK_BYTES as u64).contains(&word))
    }
}

/// Bytes of a block of clean words ([`Pool::clean_word`]): 256 words, zeroed by one memset.
const CLEAN_BLOCK_BYTES: usize = 1024;

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

    /// A 4-byte word that holds 0 once the work queued so far is done: for a launch's error
    /// word when no kernel before it can zero it. Words come from blocks of 256, zeroed by
    /// one memset when the block is made. [`Pool::give_clean`] takes a word back known to
    /// hold 0 (read back as 0 after its launch); [`Pool::give_dirty`] one that may not
    /// (bits raised, or never read), and a block whose words are all back, some of them
    /// dirty, is zeroed again by one memset when the clean words run out. So a call costs
    /// no memset, or one in 256 when its words are never read.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_runtime::{Device, Simulator};
    /// let dev = Simulator::new();
    /// let w = dev.pool().clean_word(&dev).unwrap();
    /// unsafe { dev.pool().give_clean(w) };
    /// assert_eq!(dev.pool().clean_word(&dev).unwrap(), w);
    /// ```
    pub fn clean_word<D: crate::Device>(&self, dev: &D) -> crate::Result<u64> {
        let mut c = self.clean.lock().unwrap();
        let all = |ptr: u64| {
            (0..CLEAN_BLOCK_BYTES / 4)
                .rev()
                .map(move |k| ptr + 4 * k as u64)
        };
        let found = match c.blocks.iter().position(|b| !b.clean.is_empty()) {
            Some(i) => i,
            None => match c.blocks.iter().position(|b| b.out == 0 && b.dirty > 0) {
                Some(i) => {
                    let b = &mut c.blocks[i];
                    // SAFETY: the block is ours; no word of it is handed out, and the
                    // memset is queued after every launch that used one.
                    unsafe { dev.memset(b.ptr, 0, CLEAN_BLOCK_BYTES)? };
                    (b.clean, b.dirty) = (all(b.ptr).collect(), 0);
                    i
                }
                None => {
                    let ptr = self.take(dev, CLEAN_BLOCK_BYTES)?;
                    // SAFETY: the block is ours and `CLEAN_BLOCK_BYTES` long.
                    unsafe { dev.memset(ptr, 0, CLEAN_BLOCK_BYTES)? };
                    let clean = all(ptr).collect();
                    c.blocks.push(CleanBlock {
                        ptr,
                        clean,
                        out: 0,
                        dirty: 0,
                    });
                    c.blocks.len() - 1
                }
            },
        };
        let b = &mut c.blocks[found];
        b.out += 1;
        Ok(b.clean.pop().expect("a block with clean words"))
    }

    /// Takes back a word of [`Pool::clean_word`] that holds 0.
    ///
    /// # Safety
    /// `word` came from `clean_word` of this pool, holds 0, and nothing queued writes it.
    pub unsafe fn give_clean(&self, word: u64) {
        if let Some(b) = self.clean.lock().unwrap().block_of(word) {
            b.out -= 1;
            b.clean.push(word);
        }
    }

    /// Takes back a word of [`Pool::clean_word`] that may not hold 0 (the launch using it
    /// may still be queued).
    ///
    /// # Examples
    ///
    /// A block's 256 words, all given back dirty: the next word is one of them, zeroed.
    ///
    /// ```
    /// use mgpu_runtime::{Device, Simulator};
    /// let dev = Simulator::new();
    /// let words: Vec<u64> = (0..256).map(|_| dev.pool().clean_word(&dev).unwrap()).collect();
    /// for &w in &words {
    ///     // The simulator's device memory is the host's.
    ///     unsafe { *(w as *mut u32) = 5; dev.pool().give_dirty(w) };
    /// }
    /// let w = dev.pool().clean_word(&dev).unwrap();
    /// assert!(words.contains(&w));
    /// assert_eq!(unsafe { *(w as *const u32) }, 0);
    /// ```
    ///
    /// # Safety
    /// `word` came from `clean_word` of this pool and the host does not use it afterwards.
    pub unsafe fn give_dirty(&self, word: u64) {
        if let Some(b) = self.clean.lock().unwrap().block_of(word) {
            b.out -= 1;
            b.dirty += 1;
        }
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
        let mut c = self.clean.lock().unwrap();
        blocks.extend(
            c.blocks
                .drain(..)
                .map(|b| (b.ptr, Self::class(CLEAN_BLOCK_BYTES))),
        );
        blocks
    }
}
