//! Shared test helpers: the edge sizes and the sequential references.
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
