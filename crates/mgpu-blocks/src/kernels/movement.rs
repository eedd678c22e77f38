//! Data movement kernels: [`Permute`] (gather and scatter, plain and guarded, interval
//! copies) and [`MergeValues`] (the merge-value transfer).

use super::*;

/// Arguments of [`Permute`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PermuteArgs<T> {
    /// Source values.
    pub src: *const T,
    /// Their number.
    pub src_len: u64,
    /// Per output position `p < count`: the source index.
    pub gather: *const u32,
    /// Per output position `p < count`: the destination index.
    pub scatter: *const u32,
    /// Number of moves.
    pub count: u64,
    /// Destination.
    pub dst: *mut T,
    /// Its length.
    pub dst_len: u64,
    /// Set to 1 when an index is out of range (checked mode).
    pub error: *mut u32,
    /// 0: indices checked against the lengths; otherwise trusted.
    pub unchecked: u32,
}

blocks_kernel! {
    /// `dst[scatter[p]] = src[gather[p]]` for `p < count`, through gather and scatter in
    /// strided order (IntervalMove's data movement, seed 000). In checked mode an index out of
    /// range moves nothing and sets the error word.
    pub struct Permute<T: Element>;
    args: PermuteArgs<T>,
    shared: 0;
    fn body<C>(cta, a) {
        let (start, n) = tile(cta, NT * VT, a.count);
        unsafe {
            let g = ls::global_to_regs_strided_guarded::<C, u32, NT, VT>(
                cta,
                a.gather.add(start),
                n,
                0,
            );
            let s = ls::global_to_regs_strided_guarded::<C, u32, NT, VT>(
                cta,
                a.scatter.add(start),
                n,
                0,
            );
            if a.unchecked != 0 {
                if n == NT * VT {
                    let x = ls::gather::<C, T, u32, NT, VT>(cta, a.src, &g);
                    ls::scatter::<C, T, u32, NT, VT>(cta, &x, &s, a.dst);
                } else {
                    let x = ls::gather_guarded::<C, T, u32, NT, VT>(cta, a.src, &g, n, T::ZERO);
                    ls::scatter_guarded::<C, T, u32, NT, VT>(cta, &x, &s, n, a.dst);
                }
            } else {
                let (x, b1) = ls::gather_checked::<C, T, u32, NT, VT>(
                    cta,
                    a.src,
                    a.src_len as usize,
                    &g,
                    n,
                    T::ZERO,
                );
                let mut s2 = s;
                // A move whose source is bad writes nothing.
                for (i, d) in s2.iter_mut().enumerate() {
                    if g[i] as u64 >= a.src_len {
                        *d = u32::MAX;
                    }
                }
                let b2 = ls::scatter_checked::<C, T, u32, NT, VT>(
                    cta,
                    &x,
                    &s2,
                    n,
                    a.dst,
                    a.dst_len as usize,
                );
                if b1 || b2 {
                    cta.atomic_or_u32(a.error, 1);
                }
            }
        }
    }
}

/// Arguments of [`MergeValues`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MergeValuesArgs<T> {
    /// The A values.
    pub a: *const T,
    /// The B values.
    pub b: *const T,
    /// Number of A values: gather indices below it name A, the others B.
    pub a_count: u32,
    /// Number of B values.
    pub b_count: u32,
    /// `a_count + b_count` merge-style gather indices.
    pub indices: *const u32,
    /// `a_count + b_count` outputs.
    pub dst: *mut T,
}

blocks_kernel! {
    /// `dst[p] = (A ++ B)[indices[p]]`: each tile copies its indices into shared memory with
    /// the interval loop copy, then runs the merge-value transfer (seed 003).
    pub struct MergeValues<T: Element>;
    args: MergeValuesArgs<T>,
    shared: NT * VT * 4;
    fn body<C>(cta, a) {
        let total = a.a_count as u64 + a.b_count as u64;
        let (start, n) = tile(cta, NT * VT, total);
        unsafe {
            let sh = cta.shared::<u32>(0);
            ls::mem_to_mem_loop::<C, u32, NT, VT>(cta, a.indices.add(start), n, sh);
            cta.sync();
            ls::transfer_merge_values_shared::<C, T, NT, VT>(
                cta,
                n,
                a.a,
                a.b,
                a.a_count,
                sh,
                a.dst.add(start),
            );
        }
    }
}
