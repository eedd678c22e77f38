//! # mgpu-benches: benchmark support
//!
//! Layer: **tooling**. The GPU benchmark binary `mgpu-bench` (DESIGN §6: median of 15 timed
//! calls after 2 warm-ups with CUDA events, and the **copy ratio**, the median time over the
//! median time of a device-to-device copy of `n` 4-byte elements in the same process) and
//! the criterion benches of the CPU backend. This library holds what the binary shares:
//! input generators, the row type and the CSV/JSON/SVG writers, the cold-start
//! table ([`ColdRow`], [`COLD_START_OPS`]), and the side-by-side report of mgpu and its
//! peers ([`report`]: `mgpu-bench --peers FILE` reads the output of `benches/cuda/peers.cu`
//! with [`parse_peers`] and writes [`Report`]'s CSV, JSON, markdown table and per-family
//! SVG charts).
//!
//! # Examples
//!
//! ```
//! use mgpu_benches::{Rng, Row};
//! let mut r = Rng::new(1);
//! let x = r.below(16);
//! assert!(x < 16);
//! let row = Row::new("scan_exclusive", "i32", "uniform[0,16)", 1 << 20, 0.01, 0.01, 8 << 20);
//! assert_eq!(row.copy_ratio, 1.0);
//! ```

use std::fmt::Write as _;

use svg::{svg_bar, svg_open, xml_escape};
use table::{case_fields, csv_table, json_table, Field, CASE_COLUMNS};

pub mod report;
mod svg;
mod table;

pub use report::{
    civil_date, family_of, parse_peers, today, Peers, Report, ReportRow, BOUND, FAMILIES, MGPU,
};

/// Deterministic pseudo-random numbers (splitmix64), so every run benchmarks the same input.
pub struct Rng(u64);

impl Rng {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, bound)`.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One benchmark result.
#[derive(Clone, Debug)]
pub struct Row {
    /// Operation name.
    pub op: String,
    /// Element type(s).
    pub ty: String,
    /// Input distribution.
    pub input: String,
    /// The size parameter n (DESIGN §6 / ANCHORS.md say which count it is per operation).
    pub n: usize,
    /// Median time of the operation, ms.
    pub median_ms: f64,
    /// Median time of a device-to-device copy of n 4-byte elements, ms.
    pub copy_ms: f64,
    /// `median_ms / copy_ms`.
    pub copy_ratio: f64,
    /// n per second.
    pub elems_per_s: f64,
    /// Bytes the operation must move (read + write) per second, GB/s.
    pub gbps: f64,
}

impl Row {
    /// A row from its measurements; `bytes` is the minimum traffic of the operation.
    pub fn new(
        op: &str,
        ty: &str,
        input: &str,
        n: usize,
        median_ms: f64,
        copy_ms: f64,
        bytes: usize,
    ) -> Row {
        Row {
            op: op.into(),
            ty: ty.into(),
            input: input.into(),
            n,
            median_ms,
            copy_ms,
            copy_ratio: median_ms / copy_ms,
            elems_per_s: n as f64 / (median_ms * 1e-3),
            gbps: bytes as f64 / (median_ms * 1e-3) / 1e9,
        }
    }

    /// The column names of [`to_csv`] and [`to_json`], in the order of the row's fields.
    ///
    /// ```
    /// assert_eq!(mgpu_benches::Row::COLUMNS[6], "copy_ratio");
    /// ```
    pub const COLUMNS: [&str; 9] = [
        CASE_COLUMNS[0],
        CASE_COLUMNS[1],
        CASE_COLUMNS[2],
        CASE_COLUMNS[3],
        "median_ms",
        "copy_ms",
        "copy_ratio",
        "elems_per_s",
        "gb_per_s",
    ];

    /// The row's fields, formatted, in the order of [`Row::COLUMNS`].
    fn fields(&self) -> Vec<Field<'_>> {
        let mut f = case_fields(&self.op, &self.ty, &self.input, self.n);
        f.extend([
            Field::Num(format!("{:.6}", self.median_ms)),
            Field::Num(format!("{:.6}", self.copy_ms)),
            Field::Num(format!("{:.4}", self.copy_ratio)),
            Field::Num(format!("{:.4e}", self.elems_per_s)),
            Field::Num(format!("{:.2}", self.gbps)),
        ]);
        f
    }
}

/// The median of `xs` (sorted in place).
///
/// ```
/// assert_eq!(mgpu_benches::median(&mut [3.0, 1.0, 2.0]), 2.0);
/// ```
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    }
}

