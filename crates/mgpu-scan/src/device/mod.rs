//! Kernel bodies of the scan family, generic over `Cta`, element type, operator and the
//! launch shape (`NT` threads, `VT` values per thread). `no_std`.
//!
//! Two strategies:
//! - **Decoupled look-back** ([`lookback`], integers): one pass. CTA `b` scans tile `b`,
//!   publishes its aggregate, then warp 0 walks back
//!   over its predecessors' published aggregates and inclusive prefixes, 32 at a time, until
//!   it meets an inclusive prefix. Integer operators are exactly associative, so the result
//!   does not depend on which predecessors had finished: it is deterministic.
//! - **Reduce-then-scan** ([`partials`], [`spine`], [`downsweep`], floats): each of `G`
//!   CTAs reduces a fixed contiguous range of tiles, one CTA scans the `G` partials, and each
//!   CTA scans its range again from its partial. The association order is fixed by `G` and
//!   the tile shape alone, so float results are the same bits on every run of a device.
//!   [`partials`] + [`spine`] are also the reduction of every type.

use core::hint::select_unpredictable;
use core::marker::PhantomData;
use mgpu_core::{AssociativeOp, Cta, Element};
use mgpu_ctascan::{
    cta_reduce, cta_scan, cta_scan_shared_len, thread_reduce, thread_scan, warp_reduce, ScanKind,
};
use mgpu_loadstore::{
    global_to_regs_strided, global_to_regs_strided_guarded, global_to_thread_order_warp,
    regs_to_shared_thread, shared_to_regs_thread, thread_order_to_global_warp,
};

mod lookback;
mod reduce_then_scan;
#[cfg(test)]
mod tests;
mod vec16;

pub use lookback::lookback;
pub use reduce_then_scan::{downsweep, partials, spine};

/// `flags` bit: inclusive scan (else exclusive).
pub const FLAG_INCLUSIVE: u32 = 1;
/// `flags` bit: check that the inclusive scan never decreases (unsigned sum without
/// overflow: the count scans), raising [`ERROR_OVERFLOW`] otherwise.
pub const FLAG_CHECK_MONOTONIC: u32 = 2;
/// `flags` bit for [`partials`]: a reduction, not a scan: the CTAs publish their partials
/// in `status` (tagged with `epoch`) and the last CTA reduces them into `total`, so no
/// spine kernel is launched.
pub const FLAG_REDUCE_ONLY: u32 = 4;
/// Error bit: an unsigned sum wrapped.
pub const ERROR_OVERFLOW: u32 = 1;

/// Tile status: not yet published.
const STATUS_X: u32 = 0;
/// Tile status: the tile's aggregate is published.
const STATUS_A: u32 = 1;
/// Tile status: the tile's inclusive prefix is published.
const STATUS_P: u32 = 2;

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
    /// Number of input values (the number of partials for [`spine`]).
    pub n: u64,
    /// Look-back: one status word per tile; reduction: one per 32 bits of each CTA's
    /// partial. Tagged with `epoch` (words of other epochs read as unpublished, so the
    /// block needs no clearing between launches).
    pub status: *mut u64,
    /// Look-back of 8-byte types: aggregates then inclusive prefixes, `2 * tiles`.
    /// Reduce-then-scan scan: the `G` partials (a reduction does not use it).
    pub values: *mut T,
    /// Where the total goes.
    pub total: *mut T,
    /// Error word, OR-ed with `ERROR_*` bits.
    pub error: *mut u32,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Reduce-then-scan: tiles per CTA.
    pub tiles_per_cta: u32,
    /// Look-back: this launch's epoch (1 to 2^30 - 1) in `status`.
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
/// slot for broadcasts.
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
    misc_t: *mut T,
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

    /// Loads a tile of `count` values (`count <= NT * VT`) into shared memory in natural
    /// order (missing values are the identity) with per-warp transposes, and returns this
    /// thread's reduction of its `VT` values. The values stay in shared memory for
    /// [`scan_tile_from`](Self::scan_tile_from), so they need not stay live in registers
    /// across the CTA scan and the look-back.
    #[inline(always)]
    unsafe fn load_tile_reduce(&self, src: *const T, count: usize) -> T {
        let x = global_to_thread_order_warp::<C, T, NT, VT>(
            self.cta,
            src,
            count,
            Op::identity(),
            self.tile,
        );
        thread_reduce::<T, Op, VT>(&x)
    }

    /// Scans the tile [`load_tile_reduce`](Self::load_tile_reduce) left in shared memory
    /// from `carry`, this thread's exclusive prefix: re-reads the thread's values, serial
    /// scan, overflow check, per-warp transposed store of the positions below `count`.
    /// Returns this thread's carry-out (its inclusive value past its last slot). Call after
    /// a barrier that follows the load; ends without one.
    #[inline(always)]
    unsafe fn scan_tile_from(&self, a: &ScanArgs<T>, carry: T, dst: *mut T, count: usize) -> T {
        let x = shared_to_regs_thread::<C, T, VT>(self.cta, self.tile);
        let (y, out) = thread_scan::<T, Op, VT>(&x, carry, kind_of(a.flags));
        if a.flags & FLAG_CHECK_MONOTONIC != 0 && decreases::<T, Op, VT>(&x, carry) {
            self.cta.atomic_or_u32(a.error, ERROR_OVERFLOW);
        }
        thread_order_to_global_warp::<C, T, NT, VT>(self.cta, &y, dst, count, self.tile);
        out
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

/// The tag of a status published in `epoch`: `epoch << 2 | status`. A 4-byte value's status
/// word carries it in its high half; an 8-byte value's flag is the tag itself.
#[inline(always)]
fn tag(epoch: u32, status: u32) -> u32 {
    (epoch << 2) | status
}

/// The status a tag read back says for this launch's `epoch`: `STATUS_X` for a tag of
/// another epoch (a word left by an earlier launch).
#[inline(always)]
fn tag_status(tag: u32, epoch: u32) -> u32 {
    if tag >> 2 == epoch {
        tag & 3
    } else {
        STATUS_X
    }
}

/// A status word: the tag in the high half, the 32-bit value in the low half (relaxed
/// 64-bit stores are single-copy atomic, so a reader sees all of it or none).
#[inline(always)]
fn status_word(epoch: u32, status: u32, value: u32) -> u64 {
    ((tag(epoch, status) as u64) << 32) | value as u64
}
