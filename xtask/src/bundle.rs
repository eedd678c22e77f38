//! `cargo xtask bundle [--out DIR]`: stripped release demo, benchmark and GPU test
//! binaries plus a `run.sh`, in one folder that runs on a GPU machine without Rust
//! (DESIGN.md §6), and the CUDA sources of the benchmark's peers (`benches/cuda/*.cu`,
//! `*.cuh`, into `cuda/`), which `run.sh --peers` builds there with nvcc.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::json::{self, Value};
use crate::util::{cargo, dir_size, display_path, mib, output, render, workspace_root, Result};

mod run_sh;
pub use run_sh::{run_script, LARGE_PREFIX};

/// The packed bundle may not be larger than this: the device tool sends at most 64 MiB,
/// the working tree (about 25 MiB, most of it the committed PTX and cubins) included.
const MAX_PACKED_BYTES: u64 = 32 * 1024 * 1024;

/// The demo: (package, bin). Required.
const DEMO: (&str, &str) = ("mgpu-demo", "mgpu-demo");

/// The GPU benchmark: (package, bin). Skipped with a warning while it does not exist.
const BENCH: (&str, &str) = ("mgpu-benches", "mgpu-bench");

/// The CUDA sources of the benchmark's peers and bound kernels, relative to the workspace.
const CUDA_SOURCES: &str = "benches/cuda";

/// Where the bundle keeps them (`run.sh --peers` builds `cuda/peers` there).
const BUNDLE_CUDA: &str = "cuda";

/// A test executable that cargo built.
#[derive(Debug, Clone, PartialEq)]
pub struct TestExe {
    /// The package it belongs to.
    pub package: String,
    /// The target name (the lib's crate name for unit tests, the file for `tests/`).
    pub target: String,
    /// Where cargo put it.
    pub path: PathBuf,
}

