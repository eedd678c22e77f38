//! The mgpu project's task runner, invoked as `cargo xtask <command>` (an alias in
//! `.cargo/config.toml`). See `xtask/README.md` for the commands.

mod bounds;
mod bundle;
mod cubin;
mod diverge;
mod gpu;
mod json;
mod lint;
mod package;
mod ptx;
mod util;

use std::path::PathBuf;
use std::process::ExitCode;

/// The usage text printed by `cargo xtask help` and after a bad command line.
const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  ptx                 regenerate kernels-ptx/ptx/<family>_<arch>.ptx (nightly + rust-src)
  ptx --check         fail if the committed PTX is stale, missing or fails the lint
                      (local memory, .extern .func, .version too high, divergent
                      barriers), or the cubin manifest records other PTX
  ptx --out DIR       write the PTX into DIR instead (variants for MGPU_PTX_DIR)
  cubin               rebuild kernels-ptx/cubin/<family>_sm_90.cubin (the crate
                      mgpu-kernels-cubin) from the committed
                      PTX with ptxas 12.9.86 (fetched from PyPI, or $MGPU_PTXAS), and
                      their manifest (cargo xtask ptx does this after the PTX)
  cubin --check       rebuild them in target/ and fail if a committed cubin differs
  test-gpu [ARGS..]   run every GPU test but the large group:
                      cargo test --release --workspace -- --ignored --skip large_ ARGS..
  test-gpu --large [ARGS..]
                      the large-size group alone (sizes past 2^31; tests named large_*)
  test-gpu --sanitize [--tools LIST]
                      every GPU test under compute-sanitizer (memcheck, racecheck,
                      synccheck, initcheck, or LIST), sizes capped: the bundle's
                      run.sh --sanitize, built into target/bundle-sanitize
  package [ARGS..]    cargo package every publishable crate (each built from its
                      package) and fail when one lacks registry metadata, its README
                      or license texts, or is over crates.io's 10 MiB; ARGS go to
                      cargo package (e.g. --allow-dirty)
  bundle [--out DIR]  stripped demo, benchmark and GPU test binaries + run.sh in DIR
                      (default bundle/), with the CUDA peers and bounds sources in
                      DIR/cuda/ (run.sh --peers), for a GPU machine without Rust;
                      runs ptx --check first (the binaries embed kernels-ptx)
  help                this text";

/// Parses the command line, runs the command and turns an error into exit code 1.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command named by `args` (the arguments after `cargo xtask`).
fn dispatch(args: &[String]) -> util::Result<()> {
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("ptx") => match rest {
            [] => ptx::ptx(false),
            [flag] if flag == "--check" => ptx::ptx(true),
            [flag, dir] if flag == "--out" => ptx::ptx_out(&PathBuf::from(dir)),
            _ => Err(format!("unexpected arguments to ptx: {rest:?}\n{USAGE}")),
        },
        Some("cubin") => match rest {
            [] => cubin::cubin(false),
            [flag] if flag == "--check" => cubin::cubin(true),
            _ => Err(format!("unexpected arguments to cubin: {rest:?}\n{USAGE}")),
        },
        Some("test-gpu") => gpu::test_gpu(gpu::parse_args(rest)?),
        Some("bundle") => bundle::bundle(parse_bundle_args(rest)?),
        Some("package") => package::package(rest),
        Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
        None => Err(format!("no command\n{USAGE}")),
    }
}

/// The output folder of `bundle [--out DIR]` (`--out=DIR` also accepted).
fn parse_bundle_args(args: &[String]) -> util::Result<Option<PathBuf>> {
    match args {
        [] => Ok(None),
        [flag, dir] if flag == "--out" => Ok(Some(PathBuf::from(dir))),
        [flag] if flag.starts_with("--out=") => Ok(Some(PathBuf::from(&flag["--out=".len()..]))),
        _ => Err(format!("unexpected arguments to bundle: {args:?}\n{USAGE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_arguments() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(parse_bundle_args(&[]).unwrap(), None);
        assert_eq!(
            parse_bundle_args(&s(&["--out", "/tmp/b"])).unwrap(),
            Some(PathBuf::from("/tmp/b"))
        );
        assert_eq!(
            parse_bundle_args(&s(&["--out=b"])).unwrap(),
            Some(PathBuf::from("b"))
        );
        assert!(parse_bundle_args(&s(&["--out"])).is_err());
        assert!(dispatch(&s(&["frobnicate"])).is_err());
        assert!(dispatch(&s(&["ptx", "--bogus"])).is_err());
    }
}
