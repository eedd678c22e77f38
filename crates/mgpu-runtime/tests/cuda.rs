//! The CUDA `Context` on a real GPU. CI has none: these are `#[ignore = "needs a CUDA GPU"]`
//! and run with `cargo test -p mgpu-runtime -- --ignored` (or `cargo xtask test-gpu`) on a
//! machine with one. Launching kernels is tested by the algorithm crates, which have PTX.
//! Sizes above MGPU_TEST_MAX_LEN are dropped in sanitizer runs (`run.sh --sanitize`).

use mgpu_runtime::{Context, Device, DeviceVec, Error};

fn gpu() -> Context {
    Context::new(0).expect("needs a CUDA GPU")
}

#[test]
fn no_driver_is_no_device() {
    // Deterministic on every machine: with a GPU device 0 opens, without one it is NoDevice.
    match Context::new(0) {
        Ok(ctx) => assert!(ctx.info().compute_capability >= (7, 0)),
        Err(Error::NoDevice(_)) => {}
        Err(e) => panic!("{e}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn info_is_sane() {
    let ctx = gpu();
    let info = ctx.info();
    assert!(!info.name.is_empty());
    assert!(info.compute_capability >= (7, 0));
    assert!(info.sm_count > 0);
    assert!(info.total_memory > 0);
    let (major, minor) = info.compute_capability;
    assert_eq!(
        Some(ctx.arch()),
        mgpu_runtime::Arch::for_compute_capability(major, minor)
    );
    assert_eq!(ctx.cuda_context().ordinal(), 0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn alloc_copy_round_trip() {
    let ctx = gpu();
    for n in mgpu_testkit::sizes(&[0, 1, 255, 256, 1000, 1 << 20, (1 << 20) + 3]) {
        let host: Vec<u64> = (0..n as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let v = DeviceVec::from_slice(&ctx, &host).unwrap();
        assert_eq!(v.len(), n);
        if n > 0 {
            assert_eq!(v.device_ptr() % 256, 0);
        }
        assert_eq!(v.to_vec().unwrap(), host, "n = {n}");
    }
    ctx.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn zero_bytes_allocates_nothing() {
    let ctx = gpu();
    assert_eq!(ctx.alloc_bytes(0).unwrap(), 0);
    unsafe { ctx.free_bytes(0, 0) };
    let v = DeviceVec::<u32, _>::zeros(&ctx, 0).unwrap();
    assert!(v.to_vec().unwrap().is_empty());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn memset_and_zeros() {
    let ctx = gpu();
    let z = DeviceVec::<u32, _>::zeros(&ctx, 12345).unwrap();
    assert!(z.to_vec().unwrap().iter().all(|&x| x == 0));

    let mut v = DeviceVec::<u8, _>::uninit(&ctx, 1000).unwrap();
    unsafe { ctx.memset(v.device_ptr(), 0xAB, 1000).unwrap() };
    unsafe { ctx.memset(v.device_ptr() + 100, 0x01, 50).unwrap() };
    let got = v.to_vec().unwrap();
    for (i, &b) in got.iter().enumerate() {
        assert_eq!(
            b,
            if (100..150).contains(&i) { 0x01 } else { 0xAB },
            "byte {i}"
        );
    }
    v.copy_from_host(&[7; 1000]).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![7; 1000]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_to_device_copy() {
    let ctx = gpu();
    let host: Vec<i32> = (0..10_000).map(|i| i * 3 - 7).collect();
    let a = DeviceVec::from_slice(&ctx, &host).unwrap();
    let b = DeviceVec::<i32, _>::zeros(&ctx, host.len()).unwrap();
    unsafe {
        ctx.copy_dtod(b.device_ptr(), a.device_ptr(), host.len() * 4)
            .unwrap()
    };
    assert_eq!(b.to_vec().unwrap(), host);
    // A sub-range, offset on both sides.
    let c = DeviceVec::<i32, _>::zeros(&ctx, 100).unwrap();
    unsafe {
        ctx.copy_dtod(c.device_ptr() + 40, a.device_ptr() + 400, 60 * 4)
            .unwrap()
    };
    let got = c.to_vec().unwrap();
    assert!(got[..10].iter().all(|&x| x == 0));
    assert_eq!(&got[10..70], &host[100..160]);
    assert!(got[70..].iter().all(|&x| x == 0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn pool_reuses_and_drop_frees() {
    let ctx = gpu();
    let a = ctx.pool().take(&ctx, 1000).unwrap();
    unsafe { ctx.pool().give(a, 1000) };
    let b = ctx.pool().take(&ctx, 1024).unwrap();
    assert_eq!(a, b);
    unsafe { ctx.pool().give(b, 1024) };
    drop(ctx); // frees the cached block
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn out_of_memory_is_reported() {
    let ctx = gpu();
    let too_much = ctx.info().total_memory.saturating_mul(4);
    match ctx.alloc_bytes(too_much) {
        Err(Error::OutOfMemory { bytes }) => assert_eq!(bytes, too_much),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // The context is still usable.
    let v = DeviceVec::from_slice(&ctx, &[1u8, 2, 3]).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![1, 2, 3]);
}

/// The names of a kernel the committed PTX does not have.
trait Names {
    const MODULE: &'static str;
    const ENTRY: &'static str;
}

/// The arguments of [`Missing`].
#[derive(Clone, Copy)]
#[repr(C)]
struct Args {
    out: *mut u32,
}

/// A kernel with `N`'s names, which no PTX holds: launching it must fail with a clear error.
struct Missing<N>(std::marker::PhantomData<N>);

impl<N: Names> mgpu_core::Kernel for Missing<N> {
    type Args = Args;
    const MODULE: &'static str = N::MODULE;
    const ENTRY: &'static str = N::ENTRY;
    const NT: u32 = 32;
    const VT: u32 = 1;
    const SHARED_BYTES: u32 = 0;
    fn body<C: mgpu_core::Cta>(_: &C, _: &Args) {}
}

/// A type with the names of a kernel that no PTX holds.
macro_rules! names {
    ($name:ident: $module:literal, $entry:literal) => {
        struct $name;
        impl Names for $name {
            const MODULE: &'static str = $module;
            const ENTRY: &'static str = $entry;
        }
    };
}

/// Launches [`Missing<N>`] on `grid` CTAs.
fn launch_missing<N: Names>(ctx: &Context, grid: u32) -> mgpu_runtime::Result<()> {
    let args = Args {
        out: std::ptr::null_mut(),
    };
    // SAFETY: the kernel never runs (no PTX has it), and its one argument is unused.
    unsafe { ctx.launch::<Missing<N>>(grid, &args) }
}

/// The message of the `Error::Cuda` that launching [`Missing<N>`] on one CTA gives.
fn missing_error<N: Names>(ctx: &Context) -> String {
    match launch_missing::<N>(ctx, 1) {
        Err(Error::Cuda(msg)) => msg,
        other => panic!("expected Error::Cuda, got {other:?}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn missing_family_is_a_clear_error() {
    names!(NoFamily: "no_such_family", "no_such_family_kernel");
    let ctx = gpu();
    // grid 0: nothing to launch, no module needed.
    launch_missing::<NoFamily>(&ctx, 0).unwrap();
    let msg = missing_error::<NoFamily>(&ctx);
    assert!(msg.contains("no_such_family"), "{msg}");
    ctx.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn missing_entry_is_a_clear_error() {
    // A registered family without that entry: a stale-PTX hint, whether the runtime loads
    // the family's cubin (the default on sm_90), the entry alone (elsewhere, or
    // MGPU_KERNEL_LOAD=entry) or the whole family (MGPU_KERNEL_LOAD=family).
    names!(NoEntry: "blocks", "blocks_no_such_kernel");
    let ctx = gpu();
    for _ in 0..2 {
        let msg = missing_error::<NoEntry>(&ctx);
        assert!(msg.contains("blocks_no_such_kernel"), "{msg}");
        assert!(msg.contains("stale"), "{msg}");
    }
    ctx.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn clones_share_one_stream_and_threads_can_use_it() {
    let ctx = gpu();
    let other = ctx.clone();
    assert!(std::sync::Arc::ptr_eq(ctx.stream(), other.stream()));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let ctx = ctx.clone();
            std::thread::spawn(move || {
                let host: Vec<u32> = (0..1000).map(|i| i * t).collect();
                let v = DeviceVec::from_slice(&ctx, &host).unwrap();
                assert_eq!(v.to_vec().unwrap(), host);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn from_stream_uses_the_callers_stream() {
    let ctx = gpu();
    let stream = ctx.cuda_context().new_stream().unwrap();
    let mine = Context::from_stream(stream.clone()).unwrap();
    assert!(std::sync::Arc::ptr_eq(mine.stream(), &stream));
    assert_eq!(mine.info(), ctx.info());
    let v = DeviceVec::from_slice(&mine, &[5u16; 77]).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![5; 77]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn borrows_cudarc_buffers() {
    let ctx = gpu();
    let buf = ctx.stream().clone_htod(&[3u64, 1, 4, 1, 5]).unwrap();
    let s = ctx.borrow_cuda(&buf);
    assert_eq!(s.len(), 5);
    assert_eq!(s.slice(2..4).unwrap().to_vec().unwrap(), vec![4, 1]);
    let mut out = ctx.stream().alloc_zeros::<u64>(5).unwrap();
    ctx.borrow_cuda_mut(&mut out).copy_from_device(s).unwrap();
    assert_eq!(ctx.stream().clone_dtoh(&out).unwrap(), vec![3, 1, 4, 1, 5]);
}
