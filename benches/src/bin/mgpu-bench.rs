//! The GPU benchmark (DESIGN §6). Per algorithm, type and size: median time, elements/s,
//! GB/s and the copy ratio (median time / median time of a device-to-device copy of n
//! 4-byte elements, same process). Writes `bench.csv`, `bench.json` and `bench.svg` to
//! `--out DIR` (default `.`).
//!
//! `--cold-start` measures the cold start instead (issue 16, item 6): for each operation of
//! [`COLD_START_OPS`], the wall time of its first call in a fresh process with the
//! driver's JIT cache off (`CUDA_CACHE_DISABLE=1`, so every kernel is JIT-compiled anew),
//! once per kernel module source of [`COLD_LOADS`] (`MGPU_KERNEL_LOAD`: the families'
//! cubins, the runtime's default; one PTX module per kernel entry; whole family PTX
//! modules, the behaviour before). Each
//! measurement re-executes this binary with the hidden `--cold-one OP`, which opens the
//! context, fills a 2^20 input, and times from just before the call to after a
//! synchronize. Prints a table and writes `cold_start.csv` to `--out DIR`.
//!
//! `--peers FILE` adds the side-by-side report: FILE is the output of the peers binary
//! (`benches/cuda/peers.cu`: CUB, cuSPARSE and each row's bound, timed the same way), read
//! and checked before anything is measured ([`parse_peers`]). After mgpu's rows it writes
//! [`Report`]'s `report.csv`, `report.json`, `report.md` (the markdown table, also
//! printed) and `report-<family>.svg` for each family with a row, besides the `bench.*`
//! files; it warns when the peers ran on another GPU. `bundle/run.sh --peers` builds and
//! runs the peers, then this.
//!
//! Usage: `mgpu-bench [--out DIR] [--sizes 20,24,27] [--only SUBSTRING] [--peers FILE]
//! [--cold-start]` (`--out DIR` is created when missing).

use cudarc::driver::sys::CUevent_flags;
use mgpu_benches::{
    cold_start_csv, cold_start_table, counts_covering, median, parse_cold_ms, parse_peers,
    random_layout, to_csv, to_json, to_svg, today, ColdRow, CountDist, Peers, Report, Rng, Row,
    COLD_LOADS, COLD_MS_PREFIX, COLD_START_LOG2, COLD_START_OPS,
};
use mgpu_core::{Element, EqualTo, Less, Plus};
use mgpu_runtime::{Context, Device, DeviceVec, Pending, Result};
use mgpu_scan::{ScanKind, ScanOp};

const WARMUPS: usize = 2;
const TIMED: usize = 15;

/// Median milliseconds of `f` over `TIMED` calls after `WARMUPS`, each bracketed by CUDA
/// events on the context's stream.
fn time(ctx: &Context, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let cuda = ctx.cuda_context();
    let start = cuda
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(cuda_err)?;
    let stop = cuda
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(cuda_err)?;
    for _ in 0..WARMUPS {
        f()?;
    }
    ctx.synchronize()?;
    let mut ts = Vec::with_capacity(TIMED);
    for _ in 0..TIMED {
        start.record(ctx.stream()).map_err(cuda_err)?;
        f()?;
        stop.record(ctx.stream()).map_err(cuda_err)?;
        ts.push(start.elapsed_ms(&stop).map_err(cuda_err)? as f64);
    }
    ctx.synchronize()?;
    Ok(median(&mut ts))
}

fn cuda_err(e: cudarc::driver::DriverError) -> mgpu_runtime::Error {
    mgpu_runtime::Error::Cuda(format!("{e:?}"))
}

/// A drawn offset or column as the benchmark's index type (u32 or u64 rows).
fn index<I: mgpu_core::Index>(v: u64) -> I {
    I::from_u64_wrapping(v)
}

/// Median time of a device-to-device copy of n 4-byte elements.
fn copy_ms(ctx: &Context, n: usize) -> Result<f64> {
    let a = DeviceVec::<u32, _>::zeros(ctx, n)?;
    let mut b = DeviceVec::<u32, _>::zeros(ctx, n)?;
    time(ctx, || b.as_mut_slice().copy_from_device(a.as_slice()))
}

struct Bench<'a> {
    ctx: &'a Context,
    rows: Vec<Row>,
    only: Option<String>,
}

