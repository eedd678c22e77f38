//! GPU cross-checks of the bulk family: GPU == `mgpu_cpu::bulk` bit for bit for bulk
//! remove (a random half, all, none) and bulk insert (n/2 values at sorted random
//! positions, a million values at one position: before the first element, in the middle,
//! after the end), up to 10^8 source elements, sizes around the tile, every element type
//! with u32 and u64 indices, generated values and indices, and every bad-input error
//! (the context stays usable after each). Prints each size and the synchronised GPU time
//! (after a warm-up that JIT-loads the module). Ignored without a GPU: run with
//! `cargo xtask test-gpu`, or the bundle's `run.sh`.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

use mgpu_bulk::device::Sequence;
use mgpu_bulk::{self as bulk, BulkData, BulkElement, BulkIndex, Source};
use mgpu_core::{Element, Index};
use mgpu_runtime::{Context, Device, DeviceVec, Error};
use mgpu_testkit::Rng;
use std::time::Instant;

fn ctx() -> Context {
    Context::new(0).expect("needs a CUDA GPU")
}

/// Remove tile of the sm_90 tuning (NT * VT).
const NV: usize = mgpu_bulk::kernels::tuning::REMOVE.sm90.nv(4);
/// Insert tile of the sm_90 tuning.
const NV_INSERT: usize = mgpu_bulk::kernels::tuning::INSERT.sm90.nv(4);

fn timed(dev: &Context, what: &str, n: usize, mut f: impl FnMut()) {
    f();
    dev.synchronize().unwrap();
    let t = Instant::now();
    f();
    dev.synchronize().unwrap();
    println!(
        "{what:<40} n = {n:>11}  {:>10.1} us",
        t.elapsed().as_secs_f64() * 1e6
    );
}

/// `n`, or at most a `parts`-th of the sanitizer cap: for one of `parts` pieces of an input
/// that must fit under the cap together. `n` itself without a cap.
fn cap_share(n: usize, parts: usize) -> usize {
    n.min(mgpu_testkit::max_len() / parts)
}

fn bits<T: Element>(v: &[T]) -> Vec<[u32; 2]> {
    v.iter().map(|x| x.to_words()).collect()
}

fn data<T: BulkData>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = Rng::new(seed);
    let (first, step) = (
        <T as Sequence>::sequence(T::ZERO, T::ONE, rng.below(1000)),
        T::ONE,
    );
    (0..n as u64)
        .map(|i| <T as Sequence>::sequence(first, step, i))
        .collect()
}

/// Each position removed with probability `p_percent / 100`.
fn remove_indices<I: BulkIndex>(n: usize, p_percent: u64, seed: u64) -> Vec<I> {
    let mut rng = Rng::new(seed);
    (0..n as u64)
        .filter(|_| rng.below(100) < p_percent)
        .map(<I as Index>::from_u64_wrapping)
        .collect()
}

/// `m` sorted random positions in `[0, n]` (duplicates allowed).
fn insert_indices<I: BulkIndex>(n: usize, m: usize, seed: u64) -> Vec<I> {
    let mut rng = Rng::new(seed);
    let mut v: Vec<u64> = (0..m).map(|_| rng.below(n as u64 + 1)).collect();
    v.sort_unstable();
    v.into_iter().map(<I as Index>::from_u64_wrapping).collect()
}

fn check_remove<T, I>(dev: &Context, name: &str, source: &[T], indices: &[I])
where
    T: BulkData + BulkElement<I>,
    I: BulkIndex,
{
    let n = source.len();
    let mut want = vec![T::ZERO; n - indices.len()];
    mgpu_cpu::bulk_remove(source, indices, &mut want).unwrap();
    let s = DeviceVec::from_slice(dev, source).unwrap();
    let i = DeviceVec::from_slice(dev, indices).unwrap();
    let mut o = DeviceVec::<T, _>::zeros(dev, want.len()).unwrap();
    timed(dev, name, n, || {
        bulk::bulk_remove_into(s.as_slice(), i.as_slice().into(), o.as_mut_slice())
            .unwrap()
            .wait()
            .unwrap()
    });
    assert_eq!(bits(&o.to_vec().unwrap()), bits(&want), "{name} n = {n}");
}

fn check_insert<T, I>(dev: &Context, name: &str, values: &[T], indices: &[I], source: &[T])
where
    T: BulkData + BulkElement<I>,
    I: BulkIndex,
{
    let n = source.len();
    let mut want = vec![T::ZERO; n + values.len()];
    mgpu_cpu::bulk_insert(values, indices, source, &mut want).unwrap();
    let s = DeviceVec::from_slice(dev, source).unwrap();
    let i = DeviceVec::from_slice(dev, indices).unwrap();
    let v = DeviceVec::from_slice(dev, values).unwrap();
    let mut o = DeviceVec::<T, _>::zeros(dev, want.len()).unwrap();
    timed(dev, name, n, || {
        bulk::bulk_insert_into(
            v.as_slice().into(),
            i.as_slice().into(),
            s.as_slice(),
            o.as_mut_slice(),
        )
        .unwrap()
        .wait()
        .unwrap()
    });
    assert_eq!(bits(&o.to_vec().unwrap()), bits(&want), "{name} n = {n}");
}

