//! What only `mgpu-segreduce`'s own launchers show, on the simulators and CUDA: bad CSRs
//! write nothing outside the output, output lengths, the queued form; reduce-by-key's
//! outputs too small, count on the device and plan; and the spine across several chunks
//! of tiles, with small tiles on the simulator.

use core::mem::size_of;
use mgpu_core::{sim, AssociativeOp, BinaryOp, Mat2Mul, Plus};
use mgpu_runtime::{Device, DeviceVec, Error};
use mgpu_segreduce::device::{
    seg_reduce_tiles, spine, spine_shared_bytes, tiles_shared_bytes, SegReduceArgs,
};
use mgpu_segreduce::{seg_reduce_csr, seg_reduce_csr_into, SegReducePlan};
use mgpu_testkit::{self as kit, expect_invalid, Guarded, Rng, Target};

/// Bad CSRs (small ones, and a million segments within the budget with the fault 5/6 of
/// the way in): `InvalidInput`, nothing written outside the output, the device usable.
fn bad_csr_writes_nothing_outside<D: Device>(dev: &D, t: Target) {
    let n = t.cap(1_000_000);
    let data: Vec<i32> = (0..n as i32).collect();
    let good: Vec<u32> = (0..n as u32).collect();
    let with = |at: usize, v: u32| {
        let mut s = good.clone();
        s[at] = v;
        s
    };
    let cases: Vec<(Vec<u32>, &str)> = vec![
        (vec![1, 2, 3], "does not start at 0"),
        (vec![0, 5, 3, 8], "not non-decreasing"),
        (vec![0, 2, 7, 10, u32::MAX], "past the total"),
        (with(n / 6 * 5, 3), "not non-decreasing"),
        (with(n - 1, n as u32 + 1), "past the total"),
        ((0..n as u32).rev().collect(), "does not start at 0"),
    ];
    let d = DeviceVec::from_slice(dev, &data).unwrap();
    for (csr, what) in cases {
        let c = DeviceVec::from_slice(dev, &csr).unwrap();
        let mut out = Guarded::<i32, D>::new(dev, csr.len()).unwrap();
        expect_invalid(
            seg_reduce_csr(d.as_slice(), c.as_slice(), out.slice(), Plus),
            what,
        );
        out.check_guards(what);
    }
    // Still usable: a good call after the bad ones.
    let c = DeviceVec::from_slice(dev, &good).unwrap();
    let mut out = Guarded::<i32, D>::new(dev, n).unwrap();
    seg_reduce_csr(d.as_slice(), c.as_slice(), out.slice(), Plus).unwrap();
    out.check_guards("good");
    assert_eq!(out.to_vec(), data);
}

/// The output must have one element per segment; the queued form reports bad data from
/// `wait` and good data as the blocking form does.
fn lengths_and_queued_form<D: Device>(dev: &D, _: Target) {
    let d = DeviceVec::from_slice(dev, &[1u64, 2, 3]).unwrap();
    let c = DeviceVec::from_slice(dev, &[0u32, 1]).unwrap();
    let mut short = DeviceVec::<u64, D>::zeros(dev, 1).unwrap();
    let e = seg_reduce_csr(d.as_slice(), c.as_slice(), short.as_mut_slice(), Plus).unwrap_err();
    assert_eq!(
        e,
        Error::LengthMismatch {
            what: "seg_reduce_csr output (one per segment)",
            expected: 2,
            got: 1
        }
    );
    let mut out = DeviceVec::<u64, D>::zeros(dev, 2).unwrap();
    let pending =
        seg_reduce_csr_into(d.as_slice(), c.as_slice(), out.as_mut_slice(), Plus).unwrap();
    pending.wait().unwrap();
    assert_eq!(out.to_vec().unwrap(), [1, 5]);
    let bad = DeviceVec::from_slice(dev, &[0u32, 4]).unwrap();
    let pending =
        seg_reduce_csr_into(d.as_slice(), bad.as_slice(), out.as_mut_slice(), Plus).unwrap();
    expect_invalid(pending.wait(), "past the total 3");
}

