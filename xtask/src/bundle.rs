//! `cargo xtask bundle [--out DIR]`: stripped release demo, benchmark and GPU test
//! binaries plus a `run.sh`, in one folder that runs on a GPU machine without Rust
//! (DESIGN.md §6).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::json::{self, Value};
use crate::util::{cargo, dir_size, display_path, mib, output, render, workspace_root, Result};

/// The bundle may not be larger than this.
const MAX_BUNDLE_BYTES: u64 = 64 * 1024 * 1024;

/// The demo: (package, bin). Required.
const DEMO: (&str, &str) = ("mgpu-demo", "mgpu-demo");

/// The GPU benchmark: (package, bin). Skipped with a warning while it does not exist.
const BENCH: (&str, &str) = ("mgpu-benches", "mgpu-bench");

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

    // Every test executable with at least one ignored (GPU) test.
    let mut cmd = stripped_cargo(&root);
    cmd.args(["test", "--release", "--workspace", "--no-run"])
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

    let script = out.join("run.sh");
    fs::write(&script, run_script(&test_names, &large_only, with_bench))
        .map_err(|e| format!("{}: {e}", script.display()))?;
    make_executable(&script)?;

    let size = dir_size(&out)?;
    eprintln!(
        "xtask: bundle {}: {} + {} test binar{} + run.sh, {}",
        display_path(&out),
        copied.join(" + "),
        test_names.len(),
        if test_names.len() == 1 { "y" } else { "ies" },
        mib(size)
    );
    if size > MAX_BUNDLE_BYTES {
        return Err(format!(
            "the bundle is {}, over the limit of {}: keep the GPU tests in fewer binaries \
             (each embeds the PTX)",
            mib(size),
            mib(MAX_BUNDLE_BYTES)
        ));
    }
    Ok(())
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
/// the benchmark, `test-*`); other files are left alone.
fn prepare_out_dir(out: &Path) -> Result<()> {
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
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
}

