//! Shared test helpers: a seeded generator and the sequential references.
#![allow(dead_code)]

use mgpu_cpu::CHUNK_LEN;

/// The sizes every property covers: empty, tiny, around one chunk, around the parallel
/// threshold (two chunks) and a few multiples.
pub const EDGE_SIZES: [usize; 14] = [
    0,
    1,
    2,
    17,
    CHUNK_LEN - 1,
    CHUNK_LEN,
    CHUNK_LEN + 1,
    2 * CHUNK_LEN - 1,
    2 * CHUNK_LEN,
    2 * CHUNK_LEN + 1,
    3 * CHUNK_LEN,
    3 * CHUNK_LEN + 5,
    4 * CHUNK_LEN,
    5 * CHUNK_LEN - 7,
];

/// SplitMix64: cheap deterministic data for long inputs (proptest picks the seed).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Sequential reference: left-to-right exclusive and inclusive scans and the total.
pub fn reference<T: Copy>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> (Vec<T>, Vec<T>, T) {
    let mut ex = Vec::with_capacity(xs.len());
    let mut inc = Vec::with_capacity(xs.len());
    let mut acc = identity;
    for &x in xs {
        ex.push(acc);
        acc = op(acc, x);
        inc.push(acc);
    }
    (ex, inc, acc)
}
