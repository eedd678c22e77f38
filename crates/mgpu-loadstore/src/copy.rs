//! Cooperative copies of short intervals of any length (seeds 000, 001, 002:
//! `DeviceMemToMemLoop`, `DeviceGlobalToSharedLoop`), and count-guarded strided copies
//! between global and shared memory.

use mgpu_core::Cta;

/// Copies `count` elements from `src` to `dst` (any memory: shared to shared, global to
/// shared, shared to global), cooperatively: the CTA moves `NT * VT` elements per round,
/// each thread loading its `VT` strided elements (`tid + i * NT`) into registers before it
/// stores them, so `VT` loads are in flight. Any `count`, including 0 and more than a
/// tile; no barrier (synchronise before reading `dst` from another thread).
///
/// This is the copy for short intervals whose length is known only at run time, such as
/// the CSR offsets or the fill values a load-balancing tile references.
///
/// # Safety
/// `src` is valid for `count` reads, `dst` for `count` writes, and they do not overlap;
/// all `NT` threads call it.
///
/// # Examples
///
/// Shared to shared:
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::mem_to_mem_loop;
/// let mut out = vec![0u32; 70];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 140 * 4, &|cta: &sim::SimCta| unsafe {
///     let (a, b) = (cta.shared::<u32>(0), cta.shared::<u32>(70 * 4));
///     mem_to_mem_loop::<_, _, 32, 1>(cta, (0..70).map(|i| i as u32 * 2).collect::<Vec<_>>().as_ptr(), 70, a);
///     cta.sync();
///     mem_to_mem_loop::<_, _, 32, 2>(cta, a, 70, b);
///     cta.sync();
///     mem_to_mem_loop::<_, _, 32, 3>(cta, b, 70, op as *mut u32);
/// });
/// assert_eq!(out[69], 138);
/// ```
#[inline(always)]
pub unsafe fn mem_to_mem_loop<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    count: usize,
    dst: *mut T,
) {
    let tid = cta.tid() as usize;
    let mut base = 0;
    // Full rounds: unguarded, VT loads then VT stores.
    while base + NT * VT <= count {
        let (s, d) = (src.add(base + tid), dst.add(base + tid));
        let x: [T; VT] = core::array::from_fn(|i| *s.add(i * NT));
        for (i, v) in x.iter().enumerate() {
            *d.add(i * NT) = *v;
        }
        base += NT * VT;
    }
    // The last partial round.
    let rem = (count - base).saturating_sub(tid);
    if rem > 0 {
        let (s, d) = (src.add(base + tid), dst.add(base + tid));
        for i in 0..VT {
            if i * NT < rem {
                *d.add(i * NT) = *s.add(i * NT);
            }
        }
    }
}

/// Global → shared, strided (`shared[tid + i * NT] = src[tid + i * NT]`), for positions
/// below `count` only; the rest of `shared` is left as it was. No barrier.
///
/// # Safety
/// `src` is valid for `count` reads; `shared` holds `NT * VT` elements.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::{global_to_shared_guarded, shared_to_global_guarded};
/// let input: Vec<i64> = (0..50).collect();
/// let mut out = vec![-1i64; 64];
/// let (ip, op) = (input.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 64 * 8, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<i64>(0);
///     global_to_shared_guarded::<_, _, 32, 2>(cta, ip as *const i64, 50, sh);
///     cta.sync();
///     shared_to_global_guarded::<_, _, 32, 2>(cta, sh, 50, op as *mut i64);
/// });
/// assert_eq!(&out[..50], &input[..]);
/// assert_eq!(out[50], -1);
/// ```
#[inline(always)]
pub unsafe fn global_to_shared_guarded<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    src: *const T,
    count: usize,
    shared: *mut T,
) {
    let tid = cta.tid() as usize;
    let rem = count.saturating_sub(tid);
    let (s, d) = (src.wrapping_add(tid), shared.add(tid));
    // Loads first, then stores: VT loads in flight.
    let x: [Option<T>; VT] = core::array::from_fn(|i| {
        if i * NT < rem {
            Some(*s.add(i * NT))
        } else {
            None
        }
    });
    for (i, v) in x.iter().enumerate() {
        if let Some(v) = v {
            *d.add(i * NT) = *v;
        }
    }
}

