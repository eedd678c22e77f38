//! Element and index types.

mod sealed {
    pub trait Sealed {}
}

/// A value type kernels move and combine: i32, u32, i64, u64, f32 or f64.
///
/// Elements travel through shuffles as one or two 32-bit words ([`Element::to_words`]).
/// The trait is sealed: the committed PTX is instantiated for exactly these six types.
///
/// # Examples
///
/// ```
/// use mgpu_core::Element;
/// assert_eq!(<f64 as Element>::NAME, "f64");
/// let w = (-2i64).to_words();
/// assert_eq!(i64::from_words(w), -2);
/// ```
pub trait Element:
    Copy + Default + PartialEq + PartialOrd + Send + Sync + core::fmt::Debug + 'static + sealed::Sealed
{
    /// The type's name as it appears in kernel entry names (`"i32"`, `"f64"`, ...).
    const NAME: &'static str;
    /// 1 for 4-byte types, 2 for 8-byte types.
    const WORDS: usize;
    /// Additive zero.
    const ZERO: Self;
    /// The value as 32-bit words, low word first (the second is 0 for 4-byte types).
    fn to_words(self) -> [u32; 2];
    /// Inverse of [`Element::to_words`].
    fn from_words(w: [u32; 2]) -> Self;
    /// `a` before `b` in the type's total order: `<` for integers; for floats IEEE 754's
    /// totalOrder, as [`f64::total_cmp`] orders them (`-NaN < -inf < ... < -0.0 < +0.0 <
    /// ... < +inf < +NaN`, NaNs by payload), so that sorts and merges of floats are
    /// strict weak orders with NaNs and give the same bits on every backend.
    ///
    /// ```
    /// use mgpu_core::Element;
    /// assert!(f32::total_lt(&-0.0, &0.0));
    /// assert!(f64::total_lt(&f64::INFINITY, &f64::NAN));
    /// assert!(f64::total_lt(&-f64::NAN, &f64::NEG_INFINITY));
    /// assert!(!f64::total_lt(&f64::NAN, &f64::NAN));
    /// assert!(i32::total_lt(&-1, &0));
    /// ```
    fn total_lt(a: &Self, b: &Self) -> bool;
    /// The value as an `f64` (rounded to 53 bits; NaNs stay NaN): non-decreasing in the
    /// type's order everywhere but at NaNs. It only places the probes of the merge
    /// partitions' interpolation search ([`OrderEstimate`](crate::OrderEstimate)), never
    /// decides anything.
    ///
    /// ```
    /// use mgpu_core::Element;
    /// assert_eq!(u64::MAX.approx_f64(), 18446744073709551616.0);
    /// assert_eq!((-3i32).approx_f64(), -3.0);
    /// assert!(f32::NAN.approx_f64().is_nan());
    /// ```
    fn approx_f64(self) -> f64;
}

