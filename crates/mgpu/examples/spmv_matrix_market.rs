//! Reads a sparse matrix in Matrix Market format with `sprs` and multiplies it by a vector
//! on the GPU when there is one (else on the CPU backend), then checks the product against
//! a plain loop over the matrix's entries.
//!
//! ```sh
//! cargo run -p mgpu --features sprs --example spmv_matrix_market -- crates/mgpu/tests/data/pores_1.mtx
//! ```

use mgpu::Backend;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: spmv_matrix_market FILE.mtx")?;
    let triplets = sprs::io::read_matrix_market::<f64, u32, _>(&path)?;
    let a = triplets.to_csr::<u32>();
    println!("{path}: {} x {}, {} nonzeros", a.rows(), a.cols(), a.nnz());
    // x[c] = 1 + c / 10, so every column counts differently.
    let x: Vec<f64> = (0..a.cols()).map(|c| 1.0 + c as f64 / 10.0).collect();
    let backend = Backend::detect();
    println!("{}", backend.describe());
    let y = backend
        .spmv_sprs(a.view(), &backend.upload(&x)?)?
        .to_vec()?;

    let mut want = vec![0.0f64; a.rows()];
    for (&v, (r, c)) in a.iter() {
        want[r as usize] += v * x[c as usize];
    }
    let worst = y
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs() / w.abs().max(1.0))
        .fold(0.0f64, f64::max);
    println!("y[0..{}] = {:?}", y.len().min(4), &y[..y.len().min(4)]);
    println!("largest relative difference from a plain loop: {worst:.2e}");
    if worst > 1e-12 {
        return Err("the product differs from the plain loop".into());
    }
    Ok(())
}
