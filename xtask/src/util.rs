//! Paths and process helpers shared by the xtask commands.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The result type of every xtask step: the error is a message for the user.
pub type Result<T, E = String> = std::result::Result<T, E>;

/// The workspace root (the parent of the `xtask/` folder this binary was built from).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// `path` relative to the workspace root when it lies inside it, for messages.
pub fn display_path(path: &Path) -> String {
    let root = workspace_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A shell-like rendering of a command line, for messages.
pub fn render(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    parts.extend(cmd.get_args().map(quote));
    parts.join(" ")
}

/// Quotes one argument for [`render`] when it holds characters a shell would split on.
fn quote(arg: &OsStr) -> String {
    let s = arg.to_string_lossy();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=+./:,@%".contains(c))
    {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Runs `cmd` with inherited stdio and fails when it cannot start or exits non-zero.
pub fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run `{}`: {e}", render(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", render(cmd)))
    }
}

/// Runs `cmd`, stderr inherited, and returns its stdout; fails when it cannot start
/// or exits non-zero.
pub fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", render(cmd)))?;
    if !out.status.success() {
        return Err(format!("`{}` failed ({})", render(cmd), out.status));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("`{}` printed non-UTF-8", render(cmd)))
}

/// Environment variables that `cargo run` (or the user's shell) may set for the
/// xtask and that would change which toolchain, flags or profile a nested cargo
/// uses: removed from every nested nightly build, so the PTX depends only on the
/// committed sources, the workspace manifests and the nightly compiler.
const NESTED_ENV_EXACT: &[&str] = &[
    "RUSTUP_TOOLCHAIN",
    "RUSTUP_TOOLCHAIN_SOURCE",
    "CARGO",
    "RUSTC",
    "RUSTDOC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_INCREMENTAL",
    "CARGO_MAKEFLAGS",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
];

/// Prefixes of the environment variables removed like [`NESTED_ENV_EXACT`]:
/// profile, build and target settings, encoded flags and package metadata.
const NESTED_ENV_PREFIXES: &[&str] = &[
    "CARGO_ENCODED_",
    "CARGO_PROFILE_",
    "CARGO_BUILD_",
    "CARGO_TARGET_",
    "CARGO_PKG_",
    "CARGO_CFG_",
    "__CARGO",
];

/// The path of `tool` (`cargo`, `rustc`) in the nightly toolchain, from
/// `rustup which --toolchain nightly <tool>`.
fn nightly_tool(tool: &str) -> Result<PathBuf> {
    let mut cmd = Command::new("rustup");
    cmd.args(["which", "--toolchain", "nightly", tool])
        .env_remove("RUST_BACKTRACE");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{}` (is rustup installed?): {e}", render(&cmd)))?;
    if !out.status.success() {
        return Err(format!(
            "`{}` failed: {}; install it with `rustup toolchain install nightly \
             --component rust-src`",
            render(&cmd),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// A command that runs `tool` (`cargo` or `rustc`) of the `nightly` toolchain, with
/// the variables of [`NESTED_ENV_EXACT`] and [`NESTED_ENV_PREFIXES`] removed. This is
/// `cargo +nightly` made robust: the toolchain's own binary is run (so it also works
/// when a toolchain's `bin/`, not rustup's proxies, comes first on `PATH`), and a
/// nightly cargo gets `RUSTC` pointing at the nightly rustc, as a plain `rustc` on
/// `PATH` could be the stable one.
pub fn nightly(tool: &str) -> Result<Command> {
    let mut cmd = Command::new(nightly_tool(tool)?);
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if NESTED_ENV_EXACT.contains(&key) || NESTED_ENV_PREFIXES.iter().any(|p| key.starts_with(p))
        {
            cmd.env_remove(key);
        }
    }
    cmd.env("RUSTUP_TOOLCHAIN", "nightly");
    if tool == "cargo" {
        cmd.env("RUSTC", nightly_tool("rustc")?);
    }
    Ok(cmd)
}

/// A command running the same cargo that runs the xtask (`$CARGO`, else `cargo`).
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Total size in bytes of the regular files directly inside `dir`.
pub fn dir_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let meta = entry
            .metadata()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        if meta.is_file() {
            total += meta.len();
        }
    }
    Ok(total)
}

/// Formats a byte count in MiB with one decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}
