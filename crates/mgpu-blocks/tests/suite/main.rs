//! The `blocks` kernels (every device building block in a kernel) against host references,
//! written once over `D: Device` and run by `mgpu_testkit::device_tests!` on the
//! simulator (`simulator`, `simulator_sm70`: the blocks kernels have one tuning, so the
//! two run the same kernels on two simulated devices) and on CUDA (`cuda`, ignored without
//! a GPU: `cargo xtask test-gpu` or the bundle's `run.sh`). Each check runs at the sizes
//! of the target's budget: the edge cases and partial tiles everywhere (0, 1, 7, the tile
//! of NT x VT = 896 and its neighbours, two tiles and a bit), 100_003 and 4_000_037 on
//! CUDA. Integers are compared bit for bit, floats on values whose sums are exact.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

use mgpu_blocks::kernels::{NT, VT};
use mgpu_runtime::Device;
use mgpu_testkit::{self as kit, Rng, Target};

const NV: usize = NT * VT;

/// The sizes every check runs at on `t`, in order (the seeds of a check's inputs follow
/// each size's position in this list).
fn sizes(t: Target) -> Vec<usize> {
    t.sizes(&[0, 1, 7, NV - 1, NV, NV + 1, 2 * NV + 5, 100_003, 4_000_037])
}

fn sort_pairs_at<D: Device>(dev: &D, n: usize, seed: u64) {
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

fn batcher_at<D: Device>(dev: &D, n: usize, seed: u64) {
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

fn seg_reduce_at<D: Device>(dev: &D, n: usize, mean_len: u64, seed: u64) {
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
        kit::bits(&mgpu_blocks::seg_reduce_plus(dev, &xf, &rows).unwrap()),
        kit::bits(&want_f),
        "f64 n={n} mean {mean_len}"
    );
}

fn permute_at<D: Device>(dev: &D, n: usize, seed: u64) {
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

/// The sources of the stable merge of `a` and `b` (A first on equal keys), as the
/// kernels' merge indices: `i` for `a[i]`, `a.len() + j` for `b[j]`.
fn merge_indices<T: PartialOrd>(a: &[T], b: &[T]) -> Vec<u32> {
    let sources = kit::merge_sources(a, b, true, |x, y| x < y);
    sources.into_iter().map(|s| s as u32).collect()
}

fn merge_values_at<D: Device>(dev: &D, na: usize, nb: usize, seed: u64) {
    let mut r = Rng::new(seed);
    let ak = kit::sorted_values::<u64>(&mut r, na, 100, false);
    let bk = kit::sorted_values::<u64>(&mut r, nb, 100, false);
    let idx = merge_indices(&ak, &bk);
    let a: Vec<i64> = (0..na as i64).map(|v| v + 1).collect();
    let b: Vec<i64> = (0..nb as i64).map(|v| -v - 1).collect();
    let ab = [&a[..], &b[..]].concat();
    let want: Vec<i64> = idx.iter().map(|&g| ab[g as usize]).collect();
    assert_eq!(
        mgpu_blocks::merge_values(dev, &a, &b, &idx).unwrap(),
        want,
        "merge na={na} nb={nb}"
    );
}

fn merge_keys_at<D: Device>(dev: &D, na: usize, nb: usize, range: u64, seed: u64) {
    let mut r = Rng::new(seed);
    let a: Vec<i32> = kit::sorted_values::<i32>(&mut r, na, range, false);
    let b: Vec<i32> = kit::sorted_values::<i32>(&mut r, nb, range, false);
    let (a, b): (Vec<i32>, Vec<i32>) = (
        a.into_iter().map(|x| x - 50).collect(),
        b.into_iter().map(|x| x - 50).collect(),
    );
    let idx = merge_indices(&a, &b);
    let ab = [&a[..], &b[..]].concat();
    let keys: Vec<i32> = idx.iter().map(|&g| ab[g as usize]).collect();
    let got = mgpu_blocks::merge_keys(dev, &a, &b).unwrap();
    assert!(
        got == (keys, idx),
        "merge_keys na={na} nb={nb} range {range}"
    );
}

/// `objects` objects with random counts below `max_count` (many empty when `zeros`);
/// checked with host partitions and with `mgpu_partition`'s device partitions against the
/// test kit's load-balancing search (seed 001's `CPULoadBalanceSearch` by definition).
fn load_balance_at<D: Device>(dev: &D, objects: usize, max_count: u64, zeros: bool, seed: u64) {
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
    let wide: Vec<u64> = scan.iter().map(|&s| s.into()).collect();
    let (objs, ranks) = kit::load_balance_search(&wide, total.into());
    let want: (Vec<u32>, Vec<u32>) = (
        objs.into_iter().map(|o| o as u32).collect(),
        ranks.into_iter().map(|r| r as u32).collect(),
    );
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
/// cap, at most as many as keep their items under it (each still of up to 3 tiles). The
/// simulator runs them too (a few hundred thousand items at most, fast there).
fn big_objects(n: usize) -> usize {
    (n / 7 + 1).min((kit::max_len() / (3 * NV / 2)).max(1))
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
fn seg_scan_at<D: Device>(dev: &D, n: usize, mean_len: u64, seed: u64) {
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

/// Pairs sorted within each thread's run of VT, split at head flags.
fn sort_pairs_in_threads<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        sort_pairs_at(dev, n, k as u64 + 1);
    }
}

/// Batcher's odd-even merge sort within each thread's run of VT.
fn batcher_in_threads<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        batcher_at(dev, n, k as u64 + 7);
    }
}

/// Segmented reduction of i32 and f64, segments of mean length 1, 2, 7 and 3000.
fn seg_reduce<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        for mean in [1, 2, 7, 3000] {
            seg_reduce_at(dev, n, mean, k as u64 * 31 + mean);
        }
    }
}

