//! [`LoadBalance`]: the CTA load-balancing search.

use super::*;

/// Arguments of [`LoadBalance`].
///
/// # Examples
///
/// See [`LoadBalance`]; the host wrapper [`load_balance_search`](crate::load_balance_search)
/// fills them in.
///
/// ```
/// let args = mgpu_blocks::kernels::LoadBalanceArgs {
///     scan: core::ptr::null(), num_objects: 0, total: 0, mp: core::ptr::null(),
///     objects: core::ptr::null_mut(), ranks: core::ptr::null_mut(),
/// };
/// assert_eq!(args.total, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LoadBalanceArgs {
    /// The exclusive scan of the objects' work-item counts.
    pub scan: *const u32,
    /// Number of objects.
    pub num_objects: u32,
    /// Number of work items (the sum of the counts).
    pub total: u32,
    /// Upper-bound Merge Path partitions of the work items against `scan`, one per tile
    /// boundary (`grid + 1`; `mgpu_partition::load_balance_partitions`).
    pub mp: *const u64,
    /// Per work item: the object that generated it (`upper_bound(scan, item) - 1`).
    pub objects: *mut u32,
    /// Per work item: its rank within its object (`item - scan[object]`).
    pub ranks: *mut u32,
}

/// The CTA load-balancing search (seed 001) on each tile of `NT * VT` merge steps:
/// [`cta_load_balance`] with the preceding object's scan value loaded, then each work item
/// of the tile gets its object from shared memory and its rank from its object's scan
/// value.
///
/// [`cta_load_balance`]: mgpu_ctasearch::cta_load_balance
///
/// # Examples
///
/// Seed 001's counts 2, 5, 3, 0, 1 in one tile (partitions 0 and 11) in the simulator:
///
/// ```
/// use mgpu_core::{sim, Kernel};
/// use mgpu_blocks::kernels::{LoadBalance, LoadBalanceArgs, NT, VT};
/// type K = LoadBalance<NT, VT>;
/// assert_eq!(K::ENTRY, "blocks_load_balance_u32");
/// let (scan, mp) = ([0u32, 2, 7, 10, 10], [0u64, 11]);
/// let (mut obj, mut rank) = ([0u32; 11], [0u32; 11]);
/// let args = LoadBalanceArgs {
///     scan: scan.as_ptr(), num_objects: 5, total: 11, mp: mp.as_ptr(),
///     objects: obj.as_mut_ptr(), ranks: rank.as_mut_ptr(),
/// };
/// sim::launch_kernel::<K>(1, &args);
/// assert_eq!(obj, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank, [0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// ```
pub struct LoadBalance<const NT: usize, const VT: usize>;

mgpu_core::kernel_impl! {
    impl[const NT: usize, const VT: usize] LoadBalance<NT, VT>;
    args: LoadBalanceArgs, module: MODULE, nt: NT, vt: VT,
    shared: cs::cta_load_balance_shared_len(NT * VT) * 4, min_ctas: 1;
    fn body<C>(cta, a) {
        unsafe {
            let sh = cta.shared::<u32>(0);
            let t = cs::cta_load_balance::<C, u32, NT, VT>(
                cta,
                cta.block(),
                a.total,
                a.scan,
                a.num_objects,
                a.mp,
                sh,
                true,
                true,
            );
            let bsh = sh.add(t.b_shared() as usize);
            let mut i = cta.tid();
            while i < t.a_count() {
                let item = t.a0 + i;
                let o = *sh.add(i as usize);
                *a.objects.add(item as usize) = o;
                *a.ranks.add(item as usize) = item - *bsh.add((o - t.b0) as usize);
                i += NT as u32;
            }
        }
    }
}
