//! `cargo xtask cubin [--check]`: builds the ahead-of-time cubins of every kernel family
//! from its committed PTX with the CUDA toolkit's `ptxas`, a pinned release
//! ([`PTXAS_VERSION`]), and records each in `kernels-ptx/cubin/manifest.txt` with the
//! digest of the PTX it was built from. The folder is the crate `mgpu-kernels-cubin`;
//! `mgpu-kernels-ptx` hands out only cubins whose digest matches its PTX, so a stale one
//! falls back to the PTX and never runs.
//!
//! `ptxas` runs on any x86-64 Linux machine, no GPU needed. It is `$MGPU_PTXAS` when set,
//! else the copy under `target/ptxas/<version>/`, which this command fetches the first
//! time from PyPI (the `nvidia-cuda-nvcc-cu12` wheel, via `python3 -m pip download`).
//! The same release gives the same bytes on every machine, so `--check` rebuilds every
//! cubin and compares.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{display_path, output, render, run, workspace_root, Result};

#[path = "../../kernels-ptx/src/digest.rs"]
#[allow(dead_code)]
mod digest;

#[path = "../../kernels-ptx/cubin/src/manifest.rs"]
mod manifest;

/// The `ptxas` release the committed cubins are built with.
pub const PTXAS_VERSION: &str = "12.9.86";

/// The PyPI package that ships that `ptxas`, and the binary's path inside its wheel.
const PTXAS_WHEEL: (&str, &str) = ("nvidia-cuda-nvcc-cu12", "nvidia/cuda_nvcc/bin/ptxas");

/// The architectures that get cubins (`mgpu_kernels_ptx::CUBIN_ARCHS`), each built from
/// the PTX of the same architecture.
pub const CUBIN_ARCHS: [&str; 1] = ["sm_90"];

/// The folder of the committed cubins and their manifest (the crate `mgpu-kernels-cubin`),
/// relative to the workspace root.
const CUBIN_DIR: &str = "kernels-ptx/cubin";

/// The manifest's first lines.
const MANIFEST_HEADER: &str = "\
# Ahead-of-time cubins of kernels-ptx/ptx, written by `cargo xtask cubin`; do not edit.
# <cubin> <FNV-1a 64 digest of the PTX it was built from> <ptxas release>
";

