//! 16-byte vectors: the unit of the vector loads and stores of [`partials`](super::partials)
//! and the look-back scan's full tiles.

use super::*;

/// 16 bytes: the unit of [`partials`]' vector loads.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub(super) struct Vec16(pub(super) [u32; 4]);

/// `prefix op v` for each element of one 16-byte vector.
#[inline(always)]
pub(super) fn apply_vec16<T: Element, Op: AssociativeOp<T>>(prefix: T, v: Vec16) -> Vec16 {
    let w = v.0;
    if T::WORDS == 1 {
        Vec16(core::array::from_fn(|i| {
            Op::apply(prefix, T::from_words([w[i], 0])).to_words()[0]
        }))
    } else {
        let lo = Op::apply(prefix, T::from_words([w[0], w[1]])).to_words();
        let hi = Op::apply(prefix, T::from_words([w[2], w[3]])).to_words();
        Vec16([lo[0], lo[1], hi[0], hi[1]])
    }
}

/// A 16-byte vector of identities.
#[inline(always)]
pub(super) fn identity_vec16<T: Element, Op: AssociativeOp<T>>() -> Vec16 {
    let w = Op::identity().to_words();
    if T::WORDS == 1 {
        Vec16([w[0]; 4])
    } else {
        Vec16([w[0], w[1], w[0], w[1]])
    }
}

/// Folds the elements of one 16-byte vector into `acc`, in order.
#[inline(always)]
pub(super) fn fold_vec16<T: Element, Op: AssociativeOp<T>>(acc: T, v: Vec16) -> T {
    let w = v.0;
    if T::WORDS == 1 {
        let a = Op::apply(acc, T::from_words([w[0], 0]));
        let a = Op::apply(a, T::from_words([w[1], 0]));
        let a = Op::apply(a, T::from_words([w[2], 0]));
        Op::apply(a, T::from_words([w[3], 0]))
    } else {
        let a = Op::apply(acc, T::from_words([w[0], w[1]]));
        Op::apply(a, T::from_words([w[2], w[3]]))
    }
}
