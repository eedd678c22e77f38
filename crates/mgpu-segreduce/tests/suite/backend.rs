//! `Backend::seg_reduce_csr` on every backend against the test kit's plain loop.

use mgpu::{
    AssociativeOp, Backend, BinaryOp, BitAnd, BitOr, BitXor, Element, LoadBalanceIndex, Mat2Mul,
    Maximum, Minimum, Multiplies, Plus, SegReduceOp,
};
use mgpu_testkit::{self as kit, expect_invalid, Rng, Target};

/// Tile of the sm_90 tuning for 4-byte elements (merge steps).
const NV: usize = mgpu_segreduce::kernels::tuning::TILES.sm90.nv(4);
/// Tile of the sm_70 tuning.
const NV70: usize = mgpu_segreduce::kernels::tuning::TILES.sm70.nv(4);

/// Seed 002's demonstration: its segment starts and the values it printed.
const SEED_CSR: [u32; 7] = [0, 9, 19, 25, 71, 87, 97];
#[rustfmt::skip]
const SEED_VALUES: [i32; 100] = [
    1, 5, 5, 1, 2, 5, 1, 1, 4, 4,
    5, 3, 4, 4, 4, 2, 2, 4, 2, 5,
    5, 1, 5, 1, 4, 5, 1, 4, 2, 2,
    2, 3, 3, 1, 4, 2, 4, 2, 1, 2,
    5, 1, 2, 2, 3, 1, 2, 5, 4, 1,
    2, 5, 4, 2, 4, 1, 3, 2, 4, 4,
    4, 4, 4, 3, 4, 4, 1, 5, 1, 1,
    3, 2, 3, 1, 4, 1, 1, 4, 4, 4,
    3, 5, 5, 3, 2, 1, 5, 5, 4, 5,
    4, 2, 2, 3, 5, 5, 1, 4, 1, 5,
];
/// The reductions the seed printed.
const SEED_REDUCED: [i32; 7] = [25, 34, 21, 129, 48, 36, 10];

fn golden(b: &Backend, _: Target) {
    let data = b.upload(&SEED_VALUES).unwrap();
    let csr32 = b.upload(&SEED_CSR).unwrap();
    let got = b
        .seg_reduce_csr(&data, &csr32, Plus)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got, SEED_REDUCED);
    let csr64 = b.upload(&SEED_CSR.map(u64::from)).unwrap();
    let got = b
        .seg_reduce_csr(&data, &csr64, Plus)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got, SEED_REDUCED);
}

