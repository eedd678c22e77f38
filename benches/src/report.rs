//! The side-by-side report: mgpu's benchmark rows beside its peers' from
//! `benches/cuda/peers.cu` (CUB, cuSPARSE, and `bound`, a plain-CUDA kernel of each row's
//! minimal memory traffic), timed the same way on the same GPU.
//!
//! [`parse_peers`] reads the peers binary's output, [`Report::new`] joins it with mgpu's
//! [`Row`]s, and the report writes itself as CSV ([`Report::csv`]), JSON
//! ([`Report::json`]), a markdown table for README.md ([`Report::markdown`]) and one SVG
//! chart per family of operations ([`Report::svg`], families by [`family_of`]).
//!
//! # Examples
//!
//! ```
//! use mgpu_benches::{parse_peers, Report, Row};
//! let peers = parse_peers(
//!     "# device\tNVIDIA H100\nrow\treduce\ti32\tu\t1048576\tcub\t0.012\t1.2\n",
//! )?;
//! let mgpu = [Row::new("reduce", "i32", "u", 1 << 20, 0.01, 0.01, 4 << 20)];
//! let report = Report::new("NVIDIA H100", "2026-11-30", &mgpu, &peers);
//! assert_eq!(report.rows.len(), 2);
//! assert_eq!(report.families(), ["scan"]);
//! assert!(report.markdown().contains("| reduce | i32 | u | 2^20 | 1.00 | 1.20 (cub) | - | 0.83 |"));
//! # Ok::<(), String>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::svg::{svg_bar, svg_open, xml_escape};
use crate::table::{case_fields, csv_table, json_table, Field, CASE_COLUMNS};
use crate::{size_label, Row};

/// The library name of mgpu's own rows in a report.
///
/// ```
/// let r = mgpu_benches::Row::new("reduce", "i32", "u", 4, 1.0, 2.0, 16);
/// assert_eq!(mgpu_benches::ReportRow::from(&r).library, mgpu_benches::MGPU);
/// ```
pub const MGPU: &str = "mgpu";

/// The library name of the peers' bound rows: a plain-CUDA kernel that moves the row's
/// minimal memory traffic and nothing else.
///
/// ```
/// assert_eq!(mgpu_benches::BOUND, "bound");
/// ```
pub const BOUND: &str = "bound";

/// The families of operations, in report order: one chart each. `other` holds operations
/// [`family_of`] does not know.
///
/// ```
/// assert_eq!(mgpu_benches::FAMILIES[0], "scan");
/// assert_eq!(mgpu_benches::FAMILIES.last(), Some(&"other"));
/// ```
pub const FAMILIES: [&str; 6] = ["scan", "intervals", "bulk", "segreduce", "merge", "other"];

/// The family of an operation (one of [`FAMILIES`]): `scan` (`scan_*`, `reduce`),
/// `intervals` (`load_balance_search`, `interval_*`), `bulk` (`bulk_*`), `segreduce`
/// (`seg_reduce_*`, `spmv_*`, `reduce_by_key*`), `merge` (`mergesort_*`, `merge_keys`,
/// `radixsort_keys`), else `other`.
///
/// ```
/// use mgpu_benches::family_of;
/// assert_eq!(family_of("reduce"), "scan");
/// assert_eq!(family_of("reduce_by_key_apply"), "segreduce");
/// assert_eq!(family_of("radixsort_keys"), "merge");
/// assert_eq!(family_of("histogram"), "other");
/// ```
pub fn family_of(op: &str) -> &'static str {
    let starts = |p: &str| op.starts_with(p);
    if starts("scan_") || op == "reduce" {
        "scan"
    } else if op == "load_balance_search" || starts("interval_") {
        "intervals"
    } else if starts("bulk_") {
        "bulk"
    } else if starts("seg_reduce_") || starts("spmv_") || starts("reduce_by_key") {
        "segreduce"
    } else if starts("mergesort_") || op == "merge_keys" || op == "radixsort_keys" {
        "merge"
    } else {
        "other"
    }
}

/// One row of the side-by-side report: one library's time on one case (operation, type,
/// input, n).
///
/// ```
/// let row = mgpu_benches::ReportRow {
///     op: "scan_exclusive".into(),
///     ty: "i32".into(),
///     input: "uniform[0,16)".into(),
///     n: 1 << 24,
///     library: "cub".into(),
///     ms: 0.271,
///     copy_ratio: 1.34,
/// };
/// assert_eq!(mgpu_benches::family_of(&row.op), "scan");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRow {
    /// Operation name (mgpu-bench's [`Row::op`]).
    pub op: String,
    /// Element type(s).
    pub ty: String,
    /// Input distribution.
    pub input: String,
    /// The size parameter n.
    pub n: usize,
    /// Who ran it: [`MGPU`], a peer library (`cub`, `cusparse`) or [`BOUND`].
    pub library: String,
    /// Median time, ms.
    pub ms: f64,
    /// Median time over the median time of a device copy of n 4-byte words, same process.
    pub copy_ratio: f64,
}

