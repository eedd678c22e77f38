//! The `Cta` trait: what a kernel body may ask of the machine it runs on.

/// Threads per warp.
pub const WARP_SIZE: u32 = 32;

/// One thread's view of its CTA (thread block), the only interface device code uses.
///
/// Kernel bodies are generic over `Cta` and run unchanged on the GPU (`NvptxCta`
/// on `nvptx64`) and in the host simulator ([`crate::sim`]).
///
/// Rules every kernel body follows, which the simulator checks where it can:
/// - [`Cta::sync`] is reached by every thread of the CTA (no thread returns before a
///   barrier others wait at);
/// - warp operations take the exact member mask of the lanes that reach them, and every
///   lane named in the mask reaches the same operation with the same mask;
/// - population count and leading zeros are plain `u32::count_ones` /
///   `u32::leading_zeros` (they lower to `popc` / `clz`).
///
/// # Examples
///
/// A CTA-wide sum through shared memory, run in the simulator:
///
/// ```
/// use mgpu_core::{sim, Cta};
/// let mut out = vec![0u32; 2];
/// let out_ptr = out.as_mut_ptr() as usize;
/// sim::launch(2, 64, 64 * 4, &|cta: &sim::SimCta| {
///     let s = cta.shared::<u32>(0);
///     unsafe { *s.add(cta.tid() as usize) = cta.tid() + cta.block() };
///     cta.sync();
///     if cta.tid() == 0 {
///         let total: u32 = (0..64).map(|i| unsafe { *s.add(i) }).sum();
///         unsafe { *(out_ptr as *mut u32).add(cta.block() as usize) = total };
///     }
/// });
/// assert_eq!(out, vec![2016, 2080]);
/// ```
pub trait Cta {
    /// Thread index in the CTA (`threadIdx.x`).
    fn tid(&self) -> u32;
    /// CTA index in the grid (`blockIdx.x`).
    fn block(&self) -> u32;
    /// CTAs in the grid (`gridDim.x`).
    fn grid(&self) -> u32;
    /// Threads in the CTA (`blockDim.x`).
    fn nt(&self) -> u32;
    /// CTA-wide barrier (`__syncthreads`); also orders shared-memory accesses.
    fn sync(&self);
    /// CTA-wide barrier that also returns whether `pred` was true in any thread
    /// (`__syncthreads_or`, `bar.red.or.pred`); orders shared memory as [`Cta::sync`] does.
    /// Every thread of the CTA must reach the same `sync_or` (never a `sync` in its place).
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// let mut out = vec![false; 64];
    /// let p = out.as_mut_ptr() as usize;
    /// sim::launch(1, 64, 0, &|cta: &sim::SimCta| unsafe {
    ///     *(p as *mut bool).add(cta.tid() as usize) = cta.sync_or(cta.tid() == 40);
    /// });
    /// assert!(out.iter().all(|&b| b));
    /// ```
    fn sync_or(&self, pred: bool) -> bool;
    /// The base of the CTA's dynamic shared memory (16-byte aligned).
    fn shared_base(&self) -> *mut u8;

    /// Lane index in the warp.
    #[inline(always)]
    fn lane(&self) -> u32 {
        self.tid() % WARP_SIZE
    }
    /// Warp index in the CTA.
    #[inline(always)]
    fn warp(&self) -> u32 {
        self.tid() / WARP_SIZE
    }
    /// A pointer `byte_offset` bytes into shared memory, typed.
    #[inline(always)]
    fn shared<T>(&self, byte_offset: usize) -> *mut T {
        // SAFETY of the arithmetic: callers lay out shared memory within the launch's size.
        self.shared_base().wrapping_add(byte_offset) as *mut T
    }

    /// Warp vote: bit `i` of the result is the predicate of lane `i`, for the lanes in
    /// `mask` (`vote.sync.ballot`).
    fn ballot(&self, mask: u32, pred: bool) -> u32;
    /// `shfl.sync.idx`: the value of lane `src` (within the `width`-lane segment).
    fn shfl_idx_u32(&self, mask: u32, v: u32, src: u32, width: u32) -> u32;
    /// `shfl.sync.up`: the value of lane `lane - delta`, or own value when that is below
    /// the segment.
    fn shfl_up_u32(&self, mask: u32, v: u32, delta: u32, width: u32) -> u32;
    /// `shfl.sync.down`: the value of lane `lane + delta`, or own value past the segment.
    fn shfl_down_u32(&self, mask: u32, v: u32, delta: u32, width: u32) -> u32;
    /// `shfl.sync.bfly`: the value of lane `lane ^ lane_mask`.
    fn shfl_xor_u32(&self, mask: u32, v: u32, lane_mask: u32, width: u32) -> u32;
    /// Warp barrier over `mask` (`bar.warp.sync`).
    fn sync_warp(&self, mask: u32);

