//! The partition kernels with every group size (1, 2, 4, 8, 16, 32 lanes per partition)
//! against the serial definition they had with one thread per partition (the serial
//! `merge_path` / `binary_search` of `mgpu_ctasearch` on host slices, with the mergesort
//! frames and the CSR flag), bit for bit, on sorted input and on garbage (unsorted, a CSR
//! that does not start at 0), which the partition kernels do not validate but must still
//! answer deterministically and within range (the k-ary search that the search,
//! load-balancing and counting kernels run with one lane answers within range only). The
//! counting partitions (Bulk Insert's) are checked against the serial `merge_path` of the
//! indices (an array, or a generated sequence, wrapping) against `Counting(0)`. Also the
//! launchers at partition counts where the rule picks each group size, on garbage; and
//! every group size at the benchmarks' sizes on CUDA, with its median time (CUDA events):
//! the table to tune `partition_lanes_log2` by.

use crate::common::{counts, scan_of, serial_counting};
use mgpu_core::{Comparator, Greater, Kernel, Less};
use mgpu_cpu::partition as cpu;
use mgpu_ctasearch::{
    binary_search, find_mergesort_frame, merge_path, Bounds, Counting, Idx, Upper,
};
use mgpu_partition::device::{CountingArgs, CsrArgs, LbsArgs, MergeArgs, SearchArgs};
use mgpu_partition::kernels::NT;
use mgpu_partition::{MergeComparator, PartitionIndex, CSR_CONTINUATION, INTERPOLATE, KARY_SHIFT};
use mgpu_runtime::{Context, Device, DeviceVec};
use mgpu_testkit::{self as kit, Rng, Target};
use proptest::prelude::*;

/// The group sizes, and one lane with each k-ary search (`log2 K` 1 to 3 in the
/// `KARY_SHIFT` field): the integer-keyed kernels' `lanes_log2` values.
const INDEX_LANES_LOG2: [u32; 9] = [
    0,
    1,
    2,
    3,
    4,
    5,
    1 << KARY_SHIFT,
    2 << KARY_SHIFT,
    3 << KARY_SHIFT,
];

/// The merge kernels' `lanes_log2` values: the group sizes, one lane with K = 4 (the
/// rule's k-ary search) and one lane by interpolation.
const MERGE_LANES_LOG2: [u32; 8] = [0, 1, 2, 3, 4, 5, 2 << KARY_SHIFT, INTERPOLATE];

fn grid(num: usize, lanes_log2: u32) -> u32 {
    num.div_ceil(NT >> (lanes_log2 & 0xff)) as u32
}

fn bounds(upper: bool) -> Bounds {
    if upper {
        Bounds::Upper
    } else {
        Bounds::Lower
    }
}

/// Kernel `K` on `dev` for `num` partitions with `lanes_log2`, its output filled with
/// `u64::MAX` first (a slot it does not write shows); the partitions it wrote.
fn run<D: Device, K: Kernel>(
    dev: &D,
    num: usize,
    lanes_log2: u32,
    args: impl FnOnce(*mut u64) -> K::Args,
) -> Vec<u64> {
    let mut out = DeviceVec::from_slice(dev, &vec![u64::MAX; num]).unwrap();
    let a = args(out.as_mut_slice().as_mut_ptr());
    // SAFETY: `out` has `num` slots; `args` names device buffers with their lengths.
    unsafe { dev.launch::<K>(grid(num, lanes_log2), &a).unwrap() };
    out.to_vec().unwrap()
}

/// `v` on `dev`, and its device pointer.
fn upload<D: Device, T: Copy + 'static>(dev: &D, v: &[T]) -> (DeviceVec<T, D>, *const T) {
    let d = DeviceVec::from_slice(dev, v).unwrap();
    let p = d.as_slice().as_ptr();
    (d, p)
}

