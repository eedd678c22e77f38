//! Inputs, sizes and the sequential reference every backend is compared with.

use mgpu::{AssociativeOp, Element};
use mgpu_scan::kernels::tuning;
use mgpu_testkit::Target;

/// The sm_90 scan tile of a 4-byte type (256 threads x 15 values; the 8-byte scan tile
/// too) and the reduction's 8-byte tile (256 x 7).
pub const TILE4: usize = 256 * 15;
pub const TILE8: usize = 256 * 7;

/// Sizes every scan of `T` is checked at on `t`: empty, one element, tile edges of both
/// element widths and of the target's own tuning, a few tiles, and the large sizes of the
/// backend's budget (100_000, 2^20, 3_000_017).
pub fn sizes<T: Element>(t: Target) -> Vec<usize> {
    let arch = match t {
        Target::SimulatorSm70 => mgpu::Arch::Sm70,
        _ => mgpu::Arch::Sm90,
    };
    let nv = tuning::SCAN.shape(arch).nv(core::mem::size_of::<T>());
    let mut v = vec![0, 1, 2, 31, nv - 1, nv, nv + 1, 2 * nv + 17, 5 * nv - 3];
    v.extend([TILE8 - 1, TILE8, TILE8 + 1, TILE4 - 1, TILE4, TILE4 + 1]);
    v.extend([2 * TILE4 + 17, 5 * TILE4 - 3, 100_000, 1 << 20, 3_000_017]);
    v.sort_unstable();
    v.dedup();
    t.sizes(&v)
}

/// The plain left-to-right fold: (exclusive scan, inclusive scan, total).
pub fn fold<T: Element, Op: AssociativeOp<T>>(x: &[T]) -> (Vec<T>, Vec<T>, T) {
    let (exclusive, total) = mgpu_testkit::exclusive_scan(x, Op::identity(), Op::apply);
    let (inclusive, _) = mgpu_testkit::inclusive_scan(x, Op::identity(), Op::apply);
    (exclusive, inclusive, total)
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
    /// `v`, rounded to `Self`.
    fn round(v: f64) -> Self;
    /// As `f64`.
    fn wide(self) -> f64;
}

impl Float for f32 {
    fn exact(v: f64) -> Self {
        let f = v as f32;
        assert_eq!(f as f64, v, "{v} is not exact in f32");
        f
    }
    fn round(v: f64) -> Self {
        v as f32
    }
    fn wide(self) -> f64 {
        self as f64
    }
}

impl Float for f64 {
    fn exact(v: f64) -> Self {
        v
    }
    fn round(v: f64) -> Self {
        v
    }
    fn wide(self) -> f64 {
        self
    }
}
