//! Bulk remove and bulk insert: lengths that disagree and bad generated index sequences
//! (host checks), and index arrays the kernels' fused validation rejects (`ERROR_ORDER`,
//! `ERROR_RANGE`).

use crate::common::{invalid, length, partition_point, spots, to_index, verdict, Scale};
use mgpu::bulk::kernels;
use mgpu::bulk::{BulkData, Source};
use mgpu::Sequence;
use mgpu::{BulkElement, BulkIndex, Device, DeviceVec, Error, Result};
use mgpu_testkit::Guarded;
use mgpu_testkit::Rng;

/// Elements per tile of bulk remove (source elements) and insert (outputs) on `dev`.
pub fn nv<D: Device, T: BulkElement<I>, I>(dev: &D) -> (usize, usize) {
    (
        kernels::remove_nv::<T, I>(dev.arch()),
        kernels::insert_nv::<T, I>(dev.arch()),
    )
}

/// A small valid remove and insert give the right results (the device is still usable).
pub fn usable<D: Device>(dev: &D) {
    let src = DeviceVec::from_slice(dev, &(0..10).collect::<Vec<u32>>()).unwrap();
    let idx = DeviceVec::from_slice(dev, &[1u32, 3, 4, 5, 7, 8]).unwrap();
    let mut out = DeviceVec::<u32, D>::zeros(dev, 4).unwrap();
    let r = mgpu::bulk::bulk_remove(src.as_slice(), idx.as_slice().into(), out.as_mut_slice());
    assert_eq!(r, Ok(()), "the device is unusable after bad input");
    assert_eq!(out.to_vec().unwrap(), [0, 2, 6, 9]);
    let mut out = DeviceVec::<u32, D>::zeros(dev, 16).unwrap();
    let r = mgpu::bulk::bulk_insert(
        Source::counting(100),
        idx.as_slice().into(),
        src.as_slice(),
        out.as_mut_slice(),
    );
    assert_eq!(r, Ok(()), "the device is unusable after bad input");
    assert_eq!(
        out.to_vec().unwrap(),
        [0, 100, 1, 2, 101, 3, 102, 4, 103, 5, 6, 104, 7, 105, 8, 9]
    );
}

fn value<T: BulkData + Sequence>(i: u64) -> T {
    <T as Sequence>::sequence(T::ONE, T::ONE, i)
}

/// Indices as an array, or a generated sequence `first + step * k` (the CPU backend gets
/// the sequence written out, computed without wrapping: the cases keep it inside `u64`).
#[derive(Clone)]
pub enum Idx {
    Array(Vec<u64>),
    Seq { first: u64, step: u64 },
}

impl Idx {
    /// The indices for the host: the array, or the first `m` of the sequence written out.
    fn host<I: BulkIndex>(&self, m: usize) -> Vec<I> {
        match self {
            Idx::Array(v) => to_index(v),
            Idx::Seq { first, step } => {
                to_index(&(0..m as u64).map(|k| first + step * k).collect::<Vec<_>>())
            }
        }
    }

    /// The indices for the device: `uploaded` (the array, on the device), or the sequence
    /// generated there.
    fn device<'a, I: BulkIndex, D: Device>(
        &self,
        uploaded: &'a DeviceVec<I, D>,
    ) -> Source<'a, I, D> {
        match self {
            Idx::Array(_) => uploaded.as_slice().into(),
            Idx::Seq { first, step } => {
                Source::step(I::from_u64_wrapping(*first), I::from_u64_wrapping(*step))
            }
        }
    }
}

/// Bulk remove of `indices` from a source of `n` into an output of `out_len`: `want`'s
/// variant on both backends, guards intact.
pub fn remove<D: Device, T, I: BulkIndex>(
    dev: &D,
    case: &str,
    n: usize,
    indices: &Idx,
    out_len: usize,
    want: &Error,
) where
    T: BulkData + BulkElement<I> + Sequence,
{
    let case = format!("bulk_remove {}/{}: {case}", T::NAME, I::NAME);
    let source: Vec<T> = (0..n as u64).map(value).collect();
    let sd = DeviceVec::from_slice(dev, &source).unwrap();
    let host_idx: Vec<I> = indices.host(n.saturating_sub(out_len));
    let arr = matches!(indices, Idx::Array(_));
    let id = DeviceVec::from_slice(dev, &host_idx).unwrap();
    let idx = indices.device(&id);
    let mut out = Guarded::<T, D>::new(dev, out_len).unwrap();
    let got = mgpu::bulk::bulk_remove_into(sd.as_slice(), idx, out.slice()).and_then(|p| p.wait());
    out.check_guards(&case);
    let cpu = mgpu::cpu::bulk_remove(&source, &host_idx, &mut vec![T::ONE; out_len]);
    let case = if arr {
        case
    } else {
        format!("{case} (the CPU backend gets it written out)")
    };
    verdict(&case, want, got, Some(cpu));
    usable(dev);
}

