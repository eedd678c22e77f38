//! Host wrappers of the `blocks` kernels, generic over [`Device`]: host slices in, host
//! results out. They exist to run the building blocks on the simulator and the GPU in
//! tests; they are not an algorithm API.

use crate::kernels::{
    BatcherKeysArgs, LoadBalanceArgs, MergeKeysArgs, MergeValuesArgs, PermuteArgs, SegReduce,
    SegReduceArgs, SegScanArgs, SortPairsArgs, NT, VT,
};
use mgpu_core::{AssociativeOp, Element, Kernel, Plus};
use mgpu_ctasearch::{merge_path, Counting, Lower, Upper};
use mgpu_runtime::{Device, DeviceVec, Error, Result};

const NV: usize = NT * VT;

fn grid(n: usize) -> Result<u32> {
    u32::try_from(n.div_ceil(NV))
        .map_err(|_| Error::InvalidInput(format!("{n} elements is too many for one launch")))
}

fn ptr<T: Copy + 'static, D: Device>(v: &DeviceVec<T, D>) -> *mut T {
    v.device_ptr() as *mut T
}

/// Sorts each run of [`VT`] consecutive elements (thread `t` of tile `b` holds elements
/// `(b * NT + t) * VT ..`) by key with the stable odd-even transposition sort, never moving
/// an element across a segment head (`heads[i]`: element `i` starts a segment).
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let mut k = vec![3, 2, 1, 0, 9, 8, 7, 6, 5];
/// let mut v: Vec<i32> = (0..9).collect();
/// let mut heads = vec![false; 9];
/// heads[2] = true;
/// mgpu_blocks::sort_pairs_in_threads(&Simulator::new(), &mut k, &mut v, &heads).unwrap();
/// assert_eq!(k, vec![2, 3, 0, 1, 7, 8, 9, 5, 6]); // runs of 7: [3, 2 | 1, 0, 9, 8, 7], [6, 5]
/// assert_eq!(v[0], 1);
/// ```
pub fn sort_pairs_in_threads<D: Device>(
    dev: &D,
    keys: &mut [i32],
    values: &mut [i32],
    heads: &[bool],
) -> Result<()> {
    let n = keys.len();
    if values.len() != n || heads.len() != n {
        return Err(Error::InvalidInput(
            "keys, values and heads differ in length".into(),
        ));
    }
    if n == 0 {
        return Ok(());
    }
    let grid = grid(n)?;
    let mut words = vec![0u32; grid as usize * NT];
    for (i, &h) in heads.iter().enumerate() {
        words[i / VT] |= (h as u32) << (i % VT);
    }
    let dk = DeviceVec::from_slice(dev, keys)?;
    let dv = DeviceVec::from_slice(dev, values)?;
    let df = DeviceVec::from_slice(dev, &words)?;
    type K = crate::kernels::SortPairs<i32, i32, mgpu_core::Less, NT, VT>;
    let args = SortPairsArgs {
        keys: ptr(&dk),
        values: ptr(&dv),
        head_flags: ptr(&df),
        count: n as u64,
    };
    // SAFETY: the buffers hold `n` elements and `grid * NT` flag words.
    unsafe { dev.launch::<K>(grid, &args)? };
    keys.copy_from_slice(&dk.to_vec()?);
    values.copy_from_slice(&dv.to_vec()?);
    Ok(())
}

/// Sorts each run of [`VT`] consecutive keys ascending with Batcher's odd-even merge sort
/// network.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let mut k = vec![5, -1, 4, 0, 3, 2, 1, 9];
/// mgpu_blocks::batcher_sort_in_threads(&Simulator::new(), &mut k).unwrap();
/// assert_eq!(k, vec![-1, 0, 1, 2, 3, 4, 5, 9]);
/// ```
pub fn batcher_sort_in_threads<D: Device>(dev: &D, keys: &mut [i32]) -> Result<()> {
    let n = keys.len();
    if n == 0 {
        return Ok(());
    }
    let grid = grid(n)?;
    let dk = DeviceVec::from_slice(dev, keys)?;
    type K = crate::kernels::BatcherKeys<i32, mgpu_core::Less, NT, VT>;
    let args = BatcherKeysArgs {
        keys: ptr(&dk),
        count: n as u64,
        fill: i32::MAX,
    };
    // SAFETY: the buffer holds `n` keys.
    unsafe { dev.launch::<K>(grid, &args)? };
    keys.copy_from_slice(&dk.to_vec()?);
    Ok(())
}

