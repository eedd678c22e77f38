//! # mgpu-kernels-cubin: the ahead-of-time cubins of the mgpu kernel families
//!
//! Layer: **kernels** (host side), beside `mgpu-kernels-ptx`. For each kernel family
//! (`scan`, `segreduce`, `merge`, ...) and each architecture with ahead-of-time code
//! (`sm_90`), this crate embeds the family's machine code, `<family>_<arch>.cubin`, built
//! from the committed PTX of `mgpu-kernels-ptx` by a pinned `ptxas` release (`cargo xtask
//! cubin`), deflated by the build script. `manifest.txt` records each cubin with the
//! 64-bit FNV-1a digest of the PTX it was built from.
//!
//! Users do not call this crate: `mgpu-kernels-ptx::cubin` hands out a cubin only when its
//! recorded digest equals the digest of the PTX that crate embeds, so a stale cubin never
//! runs (the family JIT-compiles its PTX instead), and inflates it.
//!
//! The cubins are a package of their own so that neither this crate nor the PTX nears
//! the registry's 10 MiB limit on a compressed package.
//!
//! # Examples
//!
//! ```
//! // Every embedded cubin names the PTX digest it was built from.
//! for c in mgpu_kernels_cubin::CUBINS {
//!     assert!(c.name.ends_with("_sm_90.cubin"));
//!     assert_eq!(c.ptx_digest.len(), 16);
//!     assert!(!c.deflated.is_empty());
//! }
//! assert!(mgpu_kernels_cubin::find("scan_sm_90.cubin").is_some());
//! assert!(mgpu_kernels_cubin::find("scan_sm_70.cubin").is_none());
//! ```

mod manifest;
pub use manifest::manifest_line;

/// One embedded cubin, as `manifest.txt` records it.
///
/// # Examples
///
/// ```
/// let scan = mgpu_kernels_cubin::find("scan_sm_90.cubin").unwrap();
/// assert_eq!(scan.name, "scan_sm_90.cubin");
/// assert!(scan.ptxas.starts_with("12."));
/// ```
#[derive(Debug)]
pub struct Cubin {
    /// The file name, `<family>_<arch>.cubin`.
    pub name: &'static str,
    /// The 64-bit FNV-1a digest of the PTX file it was built from, 16 hex digits
    /// (`mgpu_kernels_ptx::ptx_digest`).
    pub ptx_digest: &'static str,
    /// The `ptxas` release that built it.
    pub ptxas: &'static str,
    /// The cubin's bytes, deflated (raw DEFLATE, `miniz_oxide` level 9).
    pub deflated: &'static [u8],
}

/// Every embedded cubin, in the manifest's order.
///
/// # Examples
///
/// ```
/// let names: Vec<&str> = mgpu_kernels_cubin::CUBINS.iter().map(|c| c.name).collect();
/// assert!(names.contains(&"segreduce_sm_90.cubin"));
/// ```
pub static CUBINS: &[Cubin] = include!(concat!(env!("OUT_DIR"), "/cubins.rs"));

/// The embedded cubin named `name` (`<family>_<arch>.cubin`), if there is one.
///
/// # Examples
///
/// ```
/// assert!(mgpu_kernels_cubin::find("merge_sm_90.cubin").is_some());
/// assert!(mgpu_kernels_cubin::find("no_such_family_sm_90.cubin").is_none());
/// ```
pub fn find(name: &str) -> Option<&'static Cubin> {
    CUBINS.iter().find(|c| c.name == name)
}
