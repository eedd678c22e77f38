//! The large-size group: sizes past 2^31 through the facade (`mgpu::Backend`), issue 15
//! item 5.
//!
//! Each check is written once, as a function of a `&Backend` and a size, and instantiated
//! three times by `group!` at the bottom: on the CPU backend (`small_<check>_cpu`, about
//! 10^6 elements) and on the CTA simulator (`small_<check>_sim`, a few thousand
//! elements, a few tiles of every kernel), which `cargo test -p mgpu --test large` runs in
//! seconds to check the tests' own logic; and on CUDA device 0 with the sizes past 2^31
//! (`large_<check>`), `#[ignore]`d. Only the large GPU tests have `large_` in their names:
//! the GPU runner selects the large group by that substring and skips it otherwise.
//!
//! What the group checks (every element of every result that comes back to the host,
//! against closed forms computed on the host in parallel with rayon):
//!
//! - `scan`: exclusive sum scan of 2^31 + 2^20 `u32` values `a * i + c` (wrapping), its
//!   total and the reduction, against the closed form of the prefix sums.
//! - `scan_counts`: the count scan (`scan_counts_exclusive`, new buffer and in place) of
//!   2^31 + 2^20 `u32` counts whose total is exactly `u32::MAX` (accepted), then the count
//!   scan of the resulting offsets, whose total passes `u32` (`IndexOverflow`), and their
//!   wrapping reduction.
//! - `load_balance_search`: `u64` indices, 2^31 + 7 work items (the output length), about
//!   1.8 * 10^8 objects with counts 0 to 18, runs of zero counts and one interval of
//!   200,003 per 65,536 objects: the scan form, the ranks form and the counts form.
//! - `interval_expand` (and the naive expand), `interval_move`, `interval_gather`,
//!   `interval_scatter`: the same intervals, `u64` indices, totals of 2^31 + 7; generated
//!   values and inputs (`IntervalSource::step`), gather starts past 2^32 (`u64` values, so a
//!   position truncated to 32 bits shows), scatter starts that lay the intervals out in
//!   reverse order.
//! - `bulk_remove`: a source of 2^31 + 2^20 elements, every other index removed (generated
//!   `u32` indices), every third (generated `u64` indices), and 3 of every 7 (a `u32` index
//!   array).
//! - `bulk_insert`: into a source of 2^31 elements, 2^30 + 1 generated values at generated
//!   `u32` indices (output 3 * 2^30 + 1 elements), and 3 * (2^20 + 1) values from an array
//!   at a `u64` index array with duplicates (output just past 2^31, the last three
//!   appended).
//! - `seg_reduce_csr`: the same intervals as a CSR of `u64` starts over 2^31 + 7 `u64`
//!   values `p`: every segment's sum (an arithmetic series; 0 for the empty ones).
//! - `reduce_by_key`: 2^31 + 7 `u32` keys in runs of 1 to 12, values 1: every run's key
//!   and length. (Not run on a GPU yet.)
//! - `overflow_u32_*`: `u32` indices whose total is 2^32 + 16 (2^20 counts of 2^12, the
//!   last plus 16) give `Error::IndexOverflow` up front: the count scan, the
//!   load-balancing search from counts, interval expand, naive expand and gather (through
//!   the count scan on every backend, and with the explicit total on the GPU), interval
//!   move and scatter. On the GPU a *ballast* buffer first takes all but 12 GiB of the free
//!   device memory, so an implementation that allocated the 2^32 + 16-element output before
//!   its check gets `OutOfMemory` instead, and the test fails saying so. (The facade's
//!   expand, naive expand and gather did allocate first; the first run of this group on
//!   an H100 found it.)
//!
//! # Running it
//!
//! On a machine with a GPU and Rust: `cargo xtask test-gpu --large` (or `cargo test
//! --release -p mgpu --test large -- --ignored --test-threads=1 large_`); from a bundle
//! (`cargo xtask bundle`): `bundle/run.sh --large`. The tests also serialise themselves (a
//! lock), so they never share the device even without `--test-threads=1`. Each GPU test
//! prints (uncaptured) its sizes, the time of each step (upload, the call, download and
//! check), the device memory in use after its largest call, and its total time; the small
//! instances print with `println!` (shown with `--nocapture`).
//!
//! # Device memory and time
//!
//! Measured on an NVIDIA H100 80GB HBM3 with 16 cores (one run of the whole group, 31 s):
//! the device memory in use after each test's largest call (as `cudaMemGetInfo` reports it,
//! so with the context's own half GiB) and the test's wall time, host-side generation and
//! checking included. The first test to use a kernel family also pays for loading its PTX
//! (the driver's JIT, 2 to 4 s for the scan, interval and bulk families), which falls on
//! `large_bulk_insert`, `large_interval_expand` and the counts form in
//! `large_load_balance_search` in the harness's (alphabetical) order.
//!
//! | test | what is on the device at the peak | in use | time |
//! | --- | --- | --- | --- |
//! | `large_bulk_insert` | source 8.6 GB + output 12.9 GB | 20.6 GiB | 4.3 s |
//! | `large_bulk_remove` | source 8.6 GB + index array 3.7 GB + output 4.9 GB | 16.6 GiB | 1.6 s |
//! | `large_interval_expand` | scan 1.4 GB + output (`u32`) 8.6 GB | 9.9 GiB | 4.6 s |
//! | `large_interval_gather` | scan, gather 2.9 GB + output (`u64`) 17.2 GB | 19.2 GiB | 1.6 s |
//! | `large_interval_move` | scan, gather, scatter 4.3 GB + output (`u64`) 17.2 GB | 20.6 GiB | 1.8 s |
//! | `large_interval_scatter` | scan, scatter 2.9 GB + output (`u32`) 8.6 GB | 11.2 GiB | 1.6 s |
//! | `large_load_balance_search` | scan 1.4 GB + objects 17.2 GB + ranks 17.2 GB | 33.9 GiB | 9.4 s |
//! | `large_overflow_u32_*` (4 tests) | a few MB, and the ballast (all but 12 GiB of the free memory) | 67.2 GiB | 0.1 to 0.3 s each |
//! | `large_scan` | input + output, 2 x 8.6 GB | 16.5 GiB | 0.8 s |
//! | `large_scan_counts` | counts + offsets, 2 x 8.6 GB | 16.5 GiB | 1.2 s |
//!
//! Inputs are generated on the host in parallel and uploaded in 64 MiB chunks, each while
//! the next is generated; results are downloaded in 64 MiB chunks, each checked while the
//! next is copied, through two page-locked staging buffers per transfer. So the host never
//! holds a whole input or result, and the transfers run at the bus's speed (about 17 GB/s
//! including the checks, where fresh pageable vectors gave 1 GB/s). Each test frees its
//! buffers (and its CUDA context) before the next starts.