/// Merge Path partition `p` as the one-thread kernel defined it (`keys_b` is the B array
/// of a merge, or the keys again for a mergesort pass), and the range it is searched in
/// (inclusive).
fn serial_merge<T: Copy, C: Comparator<T>>(
    keys_a: &[T],
    keys_b: &[T],
    b_count: u64,
    nv: u64,
    coop: u64,
    upper: bool,
    p: u64,
) -> (u64, u64, u64) {
    let (mut a0, mut b0) = (0u64, 0u64);
    let (mut a_count, mut b_count) = (keys_a.len() as u64, b_count);
    let mut gid = nv * p;
    if coop != 0 {
        let f = find_mergesort_frame(coop, p, nv);
        let count = keys_a.len() as u64;
        a0 = count.min(f.a0);
        b0 = count.min(f.b0);
        b_count = count.min(f.b0 + f.size) - b0;
        a_count = count.min(f.a0 + f.size) - a0;
        gid = gid.wrapping_sub(a0);
    }
    let diag = gid.min(a_count + b_count);
    let a = &keys_a[a0 as usize..];
    let b = &keys_b[b0 as usize..];
    // SAFETY: the counts are those of the frame, inside `a` and `b`.
    let mp = unsafe { merge_path(a, a_count, b, b_count, diag, bounds(upper), C::default()) };
    (mp, diag.saturating_sub(b_count), diag.min(a_count))
}

/// Whether `v` is in `C`'s order.
fn sorted_by<C: Comparator<u32>>(v: &[u32]) -> bool {
    v.windows(2).all(|w| !C::compare(&w[1], &w[0]))
}

fn check_merge<D: Device, C: MergeComparator<u32>>(
    dev: &D,
    a: &[u32],
    b: &[u32],
    nv: u64,
    coop: u64,
    upper: bool,
) {
    let (a, b) = if coop != 0 { (a, a) } else { (a, b) };
    let b_len = if coop != 0 { 0 } else { b.len() };
    let num = mgpu_partition::partition_count(a.len() + b_len, nv as usize);
    let serial: Vec<(u64, u64, u64)> = (0..num as u64)
        .map(|p| serial_merge::<u32, C>(a, b, b_len as u64, nv, coop, upper, p))
        .collect();
    let want: Vec<u64> = serial.iter().map(|s| s.0).collect();
    let in_order = if coop != 0 {
        a.chunks((nv * coop / 2) as usize).all(sorted_by::<C>)
    } else {
        sorted_by::<C>(a) && sorted_by::<C>(b)
    };
    let ((_da, pa), (_db, pb)) = (upload(dev, a), upload(dev, b));
    for lanes_log2 in MERGE_LANES_LOG2 {
        let out = run::<D, C::Kernel>(dev, num, lanes_log2, |out| MergeArgs {
            a: pa,
            b: pb,
            a_count: a.len() as u64,
            b_count: b_len as u64,
            nv,
            coop,
            num_partitions: num as u64,
            out,
            upper: upper as u32,
            lanes_log2,
            skip_unless: core::ptr::null(),
        });
        let what = format!("merge nv={nv} coop={coop} upper={upper} lanes_log2={lanes_log2:#x}");
        check_ranged(&out, &want, lanes_log2, in_order, &what, |p| {
            let s = serial[p as usize];
            (s.1, s.2)
        });
    }
}

fn sorted<I: PartialOrd>(v: &[I]) -> bool {
    v.windows(2).all(|w| w[0] <= w[1])
}

/// A one-lane k-ary or interpolating search (`lanes_log2` with a `KARY_SHIFT` field, or
/// `INTERPOLATE`) on unsorted input answers somewhere in the search range (`range(p)`,
/// inclusive), not necessarily where the bisection does; every other case is the serial
/// result, bit for bit.
fn check_ranged(
    out: &[u64],
    want: &[u64],
    lanes_log2: u32,
    sorted: bool,
    what: &str,
    range: impl Fn(u64) -> (u64, u64),
) {
    let ranged = lanes_log2 >> KARY_SHIFT != 0 || lanes_log2 & INTERPOLATE != 0;
    if ranged && !sorted {
        for (p, &o) in out.iter().enumerate() {
            let (lo, hi) = range(p as u64);
            assert!(
                lo <= o && o <= hi,
                "{what}: partition {p} = {o} outside {lo}..={hi}"
            );
        }
    } else {
        assert_eq!(out, want, "{what}");
    }
}

