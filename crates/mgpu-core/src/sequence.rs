//! Generated sequences (the seeds' `counting_iterator` and step iterators).

use crate::Element;

/// An element type with generated sequences: `first + step * i` (wrapping for integers,
/// rounded as `first + step * (i as T)` for floats), the same on every backend. Kernels
/// that accept "an array or a generated sequence" read values through it.
///
/// # Examples
///
/// ```
/// use mgpu_core::Sequence;
/// assert_eq!(i32::sequence(5, -2, 3), -1);
/// assert_eq!(u32::sequence(u32::MAX, 1, 2), 1); // wraps
/// assert_eq!(f64::sequence(0.5, 0.25, 4), 1.5);
/// ```
pub trait Sequence: Element {
    /// One: the step of a counting sequence.
    const ONE: Self;
    /// `first + step * i`.
    fn sequence(first: Self, step: Self, i: u64) -> Self;
}

macro_rules! seq_int {
    ($($t:ty),*) => {$(
        impl Sequence for $t {
            const ONE: Self = 1;
            #[inline(always)]
            fn sequence(first: Self, step: Self, i: u64) -> Self {
                first.wrapping_add(step.wrapping_mul(i as $t))
            }
        }
    )*};
}
seq_int!(i32, u32, i64, u64);

macro_rules! seq_float {
    ($($t:ty),*) => {$(
        impl Sequence for $t {
            const ONE: Self = 1.0;
            #[inline(always)]
            fn sequence(first: Self, step: Self, i: u64) -> Self {
                first + step * (i as $t)
            }
        }
    )*};
}
seq_float!(f32, f64);

/// An array or a generated sequence: the one model of "values given as an array or as
/// the seeds' `counting_iterator` / step iterator" on every backend. `A` is the array's
/// form: a device slice (`mgpu_runtime::DeviceSlice`) for the GPU launchers, a host slice
/// for the CPU backend, a `mgpu::Buffer` reference for the facade.
///
/// # Examples
///
/// ```
/// use mgpu_core::Source;
/// let a: Source<&[i32], i32> = [4, 5].as_slice().into();
/// assert!(matches!(a, Source::Array(&[4, 5])));
/// let c: Source<&[i32], i32> = Source::counting(3);
/// assert!(matches!(c, Source::Sequence { first: 3, step: 1 }));
/// assert_eq!(Source::<&[f64], f64>::step(1.0, 0.5).get(4), 3.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source<A, T> {
    /// The values are stored in an array.
    Array(A),
    /// The generated sequence `first + step * position` ([`Sequence::sequence`]).
    Sequence {
        /// The value at position 0.
        first: T,
        /// The difference between consecutive values.
        step: T,
    },
}

impl<A, T: Sequence> Source<A, T> {
    /// `first, first + 1, first + 2, ...` (the seeds' `counting_iterator<T>(first)`).
    ///
    /// ```
    /// use mgpu_core::Source;
    /// let s: Source<(), f64> = Source::counting(2.0);
    /// assert!(matches!(s, Source::Sequence { first: 2.0, step: 1.0 }));
    /// ```
    pub fn counting(first: T) -> Self {
        Source::Sequence {
            first,
            step: T::ONE,
        }
    }

    /// `first, first + step, first + 2 * step, ...` (the seeds' step iterator).
    ///
    /// ```
    /// use mgpu_core::Source;
    /// let s: Source<(), i64> = Source::step(10, -1);
    /// assert!(matches!(s, Source::Sequence { first: 10, step: -1 }));
    /// ```
    pub fn step(first: T, step: T) -> Self {
        Source::Sequence { first, step }
    }
}

impl<A: AsRef<[T]>, T: Sequence> Source<A, T> {
    /// The value at position `i` of a host array or of a sequence (panics past a host
    /// array's end, as indexing does).
    ///
    /// ```
    /// use mgpu_core::Source;
    /// let a: Source<Vec<u32>, u32> = Source::Array(vec![7, 8]);
    /// assert_eq!(a.get(1), 8);
    /// assert_eq!(Source::<Vec<u32>, u32>::step(1, 3).get(2), 7);
    /// ```
    #[inline]
    pub fn get(&self, i: u64) -> T {
        match self {
            Source::Array(a) => a.as_ref()[i as usize],
            Source::Sequence { first, step } => T::sequence(*first, *step, i),
        }
    }
}

impl<A, T> Source<A, T> {
    /// The array, or `None` for a sequence.
    ///
    /// ```
    /// use mgpu_core::Source;
    /// assert_eq!(Source::<&[u32], u32>::Array(&[1, 2]).array().map(|a| a.len()), Some(2));
    /// assert!(Source::<&[u32], u32>::counting(0).array().is_none());
    /// ```
    pub fn array(&self) -> Option<&A> {
        match self {
            Source::Array(a) => Some(a),
            Source::Sequence { .. } => None,
        }
    }

    /// The same source with its array in another form (a backend's buffer as that
    /// backend's slice, say), or `f`'s error; a sequence stays as it is.
    ///
    /// ```
    /// use mgpu_core::Source;
    /// let v = vec![1u32, 2];
    /// let s: Source<&Vec<u32>, u32> = Source::Array(&v);
    /// let t: Result<Source<&[u32], u32>, ()> = s.try_map_array(|v| Ok(v.as_slice()));
    /// assert_eq!(t, Ok(Source::Array(&[1u32, 2][..])));
    /// ```
    pub fn try_map_array<B, E>(self, f: impl FnOnce(A) -> Result<B, E>) -> Result<Source<B, T>, E> {
        Ok(match self {
            Source::Array(a) => Source::Array(f(a)?),
            Source::Sequence { first, step } => Source::Sequence { first, step },
        })
    }
}

impl<'a, T> From<&'a [T]> for Source<&'a [T], T> {
    fn from(a: &'a [T]) -> Self {
        Source::Array(a)
    }
}
