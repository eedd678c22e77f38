//! # mgpu-loadstore: moving tiles between global memory, shared memory and registers
//!
//! Layer: **device blocks**. Depends on `mgpu-core` only; `no_std` on nvptx64.
//!
//! A tile is `NT * VT` elements held by `NT` threads, `VT` per thread, in one of two
//! orders:
//! - **strided**: thread `tid` holds elements `tid + i * NT` (`i < VT`). Global loads and
//!   stores in this order are coalesced: a warp touches 32 consecutive elements at a time.
//! - **thread order**: thread `tid` holds elements `tid * VT + i`, the order serial
//!   per-thread work (scans, merges, searches) wants.
//!
//! Converting between them goes through shared memory. For 4-byte types choose an odd `VT`
//! and for 8-byte types an odd `VT` as well: the thread-order accesses then hit distinct
//! banks. Functions without `_guarded` read or write all `NT * VT` positions; `_guarded`
//! ones touch only positions below `count` (tile-relative) and fill the rest with `fill`.
//!
//! Beyond tile transfers:
//! - [`mem_to_mem_loop`], [`global_to_shared_guarded`], [`shared_to_global_guarded`]:
//!   cooperative copies of short intervals of run-time length (any memory to any memory,
//!   shared to shared included); [`global_to_shared_loop`] and its asynchronous twin
//!   [`global_to_shared_loop_async`] (copies in flight without registers);
//! - [`gather`], [`scatter`] and their `_guarded` (partial tile) and `_checked` (indices
//!   bounds-checked, errors reported) forms: global ↔ registers through index arrays;
//! - [`transfer_merge_values`] and [`transfer_merge_values_shared`]: the values of a merge
//!   moved through merge-style gather indices (A ranks below `aCount`, B ranks above it).
//!
//! All functions are `unsafe`: the caller guarantees that the pointers cover the positions
//! touched and that shared memory holds at least `NT * VT` elements. They must be called
//! by all `NT` threads of the CTA (the `*_thread_order` ones contain barriers).
//!
//! # Examples
//!
//! A tile round trip in the simulator: global → thread order → global.
//!
//! ```
//! use mgpu_core::{sim, Cta};
//! use mgpu_loadstore::*;
//! const NT: usize = 32;
//! const VT: usize = 3;
//! let input: Vec<u32> = (0..90).collect(); // a partial tile: 90 of 96
//! let mut output = vec![0u32; 90];
//! let (ip, op) = (input.as_ptr() as usize, output.as_mut_ptr() as usize);
//! sim::launch(1, NT as u32, NT * VT * 4, &|cta: &sim::SimCta| unsafe {
//!     let sh = cta.shared::<u32>(0);
//!     let x: [u32; VT] = global_to_thread_order_guarded::<_, _, NT, VT>(cta, ip as *const u32, 90, 0, sh);
//!     // thread t holds elements 3t, 3t+1, 3t+2
//!     let t = cta.tid();
//!     if 3 * t + 2 < 90 { assert_eq!(x, [3 * t, 3 * t + 1, 3 * t + 2]); }
//!     cta.sync();
//!     thread_order_to_global_guarded::<_, _, NT, VT>(cta, &x, op as *mut u32, 90, sh);
//! });
//! assert_eq!(input, output);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

use mgpu_core::Cta;

mod copy;
mod gather;
mod merge;

pub use copy::{
    global_to_shared_guarded, mem_to_mem_loop, shared_to_global_guarded, store_vec16, Vec16,
};
pub use gather::{
    gather, gather_checked, gather_guarded, scatter, scatter_checked, scatter_guarded,
};
pub use merge::{transfer_merge_values, transfer_merge_values_shared};

/// Global → registers, strided: `x[i] = src[tid + i * NT]`.
///
/// # Safety
/// `src` is valid for `NT * VT` reads.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn global_to_regs_strided<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
) -> [T; VT] {
    let p = src.add(cta.tid() as usize);
    core::array::from_fn(|i| *p.add(i * NT))
}

/// Global → registers, strided, reading only positions below `count`; others are `fill`.
///
/// # Safety
/// `src` is valid for `count` reads.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn global_to_regs_strided_guarded<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    count: usize,
    fill: T,
) -> [T; VT] {
    // One base pointer and one remaining count: every slot is a constant offset and a
    // constant compare, so no per-slot index stays live in registers.
    let tid = cta.tid() as usize;
    let p = src.wrapping_add(tid);
    let rem = count.saturating_sub(tid);
    core::array::from_fn(|i| if i * NT < rem { *p.add(i * NT) } else { fill })
}

