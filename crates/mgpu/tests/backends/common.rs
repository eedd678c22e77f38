//! Inputs and the sequential reference the suite compares every backend with.

use mgpu::{AssociativeOp, Element};

/// The sm_90 scan tile of a 4-byte type (256 threads x 15 values) and of an 8-byte type
/// (256 x 7).
pub const TILE4: usize = 256 * 15;
pub const TILE8: usize = 256 * 7;

/// Sizes every scan is checked at: empty, one element, tile edges of both element widths,
/// and a few multi-tile sizes (small enough for the simulator).
pub const SIZES: [usize; 12] = [
    0,
    1,
    2,
    31,
    TILE8 - 1,
    TILE8,
    TILE8 + 1,
    TILE4 - 1,
    TILE4,
    TILE4 + 1,
    2 * TILE4 + 17,
    5 * TILE4 - 3,
];

/// The plain left-to-right fold: (exclusive scan, inclusive scan, total).
pub fn fold<T: Element, Op: AssociativeOp<T>>(x: &[T]) -> (Vec<T>, Vec<T>, T) {
    let mut acc = Op::identity();
    let mut exclusive = Vec::with_capacity(x.len());
    let mut inclusive = Vec::with_capacity(x.len());
    for &v in x {
        exclusive.push(acc);
        acc = Op::apply(acc, v);
        inclusive.push(acc);
    }
    (exclusive, inclusive, acc)
}

/// An integer element from 64 random bits (the low 32 for 4-byte types).
pub fn int_from_bits<T: Element>(bits: u64) -> T {
    T::from_words([bits as u32, (bits >> 32) as u32])
}

/// The float element types, built from values chosen so that sums and products stay
/// exact (every association order then gives the same bits).
pub trait Float: Element {
    /// `v`, which must be exactly representable in `Self`.
    fn exact(v: f64) -> Self;
}

impl Float for f32 {
    fn exact(v: f64) -> Self {
        let f = v as f32;
        assert_eq!(f as f64, v, "{v} is not exact in f32");
        f
    }
}

impl Float for f64 {
    fn exact(v: f64) -> Self {
        v
    }
}
