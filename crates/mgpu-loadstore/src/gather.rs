//! Gather and scatter through index arrays (seeds 000 and 003: `DeviceGather`,
//! `DeviceScatter`).
//!
//! Register arrays are in **strided** order: `x[i]` and `indices[i]` belong to tile
//! position `tid + i * NT`, which is what lets a warp's 32 loads or stores go out together.
//! An index is an element offset from the base pointer (`u32` tile-local or `u64` global,
//! any [`Index`]).
//!
//! Three levels of checking:
//! - `gather` / `scatter`: every slot, every index trusted;
//! - `gather_guarded` / `scatter_guarded`: only tile positions below `count` (a partial
//!   tile), indices trusted;
//! - `gather_checked` / `scatter_checked`: positions below `count`, and an index at or past
//!   `len` is skipped (the gathered slot gets `fill`) and reported, so bad input never
//!   reads or writes out of bounds and the kernel can raise its error flag (DESIGN §5).

use mgpu_core::{Cta, Index};

/// `x[i] = src[indices[i]]` for every slot.
///
/// # Safety
/// Every `src[indices[i]]` is valid for reads.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::gather;
/// let src = [10u32, 11, 12, 13];
/// let sp = src.as_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid();
///     let x = gather::<_, u32, u32, 32, 2>(cta, sp as *const u32, &[t % 4, 3 - t % 4]);
///     assert_eq!(x, [10 + t % 4, 13 - t % 4]);
/// });
/// ```
#[inline(always)]
pub unsafe fn gather<C: Cta, T: Copy, I: Index, const NT: usize, const VT: usize>(
    _cta: &C,
    src: *const T,
    indices: &[I; VT],
) -> [T; VT] {
    core::array::from_fn(|i| *src.add(indices[i].to_usize()))
}

/// `x[i] = src[indices[i]]` for the slots whose tile position `tid + i * NT` is below
/// `count`; the others are `fill` (their indices are not read).
///
/// # Safety
/// `src[indices[i]]` is valid for reads for every slot below `count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::gather_guarded;
/// let src = [1.5f64, 2.5];
/// let sp = src.as_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let x = gather_guarded::<_, f64, u64, 32, 1>(cta, sp as *const f64, &[1], 5, -1.0);
///     assert_eq!(x[0], if cta.tid() < 5 { 2.5 } else { -1.0 });
/// });
/// ```
#[inline(always)]
pub unsafe fn gather_guarded<C: Cta, T: Copy, I: Index, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    indices: &[I; VT],
    count: usize,
    fill: T,
) -> [T; VT] {
    let rem = count.saturating_sub(cta.tid() as usize);
    core::array::from_fn(|i| {
        if i * NT < rem {
            *src.add(indices[i].to_usize())
        } else {
            fill
        }
    })
}

/// [`gather_guarded`] that also skips indices at or past `len` (the slot gets `fill`).
/// Returns the values and whether any index below `count` was out of range.
///
/// # Safety
/// `src` is valid for `len` reads.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::gather_checked;
/// let src = [7i32, 8, 9];
/// let sp = src.as_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid();
///     let (x, bad) = gather_checked::<_, i32, u32, 32, 1>(cta, sp as *const i32, 3, &[t], 32, 0);
///     assert_eq!(x[0], if t < 3 { 7 + t as i32 } else { 0 });
///     assert_eq!(bad, t >= 3);
/// });
/// ```
#[inline(always)]
pub unsafe fn gather_checked<C: Cta, T: Copy, I: Index, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    len: usize,
    indices: &[I; VT],
    count: usize,
    fill: T,
) -> ([T; VT], bool) {
    let rem = count.saturating_sub(cta.tid() as usize);
    let mut bad = false;
    let x = core::array::from_fn(|i| {
        let j = indices[i].to_usize();
        let live = i * NT < rem;
        bad |= live && j >= len;
        if live && j < len {
            *src.add(j)
        } else {
            fill
        }
    });
    (x, bad)
}

/// `dst[indices[i]] = x[i]` for every slot.
///
/// # Safety
/// Every `dst[indices[i]]` is valid for writes; two threads writing one position race.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::scatter;
/// let mut out = vec![0u32; 64];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid();
///     // reverse the tile: position p = t + 32 i goes to 63 - p
///     scatter::<_, u32, u32, 32, 2>(cta, &[t, t + 32], &[63 - t, 31 - t], op as *mut u32);
/// });
/// assert_eq!(out[0], 63);
/// assert_eq!(out[63], 0);
/// ```
#[inline(always)]
pub unsafe fn scatter<C: Cta, T: Copy, I: Index, const NT: usize, const VT: usize>(
    _cta: &C,
    x: &[T; VT],
    indices: &[I; VT],
    dst: *mut T,
) {
    for i in 0..VT {
        *dst.add(indices[i].to_usize()) = x[i];
    }
}

/// `dst[indices[i]] = x[i]` for the slots whose tile position `tid + i * NT` is below
/// `count`.
///
/// # Safety
/// `dst[indices[i]]` is valid for writes for every slot below `count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::scatter_guarded;
/// let mut out = vec![0u64; 32];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid() as u64;
///     scatter_guarded::<_, u64, u64, 32, 1>(cta, &[t + 1], &[31 - t], 10, op as *mut u64);
/// });
/// assert_eq!(out[31], 1);
/// assert_eq!(out[22], 10);
/// assert_eq!(out[21], 0);
/// ```
#[inline(always)]
pub unsafe fn scatter_guarded<C: Cta, T: Copy, I: Index, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    indices: &[I; VT],
    count: usize,
    dst: *mut T,
) {
    let rem = count.saturating_sub(cta.tid() as usize);
    for i in 0..VT {
        if i * NT < rem {
            *dst.add(indices[i].to_usize()) = x[i];
        }
    }
}

