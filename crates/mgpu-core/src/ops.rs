//! The seeds' operators and comparators as zero-sized types.
//!
//! Integer arithmetic wraps on every backend (also in debug builds), as it does on the
//! GPU. `Maximum`/`Minimum` are `if a < b { b } else { a }` and its mirror, the same bits on
//! every backend (for floats with a NaN operand the result depends on the operand order,
//! as in C++'s `std::max`).

use crate::types::Element;

/// A binary operator on `T`. Zero-sized, so kernels are instantiated per operator.
///
/// # Examples
///
/// ```
/// use mgpu_core::{BinaryOp, Minus};
/// assert_eq!(<Minus as BinaryOp<i32>>::apply(3, 5), -2);
/// ```
pub trait BinaryOp<T>: Copy + Default + Send + Sync + 'static {
    /// The operator's name in kernel entry names (`"plus"`, `"max"`, ...).
    const NAME: &'static str;
    /// `a op b`.
    fn apply(a: T, b: T) -> T;
}

/// An associative operator with an identity: what reductions and scans accept.
/// Implemented for plus, multiplies, maximum and minimum on every element type, for
/// bit_and, bit_or and bit_xor on the integers, and for [`Mat2Mul`] on u64, so a wrong
/// pairing does not compile. The CPU backend and the segmented reduction apply it in
/// input order, so it need not be commutative ([`Mat2Mul`] is not); the GPU scans and
/// reductions are instantiated for the commutative ones only.
///
/// ```compile_fail
/// use mgpu_core::{AssociativeOp, BitAnd};
/// let _ = <BitAnd as AssociativeOp<f32>>::identity();
/// ```
///
/// # Examples
///
/// ```
/// use mgpu_core::{AssociativeOp, BinaryOp, Multiplies};
/// let id = <Multiplies as AssociativeOp<f64>>::identity();
/// assert_eq!(<Multiplies as BinaryOp<f64>>::apply(id, 2.5), 2.5);
/// ```
pub trait AssociativeOp<T>: BinaryOp<T> {
    /// Whether the operands may also be folded in any order: `a op b` and `b op a` are
    /// the same value for every `a` and `b` (NaN payloads aside). True for the integer
    /// operators and float plus and multiplies; false for float maximum and minimum
    /// (with a NaN operand the result depends on the order) and [`Mat2Mul`].
    ///
    /// ```
    /// use mgpu_core::{AssociativeOp, Mat2Mul, Maximum, Plus};
    /// assert!(<Plus as AssociativeOp<f64>>::COMMUTATIVE && <Maximum as AssociativeOp<u32>>::COMMUTATIVE);
    /// assert!(!<Maximum as AssociativeOp<f32>>::COMMUTATIVE && !<Mat2Mul as AssociativeOp<u64>>::COMMUTATIVE);
    /// ```
    const COMMUTATIVE: bool = true;
    /// `x op identity() == x` for every `x`.
    fn identity() -> T;
}

/// Comparator on `T` (the seeds' `mgpu::less<T>` and friends).
///
/// # Examples
///
/// ```
/// use mgpu_core::{Comparator, Greater, Less};
/// assert!(<Less as Comparator<i32>>::compare(&1, &2));
/// assert!(<Greater as Comparator<i32>>::compare(&2, &1));
/// ```
pub trait Comparator<T>: Copy + Default + Send + Sync + 'static {
    /// The comparator's name in kernel entry names.
    const NAME: &'static str;
    /// The predicate.
    fn compare(a: &T, b: &T) -> bool;
}

