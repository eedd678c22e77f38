//! GPU cross-checks of scan and reduce: every element type and operator against a host
//! fold, bit for bit for integers; exactly representable float inputs (so any association
//! order gives the same bits) plus arbitrary floats within a stated tolerance; sizes from 0
//! to 10^8. Ignored without a GPU: run with `cargo xtask test-gpu` or the bundle's `run.sh`.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

mod common;
use common::reference;
use mgpu_core::{BitAnd, BitOr, BitXor, Element, Maximum, Minimum, Multiplies, Plus};
use mgpu_runtime::{Context, DeviceVec, Error};
use mgpu_scan::{ScanKind, ScanOp};
use mgpu_testkit::Rng;

fn ctx() -> Context {
    Context::new(0).expect("needs a CUDA GPU")
}

const SIZES: &[usize] = &[
    0,
    1,
    2,
    1791,
    1792,
    1793,
    3839,
    3840,
    3841,
    100_000,
    1 << 20,
    3_000_017,
];

/// The sizes of `all` under the sanitizer cap (`mgpu_testkit::sizes`: all of them without
/// one); where the cap drops every one, the cap itself, so that the test still checks a
/// size of many tiles rather than nothing.
fn sizes_or_cap(all: &[usize]) -> Vec<usize> {
    let kept = mgpu_testkit::sizes(all);
    match all.iter().max() {
        Some(&max) if kept.is_empty() => vec![mgpu_testkit::cap(max)],
        _ => kept,
    }
}

fn check<T: Element, Op: ScanOp<T>>(ctx: &Context, sizes: &[usize], gen: impl Fn(&mut Rng) -> T) {
    for &n in sizes {
        let mut rng = Rng::new(n as u64 ^ 0xABCD);
        let x: Vec<T> = (0..n).map(|_| gen(&mut rng)).collect();
        let dx = DeviceVec::from_slice(ctx, &x).unwrap();
        let mut dy = DeviceVec::<T, _>::zeros(ctx, n).unwrap();
        for kind in [ScanKind::Exclusive, ScanKind::Inclusive] {
            let (want, want_total) = reference::<T, Op>(&x, kind);
            let total = match kind {
                ScanKind::Exclusive => {
                    mgpu_scan::scan_exclusive(dx.as_slice(), dy.as_mut_slice(), Op::default())
                }
                ScanKind::Inclusive => {
                    mgpu_scan::scan_inclusive(dx.as_slice(), dy.as_mut_slice(), Op::default())
                }
            }
            .unwrap();
            let got = dy.to_vec().unwrap();
            let ctx_s = format!("{} {} n={n} {kind:?}", T::NAME, Op::NAME);
            if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                panic!(
                    "{ctx_s}: first mismatch at {i}: {:?} vs {:?}",
                    got[i], want[i]
                );
            }
            assert_eq!(total, want_total, "total {ctx_s}");
        }
        let r = mgpu_scan::reduce(dx.as_slice(), Op::default()).unwrap();
        assert_eq!(
            r,
            reference::<T, Op>(&x, ScanKind::Exclusive).1,
            "reduce {} {} n={n}",
            T::NAME,
            Op::NAME
        );
    }
}

macro_rules! int_gpu_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        #[ignore = "needs a CUDA GPU"]
        fn $name() {
            let c = ctx();
            let sizes = &mgpu_testkit::sizes(SIZES);
            check::<$t, Plus>(&c, sizes, |r| r.next_u64() as $t);
            check::<$t, Multiplies>(&c, sizes, |r| (r.next_u64() | 1) as $t);
            check::<$t, Maximum>(&c, sizes, |r| r.next_u64() as $t);
            check::<$t, Minimum>(&c, sizes, |r| r.next_u64() as $t);
            check::<$t, BitAnd>(&c, sizes, |r| !((r.below(2) == 0) as $t).wrapping_shl(r.below(64) as u32));
            check::<$t, BitOr>(&c, sizes, |r| ((r.below(4096) == 0) as $t).wrapping_shl(r.below(64) as u32));
            check::<$t, BitXor>(&c, sizes, |r| r.next_u64() as $t);
        }
    )*};
}