/// A plan applied to new values again and again gives what the one-shot calls give, for
/// the reduction (two operators) and SpMV, over several tiles; its length checks; a bad
/// CSR reported by every apply.
fn plans<D: Device>(dev: &D, t: Target) {
    let mut rng = Rng::new(0x91a);
    let n = t.cap(200_000);
    let counts = kit::uniform_counts(&mut rng, n, 20);
    let (csr, _) = kit::offsets(&counts);
    let c = DeviceVec::from_slice(dev, &kit::to_index::<u32>(&csr)).unwrap();
    let plan = SegReducePlan::<i64, u32, D>::new(c.as_slice(), n).unwrap();
    assert_eq!((plan.segments(), plan.values()), (csr.len(), n));
    let mut out = DeviceVec::<i64, D>::zeros(dev, csr.len()).unwrap();
    for round in 0..3 {
        let data: Vec<i64> = kit::random_bits(&mut rng, n);
        let d = DeviceVec::from_slice(dev, &data).unwrap();
        plan.seg_reduce(d.as_slice(), out.as_mut_slice(), Plus)
            .unwrap();
        let want = kit::seg_reduce_csr(&data, &csr, 0, i64::wrapping_add);
        assert_eq!(out.to_vec().unwrap(), want, "round {round}");
        plan.seg_reduce(d.as_slice(), out.as_mut_slice(), mgpu_core::Maximum)
            .unwrap();
        let want = kit::seg_reduce_csr(&data, &csr, i64::MIN, i64::max);
        assert_eq!(out.to_vec().unwrap(), want, "round {round} max");
    }
    // Long segments: a warp each, and one of 20,000 values in pieces over the CTAs.
    let mut long = kit::uniform_counts(&mut rng, t.cap(100_000), 4000);
    long.insert(long.len() / 2, 20_000);
    let total = long.iter().sum::<u64>() as usize;
    let (long_csr, _) = kit::offsets(&long);
    let lc = DeviceVec::from_slice(dev, &kit::to_index::<u64>(&long_csr)).unwrap();
    let long_plan = SegReducePlan::<i64, u64, D>::new(lc.as_slice(), total).unwrap();
    let mut long_out = DeviceVec::<i64, D>::zeros(dev, long_csr.len()).unwrap();
    for round in 0..2 {
        let data: Vec<i64> = kit::random_bits(&mut rng, total);
        let d = DeviceVec::from_slice(dev, &data).unwrap();
        long_plan
            .seg_reduce(d.as_slice(), long_out.as_mut_slice(), Plus)
            .unwrap();
        let want = kit::seg_reduce_csr(&data, &long_csr, 0, i64::wrapping_add);
        assert_eq!(long_out.to_vec().unwrap(), want, "long round {round}");
    }
    // SpMV with the same rows: the plan's values are the nonzeros.
    let rows = csr.len();
    let cols: Vec<u64> = (0..n).map(|_| rng.below(rows as u64)).collect();
    let m: Vec<i64> = kit::uniform_values(&mut rng, n, 100);
    let (dc, dm) = (
        DeviceVec::from_slice(dev, &kit::to_index::<u32>(&cols)).unwrap(),
        DeviceVec::from_slice(dev, &m).unwrap(),
    );
    for round in 0..2 {
        let x: Vec<i64> = kit::uniform_values(&mut rng, rows, 100);
        let dx = DeviceVec::from_slice(dev, &x).unwrap();
        plan.spmv(
            dm.as_slice(),
            dc.as_slice(),
            dx.as_slice(),
            out.as_mut_slice(),
        )
        .unwrap();
        let want = kit::spmv_csr(
            Some(&m),
            &cols,
            &csr,
            &x,
            0,
            i64::wrapping_add,
            i64::wrapping_mul,
        );
        assert_eq!(out.to_vec().unwrap(), want, "spmv round {round}");
    }
    // Lengths: values and outputs must match the plan.
    let short = DeviceVec::<i64, D>::zeros(dev, n.saturating_sub(1)).unwrap();
    assert!(matches!(
        plan.seg_reduce(short.as_slice(), out.as_mut_slice(), Plus),
        Err(Error::LengthMismatch { .. })
    ));
    // A bad CSR: every apply reports it.
    let bad = DeviceVec::from_slice(dev, &[0u32, 5, 3]).unwrap();
    let plan = SegReducePlan::<i64, u32, D>::new(bad.as_slice(), 8).unwrap();
    let d = DeviceVec::<i64, D>::zeros(dev, 8).unwrap();
    let mut o = DeviceVec::<i64, D>::zeros(dev, 3).unwrap();
    for _ in 0..2 {
        expect_invalid(
            plan.seg_reduce(d.as_slice(), o.as_mut_slice(), Plus),
            "not non-decreasing",
        );
    }
}

