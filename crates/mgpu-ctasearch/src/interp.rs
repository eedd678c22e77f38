//! Interpolation searches: over integer keys the partition searches of the load-balancing,
//! counting, binary-search and CSR partitions, over any keys with an
//! [`OrderEstimate`] those of the merge partitions, with far fewer *dependent* probes than a
//! bisection on near-linear data (a scan of random counts, a sorted index array, a
//! generated sequence), and the bisection's `O(log n)` in the worst case.
//!
//! Every search finds the boundary of a monotone predicate `right(m)` (true, then false)
//! on a range `[begin, end)` and reads, with each decision, an estimate `d(m)` of how far
//! `m` is from the boundary (`d >= 0` where `right`, decreasing in `m`). A round probes
//! **two positions** (independent loads, issued together: one round trip) and
//!
//! - the first round probes the two ends of the range (`begin`, `end - 1`), or, given a
//!   guess ([`interpolation_partition_point_from`]; the merge partitions' proportional
//!   split), a bracket around it as below, and the ends of what is left only if the
//!   boundary falls outside;
//! - later rounds interpolate (regula falsi) between the last probes left and right of
//!   the boundary, `m = floor(x_l + (x_h - x_l) d_l / (d_l - d_h))` clamped into the
//!   range, in `f64`, and probe a bracket `m -+ w` around it, where `w` is twice the
//!   spread of a uniformly random sorted sample, `2 sqrt(len p (1 - p))` plus one, for the
//!   range's `len` and the estimate's fraction `p` of it. On random data (sorted random
//!   indices, a scan of random counts) the boundary then falls inside and the range
//!   shrinks to about `4 sqrt(len)` a round: 2^26 positions take at most 8 or 9 rounds,
//!   where a fixed `len / 64` bracket (32 times smaller a hit, but missing near the end)
//!   took up to 13 (a model of Bulk Insert's partitions; docs/partition.md);
//! - once the bracket (or the whole range left) spans at most [`INTERPOLATION_WINDOW`]
//!   positions, the round loads a **window** of that many consecutive positions around it
//!   instead of two, every load issued before any compare: still one round trip, and on
//!   random data the window holds the boundary. A bracket around the proportional split,
//!   an interpolated bracket and a window find a split of a 2^24-long scan of mean-1 or
//!   mean-10 counts in 3 rounds, where two probes a round from the range's ends took 7.3
//!   to 7.5. Windows are opt-in ([`interpolation_window`]);
//! - after two interpolated rounds that did not shrink the range at least 8 times the
//!   search bisects (the pair at the middle) for the rest, so skewed data costs at most
//!   about three rounds more than bisection.
//!
//! The decisions are exact integer comparisons; `d` only places the probes. So on a
//! monotone predicate (sorted input) the result is the boundary itself, exactly the
//! bisection's ([`crate::binary_search`], [`crate::merge_path`]); on any other it is a
//! deterministic position inside the same range (not necessarily the bisection's). A
//! generated (linear) sequence is found in a few rounds.

use crate::search::{merge_path_decides, merge_path_range};
use crate::{Idx, Keys, SearchBounds};
use mgpu_core::OrderEstimate;

/// The boundary of a monotone predicate on `[begin, end)` by interpolation (see the
/// module): `probe(m)` returns whether the search goes right of `m`, the estimate `d(m)`
/// (`>= 0` where it goes right, decreasing in `m`; any value is safe, NaN included: it
/// only places the probes) and a value. Returns the first position where the predicate is
/// false (`end` if none) and the value of the probe at `result - 1` (`none` when the
/// result is `begin`). For `end <= begin` returns `(begin, none)` without probing.
///
/// Each round calls `probe` on two positions (a bracket around the interpolated one, or
/// the middle pair once bisecting), or on [`INTERPOLATION_WINDOW`] consecutive ones once
/// a bracket is that narrow ([`interpolation_partition_point_rounds`] tells how many
/// rounds); the number of rounds is at most about `ceil(log2(end - begin)) + 3`.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::interpolation_partition_point;
/// // First multiple of 3 above 1000 among 0, 3, ..., 2997: the ends, a bracket around
/// // the interpolated position, then a window of 32 (a bisection takes 10 dependent
/// // probes).
/// let mut probes = 0;
/// let (r, left) = interpolation_partition_point(0, 1000, None, |m| {
///     probes += 1;
///     let v = 3 * m;
///     (v <= 1000, 1000.0 - v as f64, Some(v))
/// });
/// assert_eq!((r, left), (334, Some(999)));
/// assert!(probes <= 2 + 2 + 32, "{probes}");
/// ```
#[inline(always)]
pub fn interpolation_partition_point<P: Copy>(
    begin: u64,
    end: u64,
    none: P,
    probe: impl FnMut(u64) -> (bool, f64, P),
) -> (u64, P) {
    interpolation_partition_point_from(begin, end, u64::MAX, none, probe)
}

