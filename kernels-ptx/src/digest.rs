//! The digest that ties a committed cubin to the PTX it was built from (64-bit FNV-1a of
//! the PTX file's bytes). One definition, used by this crate's build script (which records
//! the digest of each embedded PTX, so that [`crate::cubin`] hands out only cubins built
//! from it), by `cargo xtask cubin` (which records it in the cubin manifest) and by
//! `cargo xtask ptx --check` (which checks it).

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
