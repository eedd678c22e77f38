//! Every load-balancing search launcher prepares ([`mgpu_runtime::Device::prepare`])
//! exactly the kernels it launches, before the first, on both tuning tables: run on the
//! simulator through `mgpu_testkit::Recorder`.

use mgpu_core::Arch;
use mgpu_runtime::{DeviceVec, Simulator};
use mgpu_testkit::Recorder;

fn devices() -> [Recorder<Simulator>; 2] {
    [Arch::Sm70, Arch::Sm90].map(|a| Recorder::new(Simulator::with_arch(a)))
}

#[test]
fn searches_prepare_the_partitions_and_the_search() {
    for dev in devices() {
        let scan = DeviceVec::from_slice(&dev, &[0u32, 2, 7, 10, 10]).unwrap();
        let mut out = DeviceVec::<u32, _>::zeros(&dev, 11).unwrap();
        let mut ranks = DeviceVec::<u32, _>::zeros(&dev, 11).unwrap();
        dev.take();
        mgpu_loadbalance::load_balance_search(scan.as_slice(), 11, out.as_mut_slice()).unwrap();
        let both = ["loadbalance_search_u32", "partition_lbs_u32"];
        assert_eq!(dev.check_prepared("load_balance_search"), both);
        mgpu_loadbalance::load_balance_search_ranks(
            scan.as_slice(),
            11,
            out.as_mut_slice(),
            ranks.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(dev.check_prepared("load_balance_search_ranks"), both);
    }
}

#[test]
fn the_counts_form_prepares_the_count_scan_too() {
    for dev in devices() {
        let counts = DeviceVec::from_slice(&dev, &[2u64, 5, 3, 0, 1]).unwrap();
        dev.take();
        let (_, total) = mgpu_loadbalance::load_balance_search_counts(counts.as_slice()).unwrap();
        assert_eq!(total, 11);
        assert_eq!(
            dev.check_prepared("load_balance_search_counts"),
            [
                "loadbalance_search_u64",
                "partition_lbs_u64",
                "scan_lookback_u64_plus"
            ]
        );
    }
}

#[test]
fn no_objects_prepare_nothing() {
    for dev in devices() {
        let scan = DeviceVec::<u32, _>::zeros(&dev, 0).unwrap();
        let mut out = DeviceVec::<u32, _>::zeros(&dev, 0).unwrap();
        dev.take();
        mgpu_loadbalance::load_balance_search(scan.as_slice(), 0, out.as_mut_slice()).unwrap();
        mgpu_loadbalance::load_balance_search_counts(scan.as_slice()).unwrap();
        assert!(dev.take().is_empty());
    }
}
