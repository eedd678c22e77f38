//! The `blocks` kernels (every device building block in a kernel) against host references,
//! on the simulator (small inputs, run by `cargo test`) and on a CUDA GPU (larger inputs,
//! ignored without one: `cargo xtask test-gpu` or the bundle's `run.sh`). One suite,
//! written once over `Device`.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

use mgpu_blocks::kernels::{NT, VT};
use mgpu_runtime::Device;
use mgpu_testkit::Rng;

const NV: usize = NT * VT;

fn sort_pairs<D: Device>(dev: &D, n: usize, seed: u64) {
    let mut r = Rng::new(seed);
    let keys: Vec<i32> = (0..n).map(|_| r.below(8) as i32 - 4).collect();
    let heads: Vec<bool> = (0..n).map(|_| r.below(5) == 0).collect();
    let mut k = keys.clone();
    let mut v: Vec<i32> = (0..n as i32).collect();
    mgpu_blocks::sort_pairs_in_threads(dev, &mut k, &mut v, &heads).unwrap();
    // Reference: each thread's run split at heads, each piece stably sorted.
    let mut want: Vec<(i32, i32)> = Vec::with_capacity(n);
    let mut start = 0;
    for i in (1..=n).filter(|&i| i == n || i % VT == 0 || heads[i]) {
        let mut piece: Vec<(i32, i32)> = (start..i).map(|j| (keys[j], j as i32)).collect();
        piece.sort_by_key(|p| p.0);
        want.extend(piece);
        start = i;
    }
    let got: Vec<(i32, i32)> = k.into_iter().zip(v).collect();
    assert_eq!(got, want, "sort_pairs n={n}");
}

fn batcher<D: Device>(dev: &D, n: usize, seed: u64) {
    let mut r = Rng::new(seed);
    let keys: Vec<i32> = (0..n).map(|_| r.next_u64() as i32).collect();
    let mut k = keys.clone();
    mgpu_blocks::batcher_sort_in_threads(dev, &mut k).unwrap();
    let mut want = keys;
    for run in want.chunks_mut(VT) {
        run.sort_unstable();
    }
    assert_eq!(k, want, "batcher n={n}");
}

fn seg_reduce<D: Device>(dev: &D, n: usize, mean_len: u64, seed: u64) {
    let mut r = Rng::new(seed);
    let mut rows = Vec::with_capacity(n);
    let mut row = 0u32;
    for i in 0..n {
        if i > 0 && r.below(mean_len) == 0 {
            row += 1;
        }
        rows.push(row);
    }
    let segs = if n == 0 { 0 } else { row as usize + 1 };
    let xi: Vec<i32> = (0..n).map(|_| r.next_u64() as i32).collect();
    let mut want_i = vec![0i32; segs];
    for (x, &s) in xi.iter().zip(&rows) {
        want_i[s as usize] = want_i[s as usize].wrapping_add(*x);
    }
    assert_eq!(
        mgpu_blocks::seg_reduce_plus(dev, &xi, &rows).unwrap(),
        want_i,
        "i32 n={n} mean {mean_len}"
    );
    // Small integers in f64: exact whatever the association order.
    let xf: Vec<f64> = (0..n).map(|_| r.below(200) as f64 - 100.0).collect();
    let mut want_f = vec![0f64; segs];
    for (x, &s) in xf.iter().zip(&rows) {
        want_f[s as usize] += *x;
    }
    assert_eq!(
        mgpu_blocks::seg_reduce_plus(dev, &xf, &rows).unwrap(),
        want_f,
        "f64 n={n} mean {mean_len}"
    );
}

fn permute<D: Device>(dev: &D, n: usize, seed: u64) {
    let mut r = Rng::new(seed);
    let src: Vec<i32> = (0..n as i32).map(|i| i * 3 + 1).collect();
    let mut g: Vec<u32> = (0..n as u32).collect();
    let mut s: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        g.swap(i, r.below(i as u64 + 1) as usize);
        s.swap(i, r.below(i as u64 + 1) as usize);
    }
    let mut want = vec![0i32; n];
    for p in 0..n {
        want[s[p] as usize] = src[g[p] as usize];
    }
    for checked in [false, true] {
        let mut dst = vec![0i32; n];
        mgpu_blocks::permute(dev, &src, &g, &s, &mut dst, checked).unwrap();
        assert_eq!(dst, want, "permute n={n} checked {checked}");
    }
    if n > 1 {
        // One bad index of each kind: reported, and nothing written for those moves.
        let (mut g2, mut s2) = (g.clone(), s.clone());
        g2[0] = n as u32;
        s2[n - 1] = u32::MAX;
        let mut dst = vec![0i32; n];
        assert!(mgpu_blocks::permute(dev, &src, &g2, &s2, &mut dst, true).is_err());
        let mut want2 = want.clone();
        want2[s[0] as usize] = 0;
        want2[s[n - 1] as usize] = 0;
        assert_eq!(dst, want2, "bad moves write nothing");
    }
}