/// A bracket of twice a random sample's spread around position `m` of `[lo, hi)`, `m` at
/// fraction `frac` of it: `2 sqrt(len p (1 - p)) + 1` either side, clamped into the range.
#[inline(always)]
fn bracket(lo: u64, hi: u64, m: u64, frac: f64) -> (u64, u64) {
    let len = hi - lo;
    let spread = rough_sqrt((len as f64 * frac * (1.0 - frac)).max(1.0));
    let w = (2.0 * spread) as u64 + 1;
    (m.saturating_sub(w).max(lo), (m + w).min(hi - 1))
}

/// [`interpolation_partition_point`] whose first round probes a bracket around `guess`
/// (a position in `[begin, end)`; `u64::MAX` for none) instead of the range's ends: when
/// the boundary falls inside, the range shrinks to about `4 sqrt(len)` in that round;
/// when not, the next round probes the ends of what is left, as the search without a
/// guess begins. The result is the same.
///
/// ```
/// use mgpu_ctasearch::{interpolation_partition_point, interpolation_partition_point_from};
/// let data: Vec<u64> = (0..1_000_000).map(|i| 3 * i).collect();
/// let count = |guess: Option<u64>| {
///     let mut probes = 0;
///     let probe = |m: u64| {
///         probes += 1;
///         (data[m as usize] < 1_000_000, 999_999.0 - data[m as usize] as f64, ())
///     };
///     let (r, _) = match guess {
///         Some(g) => interpolation_partition_point_from(0, 1_000_000, g, (), probe),
///         None => interpolation_partition_point(0, 1_000_000, (), probe),
///     };
///     (r, probes)
/// };
/// let (r, with) = count(Some(333_000));
/// let (r0, without) = count(None);
/// assert_eq!((r, r0), (333_334, 333_334));
/// assert!(with < without, "{with} {without}");
/// ```
#[inline(always)]
pub fn interpolation_partition_point_from<P: Copy>(
    begin: u64,
    end: u64,
    guess: u64,
    none: P,
    probe: impl FnMut(u64) -> (bool, f64, P),
) -> (u64, P) {
    let (r, left, _) =
        interpolation_partition_point_rounds(begin, end, guess, INTERPOLATION_WINDOW, none, probe);
    (r, left)
}

/// Positions a window round probes at once ([`interpolation_partition_point_rounds`]):
/// once a bracket (or what is left of the range) is at most this wide, the search loads
/// this many consecutive positions in one round trip instead of two, and on near-linear
/// data (a scan of random counts) that round holds the boundary: a 2^24-long scan of
/// mean-1 counts takes 3 rounds instead of about 7.5.
///
/// ```
/// assert_eq!(mgpu_ctasearch::INTERPOLATION_WINDOW, 32);
/// ```
pub const INTERPOLATION_WINDOW: usize = 32;

/// [`interpolation_partition_point_from`], also returning the number of rounds it took
/// (each one round trip of independent probes: the dependent latency a GPU thread pays).
///
/// A round probes two positions (a bracket's ends, the range's ends, the middle pair once
/// bisecting), or, when the bracket it would probe (or the whole range left) spans at most
/// [`INTERPOLATION_WINDOW`] positions and the search is not bisecting, a **window**: that
/// many consecutive positions around it (clamped into the range), all loaded before any
/// is compared. The window's count of positions that go right is the boundary when it
/// falls inside; otherwise the window's ends narrow the range as a bracket's would.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::interpolation_partition_point_rounds;
/// let data: Vec<u64> = (0..1_000_000).map(|i| 3 * i + i % 7).collect();
/// let key = 1_234_567;
/// let (r, left, rounds) = interpolation_partition_point_rounds(0, 1_000_000, 411_000, 32, None, |m| {
///     let v = data[m as usize];
///     (v <= key, key as f64 - v as f64, Some(v))
/// });
/// assert_eq!(r as usize, data.partition_point(|&v| v <= key));
/// assert_eq!(left, Some(data[r as usize - 1]));
/// assert!(rounds <= 4, "{rounds}");
/// ```
#[inline(always)]
pub fn interpolation_partition_point_rounds<P: Copy>(
    begin: u64,
    end: u64,
    guess: u64,
    window: usize,
    none: P,
    probe: impl FnMut(u64) -> (bool, f64, P),
) -> (u64, P, u32) {
    split_search(begin, end, guess, window, none, probe, |_, r| r)
}