/// Entry point of `cargo xtask cubin`: `check == false` rebuilds the cubins and the
/// manifest, `check == true` rebuilds them into memory and compares with the committed
/// files.
pub fn cubin(check: bool) -> Result<()> {
    let root = workspace_root();
    let families = crate::ptx::families(&root)?;
    let ptxas = ptxas(&root)?;
    let scratch = root.join("target/cubin-scratch");
    fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let mut manifest = MANIFEST_HEADER.to_string();
    let mut problems = Vec::new();
    let (mut spills, mut kernels) = (Vec::new(), 0usize);
    for family in &families {
        for arch in CUBIN_ARCHS {
            let ptx = crate::ptx::ptx_path(&root, family, arch);
            let text = fs::read(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
            let name = format!("{family}_{arch}.cubin");
            let built = scratch.join(&name);
            let log = ptxas_verbose(
                Command::new(&ptxas)
                    .arg(format!("-arch={arch}"))
                    .arg("-v")
                    .arg(&ptx)
                    .arg("-o")
                    .arg(&built),
            )?;
            let usage = parse_resource_usage(&log);
            kernels += usage.len();
            spills.extend(usage.into_iter().filter(Usage::spills));
            let bytes = fs::read(&built).map_err(|e| format!("{}: {e}", built.display()))?;
            let path = root.join(CUBIN_DIR).join(&name);
            if check {
                if fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
                    problems.push(format!(
                        "{} differs from what ptxas {PTXAS_VERSION} builds from {}",
                        display_path(&path),
                        display_path(&ptx)
                    ));
                }
            } else {
                fs::create_dir_all(root.join(CUBIN_DIR))
                    .map_err(|e| format!("{CUBIN_DIR}: {e}"))?;
                fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
                eprintln!(
                    "xtask: wrote {} ({} KiB)",
                    display_path(&path),
                    bytes.len() / 1024
                );
            }
            manifest.push_str(&format!(
                "{name} {} {PTXAS_VERSION}\n",
                digest::ptx_digest(&text)
            ));
        }
    }
    let spill_report = spill_report(&spills);
    for (name, text) in [("manifest.txt", &manifest), (SPILLS_FILE, &spill_report)] {
        let path = root.join(CUBIN_DIR).join(name);
        if check {
            if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                problems.push(format!(
                    "{} is not what cargo xtask cubin writes",
                    display_path(&path)
                ));
            }
        } else {
            fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    eprintln!(
        "xtask: {} of {kernels} kernels spill registers to a local-memory stack ({CUBIN_DIR}/{SPILLS_FILE})",
        spills.len()
    );
    if problems.is_empty() {
        eprintln!(
            "xtask: cubin{}: {} cubins OK (ptxas {PTXAS_VERSION})",
            if check { " --check" } else { "" },
            families.len() * CUBIN_ARCHS.len()
        );
        return Ok(());
    }
    for p in &problems {
        eprintln!("error: {p}");
    }
    Err(format!(
        "{} cubin problem(s); rebuild with cargo xtask cubin and commit",
        problems.len()
    ))
}

/// The report of the kernels that spill, beside the manifest: what `ptxas -v` says of
/// each kernel compiled with a local-memory stack. Written by `cargo xtask cubin` and
/// compared by `--check`, so that a change in spills shows in review (PTX with no local
/// memory, which `cargo xtask ptx --check` lints, can still spill in `ptxas` at the
/// register cap that the launch bounds set).
const SPILLS_FILE: &str = "spills.txt";

/// The spill report's first lines.
const SPILLS_HEADER: &str = "\
# Kernels that ptxas compiles with a local-memory stack (registers spilled at the cap that
# their launch bounds set), from `ptxas -v`; written by `cargo xtask cubin`; do not edit.
# <kernel> <registers> <stack frame bytes> <spill store bytes> <spill load bytes>
";

/// One kernel's resources as `ptxas -v` reports them.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    /// The entry's name.
    pub name: String,
    /// Registers a thread.
    pub registers: u32,
    /// Bytes of local-memory stack frame.
    pub stack: u32,
    /// Bytes of spill stores.
    pub spill_stores: u32,
    /// Bytes of spill loads.
    pub spill_loads: u32,
}

impl Usage {
    /// Whether the kernel uses a local-memory stack or spills.
    pub fn spills(&self) -> bool {
        self.stack + self.spill_stores + self.spill_loads > 0
    }
}

/// Runs `ptxas -v` (`cmd`) and returns what it printed on stderr, where it reports each
/// kernel's resources; fails when it cannot start or exits non-zero (its output shown).
fn ptxas_verbose(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", render(cmd)))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("`{}` failed ({}):\n{log}", render(cmd), out.status));
    }
    Ok(log)
}

/// The kernels of a `ptxas -v` log with their registers, stack frame and spills, in the
/// log's order.
pub fn parse_resource_usage(log: &str) -> Vec<Usage> {
    let number_before = |line: &str, what: &str| -> Option<u32> {
        let end = line.find(what)?;
        line[..end].split_whitespace().last()?.parse().ok()
    };
    let mut found: Vec<Usage> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            found.push(Usage {
                name,
                registers: 0,
                stack: 0,
                spill_stores: 0,
                spill_loads: 0,
            });
        } else if let Some(u) = found.last_mut() {
            if line.contains("bytes stack frame") {
                u.stack = number_before(line, "bytes stack frame").unwrap_or(0);
                u.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                u.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("registers") && line.contains("Used ") {
                u.registers = number_before(line, "registers").unwrap_or(0);
            }
        }
    }
    found
}

/// The spill report: [`SPILLS_HEADER`] and one line per kernel of `spills`, sorted by
/// name.
fn spill_report(spills: &[Usage]) -> String {
    let mut sorted = spills.to_vec();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut text = SPILLS_HEADER.to_string();
    for u in sorted {
        text.push_str(&format!(
            "{} {} {} {} {}\n",
            u.name, u.registers, u.stack, u.spill_stores, u.spill_loads
        ));
    }
    text
}

