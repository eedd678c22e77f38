//! The merge-value transfer (seed 003's `DeviceTransferMergeValues`): moving the values of
//! a merge-like operation (merge, mergesort, bulk insert, multisets) from two sources
//! through **merge-style gather indices**.
//!
//! A gather index `g` below `b_start` names `a[g]`; one at or above it names
//! `b[g - b_start]`. With `b_start = aCount` the indices are ranks into the concatenation
//! `A ++ B`, which is what a merge's (or bulk insert's) source ranks are. Output position
//! `p` of the tile takes the value its index names, `dst[p] = A++B[indices[p]]`; strided
//! order, as in [`crate::gather`].

use mgpu_core::Cta;

/// Strided merge-value transfer from register indices: for each slot whose tile position
/// `p = tid + i * NT` is below `count`, `dst[p] = a[g]` when `g = indices[i] < b_start`,
/// else `b[g - b_start]`.
///
/// # Safety
/// `a` is valid for reads below `b_start`, `b` for the reads the indices name, `dst` for
/// `count` writes.
///
/// # Examples
///
/// Bulk insert of seed 003 in miniature: A = the inserted values, B = the sources.
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::transfer_merge_values;
/// let a = [100u32, 101];          // aCount = 2
/// let b = [0u32, 1, 2];
/// let gather = [2u32, 0, 3, 1, 4]; // b0, a0, b1, a1, b2
/// let mut out = vec![0u32; 5];
/// let (ap, bp, gp, op) = (a.as_ptr() as usize, b.as_ptr() as usize, gather.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let t = cta.tid() as usize;
///     let idx = [if t < 5 { gather[t] } else { 0 }];
///     transfer_merge_values::<_, _, 32, 1>(cta, 5, ap as *const u32, bp as *const u32, 2, &idx, op as *mut u32);
/// });
/// assert_eq!(out, vec![0, 100, 1, 101, 2]);
/// ```
#[inline(always)]
pub unsafe fn transfer_merge_values<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    count: usize,
    a: *const T,
    b: *const T,
    b_start: u32,
    indices: &[u32; VT],
    dst: *mut T,
) {
    let tid = cta.tid() as usize;
    let rem = count.saturating_sub(tid);
    // `b_base[g]` is `b[g - b_start]` for every g >= b_start.
    let b_base = b.wrapping_sub(b_start as usize);
    let x: [Option<T>; VT] = core::array::from_fn(|i| {
        if i * NT < rem {
            let g = indices[i];
            let p = if g < b_start { a } else { b_base };
            Some(*p.wrapping_add(g as usize))
        } else {
            None
        }
    });
    let d = dst.wrapping_add(tid);
    for (i, v) in x.iter().enumerate() {
        if let Some(v) = v {
            *d.add(i * NT) = *v;
        }
    }
}

/// [`transfer_merge_values`] with the gather indices in shared memory, in tile order
/// (`indices_shared[p]` for output position `p`, as a merge or bulk insert computes them):
/// each thread reads its strided indices and transfers. The caller synchronises between
/// writing the indices and calling it.
///
/// # Safety
/// `indices_shared` holds `count` indices (at most `NT * VT`); the rest as for
/// [`transfer_merge_values`].
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::transfer_merge_values_shared;
/// let a = [1.0f64, 3.0];
/// let b = [2.0f64, 4.0];
/// let mut out = vec![0.0f64; 4];
/// let (ap, bp, op) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 4 * 4, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     if cta.tid() == 0 {
///         for (p, g) in [0u32, 2, 1, 3].iter().enumerate() { *sh.add(p) = *g; }
///     }
///     cta.sync();
///     transfer_merge_values_shared::<_, _, 32, 1>(cta, 4, ap as *const f64, bp as *const f64, 2, sh, op as *mut f64);
/// });
/// assert_eq!(out, vec![1.0, 2.0, 3.0, 4.0]);
/// ```
#[inline(always)]
pub unsafe fn transfer_merge_values_shared<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    count: usize,
    a: *const T,
    b: *const T,
    b_start: u32,
    indices_shared: *const u32,
    dst: *mut T,
) {
    let tid = cta.tid() as usize;
    let rem = count.saturating_sub(tid);
    let s = indices_shared.add(tid);
    let indices: [u32; VT] =
        core::array::from_fn(|i| if i * NT < rem { *s.add(i * NT) } else { 0 });
    transfer_merge_values::<C, T, NT, VT>(cta, count, a, b, b_start, &indices, dst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::sim::{launch, SimCta};

    /// Merges sorted A and B (ties to A) on the host, then moves the values on the device
    /// through the merge's gather indices and compares with the host merge.
    fn merge_values<const NT: usize, const VT: usize>(a_keys: &[u32], b_keys: &[u32]) {
        let (na, nb) = (a_keys.len(), b_keys.len());
        let count = na + nb;
        assert!(count <= NT * VT);
        let mut gather = Vec::with_capacity(count);
        let (mut i, mut j) = (0, 0);
        while i < na || j < nb {
            if j == nb || (i < na && a_keys[i] <= b_keys[j]) {
                gather.push(i as u32);
                i += 1;
            } else {
                gather.push((na + j) as u32);
                j += 1;
            }
        }
        let a: Vec<i64> = (0..na as i64).map(|v| 1000 + v).collect();
        let b: Vec<i64> = (0..nb as i64).map(|v| -1000 - v).collect();
        let want: Vec<i64> = gather
            .iter()
            .map(|&g| {
                if (g as usize) < na {
                    a[g as usize]
                } else {
                    b[g as usize - na]
                }
            })
            .collect();
        for from_shared in [false, true] {
            let mut out = vec![0i64; count + 1];
            let ptrs = (
                a.as_ptr() as usize,
                b.as_ptr() as usize,
                gather.as_ptr() as usize,
                out.as_mut_ptr() as usize,
            );
            launch(1, NT as u32, NT * VT * 4, &|cta: &SimCta| unsafe {
                let (ap, bp, op) = (
                    ptrs.0 as *const i64,
                    ptrs.1 as *const i64,
                    ptrs.3 as *mut i64,
                );
                let g = ptrs.2 as *const u32;
                if from_shared {
                    let sh = cta.shared::<u32>(0);
                    crate::mem_to_mem_loop::<_, _, NT, VT>(cta, g, count, sh);
                    cta.sync();
                    transfer_merge_values_shared::<_, _, NT, VT>(
                        cta, count, ap, bp, na as u32, sh, op,
                    );
                } else {
                    let t = cta.tid() as usize;
                    let idx: [u32; VT] = core::array::from_fn(|i| {
                        if t + i * NT < count {
                            *g.add(t + i * NT)
                        } else {
                            u32::MAX
                        }
                    });
                    transfer_merge_values::<_, _, NT, VT>(cta, count, ap, bp, na as u32, &idx, op);
                }
            });
            assert_eq!(
                &out[..count],
                &want[..],
                "na {na} nb {nb} shared {from_shared}"
            );
            assert_eq!(out[count], 0);
        }
    }

    #[test]
    fn merge_value_transfers() {
        let evens: Vec<u32> = (0..40).map(|v| 2 * v).collect();
        let odds: Vec<u32> = (0..50).map(|v| 2 * v + 1).collect();
        merge_values::<32, 3>(&evens, &odds);
        merge_values::<32, 3>(&evens, &[]);
        merge_values::<32, 3>(&[], &odds);
        merge_values::<32, 3>(&[], &[]);
        merge_values::<64, 2>(&[5; 60], &[5; 68]); // all keys equal: A first
        merge_values::<64, 2>(&odds[..7], &evens[..3]);
    }
}
