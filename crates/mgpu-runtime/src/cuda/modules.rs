//! The PTX module cache: one module per kernel entry, JIT-compiled on first use and kept
//! with its function (and the function's dynamic shared memory opt-in) until the last
//! clone of the [`Context`](super::Context) is dropped.
//!
//! A family's PTX file holds every instance of its kernels (`scan_sm_90.ptx`: 1.8 MB, 108
//! entries), and the driver JIT-compiles a module whole: with an empty JIT cache, the
//! first scan call spent 6.4 s compiling kernels it never launched. So a launch of kernel
//! `K` loads only `K::ENTRY`: [`mgpu_kernels_ptx::ptx_entry`] cuts that entry out of
//! `K::MODULE`'s committed PTX for the device's architecture as a self-contained module
//! (the header, the module-scope declarations and the one `.entry`), which is
//! JIT-compiled with `cuModuleLoadDataEx` the first time `K` is launched on this context.
//! The driver's JIT cache (`~/.nv/ComputeCache`, unless `CUDA_CACHE_DISABLE=1`) keeps
//! compiled modules across processes; it is the first run on a machine, or a run with the
//! cache off, that pays for the JIT.
//!
//! Two environment variables, knobs for measuring rather than for users:
//!
//! - `MGPU_PTX_DIR`: a folder whose `<family>_<arch>.ptx` files replace the committed PTX
//!   of those families (the host side must match: same arguments and launch shape). Such a
//!   file is read and indexed once per context and family, and split into entries the
//!   same way.
//! - `MGPU_JIT_WHOLE_FAMILY=1` (read when the context is created): load each family's
//!   whole module on first use instead, as before per-entry loading, so the same binary
//!   measures the cold start both ways (`mgpu-bench --cold-start`, `run.sh --cold`).

use super::Inner;
use crate::{Error, Result};
use cudarc::driver::{result, sys};
use mgpu_core::Kernel;
use mgpu_kernels_ptx::PtxIndex;
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString, OsString};
use std::path::PathBuf;
use std::sync::PoisonError;

/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_MAX_DYNAMIC_SHARED: u32 = 48 * 1024;

/// Bytes kept of the JIT compiler's error log.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// The environment variable that restores whole-family modules.
const WHOLE_FAMILY_VAR: &str = "MGPU_JIT_WHOLE_FAMILY";

/// A loaded module's key: the family ([`Kernel::MODULE`]) and the entry
/// ([`Kernel::ENTRY`]), or no entry for a family's whole module.
type ModuleKey = (&'static str, Option<&'static str>);

/// A context's modules, and the `MGPU_PTX_DIR` files read for them.
pub(super) struct Modules {
    /// Whether to load a family's whole module (`MGPU_JIT_WHOLE_FAMILY=1`).
    whole_family: bool,
    loaded: HashMap<ModuleKey, Module>,
    /// Per family: its `MGPU_PTX_DIR` file, indexed, or `None` when there is none.
    overrides: HashMap<&'static str, Option<Override>>,
}

/// A family's PTX read from `MGPU_PTX_DIR`.
struct Override {
    path: PathBuf,
    index: PtxIndex<'static>,
}

/// A loaded PTX module and the functions looked up in it (one, unless it is a family's
/// whole module).
struct Module {
    handle: sys::CUmodule,
    functions: HashMap<&'static str, Function>,
}

#[derive(Clone, Copy)]
struct Function {
    handle: sys::CUfunction,
    /// The dynamic shared memory the function has been opted in to (0: the default 48 KiB).
    shared_opt_in: u32,
}

// SAFETY: driver module and function handles are plain identifiers, valid on any thread
// once the owning context is bound (every use binds it first); the map is behind a Mutex.
unsafe impl Send for Modules {}

impl Modules {
    /// No module loaded yet; reads `MGPU_JIT_WHOLE_FAMILY`.
    pub(super) fn new() -> Modules {
        let whole_family = wants_whole_family(std::env::var(WHOLE_FAMILY_VAR).ok().as_deref());
        Modules {
            whole_family,
            loaded: HashMap::new(),
            overrides: HashMap::new(),
        }
    }

    /// Takes every loaded module's handle out (for unloading).
    pub(super) fn drain(&mut self) -> impl Iterator<Item = sys::CUmodule> + '_ {
        self.overrides.clear();
        self.loaded.drain().map(|(_, m)| m.handle)
    }
}

/// Whether a value of `MGPU_JIT_WHOLE_FAMILY` asks for whole-family modules: set, not
/// empty and not `0`.
fn wants_whole_family(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// `family`'s file for `arch` in the folder `dir` (`MGPU_PTX_DIR`), read and indexed, or
/// `None` when there is no folder or it has no such file.
fn read_override(dir: Option<OsString>, family: &str, arch: &str) -> Result<Option<Override>> {
    let Some(path) = dir
        .map(|d| PathBuf::from(d).join(format!("{family}_{arch}.ptx")))
        .filter(|p| p.is_file())
    else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::Cuda(format!("reading {}: {e}", path.display())))?;
    Ok(Some(Override {
        path,
        index: PtxIndex::new(text),
    }))
}