/// The problems of the committed manifest against the committed PTX, without `ptxas`
/// (part of `cargo xtask ptx --check`): every family has a cubin for each of
/// [`CUBIN_ARCHS`], recorded with the digest of its PTX as committed now, and the file
/// is there.
pub fn manifest_problems(root: &Path, families: &[String]) -> Result<Vec<String>> {
    let path = root.join(CUBIN_DIR).join("manifest.txt");
    let manifest = fs::read_to_string(&path).unwrap_or_default();
    let recorded: Vec<_> = manifest
        .lines()
        .filter_map(manifest::manifest_line)
        .collect();
    let mut problems = Vec::new();
    let hint = "rebuild with cargo xtask cubin (cargo xtask ptx does) and commit";
    for family in families {
        for arch in CUBIN_ARCHS {
            let name = format!("{family}_{arch}.cubin");
            let ptx = crate::ptx::ptx_path(root, family, arch);
            let text = fs::read(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
            match recorded.iter().find(|(n, _, _)| *n == name) {
                None => problems.push(format!("{CUBIN_DIR}/{name}: not in the manifest; {hint}")),
                Some((_, d, _)) if *d != digest::ptx_digest(&text) => problems.push(format!(
                    "{CUBIN_DIR}/{name} was built from other PTX than {}; {hint}",
                    display_path(&ptx)
                )),
                Some(_) if !root.join(CUBIN_DIR).join(&name).is_file() => {
                    problems.push(format!("{CUBIN_DIR}/{name}: missing; {hint}"))
                }
                Some(_) => {}
            }
        }
    }
    Ok(problems)
}

/// The pinned `ptxas`: `$MGPU_PTXAS`, else `target/ptxas/<version>/ptxas`, fetched from
/// PyPI the first time. Fails when its version is not [`PTXAS_VERSION`].
fn ptxas(root: &Path) -> Result<PathBuf> {
    let path = match std::env::var_os("MGPU_PTXAS") {
        Some(p) => PathBuf::from(p),
        None => {
            let dir = root.join("target/ptxas").join(PTXAS_VERSION);
            let path = dir.join("ptxas");
            if !path.is_file() {
                fetch_ptxas(&dir, &path)?;
            }
            path
        }
    };
    let version = output(Command::new(&path).arg("--version"))?;
    if !version.contains(&format!("V{PTXAS_VERSION}")) {
        return Err(format!(
            "{} is not ptxas {PTXAS_VERSION}: {}",
            path.display(),
            version.trim()
        ));
    }
    Ok(path)
}

/// Downloads the wheel that holds `ptxas` [`PTXAS_VERSION`] into `dir` and extracts the
/// binary to `path`.
fn fetch_ptxas(dir: &Path, path: &Path) -> Result<()> {
    let (package, member) = PTXAS_WHEEL;
    eprintln!("xtask: fetching ptxas {PTXAS_VERSION} ({package} from PyPI)");
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run(Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--quiet", "-d"])
        .arg(dir)
        .arg(format!("{package}=={PTXAS_VERSION}")))
    .map_err(|e| {
        format!("{e}\n(cargo xtask cubin needs python3 with pip and PyPI, or MGPU_PTXAS)")
    })?;
    let extract = "import sys, zipfile, glob, os\n\
         wheel = glob.glob(os.path.join(sys.argv[1], '*.whl'))[0]\n\
         open(sys.argv[3], 'wb').write(zipfile.ZipFile(wheel).read(sys.argv[2]))\n\
         os.chmod(sys.argv[3], 0o755)";
    run(Command::new("python3")
        .args(["-c", extract])
        .arg(dir)
        .arg(member)
        .arg(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_usage_from_a_ptxas_log() {
        let log = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'scan_downsweep_f64_plus' for 'sm_90'
ptxas info    : Function properties for scan_downsweep_f64_plus
    40 bytes stack frame, 36 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 40 bytes cumulative stack size
ptxas info    : Compile time = 21.093 ms
ptxas info    : Compiling entry function 'scan_partials_f32_plus' for 'sm_90'
ptxas info    : Function properties for scan_partials_f32_plus
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers
";
        let u = parse_resource_usage(log);
        assert_eq!(u.len(), 2);
        assert_eq!(
            u[0],
            Usage {
                name: "scan_downsweep_f64_plus".into(),
                registers: 40,
                stack: 40,
                spill_stores: 36,
                spill_loads: 36
            }
        );
        assert!(u[0].spills());
        assert_eq!((u[1].registers, u[1].spills()), (32, false));
        let report = spill_report(&u[..1]);
        assert!(report.starts_with(SPILLS_HEADER));
        assert!(report.ends_with("scan_downsweep_f64_plus 40 40 36 36\n"));
    }
}
