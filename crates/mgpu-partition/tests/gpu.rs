//! GPU cross-checks of every partition kernel: GPU == `mgpu_cpu::partition` bit for bit on
//! random and adversarial inputs (all keys equal, one side empty, sizes around multiples
//! of nv) up to 10^8 elements, printing each size and the GPU time of the synchronised
//! call (after a warm-up call that JIT-loads the module). Ignored without a GPU: run with
//! `cargo xtask test-gpu`, or the bundle's `run.sh`.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).
//!
//! `gpu_counting_partitions` covers Bulk Insert's partitions (indices, sorted or garbage,
//! or generated, against the source positions) against the serial search on the CPU.
//!
//! `gpu_group_sizes` runs the kernels themselves with every group size (1 to 32 lanes per
//! partition), checks each against the CPU and prints its median time (CUDA events), with
//! the size `partition_lanes_log2` picks marked: the table to tune that rule by.

mod common;
use common::*;
use mgpu_core::{Greater, Less};
use mgpu_cpu::partition as cpu;
use mgpu_ctasearch::Bounds;
use mgpu_ctasearch::{merge_path, Counting};
use mgpu_partition::device::{CountingArgs, CsrArgs, LbsArgs, MergeArgs};
use mgpu_partition::kernels::NT;
use mgpu_partition::IndexSource;
use mgpu_partition::{MergeComparator, PartitionIndex};
use mgpu_runtime::{Context, Device, DeviceVec, Result, Temp};
use mgpu_testkit::Rng;
use std::time::Instant;

fn ctx() -> Context {
    Context::new(0).expect("needs a CUDA GPU")
}

/// Tile sizes of the algorithms that will use these partitions (nv = NT * VT).
const NV: usize = 256 * 11;

/// Runs `f` twice (warm-up, then timed with a synchronisation) and returns the result.
fn timed<D: Device>(
    dev: &D,
    what: &str,
    n: usize,
    f: impl Fn() -> Result<Temp<u64, D>>,
) -> Vec<u64> {
    drop(f().unwrap());
    dev.synchronize().unwrap();
    let t = Instant::now();
    let r = f().unwrap();
    dev.synchronize().unwrap();
    let dt = t.elapsed();
    println!(
        "{what:<40} n = {n:>11}  partitions = {:>8}  {:>9.1} us",
        r.len(),
        dt.as_secs_f64() * 1e6
    );
    r.to_vec().unwrap()
}

fn sizes() -> Vec<usize> {
    mgpu_testkit::sizes(&[
        0,
        1,
        NV - 1,
        NV,
        NV + 1,
        2 * NV,
        1_000_003,
        10_000_000,
        100_000_000,
    ])
}

/// `n`, or at most a `parts`-th of the sanitizer cap: for one of `parts` pieces of an input
/// that must fit under the cap together. `n` itself without a cap.
fn cap_share(n: usize, parts: usize) -> usize {
    n.min(mgpu_testkit::max_len() / parts)
}