/// [`interpolation_partition_point_rounds`] with each probe in two parts: `load(m)` reads
/// what position `m` needs (no decision on it), `decide(m, key)` turns it into the probe's
/// result. A round issues all its loads before any decision, so that a window's loads go
/// out together even where the decisions branch (a comparator chosen at run time) or
/// would reuse the loads' registers.
#[inline(always)]
fn split_search<K: Copy, P: Copy>(
    begin: u64,
    end: u64,
    guess: u64,
    window: usize,
    none: P,
    mut load: impl FnMut(u64) -> K,
    mut decide: impl FnMut(u64, K) -> (bool, f64, P),
) -> (u64, P, u32) {
    const W: usize = INTERPOLATION_WINDOW;
    let window = window.min(W) as u64;
    let (mut lo, mut hi) = (begin, end);
    // d at lo - 1 (known once lo > begin) and at hi (known once hi < end).
    let (mut yl, mut yh) = (0.0f64, 0.0f64);
    let (mut known_l, mut known_h) = (false, false);
    let mut left = none;
    let mut guessed = guess >= end || guess < begin;
    let mut bisect = false;
    let mut misses = 0u32;
    let mut rounds = 0u32;
    while lo < hi {
        rounds += 1;
        let len = hi - lo;
        let first = !(known_l && known_h);
        let (p0, p1) = if !guessed {
            bracket(lo, hi, guess, (guess - lo) as f64 / len as f64)
        } else if first {
            (lo, hi - 1)
        } else if len == 1 {
            (lo, lo)
        } else if bisect {
            let m = lo + (len - 2) / 2;
            (m, m + 1)
        } else {
            // Both ends are known here (the first round probed them).
            let frac = yl / (yl - yh);
            let est = (lo - 1) as f64 + (len + 1) as f64 * frac;
            // Saturating (NaN to 0), then into [lo, hi - 2].
            let m = est as u64;
            let m = if m < lo {
                lo
            } else if m > hi - 2 {
                hi - 2
            } else {
                m
            };
            // A bracket of twice a random sample's spread around the estimate.
            bracket(lo, hi, m, frac)
        };
        if window > 2 && end - begin >= window && (len <= window || (!bisect && p1 - p0 < window)) {
            // A window: `window` consecutive positions from `s`, every one inside
            // [begin, end) so that all load unconditionally (one base address, immediate
            // offsets, every load issued before any compare: one round trip). It holds
            // [p0, p1], centred on it where the range allows; when what is left is that
            // short it holds all of [lo, hi), the positions outside known (right before
            // lo, left from hi), so on sorted input its count of positions that go right
            // is the boundary's distance from `s`.
            let (x, floor, ceil) = if len <= window {
                (lo.saturating_sub((window - len) / 2), begin, end - window)
            } else {
                let slack = (window - (p1 - p0 + 1)) / 2;
                (p0.saturating_sub(slack), lo, hi - window)
            };
            let s = x.max(floor).min(ceil);
            let keys: [Option<K>; W] = core::array::from_fn(|k| {
                if (k as u64) < window {
                    Some(load(s + k as u64))
                } else {
                    None
                }
            });
            let probes: [(bool, f64, P); W] = core::array::from_fn(|k| match keys[k] {
                Some(key) => decide(s + k as u64, key),
                None => (false, 0.0, none),
            });
            let mut count = 0u64;
            let mut at = left;
            for (k, r) in probes.iter().enumerate() {
                if r.0 && (k as u64) < window {
                    count += 1;
                    at = r.2;
                }
            }
            if count == 0 {
                // The boundary is at or before `s` (which is `lo` when the window holds
                // the range).
                hi = s.max(lo);
                yh = probes[0].1;
                known_h = true;
            } else if count < window {
                // Inside the window (on sorted input the trues are its first `count`;
                // otherwise kept inside the range).
                return ((s + count).max(lo).min(hi), at, rounds);
            } else {
                // At or after the window's end (`hi` when it holds the range).
                lo = (s + window).min(hi);
                yl = probes[(window - 1) as usize].1;
                known_l = true;
                left = at;
            }
        } else {
            // Both probes unconditionally, so that their loads go out together (one round
            // trip; with the second load behind `p0 != p1` it issued only after the first
            // had returned, two round trips a round). For `p0 == p1` it loads the same
            // key twice.
            let (k0, k1) = (load(p0), load(p1));
            let (r0, r1) = (decide(p0, k0), decide(p1, k1));
            if r1.0 {
                lo = p1 + 1;
                yl = r1.1;
                known_l = true;
                left = r1.2;
            } else if r0.0 {
                lo = p0 + 1;
                hi = p1;
                yl = r0.1;
                yh = r1.1;
                (known_l, known_h) = (true, true);
                left = r0.2;
            } else {
                hi = p0;
                yh = r0.1;
                known_h = true;
            }
        }
        // Two interpolated rounds that do not shrink the range at least 8 times (three
        // bisection rounds' worth) switch to bisection for good: skewed data
        // (heavy-tailed counts, one giant count) then costs at most three rounds more
        // than bisection, while near-linear data converges in a few bracketed rounds.
        if guessed && !first && !bisect && (hi - lo).saturating_mul(8) > len {
            misses += 1;
            bisect = misses >= 2;
        }
        guessed = true;
    }
    (lo, left, rounds)
}