/// An element type the `blocks` family has a segmented-reduction kernel for (i32 with the
/// full-capacity core, f64 with the half-capacity one), with `Plus`.
pub trait SegReduceElement: Element
where
    Plus: AssociativeOp<Self>,
{
    /// The kernel.
    type Kernel: Kernel<Args = SegReduceArgs<Self>>;
}
impl SegReduceElement for i32 {
    type Kernel = SegReduce<i32, Plus, NT, VT, false>;
}
impl SegReduceElement for f64 {
    type Kernel = SegReduce<f64, Plus, NT, VT, true>;
}

/// Sums the values of each segment: `rows[i]` is value `i`'s segment, non-decreasing from
/// 0 in steps of 0 or 1. The kernel reduces within tiles; the carry-outs of the tiles are
/// added on the host (seed 002's apply step, here sequential).
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let sums = mgpu_blocks::seg_reduce_plus(&Simulator::new(), &[1, 2, 3, 4, 5], &[0, 0, 1, 2, 2]).unwrap();
/// assert_eq!(sums, vec![3, 3, 9]);
/// ```
pub fn seg_reduce_plus<D: Device, T: SegReduceElement>(
    dev: &D,
    values: &[T],
    rows: &[u32],
) -> Result<Vec<T>>
where
    Plus: AssociativeOp<T>,
{
    let n = values.len();
    if rows.len() != n {
        return Err(Error::InvalidInput(
            "values and rows differ in length".into(),
        ));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    if rows[0] != 0 || rows.windows(2).any(|w| w[1] != w[0] && w[1] != w[0] + 1) {
        return Err(Error::InvalidInput(
            "rows must start at 0 and grow in steps of 0 or 1".into(),
        ));
    }
    let segments = rows[n - 1] as usize + 1;
    let grid = grid(n)?;
    let dvals = DeviceVec::from_slice(dev, values)?;
    let drows = DeviceVec::from_slice(dev, rows)?;
    let dest = DeviceVec::<T, D>::zeros(dev, segments)?;
    let carries = DeviceVec::<T, D>::zeros(dev, grid as usize)?;
    let args = SegReduceArgs {
        values: ptr(&dvals),
        rows: ptr(&drows),
        count: n as u64,
        dest: ptr(&dest),
        carries: ptr(&carries),
    };
    // SAFETY: `n` values and rows, one output per segment, one carry per tile.
    unsafe { dev.launch::<T::Kernel>(grid, &args)? };
    let mut out = dest.to_vec()?;
    let carries = carries.to_vec()?;
    // Apply: the segment open at a tile's start gets the carries of the tiles it spans.
    let mut carry = <Plus as AssociativeOp<T>>::identity();
    for (b, c) in carries.iter().enumerate() {
        let start = b * NV;
        let end = (start + NV).min(n);
        let row = rows[start] as usize;
        let ends_here = end == n || rows[end] != rows[start];
        if ends_here {
            out[row] = <Plus as mgpu_core::BinaryOp<T>>::apply(carry, out[row]);
            carry = *c;
        } else {
            carry = <Plus as mgpu_core::BinaryOp<T>>::apply(carry, *c);
        }
    }
    Ok(out)
}

/// `dst[scatter[p]] = src[gather[p]]` for every `p` (gather and scatter through index
/// arrays). With `checked`, an index out of range moves nothing and the call returns
/// `Error::InvalidInput` (after the other moves are done); without it, indices must be in
/// range.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let mut dst = vec![0; 3];
/// mgpu_blocks::permute(&Simulator::new(), &[10, 20, 30], &[2, 0, 1], &[0, 1, 2], &mut dst, true).unwrap();
/// assert_eq!(dst, vec![30, 10, 20]);
/// let bad = mgpu_blocks::permute(&Simulator::new(), &[10], &[1], &[0], &mut dst, true);
/// assert!(bad.is_err());
/// ```
pub fn permute<D: Device>(
    dev: &D,
    src: &[i32],
    gather: &[u32],
    scatter: &[u32],
    dst: &mut [i32],
    checked: bool,
) -> Result<()> {
    let n = gather.len();
    if scatter.len() != n {
        return Err(Error::InvalidInput(
            "gather and scatter differ in length".into(),
        ));
    }
    if !checked
        && (gather.iter().any(|&g| g as usize >= src.len())
            || scatter.iter().any(|&s| s as usize >= dst.len()))
    {
        return Err(Error::InvalidInput("index out of range".into()));
    }
    if n == 0 {
        return Ok(());
    }
    let grid = grid(n)?;
    let dsrc = DeviceVec::from_slice(dev, src)?;
    let dg = DeviceVec::from_slice(dev, gather)?;
    let ds = DeviceVec::from_slice(dev, scatter)?;
    let ddst = DeviceVec::from_slice(dev, dst)?;
    let err = DeviceVec::<u32, D>::zeros(dev, 1)?;
    type K = crate::kernels::Permute<i32, NT, VT>;
    let args = PermuteArgs {
        src: ptr(&dsrc),
        src_len: src.len() as u64,
        gather: ptr(&dg),
        scatter: ptr(&ds),
        count: n as u64,
        dst: ptr(&ddst),
        dst_len: dst.len() as u64,
        error: ptr(&err),
        unchecked: !checked as u32,
    };
    // SAFETY: the kernel reads `n` indices and, checked or validated above, accesses only
    // `src` and `dst` in range.
    unsafe { dev.launch::<K>(grid, &args)? };
    dst.copy_from_slice(&ddst.to_vec()?);
    if err.to_vec()?[0] != 0 {
        return Err(Error::InvalidInput("index out of range".into()));
    }
    Ok(())
}

/// `out[p] = (a ++ b)[indices[p]]`: the merge-value transfer over merge-style gather
/// indices (below `a.len()`: A ranks; from `a.len()`: B ranks plus `a.len()`).
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let out = mgpu_blocks::merge_values(&Simulator::new(), &[1, 3], &[2, 4], &[0, 2, 1, 3]).unwrap();
/// assert_eq!(out, vec![1, 2, 3, 4]);
/// ```
pub fn merge_values<D: Device>(dev: &D, a: &[i64], b: &[i64], indices: &[u32]) -> Result<Vec<i64>> {
    let n = a.len() + b.len();
    if indices.len() != n || indices.iter().any(|&g| g as usize >= n) {
        return Err(Error::InvalidInput(
            "need a.len() + b.len() indices, each in range".into(),
        ));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let grid = grid(n)?;
    let count = |x: usize| {
        u32::try_from(x).map_err(|_| Error::InvalidInput("more than u32::MAX values".into()))
    };
    let (a_count, b_count) = (count(a.len())?, count(b.len())?);
    // Empty sides still need a valid (unused) device address.
    let da = DeviceVec::from_slice(dev, if a.is_empty() { &[0] } else { a })?;
    let db = DeviceVec::from_slice(dev, if b.is_empty() { &[0] } else { b })?;
    let di = DeviceVec::from_slice(dev, indices)?;
    let out = DeviceVec::<i64, D>::zeros(dev, n)?;
    type K = crate::kernels::MergeValues<i64, NT, VT>;
    let args = MergeValuesArgs {
        a: ptr(&da),
        b: ptr(&db),
        a_count,
        b_count,
        indices: ptr(&di),
        dst: ptr(&out),
    };
    // SAFETY: the indices were checked to name elements of A ++ B.
    unsafe { dev.launch::<K>(grid, &args)? };
    out.to_vec()
}

/// Merges the sorted keys `a` and `b` (stable: A first on equal keys) with the CTA merge
/// kernel ([`MergeKeys`](crate::kernels::MergeKeys)): returns the merged keys and, for
/// each, its source (below `a.len()`: an A rank; from `a.len()`: a B rank plus
/// `a.len()`). The tiles' Merge Path partitions are computed on the host with
/// [`mgpu_ctasearch::merge_path`].
///
/// # Errors
/// `a` or `b` not sorted, or more than `u32::MAX` keys in all.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let (k, i) = mgpu_blocks::merge_keys(&Simulator::new(), &[1, 3, 5], &[2, 3]).unwrap();
/// assert_eq!(k, vec![1, 2, 3, 3, 5]);
/// assert_eq!(i, vec![0, 3, 1, 4, 2]); // A's 3 before B's 3
/// ```
pub fn merge_keys<D: Device>(dev: &D, a: &[i32], b: &[i32]) -> Result<(Vec<i32>, Vec<u32>)> {
    let n = a.len() + b.len();
    if u32::try_from(n).is_err() {
        return Err(Error::InvalidInput("more than u32::MAX keys".into()));
    }
    if a.windows(2).any(|w| w[1] < w[0]) || b.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::InvalidInput("a and b must be sorted".into()));
    }
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let grid = grid(n)?;
    let mp: Vec<u64> = (0..=grid as usize)
        .map(|t| {
            // SAFETY: the searches read `a` and `b` inside their lengths (slices check).
            unsafe {
                merge_path(
                    a,
                    a.len() as u64,
                    b,
                    b.len() as u64,
                    (t * NV).min(n) as u64,
                    Lower,
                    mgpu_core::Less,
                )
            }
        })
        .collect();
    // Empty sides still need a valid (unused) device address.
    let da = DeviceVec::from_slice(dev, if a.is_empty() { &[0] } else { a })?;
    let db = DeviceVec::from_slice(dev, if b.is_empty() { &[0] } else { b })?;
    let dmp = DeviceVec::from_slice(dev, &mp)?;
    let keys = DeviceVec::<i32, D>::zeros(dev, n)?;
    let indices = DeviceVec::<u32, D>::zeros(dev, n)?;
    type K = crate::kernels::MergeKeys<i32, mgpu_core::Less, NT, VT>;
    let args = MergeKeysArgs {
        a: ptr(&da),
        a_count: a.len() as u64,
        b: ptr(&db),
        b_count: b.len() as u64,
        mp: ptr(&dmp),
        keys: ptr(&keys),
        indices: ptr(&indices),
    };
    // SAFETY: sorted inputs of the given lengths, `grid + 1` partitions, `n` outputs.
    unsafe { dev.launch::<K>(grid, &args)? };
    Ok((keys.to_vec()?, indices.to_vec()?))
}