/// Bulk insert of values (an array of `values_len`, or generated when `None`) at
/// `indices` into a source of `n`, output of `out_len`: `want`'s variant on both
/// backends, guards intact.
#[allow(clippy::too_many_arguments)]
pub fn insert<D: Device, T, I: BulkIndex>(
    dev: &D,
    case: &str,
    n: usize,
    values_len: Option<usize>,
    indices: &Idx,
    out_len: usize,
    want: &Error,
) where
    T: BulkData + BulkElement<I> + Sequence,
{
    let case = format!("bulk_insert {}/{}: {case}", T::NAME, I::NAME);
    let source: Vec<T> = (0..n as u64).map(value).collect();
    let sd = DeviceVec::from_slice(dev, &source).unwrap();
    // Generated values number as the indices (an array), or fill the output past the
    // source (generated indices), as on the device.
    let m = values_len.unwrap_or(match indices {
        Idx::Array(v) => v.len(),
        Idx::Seq { .. } => out_len.saturating_sub(n),
    });
    let values: Vec<T> = (0..m as u64).map(|k| value(1_000_000 + k)).collect();
    let vd = DeviceVec::from_slice(dev, &values).unwrap();
    let host_idx: Vec<I> = indices.host(m);
    let id = DeviceVec::from_slice(dev, &host_idx).unwrap();
    let idx = indices.device(&id);
    let vals: Source<'_, T, D> = match values_len {
        Some(_) => vd.as_slice().into(),
        None => Source::step(value(1_000_000), T::ONE),
    };
    let mut out = Guarded::<T, D>::new(dev, out_len).unwrap();
    let got =
        mgpu::bulk::bulk_insert_into(vals, idx, sd.as_slice(), out.slice()).and_then(|p| p.wait());
    out.check_guards(&case);
    let cpu = mgpu::cpu::bulk_insert(&values, &host_idx, &source, &mut vec![T::ONE; out_len]);
    verdict(&case, want, got, Some(cpu));
    usable(dev);
}

