//! `cargo xtask package [ARGS..]`: checks that every publishable crate of the workspace
//! sets the registry metadata ([`REGISTRY_FIELDS`]), packages them with `cargo package`
//! (which also builds each from its package, as crates.io will), checks that each
//! package holds its README and both license texts ([`PACKAGE_FILES`]; the unpacked copy
//! that the build used) and that each `.crate` is under crates.io's limit on an upload
//! ([`CRATES_IO_LIMIT`]), and prints their sizes. `ARGS` go to `cargo package` (for
//! example `--allow-dirty`; with `--no-verify` there is no unpacked copy to look into).

use std::fs;
use std::path::PathBuf;

use crate::bundle::{cargo_metadata, parse_metadata, Package, REGISTRY_FIELDS};
use crate::json;
use crate::util::{cargo, mib, run, workspace_root, Result};

/// crates.io's limit on the size of an uploaded `.crate` (its `max_upload_size`).
pub const CRATES_IO_LIMIT: u64 = 10 * 1024 * 1024;

/// The files every package carries: its README and the texts of both licenses of
/// `MIT OR Apache-2.0`.
pub const PACKAGE_FILES: [&str; 3] = ["README.md", "LICENSE-MIT", "LICENSE-APACHE"];

/// Removes the sources cargo extracted from earlier packagings of `packages`
/// (`$CARGO_HOME/registry/src/*/<name>-<version>`). Verifying several packages at once
/// builds each against the others through a local registry of this run's `.crate`
/// files, and cargo extracts a crate of a given name and version only once per registry
/// path: without this (and without a fresh target directory for the verification, where
/// the builds of those sources stay), a package whose code changed since an earlier run
/// of the same version on this machine would be verified against its old source.
fn forget_extracted(packages: &[Package]) {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return;
    };
    let Ok(registries) = fs::read_dir(&src) else {
        return;
    };
    for reg in registries.flatten() {
        for p in packages {
            let dir = reg.path().join(format!("{}-{}", p.name, p.version));
            if dir.is_dir() {
                let _ = fs::remove_dir_all(&dir);
            }
        }
    }
}

/// Entry point of `cargo xtask package`.
pub fn package(args: &[String]) -> Result<()> {
    let root = workspace_root();
    let metadata = cargo_metadata(&root)?;
    let packages: Vec<Package> = parse_metadata(&metadata)?
        .into_iter()
        .filter(|p| p.publishable)
        .collect();
    let missing = metadata_problems(&packages);
    if !missing.is_empty() {
        return Err(format!(
            "registry metadata missing:\n  {}",
            missing.join("\n  ")
        ));
    }
    forget_extracted(&packages);
    // Cargo also keeps what it built from those registry sources, by name and version, in
    // the target directory the verification builds in: give it an empty one of its own
    // (the packages land in its `package` folder).
    let verify = target_directory(&metadata)?.join("package-verify");
    if verify.is_dir() {
        fs::remove_dir_all(&verify).map_err(|e| format!("{}: {e}", verify.display()))?;
    }
    let dir = verify.join("package");
    let mut cmd = cargo();
    cmd.current_dir(&root)
        .arg("package")
        .arg("--target-dir")
        .arg(&verify);
    for p in &packages {
        cmd.args(["-p", &p.name]);
    }
    run(cmd.args(args))?;
    let mut sizes = Vec::new();
    for p in &packages {
        let file = dir.join(format!("{}-{}.crate", p.name, p.version));
        let size = fs::metadata(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        sizes.push((p.name.as_str(), size));
    }
    if !args.iter().any(|a| a == "--no-verify") {
        let mut absent = Vec::new();
        for p in &packages {
            let unpacked = dir.join(format!("{}-{}", p.name, p.version));
            for f in PACKAGE_FILES {
                if !unpacked.join(f).is_file() {
                    absent.push(format!("{}: no {f}", p.name));
                }
            }
        }
        if !absent.is_empty() {
            return Err(format!(
                "packages without their files:\n  {}",
                absent.join("\n  ")
            ));
        }
    }
    let report = size_report(&sizes);
    eprint!("{report}");
    let over: Vec<&str> = sizes
        .iter()
        .filter(|&&(_, size)| size > CRATES_IO_LIMIT)
        .map(|&(name, _)| name)
        .collect();
    if over.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "over crates.io's {} limit: {}",
            mib(CRATES_IO_LIMIT),
            over.join(", ")
        ))
    }
}

/// One line per registry field ([`REGISTRY_FIELDS`]) a package leaves unset.
fn metadata_problems(packages: &[Package]) -> Vec<String> {
    let mut problems = Vec::new();
    for p in packages {
        for f in REGISTRY_FIELDS {
            if !p.metadata.contains(&f) {
                problems.push(format!("{}: no {f}", p.name));
            }
        }
    }
    problems
}

/// One line per package, `name size percent-of-limit`, largest first.
fn size_report(sizes: &[(&str, u64)]) -> String {
    let mut sorted = sizes.to_vec();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut text = format!(
        "xtask: {} packages (crates.io takes at most {} each)\n",
        sorted.len(),
        mib(CRATES_IO_LIMIT)
    );
    for (name, size) in sorted {
        let percent = size as f64 * 100.0 / CRATES_IO_LIMIT as f64;
        let kib = size as f64 / 1024.0;
        text.push_str(&format!("  {name:<24} {kib:>9.1} KiB {percent:>5.1} %\n"));
    }
    text
}

/// The workspace's target directory, from `cargo metadata` JSON.
fn target_directory(metadata: &str) -> Result<PathBuf> {
    let meta = json::parse(metadata).map_err(|e| format!("cargo metadata: {e}"))?;
    meta.get("target_directory")
        .and_then(json::Value::as_str)
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata: no target_directory".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_problems_name_the_package_and_the_field() {
        let pkg = |metadata: Vec<&'static str>| Package {
            name: "mgpu-x".into(),
            manifest_path: String::new(),
            bins: Vec::new(),
            version: "0.1.0".into(),
            publishable: true,
            metadata,
        };
        assert!(metadata_problems(&[pkg(REGISTRY_FIELDS.to_vec())]).is_empty());
        let without_keywords: Vec<_> = REGISTRY_FIELDS
            .into_iter()
            .filter(|&f| f != "keywords")
            .collect();
        assert_eq!(
            metadata_problems(&[pkg(without_keywords)]),
            ["mgpu-x: no keywords"]
        );
    }

    #[test]
    fn report_lists_largest_first_with_percent_of_limit() {
        let report = size_report(&[("small", 1024), ("big", CRATES_IO_LIMIT / 2)]);
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains("2 packages"), "{report}");
        assert!(lines[1].trim_start().starts_with("big"), "{report}");
        assert!(lines[1].ends_with("50.0 %"), "{report}");
        assert!(lines[2].contains("1.0 KiB"), "{report}");
    }
}