/// The load-balancing search of seed 001 with the CTA kernel
/// ([`LoadBalance`](crate::kernels::LoadBalance)): `scan` is the exclusive scan of the
/// objects' work-item counts and `total` their sum; returns, for each work item, the
/// object that generated it (`upper_bound(scan, item) - 1`) and its rank in that object
/// (`item - scan[object]`).
///
/// `partitions` are the upper-bound Merge Path partitions of the work items against the
/// scan in tiles of `NT * VT` steps (`ceil((total + scan.len()) / (NT * VT)) + 1` values,
/// what `mgpu_partition::load_balance_partitions` computes on the device); with `None`
/// they are computed on the host with [`mgpu_ctasearch::merge_path`].
///
/// # Errors
/// `scan` not non-decreasing from 0 or past `total`, a wrong number of partitions, or more
/// than `u32::MAX` work items and objects together.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// // Counts 2, 5, 3, 0, 1 (seed 001).
/// let (obj, rank) =
///     mgpu_blocks::load_balance_search(&Simulator::new(), &[0, 2, 7, 10, 10], 11, None).unwrap();
/// assert_eq!(obj, vec![0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 4]);
/// assert_eq!(rank, vec![0, 1, 0, 1, 2, 3, 4, 0, 1, 2, 0]);
/// ```
pub fn load_balance_search<D: Device>(
    dev: &D,
    scan: &[u32],
    total: u32,
    partitions: Option<&[u64]>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let num_objects = u32::try_from(scan.len())
        .map_err(|_| Error::InvalidInput("more than u32::MAX objects".into()))?;
    if scan.first().is_some_and(|&s| s != 0)
        || scan.windows(2).any(|w| w[1] < w[0])
        || scan.last().is_some_and(|&s| s > total)
    {
        return Err(Error::InvalidInput(
            "scan must be non-decreasing from 0 and at most total".into(),
        ));
    }
    if total == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let steps = total as usize + scan.len();
    if u32::try_from(steps).is_err() {
        return Err(Error::InvalidInput(
            "more than u32::MAX work items and objects".into(),
        ));
    }
    let grid = grid(steps)?;
    let host_mp: Vec<u64>;
    let mp = match partitions {
        Some(p) => p,
        None => {
            host_mp = (0..=grid as usize)
                .map(|t| {
                    // SAFETY: the scan is read inside its length (a slice checks).
                    unsafe {
                        merge_path(
                            Counting(0u32),
                            total,
                            scan,
                            num_objects,
                            (t * NV).min(steps) as u32,
                            Upper,
                            mgpu_core::Less,
                        )
                    }
                })
                .map(u64::from)
                .collect();
            &host_mp
        }
    };
    if mp.len() != grid as usize + 1 || mp.iter().any(|&p| p > total as u64) {
        return Err(Error::InvalidInput(format!(
            "need {} partitions, each at most total",
            grid + 1
        )));
    }
    let ds = DeviceVec::from_slice(dev, scan)?;
    let dmp = DeviceVec::from_slice(dev, mp)?;
    let objects = DeviceVec::<u32, D>::zeros(dev, total as usize)?;
    let ranks = DeviceVec::<u32, D>::zeros(dev, total as usize)?;
    type K = crate::kernels::LoadBalance<NT, VT>;
    let args = LoadBalanceArgs {
        scan: ptr(&ds),
        num_objects,
        total,
        mp: ptr(&dmp),
        objects: ptr(&objects),
        ranks: ptr(&ranks),
    };
    // SAFETY: a valid scan of `num_objects` values summing to `total`, `grid + 1`
    // partitions, `total` outputs of each kind.
    unsafe { dev.launch::<K>(grid, &args)? };
    Ok((objects.to_vec()?, ranks.to_vec()?))
}