impl Modules {
    /// The PTX text to load for `family` on `arch`, whole (`entry` `None`) or for one
    /// entry: from the committed PTX, or from `$MGPU_PTX_DIR/<family>_<arch>.ptx` when that
    /// variable names a folder holding that file (read once per family).
    fn source(
        &mut self,
        arch: &str,
        family: &'static str,
        entry: Option<&'static str>,
    ) -> Result<String> {
        if !self.overrides.contains_key(family) {
            let found = read_override(std::env::var_os("MGPU_PTX_DIR"), family, arch)?;
            self.overrides.insert(family, found);
        }
        let stale = |from: &str, hint: &str| {
            Error::Cuda(format!(
                "looking up entry point {} in the {family} PTX ({arch}){from}: no such .entry; \
                 {hint}",
                entry.unwrap_or_default()
            ))
        };
        if let Some(Some(o)) = self.overrides.get(family) {
            return match entry {
                None => Ok(o.index.text().to_string()),
                Some(e) => o.index.entry_module(e).ok_or_else(|| {
                    stale(
                        &format!(" read from {}", o.path.display()),
                        "is the PTX in MGPU_PTX_DIR stale? (`cargo xtask ptx --out DIR`)",
                    )
                }),
            };
        }
        let unknown = || {
            let known: Vec<&str> = mgpu_kernels_ptx::families().collect();
            Error::Cuda(format!(
                "no PTX for kernel family \"{family}\" ({arch}) in mgpu-kernels-ptx \
                 (registered: {known:?}); generate kernels-ptx/ptx/{family}_sm_70.ptx and \
                 _sm_90.ptx with `cargo xtask ptx` and add {family} to the families! list \
                 in kernels-ptx/src/lib.rs"
            ))
        };
        match entry {
            None => mgpu_kernels_ptx::ptx(family, arch)
                .map(str::to_string)
                .ok_or_else(unknown),
            Some(e) => mgpu_kernels_ptx::ptx_index(family, arch)
                .ok_or_else(unknown)?
                .entry_module(e)
                .ok_or_else(|| stale("", "is the committed PTX stale? (`cargo xtask ptx`)")),
        }
    }
}

impl Inner {
    /// JIT-compiles the module of `family`'s entry `entry` (or of the whole family when
    /// `entry` is `None`) for this device.
    fn load_module(
        &self,
        modules: &mut Modules,
        family: &'static str,
        entry: Option<&'static str>,
    ) -> Result<sys::CUmodule> {
        let arch = self.info.arch.name();
        let what = match entry {
            Some(e) => format!("{e} of the {family} PTX ({arch})"),
            None => format!("the {family} PTX ({arch})"),
        };
        let ptx = modules.source(arch, family, entry)?;
        let src =
            CString::new(ptx).map_err(|_| Error::Cuda(format!("{what} contains a NUL byte")))?;
        let mut log = vec![0u8; JIT_LOG_BYTES];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = [
            log.as_mut_ptr().cast::<c_void>(),
            std::ptr::without_provenance_mut::<c_void>(log.len()),
        ];
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `src` is NUL-terminated PTX text; the options point at `log`, which
        // outlives the call, and give its size.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                src.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        }
        .result();
        self.check(r, || {
            let text = CStr::from_bytes_until_nul(&log)
                .map(|s| s.to_string_lossy().trim().to_string())
                .unwrap_or_default();
            format!("JIT-compiling {what} on {}: {text}", self.info.name)
        })?;
        Ok(module)
    }

