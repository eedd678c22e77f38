//! Every scan and reduce launcher prepares ([`mgpu_runtime::Device::prepare`]) exactly the
//! kernels it launches, before the first, on both tuning tables: run on the simulator
//! through `mgpu_testkit::Recorder`.

use mgpu_core::{Arch, Maximum, Plus};
use mgpu_runtime::{DeviceVec, Simulator};
use mgpu_scan::ScanKind;
use mgpu_testkit::Recorder;

fn devices() -> [Recorder<Simulator>; 2] {
    [Arch::Sm70, Arch::Sm90].map(|a| Recorder::new(Simulator::with_arch(a)))
}

#[test]
fn integer_scans_prepare_the_lookback_kernel() {
    for dev in devices() {
        let x = DeviceVec::from_slice(&dev, &[3i32, 1, 4, 1, 5]).unwrap();
        let mut y = DeviceVec::<i32, _>::zeros(&dev, 5).unwrap();
        dev.take();
        mgpu_scan::scan_exclusive(x.as_slice(), y.as_mut_slice(), Plus).unwrap();
        assert_eq!(
            dev.check_prepared("scan_exclusive"),
            ["scan_lookback_i32_plus"]
        );
        mgpu_scan::scan_into(
            x.as_slice(),
            y.as_mut_slice(),
            ScanKind::Inclusive,
            None,
            Maximum,
        )
        .unwrap();
        assert_eq!(dev.check_prepared("scan_into"), ["scan_lookback_i32_max"]);
        let c = DeviceVec::from_slice(&dev, &[2u64, 0, 7]).unwrap();
        let mut s = DeviceVec::<u64, _>::zeros(&dev, 3).unwrap();
        dev.take();
        mgpu_scan::scan_counts_exclusive(c.as_slice(), s.as_mut_slice()).unwrap();
        assert_eq!(
            dev.check_prepared("scan_counts_exclusive"),
            ["scan_lookback_u64_plus"]
        );
    }
}

#[test]
fn float_scans_prepare_partials_spine_and_downsweep() {
    for dev in devices() {
        let mut x = DeviceVec::from_slice(&dev, &[1.5f32, 2.0, -1.0]).unwrap();
        dev.take();
        mgpu_scan::scan_inclusive_in_place(x.as_mut_slice(), Plus).unwrap();
        assert_eq!(
            dev.check_prepared("scan_inclusive_in_place"),
            [
                "scan_downsweep_f32_plus",
                "scan_partials_f32_plus",
                "scan_spine_f32_plus"
            ]
        );
    }
}

#[test]
fn reductions_prepare_the_partials_kernel() {
    for dev in devices() {
        let x = DeviceVec::from_slice(&dev, &[1.5f64, 9.0, 2.0]).unwrap();
        dev.take();
        assert_eq!(mgpu_scan::reduce(x.as_slice(), Maximum).unwrap(), 9.0);
        assert_eq!(dev.check_prepared("reduce"), ["scan_partials_f64_max"]);
        let x = DeviceVec::from_slice(&dev, &[1u32; 100]).unwrap();
        let mut out = DeviceVec::<u32, _>::zeros(&dev, 1).unwrap();
        dev.take();
        mgpu_scan::reduce_into(x.as_slice(), out.as_mut_slice(), Plus).unwrap();
        assert_eq!(
            dev.check_prepared("reduce_into"),
            ["scan_partials_u32_plus"]
        );
    }
}

#[test]
fn empty_inputs_prepare_nothing() {
    for dev in devices() {
        let x = DeviceVec::<i64, _>::zeros(&dev, 0).unwrap();
        let mut y = DeviceVec::<i64, _>::zeros(&dev, 0).unwrap();
        dev.take();
        mgpu_scan::scan_exclusive(x.as_slice(), y.as_mut_slice(), Plus).unwrap();
        mgpu_scan::reduce(x.as_slice(), Plus).unwrap();
        assert!(dev.take().is_empty());
    }
}

#[test]
fn scan_kernels_names_the_sets_of_each_architecture() {
    for arch in [Arch::Sm70, Arch::Sm90] {
        let int = mgpu_scan::scan_kernels::<u32, Plus>(arch);
        assert_eq!(int.len(), 1);
        assert_eq!(int[0].module, "scan");
        let float = mgpu_scan::scan_kernels::<f32, Maximum>(arch);
        assert_eq!(float.len(), 3);
        assert!(float.iter().all(|k| k.entry.ends_with("_f32_max")));
    }
}