/// The segmented scan (with `Plus`, wrapping) of `values` with the CTA segmented tile scan
/// ([`SegScan`](crate::kernels::SegScan)): `ends[i]` marks value `i` as the last of its
/// segment; inclusive, or exclusive with `exclusive` (each segment's first output is 0).
///
/// **Segments are tile-local**: every tile of [`NT`]` * `[`VT`] values also starts a new
/// segment, as if `ends` were set on the last value of each tile.
///
/// # Errors
/// `values` and `ends` differ in length.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let x = [1, 2, 3, 4, 5];
/// let ends = [false, true, true, false, false];
/// let sim = Simulator::new();
/// assert_eq!(mgpu_blocks::seg_scan_plus(&sim, &x, &ends, false).unwrap(), vec![1, 3, 3, 4, 9]);
/// assert_eq!(mgpu_blocks::seg_scan_plus(&sim, &x, &ends, true).unwrap(), vec![0, 1, 0, 0, 4]);
/// ```
pub fn seg_scan_plus<D: Device>(
    dev: &D,
    values: &[i32],
    ends: &[bool],
    exclusive: bool,
) -> Result<Vec<i32>> {
    let n = values.len();
    if ends.len() != n {
        return Err(Error::InvalidInput(
            "values and ends differ in length".into(),
        ));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let grid = grid(n)?;
    let flags: Vec<u8> = ends.iter().map(|&e| e as u8).collect();
    let dvals = DeviceVec::from_slice(dev, values)?;
    let dflags = DeviceVec::from_slice(dev, &flags)?;
    let dest = DeviceVec::<i32, D>::zeros(dev, n)?;
    type K = crate::kernels::SegScan<i32, Plus, NT, VT>;
    let args = SegScanArgs {
        values: ptr(&dvals),
        ends: ptr(&dflags),
        count: n as u64,
        dest: ptr(&dest),
        exclusive: exclusive as u32,
    };
    // SAFETY: `n` values, flags and outputs.
    unsafe { dev.launch::<K>(grid, &args)? };
    dest.to_vec()
}
