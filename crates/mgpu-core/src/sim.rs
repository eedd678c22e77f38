//! The host simulator of [`Cta`]: runs each CTA's threads as stackful coroutines on the
//! calling OS thread.
//!
//! A thread runs until it reaches a barrier, a warp operation, or its end; then the next
//! thread runs. When every thread has stopped, warp operations whose member lanes have all
//! arrived (with the same operation and mask) complete, and when every thread waits at the
//! barrier, the barrier opens. CTAs run one at a time in block order, so a CTA may wait on
//! its predecessors' results (decoupled look-back). Anything that would hang or diverge on
//! the GPU (a barrier some thread never reaches, a warp operation whose mask names a lane
//! that never arrives or arrives with another mask, a shuffle from a lane outside the mask)
//! panics with a description instead.
//!
//! Shared memory starts filled with the byte `0xA5`, so a kernel that reads shared memory
//! it did not write sees garbage here too.
//!
//! # Examples
//!
//! ```
//! use mgpu_core::{sim, Cta};
//! let mut out = vec![0u32; 32];
//! let p = out.as_mut_ptr() as usize;
//! sim::launch(1, 32, 0, &|cta: &sim::SimCta| {
//!     let b = cta.ballot(!0, cta.tid() % 2 == 1);
//!     unsafe { *(p as *mut u32).add(cta.tid() as usize) = b };
//! });
//! assert!(out.iter().all(|&b| b == 0xAAAA_AAAA));
//! ```

use crate::{Cta, Kernel, WARP_SIZE};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::RefCell;

/// Stack size of one simulated thread.
const STACK_BYTES: usize = 256 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WarpKind {
    Ballot,
    Idx,
    Up,
    Down,
    Xor,
    Sync,
}

#[derive(Clone, Copy, Debug)]
struct WarpReq {
    kind: WarpKind,
    mask: u32,
    value: u32,
    arg: u32,
    width: u32,
}

#[derive(Clone, Copy, Debug)]
enum Request {
    /// A CTA barrier: `Some(pred)` for [`Cta::sync_or`], `None` for [`Cta::sync`].
    Sync(Option<bool>),
    Warp(WarpReq),
}

#[derive(Clone, Copy, Debug)]
enum State {
    Ready(u32),
    AtSync(Option<bool>),
    AtWarp(WarpReq),
    Done,
}

/// One simulated thread's view of its CTA.
pub struct SimCta {
    tid: u32,
    block: u32,
    grid: u32,
    nt: u32,
    shared: *mut u8,
    yielder: *const Yielder<u32, Request>,
}

impl SimCta {
    #[inline]
    fn suspend(&self, r: Request) -> u32 {
        // SAFETY: the yielder outlives the coroutine body that holds this SimCta.
        unsafe { (*self.yielder).suspend(r) }
    }
    fn warp_op(&self, kind: WarpKind, mask: u32, value: u32, arg: u32, width: u32) -> u32 {
        assert!(
            mask & (1 << (self.tid % WARP_SIZE)) != 0,
            "thread {} of block {}: warp operation {:?} with mask {:#010x} that excludes its own lane",
            self.tid,
            self.block,
            kind,
            mask
        );
        assert!(
            width.is_power_of_two() && width <= WARP_SIZE,
            "shuffle width {width} is not a power of two up to 32"
        );
        self.suspend(Request::Warp(WarpReq {
            kind,
            mask,
            value,
            arg,
            width,
        }))
    }
}

