//! Helpers shared by the simulator and GPU test binaries of mgpu-scan.

use mgpu_core::{AssociativeOp, Element};
use mgpu_scan::ScanKind;

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