/// The window ([`interpolation_partition_point_rounds`]) for a search that loads one
/// integer key of type `I` a probe: a line of 4-byte keys (32 positions), half a line of
/// 8-byte ones (8; a whole line spilled in the 64-register partition kernels).
///
/// Each window position is a load of its own, so a window costs a warp `window` load
/// instructions, each touching as many lines as the warp has searches: worth it where
/// the searches are few and their rounds' latency is the cost (the load-balancing
/// partitions of dense scans), not where there are many (Bulk Insert's counting
/// partitions at 2^24 took 24 us with windows against 10 without, on an H100).
///
/// ```
/// assert_eq!(mgpu_ctasearch::interpolation_window::<u32>(), 32);
/// assert_eq!(mgpu_ctasearch::interpolation_window::<u64>(), 8);
/// ```
#[inline(always)]
pub const fn interpolation_window<I>() -> usize {
    let bytes = if core::mem::size_of::<I>() > 4 {
        64
    } else {
        128
    };
    let w = bytes / core::mem::size_of::<I>();
    if w < INTERPOLATION_WINDOW {
        w
    } else {
        INTERPOLATION_WINDOW
    }
}

/// The first guess of a Merge Path search over `[begin, end)`: the split of `diag` in
/// proportion to the two sequences' lengths, where two runs from one distribution (a
/// mergesort pass's lists), a scan of random counts against its items, or sorted random
/// indices against their positions meet it, within a random sample's spread.
#[inline(always)]
fn proportional(a_count: u64, b_count: u64, diag: u64, begin: u64, end: u64) -> u64 {
    let guess = (diag as f64 * (a_count as f64 / (a_count + b_count) as f64)) as u64;
    guess.clamp(begin, end.saturating_sub(1).max(begin))
}

/// `sqrt(x)` within about 6% for `x >= 1` (halving the exponent; `core` has no `sqrt`):
/// it only places probes, and is the same bit for bit on every backend.
#[inline(always)]
fn rough_sqrt(x: f64) -> f64 {
    f64::from_bits((x.to_bits() >> 1) + (1023u64 << 51))
}

#[inline(always)]
fn f<I: Idx>(v: I) -> f64 {
    v.to_u64() as f64
}

/// [`crate::binary_search`] of `key` in the `count` ascending integers of `data` (the
/// lower or upper bound), by interpolation on `key - data[m]`: the same result on sorted
/// data, in far fewer dependent probes on near-linear data; on unsorted data some
/// position in `0..=count`.
///
/// # Safety
/// `data` is readable at `0..count`.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{interpolation_search, Lower, Upper};
/// let v = [1u32, 3, 3, 5, 9];
/// assert_eq!(unsafe { interpolation_search(&v[..], 5, 3, Lower) }, 1);
/// assert_eq!(unsafe { interpolation_search(&v[..], 5, 3, Upper) }, 3);
/// assert_eq!(unsafe { interpolation_search(&v[..], 5, 10, Lower) }, 5);
/// ```
#[inline(always)]
pub unsafe fn interpolation_search<I: Idx, K: Keys<I>, B: SearchBounds>(
    data: K,
    count: u64,
    key: I,
    bounds: B,
) -> u64 {
    interpolation_search_left(data, count, key, bounds).0
}