/// The workspace's packages, from `cargo metadata --no-deps`.
fn workspace_packages(root: &Path) -> Result<Vec<Package>> {
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"]);
    parse_metadata(&output(&mut cmd)?)
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
        packages.push(Package {
            name: field("name").to_string(),
            manifest_path: field("manifest_path").to_string(),
            bins,
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

/// The sanitizer tools of `run.sh --sanitize`, in the order they run.
pub const SANITIZER_TOOLS: [&str; 4] = ["memcheck", "racecheck", "synccheck", "initcheck"];

/// The size cap (`MGPU_TEST_MAX_LEN`, elements) of a sanitizer run unless the caller sets
/// one: large enough for several tiles of every kernel and a multi-CTA partition pass,
/// small enough that the whole pass stays within minutes under the slowest tool.
pub const SANITIZE_MAX_LEN: usize = 1 << 16;

/// Tests that fault on purpose, skipped under memcheck, with the reason. memcheck reports
/// the fault (or failed call) itself as an error, which is what the test checks happens.
pub const FAULTS_ON_PURPOSE: [(&str, &str); 2] = [
    (
        "gpu_fault_is_context_lost",
        "reads address 16 on purpose to check that a device fault is Error::ContextLost",
    ),
    (
        "out_of_memory_is_reported",
        "asks for more device memory than there is, to check Error::OutOfMemory: memcheck \
         reports the failed cuMemAlloc as an API error",
    ),
];

/// The prefix of the large-size tests (sizes past 2^31): only `run.sh --large` runs them.
pub const LARGE_PREFIX: &str = "large_";

/// The `--cold` branch of `run.sh` (an `elif` of its mode test): with the driver's JIT
/// cache off, the demo's wall time with one module per kernel entry and with whole-family
/// modules, written to `${OUT:-.}/cold_demo.csv`, then `mgpu-bench --cold-start` when the
/// bundle has the benchmark.
fn cold_branch(with_bench: bool) -> String {
    let mut s = String::from(
        r#"elif [ "$mode" = cold ]; then
    # The driver neither reads nor writes its JIT cache: every module is compiled anew.
    export CUDA_CACHE_DISABLE=1
    mkdir -p "${OUT:-.}"
    echo "== cold start, CUDA_CACHE_DISABLE=1; results in ${OUT:-.}"
    cold_summary=()
    echo "modules,demo_wall_ms,status" > "${OUT:-.}/cold_demo.csv"
    for whole in 0 1; do
        if [ "$whole" = 1 ]; then label="whole family (MGPU_JIT_WHOLE_FAMILY=1)"; else label="per entry"; fi
        echo "== mgpu-demo, modules $label"
        start=$(now_ms)
        if MGPU_JIT_WHOLE_FAMILY=$whole ./mgpu-demo; then
            verdict=ok
            passed=$((passed + 1))
        else
            verdict=FAILED
            failed=$((failed + 1))
            failed_names+=("mgpu-demo(MGPU_JIT_WHOLE_FAMILY=$whole)")
        fi
        took=$(( $(now_ms) - start ))
        cold_summary+=("$(printf 'mgpu-demo, modules %-40s %8s ms  %s' "$label" "$took" "$verdict")")
        echo "\"$label\",$took,$verdict" >> "${OUT:-.}/cold_demo.csv"
    done
"#,
    );
    if with_bench {
        s.push_str(
            r#"    if [ -x ./mgpu-bench ]; then
        echo "== mgpu-bench --cold-start --out ${OUT:-.} ${bench_args[*]+"${bench_args[*]}"}"
        if ./mgpu-bench --cold-start --out "${OUT:-.}" ${bench_args[@]+"${bench_args[@]}"}; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            failed_names+=("mgpu-bench --cold-start")
        fi
    fi
"#,
        );
    } else {
        s.push_str("    echo \"run.sh: no mgpu-bench in this bundle; no cold-start table\"\n");
    }
    s.push_str(
        r#"    echo "== cold start summary (wall time of the whole process, CUDA_CACHE_DISABLE=1)"
    printf '%s\n' "${cold_summary[@]}"
"#,
    );
    s
}

/// The text of `run.sh` for these test executables, with or without the benchmark.
/// `large_only` names those whose GPU tests are all in the large group: only `--large`
/// runs them (a sanitizer refuses a program that makes no CUDA call).
pub fn run_script(tests: &[String], large_only: &[String], with_bench: bool) -> String {
    let mut s = String::from(
        r#"#!/usr/bin/env bash
# mgpu bundle: generated by `cargo xtask bundle`. Run from anywhere on a machine with
# an NVIDIA GPU and driver (no Rust needed):
#   ./run.sh [--bench-args ARGS...]     the demo, every GPU test binary, the benchmark
#   ./run.sh --large                    only the large-size tests (sizes past 2^31)
#   ./run.sh --cold                     the cold start, with the driver's JIT cache off
#                                       (CUDA_CACHE_DISABLE=1): the demo's wall time with
#                                       one module per kernel entry and with whole-family
#                                       modules (MGPU_JIT_WHOLE_FAMILY=1), then
#                                       mgpu-bench --cold-start (each operation's first call)
#   ./run.sh --sanitize [--tools LIST]  the demo and every GPU test binary under
#                                       compute-sanitizer (LIST: comma-separated, default
#                                       memcheck,racecheck,synccheck,initcheck), sizes
#                                       capped by MGPU_TEST_MAX_LEN (default below)
# Test binaries run with --ignored --test-threads=1; a failure does not stop the others.
# The benchmark writes to ${OUT:-.}. Exits non-zero if anything failed.
set -u
cd "$(dirname "$0")"

mode=normal
bench_args=()
"#,
    );
    s.push_str(&format!(
        "tools=\"{}\"\nlarge_prefix={LARGE_PREFIX}\n",
        SANITIZER_TOOLS.join(",")
    ));
    s.push_str(&format!(
        "export MGPU_TEST_MAX_LEN_DEFAULT={SANITIZE_MAX_LEN}\n"
    ));
    s.push_str("# Faulting on purpose, so skipped under memcheck:\nmemcheck_skips=(");
    for (name, why) in FAULTS_ON_PURPOSE {
        s.push_str(&format!("\n    {name}  # {why}"));
    }
    s.push_str("\n)\n");
    s.push_str(
        r#"while [ $# -gt 0 ]; do
    case "$1" in
        --bench-args) shift; bench_args=("$@"); break ;;
        --large) mode=large; shift ;;
        --sanitize) mode=sanitize; shift ;;
        --cold) mode=cold; shift ;;
        --tools) tools="${2:-}"; shift 2 || { echo "run.sh: --tools needs a list" >&2; exit 2; } ;;
        *) echo "run.sh: unknown argument $1 (usage: ./run.sh [--large | --cold | --sanitize [--tools LIST]] [--bench-args ARGS...])" >&2; exit 2 ;;
    esac
