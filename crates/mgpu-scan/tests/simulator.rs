//! The whole scan and reduce (host launcher and kernels) in the CTA simulator, against
//! plain left-to-right folds, for every element type and operator, both tuning tables,
//! and sizes 0, 1, NV-1, NV, NV+1 and a few multi-tile ones.
//!
//! Integers are compared bit for bit. Floats use values whose every partial result is
//! exact (small integers for plus; ±1 and powers of two for multiplies), so any association
//! order gives the same bits and the comparison is exact too; `float_sums_within_tolerance`
//! covers arbitrary floats with a stated tolerance.

mod common;
use common::reference;
use mgpu_core::{BitAnd, BitOr, BitXor, Element, Maximum, Minimum, Multiplies, Plus};
use mgpu_runtime::{Arch, DeviceVec, Simulator};
use mgpu_scan::{ScanKind, ScanOp};
use mgpu_testkit::Rng;

fn sizes(nv: usize) -> Vec<usize> {
    vec![0, 1, 2, 31, nv - 1, nv, nv + 1, 2 * nv + 17, 5 * nv - 3]
}

fn check<T: Element, Op: ScanOp<T>>(gen: impl Fn(&mut Rng) -> T) {
    for arch in [Arch::Sm90, Arch::Sm70] {
        let dev = Simulator::with_arch(arch);
        let nv = mgpu_scan::kernels::nv::<T, Op>(arch);
        for n in sizes(nv) {
            let mut rng = Rng::new(n as u64 * 7919 + T::WORDS as u64);
            let x: Vec<T> = (0..n).map(|_| gen(&mut rng)).collect();
            let dx = DeviceVec::from_slice(&dev, &x).unwrap();
            for kind in [ScanKind::Exclusive, ScanKind::Inclusive] {
                let (want, want_total) = reference::<T, Op>(&x, kind);
                let mut dy = DeviceVec::<T, _>::zeros(&dev, n).unwrap();
                let total = match kind {
                    ScanKind::Exclusive => {
                        mgpu_scan::scan_exclusive(dx.as_slice(), dy.as_mut_slice(), Op::default())
                    }
                    ScanKind::Inclusive => {
                        mgpu_scan::scan_inclusive(dx.as_slice(), dy.as_mut_slice(), Op::default())
                    }
                }
                .unwrap();
                let ctx = format!("{} {} {:?} n={n} {:?}", T::NAME, Op::NAME, arch, kind);
                assert_eq!(total, want_total, "total: {ctx}");
                assert!(dy.to_vec().unwrap() == want, "values: {ctx}");
                // In place gives the same.
                let mut dz = DeviceVec::from_slice(&dev, &x).unwrap();
                let total = match kind {
                    ScanKind::Exclusive => {
                        mgpu_scan::scan_exclusive_in_place(dz.as_mut_slice(), Op::default())
                    }
                    ScanKind::Inclusive => {
                        mgpu_scan::scan_inclusive_in_place(dz.as_mut_slice(), Op::default())
                    }
                }
                .unwrap();
                assert_eq!(total, want_total, "in-place total: {ctx}");
                assert!(dz.to_vec().unwrap() == want, "in-place values: {ctx}");
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
}

macro_rules! int_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() {
            check::<$t, Plus>(|r| r.next_u64() as $t);
            check::<$t, Multiplies>(|r| (r.next_u64() | 1) as $t);
            check::<$t, Maximum>(|r| r.next_u64() as $t);
            check::<$t, Minimum>(|r| r.next_u64() as $t);
            check::<$t, BitAnd>(|r| !(1 as $t).wrapping_shl(r.below(64) as u32));
            check::<$t, BitOr>(|r| (1 as $t).wrapping_shl(r.below(2048) as u32 % 64) & (r.below(3) == 0) as $t);
            check::<$t, BitXor>(|r| r.next_u64() as $t);
        }
    )*};
}

int_tests!(all_ops_i32: i32, all_ops_u32: u32, all_ops_i64: i64, all_ops_u64: u64);

macro_rules! float_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() {
            check::<$t, Plus>(|r| r.below(33) as $t - 16.0);
            check::<$t, Multiplies>(|r| match r.below(64) { 0 => 2.0, 1 => 0.5, k if k < 33 => -1.0, _ => 1.0 });
            check::<$t, Maximum>(|r| (r.next_u64() >> 11) as $t * if r.below(2) == 0 { 1.0 } else { -1.0 });
            check::<$t, Minimum>(|r| (r.next_u64() >> 11) as $t * if r.below(2) == 0 { 1.0 } else { -1.0 });
        }
    )*};
}

