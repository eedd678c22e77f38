//! The count scan (`Scan(counts)`): offsets, checked totals, overflow errors.

mod common;

use common::EDGE_SIZES;
use mgpu_core::{Error, Index};
use mgpu_cpu::{scan_counts_exclusive, scan_counts_exclusive_in_place, CHUNK_LEN};
use mgpu_testkit::Rng;
use proptest::prelude::*;

fn overflow<I: Index>() -> Error {
    Error::IndexOverflow {
        what: "scan total",
        max: I::MAX.to_u64(),
    }
}

/// Checks both entry points against a u128 reference: exact offsets and total when the
/// total fits `I`, `IndexOverflow` with the input left unchanged otherwise.
fn check<I: Index>(counts: &[I]) {
    let total: u128 = counts.iter().map(|&c| c.to_u64() as u128).sum();
    let mut out = vec![I::from_u64_wrapping(7); counts.len()];
    let mut data = counts.to_vec();
    let r = scan_counts_exclusive(counts, &mut out);
    let r_in_place = scan_counts_exclusive_in_place(&mut data);
    if total > I::MAX.to_u64() as u128 {
        assert_eq!(r, Err(overflow::<I>()));
        assert_eq!(r_in_place, Err(overflow::<I>()));
        assert_eq!(data, counts, "nothing written on error");
    } else {
        let mut acc = 0u64;
        let expected: Vec<I> = counts
            .iter()
            .map(|&c| {
                let o = I::from_u64_wrapping(acc);
                acc += c.to_u64();
                o
            })
            .collect();
        assert_eq!(r, Ok(I::from_u64_wrapping(acc)));
        assert_eq!(r_in_place, Ok(I::from_u64_wrapping(acc)));
        assert!(out == expected, "scan_counts_exclusive n={}", counts.len());
        assert!(
            data == expected,
            "scan_counts_exclusive_in_place n={}",
            counts.len()
        );
    }
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(EDGE_SIZES.to_vec()), 0usize..600]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// `max` bounds each count: small (fits), around `I::MAX / n` (near the limit on
    /// either side) or unbounded (mostly overflowing).
    #[test]
    fn u32_counts(n in size(), seed in any::<u64>(), kind in 0u8..3) {
        let mut rng = Rng::new(seed);
        let max = match kind {
            0 => 100,
            1 => (2 * (u32::MAX as u64 / n.max(1) as u64)).min(u32::MAX as u64),
            _ => u32::MAX as u64,
        };
        let counts: Vec<u32> = (0..n).map(|_| rng.below(max + 1) as u32).collect();
        check(&counts);
    }

    #[test]
    fn u64_counts(n in size(), seed in any::<u64>(), kind in 0u8..3) {
        let mut rng = Rng::new(seed);
        let max = match kind {
            0 => 1 << 40,
            1 => (u64::MAX / n.max(1) as u64).saturating_mul(2),
            _ => u64::MAX,
        };
        let counts: Vec<u64> = (0..n)
            .map(|_| match max.checked_add(1) {
                Some(m) => rng.below(m),
                None => rng.next_u64(),
            })
            .collect();
        check(&counts);
    }
}

#[test]
fn seeds_worked_example() {
    let mut out = [0u32; 3];
    assert_eq!(scan_counts_exclusive(&[3u32, 2, 5], &mut out), Ok(10));
    assert_eq!(out, [0, 3, 5]);
}

#[test]
fn u32_overflow_is_an_error_and_exact_max_is_fine() {
    let mut out = [0u32; 2];
    assert_eq!(
        scan_counts_exclusive(&[u32::MAX, 1], &mut out),
        Err(overflow::<u32>())
    );
    assert_eq!(out, [0, 0]);
    let mut data = [u32::MAX, 1];
    assert_eq!(
        scan_counts_exclusive_in_place(&mut data),
        Err(overflow::<u32>())
    );
    assert_eq!(data, [u32::MAX, 1]);

    assert_eq!(
        scan_counts_exclusive(&[u32::MAX], &mut out[..1]),
        Ok(u32::MAX)
    );
    assert_eq!(out[0], 0);
    let mut data = [u32::MAX - 10, 4, 6];
    assert_eq!(scan_counts_exclusive_in_place(&mut data), Ok(u32::MAX));
    assert_eq!(data, [0, u32::MAX - 10, u32::MAX - 6]);
}

#[test]
fn u64_overflow_is_an_error_even_when_u64_sums_wrap() {
    let mut data = [u64::MAX, 1];
    assert_eq!(
        scan_counts_exclusive_in_place(&mut data),
        Err(overflow::<u64>())
    );
    assert_eq!(data, [u64::MAX, 1]);
    let mut data = [u64::MAX - 1, 1];
    assert_eq!(scan_counts_exclusive_in_place(&mut data), Ok(u64::MAX));
    // Overflow across chunks on the parallel path: every chunk sum fits, their sum does not.
    let mut big = vec![0u64; 3 * CHUNK_LEN];
    big[0] = u64::MAX / 2;
    big[CHUNK_LEN] = u64::MAX / 2;
    big[2 * CHUNK_LEN] = 2;
    assert_eq!(
        scan_counts_exclusive_in_place(&mut big),
        Err(overflow::<u64>())
    );
    big[2 * CHUNK_LEN] = 1; // total == u64::MAX
    assert_eq!(scan_counts_exclusive_in_place(&mut big), Ok(u64::MAX));
    assert_eq!(big[3 * CHUNK_LEN - 1], u64::MAX);
}

#[test]
fn u32_overflow_on_the_parallel_path_writes_nothing() {
    // 3 chunks of 2^16 counts of 2^16: total 3 * 2^32, no chunk sum overflows u32 alone
    // by much, but the total does.
    let mut counts = vec![1u32 << 16; 3 * CHUNK_LEN];
    let before = counts.clone();
    assert_eq!(
        scan_counts_exclusive_in_place(&mut counts),
        Err(overflow::<u32>())
    );
    assert!(counts == before);
    let mut out = vec![5u32; counts.len()];
    assert_eq!(
        scan_counts_exclusive(&counts, &mut out),
        Err(overflow::<u32>())
    );
    assert!(out.iter().all(|&o| o == 5));
}

#[test]
fn count_length_mismatch() {
    let mut out = [0u64; 2];
    assert_eq!(
        scan_counts_exclusive(&[1u64, 2, 3], &mut out),
        Err(Error::LengthMismatch {
            what: "output",
            expected: 3,
            got: 2
        })
    );
    assert_eq!(out, [0, 0]);
}