impl Bench<'_> {
    fn wants(&self, name: &str) -> bool {
        self.only.as_ref().is_none_or(|o| name.contains(o.as_str()))
    }

    fn push(&mut self, row: Row) {
        println!(
            "{:<24} {:<5} {:<16} n=2^{:<4.1} {:>9.4} ms {:>10.3e} elem/s {:>8.1} GB/s  copy ratio {:.3}",
            row.op,
            row.ty,
            row.input,
            (row.n as f64).log2(),
            row.median_ms,
            row.elems_per_s,
            row.gbps,
            row.copy_ratio
        );
        self.rows.push(row);
    }

    /// Times `run`, a queued launch (so the timed region holds only GPU work), reads the
    /// verdict of one more run, and pushes the row of `op` on `ty`, which moves `bytes`.
    #[allow(clippy::too_many_arguments)]
    fn push_timed(
        &mut self,
        op: &str,
        ty: &str,
        input: &str,
        n: usize,
        copy: f64,
        bytes: usize,
        mut run: impl FnMut() -> Result<Pending<Context>>,
    ) -> Result<()> {
        let ms = time(self.ctx, || run().map(|_| ()))?;
        run()?.wait()?;
        self.push(Row::new(op, ty, input, n, ms, copy, bytes));
        Ok(())
    }

    fn scan<T: Element>(
        &mut self,
        n: usize,
        copy: f64,
        input: &str,
        gen: impl Fn(&mut Rng) -> T,
    ) -> Result<()>
    where
        Plus: ScanOp<T>,
    {
        let mut rng = Rng::new(0x5eed ^ n as u64);
        let host: Vec<T> = (0..n).map(|_| gen(&mut rng)).collect();
        let x = DeviceVec::from_slice(self.ctx, &host)?;
        let mut y = DeviceVec::<T, _>::uninit(self.ctx, n)?;
        let size = std::mem::size_of::<T>();
        if self.wants("scan_exclusive") {
            let ms = time(self.ctx, || scan_exclusive_into(&x, &mut y))?;
            self.push(Row::new(
                "scan_exclusive",
                T::NAME,
                input,
                n,
                ms,
                copy,
                2 * n * size,
            ));
        }
        if self.wants("reduce") {
            let mut out = DeviceVec::<T, _>::uninit(self.ctx, 1)?;
            let ms = time(self.ctx, || {
                mgpu_scan::reduce_into(x.as_slice(), out.as_mut_slice(), Plus)
            })?;
            self.push(Row::new("reduce", T::NAME, input, n, ms, copy, n * size));
        }
        Ok(())
    }
}

impl Bench<'_> {
    /// Load-balancing search (u32), interval expand (i32, f64; load-balanced and naive),
    /// interval gather and interval move (i32) over
    /// `n` outputs with counts from `dist` (issue 4). Asynchronous forms, so the timed
    /// region holds only GPU work; the validation verdict is read once after timing.
    fn intervals(&mut self, n: usize, copy: f64, dist: CountDist) -> Result<()> {
        let mut rng = Rng::new(0x1a7e ^ n as u64);
        let counts = counts_covering(n, dist, &mut rng);
        let m = counts.len();
        let mut scan = counts.clone();
        mgpu_cpu::scan_counts_exclusive_in_place(&mut scan)?;
        let scan = DeviceVec::from_slice(self.ctx, &scan)?;
        let input = dist.name();
        if self.wants("load_balance_search") {
            let mut out = DeviceVec::<u32, _>::uninit(self.ctx, n)?;
            let total = n as u32;
            // Writes n indices, reads the scan.
            let bytes = 4 * n + 4 * m;
            self.push_timed("load_balance_search", "u32", &input, n, copy, bytes, || {
                mgpu_loadbalance::load_balance_search_into(
                    scan.as_slice(),
                    total,
                    out.as_mut_slice(),
                )
            })?;
        }
        if self.wants("interval_expand") {
            self.expand::<i32>(&scan, m, n, copy, &input, false)?;
            self.expand::<f64>(&scan, m, n, copy, &input, false)?;
        }
        if self.wants("interval_expand_naive") {
            self.expand::<i32>(&scan, m, n, copy, &input, true)?;
        }
        if self.wants("interval_gather") {
            // A gather alone (no scatter): the intervals' sources in a random order, the
            // output in item order. (Its own generator: the move's layouts stay the same
            // whichever rows run.)
            let mut rng = Rng::new(0x9a7e ^ n as u64);
            let gather = DeviceVec::from_slice(self.ctx, &random_layout(&counts, &mut rng))?;
            let src = DeviceVec::<i32, _>::zeros(self.ctx, n)?;
            let mut out = DeviceVec::<i32, _>::uninit(self.ctx, n)?;
            // Reads n values, writes n, reads 2 u32 per interval.
            let bytes = 8 * n + 8 * m;
            self.push_timed("interval_gather", "i32", &input, n, copy, bytes, || {
                mgpu_intervalmove::interval_gather_into(
                    scan.as_slice(),
                    n,
                    gather.as_slice(),
                    src.as_slice().into(),
                    out.as_mut_slice(),
                )
            })?;
        }
        if self.wants("interval_move") {
            let gather = DeviceVec::from_slice(self.ctx, &random_layout(&counts, &mut rng))?;
            let scatter = DeviceVec::from_slice(self.ctx, &random_layout(&counts, &mut rng))?;
            let src = DeviceVec::<i32, _>::zeros(self.ctx, n)?;
            let mut out = DeviceVec::<i32, _>::uninit(self.ctx, n)?;
            // Reads n values, writes n, reads 3 u32 per interval.
            let bytes = 8 * n + 12 * m;
            self.push_timed("interval_move", "i32", &input, n, copy, bytes, || {
                mgpu_intervalmove::interval_move_into(
                    scan.as_slice(),
                    n,
                    gather.as_slice(),
                    scatter.as_slice(),
                    src.as_slice().into(),
                    out.as_mut_slice(),
                )
            })?;
        }
        Ok(())
    }

    fn expand<
        T: mgpu_intervalmove::IntervalData + mgpu_intervalmove::IntervalElement<u32> + Default,
    >(
        &mut self,
        scan: &DeviceVec<u32, Context>,
        m: usize,
        n: usize,
        copy: f64,
        input: &str,
        naive: bool,
    ) -> Result<()> {
        let values = DeviceVec::<T, _>::zeros(self.ctx, m)?;
        let mut out = DeviceVec::<T, _>::uninit(self.ctx, n)?;
        let size = std::mem::size_of::<T>();
        let op = if naive {
            "interval_expand_naive"
        } else {
            "interval_expand"
        };
        let bytes = size * n + (size + 4) * m;
        self.push_timed(op, T::NAME, input, n, copy, bytes, || {
            expand_into(naive, scan, n, &values, &mut out)
        })
    }
}