float_tests!(all_ops_f32: f32, all_ops_f64: f64);

#[test]
fn float_sums_within_tolerance() {
    // Arbitrary values in [-1, 1): the device's association order differs from a left-to-
    // right loop, so compare within 1e-5 of the sum of magnitudes (f32).
    let dev = Simulator::new();
    let mut rng = Rng::new(42);
    let x: Vec<f32> = (0..20_000)
        .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
        .collect();
    let dx = DeviceVec::from_slice(&dev, &x).unwrap();
    let mut dy = DeviceVec::<f32, _>::zeros(&dev, x.len()).unwrap();
    let total = mgpu_scan::scan_inclusive(dx.as_slice(), dy.as_mut_slice(), Plus).unwrap();
    let y = dy.to_vec().unwrap();
    let (mut acc, mut mag) = (0f64, 0f64);
    for (i, &v) in x.iter().enumerate() {
        acc += v as f64;
        mag += v.abs() as f64;
        assert!(
            (y[i] as f64 - acc).abs() <= 1e-5 * mag.max(1.0),
            "at {i}: {} vs {acc}",
            y[i]
        );
    }
    assert_eq!(
        total,
        y[y.len() - 1],
        "the total is the last inclusive value, bit for bit"
    );
    // Deterministic: a second run gives the same bits.
    let mut dz = DeviceVec::<f32, _>::zeros(&dev, x.len()).unwrap();
    mgpu_scan::scan_inclusive(dx.as_slice(), dz.as_mut_slice(), Plus).unwrap();
    assert!(dz
        .to_vec()
        .unwrap()
        .iter()
        .zip(&y)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn count_scan_overflow_is_an_error() {
    let dev = Simulator::new();
    // The wrap happens in the third tile, far from the end.
    let mut c = vec![1u32; 3 * 3840 + 5];
    c[2 * 3840 + 7] = u32::MAX - 100;
    let dc = DeviceVec::from_slice(&dev, &c).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, c.len()).unwrap();
    let e = mgpu_scan::scan_counts_exclusive(dc.as_slice(), out.as_mut_slice()).unwrap_err();
    assert_eq!(
        e,
        mgpu_runtime::Error::IndexOverflow {
            what: "scan total",
            max: u32::MAX as u64
        }
    );
    // A wrap that only the tile prefix shows: every tile's own running sums stay small,
    // but the second tile starts 6 below the maximum.
    let mut c = vec![1u32; 3 * 3840];
    c[0] = u32::MAX - 3840 - 5;
    let dc = DeviceVec::from_slice(&dev, &c).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, c.len()).unwrap();
    assert!(matches!(
        mgpu_scan::scan_counts_exclusive(dc.as_slice(), out.as_mut_slice()),
        Err(mgpu_runtime::Error::IndexOverflow { .. })
    ));
    // The same counts one short of the wrap fit.
    let c = &c[..3840 + 6];
    let dc = DeviceVec::from_slice(&dev, c).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, c.len()).unwrap();
    assert_eq!(
        mgpu_scan::scan_counts_exclusive(dc.as_slice(), out.as_mut_slice()).unwrap(),
        u32::MAX
    );
    // A total of exactly u32::MAX fits.
    let c = vec![u32::MAX - 3, 1, 1, 1];
    let dc = DeviceVec::from_slice(&dev, &c).unwrap();
    let mut out = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
    assert_eq!(
        mgpu_scan::scan_counts_exclusive(dc.as_slice(), out.as_mut_slice()).unwrap(),
        u32::MAX
    );
    // u64 counts past 2^64.
    let c = vec![u64::MAX / 2, u64::MAX / 2, 2];
    let dc = DeviceVec::from_slice(&dev, &c).unwrap();
    let mut out = DeviceVec::<u64, _>::zeros(&dev, 3).unwrap();
    assert!(matches!(
        mgpu_scan::scan_counts_exclusive(dc.as_slice(), out.as_mut_slice()),
        Err(mgpu_runtime::Error::IndexOverflow { max: u64::MAX, .. })
    ));
}

#[test]
fn length_mismatch_is_an_error() {
    let dev = Simulator::new();
    let x = DeviceVec::from_slice(&dev, &[1i32, 2, 3]).unwrap();
    let mut y = DeviceVec::<i32, _>::zeros(&dev, 2).unwrap();
    assert_eq!(
        mgpu_scan::scan_exclusive(x.as_slice(), y.as_mut_slice(), Plus).unwrap_err(),
        mgpu_runtime::Error::LengthMismatch {
            what: "output",
            expected: 3,
            got: 2
        }
    );
    let mut t = DeviceVec::<i32, _>::zeros(&dev, 2).unwrap();
    let mut y = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
    assert!(mgpu_scan::scan_into(
        x.as_slice(),
        y.as_mut_slice(),
        ScanKind::Exclusive,
        Some(t.as_mut_slice()),
        Plus
    )
    .is_err());
}