macro_rules! zst {
    ($($(#[$m:meta])* $name:ident),*) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
    )*};
}

zst!(
    /// `a + b` (wrapping for integers). Identity 0.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, Plus};
    /// assert_eq!(<Plus as BinaryOp<i32>>::apply(2, 3), 5);
    /// ```
    Plus,
    /// `a - b` (wrapping for integers). Not associative: not a scan operator.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, Minus};
    /// assert_eq!(<Minus as BinaryOp<u32>>::apply(0, 1), u32::MAX);
    /// ```
    Minus,
    /// `a * b` (wrapping for integers). Identity 1.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, Multiplies};
    /// assert_eq!(<Multiplies as BinaryOp<f32>>::apply(2.0, 3.0), 6.0);
    /// ```
    Multiplies,
    /// `a % b` for integers, with `a % 0 == 0` (no trap) and wrapping `MIN % -1 == 0`.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, Modulus};
    /// assert_eq!(<Modulus as BinaryOp<i32>>::apply(7, 3), 1);
    /// assert_eq!(<Modulus as BinaryOp<i32>>::apply(7, 0), 0);
    /// ```
    Modulus,
    /// `a | b`, integers only. Identity 0.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, BitOr};
    /// assert_eq!(<BitOr as BinaryOp<u32>>::apply(4, 1), 5);
    /// ```
    BitOr,
    /// `a & b`, integers only. Identity all ones.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, BitAnd};
    /// assert_eq!(<BitAnd as BinaryOp<u32>>::apply(6, 3), 2);
    /// ```
    BitAnd,
    /// `a ^ b`, integers only. Identity 0.
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, BitXor};
    /// assert_eq!(<BitXor as BinaryOp<u32>>::apply(6, 3), 5);
    /// ```
    BitXor,
    /// The larger of `a` and `b`. Identity: the type's minimum (`-inf` for floats).
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, Maximum};
    /// assert_eq!(<Maximum as BinaryOp<i64>>::apply(-3, 2), 2);
    /// ```
    Maximum,
    /// The smaller of `a` and `b`. Identity: the type's maximum (`+inf` for floats).
    ///
    /// ```
    /// use mgpu_core::{BinaryOp, Minimum};
    /// assert_eq!(<Minimum as BinaryOp<i64>>::apply(-3, 2), -3);
    /// ```
    Minimum,
    /// The product of 2x2 matrices of u16 entries (wrapping), each packed into a u64 row
    /// by row from the high bits: `[a b; c d]` is `a << 48 | b << 32 | c << 16 | d`.
    /// Identity: the unit matrix. Associative but **not commutative**: a reduction with it
    /// shows whether its operands were combined in order (the order tests of the
    /// segmented reduction use it), and a segmented product of such matrices is a
    /// segmented linear recurrence.
    ///
    /// ```
    /// use mgpu_core::{AssociativeOp, BinaryOp, Mat2Mul};
    /// let m = |a: u64, b: u64, c: u64, d: u64| a << 48 | b << 32 | c << 16 | d;
    /// let (x, y) = (m(1, 2, 0, 1), m(1, 0, 3, 1));
    /// assert_eq!(Mat2Mul::apply(x, y), m(7, 2, 3, 1));
    /// assert_eq!(Mat2Mul::apply(y, x), m(1, 2, 3, 7)); // not commutative
    /// assert_eq!(Mat2Mul::apply(x, Mat2Mul::identity()), x);
    /// ```
    Mat2Mul,
    /// `a < b` in the element's total order ([`Element::total_lt`]): `<` for integers,
    /// IEEE 754 totalOrder for floats (as `f64::total_cmp`: `-0.0` before `+0.0`, NaNs at
    /// the ends by sign), so that a sort of floats is the same on every backend.
    ///
    /// ```
    /// use mgpu_core::{Comparator, Less};
    /// assert!(!<Less as Comparator<f64>>::compare(&1.0, &1.0));
    /// assert!(<Less as Comparator<f64>>::compare(&-0.0, &0.0));
    /// assert!(<Less as Comparator<f32>>::compare(&f32::INFINITY, &f32::NAN));
    /// ```
    Less,
    /// `a > b` in the element's total order (`Less` with its arguments swapped).
    ///
    /// ```
    /// use mgpu_core::{Comparator, Greater};
    /// assert!(<Greater as Comparator<u32>>::compare(&3, &1));
    /// assert!(<Greater as Comparator<f64>>::compare(&f64::NAN, &f64::INFINITY));
    /// ```
    Greater,
    /// `a == b`.
    ///
    /// ```
    /// use mgpu_core::{Comparator, EqualTo};
    /// assert!(<EqualTo as Comparator<u32>>::compare(&3, &3));
    /// ```
    EqualTo
);

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        impl BinaryOp<$t> for Plus {
            const NAME: &'static str = "plus";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a.wrapping_add(b) }
        }
        impl AssociativeOp<$t> for Plus {
            #[inline(always)]
            fn identity() -> $t { 0 }
        }
        impl BinaryOp<$t> for Minus {
            const NAME: &'static str = "minus";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a.wrapping_sub(b) }
        }
        impl BinaryOp<$t> for Multiplies {
            const NAME: &'static str = "mul";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a.wrapping_mul(b) }
        }
        impl AssociativeOp<$t> for Multiplies {
            #[inline(always)]
            fn identity() -> $t { 1 }
        }
        impl BinaryOp<$t> for Modulus {
            const NAME: &'static str = "mod";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { if b == 0 { 0 } else { a.wrapping_rem(b) } }
        }
        impl BinaryOp<$t> for BitOr {
            const NAME: &'static str = "or";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a | b }
        }
        impl AssociativeOp<$t> for BitOr {
            #[inline(always)]
            fn identity() -> $t { 0 }
        }
        impl BinaryOp<$t> for BitAnd {
            const NAME: &'static str = "and";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a & b }
        }
        impl AssociativeOp<$t> for BitAnd {
            #[inline(always)]
            fn identity() -> $t { !0 }
        }
        impl BinaryOp<$t> for BitXor {
            const NAME: &'static str = "xor";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a ^ b }
        }
        impl AssociativeOp<$t> for BitXor {
            #[inline(always)]
            fn identity() -> $t { 0 }
        }
        impl AssociativeOp<$t> for Maximum {
            #[inline(always)]
            fn identity() -> $t { <$t>::MIN }
        }
        impl AssociativeOp<$t> for Minimum {
            #[inline(always)]
            fn identity() -> $t { <$t>::MAX }
        }
    )*};
}

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl BinaryOp<$t> for Plus {
            const NAME: &'static str = "plus";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a + b }
        }
        impl AssociativeOp<$t> for Plus {
            #[inline(always)]
            fn identity() -> $t { 0.0 }
        }
        impl BinaryOp<$t> for Minus {
            const NAME: &'static str = "minus";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a - b }
        }
        impl BinaryOp<$t> for Multiplies {
            const NAME: &'static str = "mul";
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t { a * b }
        }
        impl AssociativeOp<$t> for Multiplies {
            #[inline(always)]
            fn identity() -> $t { 1.0 }
        }
        impl AssociativeOp<$t> for Maximum {
            const COMMUTATIVE: bool = false;
            #[inline(always)]
            fn identity() -> $t { <$t>::NEG_INFINITY }
        }
        impl AssociativeOp<$t> for Minimum {
            const COMMUTATIVE: bool = false;
            #[inline(always)]
            fn identity() -> $t { <$t>::INFINITY }
        }
    )*};
}