impl Bench<'_> {
    /// Bulk remove of a random half (each position removed with probability 1/2) and bulk
    /// insert of n/2 values at sorted random positions in [0, n] (duplicates allowed,
    /// output 1.5 n), n source elements of `T`, u32 indices (issue 5). Asynchronous forms,
    /// so the timed region holds only GPU work; the verdict is read once after timing.
    fn bulk<T: mgpu_bulk::BulkData + mgpu_bulk::BulkElement<u32>>(
        &mut self,
        n: usize,
        copy: f64,
    ) -> Result<()> {
        let mut rng = Rng::new(0xb01c ^ n as u64);
        let source = DeviceVec::<T, _>::zeros(self.ctx, n)?;
        let size = std::mem::size_of::<T>();
        if self.wants("bulk_remove") {
            let idx = remove_half(&mut rng, n);
            let m = idx.len();
            let i = DeviceVec::from_slice(self.ctx, &idx)?;
            let mut out = DeviceVec::<T, _>::uninit(self.ctx, n - m)?;
            let bytes = size * n + 4 * m + size * (n - m);
            self.push_timed(
                "bulk_remove",
                T::NAME,
                "random half",
                n,
                copy,
                bytes,
                || {
                    mgpu_bulk::bulk_remove_into(
                        source.as_slice(),
                        i.as_slice().into(),
                        out.as_mut_slice(),
                    )
                },
            )?;
        }
        if self.wants("bulk_insert") {
            let m = n / 2;
            let pos = insert_positions(&mut rng, n, m);
            let i = DeviceVec::from_slice(self.ctx, &pos)?;
            let values = DeviceVec::<T, _>::zeros(self.ctx, m)?;
            let mut out = DeviceVec::<T, _>::uninit(self.ctx, n + m)?;
            let bytes = size * n + (4 + size) * m + size * (n + m);
            self.push_timed(
                "bulk_insert",
                T::NAME,
                "n/2 sorted random",
                n,
                copy,
                bytes,
                || {
                    mgpu_bulk::bulk_insert_into(
                        values.as_slice().into(),
                        i.as_slice().into(),
                        source.as_slice(),
                        out.as_mut_slice(),
                    )
                },
            )?;
        }
        Ok(())
    }
}

impl Bench<'_> {
    /// Segmented reduction over CSR with `Plus`: n values of `T`, segment lengths uniform
    /// in [0, 2·avg] covering them (ANCHORS.md), or (`pow`, no anchor: the issue's
    /// heavy-tailed check) Pareto with alpha 1.5 and mean `avg`, starts of `I`
    /// (ANCHORS.md's rows: u32). Timed on the queued form.
    fn segreduce<T: Element, I: mgpu_loadbalance::kernels::LoadBalanceIndex + Element>(
        &mut self,
        n: usize,
        copy: f64,
        avg: u32,
        pow: bool,
    ) -> Result<()>
    where
        Plus: mgpu_segreduce::SegReduceOp<T, I>,
    {
        if !self.wants("seg_reduce_csr") {
            return Ok(());
        }
        let mut rng = Rng::new(0x5e9 ^ n as u64 ^ avg as u64 ^ ((pow as u64) << 32));
        let dist = if pow {
            CountDist::Pareto { mean: avg }
        } else {
            CountDist::Uniform { max: 2 * avg }
        };
        let mut csr = counts_covering(n, dist, &mut rng);
        mgpu_cpu::scan_counts_exclusive_in_place(&mut csr)?;
        let m = csr.len();
        let csr: Vec<I> = csr.iter().map(|&c| index(c as u64)).collect();
        let csr = DeviceVec::from_slice(self.ctx, &csr)?;
        let data = DeviceVec::<T, _>::zeros(self.ctx, n)?;
        let mut out = DeviceVec::<T, _>::uninit(self.ctx, m)?;
        let size = std::mem::size_of::<T>();
        let bytes = size * n + (std::mem::size_of::<I>() + size) * m;
        let lengths = if pow {
            format!("segments pareto(1.5) mean {avg}")
        } else {
            format!("segments mean {avg}")
        };
        let input = match std::mem::size_of::<I>() {
            4 => lengths,
            _ => format!("{lengths}, {} starts", I::NAME),
        };
        self.push_timed("seg_reduce_csr", T::NAME, &input, n, copy, bytes, || {
            mgpu_segreduce::seg_reduce_csr_into(
                data.as_slice(),
                csr.as_slice(),
                out.as_mut_slice(),
                Plus,
            )
        })?;
        // The same with the partitions made once (the seed's preprocess/apply).
        let plan = mgpu_segreduce::SegReducePlan::<T, I, _>::new(csr.as_slice(), n)?;
        self.push_timed(
            "seg_reduce_csr_apply",
            T::NAME,
            &input,
            n,
            copy,
            bytes,
            || plan.seg_reduce_into(data.as_slice(), out.as_mut_slice(), Plus),
        )
    }
}