impl Cta for SimCta {
    fn tid(&self) -> u32 {
        self.tid
    }
    fn block(&self) -> u32 {
        self.block
    }
    fn grid(&self) -> u32 {
        self.grid
    }
    fn nt(&self) -> u32 {
        self.nt
    }
    fn sync(&self) {
        self.suspend(Request::Sync(None));
    }
    fn sync_or(&self, pred: bool) -> bool {
        self.suspend(Request::Sync(Some(pred))) != 0
    }
    fn shared_base(&self) -> *mut u8 {
        self.shared
    }
    fn ballot(&self, mask: u32, pred: bool) -> u32 {
        self.warp_op(WarpKind::Ballot, mask, pred as u32, 0, WARP_SIZE)
    }
    fn shfl_idx_u32(&self, mask: u32, v: u32, src: u32, width: u32) -> u32 {
        self.warp_op(WarpKind::Idx, mask, v, src, width)
    }
    fn shfl_up_u32(&self, mask: u32, v: u32, delta: u32, width: u32) -> u32 {
        self.warp_op(WarpKind::Up, mask, v, delta, width)
    }
    fn shfl_down_u32(&self, mask: u32, v: u32, delta: u32, width: u32) -> u32 {
        self.warp_op(WarpKind::Down, mask, v, delta, width)
    }
    fn shfl_xor_u32(&self, mask: u32, v: u32, lane_mask: u32, width: u32) -> u32 {
        self.warp_op(WarpKind::Xor, mask, v, lane_mask, width)
    }
    fn sync_warp(&self, mask: u32) {
        self.warp_op(WarpKind::Sync, mask, 0, 0, WARP_SIZE);
    }
    unsafe fn atomic_add_u32(&self, p: *mut u32, v: u32) -> u32 {
        let old = p.read_volatile();
        p.write_volatile(old.wrapping_add(v));
        old
    }
    unsafe fn atomic_or_u32(&self, p: *mut u32, v: u32) -> u32 {
        let old = p.read_volatile();
        p.write_volatile(old | v);
        old
    }
    unsafe fn load_acquire_u32(&self, p: *const u32) -> u32 {
        p.read_volatile()
    }
    unsafe fn store_release_u32(&self, p: *mut u32, v: u32) {
        p.write_volatile(v)
    }
    unsafe fn load_relaxed_u64(&self, p: *const u64) -> u64 {
        assert!(
            (p as usize).is_multiple_of(8),
            "misaligned 64-bit atomic load"
        );
        p.read_volatile()
    }
    unsafe fn store_relaxed_u64(&self, p: *mut u64, v: u64) {
        assert!(
            (p as usize).is_multiple_of(8),
            "misaligned 64-bit atomic store"
        );
        p.write_volatile(v)
    }
    fn fence_gpu(&self) {}
    fn backoff(&self, _ns: u32) {}
}

