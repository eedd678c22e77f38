//! The digest that ties a committed cubin to the PTX it was built from (64-bit FNV-1a of
//! the PTX file's bytes). One definition, used by this crate's build script (which embeds
//! only cubins whose recorded digest matches the PTX beside them), by `cargo xtask cubin`
//! (which records it) and by `cargo xtask ptx --check` (which checks it).

/// The 64-bit FNV-1a hash of `bytes`, the digest a cubin manifest line records, as 16
/// lower-case hex digits.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_kernels_ptx::ptx_digest(b""), "cbf29ce484222325");
/// assert_eq!(mgpu_kernels_ptx::ptx_digest(b"a"), "af63dc4c8601ec8c");
/// ```
pub fn ptx_digest(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// One line of `cubin/manifest.txt`, `<family>_<arch>.cubin <ptx digest> <ptxas version>`,
/// split into its three fields; `None` for a blank or `#` comment line or a malformed one.
///
/// # Examples
///
/// ```
/// use mgpu_kernels_ptx::manifest_line;
/// assert_eq!(
///     manifest_line("scan_sm_90.cubin 0123456789abcdef 12.9.86"),
///     Some(("scan_sm_90.cubin", "0123456789abcdef", "12.9.86"))
/// );
/// assert_eq!(manifest_line("# comment"), None);
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