impl Bench<'_> {
    /// CSR SpMV (binary, `Plus`/`Multiplies`), n nonzeros of `T` (ANCHORS.md): n/16 rows
    /// of lengths uniform in [0, 32] ("unif") or Pareto with alpha 1.5 ("pow"), columns
    /// uniform over a vector of one element per row, row starts and columns of `I`
    /// (ANCHORS.md's rows: u32; the same draws for u64, named in the input).
    fn spmv<T: Element, I: mgpu_loadbalance::kernels::LoadBalanceIndex + Element>(
        &mut self,
        n: usize,
        copy: f64,
        pow: bool,
    ) -> Result<()>
    where
        mgpu_segreduce::device::SpmvBinary: mgpu_segreduce::kernels::SpmvForm<T, I>,
        Plus: mgpu_segreduce::SegReduceOp<T, I>,
    {
        if !self.wants("spmv_csr") {
            return Ok(());
        }
        let mut rng = Rng::new(0x5b ^ n as u64 ^ pow as u64);
        let rows = n / 16;
        let dist = if pow {
            CountDist::Pareto { mean: 16 }
        } else {
            CountDist::Uniform { max: 32 }
        };
        let mut csr = counts_covering(n, dist, &mut rng);
        let m = csr.len();
        mgpu_cpu::scan_counts_exclusive_in_place(&mut csr)?;
        let csr: Vec<I> = csr.iter().map(|&c| index(c as u64)).collect();
        let cols: Vec<I> = (0..n).map(|_| index(rng.below(rows as u64))).collect();
        let csr = DeviceVec::from_slice(self.ctx, &csr)?;
        let cols = DeviceVec::from_slice(self.ctx, &cols)?;
        let matrix = DeviceVec::<T, _>::zeros(self.ctx, n)?;
        let x = DeviceVec::<T, _>::zeros(self.ctx, rows)?;
        let mut y = DeviceVec::<T, _>::uninit(self.ctx, m)?;
        let (size, isize) = (std::mem::size_of::<T>(), std::mem::size_of::<I>());
        let bytes = (size + isize) * n + (isize + size) * m + size * rows;
        let shape = if pow { "pow" } else { "unif" };
        let input = match isize {
            4 => format!("16 per row, {shape}"),
            _ => format!("16 per row, {shape}, {} indices", I::NAME),
        };
        self.push_timed("spmv_csr", T::NAME, &input, n, copy, bytes, || {
            mgpu_segreduce::spmv_csr_into(
                matrix.as_slice(),
                cols.as_slice(),
                csr.as_slice(),
                x.as_slice(),
                y.as_mut_slice(),
            )
        })?;
        // The same with the partitions made once (the seed's preprocess/apply).
        let plan = mgpu_segreduce::SegReducePlan::<T, I, _>::new(csr.as_slice(), n)?;
        self.push_timed("spmv_csr_apply", T::NAME, &input, n, copy, bytes, || {
            plan.spmv_into(
                matrix.as_slice(),
                cols.as_slice(),
                x.as_slice(),
                y.as_mut_slice(),
            )
        })
    }

    /// Reduce-by-key with `EqualTo` and `Plus`: n i32 keys and i32 values, a new run at
    /// each item with probability 1/avg (ANCHORS.md). Timed on the queued form (the run
    /// count stays on the device); then the plan's apply alone (the keys' passes done
    /// once).
    fn reduce_by_key(&mut self, n: usize, copy: f64, avg: u64) -> Result<()> {
        if !self.wants("reduce_by_key") {
            return Ok(());
        }
        let mut rng = Rng::new(0x4b ^ n as u64 ^ avg);
        let mut key = 0i32;
        let keys: Vec<i32> = (0..n)
            .map(|i| {
                key += (i > 0 && rng.below(avg) == 0) as i32;
                key
            })
            .collect();
        let runs = key as usize + 1;
        let keys = DeviceVec::from_slice(self.ctx, &keys)?;
        let values = DeviceVec::<i32, _>::zeros(self.ctx, n)?;
        let mut keys_out = DeviceVec::<i32, _>::uninit(self.ctx, n)?;
        let mut values_out = DeviceVec::<i32, _>::uninit(self.ctx, n)?;
        let mut count = DeviceVec::<u64, _>::uninit(self.ctx, 1)?;
        let bytes = 8 * n + 8 * runs;
        let input = format!("runs mean {avg}");
        self.push_timed("reduce_by_key", "i32", &input, n, copy, bytes, || {
            mgpu_segreduce::reduce_by_key_into(
                keys.as_slice(),
                values.as_slice(),
                keys_out.as_mut_slice(),
                values_out.as_mut_slice(),
                count.as_mut_slice(),
                EqualTo,
                Plus,
            )
        })?;
        let plan = mgpu_segreduce::ReduceByKeyPlan::new(keys.as_slice(), EqualTo)?;
        self.push_timed(
            "reduce_by_key_apply",
            "i32",
            &input,
            n,
            copy,
            4 * n + 4 * runs,
            || plan.reduce_into(values.as_slice(), values_out.as_mut_slice(), Plus),
        )
    }
}

