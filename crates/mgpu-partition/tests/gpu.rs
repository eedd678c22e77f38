//! GPU cross-checks of every partition kernel: GPU == `mgpu_cpu::partition` bit for bit on
//! random and adversarial inputs (all keys equal, one side empty, sizes around multiples
//! of nv) up to 10^8 elements, printing each size and the GPU time of the synchronised
//! call (after a warm-up call that JIT-loads the module). Ignored without a GPU: run with
//! `cargo xtask test-gpu`, or the bundle's `run.sh`.

mod common;
use common::*;
use mgpu_core::{Greater, Less};
use mgpu_cpu::partition as cpu;
use mgpu_ctasearch::Bounds;
use mgpu_partition::{MergeComparator, PartitionIndex};
use mgpu_runtime::{Context, Device, DeviceVec, Result, Temp};
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
    vec![
        0,
        1,
        NV - 1,
        NV,
        NV + 1,
        2 * NV,
        1_000_003,
        10_000_000,
        100_000_000,
    ]
}

fn merge_big<T: Key, C: MergeComparator<T>>(dev: &Context, n: usize, range: u64) {
    let mut rng = Rng(n as u64 ^ 0x5EED);
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
    for n in [0usize, 1, 3 * NV, 1_000_000] {
        let mut rng = Rng(3);
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
    for n in [
        0usize,
        1,
        NV + 1,
        4 * NV,
        1_000_003,
        10_000_000,
        100_000_000,
    ] {
        for coop in [2usize, 8, 64] {
            let mut rng = Rng(n as u64 + coop as u64);
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
    let mut rng = Rng(9);
    check_mergesort::<_, f32, Greater>(
        &dev,
        &sorted_lists::<f32, Greater>(&mut rng, 100_000, NV, 10),
        NV,
        2,
    );
    check_mergesort::<_, i64, Less>(&dev, &vec![7i64; 100_000], NV, 4);
}

fn index_big<I: PartitionIndex>(dev: &Context, n: usize) {
    let mut rng = Rng(n as u64 ^ 0xC5);
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
    for n in [
        0usize,
        1,
        NV - 1,
        NV,
        NV + 1,
        1_000_003,
        10_000_000,
        50_000_000,
    ] {
        index_big::<u32>(&dev, n);
        index_big::<u64>(&dev, n);
    }
    // One object with everything, and all objects empty but the last.
    for c in [vec![3_000_000u64], {
        let mut v = vec![0u64; 1_000_000];
        v[999_999] = 77;
        v
    }] {
        let (scan, total) = scan_of::<u32>(&c);
        check_csr::<_, u32>(&dev, &scan, total, NV);
        check_lbs::<_, u32>(&dev, &scan, total, NV);
    }
}
