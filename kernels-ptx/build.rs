//! Deflates every committed `ptx/*.ptx` into `OUT_DIR`, so each binary embeds about a
//! tenth of the text (the committed files stay plain text, for review and `xtask ptx
//! --check`), and with each `<family>_<arch>.ptx` the ahead-of-time cubin
//! `cubin/<family>_<arch>.cubin` when `cubin/manifest.txt` records it as built from that
//! very PTX (its digest). Any other cubin, stale or missing, is embedded as empty: that
//! family then falls back to JIT-compiling its PTX.

use std::{env, fs, path::Path};

#[path = "src/digest.rs"]
#[allow(dead_code)]
mod digest;

fn main() {
    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    println!("cargo:rerun-if-changed=ptx");
    println!("cargo:rerun-if-changed=cubin");
    let manifest = fs::read_to_string("cubin/manifest.txt").unwrap_or_default();
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
        deflate_to(out, &format!("{stem}.ptx"), &text);
        let cubin = format!("{stem}.cubin");
        let digest = digest::ptx_digest(&text);
        let recorded = manifest
            .lines()
            .filter_map(digest::manifest_line)
            .find(|&(name, _, _)| name == cubin);
        let bytes = match recorded {
            Some((_, d, _)) if d == digest => {
                let file = Path::new("cubin").join(&cubin);
                println!("cargo:rerun-if-changed={}", file.display());
                fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            }
            Some(_) => {
                println!(
                    "cargo:warning=kernels-ptx/cubin/{cubin} was built from other PTX than \
                     ptx/{stem}.ptx: not embedded (the family JIT-compiles its PTX); \
                     rebuild it with `cargo xtask cubin`"
                );
                Vec::new()
            }
            None => Vec::new(),
        };
        deflate_to(out, &cubin, &bytes);
    }
}

/// Writes `bytes`, deflated, to `OUT_DIR/<name>.deflate` (nothing deflates to an empty
/// file: the crate reads that as "none").
fn deflate_to(out: &Path, name: &str, bytes: &[u8]) {
    let packed = if bytes.is_empty() {
        Vec::new()
    } else {
        miniz_oxide::deflate::compress_to_vec(bytes, 9)
    };
    fs::write(out.join(format!("{name}.deflate")), packed).expect("writing OUT_DIR");
}