/// Entry point: builds and fills `out` (default `<workspace>/bundle`).
pub fn bundle(out: Option<PathBuf>) -> Result<()> {
    let root = workspace_root();
    let out = out.unwrap_or_else(|| root.join("bundle"));
    // Every binary embeds the committed PTX and cubins (kernels-ptx), not the kernel
    // sources: a kernel changed without `cargo xtask ptx` would be measured as it was.
    crate::ptx::ptx(true).map_err(|e| {
        format!(
            "{e}\nxtask: bundle: the binaries embed kernels-ptx, which does not match the \
             kernel sources: run `cargo xtask ptx` first"
        )
    })?;
    prepare_out_dir(&out)?;

    let packages = workspace_packages(&root)?;
    let has_bin = |(pkg, bin): (&str, &str)| {
        packages
            .iter()
            .any(|p| p.name == pkg && p.bins.iter().any(|b| b == bin))
    };
    if !has_bin(DEMO) {
        return Err(format!("package {} has no bin target {}", DEMO.0, DEMO.1));
    }
    let with_bench = has_bin(BENCH);
    if !with_bench {
        eprintln!(
            "warning: package {} has no bin target {}; the bundle has no benchmark",
            BENCH.0, BENCH.1
        );
    }

    // The demo and the benchmark, stripped.
    let mut cmd = stripped_cargo(&root);
    cmd.args([
        "build",
        "--release",
        "--message-format=json-render-diagnostics",
    ])
    .args(["-p", DEMO.0, "--bin", DEMO.1]);
    if with_bench {
        cmd.args(["-p", BENCH.0, "--bin", BENCH.1]);
    }
    eprintln!("xtask: {}", render(&cmd));
    let bins = bin_executables(&output(&mut cmd)?)?;
    let mut copied = Vec::new();
    for (_, bin) in [DEMO].into_iter().chain(with_bench.then_some(BENCH)) {
        let exe = bins
            .get(bin)
            .ok_or_else(|| format!("cargo reported no executable for bin {bin}"))?;
        copy_exe(exe, &out.join(bin))?;
        copied.push(bin.to_string());
    }

    // Every test executable with at least one ignored (GPU) test, the facade's optional
    // interop included (its tests read the test matrices from the bundle's data folder).
    let mut cmd = stripped_cargo(&root);
    cmd.args([
        "test",
        "--release",
        "--workspace",
        "--features",
        "mgpu/sprs",
        "--no-run",
    ])
    .arg("--message-format=json-render-diagnostics");
    eprintln!("xtask: {}", render(&cmd));
    let manifest_to_package: BTreeMap<&str, &str> = packages
        .iter()
        .map(|p| (p.manifest_path.as_str(), p.name.as_str()))
        .collect();
    let tests = test_executables(&output(&mut cmd)?, &manifest_to_package)?;
    let mut test_names = Vec::new();
    let mut large_only = Vec::new();
    for t in &tests {
        let listed = output(Command::new(&t.path).args(["--list", "--ignored"]))?;
        let count = count_listed_tests(&listed);
        let name = format!("test-{}-{}", t.package, t.target);
        if let Some(bad) = misnamed_large_test(&listed) {
            return Err(format!(
                "{name}: test `{bad}` has `{LARGE_PREFIX}` in its name but not as the start of \
                 its last segment: run.sh selects the large group by that substring, so rename it"
            ));
        }
        if count == 0 {
            eprintln!("xtask: {name}: no GPU test, left out");
            continue;
        }
        if test_names.contains(&name) {
            return Err(format!("two test executables would both be named {name}"));
        }
        eprintln!("xtask: {name}: {count} GPU test{}", plural(count));
        copy_exe(&t.path, &out.join(&name))?;
        if count_large_tests(&listed) == count {
            large_only.push(name.clone());
        }
        test_names.push(name);
    }
    if test_names.is_empty() {
        eprintln!("warning: no test executable has an ignored (GPU) test");
    }

    let sources = copy_cuda_sources(&root.join(CUDA_SOURCES), &out.join(BUNDLE_CUDA))?;
    eprintln!(
        "xtask: {BUNDLE_CUDA}/: {} (built by run.sh --peers)",
        sources.join(", ")
    );

    let script = out.join("run.sh");
    fs::write(&script, run_script(&test_names, &large_only, with_bench))
        .map_err(|e| format!("{}: {e}", script.display()))?;
    make_executable(&script)?;

    let size = dir_size(&out)?;
    eprintln!(
        "xtask: bundle {}: {} + {} test binar{} + {} CUDA source{} + run.sh, {}",
        display_path(&out),
        copied.join(" + "),
        test_names.len(),
        if test_names.len() == 1 { "y" } else { "ies" },
        sources.len(),
        plural(sources.len()),
        mib(size)
    );
    let packed = pack(&out)?;
    let packed_size = fs::metadata(&packed)
        .map_err(|e| format!("{}: {e}", packed.display()))?
        .len();
    eprintln!(
        "xtask: packed into {} ({}): carry it and run `tar xJf {} && {}/run.sh`",
        display_path(&packed),
        mib(packed_size),
        packed.file_name().unwrap_or_default().to_string_lossy(),
        out.file_name().unwrap_or_default().to_string_lossy(),
    );
    if packed_size > MAX_PACKED_BYTES {
        return Err(format!(
            "the packed bundle is {}, over the limit of {}: keep the GPU tests in fewer \
             binaries (each embeds the PTX)",
            mib(packed_size),
            mib(MAX_PACKED_BYTES)
        ));
    }
    Ok(())
}

/// Packs the bundle folder `out` into `<out>.tar.xz` beside it, with a dictionary larger
/// than the bundle: every binary embeds the same deflated PTX and cubins, which one
/// dictionary stores once (a 66 MiB bundle packs into about 6 MiB).
fn pack(out: &Path) -> Result<PathBuf> {
    let parent = out.parent().ok_or("the bundle folder has no parent")?;
    let name = out.file_name().ok_or("the bundle folder has no name")?;
    let packed = parent.join(format!("{}.tar.xz", name.to_string_lossy()));
    let file = fs::File::create(&packed).map_err(|e| format!("{}: {e}", packed.display()))?;
    let mut tar = Command::new("tar")
        .arg("-C")
        .arg(parent)
        .arg("-cf")
        .arg("-")
        .arg(name)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    let tar_out = tar.stdout.take().ok_or("tar has no stdout")?;
    let xz = Command::new("xz")
        .args(["-T0", "--lzma2=preset=6,dict=192MiB", "-c"])
        .stdin(tar_out)
        .stdout(file)
        .status()
        .map_err(|e| format!("cannot run xz: {e}"))?;
    let tar = tar.wait().map_err(|e| format!("tar: {e}"))?;
    if !tar.success() || !xz.success() {
        return Err(format!(
            "packing {} failed (tar {tar}, xz {xz})",
            out.display()
        ));
    }
    Ok(packed)
}