/// `n` as `2^k` when it is a power of two, else in decimal.
///
/// ```
/// assert_eq!(mgpu_benches::size_label(1 << 24), "2^24");
/// assert_eq!(mgpu_benches::size_label(1000), "1000");
/// ```
pub fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// The rows as CSV (RFC 4180: text fields quoted, since inputs such as `uniform[0,16)`
/// hold commas).
///
/// ```
/// let r = mgpu_benches::Row::new("reduce", "i32", "uniform[0,16)", 4, 1.0, 2.0, 16);
/// let line = mgpu_benches::to_csv(&[r]).lines().nth(1).unwrap().to_string();
/// assert!(line.starts_with("\"reduce\",\"i32\",\"uniform[0,16)\",4,"), "{line}");
/// ```
pub fn to_csv(rows: &[Row]) -> String {
    let fields: Vec<_> = rows.iter().map(Row::fields).collect();
    csv_table(&Row::COLUMNS, &fields)
}

/// The rows as a JSON document, `{"device": ..., "rows": [{...}, ...]}` (strings escaped).
///
/// ```
/// let r = mgpu_benches::Row::new("reduce", "i32", "u", 4, 1.0, 2.0, 16);
/// let json = mgpu_benches::to_json("H100 \"SXM\"", &[r]);
/// assert!(json.contains("\"copy_ratio\": 0.5000"));
/// assert!(json.contains("\"device\": \"H100 \\\"SXM\\\"\","));
/// ```
pub fn to_json(device: &str, rows: &[Row]) -> String {
    let fields: Vec<_> = rows.iter().map(Row::fields).collect();
    json_table(&[("device", device)], &Row::COLUMNS, &fields)
}

/// A horizontal bar chart of throughput (GB/s), one bar per row, as SVG.
///
/// ```
/// let r = mgpu_benches::Row::new("reduce", "i32", "u", 4, 1.0, 2.0, 16);
/// let svg = mgpu_benches::to_svg("H100 <SXM>", &[r]);
/// assert!(svg.starts_with("<svg") && svg.contains("H100 &lt;SXM&gt;"));
/// ```
pub fn to_svg(device: &str, rows: &[Row]) -> String {
    let bar_h = 18.0;
    let left = 360.0;
    let width = 900;
    let height = 40 + rows.len() * 24 + 20;
    let max = rows.iter().map(|r| r.gbps).fold(1.0, f64::max);
    let mut s = svg_open(
        width,
        height,
        &format!("mgpu throughput on {device} (GB/s moved; label: copy ratio)"),
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 36.0 + i as f64 * (bar_h + 6.0);
        let w = ((width as f64 - left - 80.0) * r.gbps / max).max(1.0);
        let _ = writeln!(
            s,
            "<text x=\"10\" y=\"{}\">{} {} n={}</text>",
            y + 13.0,
            xml_escape(&r.op),
            xml_escape(&r.ty),
            size_label(r.n)
        );
        let label = format!("{:.0} GB/s ({:.2})", r.gbps, r.copy_ratio);
        svg_bar(&mut s, left, y, w, bar_h, "#4a7ab5", &r.input, &label);
    }
    s.push_str("</svg>\n");
    s
}

/// The operations `mgpu-bench --cold-start` times, as (operation, element type), with
/// the operation names of the benchmark rows: each one's first call in a fresh process
/// with the driver's JIT cache off (`CUDA_CACHE_DISABLE=1`).
///
/// ```
/// assert!(mgpu_benches::COLD_START_OPS.contains(&("scan_exclusive", "i32")));
/// ```
pub const COLD_START_OPS: [(&str, &str); 8] = [
    ("scan_exclusive", "i32"),
    ("reduce", "i32"),
    ("load_balance_search", "u32"),
    ("interval_expand", "i32"),
    ("interval_expand_naive", "i32"),
    ("interval_move", "i32"),
    ("bulk_remove", "i32"),
    ("bulk_insert", "i32"),
];

/// The input size of a cold-start call, log2 (2^20: the call's JIT time dominates).
///
/// ```
/// assert_eq!(1usize << mgpu_benches::COLD_START_LOG2, 1 << 20);
/// ```
pub const COLD_START_LOG2: u32 = 20;

/// What a cold-start child process prints before the milliseconds of its first call.
///
/// ```
/// assert_eq!(mgpu_benches::COLD_MS_PREFIX, "cold-start first call ms: ");
/// ```
pub const COLD_MS_PREFIX: &str = "cold-start first call ms: ";