/// The CSR partitions of row offsets `csr` over `nz` nonzeros by their serial definition:
/// the last row starting at or before each tile's first nonzero (`upper_bound - 1`),
/// flagged with `CSR_CONTINUATION` when it starts before it; the row count at the end.
fn serial_csr<I: PartitionIndex>(csr: &[I], nz: u64, nv: u64) -> Vec<u64> {
    let n = csr.len() as u64;
    (0..mgpu_partition::partition_count(nz as usize, nv as usize) as u64)
        .map(|p| {
            let key = (nv * p).min(nz);
            if key == nz {
                return n;
            }
            let k = I::from_u64(key);
            // SAFETY: `csr` holds the `n` offsets the search reads.
            let ub = unsafe { binary_search(csr, n, k, Upper, Less) };
            let row = ub.saturating_sub(1);
            if ub != 0 && csr[row as usize] == k {
                row
            } else {
                row | CSR_CONTINUATION
            }
        })
        .collect()
}

fn check_index<D: Device, I: PartitionIndex>(dev: &D, data: &[I], count: u64, nv: u64) {
    let n = data.len() as u64;
    let (_dd, pd) = upload(dev, data);
    // Binary search, both bounds.
    let num = mgpu_partition::partition_count(count as usize, nv as usize);
    for upper in [false, true] {
        let want: Vec<u64> = (0..num as u64)
            // SAFETY: `data` holds the `n` keys the search reads.
            .map(|p| unsafe {
                let key = I::from_u64((nv * p).min(count));
                binary_search(data, n, key, bounds(upper), Less)
            })
            .collect();
        for lanes_log2 in INDEX_LANES_LOG2 {
            let out = run::<D, I::Search>(dev, num, lanes_log2, |out| SearchArgs {
                data: pd,
                num_items: n,
                count,
                nv,
                num_partitions: num as u64,
                out,
                upper: upper as u32,
                lanes_log2,
                clear: core::ptr::null_mut(),
            });
            let what = format!("search upper={upper} lanes_log2={lanes_log2}");
            check_ranged(&out, &want, lanes_log2, sorted(data), &what, |_| (0, n));
        }
    }
    // CSR: `data` as row offsets, `count` as nz.
    let want = serial_csr(data, count, nv);
    let csr = |out, lanes_log2| CsrArgs {
        csr: pd,
        num_rows: n,
        nz: count,
        nv,
        num_partitions: num as u64,
        out,
        lanes_log2,
    };
    for lanes_log2 in INDEX_LANES_LOG2 {
        let out = run::<D, I::Csr>(dev, num, lanes_log2, |out| csr(out, lanes_log2));
        assert_eq!(out, want, "csr lanes_log2={lanes_log2}");
    }
    // Load balance: `data` as the scan, `count` as the total.
    let num = mgpu_partition::partition_count((count + n) as usize, nv as usize);
    let want: Vec<u64> = (0..num as u64)
        // SAFETY: `data` holds the `n` keys the search reads; `Counting` reads nothing.
        .map(|p| unsafe {
            let diag = (nv * p).min(count + n);
            merge_path(Counting(I::ZERO), count, data, n, diag, Upper, Less)
        })
        .collect();
    for lanes_log2 in INDEX_LANES_LOG2 {
        let out = run::<D, I::Lbs>(dev, num, lanes_log2, |out| {
            lbs_over(csr(out, lanes_log2), num as u64)
        });
        let what = format!("lbs lanes_log2={lanes_log2}");
        check_ranged(&out, &want, lanes_log2, sorted(data), &what, |p| {
            let diag = (nv * p).min(count + n);
            (diag.saturating_sub(n), diag.min(count))
        });
    }
}

/// The load-balancing kernel's arguments over the CSR kernel's input (its row offsets as
/// the scan, its nz as the total) for `num` partitions.
fn lbs_over<I>(csr: CsrArgs<I>, num: u64) -> LbsArgs<I> {
    LbsArgs {
        scan: csr.csr,
        num_objects: csr.num_rows,
        total: csr.nz,
        nv: csr.nv,
        num_partitions: num,
        out: csr.out,
        lanes_log2: csr.lanes_log2,
        clear: core::ptr::null_mut(),
    }
}