/// `s` for a count other than one.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Creates `out`, removing what an earlier bundle left there (`run.sh`, the demo,
/// the benchmark, `test-*`, the `cuda/` folder); other files are left alone.
fn prepare_out_dir(out: &Path) -> Result<()> {
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let cuda = out.join(BUNDLE_CUDA);
    if cuda.is_dir() {
        fs::remove_dir_all(&cuda).map_err(|e| format!("{}: {e}", cuda.display()))?;
    }
    for entry in fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", out.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "run.sh" || name == DEMO.1 || name == BENCH.1 || name.starts_with("test-") {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// A cargo command in the workspace root whose release and bench profiles strip
/// symbols (`cargo test --release` builds tests with the bench profile's settings).
fn stripped_cargo(root: &Path) -> Command {
    let mut cmd = cargo();
    cmd.current_dir(root)
        .env("CARGO_PROFILE_RELEASE_STRIP", "symbols")
        .env("CARGO_PROFILE_BENCH_STRIP", "symbols");
    cmd
}

/// A workspace package as `cargo metadata` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// Package name.
    pub name: String,
    /// Absolute path of its Cargo.toml.
    pub manifest_path: String,
    /// Names of its bin targets.
    pub bins: Vec<String>,
    /// Its version.
    pub version: String,
    /// Whether it may be published (`publish` not `false` or an empty list).
    pub publishable: bool,
    /// The registry metadata fields it sets ([`REGISTRY_FIELDS`]; strings non-empty,
    /// lists with an entry).
    pub metadata: Vec<&'static str>,
}

/// The manifest fields a published crate must set: what crates.io shows and searches.
pub const REGISTRY_FIELDS: [&str; 6] = [
    "description",
    "license",
    "readme",
    "documentation",
    "keywords",
    "categories",
];

/// What `cargo metadata --no-deps` prints for the workspace (JSON).
pub fn cargo_metadata(root: &Path) -> Result<String> {
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"]);
    output(&mut cmd)
}

/// The workspace's packages, from `cargo metadata --no-deps`.
fn workspace_packages(root: &Path) -> Result<Vec<Package>> {
    parse_metadata(&cargo_metadata(root)?)
}

/// Reads the packages out of `cargo metadata` JSON.
pub fn parse_metadata(text: &str) -> Result<Vec<Package>> {
    let meta = json::parse(text).map_err(|e| format!("cargo metadata: {e}"))?;
    let mut packages = Vec::new();
    for p in meta
        .get("packages")
        .map(Value::as_array)
        .unwrap_or_default()
    {
        let field = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or_default();
        let bins = p
            .get("targets")
            .map(Value::as_array)
            .unwrap_or_default()
            .iter()
            .filter(|t| has_kind(t, "bin"))
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        // `cargo metadata` writes `publish: null` for "anywhere" and a list of registries
        // otherwise (`publish = false` is the empty list).
        let publishable = !matches!(p.get("publish"), Some(Value::Array(r)) if r.is_empty());
        let metadata = REGISTRY_FIELDS
            .into_iter()
            .filter(|k| match p.get(k) {
                Some(Value::Str(v)) => !v.is_empty(),
                Some(Value::Array(v)) => !v.is_empty(),
                _ => false,
            })
            .collect();
        packages.push(Package {
            name: field("name").to_string(),
            manifest_path: field("manifest_path").to_string(),
            bins,
            version: field("version").to_string(),
            publishable,
            metadata,
        });
    }
    Ok(packages)
}

/// Whether a cargo target object lists `kind` in its `kind` array.
fn has_kind(target: &Value, kind: &str) -> bool {
    target
        .get("kind")
        .map(Value::as_array)
        .unwrap_or_default()
        .iter()
        .any(|k| k.as_str() == Some(kind))
}

/// The `compiler-artifact` messages of cargo's JSON output, parsed.
fn artifacts(messages: &str) -> Result<Vec<Value>> {
    let mut found = Vec::new();
    for line in messages.lines() {
        if !line.starts_with('{') || !line.contains("\"compiler-artifact\"") {
            continue;
        }
        let v = json::parse(line).map_err(|e| format!("cargo message: {e}"))?;
        if v.get("reason").and_then(Value::as_str) == Some("compiler-artifact") {
            found.push(v);
        }
    }
    Ok(found)
}

/// Bin name to executable, from the JSON messages of `cargo build`.
pub fn bin_executables(messages: &str) -> Result<BTreeMap<String, PathBuf>> {
    let mut bins = BTreeMap::new();
    for a in artifacts(messages)? {
        let target = a.get("target");
        let exe = a.get("executable").and_then(Value::as_str);
        let name = target.and_then(|t| t.get("name")).and_then(Value::as_str);
        if let (Some(t), Some(exe), Some(name)) = (target, exe, name) {
            if has_kind(t, "bin") {
                bins.insert(name.to_string(), PathBuf::from(exe));
            }
        }
    }
    Ok(bins)
}

