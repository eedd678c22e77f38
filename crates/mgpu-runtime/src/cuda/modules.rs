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
//!
//! A call that launches several kernels would compile them one after the other, one at
//! each first launch. So a launcher first names them all to
//! [`Device::prepare`](crate::Device::prepare) (as [`KernelRef`]s), which JIT-compiles the
//! modules not loaded yet concurrently, one host thread each (`cuModuleLoadDataEx` is
//! thread-safe, and compiles of different modules on different threads overlap), then
//! looks the functions up; the call's launches then find them ready. The cache's lock is
//! never held during a JIT: a miss is looked up under it, compiled outside it and inserted
//! under it again; when two threads compiled the same module, the first inserted is kept
//! and the other unloaded. A kernel nobody prepared is still loaded on its first launch.
//!
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
//!   Preparing kernels then loads their families, each once, still concurrently.

use super::Inner;
use crate::{Error, KernelRef, Result};
use cudarc::driver::{result, sys};
use mgpu_core::Kernel;
use mgpu_kernels_ptx::PtxIndex;
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString, OsString};
use std::path::PathBuf;
use std::sync::{MutexGuard, PoisonError};

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

/// A module a helper thread JIT-compiled, handed back to the thread that keeps it.
struct Compiled(sys::CUmodule);

// SAFETY: as for `Modules`: a module handle is a plain identifier, valid on any thread
// bound to its context.
unsafe impl Send for Compiled {}

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

impl Modules {
    /// The module holding `kernel`: its entry's, or its family's whole module with
    /// `MGPU_JIT_WHOLE_FAMILY=1`.
    fn key(&self, kernel: &KernelRef) -> ModuleKey {
        (kernel.module, (!self.whole_family).then_some(kernel.entry))
    }

    /// The modules of `kernels` not loaded yet, each once (in the order first named), with
    /// the PTX text to JIT-compile for it on `arch`. The first kernel whose PTX cannot be
    /// found is an error.
    fn missing(&mut self, arch: &str, kernels: &[KernelRef]) -> Result<Vec<(ModuleKey, String)>> {
        let mut missing: Vec<(ModuleKey, String)> = Vec::new();
        for kernel in kernels {
            let key = self.key(kernel);
            if self.loaded.contains_key(&key) || missing.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let ptx = self.source(arch, key.0, key.1)?;
            missing.push((key, ptx));
        }
        Ok(missing)
    }

    /// Keeps `handle` as the module `key`, unless another thread loaded that module while
    /// this one was compiling it: then the module kept is the other thread's, and `handle`
    /// is returned, for the caller to unload.
    fn insert(&mut self, key: ModuleKey, handle: sys::CUmodule) -> Option<sys::CUmodule> {
        if self.loaded.contains_key(&key) {
            return Some(handle);
        }
        self.loaded.insert(
            key,
            Module {
                handle,
                functions: HashMap::new(),
            },
        );
        None
    }
}

/// `job` run on every item of `items`, concurrently: the first on this thread, each other
/// on a scoped thread of its own (or on this thread, after the first, when no thread can
/// be had); the results in `items`' order. A panic in a job is re-raised here.
fn concurrently<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let Some((first, rest)) = items.split_first() else {
        return Vec::new();
    };
    let job = &job;
    std::thread::scope(|scope| {
        let helpers: Vec<_> = rest
            .iter()
            .map(|item| {
                std::thread::Builder::new()
                    .name("mgpu-jit".to_string())
                    .spawn_scoped(scope, move || job(item))
                    .map_err(|_| item)
            })
            .collect();
        let mut results = Vec::with_capacity(items.len());
        results.push(job(first));
        for helper in helpers {
            results.push(match helper {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(item) => job(item),
            });
        }
        results
    })
}

