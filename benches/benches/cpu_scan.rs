//! Criterion benchmarks of the CPU backend's scan and reduce (`mgpu-cpu`) against std and
//! rayon equivalents, on i32 with `Plus` at 2^20 and 2^24 elements.
//!
//! - `cpu_scan_exclusive_i32`: `mgpu_cpu::scan_exclusive` (chunk-parallel, two passes)
//!   vs a sequential loop (the single-thread baseline it has to beat).
//! - `cpu_reduce_i32`: `mgpu_cpu::reduce` vs `iter().sum()` and rayon's
//!   `par_iter().sum()` (the latter's grouping depends on the thread count, ours does not).
//!
//! Run: `cargo bench -p mgpu-benches --bench cpu_scan` (add `-- --test` for a smoke run).
//! Samples and times are kept small so the whole run takes about a minute.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use mgpu_core::Plus;
use rayon::prelude::*;

const SIZES: [usize; 2] = [1 << 20, 1 << 24];

fn input(n: usize) -> Vec<i32> {
    // Small pseudo-random values (an LCG) in [-128, 127]: the work does not depend on
    // them, and sums stay far from i32 overflow, so std's checked-in-debug `sum` is fine.
    let mut s = 0x2545_f491u32;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 24) as i32 - 128
        })
        .collect()
}

/// The sequential baseline: exclusive sum scan, returning the total.
fn std_scan_exclusive(input: &[i32], output: &mut [i32]) -> i32 {
    let mut acc = 0i32;
    for (o, &x) in output.iter_mut().zip(input) {
        *o = acc;
        acc = acc.wrapping_add(x);
    }
    acc
}

fn configure<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g
}

fn scan(c: &mut Criterion) {
    let mut g = configure(c, "cpu_scan_exclusive_i32");
    for n in SIZES {
        let x = input(n);
        let mut out = vec![0i32; n];
        assert_eq!(
            mgpu_cpu::scan_exclusive::<i32, Plus>(&x, &mut out).unwrap(),
            std_scan_exclusive(&x, &mut vec![0; n])
        );
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("mgpu_cpu", n), &x, |b, x| {
            b.iter(|| mgpu_cpu::scan_exclusive::<i32, Plus>(black_box(x), &mut out).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("std_loop", n), &x, |b, x| {
            b.iter(|| std_scan_exclusive(black_box(x), &mut out))
        });
    }
    g.finish();
}

fn reduce(c: &mut Criterion) {
    let mut g = configure(c, "cpu_reduce_i32");
    for n in SIZES {
        let x = input(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("mgpu_cpu", n), &x, |b, x| {
            b.iter(|| mgpu_cpu::reduce::<i32, Plus>(black_box(x)))
        });
        g.bench_with_input(BenchmarkId::new("std_iter_sum", n), &x, |b, x| {
            b.iter(|| black_box(x).iter().sum::<i32>())
        });
        g.bench_with_input(BenchmarkId::new("rayon_par_iter_sum", n), &x, |b, x| {
            b.iter(|| black_box(x).par_iter().sum::<i32>())
        });
    }
    g.finish();
}

criterion_group!(benches, scan, reduce);
criterion_main!(benches);
