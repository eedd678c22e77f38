//! Deflates every committed `ptx/*.ptx` into `OUT_DIR`, so each binary embeds about a
//! tenth of the text (the committed files stay plain text, for review and `xtask ptx
//! --check`), and writes beside each its [`digest::ptx_digest`], which the crate compares
//! with the digest `mgpu-kernels-cubin` records for the family's cubin.

use std::{env, fs, path::Path};

#[path = "src/digest.rs"]
#[allow(dead_code)]
mod digest;

fn main() {
    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    println!("cargo:rerun-if-changed=ptx");
    for entry in fs::read_dir("ptx").expect("kernels-ptx/ptx") {
        let path = entry.expect("a ptx entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("ptx") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read(&path).expect("a PTX file");
        let stem = path
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .to_string();
        let packed = miniz_oxide::deflate::compress_to_vec(&text, 9);
        fs::write(out.join(format!("{stem}.ptx.deflate")), packed).expect("writing OUT_DIR");
        fs::write(
            out.join(format!("{stem}.ptx.digest")),
            digest::ptx_digest(&text),
        )
        .expect("writing OUT_DIR");
    }
}