/// An element type under test: made from small integers, compared exactly (integers) or
/// within a tolerance (floats).
trait Elem: Element + kit::FromU64 {
    /// Whether results are compared within [`tolerance`] instead of bit for bit.
    const FLOAT: bool;
    fn to_f64(self) -> f64;
}
macro_rules! elem {
    ($float:literal: $($t:ty),*) => {$(
        impl Elem for $t {
            const FLOAT: bool = $float;
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
elem!(false: i32, u32, i64, u64);
elem!(true: f32, f64);

/// The stated float tolerance: a result may differ from the left-to-right loop by
/// `len * eps * max|partial|` (the GPU groups operands by tiles): here `2^-20` (f32) or
/// `2^-48` (f64) relative to the sum of the segment's absolute values, at least that of 1.
fn tolerance<T: Elem>(scale: f64) -> f64 {
    let eps = if core::mem::size_of::<T>() == 4 {
        2f64.powi(-20)
    } else {
        2f64.powi(-48)
    };
    eps * scale.max(1.0)
}

/// SpMV's stated float tolerance for a row of `len` products whose absolute values sum
/// to `scale`. The inputs are small integers, so while `scale` is below `2^p` (`p` the
/// mantissa's bits) every partial sum in any order is exact and the result must be too;
/// past that, any two summation orders differ by at most `2 * len * u * scale` (`u` the
/// unit roundoff; Higham's bound for each order).
fn spmv_tolerance<T: Elem>(scale: f64, len: usize) -> f64 {
    let p = if core::mem::size_of::<T>() == 4 {
        24
    } else {
        53
    };
    if scale < 2f64.powi(p) {
        0.0
    } else {
        2.0 * len as f64 * 2f64.powi(-p) * scale
    }
}

/// Runs `op` over `data` split by the segment lengths `counts` on `b` and checks it
/// against the plain loop: integers bit for bit, floats within [`tolerance`]. Also
/// checks that a second run gives the same bits.
fn check<T: Elem, I: LoadBalanceIndex, Op: SegReduceOp<T, I>>(
    b: &Backend,
    t: Target,
    what: &str,
    data: &[T],
    counts: &[u64],
) {
    let (csr, total) = kit::offsets(counts);
    assert_eq!(
        total as usize,
        data.len(),
        "{what}: the counts cover the data"
    );
    let want = kit::seg_reduce_csr(data, &csr, Op::identity(), Op::apply);
    let d = b.upload(data).unwrap();
    let c = b.upload(&kit::to_index::<I>(&csr)).unwrap();
    let got = t
        .timed(what, data.len(), || b.seg_reduce_csr(&d, &c, Op::default()))
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got.len(), want.len(), "{what}");
    if T::FLOAT {
        for (j, (g, w)) in got.iter().zip(&want).enumerate() {
            let end = csr.get(j + 1).map_or(data.len() as u64, |&e| e) as usize;
            let scale: f64 = data[csr[j] as usize..end]
                .iter()
                .map(|x| x.to_f64().abs())
                .sum();
            let (g, w) = (g.to_f64(), w.to_f64());
            assert!(
                g == w || (g - w).abs() <= tolerance::<T>(scale),
                "{what}: segment {j} of {}: got {g}, want {w}",
                want.len()
            );
        }
    } else {
        assert_eq!(kit::bits(&got), kit::bits(&want), "{what}");
    }
    let again = b
        .seg_reduce_csr(&d, &c, Op::default())
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(kit::bits(&again), kit::bits(&got), "{what}: deterministic");
}

/// `n` values for the tests: small non-negative integers, so that float sums stay exact
/// in most segments.
fn values<T: Elem>(rng: &mut Rng, n: usize) -> Vec<T> {
    kit::uniform_values(rng, n, 16)
}

/// Sizes around tile multiples of both tunings, then large ones (within the budget).
fn sizes(t: Target) -> Vec<usize> {
    let mut all = vec![0, 1, 2, 31, 33];
    for nv in [NV, NV70] {
        for k in [1, 2, 3] {
            all.extend([k * nv - 1, k * nv, k * nv + 1]);
        }
    }
    all.extend([10_000, 16_384, 1_000_000, 10_000_000, 100_000_000]);
    t.sizes(&all)
}

/// Segment lengths uniform in `[0, 2·avg]` (ANCHORS.md) for averages 1, 10 and 1000.
fn uniform<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    Plus: SegReduceOp<T, I>,
{
    let mut rng = Rng::new(0x5e9 + core::mem::size_of::<T>() as u64);
    for n in sizes(t) {
        let data = values::<T>(&mut rng, n);
        for avg in [1, 10, 1000] {
            let counts = kit::uniform_counts(&mut rng, n, 2 * avg);
            check::<T, I, Plus>(b, t, &format!("uniform mean {avg} n = {n}"), &data, &counts);
        }
    }
}

/// Heavy-tailed lengths (Pareto, alpha 1.5) and the kit's edge cases: all empty, one
/// segment holding everything (alone, first, in the middle, last), leading and trailing
/// empty segments, runs of empty segments, length 1; and segments of length 1 only.
fn edges<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    Plus: SegReduceOp<T, I>,
    Maximum: SegReduceOp<T, I>,
{
    let mut rng = Rng::new(0xed9e);
    for items in t.sizes(&[1, 100, 5000, 300_000]) {
        for case in kit::edge_counts(&mut rng, items) {
            let total = case.counts.iter().sum::<u64>() as usize;
            let data = values::<T>(&mut rng, total);
            let what = format!("{} ({items})", case.name);
            check::<T, I, Plus>(b, t, &what, &data, &case.counts);
            check::<T, I, Maximum>(b, t, &what, &data, &case.counts);
        }
        let data = values::<T>(&mut rng, items);
        check::<T, I, Plus>(b, t, &format!("length 1 ({items})"), &data, &vec![1; items]);
        let mut counts = kit::pareto_counts(&mut rng, items, 1.5, 1 << 20);
        let total = counts.iter().sum::<u64>() as usize;
        let data = values::<T>(&mut rng, total);
        counts.push(0);
        check::<T, I, Plus>(b, t, &format!("pareto ({items})"), &data, &counts);
    }
    // Values with segments of zero values only: every result is the identity.
    check::<T, I, Plus>(b, t, "no values", &[], &[0; 5000]);
}

/// Every operator of `T` on a few shapes.
fn ops<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    Plus: SegReduceOp<T, I>,
    Multiplies: SegReduceOp<T, I>,
    Maximum: SegReduceOp<T, I>,
    Minimum: SegReduceOp<T, I>,
{
    let mut rng = Rng::new(0x0b5);
    for n in t.sizes(&[0, 7, 3 * NV + 5, 15_000]) {
        let data = kit::random_bits::<T>(&mut rng, n);
        let small = values::<T>(&mut rng, n);
        let counts = kit::uniform_counts(&mut rng, n, 20);
        if !T::FLOAT {
            check::<T, I, Plus>(b, t, &format!("plus, random bits n = {n}"), &data, &counts);
            check::<T, I, Multiplies>(b, t, &format!("mul n = {n}"), &data, &counts);
        } else {
            check::<T, I, Plus>(b, t, &format!("plus n = {n}"), &small, &counts);
            // Products of small integers overflow to infinity in long segments: use ones
            // and twos.
            let twos: Vec<T> = kit::uniform_values(&mut rng, n, 2);
            let twos: Vec<T> = twos
                .into_iter()
                .map(|x| if x.to_f64() == 0.0 { T::from_u64(1) } else { x })
                .collect();
            check::<T, I, Multiplies>(
                b,
                t,
                &format!("mul n = {n}"),
                &twos,
                &kit::uniform_counts(&mut rng, n, 8),
            );
        }
        let source = if T::FLOAT { &small } else { &data };
        check::<T, I, Maximum>(b, t, &format!("max n = {n}"), source, &counts);
        check::<T, I, Minimum>(b, t, &format!("min n = {n}"), source, &counts);
    }
}

/// The bit operators of an integer type.
fn bit_ops<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    BitAnd: SegReduceOp<T, I>,
    BitOr: SegReduceOp<T, I>,
    BitXor: SegReduceOp<T, I>,
{
    let mut rng = Rng::new(0xb17);
    for n in t.sizes(&[0, 9, 2 * NV + 3, 15_000]) {
        let data = kit::random_bits::<T>(&mut rng, n);
        let counts = kit::uniform_counts(&mut rng, n, 6);
        check::<T, I, BitAnd>(b, t, &format!("and n = {n}"), &data, &counts);
        check::<T, I, BitOr>(b, t, &format!("or n = {n}"), &data, &counts);
        check::<T, I, BitXor>(b, t, &format!("xor n = {n}"), &data, &counts);
    }
}

/// The non-commutative 2x2 matrix product: the results show that every segment's
/// operands were combined in order, across threads, tiles and chunks of tiles (a single
/// segment of every value included).
fn order<I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    Mat2Mul: SegReduceOp<u64, I>,
{
    let mut rng = Rng::new(0x0de7);
    for n in sizes(t) {
        let data = kit::random_bits::<u64>(&mut rng, n);
        for avg in [1, 10, 1000] {
            let counts = kit::uniform_counts(&mut rng, n, 2 * avg);
            check::<u64, I, Mat2Mul>(b, t, &format!("mat2mul mean {avg} n = {n}"), &data, &counts);
        }
        check::<u64, I, Mat2Mul>(
            b,
            t,
            &format!("mat2mul one segment n = {n}"),
            &data,
            &[n as u64],
        );
    }
}

/// Random lengths and values (proptest), u32 and u64 indices.
fn random(b: &Backend, t: Target) {
    use proptest::prelude::*;
    let cases = if t.is_simulator() { 24 } else { 64 };
    let lengths = proptest::collection::vec(prop_oneof![0u64..3, 0u64..40, 0u64..2000], 0..60);
    kit::proptest_runner(cases)
        .run(&(lengths, any::<u64>()), |(counts, seed)| {
            let total = counts.iter().sum::<u64>() as usize;
            let data: Vec<i64> = kit::random_bits(&mut kit::Rng::new(seed), total);
            if !counts.is_empty() {
                check::<i64, u32, Plus>(b, t, "proptest u32", &data, &counts);
                check::<i64, u64, Minimum>(b, t, "proptest u64", &data, &counts);
            }
            Ok(())
        })
        .unwrap();
}

/// Every bad input gives the same error, kind and text, on every backend.
fn bad_input(b: &Backend, _: Target) {
    let data = b.upload(&[1i32, 2, 3, 4, 5]).unwrap();
    let run = |csr: &[u32]| b.seg_reduce_csr(&data, &b.upload(csr).unwrap(), Plus);
    expect_invalid(run(&[1, 2]), "the scan does not start at 0");
    expect_invalid(run(&[0, 3, 2]), "the scan is not non-decreasing");
    expect_invalid(run(&[0, 2, 6]), "a scan value is past the total 5");
    expect_invalid(run(&[]), "5 values with no segments");
    expect_invalid(run(&[1, 0]), "the scan does not start at 0"); // the first fault wins
                                                                  // The same faults where the segments are long enough for a warp each.
    let long = b.upload(&vec![1i32; 1000]).unwrap();
    let run = |csr: &[u32]| b.seg_reduce_csr(&long, &b.upload(csr).unwrap(), Plus);
    expect_invalid(run(&[1, 500]), "the scan does not start at 0");
    expect_invalid(run(&[0, 600, 300]), "the scan is not non-decreasing");
    expect_invalid(run(&[0, 2000]), "a scan value is past the total 1000");
    expect_invalid(run(&[3, 0]), "the scan does not start at 0");
    let empty = b.upload::<i32>(&[]).unwrap();
    let none = b.upload::<u32>(&[]).unwrap();
    assert!(b
        .seg_reduce_csr(&empty, &none, Plus)
        .unwrap()
        .to_vec()
        .unwrap()
        .is_empty());
    let other = Backend::cpu();
    if !matches!(b, Backend::Cpu) {
        let foreign = other.upload(&[0u32]).unwrap();
        expect_invalid(b.seg_reduce_csr(&data, &foreign, Plus), "");
    }
}

/// A random CSR matrix of about `nnz` nonzeros with the given row lengths, columns
/// uniform over a vector of `cols` elements: (values, columns, row starts).
fn sparse<T: Elem>(
    rng: &mut Rng,
    lengths: &[u64],
    cols: u64,
    below: u64,
) -> (Vec<T>, Vec<u64>, Vec<u64>) {
    let (csr, nnz) = kit::offsets(lengths);
    let values = kit::uniform_values(rng, nnz as usize, below);
    let columns = (0..nnz).map(|_| rng.below(cols)).collect();
    (values, columns, csr)
}

/// SpMV on `b` (binary, and unary with the same pattern) against the test kit's plain
/// loop over the rows: integers bit for bit, floats within [`spmv_tolerance`].
fn check_spmv<T: Elem, I: LoadBalanceIndex>(
    b: &Backend,
    t: Target,
    what: &str,
    m: &[T],
    cols: &[u64],
    csr: &[u64],
    x: &[T],
) where
    mgpu_segreduce::device::SpmvBinary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    mgpu_segreduce::device::SpmvUnary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    Plus: mgpu::AssociativeOp<T>,
    Multiplies: mgpu::BinaryOp<T>,
{
    use mgpu::{AssociativeOp, BinaryOp};
    let add = <Plus as BinaryOp<T>>::apply;
    let mul = <Multiplies as BinaryOp<T>>::apply;
    let zero = <Plus as AssociativeOp<T>>::identity();
    let (bm, bc, br, bx) = (
        b.upload(m).unwrap(),
        b.upload(&kit::to_index::<I>(cols)).unwrap(),
        b.upload(&kit::to_index::<I>(csr)).unwrap(),
        b.upload(x).unwrap(),
    );
    for unary in [false, true] {
        let want = kit::spmv_csr((!unary).then_some(m), cols, csr, x, zero, add, mul);
        let got = t
            .timed(&format!("{what} unary={unary}"), cols.len(), || {
                if unary {
                    b.spmv_csr_unary(&bc, &br, &bx)
                } else {
                    b.spmv_csr(&bm, &bc, &br, &bx)
                }
            })
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(got.len(), want.len(), "{what}");
        for (r, (g, w)) in got.iter().zip(&want).enumerate() {
            let (g, w) = (g.to_f64(), w.to_f64());
            if T::FLOAT {
                let end = csr.get(r + 1).map_or(cols.len() as u64, |&e| e) as usize;
                let scale: f64 = (csr[r] as usize..end)
                    .map(|k| {
                        (x[cols[k] as usize].to_f64() * if unary { 1.0 } else { m[k].to_f64() })
                            .abs()
                    })
                    .sum();
                let tol = spmv_tolerance::<T>(scale, end - csr[r] as usize);
                assert!(
                    g == w || (g - w).abs() <= tol,
                    "{what} unary={unary}: row {r} of length {}: got {g}, want {w} \
                     (tolerance {tol})",
                    end - csr[r] as usize
                );
            } else {
                assert_eq!(g, w, "{what} unary={unary}: row {r}");
            }
        }
    }
}

/// SpMV: seed 002's shapes (ANCHORS.md: n/16 rows, lengths uniform in [0, 32] or Pareto
/// with alpha 1.5, columns over the whole vector), empty rows, one dense row of a million
/// nonzeros (within the budget), and the bad inputs.
fn spmv<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    mgpu_segreduce::device::SpmvBinary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    mgpu_segreduce::device::SpmvUnary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    Plus: mgpu::AssociativeOp<T>,
    Multiplies: mgpu::BinaryOp<T>,
{
    let mut rng = Rng::new(0x5b3e);
    let small: (Vec<T>, Vec<u64>, Vec<u64>, Vec<T>) = (
        [1, 2, 3].map(T::from_u64).to_vec(),
        vec![0, 2, 1],
        vec![0, 2, 2],
        [1, 10, 100].map(T::from_u64).to_vec(),
    );
    check_spmv::<T, I>(b, t, "3x3", &small.0, &small.1, &small.2, &small.3);
    for nnz in t.sizes(&[0, 1, 1000, 3 * NV + 7, 16_000, 1_000_000, 20_000_000]) {
        let rows = (nnz / 16).max(1);
        let unif = kit::uniform_counts(&mut rng, nnz, 32);
        let mut pow = kit::pareto_counts(&mut rng, rows, 1.5, nnz as u64);
        pow.push(0);
        let mut dense = vec![0u64; rows];
        dense[rows / 2] = t.cap(1_000_000).min(nnz) as u64;
        // The dense row's values are below 4, so its f32 sum (at most 9 * 10^6) is exact.
        for (what, lengths, below) in [
            ("unif", unif, 16),
            ("pow", pow, 16),
            ("one dense row", dense, 4),
        ] {
            let x = kit::uniform_values::<T>(&mut rng, rows.max(1), below);
            let (m, cols, csr) = sparse::<T>(&mut rng, &lengths, x.len() as u64, below);
            check_spmv::<T, I>(
                b,
                t,
                &format!("spmv {what} nnz = {}", cols.len()),
                &m,
                &cols,
                &csr,
                &x,
            );
        }
    }
    // Bad inputs: a column past the vector; fewer columns than matrix values.
    let (m, cols, csr, x) = (
        b.upload(&small.0).unwrap(),
        b.upload(&kit::to_index::<I>(&[0, 3, 1])).unwrap(),
        b.upload(&kit::to_index::<I>(&small.2)).unwrap(),
        b.upload(&small.3).unwrap(),
    );
    expect_invalid(
        b.spmv_csr(&m, &cols, &csr, &x),
        "a column index is past the vector's length 3",
    );
    expect_invalid(
        b.spmv_csr_unary(&cols, &csr, &x),
        "a column index is past the vector's length 3",
    );
    let short = b.upload(&kit::to_index::<I>(&[0, 1])).unwrap();
    assert!(matches!(
        b.spmv_csr(&m, &short, &csr, &x),
        Err(mgpu::Error::LengthMismatch { .. })
    ));
}

/// SpMV over the min-plus and max-plus semirings (and or-and for integers), every
/// backend, against the plain loop with the same operators; exact (min and max of sums of
/// small integers), empty rows giving the addition's identity.
fn spmv_semiring<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    mgpu::Semiring<Plus, Minimum>: mgpu_segreduce::kernels::SpmvSemiring<T, I>,
    mgpu::Semiring<Plus, Maximum>: mgpu_segreduce::kernels::SpmvSemiring<T, I>,
    Plus: mgpu::AssociativeOp<T>,
    Minimum: mgpu::AssociativeOp<T>,
    Maximum: mgpu::AssociativeOp<T>,
{
    let mut rng = Rng::new(0x5e3);
    for nnz in t.sizes(&[0, 7, 3 * NV + 5, 100_000, 5_000_000]) {
        let rows = (nnz / 16).max(1);
        let mut lengths = kit::pareto_counts(&mut rng, rows, 1.5, nnz as u64);
        lengths.push(0);
        let x = kit::uniform_values::<T>(&mut rng, rows, 16);
        let (m, cols, csr) = sparse::<T>(&mut rng, &lengths, x.len() as u64, 16);
        let (bm, bc, br, bx) = (
            b.upload(&m).unwrap(),
            b.upload(&kit::to_index::<I>(&cols)).unwrap(),
            b.upload(&kit::to_index::<I>(&csr)).unwrap(),
            b.upload(&x).unwrap(),
        );
        let inputs = (&bm, &bc, &br, &bx);
        let host = (&m[..], &cols[..], &csr[..], &x[..]);
        check_plus_semiring::<T, I, Minimum>(b, inputs, host, &format!("min-plus nnz = {nnz}"));
        check_plus_semiring::<T, I, Maximum>(b, inputs, host, &format!("max-plus nnz = {nnz}"));
    }
    // A column past the vector: the same error as the plain product.
    let (m, c, r, x) = (
        b.upload(&[1, 2, 3].map(T::from_u64)).unwrap(),
        b.upload(&kit::to_index::<I>(&[0, 3, 1])).unwrap(),
        b.upload(&kit::to_index::<I>(&[0, 2, 2])).unwrap(),
        b.upload(&[1, 10, 100].map(T::from_u64)).unwrap(),
    );
    expect_invalid(
        b.spmv_csr_semiring(&m, &c, &r, &x, mgpu::Semiring(Plus, Minimum)),
        "a column index is past the vector's length 3",
    );
}

/// SpMV over `Semiring(Plus, Add)` on `b` against the plain loop, bit for bit.
fn check_plus_semiring<T: Elem, I: LoadBalanceIndex, Add: mgpu::AssociativeOp<T>>(
    b: &Backend,
    (m, c, r, x): (
        &mgpu::Buffer<T>,
        &mgpu::Buffer<I>,
        &mgpu::Buffer<I>,
        &mgpu::Buffer<T>,
    ),
    (hm, cols, csr, hx): (&[T], &[u64], &[u64], &[T]),
    what: &str,
) where
    mgpu::Semiring<Plus, Add>: mgpu_segreduce::kernels::SpmvSemiring<T, I>,
    Plus: mgpu::BinaryOp<T>,
{
    let got = b
        .spmv_csr_semiring(m, c, r, x, mgpu::Semiring(Plus, Add::default()))
        .unwrap()
        .to_vec()
        .unwrap();
    let plus = <Plus as mgpu::BinaryOp<T>>::apply;
    let want = kit::spmv_csr(Some(hm), cols, csr, hx, Add::identity(), Add::apply, plus);
    assert_eq!(kit::bits(&got), kit::bits(&want), "{what}");
}

/// Or-and (reachability) over random 0/1 patterns and vectors, against the plain loop.
fn spmv_or_and(b: &Backend, t: Target) {
    let mut rng = Rng::new(0x0a9d);
    for nnz in t.sizes(&[9, 3 * NV + 5, 200_000]) {
        let rows = (nnz / 16).max(1);
        let lengths = kit::uniform_counts(&mut rng, nnz, 32);
        let x: Vec<u32> = kit::uniform_values(&mut rng, rows, 2);
        let (m, cols, csr) = sparse::<u32>(&mut rng, &lengths, x.len() as u64, 2);
        let got = b
            .spmv_csr_semiring(
                &b.upload(&m).unwrap(),
                &b.upload(&kit::to_index::<u32>(&cols)).unwrap(),
                &b.upload(&kit::to_index::<u32>(&csr)).unwrap(),
                &b.upload(&x).unwrap(),
                mgpu::Semiring(BitAnd, BitOr),
            )
            .unwrap()
            .to_vec()
            .unwrap();
        let want = kit::spmv_csr(Some(&m), &cols, &csr, &x, 0, |a, b| a | b, |a, b| a & b);
        assert_eq!(got, want, "or-and nnz = {nnz}");
    }
}

/// The indirect reduction: segments of uniform and edge-case lengths laid out in `data`
/// in a random order (and overlapping: every segment's source moved onto the first), the
/// non-commutative `Mat2Mul` among the operators, against the plain loop over the
/// relocated segments; and a source range past the data.
fn indirect<I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    Mat2Mul: mgpu_segreduce::kernels::IndirectOp<u64, I>,
    Plus: mgpu_segreduce::kernels::IndirectOp<u64, I>,
{
    let mut rng = Rng::new(0x1d1);
    for n in sizes(t) {
        let mut cases: Vec<(String, Vec<u64>)> = vec![
            (
                format!("uniform mean 10 n = {n}"),
                kit::uniform_counts(&mut rng, n, 20),
            ),
            (
                format!("uniform mean 1000 n = {n}"),
                kit::uniform_counts(&mut rng, n, 2000),
            ),
        ];
        for case in kit::edge_counts(&mut rng, n.min(5000)) {
            cases.push((format!("{} ({})", case.name, n.min(5000)), case.counts));
        }
        for (what, counts) in cases {
            let (csr, total) = kit::offsets(&counts);
            let data: Vec<u64> = kit::random_bits(&mut rng, total as usize);
            let layouts = [
                kit::shuffled_layout(&mut rng, &counts),
                vec![0; counts.len()],
            ];
            for (k, sources) in layouts.iter().enumerate() {
                // Overlapping sources read the first segment's room: shorten to fit.
                let fits = |j: usize| sources[j] + counts[j] <= total;
                if !(0..counts.len()).all(fits) {
                    continue;
                }
                let relocated = kit::interval_gather(&csr, total, sources, &data);
                let want =
                    kit::seg_reduce_csr(&relocated, &csr, Mat2Mul::identity(), Mat2Mul::apply);
                let (d, c, s) = (
                    b.upload(&data).unwrap(),
                    b.upload(&kit::to_index::<I>(&csr)).unwrap(),
                    b.upload(&kit::to_index::<I>(sources)).unwrap(),
                );
                let got = t
                    .timed(&format!("indirect {what} layout {k}"), data.len(), || {
                        b.indirect_reduce_csr(&d, &c, &s, Mat2Mul)
                    })
                    .unwrap()
                    .to_vec()
                    .unwrap();
                assert_eq!(got, want, "indirect {what} layout {k}");
            }
        }
    }
    let (d, c, s) = (
        b.upload(&[1u64, 2, 3, 40, 50]).unwrap(),
        b.upload(&kit::to_index::<I>(&[0, 2])).unwrap(),
        b.upload(&kit::to_index::<I>(&[4, 0])).unwrap(),
    );
    expect_invalid(
        b.indirect_reduce_csr(&d, &c, &s, Plus),
        "a gather range is outside the input (length 5)",
    );
    // An empty segment reads nothing, wherever its source.
    let (empty_first, far) = (
        b.upload(&kit::to_index::<I>(&[0, 0])).unwrap(),
        b.upload(&kit::to_index::<I>(&[99, 0])).unwrap(),
    );
    let got = b.indirect_reduce_csr(&d, &empty_first, &far, Plus).unwrap();
    assert_eq!(
        got.to_vec().unwrap(),
        [0, 96],
        "an empty segment's source past the data"
    );
    let one = b.upload(&kit::to_index::<I>(&[0])).unwrap();
    assert!(matches!(
        b.indirect_reduce_csr(&d, &c, &one, Plus),
        Err(mgpu::Error::LengthMismatch { .. })
    ));
}

/// Indirect SpMV, binary and unary: the rows of seed 002's shapes (unif, pow) and the
/// edge-case lengths stored in a random order, and all onto the first nonzeros
/// (overlapping) where they fit, against the direct SpMV of the rows gathered into
/// place on the same backend, bit for bit (the sums are exact; the direct form is checked
/// against the plain loop in [`spmv`]). Then the bad inputs: a row reaching past the nonzeros, a column past the vector in a row (a bad
/// column no row reads is never read), a `sources` of the wrong length.
fn spmv_indirect<T: Elem, I: LoadBalanceIndex>(b: &Backend, t: Target)
where
    mgpu_segreduce::device::SpmvBinary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    mgpu_segreduce::device::SpmvUnary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    mgpu_segreduce::device::SpmvIndirectBinary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    mgpu_segreduce::device::SpmvIndirectUnary: mgpu_segreduce::kernels::SpmvForm<T, I>,
    Plus: mgpu::AssociativeOp<T>,
    Multiplies: mgpu::BinaryOp<T>,
{
    let mut rng = Rng::new(0x1d5);
    for nnz in t.sizes(&[1, 1000, 3 * NV + 7, 100_000, 1_000_000]) {
        let rows = (nnz / 16).max(1);
        let mut cases = vec![
            ("unif".to_string(), kit::uniform_counts(&mut rng, nnz, 32)),
            (
                "pow".to_string(),
                kit::pareto_counts(&mut rng, rows, 1.5, nnz as u64),
            ),
        ];
        for case in kit::edge_counts(&mut rng, nnz.min(5000)) {
            cases.push((case.name.to_string(), case.counts));
        }
        for (what, lengths) in cases {
            // Products below 9 and at most 10^6 of them: every f32 row sum is exact, so
            // the direct form's tiles (which may walk differently) give the same bits.
            let x = kit::uniform_values::<T>(&mut rng, rows, 4);
            let (m, cols, csr) = sparse::<T>(&mut rng, &lengths, x.len() as u64, 4);
            let total = cols.len() as u64;
            let layouts = [
                kit::shuffled_layout(&mut rng, &lengths),
                vec![0; lengths.len()],
            ];
            for (k, sources) in layouts.iter().enumerate() {
                if !(0..lengths.len()).all(|j| sources[j] + lengths[j] <= total) {
                    continue;
                }
                let rm = kit::interval_gather(&csr, total, sources, &m);
                let rc = kit::interval_gather(&csr, total, sources, &cols);
                let up = |v: &[u64]| b.upload(&kit::to_index::<I>(v)).unwrap();
                let (bm, bc, br, bs, bx) = (
                    b.upload(&m).unwrap(),
                    up(&cols),
                    up(&csr),
                    up(sources),
                    b.upload(&x).unwrap(),
                );
                let (brm, brc) = (b.upload(&rm).unwrap(), up(&rc));
                let name = format!("spmv indirect {what} nnz = {total} layout {k}");
                let got = t
                    .timed(&name, cols.len(), || {
                        b.spmv_csr_indirect(&bm, &bc, &br, &bs, &bx)
                    })
                    .unwrap()
                    .to_vec()
                    .unwrap();
                let want = b.spmv_csr(&brm, &brc, &br, &bx).unwrap().to_vec().unwrap();
                assert_eq!(kit::bits(&got), kit::bits(&want), "{name}");
                let got = b
                    .spmv_csr_indirect_unary(&bc, &br, &bs, &bx)
                    .unwrap()
                    .to_vec()
                    .unwrap();
                let want = b.spmv_csr_unary(&brc, &br, &bx).unwrap().to_vec().unwrap();
                assert_eq!(kit::bits(&got), kit::bits(&want), "{name} unary");
            }
        }
    }
    // Two rows of length 2 over 4 nonzeros (the last row runs to the end), stored from
    // nonzeros 1 and 0: the last nonzero is unread.
    let up = |v: &[u64]| b.upload(&kit::to_index::<I>(v)).unwrap();
    let m = b.upload(&[1, 2, 3, 4].map(T::from_u64)).unwrap();
    let x = b.upload(&[1, 10].map(T::from_u64)).unwrap();
    let (csr, cols) = (up(&[0, 2]), up(&[0, 1, 1, 9]));
    let y = b
        .spmv_csr_indirect(&m, &cols, &csr, &up(&[1, 0]), &x)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(y, [50, 21].map(T::from_u64), "column 9 is in no row");
    // An empty row reads nothing, wherever its source.
    let y = b
        .spmv_csr_indirect(&m, &up(&[0, 1, 1, 1]), &up(&[0, 0]), &up(&[99, 0]), &x)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(
        y,
        [0, 91].map(T::from_u64),
        "an empty row's source past the nonzeros"
    );
    expect_invalid(
        b.spmv_csr_indirect(&m, &cols, &csr, &up(&[3, 0]), &x),
        "a gather range is outside the input (length 4)",
    );
    expect_invalid(
        b.spmv_csr_indirect_unary(&cols, &csr, &up(&[2, 0]), &x),
        "a column index is past the vector's length 2",
    );
    assert!(matches!(
        b.spmv_csr_indirect(&m, &cols, &csr, &up(&[0]), &x),
        Err(mgpu::Error::LengthMismatch { .. })
    ));
}

mgpu_testkit::backend_tests! {
    spmv_indirect_f64 = spmv_indirect::<f64, u32>,
    spmv_indirect_i32_u64 = spmv_indirect::<i32, u64>,
    spmv_indirect_f32 = spmv_indirect::<f32, u32>,
    spmv_semiring_i32 = spmv_semiring::<i32, u32>,
    spmv_semiring_f64_u64 = spmv_semiring::<f64, u64>,
    spmv_semiring_f32 = spmv_semiring::<f32, u32>,
    spmv_or_and,
    indirect_u32 = indirect::<u32>,
    indirect_u64 = indirect::<u64>,
    spmv_f64 = spmv::<f64, u32>,
    spmv_f32_u64 = spmv::<f32, u64>,
    spmv_i32 = spmv::<i32, u32>,
    golden,
    uniform_i32 = uniform::<i32, u32>,
    uniform_f64 = uniform::<f64, u32>,
    uniform_u64_u64 = uniform::<u64, u64>,
    uniform_f32_u64 = uniform::<f32, u64>,
    edges_i32 = edges::<i32, u32>,
    edges_f64_u64 = edges::<f64, u64>,
    ops_i32 = ops::<i32, u32>,
    ops_u32 = ops::<u32, u64>,
    ops_i64 = ops::<i64, u32>,
    ops_u64 = ops::<u64, u64>,
    ops_f32 = ops::<f32, u32>,
    ops_f64 = ops::<f64, u64>,
    bit_ops_i32 = bit_ops::<i32, u32>,
    bit_ops_u64 = bit_ops::<u64, u64>,
    order_u32 = order::<u32>,
    order_u64 = order::<u64>,
    random,
    bad_input,
}