impl From<&Row> for ReportRow {
    /// mgpu's row as a report row of library [`MGPU`].
    ///
    /// ```
    /// let r = mgpu_benches::Row::new("reduce", "i32", "u", 4, 1.0, 2.0, 16);
    /// let row = mgpu_benches::ReportRow::from(&r);
    /// assert_eq!((row.library.as_str(), row.ms, row.copy_ratio), ("mgpu", 1.0, 0.5));
    /// ```
    fn from(r: &Row) -> ReportRow {
        ReportRow {
            op: r.op.clone(),
            ty: r.ty.clone(),
            input: r.input.clone(),
            n: r.n,
            library: MGPU.into(),
            ms: r.median_ms,
            copy_ratio: r.copy_ratio,
        }
    }
}

impl ReportRow {
    /// The column names of [`Report::csv`] and [`Report::json`], in the order of the
    /// row's fields.
    ///
    /// ```
    /// assert_eq!(mgpu_benches::ReportRow::COLUMNS[4], "library");
    /// ```
    pub const COLUMNS: [&str; 7] = [
        CASE_COLUMNS[0],
        CASE_COLUMNS[1],
        CASE_COLUMNS[2],
        CASE_COLUMNS[3],
        "library",
        "ms",
        "copy_ratio",
    ];

    /// The row's fields, formatted, in the order of [`ReportRow::COLUMNS`].
    fn fields(&self) -> Vec<Field<'_>> {
        let mut f = case_fields(&self.op, &self.ty, &self.input, self.n);
        f.extend([
            Field::Text(&self.library),
            Field::Num(format!("{:.6}", self.ms)),
            Field::Num(format!("{:.4}", self.copy_ratio)),
        ]);
        f
    }

    /// Whether `other` measures the same case (operation, type, input and n).
    fn same_case(&self, other: &ReportRow) -> bool {
        (&self.op, &self.ty, &self.input, self.n) == (&other.op, &other.ty, &other.input, other.n)
    }
}

/// The output of the peers binary (`benches/cuda/peers.cu`), parsed: the GPU it ran on and
/// its rows.
///
/// ```
/// let peers = mgpu_benches::parse_peers("# device\tNVIDIA H200\n")?;
/// assert_eq!(peers.device, "NVIDIA H200");
/// assert!(peers.rows.is_empty());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Peers {
    /// The GPU's name, from the `# device<TAB>NAME` line.
    pub device: String,
    /// One row per data line, in order.
    pub rows: Vec<ReportRow>,
}

impl Peers {
    /// Whether the peers ran on a GPU of this name (spaces around either name aside; no
    /// device name counts as the same).
    ///
    /// ```
    /// let peers = mgpu_benches::parse_peers("# device\tNVIDIA H100 80GB HBM3\n")?;
    /// assert!(peers.same_device("NVIDIA H100 80GB HBM3 "));
    /// assert!(!peers.same_device("NVIDIA H200"));
    /// # Ok::<(), String>(())
    /// ```
    pub fn same_device(&self, device: &str) -> bool {
        self.device.is_empty() || self.device.trim() == device.trim()
    }
}

/// The prefix of the peers' device line.
const DEVICE_PREFIX: &str = "# device\t";

/// Parses the peers binary's standard output: a `# device<TAB>NAME` line (the first),
/// comment lines starting with `#`, blank lines, and data lines
/// `row<TAB>op<TAB>type<TAB>input<TAB>n<TAB>library<TAB>ms<TAB>copy_ratio` (n an unsigned
/// integer, ms and copy_ratio finite, non-negative decimals). An error names the line
/// (1-based) and quotes it: a malformed line, a `MISMATCH` line (a peer's result was wrong),
/// a repeated case and library, a library named [`MGPU`], or no device line.
///
/// ```
/// let text = "# device\tNVIDIA H100 80GB HBM3\n# 2^20 copy 0.0100 ms\n\
///             row\tspmv_csr\tf64\t16 per row, pow\t1048576\tcusparse\t0.0300\t3.000\n";
/// let peers = mgpu_benches::parse_peers(text)?;
/// assert_eq!(peers.device, "NVIDIA H100 80GB HBM3");
/// assert_eq!(peers.rows[0].input, "16 per row, pow");
/// assert_eq!(peers.rows[0].copy_ratio, 3.0);
///
/// let err = mgpu_benches::parse_peers("# device\tH100\nrow\treduce\ti32\n").unwrap_err();
/// assert!(err.starts_with("peers line 2: "), "{err}");
/// # Ok::<(), String>(())
/// ```
pub fn parse_peers(text: &str) -> Result<Peers, String> {
    let mut device = None;
    let mut rows: Vec<ReportRow> = Vec::new();
    let mut row_lines: Vec<usize> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let fail = |what: String| Err(format!("peers line {number}: {what}: {line:?}"));
        if line.starts_with("MISMATCH") {
            return fail("a peer's result was wrong".into());
        }
        if let Some(name) = line.strip_prefix(DEVICE_PREFIX) {
            device.get_or_insert_with(|| name.trim().to_string());
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 8 || f[0] != "row" {
            return fail(format!(
                "expected `row`, then op, type, input, n, library, ms, copy_ratio, all \
                 separated by tabs ({} field{} here)",
                f.len(),
                if f.len() == 1 { "" } else { "s" }
            ));
        }
        if let Some(k) = (1..6).find(|&k| f[k].trim().is_empty()) {
            let name = ["", "op", "type", "input", "n", "library"][k];
            return fail(format!("empty {name}"));
        }
        let Ok(n) = f[4].parse::<usize>() else {
            return fail(format!("n {:?} is not an unsigned integer", f[4]));
        };
        let number_of = |k: usize, name: &str| match f[k].parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(format!(
                "peers line {number}: {name} {:?} is not a finite, non-negative number: {line:?}",
                f[k]
            )),
        };
        let ms = number_of(6, "ms")?;
        let copy_ratio = number_of(7, "copy_ratio")?;
        if f[5] == MGPU {
            return fail(format!("the library {MGPU:?} is mgpu's own, not a peer"));
        }
        let row = ReportRow {
            op: f[1].into(),
            ty: f[2].into(),
            input: f[3].into(),
            n,
            library: f[5].into(),
            ms,
            copy_ratio,
        };
        if let Some(j) = rows
            .iter()
            .position(|r| r.same_case(&row) && r.library == row.library)
        {
            return fail(format!(
                "repeats the case and library of line {}",
                row_lines[j]
            ));
        }
        rows.push(row);
        row_lines.push(number);
    }
    let device = device.ok_or_else(|| {
        "peers output has no `# device<TAB>NAME` line (is it the output of benches/cuda/peers.cu?)"
            .to_string()
    })?;
    Ok(Peers { device, rows })
}

