//! Kernel bodies of the scan family, generic over `Cta`, element type, operator and the
//! launch shape (`NT` threads, `VT` values per thread). `no_std`.
//!
//! Two single-pass scans, one CTA per tile, and a reduction:
//! - **Decoupled look-back** ([`lookback`], integers): CTA `b` scans tile `b`, publishes
//!   its aggregate, then warp 0 walks back over its predecessors' published aggregates and
//!   inclusive prefixes, 32 at a time, until it meets an inclusive prefix. Integer
//!   operators are exactly associative, so the result does not depend on which
//!   predecessors had finished: it is deterministic.
//! - **Ordered look-back** ([`ordered`], floats): the same tile steps, but a tile's prefix
//!   is combined from its group's tile aggregates, its superblock's group aggregates and
//!   the previous superblock's inclusive prefix ([`GROUP_TILES`], [`SUPERBLOCK_GROUPS`]),
//!   each folded in a fixed order. The association order depends only on `n` and the tile
//!   shape, never on timing, so float results are the same bits on every run of a device.
//! - **Reduction** ([`partials`], every type): each of `G` CTAs reduces a fixed contiguous
//!   range of tiles and publishes its partial; the last CTA reduces the partials in a fixed
//!   order.

use core::hint::select_unpredictable;
use core::marker::PhantomData;
use mgpu_core::{AssociativeOp, Cta, Element};
use mgpu_ctascan::{
    cta_reduce, cta_scan, cta_scan_shared_len, thread_reduce, thread_scan, warp_reduce, ScanKind,
};
use mgpu_loadstore::{
    global_to_regs_strided, global_to_regs_strided_guarded, global_to_thread_order_warp,
    regs_to_shared_thread, shared_to_regs_thread,
};

mod lookback;
mod ordered;
mod reduce;
#[cfg(test)]
mod tests;
mod vec16;

pub use lookback::lookback;
pub use ordered::{ordered, ordered_slots, GROUP_TILES, SUPERBLOCK_GROUPS};
pub use reduce::partials;

/// `flags` bit: inclusive scan (else exclusive).
pub const FLAG_INCLUSIVE: u32 = 1;
/// `flags` bit: check that the inclusive scan never decreases (unsigned sum without
/// overflow: the count scans), raising [`ERROR_OVERFLOW`] otherwise. [`lookback`] only.
pub const FLAG_CHECK_MONOTONIC: u32 = 2;
/// Error bit: an unsigned sum wrapped.
pub const ERROR_OVERFLOW: u32 = 1;

impl<T> Default for ScanArgs<T> {
    /// Null pointers, zero sizes, flags and epoch.
    ///
    /// ```
    /// let a = mgpu_scan::device::ScanArgs::<f64>::default();
    /// assert!(a.status.is_null() && a.n == 0 && a.epoch == 0);
    /// ```
    fn default() -> Self {
        use core::ptr::{null, null_mut};
        ScanArgs {
            input: null(),
            output: null_mut(),
            n: 0,
            status: null_mut(),
            values: null_mut(),
            total: null_mut(),
            error: null_mut(),
            flags: 0,
            tiles_per_cta: 0,
            epoch: 0,
        }
    }
}

// Tile status ([`mgpu_core::status`]): not yet published ([`STATUS_X`]), the tile's
// aggregate ([`STATUS_A`]), its inclusive prefix ([`STATUS_P`]).
use mgpu_core::status::{status_word, tag, tag_status, STATUS_A, STATUS_P, STATUS_X};

/// The single by-value argument of every scan-family kernel.
///
/// Which fields a kernel reads is documented at each kernel body.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ScanArgs<T> {
    /// Input values.
    pub input: *const T,
    /// Output values (may equal `input`: every tile is read before it is written).
    pub output: *mut T,
    /// Number of input values.
    pub n: u64,
    /// [`lookback`]: one status word per tile; [`ordered`]: one per 32 bits of each of
    /// the [`ordered_slots`] values (tiles, groups, superblocks); reduction: one per 32
    /// bits of each CTA's partial.
    /// Tagged with `epoch` (words of other epochs read as unpublished, so the block needs
    /// no clearing between launches).
    pub status: *mut u64,
    /// [`lookback`] of 8-byte types: the published aggregates then inclusive prefixes,
    /// `2 * tiles` (4-byte ones travel in the status word). The other kernels publish
    /// every value in the status words and do not use it.
    pub values: *mut T,
    /// Where the total goes.
    pub total: *mut T,
    /// Error word, OR-ed with `ERROR_*` bits.
    pub error: *mut u32,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Reduction: tiles per CTA.
    pub tiles_per_cta: u32,
    /// This launch's epoch (1 to 2^30 - 1) in `status`.
    pub epoch: u32,
}