/// Registers → global, strided: `dst[tid + i * NT] = x[i]`.
///
/// # Safety
/// `dst` is valid for `NT * VT` writes.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn regs_to_global_strided<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    dst: *mut T,
) {
    let p = dst.add(cta.tid() as usize);
    for (i, v) in x.iter().enumerate() {
        *p.add(i * NT) = *v;
    }
}

/// Registers → global, strided, writing only positions below `count`.
///
/// # Safety
/// `dst` is valid for `count` writes.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn regs_to_global_strided_guarded<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    dst: *mut T,
    count: usize,
) {
    let tid = cta.tid() as usize;
    let p = dst.wrapping_add(tid);
    let rem = count.saturating_sub(tid);
    for (i, v) in x.iter().enumerate() {
        if i * NT < rem {
            *p.add(i * NT) = *v;
        }
    }
}

/// Registers → shared, strided: `shared[tid + i * NT] = x[i]`.
///
/// # Safety
/// `shared` holds `NT * VT` elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn regs_to_shared_strided<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    shared: *mut T,
) {
    regs_to_global_strided::<C, T, NT, VT>(cta, x, shared)
}

/// Shared → registers, strided: `x[i] = shared[tid + i * NT]`.
///
/// # Safety
/// `shared` holds `NT * VT` elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn shared_to_regs_strided<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    shared: *const T,
) -> [T; VT] {
    global_to_regs_strided::<C, T, NT, VT>(cta, shared)
}

/// Registers → shared, thread order: `shared[tid * VT + i] = x[i]`.
///
/// # Safety
/// `shared` holds `NT * VT` elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn regs_to_shared_thread<C: Cta, T: Copy, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    shared: *mut T,
) {
    let p = shared.add(cta.tid() as usize * VT);
    for (i, v) in x.iter().enumerate() {
        *p.add(i) = *v;
    }
}

/// Shared → registers, thread order: `x[i] = shared[tid * VT + i]`.
///
/// # Safety
/// `shared` holds `NT * VT` elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn shared_to_regs_thread<C: Cta, T: Copy, const VT: usize>(
    cta: &C,
    shared: *const T,
) -> [T; VT] {
    let p = shared.add(cta.tid() as usize * VT);
    core::array::from_fn(|i| *p.add(i))
}

/// Global → shared, all `NT * VT` elements in a coalesced strided loop (no barrier).
///
/// # Safety
/// `src` is valid for `NT * VT` reads; `shared` holds as many elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn global_to_shared<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    shared: *mut T,
) {
    let x = global_to_regs_strided::<C, T, NT, VT>(cta, src);
    regs_to_shared_strided::<C, T, NT, VT>(cta, &x, shared);
}

/// Global → shared for positions below `count` (a loop copy that suits short intervals:
/// each thread copies positions `tid, tid + NT, ...` below `count`, any `count`).
///
/// # Safety
/// `src` is valid for `count` reads and `shared` for `count` writes.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn global_to_shared_loop<C: Cta, T: Copy, const NT: usize>(
    cta: &C,
    src: *const T,
    count: usize,
    shared: *mut T,
) {
    let mut j = cta.tid() as usize;
    while j < count {
        *shared.add(j) = *src.add(j);
        j += NT;
    }
}

/// [`global_to_shared_loop`] with asynchronous copies ([`Cta::async_copy`]): each thread
/// issues copies of positions `tid, tid + NT, ...` below `count` (32-bit positions), all in
/// flight at once and none held in a register. The copies are this thread's:
/// [`Cta::async_copy_wait`] and a barrier must come before anyone reads them.
///
/// # Safety
/// `src` is valid for `count` reads and `shared` for `count` writes.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::global_to_shared_loop_async;
/// let input: Vec<u64> = (10..47).collect();
/// let mut out = vec![0u64; 37];
/// let (ip, op) = (input.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 64 * 8, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u64>(0);
///     global_to_shared_loop_async::<_, _, 32>(cta, ip as *const u64, 37, sh);
///     cta.async_copy_wait();
///     cta.sync();
///     if cta.tid() == 0 {
///         for j in 0..37 {
///             *(op as *mut u64).add(j) = *sh.add(j);
///         }
///     }
/// });
/// assert_eq!(input, out);
/// ```
#[inline(always)]
pub unsafe fn global_to_shared_loop_async<C: Cta, T: Copy, const NT: usize>(
    cta: &C,
    src: *const T,
    count: u32,
    shared: *mut T,
) {
    let mut j = cta.tid();
    while j < count {
        cta.async_copy(shared.add(j as usize), src.add(j as usize));
        j += NT as u32;
    }
}