/// The year, month and day (UTC) of a Unix time in seconds, as `YYYY-MM-DD`.
///
/// ```
/// assert_eq!(mgpu_benches::civil_date(0), "1970-01-01");
/// assert_eq!(mgpu_benches::civil_date(951_782_400), "2000-02-29");
/// ```
pub fn civil_date(unix_secs: u64) -> String {
    // Howard Hinnant's days-to-civil, on days since 1970-01-01 shifted to 0000-03-01.
    let z = (unix_secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
///
/// ```
/// let d = mgpu_benches::today();
/// assert_eq!((d.len(), &d[4..5], &d[7..8]), (10, "-", "-"));
/// ```
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date(secs)
}

/// Where a library sorts within a case: mgpu first, the peers, the bound last.
fn library_rank(library: &str) -> u8 {
    match library {
        MGPU => 0,
        BOUND => 2,
        _ => 1,
    }
}

/// mgpu's side-by-side report: the GPU, the date, and mgpu's rows with its peers'.
///
/// ```
/// let peers = mgpu_benches::parse_peers("# device\tH100\n")?;
/// let report = mgpu_benches::Report::new("H100", "2026-11-30", &[], &peers);
/// assert!(report.rows.is_empty() && report.families().is_empty());
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The GPU's name (mgpu's; with the peers' in parentheses where they differ).
    pub device: String,
    /// When it was measured, `YYYY-MM-DD`.
    pub date: String,
    /// The rows, case by case (see [`Report::new`]).
    pub rows: Vec<ReportRow>,
}

