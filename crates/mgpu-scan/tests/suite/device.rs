//! What only `mgpu-scan`'s own launchers show, on the simulators and CUDA: unaligned
//! slices and output lengths; and on CUDA only, scans of cudarc's buffers, a device fault
//! reported as `ContextLost`, the sm_70 PTX and tuning on a newer GPU.

use crate::common::fold;
use mgpu_core::Plus;
use mgpu_runtime::{Context, Device, DeviceVec, Error};
use mgpu_scan::ScanKind;
use mgpu_testkit::Target;

/// An output or a temporary of the wrong length is an error.
fn length_mismatch_is_an_error<D: Device>(dev: &D, _: Target) {
    let x = DeviceVec::from_slice(dev, &[1i32, 2, 3]).unwrap();
    let mut y = DeviceVec::<i32, _>::zeros(dev, 2).unwrap();
    assert_eq!(
        mgpu_scan::scan_exclusive(x.as_slice(), y.as_mut_slice(), Plus).unwrap_err(),
        mgpu_runtime::Error::LengthMismatch {
            what: "output",
            expected: 3,
            got: 2
        }
    );
    let mut t = DeviceVec::<i32, _>::zeros(dev, 2).unwrap();
    let mut y = DeviceVec::<i32, _>::zeros(dev, 3).unwrap();
    assert!(mgpu_scan::scan_into(
        x.as_slice(),
        y.as_mut_slice(),
        ScanKind::Exclusive,
        Some(t.as_mut_slice()),
        Plus
    )
    .is_err());
}

/// Slices at odd offsets are not 16-byte aligned: the reduction reads them as scalars.
fn unaligned_slices_take_the_scalar_path<D: Device>(dev: &D, _: Target) {
    let x: Vec<i32> = (0..20_000).map(|i| (i * 7919 % 1000) - 500).collect();
    let d = DeviceVec::from_slice(dev, &x).unwrap();
    for (lo, hi) in [(1, 20_000), (3, 7_683), (5, 6), (2, 3842)] {
        let want: i32 = x[lo..hi].iter().fold(0i32, |a, &b| a.wrapping_add(b));
        let got = mgpu_scan::reduce(d.slice(lo..hi).unwrap(), Plus).unwrap();
        assert_eq!(got, want, "reduce of {lo}..{hi}");
        let (_, scan, _) = fold::<i32, Plus>(&x[lo..hi]);
        let mut y = DeviceVec::<i32, _>::zeros(dev, hi - lo).unwrap();
        let total =
            mgpu_scan::scan_inclusive(d.slice(lo..hi).unwrap(), y.as_mut_slice(), Plus).unwrap();
        assert_eq!(total, want);
        assert!(y.to_vec().unwrap() == scan, "scan of {lo}..{hi}");
        // An aligned input into an unaligned output.
        let mut z = DeviceVec::<i32, _>::zeros(dev, hi - lo + lo).unwrap();
        let aligned = d.slice(0..hi - lo).unwrap();
        let (scan, _, total) = fold::<i32, Plus>(&x[..hi - lo]);
        let got = mgpu_scan::scan_exclusive(aligned, z.slice_mut(lo..hi).unwrap(), Plus).unwrap();
        assert_eq!(got, total);
        assert!(
            z.to_vec().unwrap()[lo..] == scan[..],
            "scan into {lo}..{hi}"
        );
    }
    // f64 slices at odd offsets (8-byte but not 16-byte aligned) take the ordered scan's
    // scalar path; the values are small integers, so every order gives the same bits.
    let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let df = DeviceVec::from_slice(dev, &xf).unwrap();
    for (lo, hi) in [(1, 20_000), (3, 1795), (5, 6)] {
        let (_, inclusive, total) = fold::<f64, Plus>(&xf[lo..hi]);
        let mut y = DeviceVec::<f64, _>::zeros(dev, hi - lo).unwrap();
        let got = mgpu_scan::scan_inclusive(df.slice(lo..hi).unwrap(), y.as_mut_slice(), Plus);
        assert_eq!(got.unwrap(), total);
        assert!(y.to_vec().unwrap() == inclusive, "f64 scan of {lo}..{hi}");
        // An aligned input (from an even offset) into an unaligned output.
        let mut z = DeviceVec::<f64, _>::zeros(dev, hi).unwrap();
        let aligned = df.slice(lo - 1..hi - 1).unwrap();
        let (exclusive, _, total) = fold::<f64, Plus>(&xf[lo - 1..hi - 1]);
        let got = mgpu_scan::scan_exclusive(aligned, z.slice_mut(lo..hi).unwrap(), Plus);
        assert_eq!(got.unwrap(), total);
        assert!(
            z.to_vec().unwrap()[lo..] == exclusive[..],
            "f64 scan into {lo}..{hi}"
        );
    }
    // Aligned slices of lengths that leave a tail past the last 16-byte vector.
    for hi in [4, 5, 7, 3841, 3843, 19_999] {
        let want: i32 = x[..hi].iter().fold(0i32, |a, &b| a.wrapping_add(b));
        assert_eq!(
            mgpu_scan::reduce(d.slice(0..hi).unwrap(), Plus).unwrap(),
            want,
            "reduce of 0..{hi}"
        );
        let wantf: f64 = x[4..hi.max(4)].iter().map(|&v| v as f64).sum();
        let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let df = DeviceVec::from_slice(dev, &xf).unwrap();
        assert_eq!(
            mgpu_scan::reduce(df.slice(4..hi.max(4)).unwrap(), Plus).unwrap(),
            wantf
        );
    }
}

