//! The inputs the families' suites share, all drawn from one [`Rng`]: uniform and
//! heavy-tailed work-item counts, the edge-case count lists, sorted indices for bulk
//! remove and insert, interval layouts, and element values.

use crate::Rng;
use mgpu_core::{Element, Index};

/// Counts uniform in `[0, max]`, the last one cut, so that they cover exactly `items` work
/// items (`ANCHORS.md`: segment lengths and work-item counts uniform in `[0, 2·avg]`, so
/// `max = 2 * avg`). Empty for `items == 0`; panics when `max == 0` and `items > 0`.
///
/// # Examples
///
/// ```
/// use mgpu_testkit::{uniform_counts, Rng};
/// let counts = uniform_counts(&mut Rng::new(1), 1000, 20);
/// assert_eq!(counts.iter().sum::<u64>(), 1000);
/// assert!(counts.iter().all(|&c| c <= 20));
/// assert!(counts.contains(&0), "about 1 in 21 is empty");
/// ```
pub fn uniform_counts(rng: &mut Rng, items: usize, max: u64) -> Vec<u64> {
    assert!(
        max > 0 || items == 0,
        "uniform_counts: counts of at most 0 never reach {items} items"
    );
    let mut v = Vec::new();
    let mut acc = 0usize;
    while acc < items {
        let c = (rng.below(max + 1) as usize).min(items - acc);
        v.push(c as u64);
        acc += c;
    }
    v
}

/// `n` heavy-tailed counts: Pareto with shape `alpha` and scale 1, less 1 (so that zero
/// is the most common count), each at most `max` (`ANCHORS.md` uses alpha 1.5 for SpMV's
/// "pow" rows). With alpha 1.5 the mean is about 2, and one count in a thousand is above
/// 100.
///
/// # Examples
///
/// ```
/// use mgpu_testkit::{pareto_counts, Rng};
/// let counts = pareto_counts(&mut Rng::new(2), 10_000, 1.5, 1 << 20);
/// assert_eq!(counts.len(), 10_000);
/// assert!(counts.iter().filter(|&&c| c == 0).count() > 4000);
/// assert!(counts.iter().any(|&c| c > 100), "a heavy tail");
/// ```
pub fn pareto_counts(rng: &mut Rng, n: usize, alpha: f64, max: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            // 1 - u lies in (0, 1]: no division by zero.
            let x = (1.0 - rng.next_f64()).powf(-1.0 / alpha);
            ((x - 1.0).floor() as u64).min(max)
        })
        .collect()
}

/// One named edge case of [`edge_counts`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeCounts {
    /// What the case is, for assertion messages.
    pub name: &'static str,
    /// The counts.
    pub counts: Vec<u64>,
}

/// The count lists that break load-balanced kernels, at a scale of about `items` work
/// items (and as many objects): all zero, one count holding every item (alone, among
/// zeros at the start, the middle and the end), leading and trailing zeros, thousands of
/// zeros in a row between small counts, and a single count of 1. Every list has at least
/// one count.
///
/// # Examples
///
/// ```
/// let cases = mgpu_testkit::edge_counts(&mut mgpu_testkit::Rng::new(3), 5000);
/// assert!(cases.iter().any(|c| c.counts.iter().all(|&x| x == 0)));
/// assert!(cases.iter().any(|c| c.counts == [1]));
/// for c in &cases {
///     assert!(!c.counts.is_empty(), "{}", c.name);
///     assert!(c.counts.iter().sum::<u64>() <= 5000 + 1, "{}", c.name);
/// }
/// ```
pub fn edge_counts(rng: &mut Rng, items: usize) -> Vec<EdgeCounts> {
    let n = items.max(1);
    let zeros = |k: usize| vec![0u64; k];
    let one_huge_at = |at: usize| {
        let mut v = zeros(n);
        v[at] = n as u64;
        v
    };
    let (half, fifth) = ((n / 2).max(1), (n / 5).max(1));
    let mut leading = zeros(half);
    leading.extend(uniform_counts(rng, n / 2, 3));
    let mut trailing = uniform_counts(rng, n / 2, 3);
    trailing.extend(zeros(half));
    let mut runs = Vec::new();
    for _ in 0..4 {
        runs.extend(zeros(fifth));
        runs.extend(uniform_counts(rng, n / 20, 20));
    }
    runs.extend(zeros(fifth));
    let case = |name, counts| EdgeCounts { name, counts };
    vec![
        case("all zero", zeros(n)),
        case("one huge count alone", vec![n as u64]),
        case("one huge count first", one_huge_at(0)),
        case("one huge count in the middle", one_huge_at(n / 2)),
        case("one huge count last", one_huge_at(n - 1)),
        case("leading zeros", leading),
        case("trailing zeros", trailing),
        case("runs of zeros", runs),
        case("length 1", vec![1]),
    ]
}