/// The counting partitions (`data` as the indices, or the sequence `seq = (first, step,
/// m)` when given) against the one-thread definition: the serial `merge_path` of the
/// indices against `Counting(0)` over `count` positions, both bounds, every group size.
fn check_counting<D: Device, I: PartitionIndex>(
    dev: &D,
    data: &[I],
    seq: Option<(I, I, usize)>,
    count: u64,
    nv: u64,
) {
    // The indices as the kernel reads them (a sequence wraps in `I`).
    let keys: Vec<I> = match seq {
        None => data.to_vec(),
        Some((first, step, m)) => (0..m)
            .map(|k| Idx::wrapping_add(first, Idx::wrapping_mul(step, <I as Idx>::from_usize(k))))
            .collect(),
    };
    let m = keys.len() as u64;
    let num = mgpu_partition::partition_count((m + count) as usize, nv as usize);
    let (_dd, pd) = upload(dev, data);
    for upper in [false, true] {
        let want = serial_counting(&keys, count, nv, bounds(upper));
        for lanes_log2 in INDEX_LANES_LOG2 {
            let (first, step) = seq.map_or((I::ZERO, I::ZERO), |(f, s, _)| (f, s));
            let out = run::<D, I::Counting>(dev, num, lanes_log2, |out| CountingArgs {
                indices: if seq.is_some() { core::ptr::null() } else { pd },
                num_indices: m,
                first,
                step,
                count,
                nv,
                num_partitions: num as u64,
                out,
                upper: upper as u32,
                sequence: seq.is_some() as u32,
                lanes_log2,
                clear: core::ptr::null_mut(),
            });
            let what = format!(
                "counting m={m} count={count} nv={nv} seq={} upper={upper} lanes_log2={lanes_log2}",
                seq.is_some()
            );
            check_ranged(&out, &want, lanes_log2, sorted(&keys), &what, |p| {
                let diag = (nv * p).min(m + count);
                (diag.saturating_sub(count), diag.min(m))
            });
        }
    }
}

/// Keys, sorted (ascending for Less, descending for Greater) or left as drawn.
fn keys(max_len: usize, max_key: u32) -> impl Strategy<Value = (Vec<u32>, bool)> {
    (prop::collection::vec(0..max_key, 0..max_len), any::<bool>())
}

fn arrange(mut v: Vec<u32>, sorted: bool, descending: bool) -> Vec<u32> {
    if sorted {
        v.sort_unstable();
        if descending {
            v.reverse();
        }
    }
    v
}

fn merge_partitions_every_group_size<D: Device>(dev: &D, _: Target) {
    let strategy = (keys(120, 10), keys(120, 10), 1u64..12, any::<bool>());
    // 48 cases, as the earlier `proptest!` block.
    kit::proptest_runner(48)
        .run(&strategy, |((a, sa), (b, sb), nv, upper)| {
            let (a_less, b_less) = (arrange(a.clone(), sa, false), arrange(b.clone(), sb, false));
            check_merge::<_, Less>(dev, &a_less, &b_less, nv, 0, upper);
            let (a, b) = (arrange(a, sa, true), arrange(b, sb, true));
            check_merge::<_, Greater>(dev, &a, &b, nv, 0, upper);
            Ok(())
        })
        .unwrap();
}

fn mergesort_partitions_every_group_size<D: Device>(dev: &D, _: Target) {
    let strategy = (keys(150, 12), 1u64..10, 1u32..4);
    // 48 cases, as the earlier `proptest!` block.
    kit::proptest_runner(48)
        .run(&strategy, |((k, sorted), nv, coop_log2)| {
            // Lists of nv * coop / 2 sorted (or not) one by one.
            let coop = 1u64 << coop_log2;
            let list = (nv * coop / 2) as usize;
            let k: Vec<u32> = k
                .chunks(list)
                .flat_map(|c| arrange(c.to_vec(), sorted, false))
                .collect();
            check_merge::<_, Less>(dev, &k, &[], nv, coop, false);
            Ok(())
        })
        .unwrap();
}

