//! Tagged status words: how a single-pass kernel (the scan's look-backs and its
//! reduction's partials) publishes a value for later CTAs of the same launch with no
//! fence and no side array.
//!
//! A status word is 64 bits: a tag `epoch << 2 | status` in the high half and 32 bits of
//! a value in the low half. A relaxed 64-bit store is single-copy atomic, so a reader
//! sees all of it or none. A *split slot* is `T::WORDS` such words, one per 32 bits of the
//! value ([`publish_split`], [`read_split`]), so that a reader's loads are independent of
//! each other. The words live in the device pool's epoch block, which is never cleared
//! between launches: each launch tags with a new epoch, and a word of another epoch reads
//! as [`STATUS_X`] (not yet published).
//!
//! # Examples
//!
//! ```
//! use mgpu_core::status::{publish_split, read_split, STATUS_A, STATUS_X};
//! use mgpu_core::sim;
//! let mut block = [0u64; 4];
//! let b = block.as_mut_ptr() as usize;
//! sim::launch(1, 1, 0, &|cta: &sim::SimCta| unsafe {
//!     let b = b as *mut u64;
//!     publish_split::<_, f64>(cta, b, 7, 1, STATUS_A, 2.5);
//!     assert_eq!(read_split::<_, f64>(cta, b, 7, 1), (STATUS_A, 2.5));
//!     assert_eq!(read_split::<_, f64>(cta, b, 8, 1).0, STATUS_X); // another epoch's
//!     assert_eq!(read_split::<_, f64>(cta, b, 7, 0).0, STATUS_X); // never published
//! });
//! ```

use crate::{Cta, Element};

/// Status: not yet published (or a word of another epoch).
pub const STATUS_X: u32 = 0;
/// Status: published; what it means is the kernel's (the scan: a tile's aggregate).
pub const STATUS_A: u32 = 1;
/// Status: published; what it means is the kernel's (the scan: an inclusive prefix).
pub const STATUS_P: u32 = 2;

/// The tag of a status published in `epoch`: `epoch << 2 | status`.
///
/// ```
/// assert_eq!(mgpu_core::status::tag(5, mgpu_core::status::STATUS_P), 22);
/// ```
#[inline(always)]
pub fn tag(epoch: u32, status: u32) -> u32 {
    (epoch << 2) | status
}

/// The status a tag read back says for this launch's `epoch`: [`STATUS_X`] for a tag of
/// another epoch (a word left by an earlier launch).
///
/// ```
/// use mgpu_core::status::{tag, tag_status, STATUS_A, STATUS_X};
/// assert_eq!(tag_status(tag(5, STATUS_A), 5), STATUS_A);
/// assert_eq!(tag_status(tag(4, STATUS_A), 5), STATUS_X);
/// ```
#[inline(always)]
pub fn tag_status(tag: u32, epoch: u32) -> u32 {
    if tag >> 2 == epoch {
        tag & 3
    } else {
        STATUS_X
    }
}

/// A status word: the tag in the high half, the 32-bit value in the low half.
///
/// ```
/// let w = mgpu_core::status::status_word(1, 2, 0xABCD);
/// assert_eq!(w, (6u64 << 32) | 0xABCD);
/// ```
#[inline(always)]
pub fn status_word(epoch: u32, status: u32, value: u32) -> u64 {
    ((tag(epoch, status) as u64) << 32) | value as u64
}

/// The status word of 32-bit word `k` of split slot `j`.
#[inline(always)]
fn split_word<T: Element>(block: *mut u64, j: u64, k: usize) -> *mut u64 {
    block.wrapping_add(j as usize * T::WORDS + k)
}

/// Publishes `v` with `status` in slot `j` of a split status block (`T::WORDS` words a
/// slot), tagged with `epoch`: each 32-bit word of `v` in its own [`status_word`], by
/// relaxed stores.
///
/// # Safety
/// `block` is writable at words `j * T::WORDS ..= j * T::WORDS + T::WORDS - 1`, 8-byte
/// aligned.
#[inline(always)]
pub unsafe fn publish_split<C: Cta, T: Element>(
    cta: &C,
    block: *mut u64,
    epoch: u32,
    j: u64,
    status: u32,
    v: T,
) {
    let [w0, w1] = v.to_words();
    cta.store_relaxed_u64(split_word::<T>(block, j, 0), status_word(epoch, status, w0));
    if T::WORDS == 2 {
        cta.store_relaxed_u64(split_word::<T>(block, j, 1), status_word(epoch, status, w1));
    }
}

/// Reads slot `j` of a split status block as [`publish_split`] wrote it in `epoch`: its
/// status ([`STATUS_X`] unless every word of it is published in `epoch`) and its value.
///
/// # Safety
/// `block` is readable at the slot's words, 8-byte aligned.
#[inline(always)]
pub unsafe fn read_split<C: Cta, T: Element>(
    cta: &C,
    block: *const u64,
    epoch: u32,
    j: u64,
) -> (u32, T) {
    let block = block as *mut u64;
    let status = |w: u64| tag_status((w >> 32) as u32, epoch);
    let w0 = cta.load_relaxed_u64(split_word::<T>(block, j, 0));
    if T::WORDS == 1 {
        return (status(w0), T::from_words([w0 as u32, 0]));
    }
    let w1 = cta.load_relaxed_u64(split_word::<T>(block, j, 1));
    // One publisher per slot and epoch, with one status: both words in this epoch agree.
    let s = if status(w1) == STATUS_X {
        STATUS_X
    } else {
        status(w0)
    };
    (s, T::from_words([w0 as u32, w1 as u32]))
}