/// The shared-memory slot, from `at`, at which a range of elements from `src` sits at the
/// same address modulo 16 bytes as in global memory (elements of 4 or 8 bytes; others take
/// `at`), so that it copies as 16-byte vectors ([`global_to_shared_async_vec16`]): at most
/// `16 / size_of::<T>() - 1` slots after `at`. Assumes shared memory starts 16-byte aligned.
///
/// # Examples
///
/// ```
/// let v = [0u32; 8];
/// let s = mgpu_loadstore::aligned_slot(v[1..].as_ptr(), 5);
/// assert!((5..9).contains(&s));
/// assert_eq!(s as usize * 4 % 16, v[1..].as_ptr() as usize % 16);
/// ```
#[inline(always)]
pub fn aligned_slot<T>(src: *const T, at: u32) -> u32 {
    let k = core::mem::size_of::<T>();
    if k != 4 && k != 8 {
        return at;
    }
    let w = (16 / k) as u32;
    let want = ((src as usize % 16) / k) as u32;
    at + (want + w - at % w) % w
}

/// [`global_to_shared_loop_async`] with 16-byte copies where it can: when `src` and
/// `shared` sit at the same address modulo 16 bytes (4- and 8-byte elements), the elements
/// before `src`'s first 16-byte boundary and after its last one are copied singly and the
/// rest as 16-byte vectors (`cp.async.cg`, a quarter of the copies for 4-byte elements),
/// each thread taking every `NT`-th; otherwise one element a copy. No wait, no barrier.
///
/// # Safety
/// As [`global_to_shared_loop_async`].
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::global_to_shared_async_vec16;
/// let input: Vec<u32> = (0..100).collect();
/// let mut out = vec![0u32; 97];
/// let (ip, op) = (input.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 104 * 4, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     // input[3..100] to slot 3 on: the same address modulo 16 when input is 16-aligned.
///     global_to_shared_async_vec16::<_, _, 32>(cta, (ip as *const u32).add(3), 97, sh.add(3));
///     cta.async_copy_wait();
///     cta.sync();
///     if cta.tid() == 0 {
///         for j in 0..97 {
///             *(op as *mut u32).add(j) = *sh.add(3 + j);
///         }
///     }
/// });
/// assert!((0..97).all(|j| out[j] == j as u32 + 3));
/// ```
#[inline(always)]
pub unsafe fn global_to_shared_async_vec16<C: Cta, T: Copy, const NT: usize>(
    cta: &C,
    src: *const T,
    count: u32,
    shared: *mut T,
) {
    let k = core::mem::size_of::<T>();
    if (k != 4 && k != 8) || (src as usize) % 16 != (shared as usize) % 16 {
        global_to_shared_loop_async::<C, T, NT>(cta, src, count, shared);
        return;
    }
    let w = (16 / k) as u32;
    let tid = cta.tid();
    let head = (((16 - src as usize % 16) % 16 / k) as u32).min(count);
    let vecs = (count - head) / w;
    let tail = head + vecs * w;
    if tid < head {
        cta.async_copy(shared.add(tid as usize), src.add(tid as usize));
    }
    if tail + tid < count {
        let t = (tail + tid) as usize;
        cta.async_copy(shared.add(t), src.add(t));
    }
    // (16-byte copies as `u128`.)
    let (vd, vs) = (
        shared.add(head as usize) as *mut u128,
        src.add(head as usize) as *const u128,
    );
    let mut v = tid;
    while v < vecs {
        cta.async_copy(vd.add(v as usize), vs.add(v as usize));
        v += NT as u32;
    }
}

/// Global → registers in thread order, through shared memory: a coalesced strided load,
/// a barrier, a thread-order read. Ends without a barrier: synchronise before writing
/// `shared` again.
///
/// # Safety
/// `src` is valid for `NT * VT` reads; `shared` holds as many elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn global_to_thread_order<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    shared: *mut T,
) -> [T; VT] {
    let x = global_to_regs_strided::<C, T, NT, VT>(cta, src);
    regs_to_shared_strided::<C, T, NT, VT>(cta, &x, shared);
    cta.sync();
    shared_to_regs_thread::<C, T, VT>(cta, shared)
}