impl Report {
    /// Joins mgpu's rows, measured on `device` on `date`, with the peers' rows of the
    /// families and sizes mgpu measured (so `--only` and `--sizes` select the peers' rows
    /// too; a peers-only case such as `radixsort_keys` stays with its family). The rows
    /// are ordered by family ([`FAMILIES`]), then operation, type and input in the order
    /// they first appear (mgpu's first), then n; within a case mgpu first, the peers in
    /// their order, the bound last.
    ///
    /// ```
    /// use mgpu_benches::{parse_peers, Report, Row};
    /// let peers = parse_peers(
    ///     "# device\tH200\n\
    ///      row\tmerge_keys\ti32\ttwo sorted halves\t1024\tbound\t0.010\t1.0\n\
    ///      row\tmerge_keys\ti32\ttwo sorted halves\t1024\tcub\t0.020\t2.0\n\
    ///      row\tmerge_keys\ti32\ttwo sorted halves\t4096\tcub\t0.040\t2.0\n",
    /// )?;
    /// let mgpu = [Row::new("merge_keys", "i32", "two sorted halves", 1024, 0.015, 0.01, 8192)];
    /// let report = Report::new("H100", "2026-11-30", &mgpu, &peers);
    /// let libraries: Vec<&str> = report.rows.iter().map(|r| r.library.as_str()).collect();
    /// assert_eq!(libraries, ["mgpu", "cub", "bound"]); // 4096: a size mgpu did not measure
    /// assert_eq!(report.device, "H100 (peers: H200)");
    /// # Ok::<(), String>(())
    /// ```
    pub fn new(device: &str, date: &str, mgpu: &[Row], peers: &Peers) -> Report {
        let measured: HashSet<(&str, usize)> =
            mgpu.iter().map(|r| (family_of(&r.op), r.n)).collect();
        let rows: Vec<ReportRow> = mgpu
            .iter()
            .map(ReportRow::from)
            .chain(
                peers
                    .rows
                    .iter()
                    .filter(|r| measured.contains(&(family_of(&r.op), r.n)))
                    .cloned(),
            )
            .collect();
        let mut first_seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
        let mut keyed: Vec<((usize, usize, usize, u8), usize)> = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let next = first_seen.len();
            let seen = *first_seen
                .entry((r.op.as_str(), r.ty.as_str(), r.input.as_str()))
                .or_insert(next);
            let family = FAMILIES.iter().position(|&f| f == family_of(&r.op));
            let key = (
                family.unwrap_or(FAMILIES.len()),
                seen,
                r.n,
                library_rank(&r.library),
            );
            keyed.push((key, i));
        }
        keyed.sort_by_key(|&(key, _)| key);
        let device = if peers.same_device(device) {
            device.to_string()
        } else {
            format!("{device} (peers: {})", peers.device)
        };
        Report {
            device,
            date: date.into(),
            rows: keyed.into_iter().map(|(_, i)| rows[i].clone()).collect(),
        }
    }

    /// The families of [`FAMILIES`] with at least one row, in that order.
    ///
    /// ```
    /// let rows = [mgpu_benches::Row::new("bulk_remove", "i32", "random half", 4, 1.0, 1.0, 16)];
    /// let peers = mgpu_benches::parse_peers("# device\tH100\n")?;
    /// let report = mgpu_benches::Report::new("H100", "2026-11-30", &rows, &peers);
    /// assert_eq!(report.families(), ["bulk"]);
    /// # Ok::<(), String>(())
    /// ```
    pub fn families(&self) -> Vec<&'static str> {
        FAMILIES
            .into_iter()
            .filter(|&f| self.rows.iter().any(|r| family_of(&r.op) == f))
            .collect()
    }

    /// The rows' cases: runs of rows of one case (the rows are ordered case by case).
    fn cases<'a>(rows: &'a [&'a ReportRow]) -> impl Iterator<Item = &'a [&'a ReportRow]> {
        rows.chunk_by(|a, b| a.same_case(b))
    }

    /// The report as CSV: `op,type,input,n,library,ms,copy_ratio`, one line per row (text
    /// fields quoted, as inputs such as `16 per row, unif` hold commas).
    ///
    /// ```
    /// let rows = [mgpu_benches::Row::new("spmv_csr", "f64", "16 per row, unif", 16, 2.0, 1.0, 8)];
    /// let peers = mgpu_benches::parse_peers("# device\tH100\n")?;
    /// let csv = mgpu_benches::Report::new("H100", "2026-11-30", &rows, &peers).csv();
    /// assert_eq!(
    ///     csv,
    ///     "op,type,input,n,library,ms,copy_ratio\n\
    ///      \"spmv_csr\",\"f64\",\"16 per row, unif\",16,\"mgpu\",2.000000,2.0000\n"
    /// );
    /// # Ok::<(), String>(())
    /// ```
    pub fn csv(&self) -> String {
        let fields: Vec<_> = self.rows.iter().map(ReportRow::fields).collect();
        csv_table(&ReportRow::COLUMNS, &fields)
    }

    /// The report as JSON: `{"device": ..., "date": ..., "rows": [{"op", "type", "input",
    /// "n", "library", "ms", "copy_ratio"}, ...]}`.
    ///
    /// ```
    /// let rows = [mgpu_benches::Row::new("reduce", "i32", "u", 16, 2.0, 1.0, 8)];
    /// let peers = mgpu_benches::parse_peers("# device\tH100\n")?;
    /// let json = mgpu_benches::Report::new("H100", "2026-11-30", &rows, &peers).json();
    /// assert!(json.starts_with("{\n  \"device\": \"H100\",\n  \"date\": \"2026-11-30\",\n"));
    /// assert!(json.contains("{\"op\": \"reduce\", \"type\": \"i32\", \"input\": \"u\", \"n\": 16, \"library\": \"mgpu\", \"ms\": 2.000000, \"copy_ratio\": 2.0000}"));
    /// # Ok::<(), String>(())
    /// ```
    pub fn json(&self) -> String {
        let fields: Vec<_> = self.rows.iter().map(ReportRow::fields).collect();
        let head = [
            ("device", self.device.as_str()),
            ("date", self.date.as_str()),
        ];
        json_table(&head, &ReportRow::COLUMNS, &fields)
    }

    /// The report as a markdown table for README.md, one line per case, after a caption
    /// naming the GPU and the date: operation, type, input, n, then copy ratios: mgpu's,
    /// the best (lowest) peer's with its library, the bound's, and mgpu's over the best
    /// peer's (below 1: mgpu is faster). `-` where there is none.
    ///
    /// ```
    /// use mgpu_benches::{parse_peers, Report, Row};
    /// let peers = parse_peers(
    ///     "# device\tH100\nrow\tspmv_csr\tf64\t16 per row, pow\t1024\tcusparse\t0.03\t3.0\n",
    /// )?;
    /// let mgpu = [Row::new("spmv_csr", "f64", "16 per row, pow", 1024, 0.024, 0.01, 1)];
    /// let table = Report::new("H100", "2026-11-30", &mgpu, &peers).markdown();
    /// assert!(table.contains("| spmv_csr | f64 | 16 per row, pow | 2^10 | 2.40 | 3.00 (cusparse) | - | 0.80 |"));
    /// # Ok::<(), String>(())
    /// ```
    pub fn markdown(&self) -> String {
        let md = |t: &str| t.replace('|', "\\|");
        let ratio =
            |r: Option<&&ReportRow>| r.map_or("-".to_string(), |r| format!("{:.2}", r.copy_ratio));
        let mut s = format!(
            "Copy ratios (lower is better) on {}, {}: mgpu, the best of its peers, and the \
             bound (a plain kernel of the row's minimal memory traffic).\n\n\
             | op | type | input | n | mgpu | best peer | bound | mgpu / best peer |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- |\n",
            md(&self.device),
            md(&self.date)
        );
        let rows: Vec<&ReportRow> = self.rows.iter().collect();
        for case in Self::cases(&rows) {
            let of = |lib: &str| case.iter().find(|r| r.library == lib);
            let (mgpu, bound) = (of(MGPU), of(BOUND));
            let best = case
                .iter()
                .filter(|r| library_rank(&r.library) == 1)
                .min_by(|a, b| a.copy_ratio.total_cmp(&b.copy_ratio));
            let best_text = best.map_or("-".to_string(), |b| {
                format!("{:.2} ({})", b.copy_ratio, md(&b.library))
            });
            let versus = match (mgpu, best) {
                (Some(m), Some(b)) if b.copy_ratio > 0.0 => {
                    format!("{:.2}", m.copy_ratio / b.copy_ratio)
                }
                _ => "-".to_string(),
            };
            let r = case[0];
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {best_text} | {} | {versus} |",
                md(&r.op),
                md(&r.ty),
                md(&r.input),
                size_label(r.n),
                ratio(mgpu),
                ratio(bound)
            );
        }
        s
    }

    /// One family's chart as SVG: per case (operation, type, input, n) a label and
    /// horizontal bars side by side, one per row (mgpu, each peer library, the bound),
    /// each labelled with its copy ratio and library; an x axis in copy ratios with tick
    /// labels and grid lines, a legend of the libraries, and a title naming the family,
    /// the GPU and the date. All text escaped.
    ///
    /// ```
    /// let rows = [mgpu_benches::Row::new("reduce", "i32", "u", 16, 2.0, 1.0, 8)];
    /// let peers = mgpu_benches::parse_peers("# device\tH100\n")?;
    /// let svg = mgpu_benches::Report::new("H100", "2026-11-30", &rows, &peers).svg("scan");
    /// assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    /// assert!(svg.contains("scan on H100, 2026-11-30"));
    /// assert_eq!(svg.matches("<rect class=\"bar\"").count(), 1);
    /// # Ok::<(), String>(())
    /// ```
    pub fn svg(&self, family: &str) -> String {
        const WIDTH: usize = 1000;
        const X0: f64 = 430.0;
        const X1: f64 = WIDTH as f64 - 130.0;
        const BAR_H: f64 = 14.0;
        const PITCH: f64 = 17.0;
        const GAP: f64 = 10.0;
        const TOP: f64 = 96.0;
        let rows: Vec<&ReportRow> = self
            .rows
            .iter()
            .filter(|r| family_of(&r.op) == family)
            .collect();
        let mut libraries: Vec<&str> = Vec::new();
        for r in &rows {
            if !libraries.contains(&r.library.as_str()) {
                libraries.push(&r.library);
            }
        }
        libraries.sort_by_key(|l| library_rank(l));
        let max = rows
            .iter()
            .map(|r| r.copy_ratio)
            .filter(|v| v.is_finite())
            .fold(1.0, f64::max);
        let step = axis_step(max);
        let ticks = (max / step - 1e-9).ceil() as usize;
        let top = ticks as f64 * step;
        let cases: Vec<&[&ReportRow]> = Self::cases(&rows).collect();
        let bottom = TOP + rows.len() as f64 * PITCH + cases.len().saturating_sub(1) as f64 * GAP;
        let height = bottom as usize + 44;
        let mut s = svg_open(
            WIDTH,
            height,
            &format!(
                "mgpu and its peers: {family} on {}, {}",
                self.device, self.date
            ),
        );
        s.push_str(
            "<text x=\"10\" y=\"38\">copy ratio: median time / median time of a device copy of n \
             4-byte words, same process (lower is better)</text>\n",
        );
        let mut x = 10.0;
        for (i, lib) in libraries.iter().enumerate() {
            let _ = writeln!(
                s,
                "<rect class=\"legend\" x=\"{x:.1}\" y=\"50\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1}\" y=\"60\">{}</text>",
                library_color(lib, i),
                x + 16.0,
                xml_escape(lib)
            );
            x += 16.0 + 7.3 * lib.chars().count() as f64 + 20.0;
        }
        for k in 0..=ticks {
            let v = k as f64 * step;
            let x = X0 + (X1 - X0) * v / top;
            let label = tick_label(v);
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"{}\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>",
                TOP - 6.0,
                if (v - 1.0).abs() < 1e-9 { "#888" } else { "#ddd" },
                TOP - 10.0,
                bottom + 14.0
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">copy ratio</text>",
            (X0 + X1) / 2.0,
            bottom + 32.0
        );
        let mut y = TOP;
        for case in cases {
            let r = case[0];
            let _ = writeln!(
                s,
                "<text x=\"10\" y=\"{:.1}\">{} {} {} n={}</text>",
                y + BAR_H - 3.0,
                xml_escape(&r.op),
                xml_escape(&r.ty),
                xml_escape(&r.input),
                size_label(r.n)
            );
            for r in case {
                let lib = r.library.as_str();
                let color =
                    library_color(lib, libraries.iter().position(|&l| l == lib).unwrap_or(0));
                let w = if r.copy_ratio.is_finite() {
                    ((X1 - X0) * r.copy_ratio / top).max(1.0)
                } else {
                    1.0
                };
                let tip = format!("{lib}: {:.4} ms, copy ratio {:.3}", r.ms, r.copy_ratio);
                let label = format!("{:.2} {lib}", r.copy_ratio);
                svg_bar(&mut s, X0, y, w, BAR_H, color, &tip, &label);
                y += PITCH;
            }
            y += GAP;
        }
        s.push_str("</svg>\n");
        s
    }
}