#[test]
fn seed_001_counts_scan() {
    // The 50 object counts of seed 001's load-balancing search demonstration.
    let counts: Vec<u32> = vec![
        0, 3, 5, 2, 1, 3, 1, 5, 4, 5, 2, 5, 4, 0, 2, 3, 1, 4, 0, 5, 4, 3, 2, 4, 2, 4, 3, 3, 0, 3,
        1, 4, 4, 4, 4, 2, 0, 3, 0, 5, 0, 0, 0, 0, 2, 2, 3, 0, 4, 4,
    ];
    let dev = Simulator::new();
    let mut d = DeviceVec::from_slice(&dev, &counts).unwrap();
    let total = mgpu_scan::scan_counts_exclusive_in_place(d.as_mut_slice()).unwrap();
    assert_eq!(total, 125);
    let scan = d.to_vec().unwrap();
    assert_eq!(&scan[..10], &[0, 0, 3, 8, 10, 11, 14, 15, 20, 24]);
    assert_eq!(
        &scan[40..],
        &[110, 110, 110, 110, 110, 112, 114, 117, 117, 121]
    );
}

#[test]
fn unaligned_slices_take_the_scalar_path() {
    // Slices at odd offsets are not 16-byte aligned: the reduction reads them as scalars.
    let dev = Simulator::new();
    let x: Vec<i32> = (0..20_000).map(|i| (i * 7919 % 1000) - 500).collect();
    let d = DeviceVec::from_slice(&dev, &x).unwrap();
    for (lo, hi) in [(1, 20_000), (3, 7_683), (5, 6), (2, 3842)] {
        let want: i32 = x[lo..hi].iter().fold(0i32, |a, &b| a.wrapping_add(b));
        let got = mgpu_scan::reduce(d.slice(lo..hi).unwrap(), Plus).unwrap();
        assert_eq!(got, want, "reduce of {lo}..{hi}");
        let (scan, _) = reference::<i32, Plus>(&x[lo..hi], ScanKind::Inclusive);
        let mut y = DeviceVec::<i32, _>::zeros(&dev, hi - lo).unwrap();
        let total =
            mgpu_scan::scan_inclusive(d.slice(lo..hi).unwrap(), y.as_mut_slice(), Plus).unwrap();
        assert_eq!(total, want);
        assert!(y.to_vec().unwrap() == scan, "scan of {lo}..{hi}");
        // An aligned input into an unaligned output.
        let mut z = DeviceVec::<i32, _>::zeros(&dev, hi - lo + lo).unwrap();
        let aligned = d.slice(0..hi - lo).unwrap();
        let (scan, total) = reference::<i32, Plus>(&x[..hi - lo], ScanKind::Exclusive);
        let got = mgpu_scan::scan_exclusive(aligned, z.slice_mut(lo..hi).unwrap(), Plus).unwrap();
        assert_eq!(got, total);
        assert!(
            z.to_vec().unwrap()[lo..] == scan[..],
            "scan into {lo}..{hi}"
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
        let df = DeviceVec::from_slice(&dev, &xf).unwrap();
        assert_eq!(
            mgpu_scan::reduce(df.slice(4..hi.max(4)).unwrap(), Plus).unwrap(),
            wantf
        );
    }
}

#[test]
fn status_block_reuse_across_calls() {
    // The look-back status block is reused between calls without clearing (epochs tag its
    // words): a large scan, a small one over the stale words, and a large one again.
    let dev = Simulator::new();
    for n in [5 * 3840 + 9, 2 * 3840 - 1, 5 * 3840 + 9, 1, 3 * 3840] {
        let x: Vec<u32> = (0..n as u32).map(|i| i % 13).collect();
        let dx = DeviceVec::from_slice(&dev, &x).unwrap();
        let mut dy = DeviceVec::<u32, _>::zeros(&dev, n).unwrap();
        let total = mgpu_scan::scan_inclusive(dx.as_slice(), dy.as_mut_slice(), Plus).unwrap();
        let (want, want_total) = reference::<u32, Plus>(&x, ScanKind::Inclusive);
        assert_eq!(total, want_total, "n={n}");
        assert!(dy.to_vec().unwrap() == want, "n={n}");
    }
}
