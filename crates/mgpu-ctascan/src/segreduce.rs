//! The CTA segmented reduction core of seed 002 (`CTASegReduce::ReduceToGlobal`), shared
//! by segmented reduction over CSR, reduce-by-key and SpMV.
//!
//! Input: a tile in thread order (thread `tid` holds elements `tid * VT + i`) with each
//! element's **tile-local segment index** (`rows`, non-decreasing, starting at 0), plus the
//! index of the element after the thread's last (`next_row`; for the tile's last thread,
//! that of the first element of the next tile, or any different value when the tile ends a
//! segment). An element ends a segment when the next element's row differs. Three phases:
//!
//! 1. upsweep: each thread scans its values serially, restarting after each segment end,
//!    and keeps the scan (`local_scan`) and its carry-out;
//! 2. the [CTA segmented scan](crate::seg_scan_delta) of the carry-outs gives each
//!    thread's carry-in and the tile's carry-out;
//! 3. downsweep: the carry-in is added to the local scan up to the thread's first segment
//!    end; each segment end's value is the segment's reduction within the tile, stored at
//!    its row. The reductions are compacted in shared memory and streamed out coalesced;
//!    in **half-capacity** mode (for types wider than 4 bytes, to halve the shared memory)
//!    only `NT * VT / 2` fit, and a tile with more segment ends stores directly to global
//!    memory instead (only when the average segment is shorter than two elements).
//!
//! The first reduction of a tile lacks the carry-outs of earlier tiles; the tile's
//! carry-out is what the caller's fix-up pass adds (seed 002's `KernelSegReduceApply`).

use crate::segscan::{find_seg_scan_delta, seg_scan_delta, seg_scan_shared_bytes};
use mgpu_core::{AssociativeOp, Cta, Element};

/// Bytes of shared memory [`seg_reduce_to_global`] needs: the larger of the segmented
/// scan's and the reductions' (`nt * vt` elements, or half of that in half-capacity mode).
///
/// ```
/// use mgpu_ctascan::seg_reduce_shared_bytes;
/// assert_eq!(seg_reduce_shared_bytes(128, 7, 4, false), 128 * 7 * 4);
/// assert_eq!(seg_reduce_shared_bytes(128, 7, 8, true), 128 * 7 / 2 * 8);
/// ```
pub const fn seg_reduce_shared_bytes(nt: usize, vt: usize, elem_bytes: usize, half: bool) -> usize {
    let capacity = if half { nt * vt / 2 } else { nt * vt };
    let values = capacity * elem_bytes;
    let scan = seg_scan_shared_bytes(nt, elem_bytes);
    if values > scan {
        values
    } else {
        scan
    }
}

/// Whether each of a thread's elements ends a segment (bit `i`), from the rows of its
/// elements and the row of the element after them.
///
/// ```
/// assert_eq!(mgpu_ctascan::segment_end_flags::<4>(&[0, 0, 1, 3], 3), 0b0110);
/// assert_eq!(mgpu_ctascan::segment_end_flags::<2>(&[5, 5], 6), 0b10);
/// ```
#[inline(always)]
pub fn segment_end_flags<const VT: usize>(rows: &[u32; VT], next_row: u32) -> u32 {
    const { assert!(VT <= 32, "end flags are one u32: VT <= 32") };
    let mut flags = 0u32;
    for i in 0..VT {
        let next = if i + 1 < VT { rows[i + 1] } else { next_row };
        if rows[i] != next {
            flags |= 1 << i;
        }
    }
    flags
}

/// Seed 002's `CTASegReduce::ReduceToGlobal`: reduces each segment of the tile and stores
/// its reduction at `dest[row]` for every row that ends in the tile (`row < total`, where
/// `total` is the number of segment ends in the tile), and returns the tile's carry-out
/// (the reduction of the part of the last segment that continues past the tile; the
/// identity when the tile ends a segment). Thread 0 also stores the carry-out to
/// `*carry_out` when that pointer is not null.
///
/// `HALF` selects the half-capacity mode (see the module docs). For a partial tile, give
/// the positions past the end the identity and the row of the last valid element.
///
/// Contains barriers and ends with one, so `shared` may be reused at once.
///
/// # Safety
/// `shared` holds [`seg_reduce_shared_bytes`]`(NT, VT, size_of::<T>(), HALF)` bytes,
/// 8-byte aligned; `dest` is valid for `total` writes; all `NT` threads call it; `rows`
/// are non-decreasing across the tile and every row ending in the tile is below `total`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, Plus};
/// use mgpu_ctascan::{seg_reduce_shared_bytes, seg_reduce_to_global};
/// // 64 ones in rows of 10: rows 0..=5 end in the tile, row 6 (4 elements) continues
/// let mut out = vec![0u32; 6];
/// let mut carry = 0u32;
/// let (op, cp) = (out.as_mut_ptr() as usize, &mut carry as *mut u32 as usize);
/// sim::launch(1, 32, seg_reduce_shared_bytes(32, 2, 4, false), &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid();
///     let rows = [2 * t / 10, (2 * t + 1) / 10];
///     let next = if t == 31 { 6 } else { (2 * t + 2) / 10 };
///     seg_reduce_to_global::<_, u32, Plus, 32, 2, false>(
///         cta, &rows, next, 6, &[1, 1], op as *mut u32, cp as *mut u32, cta.shared_base());
/// });
/// assert_eq!(out, vec![10; 6]);
/// assert_eq!(carry, 4);
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn seg_reduce_to_global<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
    const HALF: bool,
>(
    cta: &C,
    rows: &[u32; VT],
    next_row: u32,
    total: u32,
    data: &[T; VT],
    dest: *mut T,
    carry_out: *mut T,
    shared: *mut u8,
) -> T {
    let ends = segment_end_flags::<VT>(rows, next_row);

    // 1. Thread-local segmented scan.
    let mut x = Op::identity();
    let local: [T; VT] = core::array::from_fn(|i| {
        x = if i == 0 {
            data[0]
        } else {
            Op::apply(x, data[i])
        };
        let s = x;
        if (ends >> i) & 1 != 0 {
            x = Op::identity();
        }
        s
    });

    // 2. Carry-in from the CTA segmented scan of the carry-outs.
    let tid_delta = find_seg_scan_delta::<C, NT>(cta, ends != 0, shared as *mut u32);
    let (mut carry_in, tile_carry) =
        seg_scan_delta::<C, T, Op, NT>(cta, tid_delta, x, shared as *mut T);
    if cta.tid() == 0 && !carry_out.is_null() {
        *carry_out = tile_carry;
    }
    cta.sync(); // the scan's shared memory becomes the reductions' area

    // 3. Add the carry-in up to the first end; store each end's reduction.
    let capacity = if HALF { NT * VT / 2 } else { NT * VT };
    let values = shared as *mut T;
    let direct = HALF && total as usize > capacity;
    for i in 0..VT {
        let r = Op::apply(carry_in, local[i]);
        if (ends >> i) & 1 != 0 {
            if direct {
                *dest.add(rows[i] as usize) = r;
            } else {
                *values.add(rows[i] as usize) = r;
            }
            carry_in = Op::identity();
        }
    }
    if !direct {
        cta.sync();
        let mut j = cta.tid() as usize;
        while j < total as usize {
            *dest.add(j) = *values.add(j);
            j += NT;
        }
    }
    cta.sync();
    tile_carry
}