/// Reduce-by-key's own launchers: outputs too small for the runs (an error, nothing
/// written outside them, the count still on the device), the count left on the device,
/// and the plan (keys once, several value sets and operators, its length checks).
fn reduce_by_key_launchers<D: Device>(dev: &D, t: Target) {
    use mgpu_core::{EqualTo, Maximum};
    use mgpu_segreduce::{reduce_by_key, reduce_by_key_into, ReduceByKeyPlan};
    let n = t.cap(300_000);
    let mut rng = Rng::new(0x4bb);
    let keys: Vec<u32> = (0..n).map(|i| (i / 3) as u32).collect();
    let runs = n.div_ceil(3);
    let vals: Vec<i64> = kit::random_bits(&mut rng, n);
    let (want_k, want_v) = kit::reduce_by_key(&keys, &vals, 0i64, i64::wrapping_add, |a, b| a == b);
    let (k, v) = (
        DeviceVec::from_slice(dev, &keys).unwrap(),
        DeviceVec::from_slice(dev, &vals).unwrap(),
    );
    // Too small: one slot short in either output.
    for (kc, vc) in [(runs - 1, runs), (runs, runs - 1)] {
        let mut ko = Guarded::<u32, D>::new(dev, kc).unwrap();
        let mut vo = Guarded::<i64, D>::new(dev, vc).unwrap();
        let mut count = DeviceVec::<u64, D>::zeros(dev, 1).unwrap();
        let pending = reduce_by_key_into(
            k.as_slice(),
            v.as_slice(),
            ko.slice(),
            vo.slice(),
            count.as_mut_slice(),
            EqualTo,
            Plus,
        )
        .unwrap();
        expect_invalid(
            pending.wait(),
            &format!(
                "the keys have more runs than the outputs' {} slots",
                runs - 1
            ),
        );
        ko.check_guards("keys_out too small");
        vo.check_guards("values_out too small");
        assert_eq!(count.to_vec().unwrap(), [runs as u64]);
    }
    // Exact size: the count on the device, the results.
    let mut ko = Guarded::<u32, D>::new(dev, runs).unwrap();
    let mut vo = Guarded::<i64, D>::new(dev, runs).unwrap();
    let got = reduce_by_key(
        k.as_slice(),
        v.as_slice(),
        ko.slice(),
        vo.slice(),
        EqualTo,
        Plus,
    );
    assert_eq!(got.unwrap(), runs);
    ko.check_guards("keys_out");
    vo.check_guards("values_out");
    assert_eq!((ko.to_vec(), vo.to_vec()), (want_k.clone(), want_v));
    // The plan: keys once, then two value sets and two operators.
    let plan = ReduceByKeyPlan::new(k.as_slice(), EqualTo).unwrap();
    assert_eq!(plan.runs(), runs);
    assert_eq!(plan.count_on_device().to_vec().unwrap(), [runs as u64]);
    let mut kout = DeviceVec::<u32, D>::zeros(dev, runs).unwrap();
    plan.keys_into(kout.as_mut_slice()).unwrap().wait().unwrap();
    assert_eq!(kout.to_vec().unwrap(), want_k);
    let mut out = DeviceVec::<i64, D>::zeros(dev, runs).unwrap();
    for round in 0..2 {
        let vals: Vec<i64> = kit::random_bits(&mut rng, n);
        let v = DeviceVec::from_slice(dev, &vals).unwrap();
        plan.reduce(v.as_slice(), out.as_mut_slice(), Plus).unwrap();
        let (_, want) = kit::reduce_by_key(&keys, &vals, 0i64, i64::wrapping_add, |a, b| a == b);
        assert_eq!(out.to_vec().unwrap(), want, "round {round}");
        plan.reduce(v.as_slice(), out.as_mut_slice(), Maximum)
            .unwrap();
        let (_, want) = kit::reduce_by_key(&keys, &vals, i64::MIN, |a, b| a.max(b), |a, b| a == b);
        assert_eq!(out.to_vec().unwrap(), want, "round {round}, max");
    }
    let short = DeviceVec::<i64, D>::zeros(dev, n - 1).unwrap();
    assert!(matches!(
        plan.reduce(short.as_slice(), out.as_mut_slice(), Plus),
        Err(Error::LengthMismatch { .. })
    ));
    let mut small = DeviceVec::<i64, D>::zeros(dev, runs - 1).unwrap();
    assert!(matches!(
        plan.reduce(v.as_slice(), small.as_mut_slice(), Plus),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        plan.keys_into(DeviceVec::<u32, D>::zeros(dev, 1).unwrap().as_mut_slice()),
        Err(Error::LengthMismatch { .. })
    ));
}

mgpu_testkit::device_tests! {
    bad_csr_writes_nothing_outside,
    lengths_and_queued_form,
    plans,
    reduce_by_key_launchers,
}