/// [`interpolation_search`], also returning `data[result - 1]` as the search loaded it
/// (`None` for a result of 0): the CSR partitions' "does the row start at the key" without
/// a load after the search.
///
/// # Safety
/// `data` is readable at `0..count`.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{interpolation_search_left, Upper};
/// let csr = [0u64, 957, 1008, 2000, 2312];
/// assert_eq!(unsafe { interpolation_search_left(&csr[..], 5, 1000, Upper) }, (2, Some(957)));
/// assert_eq!(unsafe { interpolation_search_left(&csr[..], 5, 2000, Upper) }, (4, Some(2000)));
/// ```
#[inline(always)]
pub unsafe fn interpolation_search_left<I: Idx, K: Keys<I>, B: SearchBounds>(
    data: K,
    count: u64,
    key: I,
    bounds: B,
) -> (u64, Option<I>) {
    let upper = bounds.is_upper();
    // Lower: right while data[m] < key (d = key - data[m] - 1); upper: while data[m] <= key.
    let off = if upper { 0.0 } else { 1.0 };
    let load = |m: u64| data.key(m as usize);
    let (r, left, _) = split_search(0, count, u64::MAX, 0, None, load, |_, k: I| {
        let right = if upper { k <= key } else { k < key };
        (right, f(key) - f(k) - off, Some(k))
    });
    (r, left)
}

/// [`crate::merge_path`] of two ascending integer sequences (`Less`) by interpolation on
/// `b[diag - 1 - m] - a[m]`, which decreases in `m`: the same split on sorted inputs, in
/// far fewer dependent probes on near-linear ones (the load-balancing search's scan
/// against `Counting(0)`, Bulk Insert's indices against the positions); on unsorted
/// inputs some position in the same range, `[diag - b_count, min(diag, a_count)]`
/// (clamped at 0).
///
/// # Safety
/// `a` is readable at `0..a_count` and `b` at `0..b_count`; `diag <= a_count + b_count`.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{merge_path_interpolation, Counting, Upper};
/// // Seed 001: the load-balancing search's split at diagonal 30 is item 21.
/// let scan = [0u32, 1, 3, 7, 7, 11, 15, 18, 21, 23, 27, 27, 27, 28, 30];
/// let mp = unsafe { merge_path_interpolation(Counting(0u32), 79, &scan[..], 15, 30, Upper) };
/// assert_eq!(mp, 21);
/// ```
#[inline(always)]
pub unsafe fn merge_path_interpolation<I: Idx, KA: Keys<I>, KB: Keys<I>, B: SearchBounds>(
    a: KA,
    a_count: u64,
    b: KB,
    b_count: u64,
    diag: u64,
    bounds: B,
) -> u64 {
    merge_path_interpolation_rounds(a, a_count, b, b_count, diag, bounds, 0).0
}

/// [`merge_path_interpolation`] with window rounds of `window` positions
/// ([`interpolation_partition_point_rounds`]; 0 for none, as `merge_path_interpolation`),
/// also returning how many rounds (dependent round trips) it took. With windows its first
/// round probes a bracket around the diagonal's proportional split.
///
/// # Safety
/// As [`merge_path_interpolation`].
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::{merge_path, merge_path_interpolation_rounds, Counting, Upper};
/// use mgpu_core::Less;
/// // A scan of counts 0, 1, 2, 0, 1, 2, ...: the split at diagonal 1,000,000 in a few
/// // rounds with windows of 32 (brackets around the proportional split and the
/// // interpolated one, then a window; a bisection of its 10^6 positions takes 20
/// // dependent probes).
/// let scan: Vec<u32> = (0..1_000_000u32).map(|i| i / 3 * 3 + [0, 0, 1][i as usize % 3]).collect();
/// let total = 1_000_000;
/// let (mp, rounds) = unsafe {
///     merge_path_interpolation_rounds(Counting(0u32), total, &scan[..], 1_000_000, 1_000_000, Upper, 32)
/// };
/// let want = unsafe { merge_path(Counting(0u32), total as u32, &scan[..], 1_000_000, 1_000_000, Upper, Less) };
/// assert_eq!(mp, want as u64);
/// assert!(rounds <= 4, "{rounds}");
/// ```
#[inline(always)]
pub unsafe fn merge_path_interpolation_rounds<I: Idx, KA: Keys<I>, KB: Keys<I>, B: SearchBounds>(
    a: KA,
    a_count: u64,
    b: KB,
    b_count: u64,
    diag: u64,
    bounds: B,
    window: usize,
) -> (u64, u32) {
    let upper = bounds.is_upper();
    let (begin, end) = merge_path_range(a_count, b_count, diag);
    // Upper: right while a < b (d = b - a - 1); lower: while a <= b (d = b - a).
    let off = if upper { 1.0 } else { 0.0 };
    // With windows the first round probes a bracket around the proportional split (on an
    // H100 the mean-1 load-balancing search 0.8 % faster at 2^27); without, the range's
    // ends, which most searches share (a guess made Bulk Insert's partitions 1 to 2 %
    // slower at 2^24).
    let guess = if window > 0 {
        proportional(a_count, b_count, diag, begin, end)
    } else {
        u64::MAX
    };
    let load = |m: u64| (a.key(m as usize), b.key((diag - 1 - m) as usize));
    let (mp, (), rounds) = split_search(begin, end, guess, window, (), load, |_, (ka, kb)| {
        let right = if upper { ka < kb } else { ka <= kb };
        (right, f(kb) - f(ka) - off, ())
    });
    (mp, rounds)
}

