//! Bulk remove and insert prepare ([`mgpu_runtime::Device::prepare`]) exactly the kernels
//! they launch, before the first, on both tuning tables: run on the simulator through
//! `mgpu_testkit::Recorder`.

use mgpu_bulk::Source;
use mgpu_core::Arch;
use mgpu_runtime::{DeviceVec, Simulator};
use mgpu_testkit::Recorder;

fn devices() -> [Recorder<Simulator>; 2] {
    [Arch::Sm70, Arch::Sm90].map(|a| Recorder::new(Simulator::with_arch(a)))
}

#[test]
fn remove_prepares_the_search_partitions_of_an_index_array() {
    for dev in devices() {
        let src = DeviceVec::from_slice(&dev, &(0..10).collect::<Vec<u32>>()).unwrap();
        let idx = DeviceVec::from_slice(&dev, &[1u32, 3, 4, 5, 7, 8]).unwrap();
        let mut out = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
        dev.take();
        mgpu_bulk::bulk_remove(src.as_slice(), idx.as_slice().into(), out.as_mut_slice()).unwrap();
        assert_eq!(
            dev.check_prepared("bulk_remove"),
            ["bulk_remove_u32_u32", "partition_search_u32"]
        );
        // Generated indices (0, 2, 4, 6, 8) need no partitions.
        let mut out = DeviceVec::<u32, _>::zeros(&dev, 5).unwrap();
        dev.take();
        mgpu_bulk::bulk_remove(src.as_slice(), Source::step(0u32, 2), out.as_mut_slice()).unwrap();
        assert_eq!(
            dev.check_prepared("bulk_remove (sequence)"),
            ["bulk_remove_u32_u32"]
        );
    }
}

#[test]
fn insert_prepares_the_counting_partitions() {
    for dev in devices() {
        let src = DeviceVec::from_slice(&dev, &[0i64, 1, 2, 3]).unwrap();
        let idx = DeviceVec::from_slice(&dev, &[0u64, 2, 2]).unwrap();
        let mut out = DeviceVec::<i64, _>::zeros(&dev, 7).unwrap();
        dev.take();
        mgpu_bulk::bulk_insert(
            Source::counting(100),
            idx.as_slice().into(),
            src.as_slice(),
            out.as_mut_slice(),
        )
        .unwrap();
        let both = ["bulk_insert_i64_u64", "partition_counting_u64"];
        assert_eq!(dev.check_prepared("bulk_insert"), both);
        let vals = DeviceVec::from_slice(&dev, &[7i64, 8, 9]).unwrap();
        mgpu_bulk::bulk_insert(
            vals.as_slice().into(),
            Source::step(0u64, 1),
            src.as_slice(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(dev.check_prepared("bulk_insert (sequence)"), both);
    }
}

#[test]
fn empty_calls_prepare_nothing() {
    for dev in devices() {
        let src = DeviceVec::<f32, _>::zeros(&dev, 0).unwrap();
        let idx = DeviceVec::<u32, _>::zeros(&dev, 0).unwrap();
        let mut out = DeviceVec::<f32, _>::zeros(&dev, 0).unwrap();
        dev.take();
        mgpu_bulk::bulk_remove(src.as_slice(), idx.as_slice().into(), out.as_mut_slice()).unwrap();
        mgpu_bulk::bulk_insert(
            Source::counting(0.0),
            idx.as_slice().into(),
            src.as_slice(),
            out.as_mut_slice(),
        )
        .unwrap();
        assert!(dev.take().is_empty());
    }
}