mgpu_testkit::device_tests! {
    unaligned_slices_take_the_scalar_path,
    length_mismatch_is_an_error,
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scan_on_cudarc_buffers() {
    // Interop: mgpu scans memory cudarc owns, in place and out of place, with no copy.
    let c = Target::cuda();
    let host: Vec<u32> = (0..mgpu_testkit::cap(100_000) as u32)
        .map(|i| i % 7)
        .collect();
    let input = c.stream().clone_htod(&host).unwrap();
    let mut output = c.stream().alloc_zeros::<u32>(host.len()).unwrap();
    let total =
        mgpu_scan::scan_exclusive(c.borrow_cuda(&input), c.borrow_cuda_mut(&mut output), Plus)
            .unwrap();
    let (exclusive, inclusive, want_total) = fold::<u32, Plus>(&host);
    assert_eq!(total, want_total);
    assert_eq!(c.stream().clone_dtoh(&output).unwrap(), exclusive);
    let mut inplace = c.stream().clone_htod(&host).unwrap();
    mgpu_scan::scan_inclusive_in_place(c.borrow_cuda_mut(&mut inplace), Plus).unwrap();
    assert_eq!(c.stream().clone_dtoh(&inplace).unwrap(), inclusive);
}

/// The child half of `gpu_fault_is_context_lost`: a scan that reads an invalid address.
fn fault_child() {
    let c = Target::cuda();
    let n = 1 << 20;
    // SAFETY (deliberately broken): address 16 is not device memory; the kernel faults.
    let bad = unsafe { mgpu_runtime::DeviceSlice::<u32, _>::from_raw(&c, 16, n) };
    let mut out = DeviceVec::<u32, _>::zeros(&c, n).unwrap();
    let r = mgpu_scan::scan_into(bad, out.as_mut_slice(), ScanKind::Exclusive, None, Plus)
        .and_then(|_| c.synchronize());
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

/// A device fault poisons the process's CUDA context, so it runs in a child process (the
/// bundle skips this test under memcheck by its name, `FAULTS_ON_PURPOSE`).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_fault_is_context_lost() {
    if std::env::var_os("MGPU_FAULT_CHILD").is_some() {
        fault_child();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "device::gpu_fault_is_context_lost",
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

/// The sm_70 PTX and its tuning table, JIT-compiled for this (newer) GPU: the backend
/// suite's checks at sm_70's tile edges.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sm70_ptx_and_tuning() {
    let c: Context = Target::cuda().with_arch(mgpu_runtime::Arch::Sm70).unwrap();
    crate::backend::sm70_subset(&mgpu::Backend::from(c));
}