done

status=0
passed=0
failed=0
failed_names=()
echo "== nvidia-smi -L"
nvidia-smi -L || echo "run.sh: warning: nvidia-smi -L failed"

"#,
    );
    s.push_str("tests=(");
    for t in tests.iter().filter(|t| !large_only.contains(t)) {
        s.push_str(&format!(" {t}"));
    }
    s.push_str(
        " )\n# Test binaries with large-size tests only (run by --large alone):\nlarge_tests=(",
    );
    for t in large_only {
        s.push_str(&format!(" {t}"));
    }
    s.push_str(" )\n");
    s.push_str(
        r#"
# Milliseconds since the epoch (bash 5's EPOCHREALTIME, else GNU date).
now_ms() {
    if [ -n "${EPOCHREALTIME:-}" ]; then
        local us="${EPOCHREALTIME/[.,]/}"
        echo $((us / 1000))
    else
        echo $(($(date +%s%N) / 1000000))
    fi
}

# One test binary: run_test NAME [HARNESS ARGS...]; counts it passed or failed.
run_test() {
    local t="$1"
    shift
    echo "== $t --ignored --test-threads=1 $*"
    if "./$t" --ignored --test-threads=1 "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failed_names+=("$t")
    fi
}

if [ "$mode" = large ]; then
    for t in ${tests[@]+"${tests[@]}"} ${large_tests[@]+"${large_tests[@]}"}; do
        run_test "$t" "$large_prefix"
    done
elif [ "$mode" = sanitize ]; then
    export MGPU_TEST_MAX_LEN="${MGPU_TEST_MAX_LEN:-$MGPU_TEST_MAX_LEN_DEFAULT}"
    sanitizer=$(command -v compute-sanitizer || true)
    for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer \
             /opt/nvidia/compute-sanitizer/compute-sanitizer; do
        [ -z "$sanitizer" ] && [ -x "$c" ] && sanitizer="$c"
    done
    if [ -z "$sanitizer" ]; then
        echo "run.sh: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2
        exit 2
    fi
    echo "== $("$sanitizer" --version | tail -n 1); MGPU_TEST_MAX_LEN=$MGPU_TEST_MAX_LEN"
    summary=()
    IFS=',' read -r -a tool_list <<< "$tools"
    for tool in "${tool_list[@]}"; do
        skips=()
        if [ "$tool" = memcheck ]; then
            for k in ${memcheck_skips[@]+"${memcheck_skips[@]}"}; do skips+=(--skip "$k"); done
        fi
        for t in mgpu-demo ${tests[@]+"${tests[@]}"}; do
            args=()
            if [ "$t" != mgpu-demo ]; then
                args=(--ignored --test-threads=1 --skip "$large_prefix" ${skips[@]+"${skips[@]}"})
            fi
            echo "== $tool: $t ${args[*]+"${args[*]}"}"
            start=$(date +%s)
            log=$(mktemp)
            "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20 "./$t" \
                ${args[@]+"${args[@]}"} 2>&1 | tee "$log"
            rc=${PIPESTATUS[0]}
            # "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)".
            errors=$(grep -oE 'ERROR SUMMARY: [0-9]+ error|\([0-9]+ errors' "$log" | tail -n 1 | grep -oE '[0-9]+' || true)
            rm -f "$log"
            took=$(( $(date +%s) - start ))
            if [ "$rc" -eq 0 ]; then
                passed=$((passed + 1))
                verdict=ok
            else
                failed=$((failed + 1))
                failed_names+=("$tool:$t")
                verdict="FAILED (exit $rc)"
            fi
            summary+=("$(printf '%-10s %-34s %6s errors %5ss  %s' "$tool" "$t" "${errors:-?}" "$took" "$verdict")")
        done
    done
    echo "== sanitizer summary (tool, binary, errors, seconds, verdict)"
    printf '%s\n' "${summary[@]}"
"#,
    );
    s.push_str(&cold_branch(with_bench));
    s.push_str(
        r#"else
    echo "== mgpu-demo"
    if ! ./mgpu-demo; then
        echo "run.sh: mgpu-demo FAILED"
        status=1
    fi
    for t in ${tests[@]+"${tests[@]}"}; do
        run_test "$t" --skip "$large_prefix"
    done
"#,
    );
    if with_bench {
        s.push_str(
            r#"    if [ -x ./mgpu-bench ]; then
        echo "== mgpu-bench --out ${OUT:-.} ${bench_args[*]+"${bench_args[*]}"}"
        if ! ./mgpu-bench --out "${OUT:-.}" ${bench_args[@]+"${bench_args[@]}"}; then
            echo "run.sh: mgpu-bench FAILED"
            status=1
        fi
    fi
"#,
        );
    } else {
        s.push_str(
            "    if [ ${#bench_args[@]} -gt 0 ]; then echo \"run.sh: no mgpu-bench in this bundle; \
             --bench-args ignored\"; fi\n",
        );
    }
    s.push_str(
        r#"fi

if [ "$failed" -gt 0 ]; then
    echo "run.sh: failed: ${failed_names[*]}"
    status=1
fi
echo "$passed passed, $failed failed"
exit "$status"
"#,
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_packages_and_bins() {
        let text = r#"{"packages":[{"name":"mgpu-demo","manifest_path":"/w/crates/mgpu-demo/Cargo.toml","targets":[{"kind":["bin"],"name":"mgpu-demo"}]},{"name":"mgpu-benches","manifest_path":"/w/benches/Cargo.toml","targets":[{"kind":["lib"],"name":"mgpu_benches"}]}],"workspace_root":"/w","version":1}"#;
        let p = parse_metadata(text).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].bins, ["mgpu-demo"]);
        assert!(p[1].bins.is_empty());
        assert_eq!(p[1].manifest_path, "/w/benches/Cargo.toml");
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
    fn run_script_lists_tests_and_bench() {
        let s = run_script(&["test-mgpu-scan-gpu".into()], &[], true);
        assert!(s.starts_with("#!/usr/bin/env bash\n"));
        assert!(s.contains("tests=( test-mgpu-scan-gpu )"));
        assert!(s.contains("./mgpu-bench --out \"${OUT:-.}\""));
        assert!(s.contains("echo \"$passed passed, $failed failed\""));
        let s = run_script(&[], &[], false);
        assert!(!s.contains("./mgpu-bench --out"));
    }

    #[test]
    fn run_script_has_a_cold_mode() {
        let s = run_script(&["test-mgpu-scan-gpu".into()], &[], true);
        assert!(s.contains("        --cold) mode=cold; shift ;;\n"));
        assert!(s.contains("elif [ \"$mode\" = cold ]; then"));
        assert!(s.contains("    export CUDA_CACHE_DISABLE=1\n"));
        assert!(s.contains("MGPU_JIT_WHOLE_FAMILY=$whole ./mgpu-demo"));
        assert!(s.contains("./mgpu-bench --cold-start --out \"${OUT:-.}\""));
        assert!(s.contains("cold_demo.csv"));
        // The other modes are as they were: the cold branch comes before the normal one.
        let cold = s.find("elif [ \"$mode\" = cold ]").unwrap();
        let normal = s.find("else\n    echo \"== mgpu-demo\"").unwrap();
        assert!(s.find("elif [ \"$mode\" = sanitize ]").unwrap() < cold && cold < normal);
        // Outside the cold branch, the JIT cache is mentioned in comments only.
        for line in s[..cold].lines().chain(s[normal..].lines()) {
            assert!(
                !line.contains("CUDA_CACHE_DISABLE") || line.starts_with('#'),
                "{line}"
            );
        }
        let s = run_script(&[], &[], false);
        assert!(s.contains("elif [ \"$mode\" = cold ]; then"));
        assert!(!s.contains("--cold-start --out"));
        assert!(s.contains("no mgpu-bench in this bundle; no cold-start table"));
    }

    /// Runs `run.sh` with `args` in a folder of stub binaries (shell scripts that log
    /// their arguments and the cold-start variables), when bash is there. Returns the exit
    /// status, the output and the log, or `None` without bash.
    fn run_stub_bundle(
        name: &str,
        with_bench: bool,
        args: &[&str],
    ) -> Option<(i32, String, String, PathBuf)> {
        let bash = Command::new("bash").arg("--version").output().ok()?;
        if !bash.status.success() {
            return None;
        }
        let dir =
            std::env::temp_dir().join(format!("mgpu-xtask-run-sh-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let stub = "#!/usr/bin/env bash\n\
                    echo \"$(basename \"$0\") $* cache=${CUDA_CACHE_DISABLE:-} \
                    whole=${MGPU_JIT_WHOLE_FAMILY:-}\" >> \"$(dirname \"$0\")/log\"\n";
        let mut bins = vec!["mgpu-demo", "test-mgpu-scan-gpu"];
        if with_bench {
            bins.push("mgpu-bench");
        }
        for bin in bins {
            fs::write(dir.join(bin), stub).unwrap();
            make_executable(&dir.join(bin)).unwrap();
        }
        fs::write(
            dir.join("run.sh"),
            run_script(&["test-mgpu-scan-gpu".into()], &[], with_bench),
        )
        .unwrap();
        let out = Command::new("bash")
            .arg(dir.join("run.sh"))
            .args(args)
            .env("OUT", dir.join("results"))
            .env_remove("CUDA_CACHE_DISABLE")
            .env_remove("MGPU_JIT_WHOLE_FAMILY")
            .output()
            .unwrap();
        let log = fs::read_to_string(dir.join("log")).unwrap_or_default();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        Some((out.status.code().unwrap_or(-1), text, log, dir))
    }

    #[test]
    fn run_script_cold_mode_runs_the_demo_both_ways_and_the_cold_start_bench() {
        let Some((code, text, log, dir)) = run_stub_bundle("cold", true, &["--cold"]) else {
            return;
        };
        assert_eq!(code, 0, "{text}");
        assert_eq!(
            log,
            "mgpu-demo  cache=1 whole=0\n\
             mgpu-demo  cache=1 whole=1\n\
             mgpu-bench --cold-start --out RESULTS cache=1 whole=\n"
                .replace("RESULTS", &dir.join("results").display().to_string()),
            "{text}"
        );
        assert!(text.contains("3 passed, 0 failed"), "{text}");
        let csv = fs::read_to_string(dir.join("results/cold_demo.csv")).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(
            lines[1].starts_with("\"per entry\",") && lines[1].ends_with(",ok"),
            "{csv}"
        );
        assert!(lines[2].starts_with("\"whole family"), "{csv}");
        // The normal mode is untouched: the JIT cache stays on, nothing is set.
        let (code, text, log, _) = run_stub_bundle("normal", true, &[]).unwrap();
        assert_eq!(code, 0, "{text}");
        assert!(log.starts_with("mgpu-demo  cache= whole=\n"), "{log}");
        assert!(log.contains("test-mgpu-scan-gpu --ignored --test-threads=1 --skip large_"));
        assert!(!log.contains("--cold-start"), "{log}");
        // Without the benchmark, --cold times the demo alone.
        let (code, text, log, _) = run_stub_bundle("nobench", false, &["--cold"]).unwrap();
        assert_eq!(code, 0, "{text}");
        assert_eq!(log.lines().count(), 2, "{log}");
        assert!(text.contains("no cold-start table"), "{text}");
        for d in ["cold", "normal", "nobench"] {
            let _ = fs::remove_dir_all(
                std::env::temp_dir().join(format!("mgpu-xtask-run-sh-{d}-{}", std::process::id())),
            );
        }
    }

    #[test]
    fn run_script_sanitizes_and_groups_large_tests() {
        let s = run_script(
            &["test-mgpu-scan-gpu".into(), "test-mgpu-large".into()],
            &["test-mgpu-large".into()],
            true,
        );
        // A binary of large tests only runs with --large alone.
        assert!(s.contains("tests=( test-mgpu-scan-gpu )"));
        assert!(s.contains("large_tests=( test-mgpu-large )"));
        assert!(s.contains("for t in ${tests[@]+\"${tests[@]}\"} ${large_tests[@]+"));
        assert!(s.contains("tools=\"memcheck,racecheck,synccheck,initcheck\""));
        assert!(s.contains("--tool \"$tool\" --error-exitcode 86"));
        assert!(s.contains(&format!("MGPU_TEST_MAX_LEN_DEFAULT={SANITIZE_MAX_LEN}")));
        // The deliberate fault is skipped under memcheck, by name, with its reason.
        assert!(s.contains("    gpu_fault_is_context_lost  # reads address 16 on purpose"));
        assert!(s.contains("if [ \"$tool\" = memcheck ]; then"));
        // The large group runs alone with --large and is skipped otherwise.
        assert!(s.contains("run_test \"$t\" \"$large_prefix\""));
        assert!(s.contains("run_test \"$t\" --skip \"$large_prefix\""));
        assert!(s.contains("--skip \"$large_prefix\" ${skips[@]+"));
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
