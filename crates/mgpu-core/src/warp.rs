//! Typed warp shuffles built on the 32-bit ones of [`Cta`].

use crate::{Cta, Element};

macro_rules! typed_shfl {
    ($(#[$m:meta])* $name:ident, $raw:ident) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name<C: Cta, T: Element>(cta: &C, mask: u32, v: T, arg: u32, width: u32) -> T {
            let w = v.to_words();
            let lo = cta.$raw(mask, w[0], arg, width);
            let hi = if T::WORDS == 2 { cta.$raw(mask, w[1], arg, width) } else { 0 };
            T::from_words([lo, hi])
        }
    };
}

typed_shfl!(
    /// [`Cta::shfl_idx_u32`] for any element type (two shuffles for 8-byte types).
    ///
    /// ```
    /// use mgpu_core::{shfl_idx, sim, Cta};
    /// let mut got = vec![0.0f64; 32];
    /// let p = got.as_mut_ptr() as usize;
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| {
    ///     let v = shfl_idx(cta, !0, cta.tid() as f64 * 0.5, 3, 32);
    ///     unsafe { *(p as *mut f64).add(cta.tid() as usize) = v };
    /// });
    /// assert!(got.iter().all(|&x| x == 1.5));
    /// ```
    shfl_idx,
    shfl_idx_u32
);
typed_shfl!(
    /// [`Cta::shfl_up_u32`] for any element type.
    ///
    /// ```
    /// use mgpu_core::{shfl_up, sim, Cta};
    /// let mut got = vec![0i64; 32];
    /// let p = got.as_mut_ptr() as usize;
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| {
    ///     let v = shfl_up(cta, !0, -(cta.tid() as i64), 1, 32);
    ///     unsafe { *(p as *mut i64).add(cta.tid() as usize) = v };
    /// });
    /// assert_eq!(got[0], 0);
    /// assert_eq!(got[5], -4);
    /// ```
    shfl_up,
    shfl_up_u32
);
typed_shfl!(
    /// [`Cta::shfl_down_u32`] for any element type.
    ///
    /// ```
    /// use mgpu_core::{shfl_down, sim, Cta};
    /// let mut got = vec![0u32; 32];
    /// let p = got.as_mut_ptr() as usize;
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| {
    ///     let v = shfl_down(cta, !0, cta.tid(), 2, 32);
    ///     unsafe { *(p as *mut u32).add(cta.tid() as usize) = v };
    /// });
    /// assert_eq!(got[3], 5);
    /// assert_eq!(got[31], 31);
    /// ```
    shfl_down,
    shfl_down_u32
);
typed_shfl!(
    /// [`Cta::shfl_xor_u32`] for any element type.
    ///
    /// ```
    /// use mgpu_core::{shfl_xor, sim, Cta};
    /// let mut got = vec![0f32; 32];
    /// let p = got.as_mut_ptr() as usize;
    /// sim::launch(1, 32, 0, &|cta: &sim::SimCta| {
    ///     let v = shfl_xor(cta, !0, cta.tid() as f32, 1, 32);
    ///     unsafe { *(p as *mut f32).add(cta.tid() as usize) = v };
    /// });
    /// assert_eq!(got[4], 5.0);
    /// ```
    shfl_xor,
    shfl_xor_u32
);