/// The test executables in the JSON messages of `cargo test --no-run`: artifacts
/// with `profile.test == true` and an `executable`. `manifest_to_package` names the
/// package of each manifest path.
pub fn test_executables(
    messages: &str,
    manifest_to_package: &BTreeMap<&str, &str>,
) -> Result<Vec<TestExe>> {
    let mut tests = Vec::new();
    for a in artifacts(messages)? {
        let is_test = a
            .get("profile")
            .and_then(|p| p.get("test"))
            .and_then(Value::as_bool)
            == Some(true);
        let Some(exe) = a.get("executable").and_then(Value::as_str) else {
            continue;
        };
        if !is_test {
            continue;
        }
        let target = a
            .get("target")
            .and_then(|t| t.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let manifest = a
            .get("manifest_path")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let package = manifest_to_package
            .get(manifest)
            .copied()
            .ok_or_else(|| format!("test executable {exe}: unknown manifest {manifest:?}"))?;
        tests.push(TestExe {
            package: package.to_string(),
            target: target.to_string(),
            path: PathBuf::from(exe),
        });
    }
    Ok(tests)
}

/// The number of tests in the output of a libtest `--list` (lines `name: test`).
pub fn count_listed_tests(listing: &str) -> usize {
    listing
        .lines()
        .filter(|l| l.trim_end().ends_with(": test"))
        .count()
}

/// The first test of a libtest `--list` whose name contains [`LARGE_PREFIX`] without its
/// last `::` segment starting with it: `run.sh` picks the large group by substring (the
/// test harness's filters), so such a test would land in the wrong group.
pub fn misnamed_large_test(listing: &str) -> Option<&str> {
    listing
        .lines()
        .filter_map(|l| l.trim_end().strip_suffix(": test"))
        .find(|name| {
            let last = name.rsplit("::").next().unwrap_or(name);
            name.contains(LARGE_PREFIX) && !last.starts_with(LARGE_PREFIX)
        })
}

/// The tests of a libtest `--list` whose last `::` segment starts with [`LARGE_PREFIX`].
pub fn count_large_tests(listing: &str) -> usize {
    listing
        .lines()
        .filter_map(|l| l.trim_end().strip_suffix(": test"))
        .filter(|name| {
            name.rsplit("::")
                .next()
                .is_some_and(|last| last.starts_with(LARGE_PREFIX))
        })
        .count()
}

/// Whether a file name is a CUDA source the bundle carries (`.cu`, `.cuh`).
fn is_cuda_source(name: &str) -> bool {
    name.ends_with(".cu") || name.ends_with(".cuh")
}

/// Copies the CUDA sources of folder `from` (not its subfolders, nor what was built there)
/// into `to`, created here; returns their names, sorted. A few tens of KiB.
fn copy_cuda_sources(from: &Path, to: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_cuda_source(&name) && entry.path().is_file() {
            names.push(name);
        }
    }
    names.sort();
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for name in &names {
        let (src, dst) = (from.join(name), to.join(name));
        fs::copy(&src, &dst)
            .map_err(|e| format!("copy {} to {}: {e}", src.display(), dst.display()))?;
    }
    Ok(names)
}

/// Copies an executable into the bundle, keeping its permissions.
fn copy_exe(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to).map_err(|e| format!("copy {} to {}: {e}", from.display(), to.display()))?;
    Ok(())
}

