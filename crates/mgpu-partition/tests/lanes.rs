//! The partition kernels with every group size (1, 2, 4, 8, 16, 32 lanes per partition)
//! against the serial definition they had with one thread per partition (the serial
//! `merge_path` / `binary_search` of `mgpu_ctasearch` on host slices, with the mergesort
//! frames and the CSR flag), bit for bit, on sorted input and on garbage (unsorted, a CSR
//! that does not start at 0), which the partition kernels do not validate but must still
//! answer deterministically and within range (the k-ary search that the search,
//! load-balancing and counting kernels run with one lane answers within range only). The counting partitions (Bulk Insert's) are
//! checked against the serial `merge_path` of the indices (an array, or a generated
//! sequence, wrapping) against `Counting(0)`. Also the launchers at partition counts where
//! the simulator's device (4 SMs) picks each group size, on garbage.

use mgpu_core::{sim, Comparator, Greater, Less};
use mgpu_ctasearch::{
    binary_search, find_mergesort_frame, merge_path, Bounds, Counting, Idx, Upper,
};
use mgpu_partition::device::{CountingArgs, CsrArgs, LbsArgs, MergeArgs, SearchArgs};
use mgpu_partition::kernels::NT;
use mgpu_partition::{MergeComparator, PartitionIndex, CSR_CONTINUATION, KARY_SHIFT};
use mgpu_runtime::{DeviceVec, Simulator};
use proptest::prelude::*;

const LANES_LOG2: [u32; 6] = [0, 1, 2, 3, 4, 5];

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

/// Merge Path partition `p` as the one-thread kernel defined it (`keys_b` is the B array
/// of a merge, or the keys again for a mergesort pass).
fn serial_merge<T: Copy, C: Comparator<T>>(
    keys_a: &[T],
    keys_b: &[T],
    b_count: u64,
    nv: u64,
    coop: u64,
    upper: bool,
    p: u64,
) -> u64 {
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
    unsafe { merge_path(a, a_count, b, b_count, diag, bounds(upper), C::default()) }
}

fn check_merge<C: MergeComparator<u32>>(a: &[u32], b: &[u32], nv: u64, coop: u64, upper: bool) {
    let (a, b) = if coop != 0 { (a, a) } else { (a, b) };
    let b_len = if coop != 0 { 0 } else { b.len() };
    let num = mgpu_partition::partition_count(a.len() + b_len, nv as usize);
    let want: Vec<u64> = (0..num as u64)
        .map(|p| serial_merge::<u32, C>(a, b, b_len as u64, nv, coop, upper, p))
        .collect();
    for lanes_log2 in LANES_LOG2 {
        let mut out = vec![u64::MAX; num];
        let args = MergeArgs {
            a: a.as_ptr(),
            b: b.as_ptr(),
            a_count: a.len() as u64,
            b_count: b_len as u64,
            nv,
            coop,
            num_partitions: num as u64,
            out: out.as_mut_ptr(),
            upper: upper as u32,
            lanes_log2,
        };
        sim::launch_kernel::<C::Kernel>(grid(num, lanes_log2), &args);
        assert_eq!(
            out, want,
            "merge nv={nv} coop={coop} upper={upper} lanes_log2={lanes_log2}"
        );
    }
}

fn sorted<I: PartialOrd>(v: &[I]) -> bool {
    v.windows(2).all(|w| w[0] <= w[1])
}