impl Bench<'_> {
    /// Merge and mergesort (issue 18), inputs as ANCHORS.md describes them: keys uniform
    /// over the full range, pair values the original index; merge of two sorted halves;
    /// already-sorted keys. The sorts read their input and write another buffer
    /// (`mergesort_*_copy_into`, CUB's `Sort*Copy`), so every timed call sorts the same
    /// unsorted keys.
    fn merge(&mut self, n: usize, copy: f64) -> Result<()> {
        let mut rng = Rng::new(0x3e ^ n as u64);
        let random_i32: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let keys = DeviceVec::from_slice(self.ctx, &random_i32)?;
        let mut out = DeviceVec::<i32, _>::uninit(self.ctx, n)?;
        if self.wants("mergesort_keys") {
            self.push_timed("mergesort_keys", "i32", "random", n, copy, 8 * n, || {
                mgpu_merge::mergesort_keys_copy_into(keys.as_slice(), out.as_mut_slice(), Less)
            })?;
            let wide: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            let wide = DeviceVec::from_slice(self.ctx, &wide)?;
            let mut wide_out = DeviceVec::<u64, _>::uninit(self.ctx, n)?;
            self.push_timed("mergesort_keys", "u64", "random", n, copy, 16 * n, || {
                mgpu_merge::mergesort_keys_copy_into(wide.as_slice(), wide_out.as_mut_slice(), Less)
            })?;
            let mut sorted = random_i32.clone();
            sorted.sort();
            let sorted = DeviceVec::from_slice(self.ctx, &sorted)?;
            self.push_timed("mergesort_keys", "i32", "sorted", n, copy, 8 * n, || {
                mgpu_merge::mergesort_keys_copy_into(sorted.as_slice(), out.as_mut_slice(), Less)
            })?;
        }
        if self.wants("mergesort_pairs") {
            let index: Vec<i32> = (0..n as i32).collect();
            let values = DeviceVec::from_slice(self.ctx, &index)?;
            let mut values_out = DeviceVec::<i32, _>::uninit(self.ctx, n)?;
            self.push_timed(
                "mergesort_pairs",
                "i32",
                "random, values",
                n,
                copy,
                16 * n,
                || {
                    mgpu_merge::mergesort_pairs_copy_into(
                        keys.as_slice(),
                        values.as_slice(),
                        out.as_mut_slice(),
                        values_out.as_mut_slice(),
                        Less,
                    )
                },
            )?;
        }
        if self.wants("merge_keys") {
            let mut halves = random_i32.clone();
            halves[..n / 2].sort();
            halves[n / 2..].sort();
            let halves = DeviceVec::from_slice(self.ctx, &halves)?;
            let (a, b) = (halves.slice(0..n / 2)?, halves.slice(n / 2..n)?);
            self.push_timed(
                "merge_keys",
                "i32",
                "two sorted halves",
                n,
                copy,
                8 * n,
                || mgpu_merge::merge_keys_into(a, b, out.as_mut_slice(), Less),
            )?;
        }
        Ok(())
    }
}

/// Prints the context's L2 fetch granularity (`CU_LIMIT_MAX_L2_FETCH_GRANULARITY`), after
/// setting it from `MGPU_BENCH_L2_FETCH` (bytes: 0 to 128) when that is set, for measuring
/// how the benchmark rows depend on it.
fn l2_fetch_granularity(ctx: &Context) {
    use cudarc::driver::sys::{cuCtxGetLimit, cuCtxSetLimit, CUlimit};
    let limit = CUlimit::CU_LIMIT_MAX_L2_FETCH_GRANULARITY;
    if ctx.cuda_context().bind_to_thread().is_err() {
        return;
    }
    if let Some(v) = std::env::var("MGPU_BENCH_L2_FETCH")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        // SAFETY: a limit of the current context, set before any work is queued.
        let r = unsafe { cuCtxSetLimit(limit, v) };
        println!("L2 fetch granularity set to {v}: {r:?}");
    }
    let mut v = 0usize;
    // SAFETY: reads a limit of the current context into `v`.
    let r = unsafe { cuCtxGetLimit(&mut v, limit) };
    println!("L2 fetch granularity: {v} bytes ({r:?})");
}

/// Queues the exclusive sum scan of `x` into `y` (the total stays on the device).
fn scan_exclusive_into<T: Element>(
    x: &DeviceVec<T, Context>,
    y: &mut DeviceVec<T, Context>,
) -> Result<()>
where
    Plus: ScanOp<T>,
{
    mgpu_scan::scan_into(
        x.as_slice(),
        y.as_mut_slice(),
        ScanKind::Exclusive,
        None,
        Plus,
    )
}

