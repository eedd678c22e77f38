//! The GPU implementation of [`Cta`]: intrinsics and inline PTX.
//!
//! Shared memory is the launch-sized dynamic shared array of
//! `core::intrinsics::gpu::gpu_launch_sized_workgroup_mem`: an `addrspace(3)` global to
//! LLVM, so every access derived from [`Cta::shared_base`] compiles to `ld.shared` /
//! `st.shared` (a pointer made by `cvta.shared` in `asm!` left them generic). Barrier and memory-ordering `asm!` blocks are never `nomem`.

use crate::Cta;
use core::arch::asm;

unsafe extern "C" {
    /// `__syncthreads_or`: a CTA barrier that ORs a predicate over the CTA. An LLVM
    /// intrinsic, so `convergent`, unlike inline `asm!`.
    #[link_name = "llvm.nvvm.barrier0.or"]
    fn barrier0_or(pred: i32) -> i32;
}

/// The CTA as seen by a GPU thread. Zero-sized: every query is a special register read.
#[derive(Clone, Copy, Default)]
pub struct NvptxCta;

impl NvptxCta {
    /// The current thread's CTA.
    #[inline(always)]
    pub fn new() -> Self {
        NvptxCta
    }
}

impl Cta for NvptxCta {
    #[inline(always)]
    fn tid(&self) -> u32 {
        unsafe { core::arch::nvptx::_thread_idx_x() as u32 }
    }
    #[inline(always)]
    fn block(&self) -> u32 {
        unsafe { core::arch::nvptx::_block_idx_x() as u32 }
    }
    #[inline(always)]
    fn grid(&self) -> u32 {
        unsafe { core::arch::nvptx::_grid_dim_x() as u32 }
    }
    #[inline(always)]
    fn nt(&self) -> u32 {
        unsafe { core::arch::nvptx::_block_dim_x() as u32 }
    }
    /// `bar.sync 0` through LLVM's `llvm.nvvm.barrier0` intrinsic, never through `asm!`.
    ///
    /// `bar.sync` is the *aligned* barrier: every thread of the CTA must execute the same
    /// barrier instruction. The intrinsic is `convergent`, so LLVM never makes it depend on
    /// more control flow than the source gives it. A call to inline `asm!` is not
    /// `convergent` (rustc does not mark it so, where clang marks every inline asm of CUDA
    /// code): LLVM's tail duplication copied `asm!("bar.sync 0;")` after
    /// `if warp == 0 { .. }` into both arms, so warp 0 and the other warps waited at two
    /// different `bar.sync` instructions (compute-sanitizer's synccheck: "Divergent
    /// thread(s) in block" in the scans). `cargo xtask ptx --check` rejects an aligned
    /// barrier under a branch that can diverge.
    #[inline(always)]
    fn sync(&self) {
        unsafe { core::arch::nvptx::_syncthreads() }
    }
    /// `bar.red.or.pred` through LLVM's convergent `llvm.nvvm.barrier0.or` intrinsic
    /// (`__syncthreads_or`), for the reasons given at [`Cta::sync`] above.
    #[inline(always)]
    fn sync_or(&self, pred: bool) -> bool {
        unsafe { barrier0_or(pred as i32) != 0 }
    }
    #[inline(always)]
    fn shared_base(&self) -> *mut u8 {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u128>() as *mut u8
    }
    #[inline(always)]
    fn lane(&self) -> u32 {
        let l: u32;
        unsafe { asm!("mov.u32 {l}, %laneid;", l = out(reg32) l, options(pure, nomem, nostack)) };
        l
    }
    #[inline(always)]
    fn ballot(&self, mask: u32, pred: bool) -> u32 {
        let r: u32;
        unsafe {
            asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {v}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
                r = out(reg32) r, v = in(reg32) pred as u32, m = in(reg32) mask,
                options(nostack)
            )
        };
        r
    }
    #[inline(always)]
    fn shfl_idx_u32(&self, mask: u32, v: u32, src: u32, width: u32) -> u32 {
        let r: u32;
        let c = ((32 - width) << 8) | 0x1f;
        unsafe {
            asm!("shfl.sync.idx.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) v, b = in(reg32) src, c = in(reg32) c,
                m = in(reg32) mask, options(nostack))
        };
        r
    }
    #[inline(always)]
    fn shfl_up_u32(&self, mask: u32, v: u32, delta: u32, width: u32) -> u32 {
        let r: u32;
        let c = (32 - width) << 8;
        unsafe {
            asm!("shfl.sync.up.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) v, b = in(reg32) delta, c = in(reg32) c,
                m = in(reg32) mask, options(nostack))
        };
        r
    }
    #[inline(always)]
    fn shfl_down_u32(&self, mask: u32, v: u32, delta: u32, width: u32) -> u32 {
        let r: u32;
        let c = ((32 - width) << 8) | 0x1f;
        unsafe {
            asm!("shfl.sync.down.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) v, b = in(reg32) delta, c = in(reg32) c,
                m = in(reg32) mask, options(nostack))
        };
        r
    }
    #[inline(always)]
    fn shfl_xor_u32(&self, mask: u32, v: u32, lane_mask: u32, width: u32) -> u32 {
        let r: u32;
        let c = ((32 - width) << 8) | 0x1f;
        unsafe {
            asm!("shfl.sync.bfly.b32 {r}, {v}, {b}, {c}, {m};",
                r = out(reg32) r, v = in(reg32) v, b = in(reg32) lane_mask, c = in(reg32) c,
                m = in(reg32) mask, options(nostack))
        };
        r
    }
    #[inline(always)]
    fn sync_warp(&self, mask: u32) {
        unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack)) }
    }
    #[inline(always)]
    unsafe fn atomic_add_u32(&self, p: *mut u32, v: u32) -> u32 {
        let r: u32;
        asm!("atom.add.u32 {r}, [{p}], {v};", r = out(reg32) r, p = in(reg64) p, v = in(reg32) v,
            options(nostack));
        r
    }
    #[inline(always)]
    unsafe fn atomic_or_u32(&self, p: *mut u32, v: u32) -> u32 {
        let r: u32;
        asm!("atom.or.b32 {r}, [{p}], {v};", r = out(reg32) r, p = in(reg64) p, v = in(reg32) v,
            options(nostack));
        r
    }
    #[inline(always)]
    unsafe fn load_acquire_u32(&self, p: *const u32) -> u32 {
        let r: u32;
        asm!("ld.acquire.gpu.b32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(nostack));
        r
    }
    #[inline(always)]
    unsafe fn store_release_u32(&self, p: *mut u32, v: u32) {
        asm!("st.release.gpu.b32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack));
    }
    #[inline(always)]
    unsafe fn load_relaxed_u64(&self, p: *const u64) -> u64 {
        let r: u64;
        asm!("ld.relaxed.gpu.b64 {r}, [{p}];", r = out(reg64) r, p = in(reg64) p, options(nostack));
        r
    }
    #[inline(always)]
    unsafe fn store_relaxed_u64(&self, p: *mut u64, v: u64) {
        asm!("st.relaxed.gpu.b64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack));
    }
    #[inline(always)]
    fn fence_gpu(&self) {
        unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) }
    }
    #[inline(always)]
    fn backoff(&self, ns: u32) {
        unsafe { asm!("nanosleep.u32 {n};", n = in(reg32) ns, options(nostack)) }
    }
    #[inline(always)]
    fn opaque_u32(&self, x: u32) -> u32 {
        let r: u32;
        unsafe {
            asm!("mov.u32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack))
        };
        r
    }
    #[inline(always)]
    unsafe fn async_copy<T: Copy>(&self, dst: *mut T, src: *const T) {
        // PTX ISA 7.0, sm_80: absent from the sm_70 build.
        #[cfg(not(mgpu_arch = "sm_70"))]
        {
            macro_rules! cp {
                ($bytes:literal, $cache:literal) => {
                    asm!(
                        concat!(
                            "{{ .reg .u64 %ga; .reg .u32 %sa; cvta.to.shared.u64 %ga, {d}; ",
                            "cvt.u32.u64 %sa, %ga; cp.async.", $cache, ".shared.global [%sa], [{g}], ",
                            $bytes, "; }}"
                        ),
                        d = in(reg64) dst,
                        g = in(reg64) src,
                        options(nostack)
                    )
                };
            }
            match core::mem::size_of::<T>() {
                4 => cp!("4", "ca"),
                8 => cp!("8", "ca"),
                16 => cp!("16", "cg"),
                _ => *dst = *src,
            }
        }
        #[cfg(mgpu_arch = "sm_70")]
        {
            *dst = *src;
        }
    }
    #[inline(always)]
    fn async_copy_wait(&self) {
        #[cfg(not(mgpu_arch = "sm_70"))]
        unsafe {
            asm!("cp.async.wait_all;", options(nostack))
        }
    }
    #[inline(always)]
    fn grid_dependency_wait(&self) {
        // PTX ISA 7.8, sm_90: absent from the sm_70 build.
        #[cfg(not(mgpu_arch = "sm_70"))]
        unsafe {
            asm!("griddepcontrol.wait;", options(nostack))
        }
    }
    #[inline(always)]
    fn launch_dependents(&self) {
        #[cfg(not(mgpu_arch = "sm_70"))]
        unsafe {
            asm!("griddepcontrol.launch_dependents;", options(nostack))
        }
    }
}