    /// `atomicAdd` on a global (or shared) `u32`, relaxed, GPU scope; returns the old
    /// value.
    ///
    /// # Safety
    /// `p` must be valid for reads and writes.
    unsafe fn atomic_add_u32(&self, p: *mut u32, v: u32) -> u32;
    /// `atomicOr` on a `u32`, relaxed, GPU scope; returns the old value.
    ///
    /// # Safety
    /// `p` must be valid for reads and writes.
    unsafe fn atomic_or_u32(&self, p: *mut u32, v: u32) -> u32;
    /// Raises the error `bits` (DESIGN §5) in the per-launch error word at `p`: one
    /// [`Cta::atomic_or_u32`] when any bit is set, nothing otherwise.
    ///
    /// # Safety
    /// As [`Cta::atomic_or_u32`] (only when `bits != 0`).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// let mut word = [0u32];
    /// let p = word.as_mut_ptr() as usize;
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
    ///     cta.raise_error(p as *mut u32, if cta.tid() == 3 { 4 } else { 0 });
    /// });
    /// assert_eq!(word[0], 4);
    /// ```
    #[inline(always)]
    unsafe fn raise_error(&self, p: *mut u32, bits: u32) {
        if bits != 0 {
            self.atomic_or_u32(p, bits);
        }
    }
    /// `x`, hidden from the compiler's value tracking (an opaque `mov` on the GPU), so
    /// that arithmetic on it stays 32-bit: LLVM otherwise widens a `u32` narrowed from a
    /// `u64` it can bound back to the 64-bit value, and every compare on it then takes two
    /// instructions.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// sim::launch(1, 1, 0, &|cta: &sim::SimCta| assert_eq!(cta.opaque_u32(7), 7));
    /// ```
    #[inline(always)]
    fn opaque_u32(&self, x: u32) -> u32 {
        x
    }
    /// Load with acquire semantics at GPU scope (`ld.acquire.gpu.b32`).
    ///
    /// # Safety
    /// `p` must be valid for reads.
    unsafe fn load_acquire_u32(&self, p: *const u32) -> u32;
    /// Store with release semantics at GPU scope (`st.release.gpu.b32`).
    ///
    /// # Safety
    /// `p` must be valid for writes.
    unsafe fn store_release_u32(&self, p: *mut u32, v: u32);
    /// Relaxed GPU-scope 64-bit load, single-copy atomic (`ld.relaxed.gpu.b64`).
    ///
    /// # Safety
    /// `p` must be valid for reads and 8-byte aligned.
    unsafe fn load_relaxed_u64(&self, p: *const u64) -> u64;
    /// Relaxed GPU-scope 64-bit store, single-copy atomic (`st.relaxed.gpu.b64`).
    ///
    /// # Safety
    /// `p` must be valid for writes and 8-byte aligned.
    unsafe fn store_relaxed_u64(&self, p: *mut u64, v: u64);
    /// Acquire-release fence at GPU scope (`fence.acq_rel.gpu`).
    fn fence_gpu(&self);
    /// Back off for about `ns` nanoseconds while spinning (`nanosleep`); a no-op in the
    /// simulator.
    fn backoff(&self, ns: u32);
    /// Starts copying `*src` (global memory) to `*dst` (shared memory) without holding
    /// the value in a register (`cp.async.ca.shared.global`, sm_80 and later; `T` of 4, 8
    /// or 16 bytes, any other size copied plainly): a tile's loads can all be in flight
    /// at no register cost. The copy is visible to this thread after
    /// [`Cta::async_copy_wait`], and to the CTA after that and a barrier. A plain copy on
    /// sm_70 builds and in the simulator.
    ///
    /// # Safety
    /// `src` is readable global memory and `dst` writable shared memory, each aligned for
    /// `T`; neither is touched by this thread again before [`Cta::async_copy_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// let src = [7u64, 9];
    /// let mut out = [0u64; 2];
    /// let (s, o) = (src.as_ptr() as usize, out.as_mut_ptr() as usize);
    /// sim::launch(1, 2, 16, &|cta: &sim::SimCta| unsafe {
    ///     let sh = cta.shared::<u64>(0);
    ///     let t = cta.tid() as usize;
    ///     cta.async_copy(sh.add(t), (s as *const u64).add(t));
    ///     cta.async_copy_wait();
    ///     cta.sync();
    ///     *(o as *mut u64).add(t) = *sh.add(1 - t);
    /// });
    /// assert_eq!(out, [9, 7]);
    /// ```
    #[inline(always)]
    unsafe fn async_copy<T: Copy>(&self, dst: *mut T, src: *const T) {
        *dst = *src;
    }
    /// Waits for this thread's [`Cta::async_copy`]s (`cp.async.wait_all`); a no-op on
    /// sm_70 builds and in the simulator.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| cta.async_copy_wait());
    /// ```
    #[inline(always)]
    fn async_copy_wait(&self) {}
    /// Programmatic dependent launch, the dependent side: wait until the grid this launch
    /// depends on has finished and its writes are visible (`griddepcontrol.wait`, sm_90).
    /// Call it before reading what that grid wrote. A no-op for a launch without the
    /// dependency, on sm_70 builds and in the simulator (which runs launches in order).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| cta.grid_dependency_wait());
    /// ```
    fn grid_dependency_wait(&self) {}
    /// Programmatic dependent launch, the primary side: a dependent launch queued after
    /// this one may start once every CTA of this grid has called this or exited
    /// (`griddepcontrol.launch_dependents`, sm_90); it still waits for this grid's end in
    /// [`Cta::grid_dependency_wait`] before reading its results. A no-op on sm_70 builds
    /// and in the simulator.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{sim, Cta};
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| cta.launch_dependents());
    /// ```
    fn launch_dependents(&self) {}
}