macro_rules! element32 {
    ($($t:ty => $name:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
            const WORDS: usize = 1;
            const ZERO: Self = 0 as $t;
            #[inline(always)]
            fn to_words(self) -> [u32; 2] {
                [self.to_bits_u32(), 0]
            }
            #[inline(always)]
            fn from_words(w: [u32; 2]) -> Self {
                <$t>::from_bits_u32(w[0])
            }
            #[inline(always)]
            fn total_lt(a: &Self, b: &Self) -> bool {
                <$t as TotalOrder>::total_lt(a, b)
            }
            #[inline(always)]
            fn approx_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}

macro_rules! element64 {
    ($($t:ty => $name:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
            const WORDS: usize = 2;
            const ZERO: Self = 0 as $t;
            #[inline(always)]
            fn to_words(self) -> [u32; 2] {
                let b = self.to_bits_u64();
                [b as u32, (b >> 32) as u32]
            }
            #[inline(always)]
            fn from_words(w: [u32; 2]) -> Self {
                <$t>::from_bits_u64(w[0] as u64 | ((w[1] as u64) << 32))
            }
            #[inline(always)]
            fn total_lt(a: &Self, b: &Self) -> bool {
                <$t as TotalOrder>::total_lt(a, b)
            }
            #[inline(always)]
            fn approx_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}

/// The total order of [`Element::total_lt`]: `<` for integers; for floats the bits made
/// sign-magnitude → two's complement (what `total_cmp` does) and compared as signed
/// integers.
trait TotalOrder {
    fn total_lt(a: &Self, b: &Self) -> bool;
}
macro_rules! total_order_int {
    ($($t:ty),*) => {$(
        impl TotalOrder for $t {
            #[inline(always)]
            fn total_lt(a: &Self, b: &Self) -> bool {
                a < b
            }
        }
    )*};
}
total_order_int!(i32, u32, i64, u64);
impl TotalOrder for f32 {
    #[inline(always)]
    fn total_lt(a: &Self, b: &Self) -> bool {
        let key = |x: &f32| {
            let k = x.to_bits() as i32;
            k ^ (((k >> 31) as u32) >> 1) as i32
        };
        key(a) < key(b)
    }
}
impl TotalOrder for f64 {
    #[inline(always)]
    fn total_lt(a: &Self, b: &Self) -> bool {
        let key = |x: &f64| {
            let k = x.to_bits() as i64;
            k ^ (((k >> 63) as u64) >> 1) as i64
        };
        key(a) < key(b)
    }
}

/// Bit casts shared by the element macros.
trait Bits32 {
    fn to_bits_u32(self) -> u32;
    fn from_bits_u32(b: u32) -> Self;
}
trait Bits64 {
    fn to_bits_u64(self) -> u64;
    fn from_bits_u64(b: u64) -> Self;
}
impl Bits32 for i32 {
    #[inline(always)]
    fn to_bits_u32(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_bits_u32(b: u32) -> Self {
        b as i32
    }
}
impl Bits32 for u32 {
    #[inline(always)]
    fn to_bits_u32(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_bits_u32(b: u32) -> Self {
        b
    }
}
impl Bits32 for f32 {
    #[inline(always)]
    fn to_bits_u32(self) -> u32 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits_u32(b: u32) -> Self {
        f32::from_bits(b)
    }
}
impl Bits64 for i64 {
    #[inline(always)]
    fn to_bits_u64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_bits_u64(b: u64) -> Self {
        b as i64
    }
}
impl Bits64 for u64 {
    #[inline(always)]
    fn to_bits_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_bits_u64(b: u64) -> Self {
        b
    }
}
impl Bits64 for f64 {
    #[inline(always)]
    fn to_bits_u64(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_bits_u64(b: u64) -> Self {
        f64::from_bits(b)
    }
}

element32!(i32 => "i32", u32 => "u32", f32 => "f32");
element64!(i64 => "i64", u64 => "u64", f64 => "f64");

/// The integer element types (i32, u32, i64, u64): the ones the bit operators and
/// [`crate::Modulus`] accept.
///
/// # Examples
///
/// ```
/// use mgpu_core::Integer;
/// fn is_int<T: Integer>() {}
/// is_int::<u64>();
/// ```
pub trait Integer: Element + Eq + Ord {}
impl Integer for i32 {}
impl Integer for u32 {}
impl Integer for i64 {}
impl Integer for u64 {}

/// The type of counts, scans, indices and offsets: u32 (the seeds' `int`) or u64.
///
/// A total that does not fit the index type is an error in the host API, never a wrapped
/// value.
///
/// # Examples
///
/// ```
/// use mgpu_core::Index;
/// assert_eq!(<u32 as Index>::from_usize(7), Some(7u32));
/// assert_eq!(<u32 as Index>::from_usize(1 << 40), None);
/// assert_eq!(5u64.to_u64(), 5);
/// ```
pub trait Index: Integer {
    /// Largest value.
    const MAX: Self;
    /// Widen to u64.
    fn to_u64(self) -> u64;
    /// Narrow from u64 (truncating).
    fn from_u64_wrapping(v: u64) -> Self;
    /// `Some(v)` when `v` fits.
    fn from_usize(v: usize) -> Option<Self>;
    /// Convert to usize (saturating on 32-bit hosts).
    fn to_usize(self) -> usize;
}

impl Index for u32 {
    const MAX: Self = u32::MAX;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_u64_wrapping(v: u64) -> Self {
        v as u32
    }
    #[inline(always)]
    fn from_usize(v: usize) -> Option<Self> {
        u32::try_from(v).ok()
    }
    #[inline(always)]
    fn to_usize(self) -> usize {
        self as usize
    }
}

impl Index for u64 {
    const MAX: Self = u64::MAX;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_u64_wrapping(v: u64) -> Self {
        v
    }
    #[inline(always)]
    fn from_usize(v: usize) -> Option<Self> {
        Some(v as u64)
    }
    #[inline(always)]
    fn to_usize(self) -> usize {
        usize::try_from(self).unwrap_or(usize::MAX)
    }
}
