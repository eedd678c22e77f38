//! Deflates every committed `ptx/*.ptx` into `OUT_DIR`, so each binary embeds about a
//! tenth of the text (the committed files stay plain text, for review and `xtask ptx
//! --check`).

use std::{env, fs, path::Path};

fn main() {
    let out = env::var("OUT_DIR").expect("OUT_DIR");
    println!("cargo:rerun-if-changed=ptx");
    for entry in fs::read_dir("ptx").expect("kernels-ptx/ptx") {
        let path = entry.expect("a ptx entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("ptx") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read(&path).expect("a PTX file");
        let packed = miniz_oxide::deflate::compress_to_vec(&text, 9);
        let name = path
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .to_string();
        fs::write(Path::new(&out).join(format!("{name}.deflate")), packed)
            .expect("writing OUT_DIR");
    }
}