    /// The function of kernel `K`, loading its module on first use (the context is current).
    pub(super) fn function<K: Kernel>(&self) -> Result<sys::CUfunction> {
        let mut guard = self.modules.lock().unwrap_or_else(PoisonError::into_inner);
        let modules = &mut *guard;
        let key: ModuleKey = (K::MODULE, (!modules.whole_family).then_some(K::ENTRY));
        if !modules.loaded.contains_key(&key) {
            let handle = self.load_module(modules, key.0, key.1)?;
            modules.loaded.insert(
                key,
                Module {
                    handle,
                    functions: HashMap::new(),
                },
            );
        }
        let module = modules.loaded.get_mut(&key).expect("loaded above");
        let function = match module.functions.get(K::ENTRY) {
            Some(&f) => f,
            None => {
                let name = CString::new(K::ENTRY).map_err(|_| {
                    Error::Cuda(format!(
                        "kernel entry name {:?} contains a NUL byte",
                        K::ENTRY
                    ))
                })?;
                // SAFETY: the module is loaded and stays loaded while the context lives.
                let r = unsafe { result::module::get_function(module.handle, name) };
                let handle = self.check(r, || {
                    format!(
                        "looking up entry point {} in the {} PTX ({}); is the committed PTX \
                         stale? (`cargo xtask ptx`)",
                        K::ENTRY,
                        K::MODULE,
                        self.info.arch.name()
                    )
                })?;
                Function {
                    handle,
                    shared_opt_in: 0,
                }
            }
        };
        let mut function = function;
        if K::SHARED_BYTES > DEFAULT_MAX_DYNAMIC_SHARED && K::SHARED_BYTES > function.shared_opt_in
        {
            // SAFETY: a valid function handle of the current context.
            let r = unsafe {
                result::function::set_function_attribute(
                    function.handle,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    K::SHARED_BYTES as i32,
                )
            };
            self.check(r, || {
                format!(
                    "allowing {} bytes of dynamic shared memory for {} on {}",
                    K::SHARED_BYTES,
                    K::ENTRY,
                    self.info.name
                )
            })?;
            function.shared_opt_in = K::SHARED_BYTES;
        }
        module.functions.insert(K::ENTRY, function);
        Ok(function.handle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules() -> Modules {
        Modules {
            whole_family: false,
            loaded: HashMap::new(),
            overrides: HashMap::new(),
        }
    }

    #[test]
    fn the_knob_takes_one_and_leaves_zero_and_empty_alone() {
        assert!(wants_whole_family(Some("1")));
        assert!(wants_whole_family(Some("yes")));
        assert!(!wants_whole_family(Some("0")));
        assert!(!wants_whole_family(Some("")));
        assert!(!wants_whole_family(None));
    }

    #[test]
    fn an_entry_loads_alone_and_a_family_whole() {
        let mut m = modules();
        for arch in mgpu_kernels_ptx::ARCHS {
            let index = mgpu_kernels_ptx::ptx_index("partition", arch).unwrap();
            for entry in index.entries() {
                // The entry names the runtime looks up are &'static str.
                let entry: &'static str = Box::leak(entry.to_string().into_boxed_str());
                let text = m.source(arch, "partition", Some(entry)).unwrap();
                assert_eq!(text.matches(".entry").count(), 1, "{entry}");
                assert!(text.contains(&format!(".entry {entry}(")), "{entry}");
                assert!(text.contains(&format!(".target {arch}")), "{entry}");
            }
            let whole = m.source(arch, "partition", None).unwrap();
            assert_eq!(whole, mgpu_kernels_ptx::ptx("partition", arch).unwrap());
        }
    }

    #[test]
    fn unknown_families_and_entries_say_what_to_do() {
        let mut m = modules();
        let e = m.source("sm_90", "no_such_family", Some("k")).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("no PTX for kernel family \"no_such_family\""),
            "{text}"
        );
        assert!(text.contains("families!"), "{text}");
        let e = m.source("sm_90", "no_such_family", None).unwrap_err();
        assert!(e.to_string().contains("no_such_family"), "{e}");
        let e = m
            .source("sm_70", "blocks", Some("blocks_nothing"))
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("entry point blocks_nothing in the blocks PTX (sm_70)"),
            "{text}"
        );
        assert!(
            text.contains("is the committed PTX stale? (`cargo xtask ptx`)"),
            "{text}"
        );
    }

    #[test]
    fn ptx_dir_files_are_split_the_same_way() {
        let dir = std::env::temp_dir().join(format!("mgpu-ptx-dir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\n\
                   .extern .shared .align 16 .b8 smem[];\n\n\
                   .visible .entry blocks_a(\n)\n{\n\tret;\n}\n\
                   .visible .entry blocks_b(\n)\n{\n\tret;\n}\n";
        std::fs::write(dir.join("blocks_sm_90.ptx"), ptx).unwrap();
        assert!(read_override(None, "blocks", "sm_90").unwrap().is_none());
        let none = read_override(Some(dir.clone().into()), "blocks", "sm_70").unwrap();
        assert!(none.is_none(), "no file for sm_70");
        let found = read_override(Some(dir.clone().into()), "blocks", "sm_90").unwrap();
        let mut m = modules();
        m.overrides.insert("blocks", found);
        let b = m.source("sm_90", "blocks", Some("blocks_b")).unwrap();
        assert!(b.contains(".extern .shared .align 16 .b8 smem[];"));
        assert!(b.contains(".entry blocks_b(") && !b.contains("blocks_a"));
        assert_eq!(m.source("sm_90", "blocks", None).unwrap(), ptx);
        let e = m
            .source("sm_90", "blocks", Some("blocks_permute_i32"))
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("blocks_sm_90.ptx"), "{text}");
        assert!(text.contains("MGPU_PTX_DIR stale"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
