//! Every interval launcher prepares ([`mgpu_runtime::Device::prepare`]) exactly the kernels
//! it launches, before the first, on both tuning tables: run on the simulator through
//! `mgpu_testkit::Recorder`.

use mgpu_core::Arch;
use mgpu_intervalmove::Source;
use mgpu_runtime::{DeviceVec, Simulator};
use mgpu_testkit::Recorder;

fn devices() -> [Recorder<Simulator>; 2] {
    [Arch::Sm70, Arch::Sm90].map(|a| Recorder::new(Simulator::with_arch(a)))
}

#[test]
fn expand_prepares_the_partitions_and_the_expand() {
    for dev in devices() {
        let scan = DeviceVec::from_slice(&dev, &[0u32, 1, 1]).unwrap();
        let vals = DeviceVec::from_slice(&dev, &[7i32, 8, 9]).unwrap();
        let mut out = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
        dev.take();
        mgpu_intervalmove::interval_expand(
            scan.as_slice(),
            3,
            vals.as_slice().into(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(
            dev.check_prepared("interval_expand"),
            ["intervalmove_expand_i32_u32", "partition_lbs_u32"]
        );
        mgpu_intervalmove::interval_expand_naive(
            scan.as_slice(),
            3,
            vals.as_slice().into(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(
            dev.check_prepared("interval_expand_naive"),
            ["intervalmove_naive_i32_u32"]
        );
    }
}

#[test]
fn move_gather_and_scatter_prepare_the_partitions_and_the_move() {
    for dev in devices() {
        let scan = DeviceVec::from_slice(&dev, &[0u64, 1]).unwrap();
        let gather = DeviceVec::from_slice(&dev, &[0u64, 1]).unwrap();
        let scatter = DeviceVec::from_slice(&dev, &[2u64, 0]).unwrap();
        let input = DeviceVec::from_slice(&dev, &[7.0f64, 8.0, 9.0]).unwrap();
        let mut out = DeviceVec::<f64, _>::zeros(&dev, 3).unwrap();
        dev.take();
        let both = ["intervalmove_move_f64_u64", "partition_lbs_u64"];
        mgpu_intervalmove::interval_move(
            scan.as_slice(),
            3,
            gather.as_slice(),
            scatter.as_slice(),
            input.as_slice().into(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(dev.check_prepared("interval_move"), both);
        mgpu_intervalmove::interval_gather(
            scan.as_slice(),
            3,
            gather.as_slice(),
            input.as_slice().into(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(dev.check_prepared("interval_gather"), both);
        mgpu_intervalmove::interval_scatter(
            scan.as_slice(),
            3,
            scatter.as_slice(),
            Source::counting(1.0),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(dev.check_prepared("interval_scatter"), both);
    }
}

#[test]
fn the_counts_forms_prepare_the_count_scan_too() {
    for dev in devices() {
        let counts = DeviceVec::from_slice(&dev, &[2u32, 0, 1]).unwrap();
        let vals = DeviceVec::from_slice(&dev, &[7u64, 8, 9]).unwrap();
        let mut out = DeviceVec::<u64, _>::zeros(&dev, 3).unwrap();
        dev.take();
        mgpu_intervalmove::interval_expand_counts(
            counts.as_slice(),
            vals.as_slice().into(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(
            dev.check_prepared("interval_expand_counts"),
            [
                "intervalmove_expand_u64_u32",
                "partition_lbs_u32",
                "scan_lookback_u32_plus"
            ]
        );
        let gather = DeviceVec::from_slice(&dev, &[0u32, 0, 0]).unwrap();
        let scatter = DeviceVec::from_slice(&dev, &[0u32, 2, 2]).unwrap();
        dev.take();
        mgpu_intervalmove::interval_move_counts(
            counts.as_slice(),
            gather.as_slice(),
            scatter.as_slice(),
            Source::counting(100),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(
            dev.check_prepared("interval_move_counts"),
            [
                "intervalmove_move_u64_u32",
                "partition_lbs_u32",
                "scan_lookback_u32_plus"
            ]
        );
    }
}

#[test]
fn no_intervals_prepare_nothing() {
    for dev in devices() {
        let scan = DeviceVec::<u32, _>::zeros(&dev, 0).unwrap();
        let mut out = DeviceVec::<i32, _>::zeros(&dev, 0).unwrap();
        dev.take();
        mgpu_intervalmove::interval_expand(
            scan.as_slice(),
            0,
            Source::counting(0),
            out.as_mut_slice(),
        )
        .unwrap();
        mgpu_intervalmove::interval_expand_counts(
            scan.as_slice(),
            Source::counting(0),
            out.as_mut_slice(),
        )
        .unwrap();
        assert!(dev.take().is_empty());
    }
}
