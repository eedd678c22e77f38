//! `cargo xtask package [ARGS..]`: packages every publishable crate of the workspace with
//! `cargo package` (which also builds each from its package, as crates.io will), then
//! checks that each `.crate` is under crates.io's limit on an upload
//! ([`CRATES_IO_LIMIT`]) and prints their sizes. `ARGS` go to `cargo package` (for
//! example `--allow-dirty` or `--no-verify`).

use std::fs;
use std::path::{Path, PathBuf};

use crate::bundle::{workspace_packages, Package};
use crate::json;
use crate::util::{cargo, mib, output, run, workspace_root, Result};

/// crates.io's limit on the size of an uploaded `.crate` (its `max_upload_size`).
pub const CRATES_IO_LIMIT: u64 = 10 * 1024 * 1024;

/// Entry point of `cargo xtask package`.
pub fn package(args: &[String]) -> Result<()> {
    let root = workspace_root();
    let packages: Vec<Package> = workspace_packages(&root)?
        .into_iter()
        .filter(|p| p.publishable)
        .collect();
    let mut cmd = cargo();
    cmd.current_dir(&root).arg("package");
    for p in &packages {
        cmd.args(["-p", &p.name]);
    }
    run(cmd.args(args))?;
    let dir = target_directory(&root)?.join("package");
    let mut sizes = Vec::new();
    for p in &packages {
        let file = dir.join(format!("{}-{}.crate", p.name, p.version));
        let size = fs::metadata(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        sizes.push((p.name.as_str(), size));
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

/// The workspace's target directory, from `cargo metadata`.
fn target_directory(root: &Path) -> Result<PathBuf> {
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"]);
    let meta = json::parse(&output(&mut cmd)?).map_err(|e| format!("cargo metadata: {e}"))?;
    meta.get("target_directory")
        .and_then(json::Value::as_str)
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata: no target_directory".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