/// Queues the interval expand of `values` by `scan` into `out`, naive (one thread per
/// interval) or load-balanced.
fn expand_into<T: mgpu_intervalmove::IntervalData + mgpu_intervalmove::IntervalElement<u32>>(
    naive: bool,
    scan: &DeviceVec<u32, Context>,
    n: usize,
    values: &DeviceVec<T, Context>,
    out: &mut DeviceVec<T, Context>,
) -> Result<mgpu_runtime::Pending<Context>> {
    let f = if naive {
        mgpu_intervalmove::interval_expand_naive_into::<Context, T, u32>
    } else {
        mgpu_intervalmove::interval_expand_into::<Context, T, u32>
    };
    f(
        scan.as_slice(),
        n,
        values.as_slice().into(),
        out.as_mut_slice(),
    )
}

/// Bulk remove's indices: each of `0..n` with probability 1/2, ascending.
fn remove_half(rng: &mut Rng, n: usize) -> Vec<u32> {
    (0..n as u32).filter(|_| rng.below(2) == 0).collect()
}

/// Bulk insert's indices: `m` sorted random positions in `[0, n]` (duplicates allowed).
fn insert_positions(rng: &mut Rng, n: usize, m: usize) -> Vec<u32> {
    let mut pos: Vec<u32> = (0..m).map(|_| rng.below(n as u64 + 1) as u32).collect();
    pos.sort_unstable();
    pos
}

