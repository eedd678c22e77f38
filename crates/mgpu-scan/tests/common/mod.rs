//! Helpers shared by the simulator and GPU test binaries of mgpu-scan.

use mgpu_core::{AssociativeOp, Element};
use mgpu_scan::ScanKind;

/// Deterministic pseudo-random stream (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The plain left-to-right scan of `x` and its total: the definition the kernels must
/// match.
pub fn reference<T: Element, Op: AssociativeOp<T>>(x: &[T], kind: ScanKind) -> (Vec<T>, T) {
    let mut acc = Op::identity();
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        let next = Op::apply(acc, v);
        out.push(if kind == ScanKind::Inclusive {
            next
        } else {
            acc
        });
        acc = next;
    }
    (out, acc)
}