/// The milliseconds a cold-start child printed (its last line starting with
/// [`COLD_MS_PREFIX`]), or `None` when it printed none.
///
/// ```
/// let out = "device: H100\ncold-start first call ms: 41.250\n";
/// assert_eq!(mgpu_benches::parse_cold_ms(out), Some(41.25));
/// assert_eq!(mgpu_benches::parse_cold_ms("benchmark failed"), None);
/// ```
pub fn parse_cold_ms(stdout: &str) -> Option<f64> {
    stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(COLD_MS_PREFIX))
        .and_then(|v| v.trim().parse().ok())
}

/// The kernel module sources a cold start is measured with, the values of
/// `MGPU_KERNEL_LOAD`: the families' ahead-of-time cubins (the runtime's default, on the
/// GPUs they are built for), one JIT-compiled PTX module per kernel entry (the default
/// elsewhere), and the families' whole PTX (as before per-entry loading).
///
/// ```
/// assert_eq!(mgpu_benches::COLD_LOADS, ["cubin", "entry", "family"]);
/// ```
pub const COLD_LOADS: [&str; 3] = ["cubin", "entry", "family"];

/// One row of the cold-start table: an operation's first call in a fresh process with the
/// JIT cache off, once per module source of [`COLD_LOADS`] (in that order). `None`: that
/// run failed.
///
/// ```
/// let row = mgpu_benches::ColdRow {
///     op: "reduce".into(),
///     ty: "i32".into(),
///     n: 1 << 20,
///     first_call_ms: [Some(2.0), Some(40.0), Some(6400.0)],
///     process_ms: [Some(300.0), Some(400.0), Some(6800.0)],
/// };
/// assert_eq!(row.first_call_ms[0], Some(2.0)); // cubin
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ColdRow {
    /// Operation name (as in [`COLD_START_OPS`]).
    pub op: String,
    /// Element type.
    pub ty: String,
    /// Input size.
    pub n: usize,
    /// Per source of [`COLD_LOADS`]: wall time of the first call (from just before it to
    /// after a synchronize), ms.
    pub first_call_ms: [Option<f64>; 3],
    /// Per source of [`COLD_LOADS`]: wall time of the whole child process (driver start,
    /// context, input, the call), ms.
    pub process_ms: [Option<f64>; 3],
}

/// Milliseconds with one decimal, or `failed`.
fn ms_or_failed(v: Option<f64>) -> String {
    v.map_or_else(|| "failed".to_string(), |v| format!("{v:.1}"))
}

/// The cold-start rows as CSV: `op,type,n`, then per source `s` of [`COLD_LOADS`]
/// `first_call_ms_s`, then per source `process_ms_s` (a failed run: an empty field).
///
/// ```
/// let row = mgpu_benches::ColdRow {
///     op: "scan_exclusive".into(), ty: "i32".into(), n: 1 << 20,
///     first_call_ms: [Some(1.25), Some(35.5), None],
///     process_ms: [Some(250.0), Some(300.0), None],
/// };
/// let csv = mgpu_benches::cold_start_csv(&[row]);
/// assert!(csv.starts_with("op,type,n,first_call_ms_cubin,first_call_ms_entry,"));
/// assert_eq!(
///     csv.lines().nth(1),
///     Some("\"scan_exclusive\",\"i32\",1048576,1.250,35.500,,250.000,300.000,")
/// );
/// ```
pub fn cold_start_csv(rows: &[ColdRow]) -> String {
    let mut columns = vec!["op".to_string(), "type".into(), "n".into()];
    for what in ["first_call_ms", "process_ms"] {
        columns.extend(COLD_LOADS.map(|load| format!("{what}_{load}")));
    }
    let fields: Vec<Vec<Field>> = rows
        .iter()
        .map(|r| {
            let mut f = vec![
                Field::Text(&r.op),
                Field::Text(&r.ty),
                Field::Num(r.n.to_string()),
            ];
            let ms = |v: &Option<f64>| Field::Num(v.map(|v| format!("{v:.3}")).unwrap_or_default());
            f.extend(r.first_call_ms.iter().chain(&r.process_ms).map(ms));
            f
        })
        .collect();
    csv_table(&columns, &fields)
}