/// One case of [`index_partitions_every_group_size`]: `d` (sorted or not) as u32, and
/// times 3 as u64 with `count * 3`.
fn index_case<D: Device>(dev: &D, d: Vec<u32>, sorted: bool, count: u64, nv: u64) {
    let d = arrange(d, sorted, false);
    check_index::<_, u32>(dev, &d, count, nv);
    let d: Vec<u64> = d.into_iter().map(|x| x as u64 * 3).collect();
    check_index::<_, u64>(dev, &d, count * 3, nv);
}

fn index_partitions_every_group_size<D: Device>(dev: &D, _: Target) {
    let strategy = (keys(150, 200), 0u64..400, 1u64..16);
    // 48 cases, as the earlier `proptest!` block.
    kit::proptest_runner(48)
        .run(&strategy, |((d, sorted), count, nv)| {
            index_case(dev, d, sorted, count, nv);
            Ok(())
        })
        .unwrap();
}

/// One case of [`counting_partitions_every_group_size`]: `d` (sorted or not) and the
/// sequence `first + step * k` of as many, as u32; both times 3 as u64 with `count * 3`.
fn counting_case<D: Device>(
    dev: &D,
    (d, sorted): (Vec<u32>, bool),
    count: u64,
    nv: u64,
    first: u32,
    step: u32,
) {
    let d = arrange(d, sorted, false);
    check_counting::<_, u32>(dev, &d, None, count, nv);
    check_counting::<_, u32>(dev, &[], Some((first, step, d.len())), count, nv);
    let d: Vec<u64> = d.into_iter().map(|x| x as u64 * 3).collect();
    check_counting::<_, u64>(dev, &d, None, count * 3, nv);
    let seq = Some((first as u64 * 3, step as u64, d.len()));
    check_counting::<_, u64>(dev, &[], seq, count * 3, nv);
}

fn counting_partitions_every_group_size<D: Device>(dev: &D, _: Target) {
    let strategy = (keys(150, 200), 0u64..200, 1u64..16, 0u32..220, 0u32..4);
    // 48 cases, as the earlier `proptest!` block.
    kit::proptest_runner(48)
        .run(&strategy, |(d, count, nv, first, step)| {
            counting_case(dev, d, count, nv, first, step);
            Ok(())
        })
        .unwrap();
}

/// The cases proptest once shrank failures of these properties to (the earlier
/// `lanes.proptest-regressions`): unsorted search keys at nv = 1 and count 0, and unsorted
/// counting indices beside a sequence.
fn saved_failures_every_group_size<D: Device>(dev: &D, _: Target) {
    index_case(dev, vec![23, 0], false, 0, 1);
    index_case(dev, vec![0], false, 0, 1);
    let d = vec![
        0, 0, 0, 0, 0, 0, 14, 0, 5, 0, 0, 0, 0, 0, 0, 1, 199, 50, 4, 163, 141, 39,
    ];
    counting_case(dev, (d, false), 14, 12, 213, 2);
}

fn edge_cases_every_group_size<D: Device>(dev: &D, _: Target) {
    for nv in [1u64, 3, 64] {
        for upper in [false, true] {
            check_merge::<_, Less>(dev, &[], &[], nv, 0, upper);
            check_merge::<_, Less>(dev, &[], &[1, 2, 3], nv, 0, upper);
            check_merge::<_, Less>(dev, &[4; 70], &[], nv, 0, upper);
            check_merge::<_, Less>(dev, &[5; 40], &[5; 90], nv, 0, upper);
        }
        check_merge::<_, Less>(dev, &[], &[], nv, 2, false);
        check_merge::<_, Less>(dev, &[7; 100], &[], nv, 4, false);
        check_index::<_, u32>(dev, &[], 0, nv);
        check_index::<_, u32>(dev, &[], 50, nv);
        check_index::<_, u64>(dev, &[9; 80], 200, nv);
        check_index::<_, u32>(dev, &[0], 1, nv);
        // A CSR that does not start at 0.
        check_index::<_, u32>(dev, &[5, 6, 7, 20], 30, nv);
        check_counting::<_, u32>(dev, &[], None, 0, nv);
        check_counting::<_, u32>(dev, &[], None, 50, nv);
        check_counting::<_, u64>(dev, &[9; 80], None, 0, nv);
        check_counting::<_, u64>(dev, &[0; 80], None, 30, nv);
        check_counting::<_, u32>(dev, &[30; 70], None, 30, nv);
        // Sequences: empty, one position for all, wrapping, descending (step -1).
        check_counting::<_, u32>(dev, &[], Some((4, 1, 0)), 10, nv);
        check_counting::<_, u32>(dev, &[], Some((7, 0, 90)), 10, nv);
        check_counting::<_, u32>(dev, &[], Some((u32::MAX - 20, 1, 60)), 40, nv);
        check_counting::<_, u64>(dev, &[], Some((50, u64::MAX, 60)), 40, nv);
    }
}

