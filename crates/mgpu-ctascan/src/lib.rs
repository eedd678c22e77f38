//! # mgpu-ctascan: warp- and CTA-wide reduce and scan, plain and segmented
//!
//! Layer: **device blocks**. Depends on `mgpu-core` only; `no_std` on nvptx64.
//!
//! Every function is generic over the CTA size `NT` (a multiple of 32, at most 1024; the
//! launch's block size must equal it), the element type and an [`AssociativeOp`]. Warp
//! steps use shuffles (two per step for 8-byte types); the CTA steps add one exchange of
//! per-warp totals through `NT / 32` elements of shared memory ([`cta_scan_shared_len`]).
//!
//! The segmented forms (seed 002): [`find_seg_scan_delta`] (warp ballot and
//! count-leading-zeros), [`seg_scan_delta`] and [`cta_seg_scan`] (carry-in and carry-out of
//! each thread's last segment), [`cta_seg_scan_tile`] (a segmented scan of a thread-order
//! tile with end flags), and the segmented reduction core [`seg_reduce_to_global`]
//! (thread-local scan, carry-in/carry-out, reductions compacted in shared memory or, in
//! half-capacity mode, stored directly).
//!
//! Compaction: [`cta_compact_strided`] ranks the flagged elements of a strided tile in
//! tile order with one ballot per row (bulk remove and insert use it).
//!
//! # Examples
//!
//! ```
//! use mgpu_core::{sim, Cta, Plus};
//! use mgpu_ctascan::{cta_scan, cta_scan_shared_len, ScanKind};
//! const NT: usize = 64;
//! let mut out = vec![(0u32, 0u32); NT];
//! let p = out.as_mut_ptr() as usize;
//! sim::launch(1, NT as u32, cta_scan_shared_len(NT) * 4, &|cta: &sim::SimCta| unsafe {
//!     let r = cta_scan::<_, u32, Plus, NT>(cta, 1, cta.shared(0), ScanKind::Exclusive);
//!     *(p as *mut (u32, u32)).add(cta.tid() as usize) = r;
//! });
//! assert_eq!(out[10], (10, 64)); // (exclusive scan, CTA total)
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

use mgpu_core::{shfl_up, shfl_xor, AssociativeOp, Cta, Element, WARP_SIZE};

mod compact;
mod segreduce;
mod segscan;

pub use compact::{cta_compact_strided, cta_compact_strided_each, cta_compact_strided_shared_len};

pub use segreduce::{seg_reduce_shared_bytes, seg_reduce_to_global, segment_end_flags};
pub use segscan::{
    cta_seg_scan, cta_seg_scan_tile, find_seg_scan_delta, seg_scan_delta, seg_scan_shared_bytes,
    thread_seg_carry_out,
};

/// Inclusive or exclusive scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanKind {
    /// `y[i] = x[0] op ... op x[i-1]` (identity for the first).
    Exclusive,
    /// `y[i] = x[0] op ... op x[i]`.
    Inclusive,
}

/// Elements of shared memory [`cta_scan`] and [`cta_reduce`] need for `nt` threads.
///
/// ```
/// assert_eq!(mgpu_ctascan::cta_scan_shared_len(256), 8);
/// ```
pub const fn cta_scan_shared_len(nt: usize) -> usize {
    nt / WARP_SIZE as usize
}

/// Inclusive scan across the 32 lanes of a full warp (all lanes must call it).
///
/// ```
/// use mgpu_core::{sim, Cta, Maximum};
/// let mut out = vec![0i32; 32];
/// let p = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let x = [5, -1, 9][cta.lane() as usize % 3];
///     *(p as *mut i32).add(cta.lane() as usize) =
///         mgpu_ctascan::warp_scan_inclusive::<_, _, Maximum>(cta, x);
/// });
/// assert_eq!(&out[..3], &[5, 5, 9]);
/// ```
#[inline(always)]
pub fn warp_scan_inclusive<C: Cta, T: Element, Op: AssociativeOp<T>>(cta: &C, x: T) -> T {
    let lane = cta.lane();
    let mut x = x;
    let mut d = 1;
    while d < WARP_SIZE {
        let y = shfl_up(cta, !0, x, d, WARP_SIZE);
        if lane >= d {
            x = Op::apply(y, x);
        }
        d *= 2;
    }
    x
}

/// Reduction across the 32 lanes of a full warp; every lane gets the total.
///
/// ```
/// use mgpu_core::{sim, Cta, Plus};
/// let mut out = vec![0u64; 32];
/// let p = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     *(p as *mut u64).add(cta.lane() as usize) =
///         mgpu_ctascan::warp_reduce::<_, _, Plus>(cta, cta.lane() as u64);
/// });
/// assert!(out.iter().all(|&t| t == 496));
/// ```
#[inline(always)]
pub fn warp_reduce<C: Cta, T: Element, Op: AssociativeOp<T>>(cta: &C, x: T) -> T {
    let mut x = x;
    let mut d = WARP_SIZE / 2;
    while d > 0 {
        x = Op::apply(x, shfl_xor(cta, !0, x, d, WARP_SIZE));
        d /= 2;
    }
    x
}