/// [`crate::merge_path`] of two sorted sequences of any keys by interpolation: the
/// decisions are the comparator's (`merge_path`'s, so the split on sorted inputs is
/// exactly its), and the probes are placed by `estimate(b[diag - 1 - m]) -
/// estimate(a[m])` ([`OrderEstimate`]), which decreases in `m`. Two sorted runs of keys
/// drawn from one distribution (a mergesort pass's lists) make that nearly linear, and
/// split each diagonal about in proportion to their lengths: the first round probes a
/// bracket around that split, and a range of 2^22 takes about 6 rounds of two probes
/// (four keys, one round trip) where the bisection takes 22 dependent pairs. Skewed
/// keys, NaNs or few distinct values cost rounds, at most about three more than the
/// bisection's (the module's fallback). On unsorted inputs the result is some position
/// in `[diag - b_count, min(diag, a_count)]` (clamped at 0).
///
/// # Safety
/// `a` is readable at `0..a_count` and `b` at `0..b_count`; `diag <= a_count + b_count`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Greater, Less};
/// use mgpu_ctasearch::{merge_path, merge_path_interpolation_by, Lower, Upper};
/// let a = [12.5f32, 13.0, 22.0, 63.0, 83.0, 90.0, 91.0, 96.0];
/// let b = [9.0f32, 18.0, 27.0, 30.0, 54.0, 54.0, 95.0, f32::NAN];
/// for diag in 0..=16u64 {
///     let i = unsafe { merge_path_interpolation_by(&a[..], 8, &b[..], 8, diag, Lower, Less) };
///     assert_eq!(i, unsafe { merge_path(&a[..], 8, &b[..], 8, diag, Lower, Less) });
/// }
/// let (a, b) = ([9u64, 7, 7, 1], [8u64, 7, 2]); // descending
/// let i = unsafe { merge_path_interpolation_by(&a[..], 4, &b[..], 3, 4, Upper, Greater) };
/// assert_eq!(i, unsafe { merge_path(&a[..], 4u64, &b[..], 3, 4, Upper, Greater) });
/// assert_eq!(i, 2); // 9 and 8, then the B 7 before A's two (upper bound: B first on ties)
/// ```
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn merge_path_interpolation_by<T, KA, KB, B, C>(
    a: KA,
    a_count: u64,
    b: KB,
    b_count: u64,
    diag: u64,
    bounds: B,
    _comp: C,
) -> u64
where
    T: Copy,
    KA: Keys<T>,
    KB: Keys<T>,
    B: SearchBounds,
    C: OrderEstimate<T>,
{
    let (begin, end) = merge_path_range(a_count, b_count, diag);
    let guess = proportional(a_count, b_count, diag, begin, end);
    let load = |m: u64| (a.key(m as usize), b.key((diag - 1 - m) as usize));
    split_search(begin, end, guess, 0, (), load, |_, (ka, kb)| {
        let right = merge_path_decides::<T, B, C>(&ka, &kb, bounds);
        (right, C::estimate(&kb) - C::estimate(&ka), ())
    })
    .0
}