/// Gather-scatter permutations, checked and unchecked, and one bad index of each kind.
fn permute<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        permute_at(dev, n, k as u64 + 3);
    }
}

/// Merges of random keys, many equal keys, all keys equal, and one side empty.
fn merge_keys<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        let s = k as u64 * 11;
        merge_keys_at(dev, n, n / 3 + 1, 1 << 20, s + 1);
        merge_keys_at(dev, n, n, 5, s + 2); // many equal keys
        merge_keys_at(dev, n / 2, n, 1, s + 3); // all keys equal
        merge_keys_at(dev, 0, n, 100, s + 4);
        merge_keys_at(dev, n, 0, 100, s + 5);
    }
}

/// The CTA load-balancing search: small counts, runs of empty objects, objects of up to
/// three tiles, every object empty.
fn load_balance<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        let s = k as u64 * 13;
        load_balance_at(dev, n, 4, false, s + 1);
        load_balance_at(dev, n, 9, true, s + 2); // runs of empty objects
        load_balance_at(dev, big_objects(n), 3 * NV as u64, false, s + 3);
        load_balance_at(dev, n, 1, false, s + 4); // every object empty
    }
}

/// Segmented tile scans, inclusive and exclusive.
fn seg_scan<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        // 0: no flags (one segment per tile); 1: every element its own segment.
        for mean in [0, 1, 3, 50, 5000] {
            seg_scan_at(dev, n, mean, k as u64 * 17 + mean);
        }
    }
}

/// The merge-value transfer: values gathered by merge indices, one side empty.
fn merge_values<D: Device>(dev: &D, t: Target) {
    for (k, &n) in sizes(t).iter().enumerate() {
        merge_values_at(dev, n, n / 3 + 1, k as u64 + 5);
        merge_values_at(dev, 0, n, k as u64);
        merge_values_at(dev, n, 0, k as u64);
    }
}

mgpu_testkit::device_tests! {
    sort_pairs_in_threads,
    batcher_in_threads,
    seg_reduce,
    permute,
    merge_keys,
    load_balance,
    seg_scan,
    merge_values,
}