/// The two kernels on the simulator as the host runs them, with small tiles (`NT`
/// threads × `VT` steps; spine chunks of 32 tiles × 1): the results, the tile count and
/// the chunk count.
fn small_tiles<T, I, Op, const NT: usize, const VT: usize>(
    data: &[T],
    csr: &[u64],
) -> (Vec<T>, usize, usize)
where
    T: mgpu_core::Element,
    I: mgpu_ctasearch::Idx + mgpu_core::Index,
    Op: AssociativeOp<T>,
{
    let nv = NT * VT;
    let csr: Vec<I> = kit::to_index(csr);
    let mp = mgpu_cpu::partition::load_balance_partitions(&csr, data.len(), nv).unwrap();
    let tiles = mp.len() - 1;
    let chunks = tiles.div_ceil(32);
    let mut out = vec![Op::identity(); csr.len()];
    let mut carry = vec![Op::identity(); tiles];
    let mut chunk_carry = vec![Op::identity(); chunks];
    let (mut chunk_ends, mut error) = (vec![0u32; chunks], [0u32]);
    let mut flags = vec![0u32; 2 * chunks]; // a flag in the high half of each 64-bit word
    let args = SegReduceArgs::<T, I> {
        data: data.as_ptr(),
        total: data.len() as u64,
        csr: csr.as_ptr(),
        num_segments: csr.len() as u64,
        mp: mp.as_ptr(),
        tiles: tiles as u64,
        nv: nv as u64,
        output: out.as_mut_ptr(),
        carry_out: carry.as_mut_ptr(),
        chunk_carry: chunk_carry.as_mut_ptr(),
        chunk_ends: chunk_ends.as_mut_ptr(),
        chunk_flags: flags.as_mut_ptr(),
        epoch: 1,
        error: error.as_mut_ptr(),
        ..Default::default()
    };
    let (t_bytes, i_bytes) = (size_of::<T>(), size_of::<I>());
    sim::launch(
        tiles as u32,
        NT as u32,
        tiles_shared_bytes(NT, VT, t_bytes, i_bytes),
        &|cta: &sim::SimCta| unsafe { seg_reduce_tiles::<_, T, I, Op, NT, VT>(cta, &args) },
    );
    assert_eq!(error, [0]);
    if tiles > 1 {
        let shared = spine_shared_bytes(32, t_bytes);
        sim::launch(chunks as u32, 32, shared, &|cta: &sim::SimCta| unsafe {
            spine::<_, T, I, Op, 32, 1>(cta, &args)
        });
    }
    (out, tiles, chunks)
}

/// Small tiles (32 threads × 2 steps) with the non-commutative matrix product: the spine
/// joins tiles across several chunks in order, bit for bit against the plain loop.
/// Inputs: uniform lengths, one segment of everything, long runs of empty segments, all
/// empty, and one tile.
#[test]
fn spine_across_chunks_small_tiles() {
    let mut rng = Rng::new(0x5b1e);
    let cases: Vec<(&str, Vec<u64>)> = vec![
        ("uniform mean 3", kit::uniform_counts(&mut rng, 9000, 6)),
        ("uniform mean 100", kit::uniform_counts(&mut rng, 9000, 200)),
        ("one segment", vec![9000]),
        ("empty runs", {
            let mut v = vec![0u64; 3000];
            v.extend(kit::uniform_counts(&mut rng, 3000, 4));
            v.extend(vec![0u64; 4000]);
            v.push(2000);
            v.extend(vec![0u64; 2500]);
            v
        }),
        ("all empty", vec![0; 7000]),
        ("single tile", vec![3, 0, 5]),
    ];
    for (what, counts) in cases {
        let (csr, total) = kit::offsets(&counts);
        let data: Vec<u64> = kit::random_bits(&mut rng, total as usize);
        let want = kit::seg_reduce_csr(&data, &csr, Mat2Mul::identity(), Mat2Mul::apply);
        let (got, tiles, chunks) = small_tiles::<u64, u32, Mat2Mul, 32, 2>(&data, &csr);
        assert!(
            what == "single tile" || chunks > 2,
            "{what}: {chunks} chunks"
        );
        assert_eq!(got, want, "{what}: {tiles} tiles, {chunks} chunks");
    }
}

/// With `Plus` on i64 and u64 starts (32 threads × 3 steps): the spine's carries are sums.
#[test]
fn spine_sums_small_tiles() {
    let mut rng = Rng::new(0x5005);
    let (csr, total) = kit::offsets(&kit::uniform_counts(&mut rng, 20_000, 30));
    let data: Vec<i64> = kit::random_bits(&mut rng, total as usize);
    let want = kit::seg_reduce_csr(&data, &csr, 0, i64::wrapping_add);
    let (got, _, chunks) = small_tiles::<i64, u64, Plus, 32, 3>(&data, &csr);
    assert!(chunks > 3);
    assert_eq!(got, want);
}