/// `n` values uniform in `[0, below)`, sorted ascending (descending when `descending`),
/// as any element type: sorted keys with ties when `below` is small (all equal for
/// `below == 1`), the inputs of merges and their partitions.
///
/// # Examples
///
/// ```
/// use mgpu_testkit::{sorted_values, Rng};
/// let v: Vec<i32> = sorted_values(&mut Rng::new(10), 1000, 50, false);
/// assert!(v.windows(2).all(|w| w[0] <= w[1]) && v.iter().all(|&x| (0..50).contains(&x)));
/// let d: Vec<f64> = sorted_values(&mut Rng::new(10), 1000, 50, true);
/// assert!(d.windows(2).all(|w| w[0] >= w[1]));
/// assert_eq!(sorted_values::<u32>(&mut Rng::new(1), 4, 1, false), [0; 4]);
/// ```
pub fn sorted_values<T: FromU64>(rng: &mut Rng, n: usize, below: u64, descending: bool) -> Vec<T> {
    let mut v: Vec<u64> = (0..n).map(|_| rng.below(below)).collect();
    v.sort_unstable();
    if descending {
        v.reverse();
    }
    v.into_iter().map(T::from_u64).collect()
}

/// The positions `0..n` each kept with probability `percent / 100`: sorted unique
/// indices, as bulk remove takes (`ANCHORS.md`: each index removed with probability 1/2).
///
/// # Examples
///
/// ```
/// use mgpu_testkit::{sorted_unique_indices, Rng};
/// let ix = sorted_unique_indices(&mut Rng::new(4), 1000, 50);
/// assert!(ix.windows(2).all(|w| w[0] < w[1]) && ix.iter().all(|&i| i < 1000));
/// assert!((400..600).contains(&ix.len()));
/// assert_eq!(sorted_unique_indices(&mut Rng::new(4), 10, 100), (0..10).collect::<Vec<_>>());
/// ```
pub fn sorted_unique_indices(rng: &mut Rng, n: usize, percent: u64) -> Vec<u64> {
    (0..n as u64).filter(|_| rng.below(100) < percent).collect()
}

/// `m` sorted random positions in `[0, n]`, duplicates allowed: bulk insert's indices
/// (`ANCHORS.md`: n/2 values at sorted random positions in `[0, n]`).
///
/// # Examples
///
/// ```
/// use mgpu_testkit::{sorted_indices, Rng};
/// let ix = sorted_indices(&mut Rng::new(5), 100, 500);
/// assert_eq!(ix.len(), 500);
/// assert!(ix.windows(2).all(|w| w[0] <= w[1]) && ix.iter().all(|&i| i <= 100));
/// ```
pub fn sorted_indices(rng: &mut Rng, n: usize, m: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..m).map(|_| rng.below(n as u64 + 1)).collect();
    v.sort_unstable();
    v
}

/// The starts of intervals of lengths `counts` laid out end to end in a random order
/// (a Fisher-Yates shuffle): gather or scatter starts that cover `[0, sum)` without
/// overlap (`ANCHORS.md`: interval move's starts are two such layouts).
///
/// # Examples
///
/// ```
/// use mgpu_testkit::{shuffled_layout, Rng};
/// let counts = [3u64, 0, 5, 1];
/// let starts = shuffled_layout(&mut Rng::new(6), &counts);
/// let mut cover: Vec<u64> = counts.iter().zip(&starts).flat_map(|(&c, &s)| s..s + c).collect();
/// cover.sort_unstable();
/// assert_eq!(cover, (0..9).collect::<Vec<_>>());
/// ```
pub fn shuffled_layout(rng: &mut Rng, counts: &[u64]) -> Vec<u64> {
    let n = counts.len();
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut starts = vec![0u64; n];
    let mut acc = 0u64;
    for &j in &order {
        starts[j] = acc;
        acc += counts[j];
    }
    starts
}