/// The fill of a library's bars: fixed for mgpu, CUB, cuSPARSE and the bound, else from a
/// palette by its place in the legend.
fn library_color(library: &str, place: usize) -> &'static str {
    const OTHERS: [&str; 4] = ["#b07aa1", "#edc948", "#76b7b2", "#ff9da7"];
    match library {
        MGPU => "#4a7ab5",
        "cub" => "#e08a2c",
        "cusparse" => "#59a14f",
        BOUND => "#a8a8a8",
        _ => OTHERS[place % OTHERS.len()],
    }
}

/// The step between an axis's ticks for values up to `max`: 1, 2, 2.5 or 5 times a power
/// of ten, the smallest giving at most 8 steps.
fn axis_step(max: f64) -> f64 {
    let raw = (max / 8.0).max(1e-9);
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&step| step >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// A tick's value with at most two decimals and no trailing zeros.
fn tick_label(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEERS: &str = "# device\tNVIDIA H100 80GB HBM3\n\
        # peers.cu, CCCL 2.8.0\n\
        # 2^20 copy 0.0100 ms\n\
        row\tscan_exclusive\ti32\tuniform[0,16)\t1048576\tcub\t0.0134\t1.340\n\
        row\tscan_exclusive\ti32\tuniform[0,16)\t1048576\tbound\t0.0100\t1.000\n\
        \n\
        row\tspmv_csr\tf64\t16 per row, unif\t1048576\tcusparse\t0.0400\t4.000\n\
        row\tspmv_csr\tf64\t16 per row, unif\t1048576\tcub\t0.0500\t5.000\n\
        row\tspmv_csr\tf64\t16 per row, unif\t1048576\tbound\t0.0200\t2.000\n\
        row\tradixsort_keys\ti32\trandom\t1048576\tcub\t0.1000\t10.000\n\
        row\tmergesort_keys\ti32\trandom\t1048576\tcub\t0.2000\t20.000\n\
        row\tbulk_remove\ti32\trandom half\t1048576\tbound\t0.0100\t1.000\n\
        row\tscan_exclusive\ti32\tuniform[0,16)\t16777216\tcub\t0.2000\t1.340\n";

    fn mgpu_rows() -> Vec<Row> {
        let n = 1 << 20;
        vec![
            Row::new("mergesort_keys", "i32", "random", n, 0.19, 0.01, 8 * n),
            Row::new(
                "scan_exclusive",
                "i32",
                "uniform[0,16)",
                n,
                0.012,
                0.01,
                8 * n,
            ),
            Row::new("spmv_csr", "f64", "16 per row, unif", n, 0.03, 0.01, 8 * n),
            Row::new("reduce", "i32", "uniform[0,16)", n, 0.006, 0.01, 4 * n),
        ]
    }

    #[test]
    fn parse_peers_reads_the_device_the_rows_and_skips_comments() {
        let peers = parse_peers(PEERS).unwrap();
        assert_eq!(peers.device, "NVIDIA H100 80GB HBM3");
        assert_eq!(peers.rows.len(), 9);
        assert_eq!(
            peers.rows[2],
            ReportRow {
                op: "spmv_csr".into(),
                ty: "f64".into(),
                input: "16 per row, unif".into(),
                n: 1 << 20,
                library: "cusparse".into(),
                ms: 0.04,
                copy_ratio: 4.0,
            }
        );
        // Windows line ends and a device line that is not first are read the same.
        let crlf = "# note\r\n# device\tH200\r\nrow\treduce\ti32\tu\t4\tcub\t1\t2\r\n";
        let peers = parse_peers(crlf).unwrap();
        assert_eq!(
            (peers.device.as_str(), peers.rows[0].copy_ratio),
            ("H200", 2.0)
        );
    }

    #[test]
    fn parse_peers_names_the_malformed_line() {
        let head = "# device\tH100\n# comment\n";
        for (line, says) in [
            ("row\treduce\ti32\tu\t4\tcub\t1.0", "(7 fields here)"),
            ("reduce i32 u 4 cub 1.0 1.0", "(1 field here)"),
            ("rows\treduce\ti32\tu\t4\tcub\t1.0\t1.0", "expected `row`"),
            (
                "row\treduce\ti32\tu\t2^20\tcub\t1.0\t1.0",
                "n \"2^20\" is not an unsigned",
            ),
            ("row\treduce\ti32\tu\t-4\tcub\t1.0\t1.0", "n \"-4\""),
            (
                "row\treduce\ti32\tu\t4\tcub\tfast\t1.0",
                "ms \"fast\" is not a finite",
            ),
            (
                "row\treduce\ti32\tu\t4\tcub\t1.0\tNaN",
                "copy_ratio \"NaN\"",
            ),
            ("row\treduce\ti32\tu\t4\tcub\t1.0\t-1", "copy_ratio \"-1\""),
            ("row\treduce\ti32\t\t4\tcub\t1.0\t1.0", "empty input"),
            ("row\treduce\ti32\tu\t4\t\t1.0\t1.0", "empty library"),
            ("row\treduce\ti32\tu\t4\tmgpu\t1.0\t1.0", "mgpu's own"),
        ] {
            let err = parse_peers(&format!("{head}{line}\n")).unwrap_err();
            assert!(err.starts_with("peers line 3: "), "{err}");
            assert!(err.contains(says), "{line}: {err}");
            assert!(err.ends_with(&format!("{line:?}")), "{err}");
        }
        let twice = format!(
            "{head}row\treduce\ti32\tu\t4\tcub\t1\t1\nrow\treduce\ti32\tu\t8\tcub\t1\t1\n\
             row\treduce\ti32\tu\t4\tcub\t2\t2\n"
        );
        let err = parse_peers(&twice).unwrap_err();
        assert!(
            err.starts_with("peers line 5: repeats the case and library of line 3"),
            "{err}"
        );
    }

    #[test]
    fn parse_peers_fails_on_a_mismatch_and_without_a_device_line() {
        let text = format!("{PEERS}MISMATCH: DeviceMergeSort keys i32 at 2^20\n");
        let err = parse_peers(&text).unwrap_err();
        assert!(
            err.starts_with("peers line 14: a peer's result was wrong"),
            "{err}"
        );
        assert!(err.contains("DeviceMergeSort"), "{err}");
        let err = parse_peers("row\treduce\ti32\tu\t4\tcub\t1\t1\n").unwrap_err();
        assert!(err.contains("no `# device<TAB>NAME` line"), "{err}");
        assert!(parse_peers("").is_err());
    }

    #[test]
    fn family_of_knows_every_benchmark_operation() {
        for (op, family) in [
            ("scan_exclusive", "scan"),
            ("reduce", "scan"),
            ("load_balance_search", "intervals"),
            ("interval_expand", "intervals"),
            ("interval_expand_naive", "intervals"),
            ("interval_move", "intervals"),
            ("interval_gather", "intervals"),
            ("bulk_remove", "bulk"),
            ("bulk_insert", "bulk"),
            ("seg_reduce_csr", "segreduce"),
            ("seg_reduce_csr_apply", "segreduce"),
            ("spmv_csr", "segreduce"),
            ("spmv_csr_apply", "segreduce"),
            ("reduce_by_key", "segreduce"),
            ("reduce_by_key_apply", "segreduce"),
            ("mergesort_keys", "merge"),
            ("mergesort_pairs", "merge"),
            ("merge_keys", "merge"),
            ("radixsort_keys", "merge"),
            ("reducer", "other"),
        ] {
            assert_eq!(family_of(op), family, "{op}");
            assert!(FAMILIES.contains(&family));
        }
    }

    #[test]
    fn report_joins_mgpu_and_peers_case_by_case() {
        let report = Report::new(
            "NVIDIA H100 80GB HBM3",
            "2026-11-30",
            &mgpu_rows(),
            &parse_peers(PEERS).unwrap(),
        );
        assert_eq!(report.device, "NVIDIA H100 80GB HBM3");
        let got: Vec<(&str, &str)> = report
            .rows
            .iter()
            .map(|r| (r.op.as_str(), r.library.as_str()))
            .collect();
        // By family, then in order of appearance; mgpu first, the bound last. The bulk
        // row (a family mgpu did not measure) and the 2^24 scan (a size it did not) are
        // left out; radix sort, a peers-only case of a measured family, stays.
        assert_eq!(
            got,
            [
                ("scan_exclusive", "mgpu"),
                ("scan_exclusive", "cub"),
                ("scan_exclusive", "bound"),
                ("reduce", "mgpu"),
                ("spmv_csr", "mgpu"),
                ("spmv_csr", "cusparse"),
                ("spmv_csr", "cub"),
                ("spmv_csr", "bound"),
                ("mergesort_keys", "mgpu"),
                ("mergesort_keys", "cub"),
                ("radixsort_keys", "cub"),
            ]
        );
        assert_eq!(report.families(), ["scan", "segreduce", "merge"]);
        assert!(report.rows.iter().all(|r| r.n == 1 << 20));
        assert!((report.rows[0].copy_ratio - 1.2).abs() < 1e-12);
        let elsewhere = Report::new("H200", "d", &[], &parse_peers(PEERS).unwrap());
        assert_eq!(elsewhere.device, "H200 (peers: NVIDIA H100 80GB HBM3)");
        assert!(elsewhere.rows.is_empty());
    }

    fn report() -> Report {
        Report::new(
            "NVIDIA H100 80GB HBM3",
            "2026-11-30",
            &mgpu_rows(),
            &parse_peers(PEERS).unwrap(),
        )
    }

    #[test]
    fn report_csv_quotes_text_fields_and_has_a_line_per_row() {
        let report = report();
        let csv = report.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "op,type,input,n,library,ms,copy_ratio");
        assert_eq!(lines.len(), report.rows.len() + 1);
        assert!(lines.contains(
            &"\"spmv_csr\",\"f64\",\"16 per row, unif\",1048576,\"cusparse\",0.040000,4.0000"
        ));
        assert!(lines.contains(
            &"\"scan_exclusive\",\"i32\",\"uniform[0,16)\",1048576,\"bound\",0.010000,1.0000"
        ));
        let mut quoted = report.clone();
        quoted.rows[0].input = "say \"hi\"".into();
        assert!(quoted.csv().contains(",\"say \"\"hi\"\"\",1048576,"));
    }

    #[test]
    fn report_json_has_the_device_the_date_and_every_row() {
        let mut report = report();
        report.device = "H100 \"SXM\"\\".into();
        let json = report.json();
        assert!(json.starts_with("{\n  \"device\": \"H100 \\\"SXM\\\"\\\\\",\n  \"date\": \"2026-11-30\",\n  \"rows\": [\n"));
        assert!(json.ends_with("}\n  ]\n}\n"), "{json}");
        assert_eq!(json.matches("\"library\": ").count(), report.rows.len());
        assert_eq!(json.matches("},\n").count(), report.rows.len() - 1);
        assert!(json.contains("\"input\": \"16 per row, unif\", \"n\": 1048576, \"library\": \"cusparse\", \"ms\": 0.040000, \"copy_ratio\": 4.0000}"));
    }

    #[test]
    fn report_svg_has_a_bar_per_row_an_axis_a_legend_and_a_title() {
        let mut report = report();
        report.device = "H100 <&>".into();
        for family in report.families() {
            let svg = report.svg(family);
            let rows = report
                .rows
                .iter()
                .filter(|r| family_of(&r.op) == family)
                .count();
            assert_eq!(svg.matches("<rect class=\"bar\"").count(), rows, "{family}");
            assert!(
                svg.contains(&format!(
                    "mgpu and its peers: {family} on H100 &lt;&amp;&gt;, 2026-11-30"
                )),
                "{svg}"
            );
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
            assert!(!svg.contains("H100 <&>"));
        }
        let svg = report.svg("segreduce");
        // Legend: mgpu, the peers, the bound; one swatch each.
        assert_eq!(svg.matches("<rect class=\"legend\"").count(), 4);
        let legend: Vec<usize> = [
            "mgpu</text>",
            "cusparse</text>",
            "cub</text>",
            "bound</text>",
        ]
        .iter()
        .map(|l| svg.find(l).unwrap())
        .collect();
        assert!(legend.windows(2).all(|w| w[0] < w[1]), "{legend:?}");
        // Axis to 5 in steps of 1 (the largest ratio is 5.0), labelled at the top and bottom.
        for t in ["0", "1", "2", "3", "4", "5"] {
            assert_eq!(
                svg.matches(&format!("text-anchor=\"middle\">{t}</text>"))
                    .count(),
                2
            );
        }
        assert!(svg.contains(">spmv_csr f64 16 per row, unif n=2^20</text>"));
        assert!(svg.contains(">4.00 cusparse</text>"));
        // The longest bar is the axis's full width.
        assert!(
            svg.contains("width=\"440.0\" height=\"14.0\" fill=\"#e08a2c\""),
            "{svg}"
        );
        assert_eq!(report.svg("bulk").matches("<rect class=\"bar\"").count(), 0);
    }

    #[test]
    fn report_markdown_compares_mgpu_with_the_best_peer() {
        let table = report().markdown();
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[0].contains("on NVIDIA H100 80GB HBM3, 2026-11-30"),
            "{table}"
        );
        assert_eq!(
            lines[2],
            "| op | type | input | n | mgpu | best peer | bound | mgpu / best peer |"
        );
        assert_eq!(
            &lines[4..],
            [
                "| scan_exclusive | i32 | uniform[0,16) | 2^20 | 1.20 | 1.34 (cub) | 1.00 | 0.90 |",
                "| reduce | i32 | uniform[0,16) | 2^20 | 0.60 | - | - | - |",
                "| spmv_csr | f64 | 16 per row, unif | 2^20 | 3.00 | 4.00 (cusparse) | 2.00 | 0.75 |",
                "| mergesort_keys | i32 | random | 2^20 | 19.00 | 20.00 (cub) | - | 0.95 |",
                "| radixsort_keys | i32 | random | 2^20 | - | 10.00 (cub) | - | - |",
            ]
        );
        let mut piped = report();
        piped.rows.truncate(1);
        piped.rows[0].input = "a|b".into();
        assert!(piped.markdown().contains("| a\\|b |"));
    }

    #[test]
    fn dates_and_axis_steps() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(86_399), "1970-01-01");
        assert_eq!(civil_date(1_709_164_800), "2024-02-29");
        assert_eq!(civil_date(1_735_689_599), "2024-12-31");
        assert_eq!(civil_date(4_102_444_800), "2100-01-01");
        for (max, step) in [
            (1.0, 0.2),
            (5.0, 1.0),
            (20.0, 2.5),
            (39.3, 5.0),
            (0.3, 0.05),
        ] {
            assert!(
                (axis_step(max) - step).abs() < 1e-12,
                "{max}: {}",
                axis_step(max)
            );
        }
        assert_eq!(tick_label(0.5), "0.5");
        assert_eq!(tick_label(2.0), "2");
        assert_eq!(tick_label(0.25), "0.25");
    }
}