fn merge_values<D: Device>(dev: &D, na: usize, nb: usize, seed: u64) {
    let mut r = Rng::new(seed);
    let mut ak: Vec<u64> = (0..na).map(|_| r.below(100)).collect();
    let mut bk: Vec<u64> = (0..nb).map(|_| r.below(100)).collect();
    ak.sort_unstable();
    bk.sort_unstable();
    let (mut i, mut j) = (0, 0);
    let mut idx = Vec::with_capacity(na + nb);
    while i < na || j < nb {
        if j == nb || (i < na && ak[i] <= bk[j]) {
            idx.push(i as u32);
            i += 1;
        } else {
            idx.push((na + j) as u32);
            j += 1;
        }
    }
    let a: Vec<i64> = (0..na as i64).map(|v| v + 1).collect();
    let b: Vec<i64> = (0..nb as i64).map(|v| -v - 1).collect();
    let want: Vec<i64> = idx
        .iter()
        .map(|&g| {
            if (g as usize) < na {
                a[g as usize]
            } else {
                b[g as usize - na]
            }
        })
        .collect();
    assert_eq!(
        mgpu_blocks::merge_values(dev, &a, &b, &idx).unwrap(),
        want,
        "merge na={na} nb={nb}"
    );
}

/// A sequential stable merge (A first on equal keys): keys and merge-style source indices.
fn cpu_merge(a: &[i32], b: &[i32]) -> (Vec<i32>, Vec<u32>) {
    let (mut i, mut j) = (0, 0);
    let (mut k, mut idx) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            k.push(a[i]);
            idx.push(i as u32);
            i += 1;
        } else {
            k.push(b[j]);
            idx.push((a.len() + j) as u32);
            j += 1;
        }
    }
    (k, idx)
}

fn merge_keys<D: Device>(dev: &D, na: usize, nb: usize, range: u64, seed: u64) {
    let mut r = Rng::new(seed);
    let mut a: Vec<i32> = (0..na).map(|_| r.below(range) as i32 - 50).collect();
    let mut b: Vec<i32> = (0..nb).map(|_| r.below(range) as i32 - 50).collect();
    a.sort_unstable();
    b.sort_unstable();
    let got = mgpu_blocks::merge_keys(dev, &a, &b).unwrap();
    assert!(
        got == cpu_merge(&a, &b),
        "merge_keys na={na} nb={nb} range {range}"
    );
}

/// Seed 001's `CPULoadBalanceSearch` by definition: item `i`'s object is
/// `upper_bound(scan, i) - 1`, its rank `i - scan[object]`.
fn cpu_load_balance(scan: &[u32], total: u32) -> (Vec<u32>, Vec<u32>) {
    (0..total)
        .map(|i| {
            let o = scan.partition_point(|&s| s <= i) - 1;
            (o as u32, i - scan[o])
        })
        .unzip()
}

/// `objects` objects with random counts below `max_count` (many empty when `zeros`);
/// checked with host partitions and with `mgpu_partition`'s device partitions.
fn load_balance<D: Device>(dev: &D, objects: usize, max_count: u64, zeros: bool, seed: u64) {
    let mut r = Rng::new(seed);
    let mut scan = Vec::with_capacity(objects);
    let mut total = 0u32;
    for _ in 0..objects {
        scan.push(total);
        let c = if zeros && r.below(3) != 0 {
            0
        } else {
            r.below(max_count) as u32
        };
        total += c;
    }
    let want = cpu_load_balance(&scan, total);
    let what = format!("lbs objects={objects} max {max_count} zeros {zeros} total {total}");
    assert!(
        mgpu_blocks::load_balance_search(dev, &scan, total, None).unwrap() == want,
        "{what} (host partitions)"
    );
    if !scan.is_empty() {
        let ds = mgpu_runtime::DeviceVec::from_slice(dev, &scan).unwrap();
        let mp = mgpu_partition::load_balance_partitions(ds.as_slice(), total as usize, NV)
            .unwrap()
            .to_vec()
            .unwrap();
        let got = mgpu_blocks::load_balance_search(dev, &scan, total, Some(&mp)).unwrap();
        assert!(got == want, "{what} (mgpu_partition partitions)");
    }
}

/// `n / 7 + 1` objects of up to `3 * NV` items (1.5 tiles on average); under the sanitizer
/// cap, at most as many as keep their items under it (each still of up to 3 tiles).
fn big_objects(n: usize) -> usize {
    (n / 7 + 1).min((mgpu_testkit::max_len() / (3 * NV / 2)).max(1))
}

