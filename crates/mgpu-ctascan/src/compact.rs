//! Stream compaction of a strided tile by warp ballots: where each flagged element of a
//! tile goes when the flagged elements are packed in tile order.
//!
//! A tile of `NT * VT` elements held in strided order (thread `tid` holds elements
//! `NT * i + tid`, `i < VT`) is row-major: row `i` is elements `NT * i .. NT * (i + 1)`,
//! and within a row each warp holds 32 consecutive elements. So an element's rank among
//! the flagged ones (its exclusive count in tile order) is
//!
//! `sum over the rows before i` + `sum over the warps before w in row i` +
//! `popc(ballot & lanes below)`:
//!
//! one ballot per row, one count per (row, warp) in shared memory, one barrier, and a
//! warp-wide scan of those `VT * NT / 32` counts that every warp computes for itself. No
//! per-element shared traffic, no CTA scan of thread-order partial sums.

use mgpu_core::{Cta, WARP_SIZE};

/// Shared `u32` slots [`cta_compact_strided`] needs: one count per row and warp,
/// `vt * nt / 32`.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_ctascan::cta_compact_strided_shared_len(128, 7), 28);
/// ```
pub const fn cta_compact_strided_shared_len(nt: usize, vt: usize) -> usize {
    vt * (nt / WARP_SIZE as usize)
}

/// The ranks of a strided tile's flagged elements in tile order.
///
/// Thread `tid` passes the flags of its elements `NT * i + tid` (`i < VT`); it gets, for
/// each of them, how many flagged elements precede it in the tile (its slot when the
/// flagged elements are packed in order; meaningful where the flag is set), and the
/// number of flagged elements in the whole tile. Contains one barrier; every thread of the
/// CTA must call it. `shared` must not be written by any thread until after a later
/// barrier.
///
/// # Safety
/// `shared` is this CTA's shared memory of [`cta_compact_strided_shared_len`]`(NT, VT)`
/// `u32` slots. `NT` is a multiple of 32 and the block size.
///
/// # Examples
///
/// Keep the even elements of a 2-row tile of 64 threads: element `e` goes to `e / 2`.
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctascan::{cta_compact_strided, cta_compact_strided_shared_len};
/// const NT: usize = 64;
/// let mut slot = vec![0u32; 2 * NT];
/// let mut total = 0u32;
/// let (p, t) = (slot.as_mut_ptr() as usize, &mut total as *mut u32 as usize);
/// sim::launch(1, NT as u32, cta_compact_strided_shared_len(NT, 2) * 4, &|cta: &sim::SimCta| unsafe {
///     let tid = cta.tid() as usize;
///     let flags = [tid % 2 == 0, (NT + tid) % 2 == 0];
///     let (ranks, n) = cta_compact_strided::<_, NT, 2>(cta, flags, cta.shared(0));
///     for i in 0..2 {
///         *(p as *mut u32).add(NT * i + tid) = ranks[i];
///     }
///     *(t as *mut u32) = n;
/// });
/// assert_eq!(total, 64);
/// assert!((0..2 * NT).step_by(2).all(|e| slot[e] == e as u32 / 2));
/// ```
#[inline(always)]
pub unsafe fn cta_compact_strided<C: Cta, const NT: usize, const VT: usize>(
    cta: &C,
    flags: [bool; VT],
    shared: *mut u32,
) -> ([u32; VT], u32) {
    let mut ranks = [0u32; VT];
    let total = cta_compact_strided_each::<C, NT, VT>(cta, flags, shared, |i, r| ranks[i] = r);
    (ranks, total)
}