int_ops!(i32, u32, i64, u64);
float_ops!(f32, f64);

impl BinaryOp<u64> for Mat2Mul {
    const NAME: &'static str = "mat2mul";
    #[inline(always)]
    fn apply(x: u64, y: u64) -> u64 {
        let e = |m: u64, k: u32| (m >> (48 - 16 * k)) as u16;
        let (a, b, c, d) = (e(x, 0), e(x, 1), e(x, 2), e(x, 3));
        let (p, q, r, s) = (e(y, 0), e(y, 1), e(y, 2), e(y, 3));
        let dot = |u: u16, v: u16, w: u16, z: u16| {
            u.wrapping_mul(v).wrapping_add(w.wrapping_mul(z)) as u64
        };
        dot(a, p, b, r) << 48 | dot(a, q, b, s) << 32 | dot(c, p, d, r) << 16 | dot(c, q, d, s)
    }
}

impl AssociativeOp<u64> for Mat2Mul {
    const COMMUTATIVE: bool = false;
    #[inline(always)]
    fn identity() -> u64 {
        1 << 48 | 1
    }
}

impl<T: Element> BinaryOp<T> for Maximum {
    const NAME: &'static str = "max";
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        if a < b {
            b
        } else {
            a
        }
    }
}

impl<T: Element> BinaryOp<T> for Minimum {
    const NAME: &'static str = "min";
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        if b < a {
            b
        } else {
            a
        }
    }
}