/// A plain sequential segmented scan with `Plus`: a segment ends where `ends` says and at
/// the end of every tile (the kernel's segments are tile-local).
fn cpu_seg_scan(x: &[i32], ends: &[bool], exclusive: bool) -> Vec<i32> {
    let mut out = Vec::with_capacity(x.len());
    let mut acc = 0i32;
    for (i, (&v, &e)) in x.iter().zip(ends).enumerate() {
        let inc = acc.wrapping_add(v);
        out.push(if exclusive { acc } else { inc });
        acc = if e || i % NV == NV - 1 { 0 } else { inc };
    }
    out
}

/// Random values with end flags set with probability `1 / mean_len` (`0`: no flags, `1`:
/// every element its own segment), inclusive and exclusive.
fn seg_scan<D: Device>(dev: &D, n: usize, mean_len: u64, seed: u64) {
    let mut r = Rng::new(seed);
    let x: Vec<i32> = (0..n).map(|_| r.next_u64() as i32).collect();
    let ends: Vec<bool> = (0..n)
        .map(|_| mean_len != 0 && r.below(mean_len) == 0)
        .collect();
    for exclusive in [false, true] {
        let got = mgpu_blocks::seg_scan_plus(dev, &x, &ends, exclusive).unwrap();
        assert!(
            got == cpu_seg_scan(&x, &ends, exclusive),
            "seg_scan n={n} mean {mean_len} exclusive {exclusive}"
        );
    }
}

macro_rules! suite {
    ($dev:expr, $sizes:expr, $($attr:meta)?) => {
        $(#[$attr])?
        #[test]
        fn sort_pairs_in_threads() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                super::sort_pairs(&dev, n, k as u64 + 1);
            }
        }
        $(#[$attr])?
        #[test]
        fn batcher_in_threads() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                super::batcher(&dev, n, k as u64 + 7);
            }
        }
        $(#[$attr])?
        #[test]
        fn seg_reduce() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                for mean in [1, 2, 7, 3000] {
                    super::seg_reduce(&dev, n, mean, k as u64 * 31 + mean);
                }
            }
        }
        $(#[$attr])?
        #[test]
        fn permute() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                super::permute(&dev, n, k as u64 + 3);
            }
        }
        $(#[$attr])?
        #[test]
        fn merge_keys() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                let s = k as u64 * 11;
                super::merge_keys(&dev, n, n / 3 + 1, 1 << 20, s + 1);
                super::merge_keys(&dev, n, n, 5, s + 2); // many equal keys
                super::merge_keys(&dev, n / 2, n, 1, s + 3); // all keys equal
                super::merge_keys(&dev, 0, n, 100, s + 4);
                super::merge_keys(&dev, n, 0, 100, s + 5);
            }
        }
        $(#[$attr])?
        #[test]
        fn load_balance() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                let s = k as u64 * 13;
                super::load_balance(&dev, n, 4, false, s + 1);
                super::load_balance(&dev, n, 9, true, s + 2); // runs of empty objects
                let big = super::big_objects(n);
                super::load_balance(&dev, big, 3 * super::NV as u64, false, s + 3);
                super::load_balance(&dev, n, 1, false, s + 4); // every object empty
            }
        }
        $(#[$attr])?
        #[test]
        fn seg_scan() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                // 0: no flags (one segment per tile); 1: every element its own segment.
                for mean in [0, 1, 3, 50, 5000] {
                    super::seg_scan(&dev, n, mean, k as u64 * 17 + mean);
                }
            }
        }
        $(#[$attr])?
        #[test]
        fn merge_values() {
            let dev = $dev;
            for (k, &n) in $sizes.iter().enumerate() {
                super::merge_values(&dev, n, n / 3 + 1, k as u64 + 5);
                super::merge_values(&dev, 0, n, k as u64);
                super::merge_values(&dev, n, 0, k as u64);
            }
        }
    };
}

/// The simulator: a few tiles, partial tiles, edge sizes.
mod simulator {
    use super::NV;
    suite!(
        mgpu_runtime::Simulator::new(),
        [0usize, 1, 7, NV - 1, NV, NV + 1, 2 * NV + 5],
    );
}

/// The GPU: also sizes of millions of elements (dropped above the sanitizer cap).
mod cuda {
    use super::NV;
    suite!(
        mgpu_runtime::Context::new(0).expect("needs a CUDA GPU"),
        mgpu_testkit::sizes(&[0, 1, 7, NV - 1, NV, NV + 1, 2 * NV + 5, 100_003, 4_000_037]),
        ignore = "needs a CUDA GPU"
    );
}