/// Wall time of `call`, from just before it (the queue drained) to after a synchronize, ms.
fn first_call_ms(ctx: &Context, call: impl FnOnce() -> Result<()>) -> Result<f64> {
    ctx.synchronize()?;
    let start = std::time::Instant::now();
    call()?;
    ctx.synchronize()?;
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

/// `--cold-one OP`: opens the context, prepares OP's 2^20 input and returns the wall time
/// of OP's first call (the one that loads its kernels), ms.
fn cold_one(op: &str) -> Result<f64> {
    if !COLD_START_OPS.iter().any(|&(o, _)| o == op) {
        return Err(mgpu_runtime::Error::InvalidInput(format!(
            "--cold-one: unknown operation {op:?} (known: {:?})",
            COLD_START_OPS.map(|(o, _)| o)
        )));
    }
    let ctx = Context::new(0)?;
    println!("device: {}", ctx.info().name);
    let n = 1usize << COLD_START_LOG2;
    let mut rng = Rng::new(0xc01d ^ n as u64);
    let ctx = &ctx;
    match op {
        "scan_exclusive" | "reduce" => {
            let host: Vec<i32> = (0..n).map(|_| rng.below(16) as i32).collect();
            let x = DeviceVec::from_slice(ctx, &host)?;
            if op == "reduce" {
                let mut out = DeviceVec::<i32, _>::uninit(ctx, 1)?;
                first_call_ms(ctx, || {
                    mgpu_scan::reduce_into(x.as_slice(), out.as_mut_slice(), Plus)
                })
            } else {
                let mut y = DeviceVec::<i32, _>::uninit(ctx, n)?;
                first_call_ms(ctx, || scan_exclusive_into(&x, &mut y))
            }
        }
        "load_balance_search" | "interval_expand" | "interval_expand_naive" | "interval_move" => {
            let counts = counts_covering(n, CountDist::Uniform { max: 20 }, &mut rng);
            let m = counts.len();
            let mut scan = counts.clone();
            mgpu_cpu::scan_counts_exclusive_in_place(&mut scan)?;
            let scan = DeviceVec::from_slice(ctx, &scan)?;
            match op {
                "load_balance_search" => {
                    let mut out = DeviceVec::<u32, _>::uninit(ctx, n)?;
                    first_call_ms(ctx, || {
                        mgpu_loadbalance::load_balance_search(
                            scan.as_slice(),
                            n as u32,
                            out.as_mut_slice(),
                        )
                    })
                }
                "interval_move" => {
                    let gather = DeviceVec::from_slice(ctx, &random_layout(&counts, &mut rng))?;
                    let scatter = DeviceVec::from_slice(ctx, &random_layout(&counts, &mut rng))?;
                    let src = DeviceVec::<i32, _>::zeros(ctx, n)?;
                    let mut out = DeviceVec::<i32, _>::uninit(ctx, n)?;
                    first_call_ms(ctx, || {
                        mgpu_intervalmove::interval_move(
                            scan.as_slice(),
                            n,
                            gather.as_slice(),
                            scatter.as_slice(),
                            src.as_slice().into(),
                            out.as_mut_slice(),
                        )
                    })
                }
                _ => {
                    let values = DeviceVec::<i32, _>::zeros(ctx, m)?;
                    let mut out = DeviceVec::<i32, _>::uninit(ctx, n)?;
                    let naive = op == "interval_expand_naive";
                    first_call_ms(ctx, || {
                        expand_into(naive, &scan, n, &values, &mut out)?.wait()
                    })
                }
            }
        }
        "bulk_remove" => {
            let source = DeviceVec::<i32, _>::zeros(ctx, n)?;
            let idx = remove_half(&mut rng, n);
            let i = DeviceVec::from_slice(ctx, &idx)?;
            let mut out = DeviceVec::<i32, _>::uninit(ctx, n - idx.len())?;
            first_call_ms(ctx, || {
                mgpu_bulk::bulk_remove(source.as_slice(), i.as_slice().into(), out.as_mut_slice())
            })
        }
        "bulk_insert" => {
            let source = DeviceVec::<i32, _>::zeros(ctx, n)?;
            let m = n / 2;
            let pos = insert_positions(&mut rng, n, m);
            let i = DeviceVec::from_slice(ctx, &pos)?;
            let values = DeviceVec::<i32, _>::zeros(ctx, m)?;
            let mut out = DeviceVec::<i32, _>::uninit(ctx, n + m)?;
            first_call_ms(ctx, || {
                mgpu_bulk::bulk_insert(
                    values.as_slice().into(),
                    i.as_slice().into(),
                    source.as_slice(),
                    out.as_mut_slice(),
                )
            })
        }
        _ => unreachable!("checked above"),
    }
}

/// One cold-start child: this binary with `--cold-one op`, the JIT cache off and the
/// kernel modules from `load` (`MGPU_KERNEL_LOAD`, one of [`COLD_LOADS`]). Returns (first
/// call ms, process ms), or `None` when it failed (its output is shown).
fn cold_child(exe: &std::path::Path, op: &str, load: &str) -> Option<(f64, f64)> {
    let start = std::time::Instant::now();
    let out = std::process::Command::new(exe)
        .args(["--cold-one", op])
        .env("CUDA_CACHE_DISABLE", "1")
        .env("MGPU_KERNEL_LOAD", load)
        .output();
    let process_ms = start.elapsed().as_secs_f64() * 1e3;
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cannot run {} --cold-one {op}: {e}", exe.display());
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    match parse_cold_ms(&stdout) {
        Some(ms) if out.status.success() => {
            println!("{op:<22} {load:<7} first call {ms:>10.3} ms, process {process_ms:>10.3} ms");
            Some((ms, process_ms))
        }
        _ => {
            eprintln!(
                "{op} (MGPU_KERNEL_LOAD={load}) FAILED ({}):\n{stdout}{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            None
        }
    }
}

/// `--cold-start`: every operation of [`COLD_START_OPS`] that `only` selects, each in a
/// fresh process per module source of [`COLD_LOADS`]. Prints the table, writes
/// `cold_start.csv` to `out_dir`; false when a run failed.
fn cold_start(out_dir: &std::path::Path, only: Option<&str>) -> bool {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("mgpu-bench --cold-start: cannot find its own executable: {e}");
            return false;
        }
    };
    println!(
        "cold start: each operation's first call in a fresh process, CUDA_CACHE_DISABLE=1, \
         n = 2^{COLD_START_LOG2}, kernels from MGPU_KERNEL_LOAD = {COLD_LOADS:?}"
    );
    let mut rows = Vec::new();
    for (op, ty) in COLD_START_OPS {
        if only.is_some_and(|o| !op.contains(o)) {
            continue;
        }
        let runs = COLD_LOADS.map(|load| cold_child(&exe, op, load));
        rows.push(ColdRow {
            op: op.to_string(),
            ty: ty.to_string(),
            n: 1 << COLD_START_LOG2,
            first_call_ms: runs.map(|r| r.map(|r| r.0)),
            process_ms: runs.map(|r| r.map(|r| r.1)),
        });
    }
    print!("{}", cold_start_table(&rows));
    let path = out_dir.join("cold_start.csv");
    let mut ok = true;
    if let Err(e) = std::fs::write(&path, cold_start_csv(&rows)) {
        eprintln!("cannot write {}: {e}", path.display());
        ok = false;
    }
    ok && rows
        .iter()
        .all(|r| r.first_call_ms.iter().all(Option::is_some))
}

/// `--peers FILE`: the peers' output, read and parsed before anything is measured; exits
/// when it cannot be.
fn read_peers(path: &str) -> Peers {
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {path}: {e}"))
        .and_then(|text| parse_peers(&text).map_err(|e| format!("{path}: {e}")));
    parsed.unwrap_or_else(|e| {
        eprintln!("mgpu-bench --peers: {e}");
        std::process::exit(1);
    })
}

/// Writes mgpu's rows with the peers' as `report.csv`, `report.json`, `report.md` and
/// `report-<family>.svg` through `write`, and prints the markdown table.
fn write_report(device: &str, rows: &[Row], peers: &Peers, write: impl Fn(&str, String)) {
    let report = Report::new(device, &today(), rows, peers);
    let kept = report.rows.len() - rows.len();
    if kept < peers.rows.len() {
        println!(
            "report: {} of the peers' {} rows left out (families or sizes not measured here)",
            peers.rows.len() - kept,
            peers.rows.len()
        );
    }
    let table = report.markdown();
    print!("{table}");
    write("report.csv", report.csv());
    write("report.json", report.json());
    write("report.md", table);
    for family in report.families() {
        write(&format!("report-{family}.svg"), report.svg(family));
    }
}

