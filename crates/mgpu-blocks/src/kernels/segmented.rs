//! Segmented kernels: [`SegReduce`] (the CTA segmented-reduction core) and [`SegScan`]
//! (the segmented tile scan).

use super::*;

/// Arguments of [`SegReduce`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SegReduceArgs<T> {
    /// The values.
    pub values: *const T,
    /// Each value's segment, non-decreasing, starting at 0, in steps of 0 or 1 (no empty
    /// segments).
    pub rows: *const u32,
    /// Number of values.
    pub count: u64,
    /// Per segment: its reduction within the tile where it ends (one per segment).
    pub dest: *mut T,
    /// Per tile: its carry-out.
    pub carries: *mut T,
}

/// The segmented reduction core on each tile: the reductions of the segments that end in
/// the tile (without the part in earlier tiles) to `dest[row]`, and the tile's carry-out
/// to `carries[block]`. The host adds the carries (seed 002's apply step).
pub struct SegReduce<T, Op, const NT: usize, const VT: usize, const HALF: bool>(
    PhantomData<(T, Op)>,
);

mgpu_core::kernel_impl! {
    impl[
        T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize, const HALF: bool
    ] SegReduce<T, Op, NT, VT, HALF>;
    args: SegReduceArgs<T>, module: MODULE, nt: NT, vt: VT,
    shared: max(
        max(NT * VT * 4, NT * VT * size_of::<T>() / if HALF { 2 } else { 1 }),
        seg_reduce_shared_bytes(NT, VT, size_of::<T>(), HALF),
    ),
    min_ctas: 1;
    fn body<C>(cta, a) {
        let (start, n) = tile(cta, NT * VT, a.count);
        let tid = cta.tid() as usize;
        unsafe {
            let rows_g = a.rows.add(start);
            let row0 = *rows_g;
            let last = *rows_g.add(n - 1);
            // The row after the tile; past the end, a row that ends the last segment.
            let after = if start + n < a.count as usize {
                *rows_g.add(n)
            } else {
                last + 1
            };
            let rs = cta.shared::<u32>(0);
            let mut rows =
                ls::global_to_thread_order_guarded::<C, u32, NT, VT>(cta, rows_g, n, after, rs);
            let next = if tid + 1 < NT {
                *rs.add(tid * VT + VT)
            } else {
                after
            };
            for r in rows.iter_mut() {
                *r -= row0;
            }
            cta.sync();
            // The values: half-capacity types go through shared memory in two halves.
            let data: [T; VT] = if HALF {
                let vs = cta.shared::<T>(0);
                let x = ls::global_to_regs_strided_guarded::<C, T, NT, VT>(
                    cta,
                    a.values.add(start),
                    n,
                    Op::identity(),
                );
                let half = NT * VT / 2;
                let mut out = [Op::identity(); VT];
                for pass in 0..2 {
                    for (i, v) in x.iter().enumerate() {
                        let p = tid + i * NT;
                        if p / half == pass {
                            *vs.add(p - pass * half) = *v;
                        }
                    }
                    cta.sync();
                    for (i, o) in out.iter_mut().enumerate() {
                        let p = tid * VT + i;
                        if p / half == pass {
                            *o = *vs.add(p - pass * half);
                        }
                    }
                    cta.sync();
                }
                out
            } else {
                let d = ls::global_to_thread_order_guarded::<C, T, NT, VT>(
                    cta,
                    a.values.add(start),
                    n,
                    Op::identity(),
                    cta.shared::<T>(0),
                );
                cta.sync();
                d
            };
            seg_reduce_to_global::<C, T, Op, NT, VT, HALF>(
                cta,
                &rows,
                next - row0,
                after - row0,
                &data,
                a.dest.add(row0 as usize),
                a.carries.add(cta.block() as usize),
                cta.shared_base(),
            );
        }
    }
}

/// Arguments of [`SegScan`].
///
/// # Examples
///
/// See [`SegScan`]; the host wrapper [`seg_scan_plus`](crate::seg_scan_plus) fills them in.
///
/// ```
/// let args = mgpu_blocks::kernels::SegScanArgs::<i32> {
///     values: core::ptr::null(), ends: core::ptr::null(), count: 0,
///     dest: core::ptr::null_mut(), exclusive: 0,
/// };
/// assert_eq!(args.count, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SegScanArgs<T> {
    /// The values.
    pub values: *const T,
    /// One byte per value: nonzero means the value is the last of its segment.
    pub ends: *const u8,
    /// Number of values.
    pub count: u64,
    /// `count` outputs: the segmented scan.
    pub dest: *mut T,
    /// 0: inclusive scan; otherwise exclusive.
    pub exclusive: u32,
}

