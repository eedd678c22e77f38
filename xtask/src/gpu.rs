//! `cargo xtask test-gpu`: runs every GPU test (the `#[ignore = "needs a CUDA GPU"]`
//! ones) on a machine with a GPU and Rust; `--large` runs the large-size group alone and
//! `--sanitize` runs the GPU tests under compute-sanitizer, through the bundle's `run.sh`.

use std::path::Path;
use std::process::Command;

use crate::bundle::LARGE_PREFIX;
use crate::util::{cargo, run, workspace_root, Result};

/// What `test-gpu` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// Every GPU test but the large group, with extra test-harness arguments.
    Normal(Vec<String>),
    /// The large-size group (tests named `large_*`), with extra harness arguments.
    Large(Vec<String>),
    /// Every GPU test but the large group under compute-sanitizer: `run.sh --sanitize`,
    /// with `--tools LIST` when given.
    Sanitize(Option<String>),
}

/// Parses the arguments after `test-gpu`: `[--large | --sanitize [--tools LIST]] [--] [ARGS..]`.
pub fn parse_args(args: &[String]) -> Result<Mode> {
    let rest = |r: &[String]| match r.first().map(String::as_str) {
        Some("--") => r[1..].to_vec(),
        _ => r.to_vec(),
    };
    match args.first().map(String::as_str) {
        Some("--large") => Ok(Mode::Large(rest(&args[1..]))),
        Some("--sanitize") => match &args[1..] {
            [] => Ok(Mode::Sanitize(None)),
            [flag, list] if flag == "--tools" => Ok(Mode::Sanitize(Some(list.clone()))),
            other => Err(format!(
                "test-gpu --sanitize takes only `--tools LIST`, not {other:?}"
            )),
        },
        _ => Ok(Mode::Normal(rest(args))),
    }
}

/// Entry point: checks for a GPU, then runs
/// `cargo test --release --workspace -- --ignored --skip large_ [extra...]` (normal),
/// `cargo test --release --workspace -- --ignored large_ [extra...]` (`--large`), or
/// builds the bundle into `target/bundle-sanitize` and runs its `run.sh --sanitize`.
pub fn test_gpu(mode: Mode) -> Result<()> {
    let found = detect_gpu()?;
    eprintln!("xtask: {found}");
    let root = workspace_root();
    let harness: Vec<String> = match mode {
        Mode::Normal(extra) => ["--ignored", "--skip", LARGE_PREFIX]
            .into_iter()
            .map(String::from)
            .chain(extra)
            .collect(),
        Mode::Large(extra) => ["--ignored", LARGE_PREFIX]
            .into_iter()
            .map(String::from)
            .chain(extra)
            .collect(),
        Mode::Sanitize(tools) => {
            let dir = root.join("target").join("bundle-sanitize");
            crate::bundle::bundle(Some(dir.clone()))?;
            let mut cmd = Command::new(dir.join("run.sh"));
            cmd.arg("--sanitize");
            if let Some(list) = tools {
                cmd.args(["--tools", &list]);
            }
            return run(&mut cmd);
        }
    };
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["test", "--release", "--workspace", "--"])
        .args(harness);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn modes() {
        assert_eq!(parse_args(&[]).unwrap(), Mode::Normal(vec![]));
        assert_eq!(
            parse_args(&s(&["--", "scan"])).unwrap(),
            Mode::Normal(s(&["scan"]))
        );
        assert_eq!(
            parse_args(&s(&["--large", "bulk"])).unwrap(),
            Mode::Large(s(&["bulk"]))
        );
        assert_eq!(
            parse_args(&s(&["--sanitize"])).unwrap(),
            Mode::Sanitize(None)
        );
        assert_eq!(
            parse_args(&s(&["--sanitize", "--tools", "memcheck"])).unwrap(),
            Mode::Sanitize(Some("memcheck".into()))
        );
        assert!(parse_args(&s(&["--sanitize", "scan"])).is_err());
    }
}
