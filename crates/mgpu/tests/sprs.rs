//! The `sprs` interop on every backend, with real matrices from the Matrix Market
//! collection (`tests/data/README.md`): SpMV of `pores_1` (real general) and `lund_a`
//! (real symmetric, expanded by sprs) against a plain loop over their entries, the rows'
//! maxima with `seg_reduce_sprs`, and unary SpMV of the pattern matrix `jgl009`.
#![cfg(feature = "sprs")]

use mgpu::{Backend, Maximum};
use mgpu_testkit::Target;
use sprs::CsMatI;

/// The test matrix `name`: in `$MGPU_TEST_DATA`, else this crate's `tests/data` where it
/// was built, else `crates/mgpu/tests/data` from the working directory or its parent (a
/// bundle runs its tests in `bundle/`, beside the repository's files).
fn data(name: &str) -> String {
    let candidates = [
        std::env::var("MGPU_TEST_DATA")
            .map(|d| format!("{d}/{name}"))
            .unwrap_or_default(),
        format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")),
        format!("crates/mgpu/tests/data/{name}"),
        format!("../crates/mgpu/tests/data/{name}"),
    ];
    candidates
        .iter()
        .find(|p| !p.is_empty() && std::path::Path::new(p).is_file())
        .unwrap_or_else(|| panic!("test matrix {name} not found in {candidates:?}"))
        .clone()
}

fn read(name: &str) -> CsMatI<f64, u32> {
    let path = data(&format!("{name}.mtx"));
    sprs::io::read_matrix_market::<f64, u32, _>(&path)
        .unwrap_or_else(|e| panic!("{path}: {e:?}"))
        .to_csr()
}

/// `a * x` with `x[c] = 1 + c / 10`, on `b` against a plain loop over the entries, and
/// each row's largest entry.
fn real_matrices(b: &Backend, _: Target) {
    for name in ["pores_1", "lund_a"] {
        let a = read(name);
        let x: Vec<f64> = (0..a.cols()).map(|c| 1.0 + c as f64 / 10.0).collect();
        let y = b
            .spmv_sprs(a.view(), &b.upload(&x).unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        let mut want = vec![0.0f64; a.rows()];
        let mut max = vec![f64::NEG_INFINITY; a.rows()];
        for (&v, (r, c)) in a.iter() {
            want[r as usize] += v * x[c as usize];
            max[r as usize] = max[r as usize].max(v);
        }
        for (r, (g, w)) in y.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "{name} row {r}: {g} vs {w}"
            );
        }
        let got = b
            .seg_reduce_sprs(a.view(), Maximum)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(got, max, "{name}: row maxima");
    }
    let csc = read("pores_1").to_csc();
    let x = b.upload(&[1.0f64; 30]).unwrap();
    assert!(matches!(
        b.spmv_sprs(csc.view(), &x),
        Err(mgpu::Error::InvalidInput(_))
    ));
    let short = b.upload(&[1.0f64; 29]).unwrap();
    assert!(matches!(
        b.spmv_sprs(read("pores_1").view(), &short),
        Err(mgpu::Error::LengthMismatch { .. })
    ));
}

/// The pattern matrix `jgl009` (sprs reads no pattern matrices as numbers: parsed here),
/// by unary SpMV: each row's sum of `x[c]`, bit for bit.
fn pattern_matrix(b: &Backend, _: Target) {
    let text = std::fs::read_to_string(data("jgl009.mtx")).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('%'));
    let dims: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    let mut entries: Vec<(u32, u32)> = lines
        .map(|l| {
            let v: Vec<u32> = l.split_whitespace().map(|v| v.parse().unwrap()).collect();
            (v[0] - 1, v[1] - 1)
        })
        .collect();
    assert_eq!(entries.len(), dims[2]);
    entries.sort_unstable();
    let cols: Vec<u32> = entries.iter().map(|e| e.1).collect();
    let csr: Vec<u32> = (0..dims[0] as u32)
        .map(|r| entries.partition_point(|e| e.0 < r) as u32)
        .collect();
    let x: Vec<i64> = (0..dims[1] as i64).map(|c| 1 + 7 * c).collect();
    let mut want = vec![0i64; dims[0]];
    for &(r, c) in &entries {
        want[r as usize] += x[c as usize];
    }
    let y = b
        .spmv_csr_unary(
            &b.upload(&cols).unwrap(),
            &b.upload(&csr).unwrap(),
            &b.upload(&x).unwrap(),
        )
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(y, want);
}

mgpu_testkit::backend_tests! {
    real_matrices,
    pattern_matrix,
}