/// A k-ary search (`lanes_log2` with a `KARY_SHIFT` field) on unsorted input answers
/// somewhere in the search range (`range(p)`, inclusive), not necessarily where the
/// bisection does; every other case is the serial result, bit for bit.
fn check_kary(
    out: &[u64],
    want: &[u64],
    lanes_log2: u32,
    sorted: bool,
    what: &str,
    range: impl Fn(u64) -> (u64, u64),
) {
    if lanes_log2 >> KARY_SHIFT != 0 && !sorted {
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

fn check_index<I: PartitionIndex>(data: &[I], count: u64, nv: u64) {
    let n = data.len() as u64;
    // Binary search, both bounds.
    let num = mgpu_partition::partition_count(count as usize, nv as usize);
    for upper in [false, true] {
        let want: Vec<u64> = (0..num as u64)
            .map(|p| unsafe {
                binary_search(
                    data,
                    n,
                    I::from_u64((nv * p).min(count)),
                    bounds(upper),
                    Less,
                )
            })
            .collect();
        for lanes_log2 in INDEX_LANES_LOG2 {
            let mut out = vec![u64::MAX; num];
            let args = SearchArgs {
                data: data.as_ptr(),
                num_items: n,
                count,
                nv,
                num_partitions: num as u64,
                out: out.as_mut_ptr(),
                upper: upper as u32,
                lanes_log2,
                clear: core::ptr::null_mut(),
            };
            sim::launch_kernel::<I::Search>(grid(num, lanes_log2), &args);
            let what = format!("search upper={upper} lanes_log2={lanes_log2}");
            check_kary(&out, &want, lanes_log2, sorted(data), &what, |_| (0, n));
        }
    }
    // CSR: `data` as row offsets, `count` as nz.
    let want: Vec<u64> = (0..num as u64)
        .map(|p| {
            let key = (nv * p).min(count);
            if key == count {
                return n;
            }
            let k = I::from_u64(key);
            let ub = unsafe { binary_search(data, n, k, Upper, Less) };
            let row = ub.saturating_sub(1);
            if ub != 0 && data[row as usize] == k {
                row
            } else {
                row | CSR_CONTINUATION
            }
        })
        .collect();
    for lanes_log2 in INDEX_LANES_LOG2 {
        let mut out = vec![u64::MAX; num];
        let args = CsrArgs {
            csr: data.as_ptr(),
            num_rows: n,
            nz: count,
            nv,
            num_partitions: num as u64,
            out: out.as_mut_ptr(),
            lanes_log2,
        };
        sim::launch_kernel::<I::Csr>(grid(num, lanes_log2), &args);
        assert_eq!(out, want, "csr lanes_log2={lanes_log2}");
    }
    // Load balance: `data` as the scan, `count` as the total.
    let num = mgpu_partition::partition_count((count + n) as usize, nv as usize);
    let want: Vec<u64> = (0..num as u64)
        .map(|p| unsafe {
            let diag = (nv * p).min(count + n);
            merge_path(Counting(I::ZERO), count, data, n, diag, Upper, Less)
        })
        .collect();
    for lanes_log2 in INDEX_LANES_LOG2 {
        let mut out = vec![u64::MAX; num];
        let args = LbsArgs {
            scan: data.as_ptr(),
            num_objects: n,
            total: count,
            nv,
            num_partitions: num as u64,
            out: out.as_mut_ptr(),
            lanes_log2,
            clear: core::ptr::null_mut(),
        };
        sim::launch_kernel::<I::Lbs>(grid(num, lanes_log2), &args);
        let what = format!("lbs lanes_log2={lanes_log2}");
        check_kary(&out, &want, lanes_log2, sorted(data), &what, |p| {
            let diag = (nv * p).min(count + n);
            (diag.saturating_sub(n), diag.min(count))
        });
    }
}

/// The counting partitions (`data` as the indices, or the sequence `seq = (first, step,
/// m)` when given) against the one-thread definition: the serial `merge_path` of the
/// indices against `Counting(0)` over `count` positions, both bounds, every group size.
fn check_counting<I: PartitionIndex>(data: &[I], seq: Option<(I, I, usize)>, count: u64, nv: u64) {
    // The indices as the kernel reads them (a sequence wraps in `I`).
    let keys: Vec<I> = match seq {
        None => data.to_vec(),
        Some((first, step, m)) => (0..m)
            .map(|k| Idx::wrapping_add(first, Idx::wrapping_mul(step, <I as Idx>::from_usize(k))))
            .collect(),
    };
    let m = keys.len() as u64;
    let num = mgpu_partition::partition_count((m + count) as usize, nv as usize);
    for upper in [false, true] {
        let want: Vec<u64> = (0..num as u64)
            .map(|p| unsafe {
                let diag = (nv * p).min(m + count);
                merge_path(
                    &keys[..],
                    m,
                    Counting(I::ZERO),
                    count,
                    diag,
                    bounds(upper),
                    Less,
                )
            })
            .collect();
        for lanes_log2 in INDEX_LANES_LOG2 {
            let mut out = vec![u64::MAX; num];
            let (first, step) = seq.map_or((I::ZERO, I::ZERO), |(f, s, _)| (f, s));
            let args = CountingArgs {
                indices: if seq.is_some() {
                    core::ptr::null()
                } else {
                    data.as_ptr()
                },
                num_indices: m,
                first,
                step,
                count,
                nv,
                num_partitions: num as u64,
                out: out.as_mut_ptr(),
                upper: upper as u32,
                sequence: seq.is_some() as u32,
                lanes_log2,
                clear: core::ptr::null_mut(),
            };
            sim::launch_kernel::<I::Counting>(grid(num, lanes_log2), &args);
            let what = format!(
                "counting m={m} count={count} nv={nv} seq={} upper={upper} lanes_log2={lanes_log2}",
                seq.is_some()
            );
            check_kary(&out, &want, lanes_log2, sorted(&keys), &what, |p| {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn merge_partitions_every_group_size(
        (a, sa) in keys(120, 10),
        (b, sb) in keys(120, 10),
        nv in 1u64..12,
        upper in any::<bool>(),
    ) {
        check_merge::<Less>(&arrange(a.clone(), sa, false), &arrange(b.clone(), sb, false), nv, 0, upper);
        check_merge::<Greater>(&arrange(a, sa, true), &arrange(b, sb, true), nv, 0, upper);
    }

    #[test]
    fn mergesort_partitions_every_group_size(
        (k, sorted) in keys(150, 12),
        nv in 1u64..10,
        coop_log2 in 1u32..4,
    ) {
        // Lists of nv * coop / 2 sorted (or not) one by one.
        let coop = 1u64 << coop_log2;
        let list = (nv * coop / 2) as usize;
        let k: Vec<u32> = k.chunks(list).flat_map(|c| arrange(c.to_vec(), sorted, false)).collect();
        check_merge::<Less>(&k, &[], nv, coop, false);
    }

    #[test]
    fn index_partitions_every_group_size(
        (d, sorted) in keys(150, 200),
        count in 0u64..400,
        nv in 1u64..16,
    ) {
        let d = arrange(d, sorted, false);
        check_index::<u32>(&d, count, nv);
        let d: Vec<u64> = d.into_iter().map(|x| x as u64 * 3).collect();
        check_index::<u64>(&d, count * 3, nv);
    }

    #[test]
    fn counting_partitions_every_group_size(
        (d, sorted) in keys(150, 200),
        count in 0u64..200,
        nv in 1u64..16,
        first in 0u32..220,
        step in 0u32..4,
    ) {
        let d = arrange(d, sorted, false);
        check_counting::<u32>(&d, None, count, nv);
        check_counting::<u32>(&[], Some((first, step, d.len())), count, nv);
        let d: Vec<u64> = d.into_iter().map(|x| x as u64 * 3).collect();
        check_counting::<u64>(&d, None, count * 3, nv);
        check_counting::<u64>(&[], Some((first as u64 * 3, step as u64, d.len())), count * 3, nv);
    }
}

#[test]
fn edge_cases_every_group_size() {
    for nv in [1u64, 3, 64] {
        for upper in [false, true] {
            check_merge::<Less>(&[], &[], nv, 0, upper);
            check_merge::<Less>(&[], &[1, 2, 3], nv, 0, upper);
            check_merge::<Less>(&[4; 70], &[], nv, 0, upper);
            check_merge::<Less>(&[5; 40], &[5; 90], nv, 0, upper);
        }
        check_merge::<Less>(&[], &[], nv, 2, false);
        check_merge::<Less>(&[7; 100], &[], nv, 4, false);
        check_index::<u32>(&[], 0, nv);
        check_index::<u32>(&[], 50, nv);
        check_index::<u64>(&[9; 80], 200, nv);
        check_index::<u32>(&[0], 1, nv);
        // A CSR that does not start at 0.
        check_index::<u32>(&[5, 6, 7, 20], 30, nv);
        check_counting::<u32>(&[], None, 0, nv);
        check_counting::<u32>(&[], None, 50, nv);
        check_counting::<u64>(&[9; 80], None, 0, nv);
        check_counting::<u64>(&[0; 80], None, 30, nv);
        check_counting::<u32>(&[30; 70], None, 30, nv);
        // Sequences: empty, one position for all, wrapping, descending (step -1).
        check_counting::<u32>(&[], Some((4, 1, 0)), 10, nv);
        check_counting::<u32>(&[], Some((7, 0, 90)), 10, nv);
        check_counting::<u32>(&[], Some((u32::MAX - 20, 1, 60)), 40, nv);
        check_counting::<u64>(&[], Some((50, u64::MAX, 60)), 40, nv);
    }
}

/// The launchers on garbage at partition counts where the rule picks 32 lanes and 1 lane
/// (either side of `COOP_MAX_PARTITIONS`): the merge partitions against the serial
/// definition; the CSR and counting ones (interpolation) inside its range.
#[test]
fn launchers_at_each_group_size_on_garbage() {
    let dev = Simulator::new();
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
            DeviceVec::from_slice(&dev, &a).unwrap(),
            DeviceVec::from_slice(&dev, &b).unwrap(),
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
            let want: Vec<u64> = (0..partitions as u64)
                .map(|p| serial_merge::<u32, Less>(&a, &b, b.len() as u64, nv as u64, 0, upper, p))
                .collect();
            assert_eq!(got, want, "merge partitions={partitions} upper={upper}");
        }
        let csr = garbage(n / 2, 3);
        let dc = DeviceVec::from_slice(&dev, &csr).unwrap();
        let got = mgpu_partition::csr_partitions(dc.as_slice(), n, nv)
            .unwrap()
            .to_vec()
            .unwrap();
        let want: Vec<u64> = (0..partitions as u64)
            .map(|p| {
                let key = (nv as u64 * p).min(n as u64);
                if key == n as u64 {
                    return csr.len() as u64;
                }
                let ub =
                    unsafe { binary_search(&csr[..], csr.len() as u64, key as u32, Upper, Less) };
                let row = ub.saturating_sub(1);
                if ub != 0 && csr[row as usize] == key as u32 {
                    row
                } else {
                    row | CSR_CONTINUATION
                }
            })
            .collect();
        // The CSR launcher bisects: the serial result, garbage or not.
        assert_eq!(got, want, "csr partitions={partitions}");
        // Counting partitions of garbage indices against n / 2 positions.
        let idx = garbage(n - n / 2, 4);
        let di = DeviceVec::from_slice(&dev, &idx).unwrap();
        for upper in [false, true] {
            let got = mgpu_partition::merge_path_counting_partitions(
                &dev,
                di.as_slice().into(),
                n / 2,
                nv,
                bounds(upper),
            )
            .unwrap()
            .to_vec()
            .unwrap();
            assert_eq!(got.len(), partitions);
            let want: Vec<u64> = (0..partitions as u64)
                .map(|p| unsafe {
                    let diag = (nv as u64 * p).min(n as u64);
                    let m = idx.len() as u64;
                    let c = (n / 2) as u64;
                    merge_path(&idx[..], m, Counting(0u32), c, diag, bounds(upper), Less)
                })
                .collect();
            for (p, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let diag = (nv as u64 * p as u64).min(n as u64);
                let (m, c) = (idx.len() as u64, (n / 2) as u64);
                assert!(
                    diag.saturating_sub(c) <= g && g <= diag.min(m),
                    "counting partitions={partitions} upper={upper} p={p} got={g} serial={w}"
                );
            }
        }
    }
}