/// The cold-start rows as a plain-text table for the terminal: the first call's ms per
/// source of [`COLD_LOADS`], then the whole process's.
///
/// ```
/// let row = mgpu_benches::ColdRow {
///     op: "reduce".into(), ty: "i32".into(), n: 1 << 20,
///     first_call_ms: [Some(2.0), Some(40.0), Some(6400.0)],
///     process_ms: [Some(300.0), Some(400.0), None],
/// };
/// let table = mgpu_benches::cold_start_table(&[row]);
/// assert!(table.lines().next().unwrap().starts_with("operation"));
/// assert!(table.contains("6400.0") && table.contains("failed"));
/// ```
pub fn cold_start_table(rows: &[ColdRow]) -> String {
    let mut s = format!("{:<22} {:<5} {:>5}", "operation", "type", "n");
    for what in ["first call", "process"] {
        for load in COLD_LOADS {
            let _ = write!(s, " {:>20}", format!("{what}, {load} ms"));
        }
    }
    s.push('\n');
    for r in rows {
        let _ = write!(s, "{:<22} {:<5} {:>5}", r.op, r.ty, size_label(r.n));
        for &v in r.first_call_ms.iter().chain(&r.process_ms) {
            let _ = write!(s, " {:>20}", ms_or_failed(v));
        }
        s.push('\n');
    }
    s
}

/// How work-item counts are drawn (issue 4's benchmark distributions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CountDist {
    /// Uniform in `[0, max]` (mean `max / 2`).
    Uniform {
        /// Largest count.
        max: u32,
    },
    /// 90% zeros, the rest `floor(Pareto(alpha 1.5, scale 33.3))` capped at 2^20 (mean about
    /// 10), plus one planted count of 2^20 at a random position.
    HeavyTailed,
    /// `floor(Pareto(alpha 1.5, scale mean / 3))` capped at 2^20: SpMV's "pow" row lengths
    /// (ANCHORS.md), mean about `mean`.
    Pareto {
        /// The mean the scale is set for.
        mean: u32,
    },
}

impl CountDist {
    /// A short name for benchmark rows.
    ///
    /// ```
    /// assert_eq!(mgpu_benches::CountDist::Uniform { max: 20 }.name(), "uniform[0,20]");
    /// assert_eq!(mgpu_benches::CountDist::Pareto { mean: 16 }.name(), "pareto(1.5) mean 16");
    /// ```
    pub fn name(&self) -> String {
        match self {
            CountDist::Uniform { max } => format!("uniform[0,{max}]"),
            CountDist::HeavyTailed => "heavy-tailed".into(),
            CountDist::Pareto { mean } => format!("pareto(1.5) mean {mean}"),
        }
    }

    fn draw(&self, rng: &mut Rng) -> u32 {
        match *self {
            CountDist::Uniform { max } => rng.below(max as u64 + 1) as u32,
            CountDist::HeavyTailed => {
                if rng.below(10) != 0 {
                    0
                } else {
                    let u = 1.0 - rng.unit(); // (0, 1]
                    let x = 33.3 / u.powf(1.0 / 1.5);
                    (x.floor() as u64).min(1 << 20) as u32
                }
            }
            CountDist::Pareto { mean } => {
                let u = 1.0 - rng.unit(); // (0, 1]
                let x = mean as f64 / 3.0 / u.powf(1.0 / 1.5);
                (x.floor() as u64).min(1 << 20) as u32
            }
        }
    }
}

/// Counts drawn from `dist` until they cover exactly `total` work items (the last count is
/// cut), with the heavy-tailed distribution's planted count of 2^20 (when `total` allows)
/// at a random position.
///
/// ```
/// use mgpu_benches::{counts_covering, CountDist, Rng};
/// let c = counts_covering(1000, CountDist::Uniform { max: 20 }, &mut Rng::new(1));
/// assert_eq!(c.iter().map(|&x| x as u64).sum::<u64>(), 1000);
/// ```
pub fn counts_covering(total: usize, dist: CountDist, rng: &mut Rng) -> Vec<u32> {
    let planted = if dist == CountDist::HeavyTailed && total >= 1 << 21 {
        1usize << 20
    } else {
        0
    };
    let mut left = total - planted;
    let mut counts = Vec::new();
    while left > 0 {
        let c = (dist.draw(rng) as usize).min(left);
        counts.push(c as u32);
        left -= c;
    }
    if planted > 0 {
        let at = rng.below(counts.len() as u64 + 1) as usize;
        counts.insert(at, planted as u32);
    }
    counts
}