/// Shared → global, strided, for positions below `count` only. No barrier.
///
/// # Safety
/// `shared` holds `NT * VT` elements; `dst` is valid for `count` writes.
///
/// # Examples
/// See [`global_to_shared_guarded`].
#[inline(always)]
pub unsafe fn shared_to_global_guarded<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    shared: *const T,
    count: usize,
    dst: *mut T,
) {
    let tid = cta.tid() as usize;
    let rem = count.saturating_sub(tid);
    let (s, d) = (shared.add(tid), dst.wrapping_add(tid));
    for i in 0..VT {
        if i * NT < rem {
            *d.add(i * NT) = *s.add(i * NT);
        }
    }
}

/// 16 bytes, aligned: the unit of [`store_vec16`]'s stores and of 16-byte loads from
/// shared memory (one `ld.shared.v4`/`st.global.v4`, whatever the element type the words
/// hold).
///
/// ```
/// let v = mgpu_loadstore::Vec16([1, 2, 3, 4]);
/// assert_eq!((core::mem::size_of_val(&v), core::mem::align_of_val(&v)), (16, 16));
/// ```
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Vec16(pub [u32; 4]);

/// Stores `dst[i] = f(i)` for `i < count` (at most `NT * VT`) with 16-byte stores: the
/// elements from the first 16-byte boundary of `dst` on go in groups of `16 /
/// size_of::<T>()`, one group a thread a round (strided, so a warp's stores cover whole
/// lines), the group's elements computed one by one into one register vector; the few
/// before that boundary and after the last whole group go one by one. For 4-byte elements
/// a thread issues a quarter of the stores and compares of a strided store loop. Elements
/// of other sizes than 4 and 8 go one by one, strided. `f` runs once per element, in any
/// order and thread; no barrier.
///
/// # Safety
/// `dst` is valid for `count` writes and aligned for `T`; `count <= NT * VT`; all `NT`
/// threads call it; `f(i)` is safe to call for `i < count`.
///
/// # Examples
///
/// Shared memory to global memory:
///
/// ```
/// use mgpu_core::{sim, Cta};
/// use mgpu_loadstore::store_vec16;
/// let mut out = vec![0u32; 300];
/// let op = out.as_mut_ptr() as usize;
/// sim::launch(1, 32, 4 * 32 * 9, &|cta: &sim::SimCta| unsafe {
///     let sh = cta.shared::<u32>(0);
///     for k in 0..9 {
///         *sh.add(cta.tid() as usize + 32 * k) = (cta.tid() + 32 * k as u32) * 3;
///     }
///     cta.sync();
///     // 281 elements from out[3] on: the first one to three alone, then groups of 4.
///     store_vec16::<_, u32, 32, 9>(cta, 281, (op as *mut u32).add(3), |i| *sh.add(i as usize));
/// });
/// assert!((0..281).all(|i| out[i + 3] == i as u32 * 3));
/// assert_eq!((out[2], out[284]), (0, 0));
/// ```
#[inline(always)]
pub unsafe fn store_vec16<C: Cta, T: Copy, const NT: usize, const VT: usize>(
    cta: &C,
    count: u32,
    dst: *mut T,
    mut f: impl FnMut(u32) -> T,
) {
    let size = core::mem::size_of::<T>();
    let tid = cta.tid();
    if size != 4 && size != 8 {
        for k in 0..VT {
            let i = tid + (NT * k) as u32;
            if i < count {
                *dst.add(i as usize) = f(i);
            }
        }
        return;
    }
    let per = (16 / size) as u32;
    // Elements before dst's first 16-byte boundary, then whole groups, then the rest.
    let head = (((16 - (dst as usize) % 16) % 16 / size) as u32).min(count);
    let groups = (count - head) / per;
    let body_end = head + groups * per;
    let lone = head + (count - body_end); // at most 2 * per - 2
    if tid < lone {
        let i = if tid < head {
            tid
        } else {
            body_end + tid - head
        };
        *dst.add(i as usize) = f(i);
    }
    for r in 0..VT.div_ceil(per as usize) {
        let g = tid + (r * NT) as u32;
        if g < groups {
            let at = head + g * per;
            let mut w = Vec16([0; 4]);
            let wp = w.0.as_mut_ptr() as *mut T;
            for e in 0..per {
                *wp.add(e as usize) = f(at + e);
            }
            *(dst.add(at as usize) as *mut Vec16) = w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mgpu_core::sim::{launch, SimCta};

    fn copy_through_shared<const NT: usize, const VT: usize>(count: usize) {
        let input: Vec<u64> = (0..count as u64).map(|i| i * 3 + 7).collect();
        let mut out = vec![0u64; count + 1];
        let (ip, op) = (input.as_ptr() as usize, out.as_mut_ptr() as usize);
        let cap = count.max(1);
        launch(1, NT as u32, 2 * cap * 8, &|cta: &SimCta| unsafe {
            let a = cta.shared::<u64>(0);
            let b = cta.shared::<u64>(cap * 8);
            mem_to_mem_loop::<_, _, NT, VT>(cta, ip as *const u64, count, a);
            cta.sync();
            mem_to_mem_loop::<_, _, NT, VT>(cta, a, count, b); // shared to shared
            cta.sync();
            mem_to_mem_loop::<_, _, NT, VT>(cta, b, count, op as *mut u64);
        });
        assert_eq!(&out[..count], &input[..], "NT {NT} VT {VT} count {count}");
        assert_eq!(out[count], 0, "nothing past count");
    }

    #[test]
    fn mem_to_mem_loop_any_length() {
        for count in [0, 1, 31, 32, 33, 95, 96, 97, 200, 1000] {
            copy_through_shared::<32, 1>(count);
            copy_through_shared::<32, 3>(count);
            copy_through_shared::<64, 4>(count);
        }
    }

    /// `count` elements to `dst` offset by `offset` elements from a 16-byte boundary.
    fn vec_copy<T: Copy + Default + PartialEq + core::fmt::Debug + From<u16>>(
        offset: usize,
        count: u32,
    ) {
        const NT: usize = 32;
        const VT: usize = 7;
        let input: Vec<T> = (0..count as u16).map(|i| T::from(i * 3 + 1)).collect();
        // A 16-byte-aligned buffer (u128s), seen as T.
        let words = (NT * VT + 8) * core::mem::size_of::<T>() / 16 + 2;
        let mut buf = vec![0u128; words];
        let base = buf.as_mut_ptr() as *mut T;
        let (ip, op) = (input.as_ptr() as usize, unsafe { base.add(offset) }
            as usize);
        launch(1, NT as u32, NT * VT * 8, &|cta: &SimCta| unsafe {
            let sh = cta.shared::<T>(0);
            global_to_shared_guarded::<_, _, NT, VT>(cta, ip as *const T, count as usize, sh);
            cta.sync();
            store_vec16::<_, _, NT, VT>(cta, count, op as *mut T, |i| *sh.add(i as usize));
        });
        let cap = words * 16 / core::mem::size_of::<T>();
        let got = unsafe { core::slice::from_raw_parts(base, cap) };
        assert_eq!(
            &got[offset..offset + count as usize],
            &input[..],
            "offset {offset} count {count}"
        );
        assert!(got[..offset].iter().all(|v| *v == T::default()), "before");
        assert!(
            got[offset + count as usize..]
                .iter()
                .all(|v| *v == T::default()),
            "after"
        );
    }

    #[test]
    fn vector_copies_any_alignment_and_count() {
        for offset in 0..4 {
            for count in [
                0u32, 1, 2, 3, 4, 5, 7, 8, 9, 31, 127, 128, 129, 200, 221, 223, 224,
            ] {
                vec_copy::<u32>(offset, count);
                vec_copy::<u64>(offset, count);
                vec_copy::<u16>(offset, count);
            }
        }
    }

    #[test]
    fn guarded_strided_copies() {
        for count in [0usize, 1, 63, 64, 100, 128] {
            let input: Vec<f32> = (0..count).map(|i| i as f32 + 0.5).collect();
            let mut out = vec![-1.0f32; 128];
            let (ip, op) = (input.as_ptr() as usize, out.as_mut_ptr() as usize);
            launch(1, 64, 128 * 4, &|cta: &SimCta| unsafe {
                let sh = cta.shared::<f32>(0);
                global_to_shared_guarded::<_, _, 64, 2>(cta, ip as *const f32, count, sh);
                cta.sync();
                shared_to_global_guarded::<_, _, 64, 2>(cta, sh, count, op as *mut f32);
            });
            assert_eq!(&out[..count], &input[..]);
            assert!(out[count..].iter().all(|&v| v == -1.0));
        }
    }
}