/// [`scatter_guarded`] that also skips indices at or past `len`; returns whether any index
/// below `count` was out of range (nothing is written for it).
///
/// # Safety
/// `dst` is valid for `len` writes.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::scatter_checked;
/// let mut out = vec![0u32; 4];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid();
///     let bad = scatter_checked::<_, u32, u32, 32, 1>(cta, &[t], &[t], 32, op as *mut u32, 4);
///     assert_eq!(bad, t >= 4);
/// });
/// assert_eq!(out, vec![0, 1, 2, 3]);
/// ```
#[inline(always)]
pub unsafe fn scatter_checked<C: Cta, T: Copy, I: Index, const NT: usize, const VT: usize>(
    cta: &C,
    x: &[T; VT],
    indices: &[I; VT],
    count: usize,
    dst: *mut T,
    len: usize,
) -> bool {
    let rem = count.saturating_sub(cta.tid() as usize);
    let mut bad = false;
    for i in 0..VT {
        let j = indices[i].to_usize();
        if i * NT < rem {
            if j < len {
                *dst.add(j) = x[i];
            } else {
                bad = true;
            }
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::sim::{launch, SimCta};

    /// A permutation through gather then scatter: out[perm2[p]] = src[perm1[p]], with all
    /// three checking levels, over a partial tile of `count` positions.
    fn permute<const NT: usize, const VT: usize>(count: usize, seed: u64) {
        let nv = NT * VT;
        let n = nv + 5;
        let src: Vec<i64> = (0..n as i64).map(|i| i * 11 - 3).collect();
        // Simple deterministic permutations of 0..n.
        let mut p1: Vec<u64> = (0..n as u64).collect();
        let mut p2: Vec<u32> = (0..n as u32).collect();
        let mut s = seed;
        for i in (1..n).rev() {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            p1.swap(i, (s >> 33) as usize % (i + 1));
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            p2.swap(i, (s >> 33) as usize % (i + 1));
        }
        for level in 0..3 {
            let mut out = vec![i64::MIN; n];
            let mut bad_any = vec![false; NT];
            let ptrs = (
                src.as_ptr() as usize,
                p1.as_ptr() as usize,
                p2.as_ptr() as usize,
                out.as_mut_ptr() as usize,
                bad_any.as_mut_ptr() as usize,
            );
            launch(1, NT as u32, 0, &|cta: &SimCta| unsafe {
                let t = cta.tid() as usize;
                let g: [u64; VT] = core::array::from_fn(|i| {
                    let q = t + i * NT;
                    if q < count {
                        *(ptrs.1 as *const u64).add(q)
                    } else {
                        u64::MAX // never read by the guarded forms
                    }
                });
                let sidx: [u32; VT] = core::array::from_fn(|i| {
                    let q = t + i * NT;
                    if q < count {
                        *(ptrs.2 as *const u32).add(q)
                    } else {
                        u32::MAX
                    }
                });
                let (src, out) = (ptrs.0 as *const i64, ptrs.3 as *mut i64);
                let mut bad = false;
                match level {
                    0 if count == NT * VT => {
                        let x = gather::<_, _, _, NT, VT>(cta, src, &g);
                        scatter::<_, _, _, NT, VT>(cta, &x, &sidx, out);
                    }
                    0 | 1 => {
                        let x = gather_guarded::<_, _, _, NT, VT>(cta, src, &g, count, 0);
                        scatter_guarded::<_, _, _, NT, VT>(cta, &x, &sidx, count, out);
                    }
                    _ => {
                        // len = n - 1: the index n - 1 is "out of range" on both sides.
                        let (x, b1) =
                            gather_checked::<_, _, _, NT, VT>(cta, src, n - 1, &g, count, -7);
                        let b2 =
                            scatter_checked::<_, _, _, NT, VT>(cta, &x, &sidx, count, out, n - 1);
                        bad = b1 || b2;
                    }
                }
                *(ptrs.4 as *mut bool).add(t) = bad;
            });
            let mut want = vec![i64::MIN; n];
            let mut want_bad = false;
            for q in 0..count {
                let (gi, si) = (p1[q] as usize, p2[q] as usize);
                if level == 2 && (gi >= n - 1 || si >= n - 1) {
                    want_bad = true;
                    if si < n - 1 {
                        want[si] = -7;
                    }
                    continue;
                }
                want[si] = src[gi];
            }
            assert_eq!(out, want, "NT {NT} VT {VT} count {count} level {level}");
            assert_eq!(bad_any.iter().any(|&b| b), want_bad);
        }
    }

    #[test]
    fn gather_scatter_permutations() {
        for (k, count) in [0usize, 1, 31, 32, 95, 96].into_iter().enumerate() {
            permute::<32, 3>(count, k as u64);
        }
        for (k, count) in [64usize * 5, 64 * 5 - 1, 100].into_iter().enumerate() {
            permute::<64, 5>(count, 10 + k as u64);
        }
    }
}