use mgpu::{Backend, Buffer, BulkSource, Context, Device, Element, Error, IntervalSource, Plus};
use rayon::prelude::*;
use std::fmt::Debug;
use std::io::Write;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// Sizes of the GPU instances.

/// Elements of the scans and of the bulk-remove source: 2^31 + 2^20.
const LARGE_N: usize = (1 << 31) + (1 << 20);
/// Work items (output length) of the load-balancing search and the interval family.
const LARGE_TOTAL: usize = (1 << 31) + 7;
/// The bulk-insert source: 2^31 elements.
const LARGE_INSERT_SOURCE: usize = 1 << 31;
/// Counts of the `u32` overflow checks: 2^20 counts of 2^12, the last plus 16.
const OVERFLOW_COUNTS: usize = 1 << 20;

// ---------------------------------------------------------------------------------------
// Logging, timing and device memory.

/// A test's log: its sizes, each step's time and the total. GPU instances write to the
/// process's stdout directly (libtest does not capture that), so `run.sh --large` shows
/// them; the small instances use `println!` (shown with `--nocapture`).
struct Log {
    gpu: bool,
    name: &'static str,
    start: Instant,
    last: Instant,
}

impl Log {
    fn new(b: &Backend, name: &'static str, what: String) -> Log {
        let log = Log {
            gpu: matches!(b, Backend::Cuda(_)),
            name,
            start: Instant::now(),
            last: Instant::now(),
        };
        log.say(format!("\n{name} on {}: {what}", b.describe()));
        log
    }

    fn say(&self, line: String) {
        if self.gpu {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        } else {
            println!("{line}");
        }
    }

    /// Ends a step: its wall time since the previous one.
    fn step(&mut self, what: &str) {
        let now = Instant::now();
        self.say(format!(
            "  {:<58} {:>8.3} s",
            what,
            (now - self.last).as_secs_f64()
        ));
        self.last = now;
    }

    /// The device memory in use now (GPU only).
    fn memory(&self, b: &Backend) {
        if let Backend::Cuda(ctx) = b {
            if let Ok((free, total)) = ctx.cuda_context().mem_get_info() {
                self.say(format!(
                    "  device memory in use: {:.1} GiB of {:.1} GiB",
                    gib(total - free),
                    gib(total)
                ));
            }
        }
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.say(format!(
                "  {} done in {:.2} s",
                self.name,
                self.start.elapsed().as_secs_f64()
            ));
        }
    }
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// The large tests hold this while they run, so they never share the device (and its
/// memory) even when the harness runs tests in parallel.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// CUDA device 0.
fn gpu() -> Backend {
    Backend::cuda(0).expect("needs a CUDA GPU")
}

/// On a CUDA backend, a buffer that takes all but `keep` bytes of the free device memory
/// (none when less is free): while it lives, an allocation of more than `keep` bytes
/// fails. `None` on the host backends.
fn ballast(b: &Backend, keep: usize) -> Option<Buffer<u64>> {
    let Backend::Cuda(ctx) = b else { return None };
    let (free, _) = ctx
        .cuda_context()
        .mem_get_info()
        .expect("query the free device memory");
    let words = free.saturating_sub(keep) / 8;
    Some(b.zeros::<u64>(words).expect("allocate the ballast"))
}

// ---------------------------------------------------------------------------------------
// Moving data: generated uploads and checked downloads, in chunks.

/// Bytes per transfer chunk.
const CHUNK_BYTES: usize = 64 << 20;
/// Elements per parallel check task.
const TASK: usize = 1 << 16;

fn chunk_len<T>() -> usize {
    (CHUNK_BYTES / std::mem::size_of::<T>()).max(1)
}

/// Runs `f` with two host staging buffers of `per` elements, allocated (and faulted in)
/// once per call rather than once per chunk: page-locked memory of `ctx` where the driver
/// gives it (copies then run at the full speed of the bus), else ordinary memory.
fn with_staging<T: Element, R>(
    ctx: &Context,
    per: usize,
    f: impl for<'a> FnOnce(&'a mut [T], &'a mut [T]) -> R,
) -> R {
    let bytes = per * std::mem::size_of::<T>();
    let cuda = ctx.cuda_context();
    // SAFETY: flags 0 (not write-combined, so the host reads it at full speed); the memory
    // is zeroed below before anything reads it.
    let pinned = unsafe {
        (
            cuda.alloc_pinned_with_flags::<u8>(bytes, 0),
            cuda.alloc_pinned_with_flags::<u8>(bytes, 0),
        )
    };
    if let (Ok(mut a), Ok(mut b)) = pinned {
        let pa = a.as_mut_ptr().expect("page-locked buffer");
        let pb = b.as_mut_ptr().expect("page-locked buffer");
        assert!(pa.cast::<T>().is_aligned() && pb.cast::<T>().is_aligned());
        // SAFETY: `a` and `b` own `bytes` bytes each, suitably aligned (checked), and live
        // until the end of this block, after the slices' last use; zeroed first, and every
        // bit pattern is a valid `T` (an `Element`: plain integers and floats).
        let (sa, sb) = unsafe {
            std::ptr::write_bytes(pa, 0, bytes);
            std::ptr::write_bytes(pb, 0, bytes);
            (
                std::slice::from_raw_parts_mut(pa.cast::<T>(), per),
                std::slice::from_raw_parts_mut(pb.cast::<T>(), per),
            )
        };
        return f(sa, sb);
    }
    let (mut a, mut b) = (vec![T::ZERO; per], vec![T::ZERO; per]);
    f(&mut a, &mut b)
}