thread_local! {
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

fn take_stack() -> DefaultStack {
    STACKS.with(|s| s.borrow_mut().pop()).unwrap_or_else(|| {
        DefaultStack::new(STACK_BYTES).expect("simulator: cannot allocate a thread stack")
    })
}

fn give_stack(s: DefaultStack) {
    STACKS.with(|v| v.borrow_mut().push(s));
}

/// The source lane of a shuffle for `lane`, or `None` when the lane keeps its own value.
fn shuffle_source(r: &WarpReq, lane: u32) -> Option<u32> {
    let w = r.width;
    let seg = lane / w * w;
    match r.kind {
        WarpKind::Idx => Some(seg + r.arg % w),
        WarpKind::Up => (lane - seg >= r.arg).then(|| lane - r.arg),
        WarpKind::Down => (lane - seg + r.arg < w).then(|| lane + r.arg),
        WarpKind::Xor => {
            let src = lane ^ r.arg;
            (src / w * w == seg && src < WARP_SIZE).then_some(src)
        }
        WarpKind::Ballot | WarpKind::Sync => None,
    }
}

/// Completes the warp operation of the lanes `base..base+32` where possible; returns
/// whether any completed.
fn resolve_warp(states: &mut [State], base: usize, block: u32) -> bool {
    let lanes = (states.len() - base).min(WARP_SIZE as usize);
    let mut progressed = false;
    for l in 0..lanes {
        let State::AtWarp(req) = states[base + l] else {
            continue;
        };
        let mask = req.mask;
        let mut all_here = true;
        for m in 0..WARP_SIZE as usize {
            if mask & (1 << m) == 0 {
                continue;
            }
            assert!(
                m < lanes,
                "block {block}: warp mask {mask:#010x} names lane {m}, which does not exist"
            );
            match states[base + m] {
                State::AtWarp(o) => assert!(
                    o.mask == mask && o.kind == req.kind,
                    "block {block}: lanes {l} and {m} meet at different warp operations \
                     ({:?} mask {:#010x} vs {:?} mask {:#010x})",
                    req.kind,
                    mask,
                    o.kind,
                    o.mask
                ),
                _ => {
                    all_here = false;
                    break;
                }
            }
        }
        if !all_here {
            continue;
        }
        let vals: Vec<(u32, WarpReq)> = (0..WARP_SIZE as usize)
            .map(|m| match states.get(base + m) {
                Some(State::AtWarp(o)) if mask & (1 << m) != 0 => (m as u32, *o),
                _ => (m as u32, req),
            })
            .collect();
        let ballot: u32 = vals
            .iter()
            .filter(|(m, o)| mask & (1 << m) != 0 && o.value != 0)
            .fold(0, |acc, (m, _)| acc | (1 << m));
        for m in 0..WARP_SIZE {
            if mask & (1 << m) == 0 {
                continue;
            }
            let own = vals[m as usize].1;
            let result = match own.kind {
                WarpKind::Ballot => ballot,
                WarpKind::Sync => 0,
                _ => match shuffle_source(&own, m) {
                    None => own.value,
                    Some(src) => {
                        assert!(
                            mask & (1 << src) != 0,
                            "block {block}: lane {m} shuffles from lane {src}, outside mask {mask:#010x}"
                        );
                        vals[src as usize].1.value
                    }
                },
            };
            states[base + m as usize] = State::Ready(result);
        }
        progressed = true;
    }
    progressed
}

/// Runs `body` on a grid of `grid` CTAs of `nt` threads with `shared_bytes` of shared
/// memory each, CTAs one at a time in block order.
///
/// # Panics
/// On a kernel bug the GPU would hang on or leave undefined (see the module docs), and
/// when `body` panics.
pub fn launch(grid: u32, nt: u32, shared_bytes: usize, body: &dyn Fn(&SimCta)) {
    assert!(nt > 0 && nt <= 1024, "block size {nt} out of 1..=1024");
    // SAFETY: every coroutine created below finishes or is dropped (unwound) before this
    // function returns, so the erased lifetime is never outlived.
    let body: &'static dyn Fn(&SimCta) = unsafe { std::mem::transmute(body) };
    let mut shared = vec![0u128; shared_bytes.div_ceil(16)];
    for block in 0..grid {
        // Poison shared memory: a kernel must not read what it did not write.
        for w in shared.iter_mut() {
            *w = u128::from_ne_bytes([0xA5; 16]);
        }
        let shared_ptr = shared.as_mut_ptr() as *mut u8;
        let mut threads: Vec<Coroutine<u32, Request, (), DefaultStack>> = (0..nt)
            .map(|tid| {
                Coroutine::with_stack(take_stack(), move |y: &Yielder<u32, Request>, _| {
                    let cta = SimCta {
                        tid,
                        block,
                        grid,
                        nt,
                        shared: shared_ptr,
                        yielder: y,
                    };
                    body(&cta);
                })
            })
            .collect();
        let mut states = vec![State::Ready(0); nt as usize];
        loop {
            for (t, co) in threads.iter_mut().enumerate() {
                if let State::Ready(input) = states[t] {
                    states[t] = match co.resume(input) {
                        CoroutineResult::Yield(Request::Sync(p)) => State::AtSync(p),
                        CoroutineResult::Yield(Request::Warp(w)) => State::AtWarp(w),
                        CoroutineResult::Return(()) => State::Done,
                    };
                }
            }
            let mut progressed = false;
            for base in (0..nt as usize).step_by(WARP_SIZE as usize) {
                progressed |= resolve_warp(&mut states, base, block);
            }
            if progressed {
                continue;
            }
            let at_sync = states
                .iter()
                .filter(|s| matches!(s, State::AtSync(_)))
                .count();
            let done = states.iter().filter(|s| matches!(s, State::Done)).count();
            if done == nt as usize {
                break;
            }
            if at_sync == nt as usize {
                // Every thread is at a barrier: the same kind everywhere (`bar.sync` and
                // `bar.red` are different instructions), and a `sync_or` returns the OR.
                let kinds = |or: bool| {
                    states
                        .iter()
                        .filter(|s| matches!(s, State::AtSync(p) if p.is_some() == or))
                        .count()
                };
                assert!(
                    kinds(true) == 0 || kinds(false) == 0,
                    "simulator: block {block}: {} threads at sync and {} at sync_or: every thread \
                     must reach the same barrier",
                    kinds(false),
                    kinds(true)
                );
                let or = states
                    .iter()
                    .any(|s| matches!(s, State::AtSync(Some(true))));
                states.iter_mut().for_each(|s| *s = State::Ready(or as u32));
                continue;
            }
            let stuck: Vec<String> = states
                .iter()
                .enumerate()
                .filter(|(_, s)| !matches!(s, State::Done))
                .take(8)
                .map(|(t, s)| format!("thread {t}: {s:?}"))
                .collect();
            panic!(
                "simulator: block {block} cannot progress ({done} of {nt} threads done, {at_sync} at the barrier): {}",
                stuck.join("; ")
            );
        }
        for co in threads {
            give_stack(co.into_stack());
        }
    }
}

/// Runs kernel `K` on `grid` CTAs in the simulator.
///
/// # Examples
/// See [`Kernel`].
pub fn launch_kernel<K: Kernel>(grid: u32, args: &K::Args) {
    launch(grid, K::NT, K::SHARED_BYTES as usize, &|cta: &SimCta| {
        K::body(cta, args)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{shfl_up, shfl_xor};

    fn collect<T: Copy + Default>(nt: u32, f: impl Fn(&SimCta) -> T) -> Vec<T> {
        let mut out = vec![T::default(); nt as usize];
        let p = out.as_mut_ptr() as usize;
        launch(1, nt, 1024, &|cta: &SimCta| {
            let v = f(cta);
            unsafe { *(p as *mut T).add(cta.tid() as usize) = v };
        });
        out
    }

    #[test]
    fn barrier_orders_shared_memory() {
        let out = collect(128, |cta| {
            let s = cta.shared::<u32>(0);
            unsafe { *s.add(cta.tid() as usize) = cta.tid() * 3 };
            cta.sync();
            unsafe { *s.add(127 - cta.tid() as usize) }
        });
        for (t, v) in out.iter().enumerate() {
            assert_eq!(*v, (127 - t as u32) * 3);
        }
    }

    #[test]
    fn warp_inclusive_scan_with_shuffles() {
        let out = collect(64, |cta| {
            let mut x = cta.tid() as u64 + (1 << 40);
            let mut d = 1;
            while d < 32 {
                let y = shfl_up(cta, !0, x, d, 32);
                if cta.lane() >= d {
                    x += y;
                }
                d *= 2;
            }
            x
        });
        for (t, v) in out.iter().enumerate() {
            let base = t / 32 * 32;
            let expect: u64 = (base..=t).map(|i| i as u64 + (1 << 40)).sum();
            assert_eq!(*v, expect);
        }
    }

    #[test]
    fn partial_mask_ballot_and_xor_width() {
        let out = collect(32, |cta| {
            if cta.lane() < 8 {
                cta.ballot(0xff, cta.lane() >= 4) | (shfl_xor(cta, 0xff, cta.lane(), 2, 4) << 16)
            } else {
                0
            }
        });
        for l in 0..8u32 {
            assert_eq!(out[l as usize], 0xf0 | ((l ^ 2) << 16));
        }
    }

    #[test]
    #[should_panic(expected = "cannot progress")]
    fn divergent_barrier_is_reported() {
        launch(1, 64, 0, &|cta: &SimCta| {
            if cta.tid() < 32 {
                cta.sync();
            }
        });
    }

    #[test]
    #[should_panic(expected = "32 threads at sync and 32 at sync_or")]
    fn mixed_barrier_kinds_are_reported() {
        launch(1, 64, 0, &|cta: &SimCta| {
            if cta.tid() < 32 {
                cta.sync();
            } else {
                cta.sync_or(true);
            }
        });
    }

    #[test]
    fn sync_or_returns_the_or_of_every_thread() {
        let mut out = vec![0u8; 3 * 96];
        let p = out.as_mut_ptr() as usize;
        launch(1, 96, 0, &|cta: &SimCta| {
            let t = cta.tid() as usize;
            let r = [
                cta.sync_or(false),
                cta.sync_or(t == 95),
                cta.sync_or(t == 0),
            ];
            for (k, b) in r.into_iter().enumerate() {
                unsafe { *(p as *mut u8).add(k * 96 + t) = b as u8 };
            }
        });
        assert!(out[..96].iter().all(|&b| b == 0));
        assert!(out[96..].iter().all(|&b| b == 1));
    }

    #[test]
    #[should_panic(expected = "outside mask")]
    fn shuffle_outside_mask_is_reported() {
        launch(1, 32, 0, &|cta: &SimCta| {
            if cta.lane() < 2 {
                cta.shfl_idx_u32(0x3, 1, 5, 32);
            }
        });
    }

    #[test]
    fn blocks_run_in_order() {
        let mut log = vec![0u32; 8];
        let counter = std::cell::Cell::new(0u32);
        let p = log.as_mut_ptr() as usize;
        launch(8, 32, 0, &|cta: &SimCta| {
            if cta.tid() == 0 {
                unsafe { *(p as *mut u32).add(counter.get() as usize) = cta.block() };
                counter.set(counter.get() + 1);
            }
        });
        assert_eq!(log, (0..8).collect::<Vec<_>>());
    }
}