int_gpu_tests!(gpu_all_ops_i32: i32, gpu_all_ops_u32: u32, gpu_all_ops_i64: i64, gpu_all_ops_u64: u64);

macro_rules! float_gpu_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        #[ignore = "needs a CUDA GPU"]
        fn $name() {
            let c = ctx();
            let sizes = &mgpu_testkit::sizes(SIZES);
            check::<$t, Plus>(&c, sizes, |r| r.below(33) as $t - 16.0);
            check::<$t, Multiplies>(&c, sizes, |r| match r.below(4096) { 0 => 2.0, 1 => 0.5, k if k < 2048 => -1.0, _ => 1.0 });
            check::<$t, Maximum>(&c, sizes, |r| (r.next_u64() >> 11) as $t * if r.below(2) == 0 { 1.0 } else { -1.0 });
            check::<$t, Minimum>(&c, sizes, |r| (r.next_u64() >> 11) as $t * if r.below(2) == 0 { 1.0 } else { -1.0 });
        }
    )*};
}

float_gpu_tests!(gpu_all_ops_f32: f32, gpu_all_ops_f64: f64);

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_i32_scan_and_reduce_to_10e8() {
    let c = ctx();
    // Under the sanitizer cap: the cap itself (many tiles), not nothing.
    check::<i32, Plus>(&c, &sizes_or_cap(&[100_000_000, (1 << 27) + 5]), |r| {
        r.below(16) as i32
    });
    check::<u64, Maximum>(&c, &sizes_or_cap(&[30_000_001]), |r| r.next_u64());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_float_sums_deterministic_within_tolerance() {
    let c = ctx();
    // 10^7 (many CTAs' worth of tiles); the cap in sanitizer runs.
    let n = mgpu_testkit::cap(10_000_000);
    let mut rng = Rng::new(7);
    let x: Vec<f64> = (0..n).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
    let dx = DeviceVec::from_slice(&c, &x).unwrap();
    let mut dy = DeviceVec::<f64, _>::zeros(&c, n).unwrap();
    let t1 = mgpu_scan::scan_inclusive(dx.as_slice(), dy.as_mut_slice(), Plus).unwrap();
    let y = dy.to_vec().unwrap();
    // Tolerance: 1e-12 of the running sum of magnitudes (f64, 10^7 terms).
    let (mut acc, mut mag) = (0f64, 0f64);
    for i in 0..n {
        acc += x[i];
        mag += x[i].abs();
        assert!(
            (y[i] - acc).abs() <= 1e-12 * mag.max(1.0),
            "at {i}: {} vs {acc}",
            y[i]
        );
    }
    assert_eq!(t1.to_bits(), y[n - 1].to_bits());
    for _ in 0..3 {
        let t2 = mgpu_scan::scan_inclusive(dx.as_slice(), dy.as_mut_slice(), Plus).unwrap();
        assert_eq!(t1.to_bits(), t2.to_bits(), "same bits every run");
        assert!(dy
            .to_vec()
            .unwrap()
            .iter()
            .zip(&y)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        let r1 = mgpu_scan::reduce(dx.as_slice(), Plus).unwrap();
        let r2 = mgpu_scan::reduce(dx.as_slice(), Plus).unwrap();
        assert_eq!(r1.to_bits(), r2.to_bits());
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_count_scan_overflow() {
    let c = ctx();
    // 5 * 10^6 counts, the huge one at 4 * 10^6 (tiles past the first); fewer, the huge one
    // at the same fraction, under the sanitizer cap.
    let n = mgpu_testkit::cap(5_000_000);
    let mut counts = vec![3u32; n];
    counts[n / 5 * 4] = u32::MAX - 1000;
    let d = DeviceVec::from_slice(&c, &counts).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&c, counts.len()).unwrap();
    assert_eq!(
        mgpu_scan::scan_counts_exclusive(d.as_slice(), out.as_mut_slice()).unwrap_err(),
        Error::IndexOverflow {
            what: "scan total",
            max: u32::MAX as u64
        }
    );
    // The context is still usable, and a fitting total is returned.
    let m = mgpu_testkit::cap(1_000_000);
    let ok = vec![7u32; m];
    let mut d = DeviceVec::from_slice(&c, &ok).unwrap();
    assert_eq!(
        mgpu_scan::scan_counts_exclusive_in_place(d.as_mut_slice()).unwrap(),
        7 * m as u32
    );
    assert_eq!(d.to_vec().unwrap()[m - 1], 7 * (m as u32 - 1));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scan_on_cudarc_buffers() {
    // Interop: mgpu scans memory cudarc owns, in place and out of place, with no copy.
    let c = ctx();
    let host: Vec<u32> = (0..mgpu_testkit::cap(100_000) as u32)
        .map(|i| i % 7)
        .collect();
    let input = c.stream().clone_htod(&host).unwrap();
    let mut output = c.stream().alloc_zeros::<u32>(host.len()).unwrap();
    let total =
        mgpu_scan::scan_exclusive(c.borrow_cuda(&input), c.borrow_cuda_mut(&mut output), Plus)
            .unwrap();
    let (want, want_total) = reference::<u32, Plus>(&host, ScanKind::Exclusive);
    assert_eq!(total, want_total);
    assert_eq!(c.stream().clone_dtoh(&output).unwrap(), want);
    let mut inplace = c.stream().clone_htod(&host).unwrap();
    mgpu_scan::scan_inclusive_in_place(c.borrow_cuda_mut(&mut inplace), Plus).unwrap();
    assert_eq!(
        c.stream().clone_dtoh(&inplace).unwrap(),
        reference::<u32, Plus>(&host, ScanKind::Inclusive).0
    );
}

/// The child half of `gpu_fault_is_context_lost`: a scan that reads an invalid address.
fn fault_child() {
    let c = ctx();
    let n = 1 << 20;
    // SAFETY (deliberately broken): address 16 is not device memory; the kernel faults.
    let bad = unsafe { mgpu_runtime::DeviceSlice::<u32, _>::from_raw(&c, 16, n) };
    let mut out = DeviceVec::<u32, _>::zeros(&c, n).unwrap();
    let r = mgpu_scan::scan_into(bad, out.as_mut_slice(), ScanKind::Exclusive, None, Plus)
        .and_then(|_| mgpu_runtime::Device::synchronize(&c));
    assert!(
        matches!(r, Err(Error::ContextLost(_))),
        "fault reported as {r:?}"
    );
    // Every later call on the context says so too.
    assert!(matches!(
        DeviceVec::<u32, _>::zeros(&c, 4),
        Err(Error::ContextLost(_))
    ));
    assert!(matches!(
        mgpu_scan::reduce(out.as_slice(), Plus),
        Err(Error::ContextLost(_))
    ));
    println!("mgpu: context lost as expected");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_fault_is_context_lost() {
    // A device fault poisons the process's CUDA context, so it runs in a child process.
    if std::env::var_os("MGPU_FAULT_CHILD").is_some() {
        fault_child();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "gpu_fault_is_context_lost",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("MGPU_FAULT_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("mgpu: context lost as expected"),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sm70_ptx_and_tuning() {
    // The sm_70 PTX and its tuning table, JIT-compiled for this (newer) GPU.
    let c = ctx().with_arch(mgpu_runtime::Arch::Sm70).unwrap();
    let sizes =
        &mgpu_testkit::sizes(&[0, 1, 1279, 1280, 1281, 2815, 2816, 2817, 1 << 20, 3_000_017]);
    check::<u32, Plus>(&c, sizes, |r| r.next_u64() as u32);
    check::<i64, Maximum>(&c, sizes, |r| r.next_u64() as i64);
    check::<u64, BitXor>(&c, sizes, |r| r.next_u64());
    check::<f32, Plus>(&c, sizes, |r| r.below(33) as f32 - 16.0);
    check::<f64, Minimum>(&c, sizes, |r| (r.next_u64() >> 11) as f64);
}