/// [`cta_compact_strided`] that hands each rank to `each(i, rank)` (row `i` of this
/// thread's elements, in row order, flagged or not) as soon as it is known, instead of
/// returning them all: a consumer such as a store loop then holds one rank at a time, not
/// `VT` of them, which matters for large `VT`. Returns the number of flagged elements.
///
/// # Safety
/// As for [`cta_compact_strided`].
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_ctascan::{cta_compact_strided_each, cta_compact_strided_shared_len};
/// const NT: usize = 32;
/// let mut slot = vec![u32::MAX; 3 * NT];
/// let p = slot.as_mut_ptr() as usize;
/// sim::launch(1, NT as u32, cta_compact_strided_shared_len(NT, 3) * 4, &|cta: &sim::SimCta| unsafe {
///     let tid = cta.tid() as usize;
///     let flags = [tid < 5, false, tid >= 30];
///     let n = cta_compact_strided_each::<_, NT, 3>(cta, flags, cta.shared(0), |i, r| {
///         if flags[i] {
///             *(p as *mut u32).add(r as usize) = (NT * i + tid) as u32;
///         }
///     });
///     assert_eq!(n, 7);
/// });
/// assert_eq!(&slot[..7], &[0, 1, 2, 3, 4, 94, 95]);
/// ```
#[inline(always)]
pub unsafe fn cta_compact_strided_each<C: Cta, const NT: usize, const VT: usize>(
    cta: &C,
    flags: [bool; VT],
    shared: *mut u32,
    mut each: impl FnMut(usize, u32),
) -> u32 {
    const W: u32 = WARP_SIZE;
    let warps = NT / W as usize;
    let lane = cta.lane();
    let warp = cta.warp() as usize;
    let below = (1u32 << lane) - 1;
    let mut masks = [0u32; VT];
    for (m, &f) in masks.iter_mut().zip(flags.iter()) {
        *m = cta.ballot(u32::MAX, f);
    }
    if lane == 0 {
        for (i, m) in masks.iter().enumerate() {
            *shared.add(warps * i + warp) = m.count_ones();
        }
    }
    cta.sync();

    // Every warp scans the VT * warps counts (row-major) itself: lane l sums entries
    // l * per .. (l + 1) * per, then a warp-wide inclusive scan of those sums.
    let len = VT * warps;
    let per = len.div_ceil(W as usize);
    let mut own = 0u32;
    for q in 0..per {
        let e = lane as usize * per + q;
        if e < len {
            own += *shared.add(e);
        }
    }
    let mut x = own;
    let mut d = 1;
    while d < W {
        let y = cta.shfl_up_u32(u32::MAX, x, d, W);
        if lane >= d {
            x += y;
        }
        d *= 2;
    }
    let total = cta.shfl_idx_u32(u32::MAX, x, W - 1, W);
    let before_lane = x - own;

    for (i, m) in masks.iter().enumerate() {
        let e = warps * i + warp;
        let owner = e / per;
        let mut start = cta.shfl_idx_u32(u32::MAX, before_lane, owner as u32, W);
        for q in owner * per..e {
            start += *shared.add(q);
        }
        each(i, start + (m & below).count_ones());
    }
    total
}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    use super::*;
    use mgpu_core::sim;

    /// Random flags over tiles of several shapes: every flagged element's rank equals the
    /// number of flagged elements before it in tile order; totals agree.
    fn check<const NT: usize, const VT: usize>(seed: u64, density: u64) {
        let n = NT * VT;
        let mut s = seed;
        let flags: Vec<bool> = (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 33) % 100 < density
            })
            .collect();
        let mut ranks = vec![u32::MAX; n];
        let mut totals = vec![0u32; NT];
        let (f, r, t) = (
            flags.as_ptr() as usize,
            ranks.as_mut_ptr() as usize,
            totals.as_mut_ptr() as usize,
        );
        sim::launch(
            1,
            NT as u32,
            cta_compact_strided_shared_len(NT, VT) * 4,
            &|cta: &sim::SimCta| unsafe {
                let tid = cta.tid() as usize;
                let mut mine = [false; VT];
                for (i, m) in mine.iter_mut().enumerate() {
                    *m = *(f as *const bool).add(NT * i + tid);
                }
                let (rk, total) = cta_compact_strided::<_, NT, VT>(cta, mine, cta.shared(0));
                for (i, v) in rk.iter().enumerate() {
                    *(r as *mut u32).add(NT * i + tid) = *v;
                }
                *(t as *mut u32).add(tid) = total;
            },
        );
        let mut seen = 0u32;
        for e in 0..n {
            if flags[e] {
                assert_eq!(ranks[e], seen, "NT {NT} VT {VT} element {e}");
                seen += 1;
            }
        }
        assert!(totals.iter().all(|&t| t == seen));
    }

    #[test]
    fn ranks_match_a_serial_count() {
        for (seed, density) in [(1, 50), (2, 0), (3, 100), (4, 3), (5, 97)] {
            check::<32, 1>(seed, density);
            check::<64, 7>(seed, density);
            check::<128, 7>(seed, density);
            check::<128, 11>(seed, density); // 44 counts: two per lane
            check::<256, 9>(seed, density); // 72 counts: three per lane
        }
    }
}