fn merge_big<T: Key, C: MergeComparator<T>>(dev: &Context, n: usize, range: u64) {
    let mut rng = Rng::new(n as u64 ^ 0x5EED);
    let desc = is_greater::<C>();
    let na = n / 2 + (rng.below(3) as usize).min(n - n / 2);
    let a = sorted::<T>(&mut rng, na, range, desc);
    let b = sorted::<T>(&mut rng, n - na, range, desc);
    let (da, db) = (
        DeviceVec::from_slice(dev, &a).unwrap(),
        DeviceVec::from_slice(dev, &b).unwrap(),
    );
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let what = format!(
            "merge {} {} {:?} range {range}",
            T::NAME,
            if desc { "greater" } else { "less" },
            bounds
        );
        let got = timed(dev, &what, n, || {
            mgpu_partition::merge_path_partitions(
                da.as_slice(),
                db.as_slice(),
                NV,
                bounds,
                C::default(),
            )
        });
        let cb = if bounds == Bounds::Lower {
            cpu::Bounds::Lower
        } else {
            cpu::Bounds::Upper
        };
        let want = cpu::merge_path_partitions::<T, C>(&a, &b, NV, cb).unwrap();
        assert!(got == want, "{what} n={n}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_merge_partitions() {
    let dev = ctx();
    for n in sizes() {
        merge_big::<u32, Less>(&dev, n, 1 << 30);
        merge_big::<i32, Less>(&dev, n, 1); // all keys equal
        merge_big::<f64, Greater>(&dev, n, 1000);
    }
    for n in mgpu_testkit::sizes(&[0, 1, 3 * NV, 1_000_000]) {
        let mut rng = Rng::new(3);
        // Every other key type and comparator, and one side empty.
        for_key_types!(check_one_sided, &dev, &mut rng, n);
    }
}

fn check_one_sided<T: Key, C: MergeComparator<T>>(dev: &Context, rng: &mut Rng, n: usize) {
    let desc = is_greater::<C>();
    let a = sorted::<T>(rng, n, 50, desc);
    check_merge::<_, T, C>(dev, &a, &[], NV);
    check_merge::<_, T, C>(dev, &[], &a, NV);
    let b = sorted::<T>(rng, n / 3, 50, desc);
    check_merge::<_, T, C>(dev, &a, &b, NV);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_mergesort_partitions() {
    let dev = ctx();
    for n in mgpu_testkit::sizes(&[0, 1, NV + 1, 4 * NV, 1_000_003, 10_000_000, 100_000_000]) {
        for coop in [2usize, 8, 64] {
            let mut rng = Rng::new(n as u64 + coop as u64);
            let keys = sorted_lists::<u32, Less>(&mut rng, n, NV * coop / 2, 1 << 20);
            let dk = DeviceVec::from_slice(&dev, &keys).unwrap();
            let got = timed(&dev, &format!("mergesort u32 less coop {coop}"), n, || {
                mgpu_partition::mergesort_partitions(dk.as_slice(), NV, coop, Less)
            });
            assert!(
                got == cpu::mergesort_partitions::<u32, Less>(&keys, NV, coop).unwrap(),
                "n={n} coop={coop}"
            );
        }
    }
    // 10^5 keys (the cap in sanitizer runs).
    let n = mgpu_testkit::cap(100_000);
    let mut rng = Rng::new(9);
    check_mergesort::<_, f32, Greater>(
        &dev,
        &sorted_lists::<f32, Greater>(&mut rng, n, NV, 10),
        NV,
        2,
    );
    check_mergesort::<_, i64, Less>(&dev, &vec![7i64; n], NV, 4);
}

fn index_big<I: PartitionIndex>(dev: &Context, n: usize) {
    let mut rng = Rng::new(n as u64 ^ 0xC5);
    // Sorted unique-ish indices into `count` elements (Bulk Remove), all equal ones.
    let count = 2 * n;
    let idx: Vec<I> = sorted::<u64>(&mut rng, n, count.max(1) as u64, false)
        .into_iter()
        .map(I::from_u64)
        .collect();
    let di = DeviceVec::from_slice(dev, &idx).unwrap();
    for bounds in [Bounds::Lower, Bounds::Upper] {
        let got = timed(dev, &format!("search {} {:?}", I::NAME, bounds), n, || {
            mgpu_partition::binary_search_partitions(di.as_slice(), count, NV, bounds)
        });
        let cb = if bounds == Bounds::Lower {
            cpu::Bounds::Lower
        } else {
            cpu::Bounds::Upper
        };
        assert!(
            got == cpu::binary_search_partitions(&idx, count, NV, cb).unwrap(),
            "search n={n}"
        );
    }
    check_search::<_, I>(
        dev,
        &vec![I::from_u64(5); n.min(1_000_000)],
        count.min(2_000_000),
        NV,
    );
    // CSR and load-balancing over counts with runs of empties: n objects, about 2n items.
    let c = counts(&mut rng, n, 5);
    let (scan, total) = scan_of::<I>(&c);
    let ds = DeviceVec::from_slice(dev, &scan).unwrap();
    let got = timed(dev, &format!("csr {}", I::NAME), total, || {
        mgpu_partition::csr_partitions(ds.as_slice(), total, NV)
    });
    assert!(
        got == cpu::csr_partitions(&scan, total, NV).unwrap(),
        "csr n={n}"
    );
    let got = timed(dev, &format!("lbs {}", I::NAME), total + n, || {
        mgpu_partition::load_balance_partitions(ds.as_slice(), total, NV)
    });
    assert!(
        got == cpu::load_balance_partitions(&scan, total, NV).unwrap(),
        "lbs n={n}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_index_partitions() {
    let dev = ctx();
    for n in mgpu_testkit::sizes(&[0, 1, NV - 1, NV, NV + 1, 1_000_003, 10_000_000, 50_000_000]) {
        index_big::<u32>(&dev, n);
        index_big::<u64>(&dev, n);
    }
    // One object with everything, and all objects empty but the last (3 * 10^6 items and
    // 10^6 objects; the cap in sanitizer runs).
    for c in [vec![mgpu_testkit::cap(3_000_000) as u64], {
        let n = mgpu_testkit::cap(1_000_000);
        let mut v = vec![0u64; n];
        v[n - 1] = 77;
        v
    }] {
        let (scan, total) = scan_of::<u32>(&c);
        check_csr::<_, u32>(&dev, &scan, total, NV);
        check_lbs::<_, u32>(&dev, &scan, total, NV);
    }
}

/// The counting partitions on the CPU: the serial `merge_path` of `indices` (as the
/// kernel reads them) against `Counting(0)` over `count` positions, per partition (rayon
/// is not needed: one search per tile).
fn counting_cpu<I: PartitionIndex>(indices: &[I], count: usize, nv: usize, b: Bounds) -> Vec<u64> {
    let (m, c) = (indices.len() as u64, count as u64);
    (0..mgpu_partition::partition_count(indices.len() + count, nv) as u64)
        .map(|p| unsafe {
            let diag = (nv as u64 * p).min(m + c);
            merge_path(indices, m, Counting(I::ZERO), c, diag, b, Less)
        })
        .collect()
}

/// Bulk Insert's shapes: `n / 2` sorted indices into `n` positions, garbage, generated
/// sequences (every 3rd position; everything at one position), both bounds.
fn counting_big<I: PartitionIndex>(dev: &Context, n: usize) {
    let mut rng = Rng::new(n as u64 ^ 0xB1);
    let m = n / 2;
    let sorted_idx: Vec<I> = sorted::<u64>(&mut rng, m, n as u64 + 1, false)
        .into_iter()
        .map(I::from_u64)
        .collect();
    let garbage: Vec<I> = (0..m)
        .map(|_| I::from_u64(rng.below(n as u64 + 1)))
        .collect();
    for (what, idx) in [("sorted", &sorted_idx), ("garbage", &garbage)] {
        let di = DeviceVec::from_slice(dev, idx).unwrap();
        for bounds in [Bounds::Lower, Bounds::Upper] {
            let name = format!("counting {} {what} {bounds:?}", I::NAME);
            let got = timed(dev, &name, n + m, || {
                mgpu_partition::merge_path_counting_partitions(
                    dev,
                    di.as_slice().into(),
                    n,
                    NV,
                    bounds,
                )
            });
            if what == "sorted" {
                assert!(got == counting_cpu(idx, n, NV, bounds), "{name} n={n}");
            } else {
                // Garbage: the interpolation search promises a position inside the
                // diagonal's range, not the serial search's answer.
                let (m, c) = (idx.len() as u64, n as u64);
                for (p, &a) in got.iter().enumerate() {
                    let diag = (NV as u64 * p as u64).min(m + c);
                    assert!(
                        a >= diag.saturating_sub(c) && a <= diag.min(m),
                        "{name} n={n}: partition {p} = {a} outside the diagonal {diag}"
                    );
                }
            }
        }
    }
    for (first, step, len) in [(0u64, 3u64, n / 3), (n as u64 / 2, 0, m)] {
        let seq: Vec<I> = (0..len as u64)
            .map(|k| I::from_u64(first + step * k))
            .collect();
        let name = format!("counting {} sequence step {step}", I::NAME);
        let src = IndexSource::Sequence {
            first: I::from_u64(first),
            step: I::from_u64(step),
            len,
        };
        let got = timed(dev, &name, n + len, || {
            mgpu_partition::merge_path_counting_partitions(dev, src, n, NV, Bounds::Lower)
        });
        assert!(
            got == counting_cpu(&seq, n, NV, Bounds::Lower),
            "{name} n={n}"
        );
    }
    // The CPU's merge partitions against the positions materialised, at moderate sizes.
    if n <= 10_000_000 {
        check_counting::<_, I>(dev, &sorted_idx, None, n, NV);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_counting_partitions() {
    let dev = ctx();
    for n in mgpu_testkit::sizes(&[0, 1, NV - 1, NV, NV + 1, 1_000_003, 10_000_000, 100_000_000]) {
        counting_big::<u32>(&dev, n);
        counting_big::<u64>(&dev, n);
    }
    // A million indices at one position (0, the middle, the end) of 3 * 10^6, as arrays
    // (under the sanitizer cap, half of it each: still many tiles of indices at one place).
    let n = cap_share(3_000_000, 2);
    let m = cap_share(1_000_000, 2);
    for at in [0u64, n as u64 / 2, n as u64] {
        check_counting::<_, u32>(&dev, &vec![at as u32; m], None, n, NV);
    }
}

/// Median microseconds of 15 launches of `K` (after 2 warm-ups), each between CUDA events,
/// with one group of `2^lanes_log2` lanes per partition; and the partitions it wrote. Under
/// the sanitizer cap, whose times mean nothing, 1 launch after the 2 warm-ups.
fn time_kernel<K: mgpu_core::Kernel>(
    dev: &Context,
    num: usize,
    lanes_log2: u32,
    args: impl Fn(*mut u64) -> K::Args,
) -> (f64, Vec<u64>) {
    use cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
    let out = Temp::<u64, Context>::new(dev, num).unwrap();
    let a = args(out.as_mut_ptr());
    let grid = num.div_ceil(NT >> (lanes_log2 & 0xff)) as u32;
    let cuda = dev.cuda_context();
    let (start, stop) = (
        cuda.new_event(Some(CU_EVENT_DEFAULT)).unwrap(),
        cuda.new_event(Some(CU_EVENT_DEFAULT)).unwrap(),
    );
    let launches = if mgpu_testkit::capped() { 3 } else { 17 };
    let mut ts = Vec::new();
    for i in 0..launches {
        start.record(dev.stream()).unwrap();
        // SAFETY: `out` has `num` slots; `args` names device buffers with their lengths.
        unsafe { dev.launch::<K>(grid, &a).unwrap() };
        stop.record(dev.stream()).unwrap();
        if i >= 2 {
            ts.push(start.elapsed_ms(&stop).unwrap() as f64 * 1e3);
        }
    }
    ts.sort_by(f64::total_cmp);
    (ts[ts.len() / 2], out.to_vec().unwrap())
}

fn print_sweep(what: &str, log_n: u32, num: usize, times: &[f64]) {
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
                format!(
                    "L={:<2} {t:>7.1}{}",
                    1 << l,
                    if l == picked && times.len() == 6 {
                        "*"
                    } else {
                        " "
                    }
                )
            }
        })
        .collect();
    println!(
        "{what:<10} n = 2^{log_n:<2} partitions = {num:>7}  us: {}",
        cols.join(" ")
    );
}

/// Every group size on the sizes of the benchmarks (tiles of 128 x 11): merge of two sorted
/// u32 halves (lower bound), CSR and load-balancing partitions over random counts; and the
/// counting partitions of Bulk Insert (tiles of 128 x 7, n / 2 sorted indices); for the
/// integer-keyed kernels also the interpolation search (`interp`, what their launchers
/// run; `*` marks what the launcher picks).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_group_sizes() {
    let dev = ctx();
    let nv = 128 * 11;
    // 2^20 to 2^27; under the sanitizer cap, which drops them all, the largest power of two
    // under it (so the sweep still checks every group size).
    let mut ns = mgpu_testkit::sizes(&[1 << 20, 1 << 22, 1 << 24, 1 << 25, 1 << 26, 1 << 27]);
    if ns.is_empty() {
        ns.push(1 << mgpu_testkit::max_len().max(1).ilog2());
    }
    for n in ns {
        let log_n = n.ilog2();
        let mut rng = Rng::new(log_n as u64);
        let a = sorted::<u32>(&mut rng, n / 2, 1 << 30, false);
        let b = sorted::<u32>(&mut rng, n - n / 2, 1 << 30, false);
        let (da, db) = (
            DeviceVec::from_slice(&dev, &a).unwrap(),
            DeviceVec::from_slice(&dev, &b).unwrap(),
        );
        let want = cpu::merge_path_partitions::<u32, Less>(&a, &b, nv, cpu::Bounds::Lower).unwrap();
        let num = want.len();
        let mut times = Vec::new();
        for lanes_log2 in 0..=5 {
            let (t, got) = time_kernel::<<Less as MergeComparator<u32>>::Kernel>(
                &dev,
                num,
                lanes_log2,
                |out| MergeArgs {
                    a: da.as_slice().as_ptr(),
                    b: db.as_slice().as_ptr(),
                    a_count: a.len() as u64,
                    b_count: b.len() as u64,
                    nv: nv as u64,
                    coop: 0,
                    num_partitions: num as u64,
                    out,
                    upper: 0,
                    lanes_log2,
                },
            );
            assert!(got == want, "merge n={n} lanes_log2={lanes_log2}");
            times.push(t);
        }
        print_sweep("merge u32", log_n, num, &times);
        // CSR and LBS over n / 4 rows (objects) of 3 items on average, a quarter empty.
        let c = counts(&mut rng, n / 4, 9);
        let (scan, total) = scan_of::<u32>(&c);
        let ds = DeviceVec::from_slice(&dev, &scan).unwrap();
        let want = cpu::csr_partitions(&scan, total, nv).unwrap();
        let num = want.len();
        let mut times = Vec::new();
        for lanes_log2 in (0..=5).chain([mgpu_partition::INTERPOLATE]) {
            let (t, got) =
                time_kernel::<<u32 as PartitionIndex>::Csr>(&dev, num, lanes_log2, |out| CsrArgs {
                    csr: ds.as_slice().as_ptr(),
                    num_rows: scan.len() as u64,
                    nz: total as u64,
                    nv: nv as u64,
                    num_partitions: num as u64,
                    out,
                    lanes_log2,
                });
            assert!(got == want, "csr n={n} lanes_log2={lanes_log2}");
            times.push(t);
        }
        print_sweep("csr u32", log_n, num, &times);
        let want = cpu::load_balance_partitions(&scan, total, nv).unwrap();
        let num = want.len();
        let mut times = Vec::new();
        for lanes_log2 in (0..=5).chain([mgpu_partition::INTERPOLATE]) {
            let (t, got) =
                time_kernel::<<u32 as PartitionIndex>::Lbs>(&dev, num, lanes_log2, |out| LbsArgs {
                    scan: ds.as_slice().as_ptr(),
                    num_objects: scan.len() as u64,
                    total: total as u64,
                    nv: nv as u64,
                    num_partitions: num as u64,
                    out,
                    lanes_log2,
                    clear: core::ptr::null_mut(),
                });
            assert!(got == want, "lbs n={n} lanes_log2={lanes_log2}");
            times.push(t);
        }
        print_sweep("lbs u32", log_n, num, &times);
        // Counting partitions as Bulk Insert launches them: n / 2 sorted indices into n
        // positions, tiles of 128 x 7 outputs.
        let nv = 128 * 7;
        let idx: Vec<u32> = sorted::<u64>(&mut rng, n / 2, n as u64 + 1, false)
            .into_iter()
            .map(|x| x as u32)
            .collect();
        let di = DeviceVec::from_slice(&dev, &idx).unwrap();
        let want = counting_cpu(&idx, n, nv, Bounds::Lower);
        let num = want.len();
        let mut times = Vec::new();
        for lanes_log2 in (0..=5).chain([mgpu_partition::INTERPOLATE]) {
            let (t, got) =
                time_kernel::<<u32 as PartitionIndex>::Counting>(&dev, num, lanes_log2, |out| {
                    CountingArgs {
                        indices: di.as_slice().as_ptr(),
                        num_indices: idx.len() as u64,
                        first: 0,
                        step: 0,
                        count: n as u64,
                        nv: nv as u64,
                        num_partitions: num as u64,
                        out,
                        upper: 0,
                        sequence: 0,
                        lanes_log2,
                        clear: core::ptr::null_mut(),
                    }
                });
            assert!(got == want, "counting n={n} lanes_log2={lanes_log2}");
            times.push(t);
        }
        print_sweep("count u32", log_n, num, &times);
    }
}