/// [`global_to_thread_order`] reading only positions below `count`; others are `fill`.
///
/// # Safety
/// `src` is valid for `count` reads; `shared` holds `NT * VT` elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn global_to_thread_order_guarded<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    count: usize,
    fill: T,
    shared: *mut T,
) -> [T; VT] {
    let x = global_to_regs_strided_guarded::<C, T, NT, VT>(cta, src, count, fill);
    regs_to_shared_strided::<C, T, NT, VT>(cta, &x, shared);
    cta.sync();
    shared_to_regs_thread::<C, T, VT>(cta, shared)
}

/// Registers in thread order → global, through shared memory: a thread-order write, a
/// barrier, a coalesced strided store. Ends without a barrier. The caller must have
/// synchronised since `shared` was last read.
///
/// # Safety
/// `dst` is valid for `NT * VT` writes; `shared` holds as many elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn thread_order_to_global<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    dst: *mut T,
    shared: *mut T,
) {
    regs_to_shared_thread::<C, T, VT>(cta, x, shared);
    cta.sync();
    let y = shared_to_regs_strided::<C, T, NT, VT>(cta, shared);
    regs_to_global_strided::<C, T, NT, VT>(cta, &y, dst);
}

/// [`thread_order_to_global`] writing only positions below `count`.
///
/// # Safety
/// `dst` is valid for `count` writes; `shared` holds `NT * VT` elements.
///
/// # Examples
/// See the crate docs.
#[inline(always)]
pub unsafe fn thread_order_to_global_guarded<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    dst: *mut T,
    count: usize,
    shared: *mut T,
) {
    regs_to_shared_thread::<C, T, VT>(cta, x, shared);
    cta.sync();
    let y = shared_to_regs_strided::<C, T, NT, VT>(cta, shared);
    regs_to_global_strided_guarded::<C, T, NT, VT>(cta, &y, dst, count);
}

/// Global → shared → registers in thread order, transposing each warp's part of the tile
/// on its own (no CTA barrier): warp `w` owns tile positions
/// `[w * 32 * VT, (w + 1) * 32 * VT)`, loads them coalesced (lane `l` reads `l + 32 i`),
/// writes them to the same positions of `shared`, and after a warp barrier each thread reads
/// its `VT` consecutive values. Positions at or past `count` are `fill`. On return `shared`
/// holds the tile in natural order, so the thread-order values can be read again later
/// with [`shared_to_regs_thread`].
///
/// # Safety
/// `src` is valid for `count` reads, `shared` holds `NT * VT` elements; all lanes of each
/// warp call it (`NT` a multiple of 32).
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::global_to_thread_order_warp;
/// let input: Vec<u32> = (0..64 * 5).collect();
/// let ip = input.as_ptr() as usize;
/// sim::launch(1, 64, 64 * 5 * 4, &|cta: &sim::SimCta| unsafe {
///     let x: [u32; 5] = global_to_thread_order_warp::<_, _, 64, 5>(cta, ip as *const u32, 300, 0, cta.shared(0));
///     let t = cta.tid();
///     let want: [u32; 5] = core::array::from_fn(|i| if 5 * t + (i as u32) < 300 { 5 * t + i as u32 } else { 0 });
///     assert_eq!(x, want);
/// });
/// ```
#[inline(always)]
pub unsafe fn global_to_thread_order_warp<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    count: usize,
    fill: T,
    shared: *mut T,
) -> [T; VT] {
    let seg = cta.warp() as usize * 32 * VT;
    let first = seg + cta.lane() as usize;
    let (s, d) = (src.wrapping_add(first), shared.add(first));
    if seg + 32 * VT <= count {
        let x: [T; VT] = core::array::from_fn(|i| *s.add(32 * i));
        for (i, v) in x.iter().enumerate() {
            *d.add(32 * i) = *v;
        }
    } else {
        let rem = count.saturating_sub(first);
        for i in 0..VT {
            *d.add(32 * i) = if 32 * i < rem { *s.add(32 * i) } else { fill };
        }
    }
    cta.sync_warp(!0);
    shared_to_regs_thread::<C, T, VT>(cta, shared)
}

