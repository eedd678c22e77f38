//! Real data for the suites: inputs nobody here made, with the duplicates, runs and
//! missing values that measurements have (`data/README.md` says where each file is from).

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