/// CTA-wide scan of one value per thread. Returns `(scan, total)`: this thread's
/// inclusive or exclusive scan value and the CTA total, in every thread.
///
/// Contains barriers; `shared` (at least [`cta_scan_shared_len`]`(NT)` elements) may be
/// reused after the caller's next barrier.
///
/// # Safety
/// `shared` points to enough shared memory; all `NT` threads call it.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn cta_scan<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    x: T,
    shared: *mut T,
    kind: ScanKind,
) -> (T, T) {
    let nw = NT / WARP_SIZE as usize;
    let lane = cta.lane();
    let warp = cta.warp() as usize;
    let inc = warp_scan_inclusive::<C, T, Op>(cta, x);
    if lane == WARP_SIZE - 1 {
        *shared.add(warp) = inc;
    }
    cta.sync();
    if warp == 0 {
        let v = if (lane as usize) < nw {
            *shared.add(lane as usize)
        } else {
            Op::identity()
        };
        let s = warp_scan_inclusive::<C, T, Op>(cta, v);
        if (lane as usize) < nw {
            *shared.add(lane as usize) = s;
        }
    }
    cta.sync();
    let warp_prefix = if warp > 0 {
        *shared.add(warp - 1)
    } else {
        Op::identity()
    };
    let total = *shared.add(nw - 1);
    let scan = match kind {
        ScanKind::Inclusive => Op::apply(warp_prefix, inc),
        ScanKind::Exclusive => {
            let up = shfl_up(cta, !0, inc, 1, WARP_SIZE);
            if lane == 0 {
                warp_prefix
            } else {
                Op::apply(warp_prefix, up)
            }
        }
    };
    (scan, total)
}

/// CTA-wide reduction of one value per thread; every thread gets the total.
///
/// Contains barriers; `shared` may be reused after the caller's next barrier.
///
/// # Safety
/// `shared` holds [`cta_scan_shared_len`]`(NT)` elements; all `NT` threads call it.
///
/// ```
/// use mgpu_core::{sim, Cta, Minimum};
/// use mgpu_ctascan::{cta_reduce, cta_scan_shared_len};
/// let mut out = vec![0f32; 128];
/// let p = out.as_mut_ptr() as usize;
/// sim::launch(1, 128, cta_scan_shared_len(128) * 4, &|cta: &sim::SimCta| unsafe {
///     let x = 100.0 - cta.tid() as f32;
///     *(p as *mut f32).add(cta.tid() as usize) =
///         cta_reduce::<_, f32, Minimum, 128>(cta, x, cta.shared(0));
/// });
/// assert!(out.iter().all(|&m| m == -27.0));
/// ```
#[inline(always)]
pub unsafe fn cta_reduce<C: Cta, T: Element, Op: AssociativeOp<T>, const NT: usize>(
    cta: &C,
    x: T,
    shared: *mut T,
) -> T {
    let nw = NT / WARP_SIZE as usize;
    let lane = cta.lane() as usize;
    let w = warp_reduce::<C, T, Op>(cta, x);
    if lane == 0 {
        *shared.add(cta.warp() as usize) = w;
    }
    cta.sync();
    let mut t = if lane < nw {
        *shared.add(lane)
    } else {
        Op::identity()
    };
    t = warp_reduce::<C, T, Op>(cta, t);
    t
}

/// Reduces a thread's registers left to right.
///
/// ```
/// use mgpu_core::Plus;
/// assert_eq!(mgpu_ctascan::thread_reduce::<i32, Plus, 3>(&[1, 2, 3]), 6);
/// ```
#[inline(always)]
pub fn thread_reduce<T: Element, Op: AssociativeOp<T>, const VT: usize>(x: &[T; VT]) -> T {
    let mut t = x[0];
    for v in x.iter().skip(1) {
        t = Op::apply(t, *v);
    }
    t
}

/// Serial scan of a thread's registers starting from `carry`. Returns the scanned values
/// and the carry-out (`carry op x[0] op ... op x[VT-1]`).
///
/// ```
/// use mgpu_core::Plus;
/// use mgpu_ctascan::{thread_scan, ScanKind};
/// assert_eq!(thread_scan::<u32, Plus, 3>(&[1, 2, 3], 10, ScanKind::Exclusive), ([10, 11, 13], 16));
/// assert_eq!(thread_scan::<u32, Plus, 3>(&[1, 2, 3], 10, ScanKind::Inclusive), ([11, 13, 16], 16));
/// ```
#[inline(always)]
pub fn thread_scan<T: Element, Op: AssociativeOp<T>, const VT: usize>(
    x: &[T; VT],
    carry: T,
    kind: ScanKind,
) -> ([T; VT], T) {
    let mut c = carry;
    let y = core::array::from_fn(|i| {
        let next = Op::apply(c, x[i]);
        let out = if kind == ScanKind::Inclusive { next } else { c };
        c = next;
        out
    });
    (y, c)
}

#[cfg(test)]
mod seg_tests;
#[cfg(test)]
mod tests;