blocks_kernel! {
    /// The CTA segmented scan of a tile (seed 002's `CTASegScan` on a thread-order tile):
    /// each tile loads its values and end flags into shared memory with the guarded strided
    /// copy ([`global_to_shared_guarded`]), each thread takes its `VT` consecutive elements,
    /// runs [`cta_seg_scan_tile`] (inclusive or exclusive by the run-time flag), puts its
    /// results back in shared memory and the tile is stored with [`shared_to_global_guarded`].
    ///
    /// **Segments are tile-local**: every tile of `NT * VT` elements starts a new segment (the
    /// tile's carry-out is dropped), as if the element before each tile boundary had its end
    /// flag set. The slots past `count` in the last tile get the identity and no flags.
    ///
    /// [`global_to_shared_guarded`]: mgpu_loadstore::global_to_shared_guarded
    /// [`shared_to_global_guarded`]: mgpu_loadstore::shared_to_global_guarded
    /// [`cta_seg_scan_tile`]: mgpu_ctascan::cta_seg_scan_tile
    ///
    /// # Examples
    ///
    /// One partial tile in the simulator, segments `[1, 2] [3] [4, 5]`:
    ///
    /// ```
    /// use mgpu_core::{sim, Kernel, Plus};
    /// use mgpu_blocks::kernels::{SegScan, SegScanArgs, NT, VT};
    /// type K = SegScan<i32, Plus, NT, VT>;
    /// assert_eq!(K::ENTRY, "blocks_segscan_i32_plus");
    /// let (x, ends) = ([1i32, 2, 3, 4, 5], [0u8, 1, 1, 0, 0]);
    /// let mut y = [0i32; 5];
    /// for (exclusive, want) in [(0, [1, 3, 3, 4, 9]), (1, [0, 1, 0, 0, 4])] {
    ///     let args = SegScanArgs {
    ///         values: x.as_ptr(), ends: ends.as_ptr(), count: 5, dest: y.as_mut_ptr(), exclusive,
    ///     };
    ///     sim::launch_kernel::<K>(1, &args);
    ///     assert_eq!(y, want);
    /// }
    /// ```
    pub struct SegScan<T: Element, Op: AssociativeOp<T>>;
    args: SegScanArgs<T>,
    // The values (then the results) at 0 and the flag bytes after them; the scan's area
    // reuses the start.
    shared: max( NT * VT * (size_of::<T>() + 1), seg_scan_shared_bytes(NT, size_of::<T>()), );
    fn body<C>(cta, a) {
        let (start, n) = tile(cta, NT * VT, a.count);
        let tid = cta.tid() as usize;
        unsafe {
            let vs = cta.shared::<T>(0);
            let fs = cta.shared::<u8>(NT * VT * size_of::<T>());
            ls::global_to_shared_guarded::<C, T, NT, VT>(cta, a.values.add(start), n, vs);
            ls::global_to_shared_guarded::<C, u8, NT, VT>(cta, a.ends.add(start), n, fs);
            cta.sync();
            // Thread order; the slots past `n` (never written) get the identity, no flags.
            let mut flags = 0u32;
            let x: [T; VT] = core::array::from_fn(|i| {
                let p = tid * VT + i;
                if p < n {
                    flags |= ((*fs.add(p) != 0) as u32) << i;
                    *vs.add(p)
                } else {
                    Op::identity()
                }
            });
            let kind = if a.exclusive != 0 {
                ScanKind::Exclusive
            } else {
                ScanKind::Inclusive
            };
            cta.sync();
            let (y, _carry_out) =
                cta_seg_scan_tile::<C, T, Op, NT, VT>(cta, &x, flags, cta.shared_base(), kind);
            cta.sync();
            for (i, v) in y.iter().enumerate() {
                *vs.add(tid * VT + i) = *v;
            }
            cta.sync();
            ls::shared_to_global_guarded::<C, T, NT, VT>(cta, vs, n, a.dest.add(start));
        }
    }
}