impl Inner {
    /// The module cache, locked. It is never held during a JIT.
    fn modules(&self) -> MutexGuard<'_, Modules> {
        self.modules.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// JIT-compiles `ptx`, the text of the module `key` (`family`'s entry, or the whole
    /// family), for this device (the context is current on this thread).
    fn jit(&self, key: ModuleKey, ptx: &str) -> Result<sys::CUmodule> {
        let arch = self.info.arch.name();
        let (family, entry) = key;
        let what = match entry {
            Some(e) => format!("{e} of the {family} PTX ({arch})"),
            None => format!("the {family} PTX ({arch})"),
        };
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
        // outlives the call, and give its size. `cuModuleLoadDataEx` is thread-safe.
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

    /// Loads the modules of `kernels` not loaded yet (the context is current on this
    /// thread): one is JIT-compiled on this thread, several concurrently, one host thread
    /// each (`cuModuleLoadDataEx` is thread-safe), without holding the cache's lock. If
    /// another thread loaded one of them meanwhile, its module is kept and ours unloaded.
    /// The modules that compiled are kept even when another failed; the first failure in
    /// list order is returned.
    fn load(&self, kernels: &[KernelRef]) -> Result<()> {
        let missing = self.modules().missing(self.info.arch.name(), kernels)?;
        if missing.is_empty() {
            return Ok(());
        }
        // Each job binds the context to its thread before it compiles into it.
        let results = concurrently(&missing, |(key, ptx)| {
            self.enter()
                .and_then(|()| self.jit(*key, ptx))
                .map(Compiled)
        });
        let mut first_error = None;
        let mut modules = self.modules();
        for ((key, _), outcome) in missing.iter().zip(results) {
            match outcome {
                Ok(Compiled(handle)) => {
                    if let Some(extra) = modules.insert(*key, handle) {
                        // SAFETY: loaded above and never used; the context is current.
                        let _ = unsafe { result::module::unload(extra) };
                    }
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Loads the modules of `kernels` (concurrently, see `load`) and looks their functions
    /// up, opting them in to their dynamic shared memory (the context is current).
    pub(super) fn prepare(&self, kernels: &[KernelRef]) -> Result<()> {
        self.load(kernels)?;
        let mut modules = self.modules();
        for kernel in kernels {
            self.lookup(&mut modules, kernel)?;
        }
        Ok(())
    }

    /// Whether `kernel`'s module is loaded.
    pub(super) fn is_loaded(&self, kernel: &KernelRef) -> bool {
        let modules = self.modules();
        modules.loaded.contains_key(&modules.key(kernel))
    }

    /// How many modules are loaded.
    pub(super) fn loaded_modules(&self) -> usize {
        self.modules().loaded.len()
    }

    /// The function of kernel `K`, loading its module on first use (the context is current).
    pub(super) fn function<K: Kernel>(&self) -> Result<sys::CUfunction> {
        let kernel = KernelRef::of::<K>();
        {
            let mut modules = self.modules();
            let key = modules.key(&kernel);
            if modules.loaded.contains_key(&key) {
                return self.lookup(&mut modules, &kernel);
            }
        }
        self.load(std::slice::from_ref(&kernel))?;
        self.lookup(&mut self.modules(), &kernel)
    }

    /// The function of `kernel`, whose module is loaded: looked up on first use, and
    /// opted in to more than the default dynamic shared memory when it needs it.
    fn lookup(&self, modules: &mut Modules, kernel: &KernelRef) -> Result<sys::CUfunction> {
        let key = modules.key(kernel);
        let module = modules
            .loaded
            .get_mut(&key)
            .expect("the module is loaded (modules are only unloaded by the last clone)");
        let function = match module.functions.get(kernel.entry) {
            Some(&f) => f,
            None => {
                let name = CString::new(kernel.entry).map_err(|_| {
                    Error::Cuda(format!(
                        "kernel entry name {:?} contains a NUL byte",
                        kernel.entry
                    ))
                })?;
                // SAFETY: the module is loaded and stays loaded while the context lives.
                let r = unsafe { result::module::get_function(module.handle, name) };
                let handle = self.check(r, || {
                    format!(
                        "looking up entry point {} in the {} PTX ({}); is the committed PTX \
                         stale? (`cargo xtask ptx`)",
                        kernel.entry,
                        kernel.module,
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
        let shared = kernel.shared_bytes;
        if shared > DEFAULT_MAX_DYNAMIC_SHARED && shared > function.shared_opt_in {
            // SAFETY: a valid function handle of the current context.
            let r = unsafe {
                result::function::set_function_attribute(
                    function.handle,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared as i32,
                )
            };
            self.check(r, || {
                format!(
                    "allowing {shared} bytes of dynamic shared memory for {} on {}",
                    kernel.entry, self.info.name
                )
            })?;
            function.shared_opt_in = shared;
        }
        module.functions.insert(kernel.entry, function);
        Ok(function.handle)
    }
}

impl super::Context {
    /// Whether `kernel`'s PTX module is loaded on this context (by its first launch or by
    /// [`Device::prepare`]): its entry's module, or with `MGPU_JIT_WHOLE_FAMILY=1` its
    /// family's.
    ///
    /// # Examples
    ///
    /// Runs on machines with and without a GPU:
    ///
    /// ```
    /// use mgpu_runtime::{Context, Device, KernelRef};
    /// let k = KernelRef { module: "partition", entry: "partition_lbs_u32", shared_bytes: 0 };
    /// if let Ok(ctx) = Context::new(0) {
    ///     assert!(!ctx.is_loaded(k));
    ///     ctx.prepare(&[k]).unwrap();
    ///     assert!(ctx.is_loaded(k));
    /// }
    /// ```
    ///
    /// [`Device::prepare`]: crate::Device::prepare
    pub fn is_loaded(&self, kernel: KernelRef) -> bool {
        self.0.is_loaded(&kernel)
    }

    /// How many PTX modules are loaded on this context: one per kernel entry launched or
    /// prepared so far (one per family with `MGPU_JIT_WHOLE_FAMILY=1`).
    ///
    /// # Examples
    ///
    /// Runs on machines with and without a GPU:
    ///
    /// ```
    /// use mgpu_runtime::{Context, Device, KernelRef};
    /// let k = KernelRef { module: "partition", entry: "partition_search_u64", shared_bytes: 0 };
    /// if let Ok(ctx) = Context::new(0) {
    ///     ctx.prepare(&[k]).unwrap();
    ///     let loaded = ctx.loaded_modules();
    ///     ctx.prepare(&[k, k]).unwrap(); // ready already: nothing to do
    ///     assert_eq!(ctx.loaded_modules(), loaded);
    /// }
    /// ```
    pub fn loaded_modules(&self) -> usize {
        self.0.loaded_modules()
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
    fn jobs_run_concurrently_and_answer_in_order() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<usize> = (0..4).collect();
        let results = concurrently(&items, |&i| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(200));
            running.fetch_sub(1, Ordering::SeqCst);
            if i % 2 == 1 {
                Err(format!("job {i} failed"))
            } else {
                Ok(i * 10)
            }
        });
        // The four sleeps overlapped (the JITs would too).
        assert_eq!(most.load(Ordering::SeqCst), 4);
        assert_eq!(
            results,
            [
                Ok(0),
                Err("job 1 failed".to_string()),
                Ok(20),
                Err("job 3 failed".to_string())
            ]
        );
        assert!(concurrently(&[] as &[u8], |_| ()).is_empty());
        let here = std::thread::current().id();
        assert_eq!(concurrently(&[()], |_| std::thread::current().id()), [here]);
    }

    /// A module handle for the cache logic's tests: never given to the driver.
    fn fake(n: usize) -> sys::CUmodule {
        std::ptr::without_provenance_mut(0x1000 * n)
    }

    const LBS: KernelRef = KernelRef {
        module: "partition",
        entry: "partition_lbs_u32",
        shared_bytes: 0,
    };
    const SEARCH: KernelRef = KernelRef {
        module: "partition",
        entry: "partition_search_u32",
        shared_bytes: 0,
    };
    const PERMUTE: KernelRef = KernelRef {
        module: "blocks",
        entry: "blocks_permute_i32",
        shared_bytes: 0,
    };

    #[test]
    fn prepare_jits_each_missing_module_once_in_order() {
        let mut m = modules();
        let missing = m.missing("sm_90", &[SEARCH, LBS, SEARCH, PERMUTE]).unwrap();
        let keys: Vec<ModuleKey> = missing.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            [
                ("partition", Some("partition_search_u32")),
                ("partition", Some("partition_lbs_u32")),
                ("blocks", Some("blocks_permute_i32")),
            ]
        );
        for ((_, entry), ptx) in &missing {
            assert!(ptx.contains(&format!(".entry {}(", entry.unwrap())));
            assert_eq!(ptx.matches(".entry").count(), 1);
        }
        // Loaded modules are skipped; nothing is missing once all are in.
        assert_eq!(m.insert(keys[1], fake(1)), None);
        let again = m.missing("sm_90", &[LBS, SEARCH]).unwrap();
        assert_eq!(again.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [keys[0]]);
        assert_eq!(m.insert(keys[0], fake(2)), None);
        assert_eq!(m.insert(keys[2], fake(3)), None);
        assert!(m
            .missing("sm_90", &[SEARCH, LBS, PERMUTE])
            .unwrap()
            .is_empty());
        assert!(m.missing("sm_90", &[]).unwrap().is_empty());
    }

    #[test]
    fn a_module_loaded_twice_keeps_the_first_and_hands_back_the_second() {
        let mut m = modules();
        let key = m.key(&LBS);
        assert_eq!(m.insert(key, fake(1)), None);
        assert_eq!(m.insert(key, fake(2)), Some(fake(2)));
        assert_eq!(m.loaded.len(), 1);
        assert_eq!(m.loaded[&key].handle, fake(1));
        let drained: Vec<_> = m.drain().collect();
        assert_eq!(drained, [fake(1)]);
    }

    #[test]
    fn whole_family_prepares_each_family_once() {
        let mut m = modules();
        m.whole_family = true;
        assert_eq!(m.key(&LBS), ("partition", None));
        let missing = m.missing("sm_70", &[LBS, PERMUTE, SEARCH]).unwrap();
        let keys: Vec<ModuleKey> = missing.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [("partition", None), ("blocks", None)]);
        assert_eq!(
            missing[0].1,
            mgpu_kernels_ptx::ptx("partition", "sm_70").unwrap()
        );
        m.insert(keys[0], fake(1));
        let rest = m.missing("sm_70", &[SEARCH, PERMUTE]).unwrap();
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].0, ("blocks", None));
    }

    #[test]
    fn prepare_reports_the_first_kernel_without_ptx() {
        let mut m = modules();
        let missing_family = KernelRef {
            module: "no_such_family",
            entry: "k",
            shared_bytes: 0,
        };
        let missing_entry = KernelRef {
            module: "blocks",
            entry: "blocks_nothing",
            shared_bytes: 0,
        };
        let e = m
            .missing("sm_90", &[LBS, missing_family, missing_entry])
            .unwrap_err();
        assert!(e.to_string().contains("no_such_family"), "{e}");
        let e = m.missing("sm_90", &[missing_entry, LBS]).unwrap_err();
        assert!(e.to_string().contains("blocks_nothing"), "{e}");
        assert!(e.to_string().contains("stale"), "{e}");
        assert!(m.loaded.is_empty());
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