/// Host checks: lengths that disagree; generated index sequences with a step of 0 (remove)
/// or a last index out of range.
pub fn host_checks<D: Device>(dev: &D, _scale: Scale) {
    let (nvr, _) = nv::<D, i32, u32>(dev);
    let n = 2 * nvr + 5;
    let rm: Vec<u64> = (0..n as u64).filter(|i| i % 3 == 1).collect();
    let m = rm.len();
    let too_many: Vec<u64> = (0..=n as u64).collect();
    let seq = |first: u64, step: u64| Idx::Seq { first, step };
    // Bulk remove from a source of n: (case, indices, output length, expected variant).
    let removes = [
        (
            format!("{} indices for a source of {n}, output of 0", n + 1),
            Idx::Array(too_many.clone()),
            0,
            length(),
        ),
        (
            format!("{} indices for a source of {n}, output of 1", n + 1),
            Idx::Array(too_many),
            1,
            length(),
        ),
        (
            format!(
                "{m} indices, source of {n}, output of {} (one short)",
                n - m - 1
            ),
            Idx::Array(rm.clone()),
            n - m - 1,
            length(),
        ),
        (
            format!(
                "{m} indices, source of {n}, output of {} (one over)",
                n - m + 1
            ),
            Idx::Array(rm.clone()),
            n - m + 1,
            length(),
        ),
        (
            format!("generated indices 5 + 0k, {m} of them, source of {n}"),
            seq(5, 0),
            n - m,
            invalid(),
        ),
        (
            format!(
                "generated indices {} + 3k, {m} of them, the last = n = {n}",
                n - 3 * (m - 1)
            ),
            seq((n - 3 * (m - 1)) as u64, 3),
            n - m,
            invalid(),
        ),
    ];
    for (case, indices, out_len, want) in removes {
        remove::<D, i32, u32>(dev, &case, n, &indices, out_len, &want);
    }
    remove::<D, i32, u64>(
        dev,
        &format!("generated indices 2^40 + k, {m} of them, source of {n}"),
        n,
        &seq(1 << 40, 1),
        n - m,
        &invalid(),
    );

    let ins = Idx::Array((0..m as u64).map(|k| k * n as u64 / m as u64).collect());
    // Bulk insert into a source of n: (case, values (generated for `None`), indices,
    // output length, expected variant).
    let inserts = [
        (
            format!("{} values for {m} indices", m + 1),
            Some(m + 1),
            ins.clone(),
            n + m + 1,
            length(),
        ),
        (
            format!("{} values for {m} indices", m - 1),
            Some(m - 1),
            ins.clone(),
            n + m - 1,
            length(),
        ),
        (
            format!("output of {} for {n} + {m}", n + m - 1),
            Some(m),
            ins.clone(),
            n + m - 1,
            length(),
        ),
        (
            format!(
                "output of {} for {n} + {m} indices, generated values",
                n + m + 1
            ),
            None,
            ins,
            n + m + 1,
            length(),
        ),
        (
            format!(
                "generated indices 0 + 4k, {m} of them, last {} > n = {n}",
                4 * (m - 1)
            ),
            Some(m),
            seq(0, 4),
            n + m,
            invalid(),
        ),
        (
            format!("generated indices n + 1 + 0k, {m} of them, source of {n}, generated values"),
            None,
            seq(n as u64 + 1, 0),
            n + m,
            invalid(),
        ),
    ];
    for (case, values_len, indices, out_len, want) in inserts {
        insert::<D, i32, u32>(dev, &case, n, values_len, &indices, out_len, &want);
    }
}

/// `v` with elements `i` and `j` swapped.
fn swapped(v: &[u64], i: usize, j: usize) -> Vec<u64> {
    let mut x = v.to_vec();
    x.swap(i, j);
    x
}

/// `v` with element `i` set to `to`.
fn with(v: &[u64], i: usize, to: u64) -> Vec<u64> {
    let mut x = v.to_vec();
    x[i] = to;
    x
}

/// Remove indices the kernel rejects, at each spot (a source position; the fault is at
/// the first index at or after it): two adjacent indices swapped (unsorted), an index
/// repeated (not unique), and an index of `n` (out of range: in the last tile, past the
/// end only; elsewhere also unsorted); plus an index of `I::MAX` in the first tile.
pub fn remove_faults<D: Device, T, I: BulkIndex>(dev: &D, scale: Scale)
where
    T: BulkData + BulkElement<I> + Sequence,
{
    let (nv, _) = nv::<D, T, I>(dev);
    for n in scale.sizes(nv) {
        let mut rng = Rng::new(n as u64);
        let base: Vec<u64> = (0..n as u64).filter(|_| rng.below(3) == 0).collect();
        let m = base.len();
        let out_len = n - m;
        let tiles = n.div_ceil(nv);
        // The unbroken input is accepted and right on both backends.
        {
            let source: Vec<T> = (0..n as u64).map(value).collect();
            let sd = DeviceVec::from_slice(dev, &source).unwrap();
            let idx: Vec<I> = to_index(&base);
            let id = DeviceVec::from_slice(dev, &idx).unwrap();
            let mut out = Guarded::<T, D>::new(dev, out_len).unwrap();
            mgpu::bulk::bulk_remove(sd.as_slice(), id.as_slice().into(), out.slice()).unwrap();
            out.check_guards("valid input");
            let mut want = vec![T::ONE; out_len];
            mgpu::cpu::bulk_remove(&source, &idx, &mut want).unwrap();
            assert!(out.to_vec() == want, "valid remove, n = {n}");
        }
        // Broken index arrays: (case, indices).
        let mut cases = vec![];
        for (place, d) in spots(n, nv) {
            let k = base.partition_point(|&i| (i as usize) < d).min(m - 2);
            let at = format!(
                "index {k} (value {}), {place} (tile {} of {tiles}), n = {n}",
                base[k],
                base[k] as usize / nv
            );
            cases.push((
                format!("indices {k}, {} swapped at {at}", k + 1),
                swapped(&base, k, k + 1),
            ));
            if place == "tile 0|1 boundary" {
                // The last index of tile 0 and the first of tile 1 swapped.
                cases.push((
                    format!("indices {}, {k} swapped across the boundary at {at}", k - 1),
                    swapped(&base, k - 1, k),
                ));
            }
            cases.push((
                format!("index repeated at {at}"),
                with(&base, k + 1, base[k]),
            ));
            let j = if place == "last tile" { m - 1 } else { k };
            cases.push((format!("index {j} = n at {at}"), with(&base, j, n as u64)));
        }
        cases.push((
            format!("index 0 = I::MAX, first tile, n = {n}"),
            with(&base, 0, mgpu::Index::to_u64(I::MAX)),
        ));
        for (case, x) in cases {
            remove::<D, T, I>(dev, &case, n, &Idx::Array(x), out_len, &invalid());
        }
    }
}

