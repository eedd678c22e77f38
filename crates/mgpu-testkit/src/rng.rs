//! The tests' one seeded pseudo-random generator.

/// A small seeded pseudo-random generator for test inputs: SplitMix64 (Steele, Lea and
/// Flood, "Fast splittable pseudorandom number generators", 2014).
///
/// Every seed works, 0 included, and the same seed gives the same stream on every
/// machine and run, so a failing test fails again with the seed it printed. It is not
/// cryptographic and not meant for statistics: it is there so tests get varied,
/// reproducible inputs without a dependency. Its period is 2^64.
///
/// # Examples
///
/// ```
/// use mgpu_testkit::Rng;
/// let mut rng = Rng::new(0);
/// let counts: Vec<u64> = (0..100).map(|_| rng.below(21)).collect();
/// assert!(counts.iter().all(|&c| c < 21));
/// // The same seed, the same stream.
/// let mut again = Rng::new(0);
/// assert!(counts.iter().all(|&c| c == again.below(21)));
/// let x = rng.next_f64();
/// assert!((0.0..1.0).contains(&x));
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// The generator seeded with `seed` (any value).
    ///
    /// ```
    /// let mut a = mgpu_testkit::Rng::new(42);
    /// let mut b = a.clone();
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    pub const fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 uniformly distributed bits.
    ///
    /// ```
    /// let mut rng = mgpu_testkit::Rng::new(0);
    /// assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF); // SplitMix64's first output
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `[0, n)`, by multiplying the next 64 bits by `n` and keeping the high
    /// word (Lemire's reduction, without the rejection step: the bias is below
    /// `n / 2^64`, far below what any test can see). Panics when `n` is 0.
    ///
    /// ```
    /// let mut rng = mgpu_testkit::Rng::new(7);
    /// assert!((0..1000).all(|_| rng.below(3) < 3));
    /// assert_eq!(rng.below(1), 0);
    /// ```
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0): the range [0, 0) is empty");
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A float in `[0, 1)`: the next 53 bits scaled by 2^-53, so every value is a
    /// multiple of 2^-53.
    ///
    /// ```
    /// let mut rng = mgpu_testkit::Rng::new(3);
    /// assert!((0..1000).all(|_| (0.0..1.0).contains(&rng.next_f64())));
    /// ```
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_same_seed_gives_the_same_stream() {
        for seed in [0, 1, 42, u64::MAX] {
            let (mut a, mut b) = (Rng::new(seed), Rng::new(seed));
            for _ in 0..1000 {
                assert_eq!(a.next_u64(), b.next_u64(), "seed {seed}");
            }
        }
        // Different seeds, different streams.
        assert_ne!(Rng::new(0).next_u64(), Rng::new(1).next_u64());
    }

    #[test]
    fn splitmix64_reference_values() {
        // The reference implementation's first outputs for seed 0 and seed 1234567.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut rng = Rng::new(1_234_567);
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn seed_zero_is_not_stuck() {
        let mut rng = Rng::new(0);
        let first: Vec<u64> = (0..64).map(|_| rng.next_u64()).collect();
        assert!(first.iter().all(|&x| x != 0));
        let mut sorted = first.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), first.len(), "64 distinct outputs");
    }

    #[test]
    fn below_stays_below_and_covers_the_range() {
        let mut rng = Rng::new(0);
        for n in [1u64, 2, 3, 7, 10, 1000, 1 << 40, u64::MAX] {
            for _ in 0..1000 {
                assert!(rng.below(n) < n, "below({n})");
            }
        }
        let mut seen = [false; 10];
        for _ in 0..1000 {
            seen[rng.below(10) as usize] = true;
        }
        assert!(
            seen.iter().all(|&s| s),
            "every value of [0, 10) within 1000 draws"
        );
    }

    #[test]
    #[should_panic(expected = "Rng::below(0)")]
    fn below_zero_panics() {
        Rng::new(0).below(0);
    }

    #[test]
    fn floats_lie_in_the_unit_interval() {
        let mut rng = Rng::new(9);
        let xs: Vec<f64> = (0..10_000).map(|_| rng.next_f64()).collect();
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
    }
}
