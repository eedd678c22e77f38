//! Real data for the suites: inputs nobody here made, with the duplicates, runs and
//! missing values that measurements have (`data/README.md` and the facade's
//! `tests/data/README.md` say where each file is from).

/// Mauna Loa's weekly atmospheric CO2 readings, March 1958 to December 2001 (`data/co2.csv`,
/// public domain): `(date as YYYYMMDD, ppmv)` for 2284 weeks, the 59 weeks without a
/// reading as NaN. Readings have one decimal and repeat; consecutive weeks often share a
/// year (reduce-by-key runs) and a whole-ppm value.
///
/// # Examples
///
/// ```
/// let weeks = mgpu_testkit::co2_weekly();
/// assert_eq!(weeks.len(), 2284);
/// assert_eq!(weeks[0], (19580329, 316.1));
/// assert_eq!(weeks.iter().filter(|w| w.1.is_nan()).count(), 59);
/// ```
pub fn co2_weekly() -> Vec<(u32, f64)> {
    include_str!("../data/co2.csv")
        .lines()
        .skip(1)
        .map(|line| {
            let (date, co2) = line.split_once(',').expect("co2.csv: date,co2");
            let reading = match co2.trim() {
                "" => f64::NAN,
                x => x.parse().expect("co2.csv: a reading"),
            };
            (date.parse().expect("co2.csv: a date"), reading)
        })
        .collect()
}

/// The row lengths of the real sparse matrix `lund_a` (Harwell-Boeing's LUND set,
/// structural engineering; 147 rows, its 1298 stored nonzeros: the lower triangle of a
/// symmetric matrix), read from the facade's Matrix Market test file
/// (`crates/mgpu/tests/data/lund_a.mtx`, see the README there): the counts a CSR-to-COO
/// expansion or a load-balancing search of a real matrix sees, from 1 to 12 a row.
///
/// # Examples
///
/// ```
/// let rows = mgpu_testkit::lund_a_row_lengths();
/// assert_eq!(rows.len(), 147);
/// assert_eq!(rows.iter().sum::<u64>(), 1298);
/// assert_eq!(rows[0], 1); // row 1 stores its diagonal only
/// ```
pub fn lund_a_row_lengths() -> Vec<u64> {
    let text = include_str!("../../mgpu/tests/data/lund_a.mtx");
    let mut lines = text.lines().filter(|l| !l.starts_with('%'));
    let size: Vec<usize> = lines
        .next()
        .expect("lund_a.mtx: a size line")
        .split_whitespace()
        .map(|x| x.parse().expect("lund_a.mtx: sizes"))
        .collect();
    let mut rows = vec![0u64; size[0]];
    for line in lines {
        let row: usize = line
            .split_whitespace()
            .next()
            .expect("lund_a.mtx: an entry")
            .parse()
            .expect("lund_a.mtx: a row index");
        rows[row - 1] += 1;
    }
    assert_eq!(
        rows.iter().sum::<u64>(),
        size[2] as u64,
        "lund_a.mtx: entries"
    );
    rows
}