/// The launchers on garbage at partition counts where the rule picks 32 lanes and 1 lane
/// (either side of `COOP_MAX_PARTITIONS`): the merge partitions against the serial
/// definition with 32 lanes (the cooperative bisection) and inside its range with one
/// (the k-ary search); the CSR ones against it; the counting ones (interpolation) inside
/// its range.
fn launchers_at_each_group_size_on_garbage<D: Device>(dev: &D, _: Target) {
    let garbage = |n: usize, seed: u32| -> Vec<u32> {
        (0..n as u32)
            .map(|i| (i ^ seed).wrapping_mul(2654435761) >> 22)
            .collect()
    };
    for (partitions, lanes_log2) in [(200usize, 5u32), (1024, 5), (1025, 0), (3000, 0)] {
        if std::env::var_os("MGPU_PARTITION_LANES").is_none() {
            assert_eq!(mgpu_partition::partition_lanes_log2(partitions), lanes_log2);
        }
        let nv = 2usize;
        let n = (partitions - 1) * nv;
        let (a, b) = (garbage(n / 3, 1), garbage(n - n / 3, 2));
        let (da, db) = (
            DeviceVec::from_slice(dev, &a).unwrap(),
            DeviceVec::from_slice(dev, &b).unwrap(),
        );
        for upper in [false, true] {
            let got = mgpu_partition::merge_path_partitions(
                da.as_slice(),
                db.as_slice(),
                nv,
                bounds(upper),
                Less,
            )
            .unwrap()
            .to_vec()
            .unwrap();
            assert_eq!(got.len(), partitions);
            let serial: Vec<(u64, u64, u64)> = (0..partitions as u64)
                .map(|p| serial_merge::<u32, Less>(&a, &b, b.len() as u64, nv as u64, 0, upper, p))
                .collect();
            let groups = mgpu_partition::partition_lanes_log2(partitions) != 0;
            if groups {
                let want: Vec<u64> = serial.iter().map(|s| s.0).collect();
                assert_eq!(got, want, "merge partitions={partitions} upper={upper}");
            } else {
                // One lane (interpolating, or the k-ary search or bisection with
                // `MGPU_PARTITION_SEARCH=kary`): the serial range of each diagonal.
                for (p, (&m, &(_, lo, hi))) in got.iter().zip(&serial).enumerate() {
                    assert!(
                        (lo..=hi).contains(&m),
                        "merge partition {p}: {m} outside {lo}..={hi}"
                    );
                }
            }
        }
        let csr = garbage(n / 2, 3);
        let dc = DeviceVec::from_slice(dev, &csr).unwrap();
        let got = mgpu_partition::csr_partitions(dc.as_slice(), n, nv)
            .unwrap()
            .to_vec()
            .unwrap();
        // The CSR launcher bisects: the serial result, garbage or not.
        let want = serial_csr(&csr, n as u64, nv as u64);
        assert_eq!(got, want, "csr partitions={partitions}");
        // Counting partitions of garbage indices against n / 2 positions.
        let idx = garbage(n - n / 2, 4);
        let di = DeviceVec::from_slice(dev, &idx).unwrap();
        for upper in [false, true] {
            let got = mgpu_partition::merge_path_counting_partitions(
                dev,
                di.as_slice().into(),
                n / 2,
                nv,
                bounds(upper),
            )
            .unwrap()
            .to_vec()
            .unwrap();
            assert_eq!(got.len(), partitions);
            let (m, c) = (idx.len() as u64, (n / 2) as u64);
            let want = serial_counting(&idx, c, nv as u64, bounds(upper));
            for (p, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let diag = (nv as u64 * p as u64).min(n as u64);
                assert!(
                    diag.saturating_sub(c) <= g && g <= diag.min(m),
                    "counting partitions={partitions} upper={upper} p={p} got={g} serial={w}"
                );
            }
        }
    }
}

