//! `cargo xtask test-gpu`: runs every GPU test (the `#[ignore = "needs a CUDA GPU"]`
//! ones) on a machine with a GPU and Rust.

use std::path::Path;
use std::process::Command;

use crate::util::{cargo, run, workspace_root, Result};

/// Entry point: checks for a GPU, then runs
/// `cargo test --release --workspace -- --ignored [extra...]`, `extra` being what
/// followed `test-gpu` on the command line (test-harness arguments such as a filter
/// or `--test-threads=1`).
pub fn test_gpu(extra: &[String]) -> Result<()> {
    let found = detect_gpu()?;
    eprintln!("xtask: {found}");
    let mut cmd = cargo();
    cmd.current_dir(workspace_root())
        .args(["test", "--release", "--workspace", "--", "--ignored"])
        .args(extra);
    run(&mut cmd)
}

/// Where the CUDA driver library may be, besides what `ldconfig` knows.
const LIBCUDA_PATHS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1",
    "/usr/lib/libcuda.so.1",
    "/usr/local/cuda/compat/libcuda.so.1",
    "/usr/lib/wsl/lib/libcuda.so.1",
];

/// Says which GPU is there, or fails with a message for the user when there is none.
///
/// A GPU counts as present when `nvidia-smi -L` runs and lists one (`GPU 0: ...`),
/// or, where nvidia-smi is missing, when the driver library `libcuda.so.1` exists
/// and the driver's device node (`/dev/nvidiactl`, or `/dev/dxg` under WSL) is there.
pub fn detect_gpu() -> Result<String> {
    let smi = Command::new("nvidia-smi").arg("-L").output();
    let smi_problem = match smi {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            let gpus: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("GPU "))
                .collect();
            if !gpus.is_empty() {
                return Ok(format!("found {}", gpus.join("; ")));
            }
            "`nvidia-smi -L` listed no GPU".to_string()
        }
        Ok(out) => format!(
            "`nvidia-smi -L` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => format!("`nvidia-smi -L` could not run ({e})"),
    };

    let libcuda = find_libcuda();
    let node = ["/dev/nvidiactl", "/dev/dxg"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    match (&libcuda, node) {
        (Some(lib), Some(node)) => Ok(format!(
            "{smi_problem}, but the CUDA driver is installed ({lib}, {node}); going on"
        )),
        _ => Err(format!(
            "no CUDA GPU found: {smi_problem}, and {}. The GPU tests need an NVIDIA GPU \
             with its driver; `cargo test` (no GPU) runs everything else",
            match libcuda {
                Some(lib) => format!("{lib} exists but no /dev/nvidiactl"),
                None => "libcuda.so.1 was not found".to_string(),
            }
        )),
    }
}

/// The path of `libcuda.so.1`, from `ldconfig -p` or a usual location.
fn find_libcuda() -> Option<String> {
    if let Ok(out) = Command::new("ldconfig").arg("-p").output() {
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            if line.trim_start().starts_with("libcuda.so.1 ") {
                if let Some((_, path)) = line.rsplit_once("=> ") {
                    return Some(path.trim().to_string());
                }
            }
        }
    }
    LIBCUDA_PATHS
        .iter()
        .find(|p| Path::new(p).exists())
        .map(|p| p.to_string())
}