/// Sizes around either kernel's tiles, then large ones (sorted, without repeats; those
/// above the sanitizer cap dropped).
fn sizes() -> Vec<usize> {
    let mut v = vec![
        0,
        1,
        NV - 1,
        NV,
        NV + 1,
        3 * NV,
        NV_INSERT - 1,
        NV_INSERT + 1,
        3 * NV_INSERT,
        1_000_003,
        10_000_000,
        100_000_000,
    ];
    v.sort_unstable();
    v.dedup();
    mgpu_testkit::sizes(&v)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_remove_matches_cpu_i32_u32() {
    let dev = ctx();
    for n in sizes() {
        let source = data::<i32>(n, n as u64);
        check_remove(
            &dev,
            "remove half i32 u32",
            &source,
            &remove_indices::<u32>(n, 50, 3),
        );
        if n <= 10_000_000 {
            check_remove(
                &dev,
                "remove all i32 u32",
                &source,
                &remove_indices::<u32>(n, 100, 4),
            );
            check_remove(
                &dev,
                "remove none i32 u32",
                &source,
                &remove_indices::<u32>(n, 0, 5),
            );
            check_remove(
                &dev,
                "remove 1% i32 u32",
                &source,
                &remove_indices::<u32>(n, 1, 6),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_insert_matches_cpu_i32_u32() {
    let dev = ctx();
    for n in sizes() {
        let source = data::<i32>(n, n as u64);
        let m = n / 2;
        let values = data::<i32>(m, 77);
        check_insert(
            &dev,
            "insert n/2 i32 u32",
            &values,
            &insert_indices::<u32>(n, m, 9),
            &source,
        );
        if n <= 10_000_000 {
            let m = 2 * n + 5;
            let values = data::<i32>(m, 78);
            check_insert(
                &dev,
                "insert 2n+5 i32 u32",
                &values,
                &insert_indices::<u32>(n, m, 10),
                &source,
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_insert_a_million_at_one_position() {
    let dev = ctx();
    // 10^6 values into 10^7 (under the sanitizer cap, half of it each: still many tiles of
    // values at one position).
    let n = cap_share(10_000_000, 2);
    let source = data::<i64>(n, 1);
    let m = cap_share(1_000_000, 2);
    let values = data::<i64>(m, 2);
    for at in [0u64, 1, n as u64 / 2, n as u64 - 1, n as u64] {
        let indices = vec![at; m];
        check_insert(
            &dev,
            &format!("insert 10^6 at {at} i64 u64"),
            &values,
            &indices,
            &source,
        );
        // The same with generated values and indices (step 0).
        let mut want = vec![0i64; n + m];
        let vals: Vec<i64> = (0..m as i64).map(|k| 5 - 3 * k).collect();
        mgpu_cpu::bulk_insert(&vals, &indices, &source, &mut want).unwrap();
        let s = DeviceVec::from_slice(&dev, &source).unwrap();
        let mut o = DeviceVec::<i64, _>::zeros(&dev, n + m).unwrap();
        bulk::bulk_insert(
            Source::step(5, -3),
            Source::<u64, _>::step(at, 0),
            s.as_slice(),
            o.as_mut_slice(),
        )
        .unwrap();
        assert_eq!(o.to_vec().unwrap(), want, "generated, at {at}");
    }
}

fn every_type<T, I>(dev: &Context)
where
    T: BulkData + BulkElement<I>,
    I: BulkIndex,
{
    for n in mgpu_testkit::sizes(&[NV + 3, 1_000_003]) {
        let source = data::<T>(n, 11);
        let name = format!("{} {}", T::NAME, std::any::type_name::<I>());
        check_remove(
            dev,
            &format!("remove half {name}"),
            &source,
            &remove_indices::<I>(n, 50, 12),
        );
        let values = data::<T>(n / 2, 13);
        check_insert(
            dev,
            &format!("insert n/2 {name}"),
            &values,
            &insert_indices::<I>(n, n / 2, 14),
            &source,
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_every_type() {
    let dev = ctx();
    every_type::<i32, u32>(&dev);
    every_type::<u32, u32>(&dev);
    every_type::<i64, u32>(&dev);
    every_type::<u64, u32>(&dev);
    every_type::<f32, u32>(&dev);
    every_type::<f64, u32>(&dev);
    every_type::<i32, u64>(&dev);
    every_type::<u32, u64>(&dev);
    every_type::<i64, u64>(&dev);
    every_type::<u64, u64>(&dev);
    every_type::<f32, u64>(&dev);
    every_type::<f64, u64>(&dev);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_generated_sequences() {
    let dev = ctx();
    // 10^7 (the cap in sanitizer runs).
    let n = mgpu_testkit::cap(10_000_000);
    let source = data::<f32>(n, 21);
    let s = DeviceVec::from_slice(&dev, &source).unwrap();
    // Remove every 3rd element from 1.
    let m = (n - 1).div_ceil(3);
    let idx: Vec<u32> = (0..m as u32).map(|k| 1 + 3 * k).collect();
    let mut want = vec![0f32; n - m];
    mgpu_cpu::bulk_remove(&source, &idx, &mut want).unwrap();
    let mut o = DeviceVec::<f32, _>::zeros(&dev, n - m).unwrap();
    bulk::bulk_remove(s.as_slice(), Source::step(1u32, 3), o.as_mut_slice()).unwrap();
    assert_eq!(bits(&o.to_vec().unwrap()), bits(&want));
    // The seed's insert demonstration, scaled: values 1000 + 10 k before 2 + 5 k.
    let m = (n - 2).div_ceil(5);
    let idx: Vec<u32> = (0..m as u32).map(|k| 2 + 5 * k).collect();
    let vals: Vec<f32> = (0..m).map(|k| 1000.0 + 10.0 * k as f32).collect();
    let mut want = vec![0f32; n + m];
    mgpu_cpu::bulk_insert(&vals, &idx, &source, &mut want).unwrap();
    let mut o = DeviceVec::<f32, _>::zeros(&dev, n + m).unwrap();
    bulk::bulk_insert(
        Source::step(1000.0, 10.0),
        Source::step(2u32, 5),
        s.as_slice(),
        o.as_mut_slice(),
    )
    .unwrap();
    assert_eq!(bits(&o.to_vec().unwrap()), bits(&want));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_bad_input_errors() {
    let dev = ctx();
    // 10^6 (the cap in sanitizer runs).
    let n = mgpu_testkit::cap(1_000_000);
    let source = data::<i32>(n, 31);
    let s = DeviceVec::from_slice(&dev, &source).unwrap();
    let remove = |idx: &[u32]| {
        let i = DeviceVec::from_slice(&dev, idx).unwrap();
        let mut o = DeviceVec::<i32, _>::zeros(&dev, n - idx.len()).unwrap();
        bulk::bulk_remove(s.as_slice(), i.as_slice().into(), o.as_mut_slice())
    };
    let insert = |idx: &[u32]| {
        let i = DeviceVec::from_slice(&dev, idx).unwrap();
        let mut o = DeviceVec::<i32, _>::zeros(&dev, n + idx.len()).unwrap();
        bulk::bulk_insert(
            Source::counting(0),
            i.as_slice().into(),
            s.as_slice(),
            o.as_mut_slice(),
        )
    };
    let msg = |r: Result<(), Error>| r.unwrap_err().to_string();
    let mut half: Vec<u32> = remove_indices::<u32>(n, 50, 32);
    half.swap(1000, 1001);
    assert!(msg(remove(&half)).contains("not sorted and unique"));
    let mut dup: Vec<u32> = remove_indices::<u32>(n, 50, 33);
    dup[5000] = dup[5001];
    assert!(msg(remove(&dup)).contains("not sorted and unique"));
    let mut past: Vec<u32> = remove_indices::<u32>(n, 50, 34);
    *past.last_mut().unwrap() = u32::MAX;
    assert!(msg(remove(&past)).contains("out of range"));
    // Garbage: random indices, unsorted and out of range.
    let mut rng = Rng::new(35);
    let garbage: Vec<u32> = (0..n / 2).map(|_| rng.next_u64() as u32).collect();
    assert!(matches!(remove(&garbage), Err(Error::InvalidInput(_))));
    assert!(matches!(insert(&garbage), Err(Error::InvalidInput(_))));
    let mut ins: Vec<u32> = insert_indices::<u32>(n, n / 2, 36);
    ins.swap(100, n / 5);
    assert!(msg(insert(&ins)).contains("not sorted"));
    let mut ins: Vec<u32> = insert_indices::<u32>(n, n / 2, 37);
    *ins.last_mut().unwrap() = n as u32 + 1;
    assert!(msg(insert(&ins)).contains("past the source length"));
    // The context is still usable: a valid call gives the CPU's result.
    check_remove(
        &dev,
        "remove after errors",
        &source,
        &remove_indices::<u32>(n, 50, 38),
    );
    // Error words come from the pool unzeroed (the partitions' kernel clears them): a
    // failed call's bits must not reach the valid call after it, which reuses the word.
    for _ in 0..3 {
        assert!(remove(&half).is_err());
        assert!(remove(&remove_indices::<u32>(n, 50, 39)).is_ok());
        assert!(insert(&ins).is_err());
        assert!(insert(&insert_indices::<u32>(n, n / 2, 40)).is_ok());
    }
}
