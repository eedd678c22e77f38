//! The bundle's `run.sh`: the script that runs the demo, the GPU test binaries and the
//! benchmark on a GPU machine without Rust, with its `--sanitize`, `--large`, `--cold` and
//! `--peers` modes.

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
/// cache off, the demo's wall time with each kernel module source (`MGPU_KERNEL_LOAD`:
/// cubins, one PTX module per kernel entry, whole-family PTX), written to
/// `${OUT:-.}/cold_demo.csv`, then `mgpu-bench --cold-start` when the bundle has the
/// benchmark.
fn cold_branch(with_bench: bool) -> String {
    let mut s = String::from(
        r#"elif [ "$mode" = cold ]; then
    # The driver neither reads nor writes its JIT cache: every module is compiled anew.
    export CUDA_CACHE_DISABLE=1
    mkdir -p "${OUT:-.}"
    echo "== cold start, CUDA_CACHE_DISABLE=1; results in ${OUT:-.}"
    cold_summary=()
    echo "modules,demo_wall_ms,status" > "${OUT:-.}/cold_demo.csv"
    for load in cubin entry family; do
        label="MGPU_KERNEL_LOAD=$load"
        echo "== mgpu-demo, modules $label"
        start=$(now_ms)
        if MGPU_KERNEL_LOAD=$load ./mgpu-demo; then
            verdict=ok
            passed=$((passed + 1))
        else
            verdict=FAILED
            failed=$((failed + 1))
            failed_names+=("mgpu-demo($label)")
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
        counted "mgpu-bench --cold-start" run_bench --cold-start
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

/// The nvcc command line of `run.sh --peers` after the compiler, run in the bundle folder:
/// the peers binary from the bundle's `cuda/peers.cu` (H100 and H200: sm_90).
pub const PEERS_NVCC_ARGS: &str = "-O3 -arch=sm_90 -o cuda/peers cuda/peers.cu -lcusparse";

/// The `--peers` branch of `run.sh` (an `elif` of its mode test): builds the peers
/// (`benches/cuda/peers.cu`, carried in the bundle's `cuda/`) with `${NVCC:-nvcc}`, else
/// `/usr/local/cuda/bin/nvcc`, runs them at the `--sizes` of the bench arguments (else
/// their default) into `${OUT:-.}/peers.tsv`, and then, when the bundle has the benchmark,
/// `mgpu-bench --peers ${OUT:-.}/peers.tsv --out ${OUT:-.}` with the bench arguments. A
/// missing nvcc or peers source stops the script (exit 2); a failed build or peers run
/// (a `MISMATCH`) counts as a failure and skips the benchmark.
fn peers_branch(with_bench: bool) -> String {
    let mut s = String::from(
        r#"elif [ "$mode" = peers ]; then
    nvcc="${NVCC:-nvcc}"
    if ! command -v "$nvcc" >/dev/null 2>&1; then
        if [ -z "${NVCC:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
            nvcc=/usr/local/cuda/bin/nvcc
        else
            echo "run.sh: nvcc not found ($nvcc, /usr/local/cuda/bin/nvcc): --peers builds cuda/peers.cu with the CUDA toolkit; install it or set NVCC" >&2
            exit 2
        fi
    fi
    if [ ! -f cuda/peers.cu ]; then
        echo "run.sh: this bundle has no cuda/peers.cu; make it again with cargo xtask bundle" >&2
        exit 2
    fi
    mkdir -p "${OUT:-.}"
    # The peers' sizes: the --sizes of the bench arguments, else the peers' default.
    peers_args=()
    for ((i = 0; i + 1 < ${#bench_args[@]}; i++)); do
        if [ "${bench_args[i]}" = --sizes ]; then
            peers_args=(--sizes "${bench_args[i + 1]}")
        fi
    done
"#,
    );
    s.push_str(&format!(
        "    echo \"== $nvcc {PEERS_NVCC_ARGS}\"\n    if counted \"nvcc cuda/peers.cu\" \"$nvcc\" {PEERS_NVCC_ARGS} \\\n        && counted cuda/peers run_peers ${{peers_args[@]+\"${{peers_args[@]}}\"}}; then\n"
    ));
    if with_bench {
        s.push_str(
            "        counted \"mgpu-bench --peers\" run_bench --peers \"${OUT:-.}/peers.tsv\"\n",
        );
    } else {
        s.push_str(
            "        echo \"run.sh: no mgpu-bench in this bundle; no report, the peers' rows \
             alone are in ${OUT:-.}/peers.tsv\"\n",
        );
    }
    s.push_str("    fi\n");
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
#                                       kernels from cubins, per-entry PTX and whole-family
#                                       PTX (MGPU_KERNEL_LOAD=cubin|entry|family), then
#                                       mgpu-bench --cold-start (each operation's first call)
#   ./run.sh --peers [--bench-args ARGS...]
#                                       the side-by-side report: builds cuda/peers.cu
#                                       (CUB, cuSPARSE, bounds) with ${NVCC:-nvcc} (else
#                                       /usr/local/cuda/bin/nvcc), runs it at the --sizes of
#                                       ARGS into ${OUT:-.}/peers.tsv, then mgpu-bench
#                                       --peers that file ARGS (report.csv, .json, .md, .svg)
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
        --peers) mode=peers; shift ;;
        --tools) tools="${2:-}"; shift 2 || { echo "run.sh: --tools needs a list" >&2; exit 2; } ;;
        *) echo "run.sh: unknown argument $1 (usage: ./run.sh [--large | --cold | --peers | --sanitize [--tools LIST]] [--bench-args ARGS...])" >&2; exit 2 ;;
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

# counted NAME COMMAND [ARGS...]: runs COMMAND and counts it passed, or failed as NAME
# (saying so); returns its status.
counted() {
    local name="$1"
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        local rc=$?
        echo "run.sh: $name FAILED (exit $rc)"
        failed=$((failed + 1))
        failed_names+=("$name")
        return "$rc"
    fi
}

# One test binary: run_test NAME [HARNESS ARGS...]; counts it passed or failed.
run_test() {
    local t="$1"
    shift
    echo "== $t --ignored --test-threads=1 $*"
    counted "$t" "./$t" --ignored --test-threads=1 "$@"
}

# The peers binary of run.sh --peers: run_peers [ARGS...] runs ./cuda/peers ARGS, its
# output also into ${OUT:-.}/peers.tsv; returns the peers' status.
run_peers() {
    echo "== cuda/peers ${*:+$* }> ${OUT:-.}/peers.tsv"
    ./cuda/peers "$@" | tee "${OUT:-.}/peers.tsv"
    return "${PIPESTATUS[0]}"
}

# The benchmark: run_bench [ARGS...] runs ./mgpu-bench ARGS --out ${OUT:-.} and the
# --bench-args.
run_bench() {
    echo "== mgpu-bench ${*:+$* }--out ${OUT:-.} ${bench_args[*]+"${bench_args[*]}"}"
    ./mgpu-bench "$@" --out "${OUT:-.}" ${bench_args[@]+"${bench_args[@]}"}
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
        # The tests may run fewer inputs under racecheck (mgpu_testkit::racecheck).
        export MGPU_TEST_SANITIZER="$tool"
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
    s.push_str(&peers_branch(with_bench));
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
        if ! run_bench; then
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
    use crate::bundle::make_executable;
    use std::fs;
    use std::path::PathBuf;
    use std::process::Command;

    #[test]
    fn run_script_lists_tests_and_bench() {
        let s = run_script(&["test-mgpu-scan-gpu".into()], &[], true);
        assert!(s.starts_with("#!/usr/bin/env bash\n"));
        assert!(s.contains("tests=( test-mgpu-scan-gpu )"));
        assert!(s.contains("./mgpu-bench \"$@\" --out \"${OUT:-.}\""));
        assert!(s.contains("        if ! run_bench; then\n"));
        assert!(s.contains("echo \"$passed passed, $failed failed\""));
        let s = run_script(&[], &[], false);
        assert!(!s.contains("if ! run_bench"));
    }

    #[test]
    fn run_script_has_a_cold_mode() {
        let s = run_script(&["test-mgpu-scan-gpu".into()], &[], true);
        assert!(s.contains("        --cold) mode=cold; shift ;;\n"));
        assert!(s.contains("elif [ \"$mode\" = cold ]; then"));
        assert!(s.contains("    export CUDA_CACHE_DISABLE=1\n"));
        assert!(s.contains("MGPU_KERNEL_LOAD=$load ./mgpu-demo"));
        assert!(s.contains("        counted \"mgpu-bench --cold-start\" run_bench --cold-start\n"));
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
        assert!(!s.contains("run_bench --cold-start"));
        assert!(s.contains("no mgpu-bench in this bundle; no cold-start table"));
    }

    /// The folder of [`run_stub_bundle`]'s bundle `name`.
    fn stub_dir(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("mgpu-xtask-run-sh-{name}-{}", std::process::id()))
    }

    /// Removes the stub bundles of these names.
    fn remove_stub_dirs(names: &[&str]) {
        for name in names {
            let _ = fs::remove_dir_all(stub_dir(name));
        }
    }

    /// A stub nvcc: logs its arguments and writes, at its `-o`, a stub peers binary that
    /// logs its own, prints a device line and a row, and then, when `PEERS_STUB_RC` is set
    /// and not 0, a `MISMATCH` line and exits with it.
    const NVCC_STUB: &str = r#"#!/usr/bin/env bash
echo "nvcc $*" >> "$(dirname "$0")/log"
out=
while [ $# -gt 0 ]; do
    if [ "$1" = -o ]; then out="$2"; fi
    shift
done
cat > "$out" <<'STUB'
#!/usr/bin/env bash
echo "peers $*" >> "$(dirname "$0")/../log"
printf '# device\tStub GPU\nrow\treduce\ti32\tu\t1048576\tcub\t0.01\t1.0\n'
if [ "${PEERS_STUB_RC:-0}" != 0 ]; then echo "MISMATCH reduce"; exit "$PEERS_STUB_RC"; fi
STUB
chmod +x "$out"
"#;

    /// Runs `run.sh` with `args` in a folder of stub binaries (shell scripts that log
    /// their arguments and the cold-start variables), with `cuda/peers.cu` and the stub
    /// nvcc `nvcc-stub` (see [`NVCC_STUB`]), when bash is there. `env` is set for it, `{dir}`
    /// in a value standing for the folder; `NVCC` is unset unless `env` sets it. Returns
    /// the exit status, the output and the log, or `None` without bash.
    fn run_stub_bundle(
        name: &str,
        with_bench: bool,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Option<(i32, String, String, PathBuf)> {
        let bash = Command::new("bash").arg("--version").output().ok()?;
        if !bash.status.success() {
            return None;
        }
        let dir = stub_dir(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let stub = "#!/usr/bin/env bash\n\
                    echo \"$(basename \"$0\") $* cache=${CUDA_CACHE_DISABLE:-} \
                    load=${MGPU_KERNEL_LOAD:-}\" >> \"$(dirname \"$0\")/log\"\n";
        let mut bins = vec!["mgpu-demo", "test-mgpu-scan-gpu"];
        if with_bench {
            bins.push("mgpu-bench");
        }
        for bin in bins {
            fs::write(dir.join(bin), stub).unwrap();
            make_executable(&dir.join(bin)).unwrap();
        }
        fs::write(dir.join("nvcc-stub"), NVCC_STUB).unwrap();
        make_executable(&dir.join("nvcc-stub")).unwrap();
        fs::create_dir_all(dir.join("cuda")).unwrap();
        fs::write(dir.join("cuda/peers.cu"), "// peers\n").unwrap();
        fs::write(
            dir.join("run.sh"),
            run_script(&["test-mgpu-scan-gpu".into()], &[], with_bench),
        )
        .unwrap();
        let mut cmd = Command::new("bash");
        cmd.arg(dir.join("run.sh"))
            .args(args)
            .env("OUT", dir.join("results"))
            .env_remove("CUDA_CACHE_DISABLE")
            .env_remove("MGPU_KERNEL_LOAD")
            .env_remove("NVCC")
            .env_remove("PEERS_STUB_RC");
        for (k, v) in env {
            cmd.env(k, v.replace("{dir}", &dir.display().to_string()));
        }
        let out = cmd.output().unwrap();
        let log = fs::read_to_string(dir.join("log")).unwrap_or_default();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        Some((out.status.code().unwrap_or(-1), text, log, dir))
    }

    #[test]
    fn run_script_cold_mode_runs_the_demo_each_way_and_the_cold_start_bench() {
        let Some((code, text, log, dir)) = run_stub_bundle("cold", true, &["--cold"], &[]) else {
            return;
        };
        assert_eq!(code, 0, "{text}");
        assert_eq!(
            log,
            "mgpu-demo  cache=1 load=cubin\n\
             mgpu-demo  cache=1 load=entry\n\
             mgpu-demo  cache=1 load=family\n\
             mgpu-bench --cold-start --out RESULTS cache=1 load=\n"
                .replace("RESULTS", &dir.join("results").display().to_string()),
            "{text}"
        );
        assert!(text.contains("4 passed, 0 failed"), "{text}");
        let csv = fs::read_to_string(dir.join("results/cold_demo.csv")).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4, "{csv}");
        for (line, load) in lines[1..].iter().zip(["cubin", "entry", "family"]) {
            let label = format!("\"MGPU_KERNEL_LOAD={load}\",");
            assert!(line.starts_with(&label) && line.ends_with(",ok"), "{csv}");
        }
        // The normal mode is untouched: the JIT cache stays on, nothing is set.
        let (code, text, log, _) = run_stub_bundle("normal", true, &[], &[]).unwrap();
        assert_eq!(code, 0, "{text}");
        assert!(log.starts_with("mgpu-demo  cache= load=\n"), "{log}");
        assert!(log.contains("test-mgpu-scan-gpu --ignored --test-threads=1 --skip large_"));
        assert!(!log.contains("--cold-start"), "{log}");
        // Without the benchmark, --cold times the demo alone.
        let (code, text, log, _) = run_stub_bundle("nobench", false, &["--cold"], &[]).unwrap();
        assert_eq!(code, 0, "{text}");
        assert_eq!(log.lines().count(), 3, "{log}");
        assert!(text.contains("no cold-start table"), "{text}");
        remove_stub_dirs(&["cold", "normal", "nobench"]);
    }

    #[test]
    fn run_script_has_a_peers_mode() {
        let s = run_script(&["test-mgpu-scan-gpu".into()], &[], true);
        assert!(s.contains("#   ./run.sh --peers [--bench-args ARGS...]\n"));
        assert!(s.contains("        --peers) mode=peers; shift ;;\n"));
        assert!(s.contains("--large | --cold | --peers | --sanitize"));
        assert!(s.contains("    nvcc=\"${NVCC:-nvcc}\"\n"));
        assert!(s.contains("            nvcc=/usr/local/cuda/bin/nvcc\n"));
        assert!(s.contains(&format!(
            "    if counted \"nvcc cuda/peers.cu\" \"$nvcc\" {PEERS_NVCC_ARGS} \\\n        \
             && counted cuda/peers run_peers ${{peers_args[@]+\"${{peers_args[@]}}\"}}; then\n"
        )));
        assert_eq!(
            PEERS_NVCC_ARGS,
            "-O3 -arch=sm_90 -o cuda/peers cuda/peers.cu -lcusparse"
        );
        assert!(s.contains("            peers_args=(--sizes \"${bench_args[i + 1]}\")\n"));
        assert!(s.contains("    ./cuda/peers \"$@\" | tee \"${OUT:-.}/peers.tsv\"\n"));
        assert!(s.contains(
            "        counted \"mgpu-bench --peers\" run_bench --peers \"${OUT:-.}/peers.tsv\"\n"
        ));
        // The peers branch is an elif of its own, before the normal mode.
        let peers = s.find("elif [ \"$mode\" = peers ]; then").unwrap();
        let normal = s.find("else\n    echo \"== mgpu-demo\"").unwrap();
        assert!(s.find("elif [ \"$mode\" = cold ]").unwrap() < peers && peers < normal);
        let s = run_script(&[], &[], false);
        assert!(s.contains("elif [ \"$mode\" = peers ]; then"));
        assert!(!s.contains("run_bench --peers"));
        assert!(s.contains("no mgpu-bench in this bundle; no report"));
    }

    #[test]
    fn run_script_peers_mode_builds_and_runs_the_peers_then_the_report() {
        let nvcc = [("NVCC", "{dir}/nvcc-stub")];
        let args = [
            "--peers",
            "--bench-args",
            "--only",
            "scan",
            "--sizes",
            "20,24",
        ];
        let Some((code, text, log, dir)) = run_stub_bundle("peers", true, &args, &nvcc) else {
            return;
        };
        assert_eq!(code, 0, "{text}");
        let results = dir.join("results").display().to_string();
        assert_eq!(
            log,
            format!(
                "nvcc {PEERS_NVCC_ARGS}\n\
                 peers --sizes 20,24\n\
                 mgpu-bench --peers {results}/peers.tsv --out {results} --only scan \
                 --sizes 20,24 cache= load=\n"
            ),
            "{text}"
        );
        assert!(text.contains("3 passed, 0 failed"), "{text}");
        let tsv = fs::read_to_string(dir.join("results/peers.tsv")).unwrap();
        assert!(
            tsv.starts_with("# device\tStub GPU\nrow\treduce\t"),
            "{tsv}"
        );
        // No --sizes: the peers' default.
        let (code, text, log, _) =
            run_stub_bundle("peers-default", true, &["--peers"], &nvcc).unwrap();
        assert_eq!(code, 0, "{text}");
        assert!(log.contains("\npeers \nmgpu-bench --peers "), "{log}");
        // A peer's wrong result fails the run, and the benchmark is not run.
        let env = [nvcc[0], ("PEERS_STUB_RC", "1")];
        let (code, text, log, _) =
            run_stub_bundle("peers-mismatch", true, &["--peers"], &env).unwrap();
        assert_eq!(code, 1, "{text}");
        assert!(
            text.contains("run.sh: cuda/peers FAILED (exit 1)"),
            "{text}"
        );
        assert!(text.contains("1 passed, 1 failed"), "{text}");
        assert!(text.contains("MISMATCH reduce"), "{text}");
        assert!(text.contains("run.sh: failed: cuda/peers"), "{text}");
        assert!(!log.contains("mgpu-bench"), "{log}");
        // Without nvcc, it says so and stops before anything runs.
        let missing = [("NVCC", "{dir}/no-such-nvcc")];
        let (code, text, log, _) =
            run_stub_bundle("peers-nvcc", true, &["--peers"], &missing).unwrap();
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("run.sh: nvcc not found ("), "{text}");
        assert!(log.is_empty(), "{log}");
        remove_stub_dirs(&["peers", "peers-default", "peers-mismatch", "peers-nvcc"]);
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
        assert!(s.contains("export MGPU_TEST_SANITIZER=\"$tool\""));
        assert!(s.contains(&format!("MGPU_TEST_MAX_LEN_DEFAULT={SANITIZE_MAX_LEN}")));
        // The deliberate fault is skipped under memcheck, by name, with its reason.
        assert!(s.contains("    gpu_fault_is_context_lost  # reads address 16 on purpose"));
        assert!(s.contains("if [ \"$tool\" = memcheck ]; then"));
        // The large group runs alone with --large and is skipped otherwise.
        assert!(s.contains("run_test \"$t\" \"$large_prefix\""));
        assert!(s.contains("run_test \"$t\" --skip \"$large_prefix\""));
        assert!(s.contains("--skip \"$large_prefix\" ${skips[@]+"));
    }
}