/// Reads `*p` from global memory as streaming data, read once (`ld.global.cs`: evicted
/// first from the caches), so that it does not push out data that is read again (SpMV's
/// vector, gathered while its values and columns stream past). A plain read off the GPU.
///
/// # Safety
/// `p` is readable global memory, aligned for `T` (4 or 8 bytes; other sizes read plainly).
///
/// # Examples
///
/// ```
/// let x = [3u64, 4];
/// assert_eq!(unsafe { mgpu_core::load_streaming(x.as_ptr().add(1)) }, 4);
/// ```
#[inline(always)]
pub unsafe fn load_streaming<T: Copy>(p: *const T) -> T {
    #[cfg(target_arch = "nvptx64")]
    {
        use core::arch::asm;
        match core::mem::size_of::<T>() {
            4 => {
                let r: u32;
                asm!("ld.global.cs.b32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(nostack, readonly));
                return core::mem::transmute_copy(&r);
            }
            8 => {
                let r: u64;
                asm!("ld.global.cs.b64 {r}, [{p}];", r = out(reg64) r, p = in(reg64) p, options(nostack, readonly));
                return core::mem::transmute_copy(&r);
            }
            _ => {}
        }
    }
    *p
}

/// A global load predicated on `ok`: one PTX instruction `@ok ld.global.<cop>.b32/b64`
/// into a register that holds `or` until it lands, so that no branch separates a load
/// from the next one, nor from the code that uses it.
macro_rules! predicated_load {
    ($p:ident, $ok:ident, $or:ident, $cop:literal) => {{
        #[cfg(target_arch = "nvptx64")]
        {
            use core::arch::asm;
            match core::mem::size_of::<T>() {
                4 => {
                    let mut r: u32 = core::mem::transmute_copy(&$or);
                    asm!(
                        concat!("{{ .reg .pred q; setp.ne.u32 q, {ok}, 0; @q ld.global.", $cop, ".b32 {r}, [{p}]; }}"),
                        r = inout(reg32) r, ok = in(reg32) $ok as u32, p = in(reg64) $p,
                        options(nostack, readonly, pure)
                    );
                    return core::mem::transmute_copy(&r);
                }
                8 => {
                    let mut r: u64 = core::mem::transmute_copy(&$or);
                    asm!(
                        concat!("{{ .reg .pred q; setp.ne.u32 q, {ok}, 0; @q ld.global.", $cop, ".b64 {r}, [{p}]; }}"),
                        r = inout(reg64) r, ok = in(reg32) $ok as u32, p = in(reg64) $p,
                        options(nostack, readonly, pure)
                    );
                    return core::mem::transmute_copy(&r);
                }
                _ => {}
            }
        }
        if $ok {
            *$p
        } else {
            $or
        }
    }};
}

/// `*p` read as streaming data ([`load_streaming`]) when `ok`, else `or`, by a
/// predicated load with no branch around it: a loop of such loads keeps them all in
/// flight, and their uses need not wait inside a branch (ptxas waits for a load before
/// the end of the branch that holds its use). `p` is not read, and may point anywhere,
/// when `ok` is false.
///
/// # Safety
/// When `ok`: as [`load_streaming`].
///
/// # Examples
///
/// ```
/// let x = [3u32, 4];
/// let p = x.as_ptr().wrapping_add(7);
/// assert_eq!(unsafe { mgpu_core::load_streaming_or(p, false, 9) }, 9);
/// assert_eq!(unsafe { mgpu_core::load_streaming_or(x.as_ptr(), true, 9) }, 3);
/// ```
#[inline(always)]
pub unsafe fn load_streaming_or<T: Copy>(p: *const T, ok: bool, or: T) -> T {
    predicated_load!(p, ok, or, "cs")
}

/// `*p` read through the non-coherent read-only path (`ld.global.nc`, CUDA's `__ldg`)
/// when `ok`, else `or`, as [`load_streaming_or`] predicated with no branch: for data no
/// thread of the grid writes while it runs (SpMV's gathered vector).
///
/// # Safety
/// When `ok`: `p` is readable global memory, aligned for `T` (4 or 8 bytes; other sizes
/// read plainly), not written by any thread of the grid while it runs.
///
/// # Examples
///
/// ```
/// let x = [3u64, 4];
/// assert_eq!(unsafe { mgpu_core::load_read_only_or(x.as_ptr().add(1), true, 0) }, 4);
/// assert_eq!(unsafe { mgpu_core::load_read_only_or(core::ptr::null::<u64>(), false, 5) }, 5);
/// ```
#[inline(always)]
pub unsafe fn load_read_only_or<T: Copy>(p: *const T, ok: bool, or: T) -> T {
    predicated_load!(p, ok, or, "nc")
}