/// Nanoseconds warp 0 waits after publishing its aggregate before the first look at its
/// predecessors (CUB's "L2 write latency" delay): by then most have published an inclusive
/// prefix, so one poll usually ends the walk. Without it the polls contend with the tile
/// traffic (H200, i32, 2^27: copy ratio 1.66 without; 1.49 to 1.39 with 700 to 3500 ns).
pub const LOOKBACK_FIRST_POLL_NS: u32 = 2500;

/// Nanoseconds between polls of predecessors that have not yet published.
pub const LOOKBACK_POLL_NS: u32 = 1000;

/// Shared-memory layout of the scan kernels: the tile, the CTA-scan scratch, then a 16-byte
/// slot for broadcasts (an element at byte 0 and one at byte 8).
pub const fn shared_bytes(size: usize, nt: usize, vt: usize) -> usize {
    misc_offset(size, nt, vt) + 16
}

const fn scan_offset(size: usize, nt: usize, vt: usize) -> usize {
    (nt * vt * size).div_ceil(16) * 16
}

const fn misc_offset(size: usize, nt: usize, vt: usize) -> usize {
    scan_offset(size, nt, vt) + (cta_scan_shared_len(nt) * size).div_ceil(16) * 16
}

/// One CTA of a scan-family kernel over tiles of `NT * VT` values of `T` under `Op`: the
/// CTA and its shared memory ([`shared_bytes`] layout: the tile, the CTA-scan scratch, the
/// broadcast slot). Its methods are the tile steps the kernel bodies share.
struct ScanCta<'a, C, T, Op, const NT: usize, const VT: usize> {
    cta: &'a C,
    tile: *mut T,
    scan: *mut T,
    /// Broadcast slot: the tile's exclusive prefix.
    misc_t: *mut T,
    /// Broadcast slot: [`ordered`]'s last tile's last inclusive value within the tile.
    misc_last: *mut T,
    op: PhantomData<Op>,
}

impl<'a, C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>
    ScanCta<'a, C, T, Op, NT, VT>
{
    #[inline(always)]
    fn new(cta: &'a C) -> Self {
        let s = core::mem::size_of::<T>();
        ScanCta {
            cta,
            tile: cta.shared(0),
            scan: cta.shared(scan_offset(s, NT, VT)),
            misc_t: cta.shared(misc_offset(s, NT, VT) + 8),
            misc_last: cta.shared(misc_offset(s, NT, VT)),
            op: PhantomData,
        }
    }

    /// Values in a tile.
    #[inline(always)]
    fn nv(&self) -> u64 {
        (NT * VT) as u64
    }

    /// Values in the tile that starts at `base` of an input of `n`: [`nv`](Self::nv) but
    /// in the last tile.
    #[inline(always)]
    fn count(&self, n: u64, base: u64) -> usize {
        (n - base).min(self.nv()) as usize
    }

    /// The tile this CTA scans (tile `blockIdx.x` of a single-pass scan of `a.n` values).
    #[inline(always)]
    unsafe fn span(&self, a: &ScanArgs<T>) -> TileSpan<T> {
        let nv = self.nv();
        let tile = self.cta.block() as u64;
        let base = tile * nv;
        let count = self.count(a.n, base);
        TileSpan {
            tiles: a.n.div_ceil(nv),
            tile,
            count,
            src: a.input.add(base as usize),
            dst: a.output.add(base as usize),
            full: count == nv as usize,
        }
    }

    /// Loads the tile `span` names ([`ScanCta::load_segment`], as vectors when it is whole
    /// and aligned) and scans it within the CTA: this thread's values, their exclusive
    /// prefix within the tile, and the tile's aggregate. [`lookback`] and [`ordered`] begin
    /// alike with it.
    #[inline(always)]
    unsafe fn load_and_scan(&self, span: &TileSpan<T>) -> ([T; VT], T, T) {
        let x = self.load_segment(span.src, span.count, span.vec_load());
        let t = thread_reduce::<T, Op, VT>(&x);
        let (thread_exc, agg) =
            cta_scan::<C, T, Op, NT>(self.cta, t, self.scan, ScanKind::Exclusive);
        (x, thread_exc, agg)
    }
}

/// A single-pass scan's tile ([`ScanCta::span`]), shared by [`lookback`] and [`ordered`].
struct TileSpan<T> {
    /// Tiles of the launch.
    tiles: u64,
    /// This CTA's tile.
    tile: u64,
    /// Its values (`NT * VT` but in the last tile).
    count: usize,
    /// Where they are read.
    src: *const T,
    /// Where they are written.
    dst: *mut T,
    /// Whether the tile is whole.
    full: bool,
}

