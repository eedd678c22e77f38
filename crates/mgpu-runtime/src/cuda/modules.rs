//! The kernel module cache: the modules a context has loaded, kept with their functions
//! (and each function's dynamic shared memory opt-in) until the last clone of the
//! [`Context`](super::Context) is dropped. A launch of kernel `K` looks up `K::ENTRY` in
//! the module that holds it, loading that module on first use, from one of three sources:
//!
//! 1. **The family's cubin** (the default, where there is one): machine code built ahead
//!    of time from the committed PTX by `ptxas` ([`mgpu_kernels_ptx::cubin`], for the
//!    architectures of [`mgpu_kernels_ptx::CUBIN_ARCHS`]). It is used on a device of
//!    exactly that compute capability (`sm_90`: 9.0, the H100 and H200), loads in about a
//!    millisecond and needs no JIT at all. Should the driver refuse it, the family falls
//!    back to 2.
//! 2. **One entry's PTX**: a family's PTX file holds every instance of its kernels
//!    (`scan_sm_90.ptx`: 1.8 MB, 108 entries) and the driver JIT-compiles a module
//!    whole; with an empty JIT cache the first scan call spent 6.4 s compiling kernels it
//!    never launched. So without a cubin, [`mgpu_kernels_ptx::ptx_entry`] cuts the one
//!    entry out of the family's PTX for the device's architecture as a self-contained
//!    module (the header, the module-scope declarations and that `.entry`), JIT-compiled
//!    with `cuModuleLoadDataEx` the first time `K` is launched on this context. The
//!    driver's JIT cache (`~/.nv/ComputeCache`, unless `CUDA_CACHE_DISABLE=1`) keeps it
//!    across processes; the first run on a machine, or a run with the cache off, pays.
//! 3. **The family's whole PTX**, as before per-entry loading (only on request).
//!
//! Two environment variables, knobs for measuring rather than for users:
//!
//! - `MGPU_KERNEL_LOAD` (read when the context is created): `cubin` (the default: 1, else
//!   2), `entry` (always 2) or `family` (always 3), so the same binary measures the cold
//!   start every way (`mgpu-bench --cold-start`, `run.sh --cold`).
//! - `MGPU_PTX_DIR`: a folder whose `<family>_<arch>.ptx` files replace the committed PTX
//!   of those families (the host side must match: same arguments and launch shape); such
//!   a family never uses its cubin. A file is read and indexed once per context and
//!   family, and split into entries the same way.

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

/// The environment variable that picks the modules' source ([`Load`]).
const LOAD_VAR: &str = "MGPU_KERNEL_LOAD";

/// Where a family's modules come from (`MGPU_KERNEL_LOAD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Load {
    /// The family's cubin on a device of its architecture, else [`Load::Entry`].
    Cubin,
    /// One PTX module per entry, JIT-compiled.
    Entry,
    /// The family's whole PTX as one module, JIT-compiled.
    Family,
}

impl Load {
    /// The mode a value of `MGPU_KERNEL_LOAD` asks for: unset or empty is the default,
    /// [`Load::Cubin`]; anything else must be one of `cubin`, `entry`, `family`.
    fn parse(value: Option<&str>) -> Result<Load> {
        match value.unwrap_or_default() {
            "" | "cubin" => Ok(Load::Cubin),
            "entry" => Ok(Load::Entry),
            "family" => Ok(Load::Family),
            other => Err(Error::InvalidInput(format!(
                "{LOAD_VAR}={other:?}: expected cubin, entry or family"
            ))),
        }
    }
}

/// What one loaded module holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Unit {
    /// The family's cubin (every entry).
    Cubin,
    /// One entry's PTX.
    Entry(&'static str),
    /// The family's whole PTX.
    Family,
}