/// `n` values uniform in `[0, below)`, as any element type (integers and floats alike
/// hold them exactly while `below <= 2^24`).
///
/// # Examples
///
/// ```
/// let v: Vec<f32> = mgpu_testkit::uniform_values(&mut mgpu_testkit::Rng::new(7), 100, 16);
/// assert!(v.iter().all(|&x| (0.0..16.0).contains(&x) && x.fract() == 0.0));
/// ```
pub fn uniform_values<T: FromU64>(rng: &mut Rng, n: usize, below: u64) -> Vec<T> {
    (0..n).map(|_| T::from_u64(rng.below(below))).collect()
}

/// `n` elements of random bits (integers over their whole range; floats of every kind,
/// NaNs included: compare them with [`bits`]).
///
/// # Examples
///
/// ```
/// let v: Vec<u64> = mgpu_testkit::random_bits(&mut mgpu_testkit::Rng::new(8), 10);
/// assert_eq!(v.len(), 10);
/// assert!(v.iter().any(|&x| x > u32::MAX as u64));
/// ```
pub fn random_bits<T: Element>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| {
            let b = rng.next_u64();
            T::from_words([b as u32, (b >> 32) as u32])
        })
        .collect()
}

/// `v` as index type `I`, wrapping (a `u32` list keeps the low 32 bits).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_testkit::to_index::<u32>(&[1, 2, 1 << 32]), [1, 2, 0]);
/// ```
pub fn to_index<I: Index>(v: &[u64]) -> Vec<I> {
    v.iter().map(|&x| I::from_u64_wrapping(x)).collect()
}

/// The bits of each element: compare element lists with this when they may hold floats
/// (`-0.0 != 0.0` and `NaN == NaN` in bits, unlike `==`).
///
/// # Examples
///
/// ```
/// use mgpu_testkit::bits;
/// assert_ne!(bits(&[0.0f32]), bits(&[-0.0f32]));
/// assert_eq!(bits(&[f64::NAN]), bits(&[f64::NAN]));
/// ```
pub fn bits<T: Element>(v: &[T]) -> Vec<[u32; 2]> {
    v.iter().map(|x| x.to_words()).collect()
}

/// Element types made from a small `u64` exactly: the integers (wrapping) and the floats
/// (exact below 2^24 for `f32`, 2^53 for `f64`).
///
/// # Examples
///
/// ```
/// use mgpu_testkit::FromU64;
/// assert_eq!(<i32 as FromU64>::from_u64(7), 7);
/// assert_eq!(<f64 as FromU64>::from_u64(7), 7.0);
/// ```
pub trait FromU64: Element {
    /// `v` as this type.
    fn from_u64(v: u64) -> Self;
}

macro_rules! from_u64 {
    ($($t:ty),*) => {$(
        impl FromU64 for $t {
            fn from_u64(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
from_u64!(i32, u32, i64, u64, f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_counts_are_those_of_the_earlier_suites() {
        // The GPU suites drew their counts this way before the kit had them: the same
        // seed gives the same inputs.
        let mut rng = Rng::new(9);
        let mut want = Vec::new();
        let mut acc = 0;
        while acc < 777 {
            let c = rng.below(21).min(777 - acc);
            want.push(c);
            acc += c;
        }
        assert_eq!(uniform_counts(&mut Rng::new(9), 777, 20), want);
        assert!(uniform_counts(&mut Rng::new(9), 0, 0).is_empty());
    }

    #[test]
    fn edge_counts_at_tiny_scales() {
        for items in [0, 1, 2, 5] {
            for c in edge_counts(&mut Rng::new(1), items) {
                assert!(!c.counts.is_empty(), "{items}: {}", c.name);
            }
        }
    }

    #[test]
    fn pareto_counts_respect_the_cap() {
        let c = pareto_counts(&mut Rng::new(3), 100_000, 1.1, 50);
        assert!(c.iter().all(|&x| x <= 50) && c.contains(&50));
    }
}