/// Start offsets of intervals of the given `counts` laid out back to back in a random
/// order (issue 4's interval-move layout: gather and scatter use two different orders).
///
/// ```
/// use mgpu_benches::{random_layout, Rng};
/// let starts = random_layout(&[2, 0, 3], &mut Rng::new(7));
/// let mut ends: Vec<(u32, u32)> = starts.iter().zip([2u32, 0, 3]).map(|(&s, c)| (s, s + c)).collect();
/// ends.sort();
/// assert_eq!(ends.iter().map(|e| e.1 - e.0).sum::<u32>(), 5);
/// assert!(ends.iter().all(|e| e.1 <= 5));
/// ```
pub fn random_layout(counts: &[u32], rng: &mut Rng) -> Vec<u32> {
    let mut order: Vec<usize> = (0..counts.len()).collect();
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut starts = vec![0u32; counts.len()];
    let mut at = 0u32;
    for &o in &order {
        starts[o] = at;
        at += counts[o];
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_have_the_stated_means() {
        let mut rng = Rng::new(3);
        for (dist, lo, hi) in [
            (CountDist::Uniform { max: 20 }, 9.5, 10.5),
            (CountDist::Uniform { max: 2 }, 0.9, 1.1),
            (CountDist::HeavyTailed, 5.0, 20.0),
        ] {
            let total = 1 << 22;
            let c = counts_covering(total, dist, &mut rng);
            assert_eq!(c.iter().map(|&x| x as u64).sum::<u64>(), total as u64);
            let mean = total as f64 / c.len() as f64;
            assert!(mean > lo && mean < hi, "{dist:?}: mean {mean}");
        }
        let c = counts_covering(1 << 22, CountDist::HeavyTailed, &mut rng);
        assert!(c.contains(&(1 << 20)), "planted count");
        assert!(
            c.iter().filter(|&&x| x == 0).count() * 10 > c.len() * 8,
            "about 90% zeros"
        );
    }

    #[test]
    fn cold_start_csv_has_a_field_per_column_and_marks_failures_empty() {
        let rows: Vec<ColdRow> = COLD_START_OPS
            .iter()
            .enumerate()
            .map(|(i, (op, ty))| ColdRow {
                op: op.to_string(),
                ty: ty.to_string(),
                n: 1 << COLD_START_LOG2,
                first_call_ms: [
                    (i % 3 != 0).then_some(10.0 + i as f64),
                    Some(50.0),
                    Some(1000.0),
                ],
                process_ms: [(i % 3 != 0).then_some(300.0), Some(350.0), Some(1300.0)],
            })
            .collect();
        let csv = cold_start_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), COLD_START_OPS.len() + 1);
        let columns = lines[0].split(',').count();
        assert_eq!(columns, 3 + 2 * COLD_LOADS.len());
        for (line, row) in lines[1..].iter().zip(&rows) {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), columns, "{line}");
            assert_eq!(fields[0], format!("\"{}\"", row.op));
            assert_eq!(
                fields[3].is_empty(),
                row.first_call_ms[0].is_none(),
                "{line}"
            );
            assert_eq!(fields[6].is_empty(), row.process_ms[0].is_none(), "{line}");
        }
        let table = cold_start_table(&rows);
        assert_eq!(table.lines().count(), rows.len() + 1);
        assert!(table.lines().nth(1).unwrap().contains("failed"));
        assert!(
            table.lines().nth(2).unwrap().contains(" 11.0 "),
            "cubin, row 1"
        );
    }

    #[test]
    fn cold_start_ops_are_unique_and_parse_takes_the_last_line() {
        let mut ops: Vec<&str> = COLD_START_OPS.iter().map(|(o, _)| *o).collect();
        ops.sort_unstable();
        ops.dedup();
        assert_eq!(ops.len(), COLD_START_OPS.len());
        let out = format!("{COLD_MS_PREFIX}1.5\nnoise\n{COLD_MS_PREFIX}2.25\n");
        assert_eq!(parse_cold_ms(&out), Some(2.25));
        assert_eq!(parse_cold_ms(&format!("{COLD_MS_PREFIX}x\n")), None);
    }

    #[test]
    fn layouts_tile_the_output_exactly() {
        let mut rng = Rng::new(9);
        let counts = counts_covering(10_000, CountDist::Uniform { max: 20 }, &mut rng);
        let a = random_layout(&counts, &mut rng);
        let b = random_layout(&counts, &mut rng);
        assert_ne!(a, b);
        for starts in [a, b] {
            let mut covered = vec![false; 10_000];
            for (s, c) in starts.iter().zip(&counts) {
                for k in *s..*s + *c {
                    assert!(!covered[k as usize]);
                    covered[k as usize] = true;
                }
            }
            assert!(covered.iter().all(|&x| x));
        }
    }
}