/// A new buffer of `n` elements `f(0), f(1), ...`, generated on the host in parallel. On a
/// GPU it is uploaded chunk by chunk from two staging buffers, each chunk while the next
/// one is generated, so the host never holds all of it.
fn upload_with<T>(b: &Backend, n: usize, f: impl Fn(usize) -> T + Sync) -> Buffer<T>
where
    T: Element + Send + Sync,
{
    let fill = |at: usize, s: &mut [T]| {
        s.par_iter_mut()
            .enumerate()
            .for_each(|(k, x)| *x = f(at + k))
    };
    let Backend::Cuda(ctx) = b else {
        let mut host = vec![T::ZERO; n];
        fill(0, &mut host);
        return b.upload(&host).expect("upload");
    };
    let mut buf = b.zeros::<T>(n).expect("allocate the input");
    let Buffer::Cuda(v) = &mut buf else {
        unreachable!("a CUDA backend makes CUDA buffers")
    };
    let per = chunk_len::<T>().min(n.max(1));
    with_staging(ctx, per, |a, b| {
        let (mut cur, mut next) = (a, b);
        let len = |at: usize| per.min(n - at);
        fill(0, &mut cur[..len(0)]);
        let mut at = 0;
        while at < n {
            let next_at = at + len(at);
            std::thread::scope(|s| {
                if next_at < n {
                    s.spawn(|| fill(next_at, &mut next[..len(next_at)]));
                }
                v.slice_mut(at..next_at)
                    .and_then(|mut d| d.copy_from_host(&cur[..next_at - at]))
                    .expect("upload a chunk");
            });
            std::mem::swap(&mut cur, &mut next);
            at = next_at;
        }
    });
    buf
}

/// Downloads `buf` (on a GPU chunk by chunk into two staging buffers, each chunk checked
/// while the next one is copied) and runs `check(index of the first element, elements)`
/// on every run of up to [`TASK`] elements, in parallel; panics with the first error in
/// index order, naming `what`.
fn verify<T>(buf: &Buffer<T>, what: &str, check: impl Fn(usize, &[T]) -> Option<String> + Sync)
where
    T: Element + Send + Sync,
{
    let run = |first: usize, s: &[T]| -> Option<String> {
        s.par_chunks(TASK)
            .enumerate()
            .find_map_first(|(k, c)| check(first + k * TASK, c))
    };
    let error = match buf {
        Buffer::Host(v) => run(0, v),
        Buffer::Simulator(v) => run(0, &v.to_vec().expect("download")),
        Buffer::Cuda(v) => {
            let n = v.len();
            let per = chunk_len::<T>().min(n.max(1));
            let len = |at: usize| per.min(n - at);
            let get = |at: usize, dst: &mut [T]| {
                let src = v.slice(at..at + len(at)).expect("a chunk of the result");
                // SAFETY: `dst` has room for the chunk (`len(at) <= per`), and `src` is that
                // many elements of device memory.
                unsafe {
                    v.device().copy_dtoh(
                        dst.as_mut_ptr().cast::<u8>(),
                        src.device_ptr(),
                        len(at) * std::mem::size_of::<T>(),
                    )
                }
                .expect("download a chunk");
            };
            with_staging(v.device(), per, |a, b| {
                let (mut cur, mut next) = (a, b);
                if n > 0 {
                    get(0, cur);
                }
                let mut at = 0;
                while at < n {
                    let next_at = at + len(at);
                    let e = std::thread::scope(|s| {
                        let h = s.spawn(|| run(at, &cur[..next_at - at]));
                        if next_at < n {
                            get(next_at, next);
                        }
                        h.join().expect("check a chunk")
                    });
                    if e.is_some() {
                        return e;
                    }
                    std::mem::swap(&mut cur, &mut next);
                    at = next_at;
                }
                None
            })
        }
    };
    if let Some(e) = error {
        panic!("{what}: {e}");
    }
}

/// [`verify`] that element `i` is `want(i)`, and that there are `len` elements.
fn verify_each<T>(buf: &Buffer<T>, what: &str, len: usize, want: impl Fn(usize) -> T + Sync)
where
    T: Element + Debug + Send + Sync,
{
    assert_eq!(buf.len(), len, "{what}: length");
    verify(buf, what, |first, s| {
        s.iter().enumerate().find_map(|(k, &v)| {
            let i = first + k;
            let w = want(i);
            (v != w).then(|| format!("element {i} is {v:?}, expected {w:?}"))
        })
    });
}

/// Splitmix64: deterministic pseudo-random bits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

// ---------------------------------------------------------------------------------------
// The intervals of the load-balancing search and the interval family.

/// Objects per period of the count pattern.
const PERIOD: usize = 1 << 16;
/// Where in each period the long interval is, and its count.
const LONG_AT: usize = 40_000;
const LONG: u64 = 200_003;

/// Count `t` of the period: 0 in the first 64 of every 4096 (runs of empty objects),
/// [`LONG`] at [`LONG_AT`] (an interval spanning many tiles), else pseudo-random in 0..19.
fn pattern_count(t: usize) -> u64 {
    if t % 4096 < 64 {
        0
    } else if t == LONG_AT {
        LONG
    } else {
        mix(t as u64) % 19
    }
}

/// The exclusive scan of one period (`PERIOD + 1` values; the last is the period's sum).
fn pattern_scan() -> &'static [u64] {
    static SCAN: OnceLock<Vec<u64>> = OnceLock::new();
    SCAN.get_or_init(|| {
        let mut s = Vec::with_capacity(PERIOD + 1);
        let mut acc = 0;
        for t in 0..PERIOD {
            s.push(acc);
            acc += pattern_count(t);
        }
        s.push(acc);
        s
    })
}

