//! Deflates every cubin that `manifest.txt` records into `OUT_DIR` and writes
//! `OUT_DIR/cubins.rs`, the table `src/lib.rs` includes: each cubin's name, the digest
//! of the PTX it was built from, its ptxas release and its deflated bytes. A recorded
//! cubin whose file is missing is left out (its family then JIT-compiles its PTX).

use std::{env, fmt::Write as _, fs, path::Path};

#[path = "src/manifest.rs"]
mod manifest;

fn main() {
    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    println!("cargo:rerun-if-changed=manifest.txt");
    let text = fs::read_to_string("manifest.txt").unwrap_or_default();
    let mut table = String::from("&[\n");
    for (name, digest, ptxas) in text.lines().filter_map(manifest::manifest_line) {
        println!("cargo:rerun-if-changed={name}");
        let Ok(bytes) = fs::read(name) else {
            println!("cargo:warning=kernels-ptx/cubin/{name} is in the manifest but missing");
            continue;
        };
        let packed = miniz_oxide::deflate::compress_to_vec(&bytes, 9);
        fs::write(out.join(format!("{name}.deflate")), packed).expect("writing OUT_DIR");
        writeln!(
            table,
            "    Cubin {{ name: {name:?}, ptx_digest: {digest:?}, ptxas: {ptxas:?}, \
             deflated: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{name}.deflate\")) }},"
        )
        .expect("writing to a String");
    }
    table.push_str("]\n");
    fs::write(out.join("cubins.rs"), table).expect("writing OUT_DIR");
}