/// A loaded module's key: the family ([`Kernel::MODULE`]) and what the module holds.
type ModuleKey = (&'static str, Unit);

/// A context's modules, and the `MGPU_PTX_DIR` files read for them.
pub(super) struct Modules {
    /// Where modules come from (`MGPU_KERNEL_LOAD`).
    load: Load,
    loaded: HashMap<ModuleKey, Module>,
    /// Per family: its `MGPU_PTX_DIR` file, indexed, or `None` when there is none.
    overrides: HashMap<&'static str, Option<Override>>,
    /// Per family, decided on its first launch: whether its modules come from its cubin
    /// (`false` also once the driver refused the cubin: the family JIT-compiles its PTX
    /// from then on). Every launch looks its family up here, nothing more.
    cubins: HashMap<&'static str, bool>,
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
    /// No module loaded yet; reads `MGPU_KERNEL_LOAD` (an unknown value is an error).
    pub(super) fn new() -> Result<Modules> {
        let load = Load::parse(std::env::var(LOAD_VAR).ok().as_deref())?;
        Ok(Modules {
            load,
            loaded: HashMap::new(),
            overrides: HashMap::new(),
            cubins: HashMap::new(),
        })
    }

    /// Takes every loaded module's handle out (for unloading).
    pub(super) fn drain(&mut self) -> impl Iterator<Item = sys::CUmodule> + '_ {
        self.overrides.clear();
        self.loaded.drain().map(|(_, m)| m.handle)
    }
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
    /// Reads `family`'s `MGPU_PTX_DIR` file for `arch` the first time it is asked for;
    /// returns whether there is one.
    fn read_override(&mut self, arch: &str, family: &'static str) -> Result<bool> {
        if !self.overrides.contains_key(family) {
            let found = read_override(std::env::var_os("MGPU_PTX_DIR"), family, arch)?;
            self.overrides.insert(family, found);
        }
        Ok(matches!(self.overrides.get(family), Some(Some(_))))
    }

    /// The module that holds `family`'s entry `entry` on a device of compute capability
    /// `cc`, whose PTX is that of `arch`: by [`Load`], the family's cubin when there is
    /// one for exactly `cc` (and no `MGPU_PTX_DIR` file replaces the family, and the
    /// driver has not refused the cubin), else the entry's PTX, or the family's whole PTX.
    fn unit(
        &mut self,
        cc: (u32, u32),
        arch: &str,
        family: &'static str,
        entry: &'static str,
    ) -> Result<Unit> {
        Ok(match self.load {
            Load::Family => Unit::Family,
            Load::Entry => Unit::Entry(entry),
            Load::Cubin => {
                let cubin = match self.cubins.get(family) {
                    Some(&c) => c,
                    None => {
                        let exact = arch.strip_prefix("sm_") == Some(&*format!("{}{}", cc.0, cc.1));
                        let c = exact
                            && mgpu_kernels_ptx::cubin(family, arch).is_some()
                            && !self.read_override(arch, family)?;
                        self.cubins.insert(family, c);
                        c
                    }
                };
                if cubin {
                    Unit::Cubin
                } else {
                    Unit::Entry(entry)
                }
            }
        })
    }

    /// The PTX text to load for `family` on `arch`, whole (`entry` `None`) or for one
    /// entry: from the committed PTX, or from `$MGPU_PTX_DIR/<family>_<arch>.ptx` when that
    /// variable names a folder holding that file (read once per family).
    fn source(
        &mut self,
        arch: &str,
        family: &'static str,
        entry: Option<&'static str>,
    ) -> Result<String> {
        self.read_override(arch, family)?;
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
    /// Loads `family`'s module `unit` for this device: its cubin, or its PTX (one entry or
    /// whole) JIT-compiled.
    fn load_module(
        &self,
        modules: &mut Modules,
        family: &'static str,
        unit: Unit,
    ) -> Result<sys::CUmodule> {
        let arch = self.info.arch.name();
        let (what, image) = match unit {
            Unit::Cubin => {
                let image = mgpu_kernels_ptx::cubin(family, arch)
                    .expect("Modules::unit picks a cubin only where there is one");
                (format!("the {family} cubin ({arch})"), image.to_vec())
            }
            Unit::Entry(e) => {
                let what = format!("{e} of the {family} PTX ({arch})");
                let ptx = modules.source(arch, family, Some(e))?;
                (what, nul_terminated(ptx)?)
            }
            Unit::Family => {
                let what = format!("the {family} PTX ({arch})");
                (what, nul_terminated(modules.source(arch, family, None)?)?)
            }
        };
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
        // SAFETY: `image` is a cubin or NUL-terminated PTX text; the options point at
        // `log`, which outlives the call, and give its size.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                image.as_ptr().cast(),
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
            format!("loading {what} on {}: {text}", self.info.name)
        })?;
        Ok(module)
    }

    /// The module of `family` that holds `entry`, loaded on first use: a cubin the driver
    /// refuses is remembered, and the family JIT-compiles its PTX from then on.
    fn module_of(
        &self,
        modules: &mut Modules,
        family: &'static str,
        entry: &'static str,
    ) -> Result<ModuleKey> {
        let arch = self.info.arch.name();
        let mut key = (
            family,
            modules.unit(self.info.compute_capability, arch, family, entry)?,
        );
        if modules.loaded.contains_key(&key) {
            return Ok(key);
        }
        let handle = match self.load_module(modules, family, key.1) {
            Err(Error::Cuda(_)) if key.1 == Unit::Cubin => {
                modules.cubins.insert(family, false);
                key.1 = Unit::Entry(entry);
                if modules.loaded.contains_key(&key) {
                    return Ok(key);
                }
                self.load_module(modules, family, key.1)?
            }
            other => other?,
        };
        let functions = HashMap::new();
        modules.loaded.insert(key, Module { handle, functions });
        Ok(key)
    }

    /// The loaded modules, sorted, as [`Context::loaded_modules`](super::Context) shows them.
    pub(super) fn loaded_modules(&self) -> Vec<String> {
        let modules = self.modules.lock().unwrap_or_else(PoisonError::into_inner);
        let mut shown: Vec<String> = (modules.loaded.keys())
            .map(|(family, unit)| match unit {
                Unit::Cubin => format!("{family} cubin"),
                Unit::Entry(e) => format!("{family} entry {e}"),
                Unit::Family => format!("{family} family"),
            })
            .collect();
        shown.sort();
        shown
    }

    /// The function of kernel `K`, loading its module on first use (the context is current).
    pub(super) fn function<K: Kernel>(&self) -> Result<sys::CUfunction> {
        let mut guard = self.modules.lock().unwrap_or_else(PoisonError::into_inner);
        let modules = &mut *guard;
        let key = self.module_of(modules, K::MODULE, K::ENTRY)?;
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
                        "looking up entry point {} in the {} module ({}); is the committed \
                         PTX stale? (`cargo xtask ptx`)",
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

/// PTX text as the driver takes it: NUL-terminated, with no NUL inside.
fn nul_terminated(ptx: String) -> Result<Vec<u8>> {
    CString::new(ptx)
        .map(CString::into_bytes_with_nul)
        .map_err(|_| Error::Cuda("the PTX text contains a NUL byte".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules() -> Modules {
        Modules {
            load: Load::Cubin,
            loaded: HashMap::new(),
            overrides: HashMap::new(),
            cubins: HashMap::new(),
        }
    }

    #[test]
    fn the_knob_takes_three_modes_and_refuses_the_rest() {
        assert_eq!(Load::parse(None).unwrap(), Load::Cubin);
        assert_eq!(Load::parse(Some("")).unwrap(), Load::Cubin);
        assert_eq!(Load::parse(Some("cubin")).unwrap(), Load::Cubin);
        assert_eq!(Load::parse(Some("entry")).unwrap(), Load::Entry);
        assert_eq!(Load::parse(Some("family")).unwrap(), Load::Family);
        let e = Load::parse(Some("1")).unwrap_err().to_string();
        assert!(
            e.contains("MGPU_KERNEL_LOAD=\"1\": expected cubin, entry or family"),
            "{e}"
        );
    }

    #[test]
    fn a_cubin_is_used_on_its_exact_architecture_only() {
        let e = "scan_partials_f32_plus";
        // A context's modules serve one device: a fresh cache per compute capability.
        let on = |cc: (u32, u32), arch: &str| modules().unit(cc, arch, "scan", e).unwrap();
        assert_eq!(on((9, 0), "sm_90"), Unit::Cubin);
        // sm_90 PTX runs on later devices, its cubin does not.
        assert_eq!(on((10, 0), "sm_90"), Unit::Entry(e));
        assert_eq!(on((8, 0), "sm_70"), Unit::Entry(e));
        assert_eq!(on((7, 0), "sm_70"), Unit::Entry(e));
        let mut m = modules();
        assert_eq!(m.unit((9, 0), "sm_90", "scan", e).unwrap(), Unit::Cubin);
        m.cubins.insert("scan", false); // as after the driver refused it
        assert_eq!(m.unit((9, 0), "sm_90", "scan", e).unwrap(), Unit::Entry(e));
        m.load = Load::Entry;
        assert_eq!(m.unit((9, 0), "sm_90", "bulk", e).unwrap(), Unit::Entry(e));
        m.load = Load::Family;
        assert_eq!(m.unit((9, 0), "sm_90", "bulk", e).unwrap(), Unit::Family);
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
        // A family whose PTX is replaced never runs its cubin.
        let unit = m.unit((9, 0), "sm_90", "blocks", "blocks_b").unwrap();
        assert_eq!(unit, Unit::Entry("blocks_b"));
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