fn main() {
    let mut out_dir = String::from(".");
    let mut sizes = vec![20u32, 24, 27];
    let mut only = None;
    let mut cold = false;
    let mut peers_file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out_dir = args.next().expect("--out DIR"),
            "--cold-start" => cold = true,
            "--cold-one" => {
                // Hidden: one child of --cold-start.
                let op = args.next().expect("--cold-one OP");
                match cold_one(&op) {
                    Ok(ms) => {
                        println!("{COLD_MS_PREFIX}{ms:.3}");
                        return;
                    }
                    Err(e) => {
                        eprintln!("mgpu-bench --cold-one {op} failed: {e}");
                        std::process::exit(1);
                    }
                }
            }
            "--sizes" => {
                sizes = args
                    .next()
                    .expect("--sizes 20,24")
                    .split(',')
                    .map(|s| s.parse().expect("log2 size"))
                    .collect()
            }
            "--only" => only = args.next(),
            "--peers" => peers_file = Some(args.next().expect("--peers FILE")),
            _ => {
                eprintln!(
                    "usage: mgpu-bench [--out DIR] [--sizes 20,24,27] [--only SUBSTRING] \
                     [--peers FILE] [--cold-start]\n  \
                     --peers FILE: the output of benches/cuda/peers.cu; adds report.csv, \
                     report.json, report.md and report-<family>.svg to --out"
                );
                std::process::exit(2);
            }
        }
    }
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("mgpu-bench: cannot create --out {out_dir}: {e}");
        std::process::exit(1);
    }
    if cold && peers_file.is_some() {
        eprintln!("mgpu-bench: --peers goes with the benchmark rows, not --cold-start");
        std::process::exit(2);
    }
    let peers = peers_file.as_deref().map(read_peers);
    if cold {
        let ok = cold_start(std::path::Path::new(&out_dir), only.as_deref());
        std::process::exit(if ok { 0 } else { 1 });
    }
    let ctx = match Context::new(0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mgpu-bench needs a CUDA GPU: {e}");
            std::process::exit(1);
        }
    };
    l2_fetch_granularity(&ctx);
    let info = ctx.info().clone();
    println!(
        "device: {} (sm_{}{}, {} SMs)",
        info.name, info.compute_capability.0, info.compute_capability.1, info.sm_count
    );
    if let Some(p) = peers.as_ref().filter(|p| !p.same_device(&info.name)) {
        eprintln!(
            "mgpu-bench: warning: the peers ran on {:?}, mgpu runs on {:?}: their copy ratios \
             are from another GPU",
            p.device, info.name
        );
    }
    let mut b = Bench {
        ctx: &ctx,
        rows: Vec::new(),
        only,
    };
    let run = |b: &mut Bench| -> Result<()> {
        for &lg in &sizes {
            let n = 1usize << lg;
            let copy = copy_ms(b.ctx, n)?;
            println!("copy of 2^{lg} 4-byte elements: {copy:.4} ms");
            b.scan::<i32>(n, copy, "uniform[0,16)", |r| r.below(16) as i32)?;
            b.scan::<f64>(n, copy, "uniform[0,16)", |r| r.below(16) as f64)?;
            // The 8-byte integer look-back, beside the ordered f64 look-back of the same
            // bytes (no anchor: a diagnostic row).
            b.scan::<i64>(n, copy, "uniform[0,16)", |r| r.below(16) as i64)?;
            for dist in [
                CountDist::Uniform { max: 20 },
                CountDist::Uniform { max: 2 },
                CountDist::HeavyTailed,
            ] {
                b.intervals(n, copy, dist)?;
            }
            b.bulk::<i32>(n, copy)?;
            b.bulk::<i64>(n, copy)?;
            for avg in [10, 1000] {
                b.segreduce::<i32, u32>(n, copy, avg, false)?;
                b.segreduce::<f64, u32>(n, copy, avg, false)?;
                b.segreduce::<i32, u64>(n, copy, avg, false)?;
                b.segreduce::<i32, u32>(n, copy, avg, true)?;
                b.segreduce::<f64, u32>(n, copy, avg, true)?;
            }
            b.spmv::<f64, u32>(n, copy, false)?;
            b.spmv::<f64, u32>(n, copy, true)?;
            b.spmv::<f32, u32>(n, copy, false)?;
            b.spmv::<f64, u64>(n, copy, false)?;
            b.spmv::<i64, u32>(n, copy, false)?;
            for avg in [10, 1000] {
                b.reduce_by_key(n, copy, avg)?;
            }
            b.merge(n, copy)?;
        }
        Ok(())
    };
    if let Err(e) = run(&mut b) {
        eprintln!("benchmark failed: {e}");
        std::process::exit(1);
    }
    let write = |name: &str, text: String| {
        let p = std::path::Path::new(&out_dir).join(name);
        if let Err(e) = std::fs::write(&p, text) {
            eprintln!("cannot write {}: {e}", p.display());
        }
    };
    write("bench.csv", to_csv(&b.rows));
    write("bench.json", to_json(&info.name, &b.rows));
    write("bench.svg", to_svg(&info.name, &b.rows));
    if let Some(peers) = &peers {
        write_report(&info.name, &b.rows, peers, write);
    }
}
