//! The format of `manifest.txt`, one place for its reader: this crate's build script, the
//! crate itself and `cargo xtask cubin` / `cargo xtask ptx --check` use it.

/// One line of `manifest.txt`, `<family>_<arch>.cubin <ptx digest> <ptxas release>`,
/// split into its three fields; `None` for a blank or `#` comment line or a malformed one.
///
/// # Examples
///
/// ```
/// use mgpu_kernels_cubin::manifest_line;
/// assert_eq!(
///     manifest_line("scan_sm_90.cubin 0123456789abcdef 12.9.86"),
///     Some(("scan_sm_90.cubin", "0123456789abcdef", "12.9.86"))
/// );
/// assert_eq!(manifest_line("# comment"), None);
/// assert_eq!(manifest_line("scan_sm_90.cubin 0123"), None);
/// ```
pub fn manifest_line(line: &str) -> Option<(&str, &str, &str)> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let mut fields = line.split_whitespace();
    let found = (fields.next()?, fields.next()?, fields.next()?);
    fields.next().is_none().then_some(found)
}