/// The sum of the first `j` counts of the repeated pattern (closed form).
fn pattern_start(j: usize) -> u64 {
    let s = pattern_scan();
    (j / PERIOD) as u64 * s[PERIOD] + s[j % PERIOD]
}

/// `n` objects with the pattern's counts, cut where `total` is reached: the last object
/// takes what is left, so the counts sum to `total` exactly. Everything about them is a
/// closed form of the pattern's scan: no host array of the scan is kept.
struct Intervals {
    total: u64,
    n: usize,
}

impl Intervals {
    fn new(total: usize) -> Intervals {
        let total = total as u64;
        // The last object is the largest k with start(k) <= total.
        let (mut lo, mut hi) = (0, (total / pattern_scan()[PERIOD] + 2) as usize * PERIOD);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if pattern_start(mid) <= total {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Intervals { total, n: lo + 1 }
    }

    /// `scan[j]`: the first work item of object `j`.
    fn start(&self, j: usize) -> u64 {
        pattern_start(j)
    }

    /// One past the last work item of object `j`.
    fn end(&self, j: usize) -> u64 {
        if j + 1 < self.n {
            pattern_start(j + 1)
        } else {
            self.total
        }
    }

    fn count(&self, j: usize) -> u64 {
        self.end(j) - self.start(j)
    }

    /// The object of work item `i` (`upper_bound(scan, i) - 1`).
    fn object(&self, i: u64) -> usize {
        let (mut lo, mut hi) = (0, self.n);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.start(mid) <= i {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Where interval `j` goes when the intervals are laid out in reverse order.
    fn reversed(&self, j: usize) -> u64 {
        self.total - self.end(j)
    }

    /// For output positions `first..first + len` of the reversed layout, calls
    /// `f(k, object, rank)` for each (`k` counts from 0) until it returns an error.
    fn walk_reversed(
        &self,
        first: usize,
        len: usize,
        mut f: impl FnMut(usize, usize, u64) -> Option<String>,
    ) -> Option<String> {
        let q0 = self.total - 1 - first as u64;
        let mut j = self.object(q0);
        for k in 0..len {
            let q = q0 - k as u64;
            while self.start(j) > q {
                j -= 1;
            }
            let rank = (first + k) as u64 - self.reversed(j);
            if let Some(e) = f(k, j, rank) {
                return Some(e);
            }
        }
        None
    }

    /// For work items `first..first + len`, calls `f(k, object, rank)` for each.
    fn walk(
        &self,
        first: usize,
        len: usize,
        mut f: impl FnMut(usize, usize, u64) -> Option<String>,
    ) -> Option<String> {
        let mut j = self.object(first as u64);
        for k in 0..len {
            let i = (first + k) as u64;
            while j + 1 < self.n && self.start(j + 1) <= i {
                j += 1;
            }
            if let Some(e) = f(k, j, i - self.start(j)) {
                return Some(e);
            }
        }
        None
    }

    fn describe(&self) -> String {
        format!(
            "{} work items, {} objects (counts 0 to 18, zero runs, one of {LONG} per {PERIOD})",
            self.total, self.n
        )
    }
}

/// The gather start of interval `j`: past 2^32 from `j = 1` on.
fn gather_start(j: usize) -> u64 {
    j as u64 * 0x1_0000_0003 + 11
}

/// The intervals of `total` work items, the log of check `name` (`u64` indices, `what`,
/// the intervals) and their scan, uploaded.
fn intervals_and_scan(
    b: &Backend,
    total: usize,
    name: &'static str,
    what: &str,
) -> (Intervals, Log, Buffer<u64>) {
    let iv = Intervals::new(total);
    let mut log = Log::new(b, name, format!("u64, {what}{}", iv.describe()));
    let scan = upload_with(b, iv.n, |j| iv.start(j));
    log.step("generate and upload the scan");
    (iv, log, scan)
}

/// [`verify`] that `out` has `iv.total` elements and that the one of object `j`, rank `r`
/// is `want(j, r)`: work items in order, or the intervals laid out in reverse order
/// (`reversed`, [`Intervals::walk_reversed`]).
fn verify_intervals<T>(
    out: &Buffer<T>,
    what: &str,
    iv: &Intervals,
    reversed: bool,
    want: impl Fn(usize, u64) -> T + Sync,
) where
    T: Element + Debug + Send + Sync,
{
    assert_eq!(out.len() as u64, iv.total, "{what}: length");
    verify(out, what, |first, s| {
        let check = |k: usize, j: usize, r: u64| {
            let w = want(j, r);
            (s[k] != w).then(|| {
                format!(
                    "element {} (object {j}, rank {r}) is {:?}, expected {w:?}",
                    first + k,
                    s[k]
                )
            })
        };
        if reversed {
            iv.walk_reversed(first, s.len(), check)
        } else {
            iv.walk(first, s.len(), check)
        }
    });
}

// ---------------------------------------------------------------------------------------
// The checks, each a function of the backend and its size.

/// Exclusive scan, its total and the reduction of `n` u32 values `A * i + C` (wrapping).
fn scan(b: &Backend, n: usize) {
    const A: u32 = 0x9E37_79B9;
    const C: u32 = 12_345;
    let x = |i: usize| (i as u32).wrapping_mul(A).wrapping_add(C);
    // The sum of x(0..i): A * i(i-1)/2 + C * i, modulo 2^32.
    let prefix = |i: usize| {
        let tri = (i as u64 * (i as u64).saturating_sub(1) / 2) as u32;
        tri.wrapping_mul(A).wrapping_add((i as u32).wrapping_mul(C))
    };
    let mut log = Log::new(b, "scan", format!("{n} u32 values, wrapping Plus"));
    let input = upload_with(b, n, x);
    log.step("generate and upload the input");
    let (out, total) = b.scan_exclusive(&input, Plus).expect("scan_exclusive");
    log.step("scan_exclusive");
    log.memory(b);
    assert_eq!(total, prefix(n), "scan total");
    verify_each(&out, "exclusive scan", n, prefix);
    log.step("download and check every element");
    drop(out);
    assert_eq!(b.reduce(&input, Plus).expect("reduce"), prefix(n), "reduce");
    log.step("reduce");
}

/// The count scan of `n` u32 counts whose total is exactly `u32::MAX`, new buffer and in
/// place; then the count scan of the offsets (which sum past u32) and their reduction.
fn scan_counts(b: &Backend, n: usize) {
    let max = u32::MAX as u64;
    // Counts q + 1 below k, q from k on: total q * n + k = u32::MAX.
    let (q, k) = (max / n as u64, max % n as u64);
    let count = |i: usize| (q + ((i as u64) < k) as u64) as u32;
    let offset = |i: usize| (q * i as u64 + (i as u64).min(k)) as u32;
    let mut log = Log::new(
        b,
        "scan_counts",
        format!("{n} u32 counts ({} and {q}) summing to u32::MAX", q + 1),
    );
    let mut counts = upload_with(b, n, count);
    log.step("generate and upload the counts");
    let (out, total) = b
        .scan_counts_exclusive(&counts)
        .expect("scan_counts_exclusive");
    log.step("scan_counts_exclusive");
    log.memory(b);
    assert_eq!(total, u32::MAX, "count scan total");
    verify_each(&out, "count scan", n, offset);
    log.step("download and check every element");
    drop(out);
    let total = b
        .scan_counts_exclusive_in_place(&mut counts)
        .expect("scan_counts_exclusive_in_place");
    log.step("scan_counts_exclusive_in_place");
    assert_eq!(total, u32::MAX, "in-place count scan total");
    verify_each(&counts, "in-place count scan", n, offset);
    log.step("download and check every element");
    // The offsets as counts: their sum passes u32.
    match b.scan_counts_exclusive(&counts) {
        Err(Error::IndexOverflow { max: m, .. }) => assert_eq!(m, max),
        other => panic!(
            "the count scan of offsets summing past u32: expected IndexOverflow, got {:?}",
            other.map(|(_, t)| t)
        ),
    }
    log.step("scan_counts_exclusive of the offsets: IndexOverflow");
    // Their plain reduction wraps: sum of q * i + min(i, k), modulo 2^32.
    let (n, k) = (n as u128, k as u128);
    let sum = q as u128 * (n * (n - 1) / 2) + k * k.saturating_sub(1) / 2 + k * (n - k);
    let reduced = b.reduce(&counts, Plus).expect("reduce");
    assert_eq!(reduced, sum as u32, "wrapping reduction of the offsets");
    log.step("reduce of the offsets (wraps)");
}

/// The load-balancing search with u64 indices and `total` work items: scan, ranks and
/// counts forms.
fn load_balance_search(b: &Backend, total: usize) {
    let (iv, mut log, scan) = intervals_and_scan(b, total, "load_balance_search", "");
    let check_objects = |what: &str, objects: &Buffer<u64>| {
        verify_intervals(objects, what, &iv, false, |j, _| j as u64);
    };

    let objects = b
        .load_balance_search(&scan, total as u64)
        .expect("load_balance_search");
    log.step("load_balance_search");
    check_objects("objects", &objects);
    log.step("download and check every object");
    drop(objects);

    let (objects, ranks) = b
        .load_balance_search_ranks(&scan, total as u64)
        .expect("load_balance_search_ranks");
    log.step("load_balance_search_ranks");
    log.memory(b);
    check_objects("objects (ranks form)", &objects);
    drop(objects);
    verify_intervals(&ranks, "ranks", &iv, false, |_, r| r);
    log.step("download and check every object and rank");
    drop(ranks);
    drop(scan);

    let counts = upload_with(b, iv.n, |j| iv.count(j));
    log.step("generate and upload the counts");
    let (objects, t) = b
        .load_balance_search_counts(&counts)
        .expect("load_balance_search_counts");
    log.step("load_balance_search_counts");
    assert_eq!(t, total as u64, "counts form: total");
    check_objects("objects (counts form)", &objects);
    log.step("download and check every object");
}

/// Interval expand (and the naive expand) with u64 indices: interval `j` has the value
/// `3 + 7 * j` (u32, generated).
fn interval_expand(b: &Backend, total: usize) {
    let value = |j: usize| 3u32.wrapping_add(7u32.wrapping_mul(j as u32));
    let (iv, mut log, scan) = intervals_and_scan(b, total, "interval_expand", "u32 values, ");
    let check = |what: &str, out: &Buffer<u32>| {
        verify_intervals(out, what, &iv, false, |j, _| value(j));
    };
    let out = b
        .interval_expand(&scan, total, IntervalSource::step(3u32, 7))
        .expect("interval_expand");
    log.step("interval_expand");
    log.memory(b);
    check("interval expand", &out);
    log.step("download and check every element");
    drop(out);
    let out = b
        .interval_expand_naive(&scan, total, IntervalSource::step(3u32, 7))
        .expect("interval_expand_naive");
    log.step("interval_expand_naive");
    check("naive interval expand", &out);
    log.step("download and check every element");
}

/// Interval move with u64 indices: gather starts past 2^32 from a generated u64 input
/// `5 + 3 * position`, scatter starts laying the intervals out in reverse order.
fn interval_move(b: &Backend, total: usize) {
    let input = |p: u64| 5u64.wrapping_add(3u64.wrapping_mul(p));
    let (iv, mut log, scan) =
        intervals_and_scan(b, total, "interval_move", "u64 values, reversed layout, ");
    let gather = upload_with(b, iv.n, gather_start);
    let scatter = upload_with(b, iv.n, |j| iv.reversed(j));
    log.step("generate and upload the gather and scatter starts");
    let mut out = b.zeros::<u64>(total).expect("allocate the output");
    b.interval_move(
        &scan,
        total,
        &gather,
        &scatter,
        IntervalSource::step(5u64, 3),
        &mut out,
    )
    .expect("interval_move");
    log.step("interval_move (with the output's allocation)");
    log.memory(b);
    verify_intervals(&out, "interval move", &iv, true, |j, r| {
        input(gather_start(j) + r)
    });
    log.step("download and check every element");
}

/// Interval gather with u64 indices: gather starts past 2^32 from a generated u64 input.
fn interval_gather(b: &Backend, total: usize) {
    let input = |p: u64| 5u64.wrapping_add(3u64.wrapping_mul(p));
    let (iv, mut log, scan) = intervals_and_scan(b, total, "interval_gather", "u64 values, ");
    let gather = upload_with(b, iv.n, gather_start);
    log.step("generate and upload the gather starts");
    let out = b
        .interval_gather(&scan, total, &gather, IntervalSource::step(5u64, 3))
        .expect("interval_gather");
    log.step("interval_gather");
    log.memory(b);
    verify_intervals(&out, "interval gather", &iv, false, |j, r| {
        input(gather_start(j) + r)
    });
    log.step("download and check every element");
}

/// Interval scatter with u64 indices: a generated u32 input `1 + 2 * item`, scatter starts
/// laying the intervals out in reverse order.
fn interval_scatter(b: &Backend, total: usize) {
    let input = |i: u64| 1u32.wrapping_add(2u32.wrapping_mul(i as u32));
    let (iv, mut log, scan) = intervals_and_scan(
        b,
        total,
        "interval_scatter",
        "u32 values, reversed layout, ",
    );
    let scatter = upload_with(b, iv.n, |j| iv.reversed(j));
    log.step("generate and upload the scatter starts");
    let mut out = b.zeros::<u32>(total).expect("allocate the output");
    b.interval_scatter(
        &scan,
        total,
        &scatter,
        IntervalSource::step(1u32, 2),
        &mut out,
    )
    .expect("interval_scatter");
    log.step("interval_scatter (with the output's allocation)");
    log.memory(b);
    verify_intervals(&out, "interval scatter", &iv, true, |j, r| {
        input(iv.start(j) + r)
    });
    log.step("download and check every element");
}

/// Source element `i` of the bulk checks: a bijection of the u32 position.
fn bulk_source(i: usize) -> u32 {
    (i as u32).wrapping_mul(0x9E37_79B1)
}

/// Bulk remove from `n` elements: every other index (generated u32), every third
/// (generated u64), and 3 of every 7 (a u32 index array).
fn bulk_remove(b: &Backend, n: usize) {
    assert!(n.is_multiple_of(2), "n must be even");
    let mut log = Log::new(b, "bulk_remove", format!("a source of {n} u32 elements"));
    let source = upload_with(b, n, bulk_source);
    log.step("generate and upload the source");

    let out = b
        .bulk_remove(&source, BulkSource::step(1u32, 2, n / 2))
        .expect("bulk_remove, every other index");
    log.step(&format!(
        "bulk_remove of {} generated u32 indices (1, 3, 5, ...)",
        n / 2
    ));
    log.memory(b);
    verify_each(&out, "bulk remove, odd indices", n - n / 2, |k| {
        bulk_source(2 * k)
    });
    log.step("download and check every element");
    drop(out);

    let m = n.div_ceil(3);
    let out = b
        .bulk_remove(&source, BulkSource::step(0u64, 3, m))
        .expect("bulk_remove, every third index");
    log.step(&format!(
        "bulk_remove of {m} generated u64 indices (0, 3, 6, ...)"
    ));
    verify_each(&out, "bulk remove, every third index", n - m, |k| {
        bulk_source(3 * (k / 2) + 1 + k % 2)
    });
    log.step("download and check every element");
    drop(out);

    // Positions 2, 3 and 6 of every 7 go; 0, 1, 4 and 5 stay.
    const GONE: [usize; 3] = [2, 3, 6];
    const KEPT: [usize; 4] = [0, 1, 4, 5];
    let m = 3 * (n / 7) + GONE.iter().filter(|&&r| r < n % 7).count();
    let indices = upload_with(b, m, |k| (7 * (k / 3) + GONE[k % 3]) as u32);
    log.step(&format!(
        "generate and upload {m} u32 indices (3 of every 7)"
    ));
    let out = b
        .bulk_remove(&source, (&indices).into())
        .expect("bulk_remove, index array");
    log.step("bulk_remove with the index array");
    log.memory(b);
    verify_each(&out, "bulk remove, index array", n - m, |k| {
        bulk_source(7 * (k / 4) + KEPT[k % 4])
    });
    log.step("download and check every element");
}

/// Bulk insert into `n` elements (a power of two): `n / 2 + 1` generated values at the
/// generated u32 indices 0, 2, 4, ..., n (the last appends); then `3 * (n / g + 1)` values
/// from an array at a u64 index array 0, 0, 0, g, g, g, ..., n, n, n.
fn bulk_insert(b: &Backend, n: usize) {
    assert!(
        n.is_power_of_two() && n >= 1 << 12,
        "n must be a power of two"
    );
    let g = (n >> 20).max(64);
    let mut log = Log::new(
        b,
        "bulk_insert",
        format!("into a source of {n} u32 elements"),
    );
    let source = upload_with(b, n, bulk_source);
    log.step("generate and upload the source");

    let m = n / 2 + 1;
    let value = |k: usize| 7u32.wrapping_add(3u32.wrapping_mul(k as u32));
    let out = b
        .bulk_insert(
            BulkSource::step(7u32, 3, m),
            BulkSource::step(0u32, 2, m),
            &source,
        )
        .expect("bulk_insert, generated");
    log.step(&format!(
        "bulk_insert of {m} generated values at generated u32 indices (output {})",
        n + m
    ));
    log.memory(b);
    // Value k, then source elements 2k and 2k + 1; the last value appended.
    verify_each(&out, "bulk insert, generated", n + m, |p| match p % 3 {
        0 => value(p / 3),
        r => bulk_source(2 * (p / 3) + r - 1),
    });
    log.step("download and check every element");
    drop(out);

    let m = 3 * (n / g + 1);
    let vals = |k: usize| (k as u32).wrapping_mul(0x85EB_CA6B) ^ 0xFFFF;
    let values = upload_with(b, m, vals);
    let indices = upload_with(b, m, |k| ((k / 3) * g) as u64);
    log.step(&format!(
        "generate and upload {m} values and u64 indices (3 at every {g}th position)"
    ));
    let out = b
        .bulk_insert((&values).into(), (&indices).into(), &source)
        .expect("bulk_insert, arrays");
    log.step(&format!(
        "bulk_insert with the value and index arrays (output {})",
        n + m
    ));
    // Blocks of 3 values then g source elements; the last 3 values appended.
    verify_each(&out, "bulk insert, arrays", n + m, |p| {
        let (block, r) = (p / (g + 3), p % (g + 3));
        if r < 3 {
            vals(3 * block + r)
        } else {
            bulk_source(block * g + r - 3)
        }
    });
    log.step("download and check every element");
}

// ---------------------------------------------------------------------------------------
// u32 totals past u32::MAX.

/// `n` u32 counts (a power of two) of `2^32 / n`, the last plus 16: they sum to 2^32 + 16.
fn overflow_counts(b: &Backend, n: usize) -> Buffer<u32> {
    assert!(n.is_power_of_two() && n >= 2);
    let per = ((1u64 << 32) / n as u64) as u32;
    upload_with(b, n, |j| if j + 1 == n { per + 16 } else { per })
}

/// The exclusive scan (u32) of [`overflow_counts`], which fits u32: `j * 2^32 / n`.
fn overflow_scan(b: &Backend, n: usize) -> Buffer<u32> {
    let per = (1u64 << 32) / n as u64;
    upload_with(b, n, |j| (j as u64 * per) as u32)
}

/// The total of [`overflow_counts`].
const OVERFLOW_TOTAL: usize = (1 << 32) + 16;

/// Panics unless `r` is `IndexOverflow` for u32.
fn expect_overflow<T>(what: &str, r: mgpu::Result<T>) {
    match r {
        Err(Error::IndexOverflow { max, .. }) => {
            assert_eq!(max, u32::MAX as u64, "{what}: IndexOverflow names u32::MAX")
        }
        Err(Error::OutOfMemory { bytes }) => panic!(
            "{what}: OutOfMemory ({bytes} bytes) instead of IndexOverflow: it allocated \
             {bytes} bytes before checking that the total fits u32"
        ),
        Err(e) => panic!("{what}: expected IndexOverflow, got {e}"),
        Ok(_) => panic!("{what}: expected IndexOverflow, got a result"),
    }
}

/// On the GPU, all but this much of the free memory is taken by the ballast: less than the
/// smallest output of 2^32 + 16 elements (16 GiB of u32).
const BALLAST_KEEP: usize = 12 << 30;

/// What the overflow checks run on, for [`overflow_log`].
const COUNTS: &str = "counts summing to 2^32 + 16";
const INTERVALS: &str = "intervals of 2^32 + 16 items";

/// The log of overflow check `name` on `n` u32 `what` (counts or intervals).
fn overflow_log(b: &Backend, name: &'static str, n: usize, what: &str) -> Log {
    Log::new(b, name, format!("{n} u32 {what}"))
}

/// Runs `checks` while the [`ballast`] (all but [`BALLAST_KEEP`] of the free GPU memory)
/// is allocated, after logging the memory in use; frees the ballast after.
fn under_ballast(b: &Backend, log: &mut Log, checks: impl FnOnce(&mut Log)) {
    let ballast = ballast(b, BALLAST_KEEP);
    log.memory(b);
    checks(log);
    drop(ballast);
}

/// The count scan of u32 counts summing to 2^32 + 16, new buffer and in place; the plain
/// scan and reduction of the same values wrap (total 16).
fn overflow_u32_scan_counts(b: &Backend, n: usize) {
    let mut log = overflow_log(b, "overflow_u32_scan_counts", n, COUNTS);
    let mut counts = overflow_counts(b, n);
    under_ballast(b, &mut log, |log| {
        expect_overflow("scan_counts_exclusive", b.scan_counts_exclusive(&counts));
        expect_overflow(
            "scan_counts_exclusive_in_place",
            b.scan_counts_exclusive_in_place(&mut counts),
        );
        log.step("scan_counts_exclusive, in place too: IndexOverflow");
    });
    let counts = overflow_counts(b, n);
    assert_eq!(b.reduce(&counts, Plus).expect("reduce"), 16, "reduce wraps");
    let (_, total) = b.scan_exclusive(&counts, Plus).expect("scan_exclusive");
    assert_eq!(total, 16, "the plain scan wraps");
    log.step("reduce and scan_exclusive wrap to 16");
}

/// The load-balancing search from u32 counts summing to 2^32 + 16.
fn overflow_u32_load_balance_search(b: &Backend, n: usize) {
    let mut log = overflow_log(b, "overflow_u32_load_balance_search", n, COUNTS);
    let counts = overflow_counts(b, n);
    under_ballast(b, &mut log, |log| {
        expect_overflow(
            "load_balance_search_counts",
            b.load_balance_search_counts(&counts),
        );
        log.step("load_balance_search_counts: IndexOverflow");
    });
}

/// Interval expand, naive expand and gather with u32 indices and 2^32 + 16 items: the
/// count scan in front of them overflows, and with the explicit total each call must
/// refuse it before allocating its output (32 GiB of u64), on every backend.
fn overflow_u32_interval_expand(b: &Backend, n: usize) {
    let mut log = overflow_log(b, "overflow_u32_interval_expand", n, INTERVALS);
    let counts = overflow_counts(b, n);
    let scan = overflow_scan(b, n);
    let gather = upload_with(b, n, |_| 0u32);
    under_ballast(b, &mut log, |log| {
        expect_overflow(
            "scan_counts_exclusive of the interval counts",
            b.scan_counts_exclusive(&counts),
        );
        log.step("scan_counts_exclusive of the counts: IndexOverflow");
        let values = || IntervalSource::step(0u64, 1);
        expect_overflow(
            "interval_expand",
            b.interval_expand(&scan, OVERFLOW_TOTAL, values()),
        );
        expect_overflow(
            "interval_expand_naive",
            b.interval_expand_naive(&scan, OVERFLOW_TOTAL, values()),
        );
        expect_overflow(
            "interval_gather",
            b.interval_gather(&scan, OVERFLOW_TOTAL, &gather, values()),
        );
        log.step("interval_expand, naive and gather: IndexOverflow");
    });
}

/// Interval move and scatter with u32 indices and 2^32 + 16 items, into a small output.
fn overflow_u32_interval_move(b: &Backend, n: usize) {
    let mut log = overflow_log(b, "overflow_u32_interval_move", n, INTERVALS);
    let scan = overflow_scan(b, n);
    let zeros = upload_with(b, n, |_| 0u32);
    let mut out = b.zeros::<u32>(16).expect("allocate the output");
    under_ballast(b, &mut log, |log| {
        expect_overflow(
            "interval_move",
            b.interval_move(
                &scan,
                OVERFLOW_TOTAL,
                &zeros,
                &zeros,
                IntervalSource::counting(0u32),
                &mut out,
            ),
        );
        expect_overflow(
            "interval_scatter",
            b.interval_scatter(
                &scan,
                OVERFLOW_TOTAL,
                &zeros,
                IntervalSource::counting(0u32),
                &mut out,
            ),
        );
        log.step("interval_move and interval_scatter: IndexOverflow");
    });
    assert_eq!(
        out.to_vec().expect("download"),
        vec![0; 16],
        "output untouched"
    );
}

/// Segmented reduction over the intervals' scan as a CSR (`u64` starts, runs of empty
/// segments, one segment of 200,003 per period), the values `p` (u64, generated): each
/// result is an arithmetic series. Then SpMV-free reduce-by-key over keys that are the
/// segment of each position (the same runs, less the empty segments), values 1: each
/// run's count and key.
fn seg_reduce_csr(b: &Backend, total: usize) {
    let (iv, mut log, scan) = intervals_and_scan(b, total, "seg_reduce_csr", "u64 values, ");
    let data = upload_with(b, total, |p| p as u64);
    log.step("generate and upload the values");
    let out = b
        .seg_reduce_csr(&data, &scan, Plus)
        .expect("seg_reduce_csr");
    log.step("seg_reduce_csr");
    log.memory(b);
    let series = |j: usize| {
        let (s, e) = (iv.start(j), iv.end(j));
        if e == s {
            0
        } else {
            (s + e - 1) * (e - s) / 2
        }
    };
    verify_each(&out, "seg_reduce_csr", iv.n, series);
    log.step("download and check every segment");
}

/// Reduce-by-key of `total` u32 keys in runs of 1 to 12 (the key of run `r` is `r % 5`,
/// so equal keys meet only in different runs), values 1: the run count, each run's key
/// and length.
fn reduce_by_key(b: &Backend, total: usize) {
    let len = |r: u64| 1 + mix(r) % 12;
    let mut starts = Vec::with_capacity(total / 6 + 1);
    let mut p = 0u64;
    while p < total as u64 {
        starts.push(p);
        p += len(starts.len() as u64 - 1);
    }
    let runs = starts.len();
    let run_of = |p: usize| starts.partition_point(|&s| s <= p as u64) - 1;
    let mut log = Log::new(
        b,
        "reduce_by_key",
        format!("{total} u32 keys in {runs} runs, u32 values 1"),
    );
    let keys = upload_with(b, total, |p| (run_of(p) % 5) as u32);
    let values = upload_with(b, total, |_| 1u32);
    log.step("generate and upload keys and values");
    let (k, v) = b
        .reduce_by_key(&keys, &values, mgpu::EqualTo, Plus)
        .expect("reduce_by_key");
    log.step("reduce_by_key");
    log.memory(b);
    verify_each(&k, "reduce_by_key keys", runs, |r| (r % 5) as u32);
    let end = |r: usize| starts.get(r + 1).copied().unwrap_or(total as u64);
    verify_each(&v, "reduce_by_key values", runs, |r| {
        (end(r) - starts[r]) as u32
    });
    log.step("download and check every run");
}

// ---------------------------------------------------------------------------------------
// The instances.

/// For each group of checks with the same sizes `(cpu, sim, gpu)`: each check's CPU
/// instance `small_<check>_cpu` of `cpu` elements, its simulator instance
/// `small_<check>_sim` of `sim`, and its GPU instance `large_<check>` (ignored) of `gpu`.
macro_rules! group {
    ($(($cpu_n:expr, $sim_n:expr, $gpu_n:expr): $($check:ident),+;)*) => {
        mgpu_testkit::paste! {$($(
            #[test]
            fn [<small_ $check _cpu>]() {
                $check(&Backend::cpu(), $cpu_n)
            }

            #[test]
            fn [<small_ $check _sim>]() {
                $check(&Backend::simulator(), $sim_n)
            }

            #[test]
            #[ignore = "needs a CUDA GPU (large group: run.sh --large)"]
            fn [<large_ $check>]() {
                let _serial = serial();
                $check(&gpu(), $gpu_n)
            }
        )+)*}
    };
}

group! {
    (1_000_003, 9_001, LARGE_N): scan, scan_counts;
    (1_000_007, 5_007, LARGE_TOTAL):
        load_balance_search, interval_expand, interval_move, interval_gather, interval_scatter,
        seg_reduce_csr, reduce_by_key;
    (1_000_006, 6_002, LARGE_N): bulk_remove;
    (1 << 20, 1 << 12, LARGE_INSERT_SOURCE): bulk_insert;
    (1 << 16, 1 << 12, OVERFLOW_COUNTS):
        overflow_u32_scan_counts, overflow_u32_load_balance_search,
        overflow_u32_interval_expand, overflow_u32_interval_move;
}