impl<T: Element> Comparator<T> for Less {
    const NAME: &'static str = "less";
    #[inline(always)]
    fn compare(a: &T, b: &T) -> bool {
        T::total_lt(a, b)
    }
}

impl<T: Element> Comparator<T> for Greater {
    const NAME: &'static str = "greater";
    #[inline(always)]
    fn compare(a: &T, b: &T) -> bool {
        T::total_lt(b, a)
    }
}

/// A comparator whose order a real number follows: `estimate(a) <= estimate(b)` whenever
/// `compare(a, b)`, NaNs aside. An interpolation search places its probes by it
/// (`mgpu_ctasearch::merge_path_interpolation_by`, the merge partitions); the decisions
/// stay the comparator's, so a poor estimate (NaNs, skewed keys) costs probes, never a
/// wrong split. [`Less`] estimates by the value, [`Greater`] by its negation.
///
/// ```
/// use mgpu_core::{Greater, Less, OrderEstimate};
/// assert_eq!(<Less as OrderEstimate<i32>>::estimate(&-7), -7.0);
/// assert_eq!(<Greater as OrderEstimate<u32>>::estimate(&7), -7.0);
/// ```
pub trait OrderEstimate<T>: Comparator<T> {
    /// A real number non-decreasing in the comparator's order.
    fn estimate(a: &T) -> f64;
}

impl<T: Element> OrderEstimate<T> for Less {
    #[inline(always)]
    fn estimate(a: &T) -> f64 {
        a.approx_f64()
    }
}

impl<T: Element> OrderEstimate<T> for Greater {
    #[inline(always)]
    fn estimate(a: &T) -> f64 {
        -a.approx_f64()
    }
}

impl<T: Element> Comparator<T> for EqualTo {
    const NAME: &'static str = "equal";
    #[inline(always)]
    fn compare(a: &T, b: &T) -> bool {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_identities() {
        fn check<T: Element, O: AssociativeOp<T>>(xs: &[T]) {
            for &x in xs {
                assert_eq!(O::apply(x, O::identity()), x);
                assert_eq!(O::apply(O::identity(), x), x);
            }
        }
        let ints = [0i32, 1, -1, i32::MIN, i32::MAX, 12345];
        check::<i32, Plus>(&ints);
        check::<i32, Multiplies>(&ints);
        check::<i32, Maximum>(&ints);
        check::<i32, Minimum>(&ints);
        check::<i32, BitAnd>(&ints);
        check::<i32, BitOr>(&ints);
        check::<i32, BitXor>(&ints);
        let floats = [0.0f64, -1.5, 3.25, f64::MAX, f64::MIN];
        check::<f64, Plus>(&floats);
        check::<f64, Multiplies>(&floats);
        check::<f64, Maximum>(&floats);
        check::<f64, Minimum>(&floats);
    }

    #[test]
    fn integer_arithmetic_wraps() {
        assert_eq!(<Plus as BinaryOp<i32>>::apply(i32::MAX, 1), i32::MIN);
        assert_eq!(
            <Multiplies as BinaryOp<u64>>::apply(u64::MAX, 2),
            u64::MAX - 1
        );
        assert_eq!(<Modulus as BinaryOp<i64>>::apply(i64::MIN, -1), 0);
    }
}