/// Kernel `K` for `num` partitions with `lanes_log2` (see [`run`]); on CUDA also its
/// median microseconds over 15 launches (after 2 warm-ups) between CUDA events (1 launch
/// under the sanitizer cap, whose times mean nothing).
fn time_kernel<D: Device, K: Kernel>(
    dev: &D,
    num: usize,
    lanes_log2: u32,
    args: impl Fn(*mut u64) -> K::Args,
) -> (Option<f64>, Vec<u64>) {
    use cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
    let Some(ctx) = (dev as &dyn std::any::Any).downcast_ref::<Context>() else {
        return (None, run::<D, K>(dev, num, lanes_log2, args));
    };
    let mut out = DeviceVec::from_slice(ctx, &vec![u64::MAX; num]).unwrap();
    let a = args(out.as_mut_slice().as_mut_ptr());
    let cuda = ctx.cuda_context();
    let (start, stop) = (
        cuda.new_event(Some(CU_EVENT_DEFAULT)).unwrap(),
        cuda.new_event(Some(CU_EVENT_DEFAULT)).unwrap(),
    );
    let launches = if kit::capped() { 3 } else { 17 };
    let mut ts = Vec::new();
    for i in 0..launches {
        start.record(ctx.stream()).unwrap();
        // SAFETY: `out` has `num` slots; `args` names device buffers with their lengths.
        unsafe { ctx.launch::<K>(grid(num, lanes_log2), &a).unwrap() };
        stop.record(ctx.stream()).unwrap();
        if i >= 2 {
            ts.push(start.elapsed_ms(&stop).unwrap() as f64 * 1e3);
        }
    }
    ts.sort_by(f64::total_cmp);
    (Some(ts[ts.len() / 2]), out.to_vec().unwrap())
}

/// Kernel `K` with each of `lanes` (group sizes, then perhaps `INTERPOLATE`) for the
/// partitions `want` of `n` elements, each result against `want`; on CUDA one row of the
/// group-size table: each one's time, `*` on the group size the launcher picks.
fn sweep<D: Device, K: Kernel>(
    dev: &D,
    what: &str,
    n: usize,
    want: &[u64],
    lanes: impl IntoIterator<Item = u32>,
    args: impl Fn(*mut u64, u32) -> K::Args,
) {
    let num = want.len();
    let mut times = Vec::new();
    for lanes_log2 in lanes {
        let (t, got) = time_kernel::<D, K>(dev, num, lanes_log2, |out| args(out, lanes_log2));
        assert!(got == want, "{what} n={n} lanes_log2={lanes_log2}");
        times.push(t);
    }
    let Some(times) = times.into_iter().collect::<Option<Vec<f64>>>() else {
        return;
    };
    let picked = mgpu_partition::partition_lanes_log2(num) as usize;
    let cols: Vec<String> = times
        .iter()
        .enumerate()
        .map(|(l, t)| {
            if l > 5 {
                // The integer kernels' interpolation search (what the counting launcher
                // runs; the others bisect).
                format!("interp {t:>7.1}")
            } else {
                let mark = if l == picked && times.len() == 6 {
                    "*"
                } else {
                    " "
                };
                format!("L={:<2} {t:>7.1}{mark}", 1 << l)
            }
        })
        .collect();
    println!(
        "{what:<10} n = 2^{:<2} partitions = {num:>7}  us: {}",
        n.ilog2(),
        cols.join(" ")
    );
}