/// Marks `path` executable (rwxr-xr-x).
#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Marks `path` executable: nothing to do off Unix.
#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_packages_and_bins() {
        let text = r#"{"packages":[{"name":"mgpu-demo","version":"0.1.0","publish":[],"manifest_path":"/w/crates/mgpu-demo/Cargo.toml","targets":[{"kind":["bin"],"name":"mgpu-demo"}]},{"name":"mgpu-scan","version":"0.2.0","publish":null,"manifest_path":"/w/crates/mgpu-scan/Cargo.toml","targets":[{"kind":["lib"],"name":"mgpu_scan"}]}],"workspace_root":"/w","version":1}"#;
        let p = parse_metadata(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].bins, ["mgpu-demo"]);
        assert!(p[1].bins.is_empty());
        assert_eq!(p[1].manifest_path, "/w/crates/mgpu-scan/Cargo.toml");
        assert!(!p[0].publishable);
        assert!(p[1].publishable);
        assert!(p[0].metadata.is_empty());
        assert_eq!(p[1].version, "0.2.0");
    }

    #[test]
    fn executables_from_cargo_messages() {
        let messages = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/mgpu-core#0.1.0","manifest_path":"/w/crates/mgpu-core/Cargo.toml","target":{"kind":["lib"],"name":"mgpu_core"},"profile":{"test":false},"executable":null,"fresh":true}
{"reason":"compiler-artifact","package_id":"x","manifest_path":"/w/crates/mgpu-core/Cargo.toml","target":{"kind":["lib"],"name":"mgpu_core"},"profile":{"test":true},"executable":"/w/target/release/deps/mgpu_core-ab","fresh":false}
{"reason":"compiler-artifact","package_id":"y","manifest_path":"/w/crates/mgpu-scan/Cargo.toml","target":{"kind":["test"],"name":"gpu"},"profile":{"test":true},"executable":"/w/target/release/deps/gpu-cd","fresh":false}
{"reason":"compiler-artifact","package_id":"z","manifest_path":"/w/crates/mgpu-demo/Cargo.toml","target":{"kind":["bin"],"name":"mgpu-demo"},"profile":{"test":false},"executable":"/w/target/release/mgpu-demo","fresh":false}
{"reason":"build-finished","success":true}
Finished something
"#;
        let map: BTreeMap<&str, &str> = [
            ("/w/crates/mgpu-core/Cargo.toml", "mgpu-core"),
            ("/w/crates/mgpu-scan/Cargo.toml", "mgpu-scan"),
            ("/w/crates/mgpu-demo/Cargo.toml", "mgpu-demo"),
        ]
        .into_iter()
        .collect();
        let tests = test_executables(messages, &map).unwrap();
        assert_eq!(
            tests,
            [
                TestExe {
                    package: "mgpu-core".into(),
                    target: "mgpu_core".into(),
                    path: "/w/target/release/deps/mgpu_core-ab".into()
                },
                TestExe {
                    package: "mgpu-scan".into(),
                    target: "gpu".into(),
                    path: "/w/target/release/deps/gpu-cd".into()
                },
            ]
        );
        let bins = bin_executables(messages).unwrap();
        assert_eq!(bins.len(), 1);
        assert_eq!(
            bins["mgpu-demo"],
            PathBuf::from("/w/target/release/mgpu-demo")
        );
    }

    #[test]
    fn counts_listed_tests() {
        let listing = "gpu::scan_u32: test\ngpu::scan_f64: test\n\n2 tests, 0 benchmarks\n";
        assert_eq!(count_listed_tests(listing), 2);
        assert_eq!(count_listed_tests("\n0 tests, 0 benchmarks\n"), 0);
    }

    #[test]
    fn copies_the_cuda_sources_alone() {
        let dir = std::env::temp_dir().join(format!("mgpu-xtask-cuda-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let (from, to) = (dir.join("cuda-src"), dir.join("bundle/cuda"));
        fs::create_dir_all(from.join("sub.cu")).unwrap();
        for name in [
            "peers.cu",
            "common.cuh",
            "bounds.cu",
            "peers",
            "notes.md",
            "x.cu.bak",
        ] {
            fs::write(from.join(name), name).unwrap();
        }
        let names = copy_cuda_sources(&from, &to).unwrap();
        assert_eq!(names, ["bounds.cu", "common.cuh", "peers.cu"]);
        let mut copied: Vec<String> = fs::read_dir(&to)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        copied.sort();
        assert_eq!(copied, names);
        assert_eq!(fs::read_to_string(to.join("peers.cu")).unwrap(), "peers.cu");
        // A new bundle starts from an empty cuda/ folder.
        fs::write(to.join("peers"), "built on the GPU machine").unwrap();
        prepare_out_dir(&dir.join("bundle")).unwrap();
        assert!(!to.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn large_tests_must_start_their_last_segment_with_the_prefix() {
        let good = "cuda::large_scan: test\nscan_at_10e8: test\n\n2 tests, 0 benchmarks\n";
        assert_eq!(misnamed_large_test(good), None);
        let bad = "cuda::large_scan: test\ngpu_large_scan: test\n";
        assert_eq!(misnamed_large_test(bad), Some("gpu_large_scan"));
        assert_eq!(count_large_tests(good), 1);
        assert_eq!(count_large_tests(bad), 1);
    }
}
