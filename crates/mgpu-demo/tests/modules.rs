//! Which kernel modules the demo's operations load on the GPU: on a device an embedded
//! cubin is built for (compute capability 9.0: H100, H200) every family runs its
//! ahead-of-time cubin and nothing is JIT-compiled; on any other device each kernel's
//! PTX entry is JIT-compiled alone.

use mgpu::{Backend, Device};

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_demo_runs_cubins_where_they_are_built_and_ptx_entries_elsewhere() {
    let backend = Backend::cuda(0).expect("needs a CUDA GPU");
    let Backend::Cuda(ctx) = &backend else {
        unreachable!("Backend::cuda gives a CUDA backend")
    };
    if std::env::var_os("MGPU_KERNEL_LOAD").is_some() || std::env::var_os("MGPU_PTX_DIR").is_some()
    {
        eprintln!("MGPU_KERNEL_LOAD or MGPU_PTX_DIR is set: this test checks the default");
        return;
    }
    for demo in mgpu_demo::select(&[]).unwrap() {
        (demo.run)(&backend).unwrap_or_else(|e| panic!("{}: {e}", demo.name));
    }
    let loaded = ctx.loaded_modules();
    let families = [
        "bulk",
        "intervalmove",
        "loadbalance",
        "merge",
        "partition",
        "scan",
        "segreduce",
    ];
    for family in families {
        assert!(
            loaded.iter().any(|m| m.starts_with(&format!("{family} "))),
            "{family} loaded nothing: {loaded:?}"
        );
    }
    if ctx.info().compute_capability == (9, 0) {
        let cubins: Vec<String> = families.iter().map(|f| format!("{f} cubin")).collect();
        assert_eq!(loaded, cubins, "one cubin per family, no JIT");
    } else {
        assert!(loaded.iter().all(|m| m.contains(" entry ")), "{loaded:?}");
    }
}