/// Every group size on the sizes of the benchmarks (tiles of 128 x 11), 2^20 to 2^27 on
/// CUDA (the largest power of two within the budget elsewhere and under the sanitizer
/// cap): merge of two sorted u32 halves (lower bound), CSR and load-balancing partitions
/// over random counts; and the counting partitions of Bulk Insert (tiles of 128 x 7, n / 2
/// sorted indices); for the integer-keyed kernels also the interpolation search
/// (`interp`, what their launchers run); each against the CPU, and on CUDA its time
/// (`*` marks what the launcher picks).
fn group_sizes<D: Device>(dev: &D, t: Target) {
    let nv = 128 * 11;
    let mut ns = t.sizes(&[1 << 20, 1 << 22, 1 << 24, 1 << 25, 1 << 26, 1 << 27]);
    if ns.is_empty() {
        ns.push(1 << t.cap(usize::MAX).max(1).ilog2());
    }
    let with_interp = || (0..=5).chain([mgpu_partition::INTERPOLATE]);
    for n in ns {
        let mut rng = Rng::new(n.ilog2() as u64);
        let a = kit::sorted_values::<u32>(&mut rng, n / 2, 1 << 30, false);
        let b = kit::sorted_values::<u32>(&mut rng, n - n / 2, 1 << 30, false);
        let ((_da, pa), (_db, pb)) = (upload(dev, &a), upload(dev, &b));
        let want = cpu::merge_path_partitions::<u32, Less>(&a, &b, nv, cpu::Bounds::Lower).unwrap();
        let num = want.len() as u64;
        type Merge = <Less as MergeComparator<u32>>::Kernel;
        sweep::<D, Merge>(dev, "merge u32", n, &want, 0..=5, |out, lanes_log2| {
            MergeArgs {
                a: pa,
                b: pb,
                a_count: a.len() as u64,
                b_count: b.len() as u64,
                nv: nv as u64,
                coop: 0,
                num_partitions: num,
                out,
                upper: 0,
                lanes_log2,
                skip_unless: core::ptr::null(),
            }
        });
        // CSR and LBS over n / 4 rows (objects) of 3 items on average, a quarter empty.
        let c = counts(&mut rng, n / 4, 9);
        let (scan, total) = scan_of::<u32>(&c);
        let (_ds, ps) = upload(dev, &scan);
        let want = cpu::csr_partitions(&scan, total, nv).unwrap();
        let num = want.len() as u64;
        let csr = |out, lanes_log2| CsrArgs {
            csr: ps,
            num_rows: scan.len() as u64,
            nz: total as u64,
            nv: nv as u64,
            num_partitions: num,
            out,
            lanes_log2,
        };
        type Csr = <u32 as PartitionIndex>::Csr;
        sweep::<D, Csr>(dev, "csr u32", n, &want, with_interp(), csr);
        let want = cpu::load_balance_partitions(&scan, total, nv).unwrap();
        let num = want.len() as u64;
        type Lbs = <u32 as PartitionIndex>::Lbs;
        let lbs = |out, lanes_log2| lbs_over(csr(out, lanes_log2), num);
        sweep::<D, Lbs>(dev, "lbs u32", n, &want, with_interp(), lbs);
        // Counting partitions as Bulk Insert launches them: n / 2 sorted indices into n
        // positions, tiles of 128 x 7 outputs.
        let nv = 128 * 7;
        let idx = kit::sorted_values::<u32>(&mut rng, n / 2, n as u64 + 1, false);
        let (_di, pi) = upload(dev, &idx);
        let want = serial_counting(&idx, n as u64, nv as u64, Bounds::Lower);
        let num = want.len() as u64;
        type Count = <u32 as PartitionIndex>::Counting;
        sweep::<D, Count>(
            dev,
            "count u32",
            n,
            &want,
            with_interp(),
            |out, lanes_log2| CountingArgs {
                indices: pi,
                num_indices: idx.len() as u64,
                first: 0,
                step: 0,
                count: n as u64,
                nv: nv as u64,
                num_partitions: num,
                out,
                upper: 0,
                sequence: 0,
                lanes_log2,
                clear: core::ptr::null_mut(),
            },
        );
    }
}

mgpu_testkit::device_tests! {
    merge_partitions_every_group_size,
    mergesort_partitions_every_group_size,
    index_partitions_every_group_size,
    counting_partitions_every_group_size,
    saved_failures_every_group_size,
    edge_cases_every_group_size,
    launchers_at_each_group_size_on_garbage,
    group_sizes,
}