/// Insert indices the kernel rejects, at each spot (an output position; the fault is at
/// the first index whose output is at or after it): two adjacent different indices
/// swapped (unsorted), and an index of `n + 1` (past the end: in the last tile only that;
/// elsewhere also unsorted); plus an index of `I::MAX` in the first tile.
pub fn insert_faults<D: Device, T, I: BulkIndex>(dev: &D, scale: Scale)
where
    T: BulkData + BulkElement<I> + Sequence,
{
    let (_, nv) = nv::<D, T, I>(dev);
    for len in scale.sizes(nv) {
        let n = len * 2 / 3;
        let m = len - n;
        let mut rng = Rng::new(len as u64 + 1);
        let mut base: Vec<u64> = (0..m).map(|_| rng.below(n as u64 + 1)).collect();
        base.sort_unstable();
        base[m - 1] = n as u64; // some appended at the end
        let tiles = len.div_ceil(nv);
        // The unbroken input is accepted and right on both backends.
        {
            let source: Vec<T> = (0..n as u64).map(value).collect();
            let values: Vec<T> = (0..m as u64).map(|k| value(1_000_000 + k)).collect();
            let sd = DeviceVec::from_slice(dev, &source).unwrap();
            let vd = DeviceVec::from_slice(dev, &values).unwrap();
            let idx: Vec<I> = to_index(&base);
            let id = DeviceVec::from_slice(dev, &idx).unwrap();
            let mut out = Guarded::<T, D>::new(dev, len).unwrap();
            let r: Result<()> = mgpu::bulk::bulk_insert(
                vd.as_slice().into(),
                id.as_slice().into(),
                sd.as_slice(),
                out.slice(),
            );
            r.unwrap();
            out.check_guards("valid input");
            let mut want = vec![T::ONE; len];
            mgpu::cpu::bulk_insert(&values, &idx, &source, &mut want).unwrap();
            assert!(out.to_vec() == want, "valid insert, n = {n}");
        }
        // Broken index arrays: (case, indices).
        let mut cases = vec![];
        for (place, d) in spots(len, nv) {
            let k0 = partition_point(m, |k| k + (base[k] as usize) < d).min(m - 2);
            // The nearest pair of different indices (forward, else backward).
            let k = (k0..m - 1)
                .chain((0..k0).rev())
                .find(|&k| base[k] < base[k + 1])
                .unwrap();
            let at = format!(
                "index {k} (value {}, output {}), {place} (tile {} of {tiles}), n = {n}",
                base[k],
                k + base[k] as usize,
                (k + base[k] as usize) / nv
            );
            cases.push((
                format!("indices {k}, {} swapped at {at}", k + 1),
                swapped(&base, k, k + 1),
            ));
            if place == "tile 0|1 boundary" {
                // The last different pair before the boundary's first index, swapped.
                let j = (0..k0).rev().find(|&j| base[j] < base[k0]).unwrap();
                cases.push((
                    format!("indices {j}, {k0} swapped across the boundary at {at}"),
                    swapped(&base, j, k0),
                ));
            }
            let j = if place == "last tile" { m - 1 } else { k };
            cases.push((
                format!("index {j} = n + 1 at {at}"),
                with(&base, j, n as u64 + 1),
            ));
        }
        cases.push((
            format!("index 0 = I::MAX, first tile, n = {n}"),
            with(&base, 0, mgpu::Index::to_u64(I::MAX)),
        ));
        for (case, x) in cases {
            insert::<D, T, I>(dev, &case, n, Some(m), &Idx::Array(x), len, &invalid());
        }
    }
}