impl<T> TileSpan<T> {
    /// Whether the tile is loaded as 16-byte vectors: it is whole and its source is
    /// 16-byte aligned.
    #[inline(always)]
    fn vec_load(&self) -> bool {
        self.full && (self.src as usize).is_multiple_of(16)
    }
}

#[inline(always)]
fn kind_of(flags: u32) -> ScanKind {
    if flags & FLAG_INCLUSIVE != 0 {
        ScanKind::Inclusive
    } else {
        ScanKind::Exclusive
    }
}

/// Whether the running scan `carry op x[0] op ...` ever decreases: for unsigned sums,
/// whether the true sum passed the type's maximum (each step adds less than 2^bits, so a
/// wrap shows as a decrease).
#[inline(always)]
fn decreases<T: Element, Op: AssociativeOp<T>, const VT: usize>(x: &[T; VT], carry: T) -> bool {
    let mut c = carry;
    let mut bad = false;
    for v in x.iter() {
        let next = Op::apply(c, *v);
        bad |= next < c;
        c = next;
    }
    bad
}

/// The 32-bit flag of status word `word` for 8-byte values: its high half, where every
/// word of the epoch block keeps its tag. (A low half may hold a 4-byte value an earlier
/// launch published, which could equal this launch's tag: a flag there would read as
/// published too early.)
#[inline(always)]
unsafe fn flag_of<T>(a: &ScanArgs<T>, word: u64) -> *mut u32 {
    (a.status.add(word as usize) as *mut u32).add(1)
}

/// Publishes `status` and `v` in status word `word`. 4-byte types: one 64-bit word, the
/// value in the low half, the tag in the high half; a relaxed 64-bit store is single-copy
/// atomic, so readers see all of it or none. 8-byte types: the value goes to
/// `values[slot]`, then a release store of the tag to the word's high half publishes it.
#[inline(always)]
unsafe fn publish_word<C: Cta, T: Element>(
    cta: &C,
    a: &ScanArgs<T>,
    word: u64,
    slot: u64,
    status: u32,
    v: T,
) {
    if T::WORDS == 1 {
        let w = status_word(a.epoch, status, v.to_words()[0]);
        cta.store_relaxed_u64(a.status.add(word as usize), w);
    } else {
        a.values.add(slot as usize).write_volatile(v);
        cta.store_release_u32(flag_of(a, word), tag(a.epoch, status));
    }
}

/// Reads what [`publish_word`] wrote in status word `word` in this launch's epoch:
/// `(STATUS_X, _)` for a word of another epoch. An 8-byte value is read from
/// `values[slot_p]` when the status is `STATUS_P`, else from `values[slot_a]`.
#[inline(always)]
unsafe fn read_word<C: Cta, T: Element>(
    cta: &C,
    a: &ScanArgs<T>,
    word: u64,
    slot_a: u64,
    slot_p: u64,
) -> (u32, T) {
    if T::WORDS == 1 {
        let w = cta.load_relaxed_u64(a.status.add(word as usize));
        let status = tag_status((w >> 32) as u32, a.epoch);
        (status, T::from_words([w as u32, 0]))
    } else {
        let status = tag_status(cta.load_acquire_u32(flag_of(a, word)), a.epoch);
        let slot = if status == STATUS_P { slot_p } else { slot_a };
        let v = if status == STATUS_X {
            T::ZERO
        } else {
            a.values.add(slot as usize).read_volatile()
        };
        (status, v)
    }
}

/// Publishes `v` in slot `j` of the launch's split status block
/// ([`mgpu_core::status::publish_split`]; the reduction's partials and [`ordered`]'s
/// values).
#[inline(always)]
unsafe fn publish_split<C: Cta, T: Element>(cta: &C, a: &ScanArgs<T>, j: u64, status: u32, v: T) {
    mgpu_core::status::publish_split::<C, T>(cta, a.status, a.epoch, j, status, v)
}

/// Whether slot `j` of the launch's split status block is published in its epoch (every
/// word of it), and its value ([`mgpu_core::status::read_split`]).
#[inline(always)]
unsafe fn read_split<C: Cta, T: Element>(cta: &C, a: &ScanArgs<T>, j: u64) -> (bool, T) {
    let (status, v) = mgpu_core::status::read_split::<C, T>(cta, a.status, a.epoch, j);
    (status != STATUS_X, v)
}