/// Registers in thread order → shared → global, transposing each warp's part of the tile on
/// its own (see [`global_to_thread_order_warp`]); writes positions below `count`.
///
/// The caller must make sure no other lane of the warp still reads the positions this
/// thread writes (a thread that only read its own values, as after
/// [`global_to_thread_order_warp`] and a [`Cta::sync_warp`], may call it directly).
///
/// # Safety
/// `dst` is valid for `count` writes, `shared` holds `NT * VT` elements; all lanes of each
/// warp call it.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::thread_order_to_global_warp;
/// let mut out = vec![0u64; 32 * 3];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 32 * 3 * 8, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid() as u64;
///     thread_order_to_global_warp::<_, _, 32, 3>(cta, &[3 * t, 3 * t + 1, 3 * t + 2], op as *mut u64, 95, cta.shared(0));
/// });
/// assert_eq!(out[..95], (0..95).collect::<Vec<u64>>()[..]);
/// assert_eq!(out[95], 0);
/// ```
#[inline(always)]
pub unsafe fn thread_order_to_global_warp<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    dst: *mut T,
    count: usize,
    shared: *mut T,
) {
    regs_to_shared_thread::<C, T, VT>(cta, x, shared);
    cta.sync_warp(!0);
    let seg = cta.warp() as usize * 32 * VT;
    let first = seg + cta.lane() as usize;
    let (s, d) = (shared.add(first), dst.wrapping_add(first));
    if seg + 32 * VT <= count {
        let y: [T; VT] = core::array::from_fn(|i| *s.add(32 * i));
        for (i, v) in y.iter().enumerate() {
            *d.add(32 * i) = *v;
        }
    } else {
        let rem = count.saturating_sub(first);
        for i in 0..VT {
            if 32 * i < rem {
                *d.add(32 * i) = *s.add(32 * i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::sim::{launch, SimCta};

    fn roundtrip<const NT: usize, const VT: usize>(count: usize) {
        let input: Vec<u64> = (0..count as u64).map(|i| i * 7 + 1).collect();
        let mut output = vec![0u64; count];
        let (ip, op) = (input.as_ptr() as usize, output.as_mut_ptr() as usize);
        launch(1, NT as u32, NT * VT * 8, &|cta: &SimCta| unsafe {
            let sh = cta.shared::<u64>(0);
            let x: [u64; VT] = if count == NT * VT {
                global_to_thread_order::<_, _, NT, VT>(cta, ip as *const u64, sh)
            } else {
                global_to_thread_order_guarded::<_, _, NT, VT>(
                    cta,
                    ip as *const u64,
                    count,
                    u64::MAX,
                    sh,
                )
            };
            let t = cta.tid() as usize;
            for (i, v) in x.iter().enumerate() {
                let j = t * VT + i;
                let expect = if j < count {
                    j as u64 * 7 + 1
                } else {
                    u64::MAX
                };
                assert_eq!(*v, expect, "thread {t} slot {i}");
            }
            cta.sync();
            if count == NT * VT {
                thread_order_to_global::<_, _, NT, VT>(cta, &x, op as *mut u64, sh);
            } else {
                thread_order_to_global_guarded::<_, _, NT, VT>(cta, &x, op as *mut u64, count, sh);
            }
        });
        assert_eq!(input, output);
    }

    #[test]
    fn thread_order_roundtrips() {
        roundtrip::<32, 1>(32);
        roundtrip::<32, 1>(5);
        roundtrip::<64, 7>(64 * 7);
        roundtrip::<64, 7>(64 * 7 - 1);
        roundtrip::<128, 3>(1);
        roundtrip::<128, 3>(0);
        roundtrip::<96, 5>(300);
    }

    #[test]
    fn loop_copy_short_interval() {
        let input: Vec<i32> = (0..37).collect();
        let mut out = vec![0i32; 37];
        let (ip, op) = (input.as_ptr() as usize, out.as_mut_ptr() as usize);
        launch(1, 32, 64 * 4, &|cta: &SimCta| unsafe {
            let sh = cta.shared::<i32>(0);
            global_to_shared_loop::<_, _, 32>(cta, ip as *const i32, 37, sh);
            cta.sync();
            if cta.tid() == 0 {
                for j in 0..37 {
                    *(op as *mut i32).add(j) = *sh.add(j);
                }
            }
        });
        assert_eq!(input, out);
    }
}
