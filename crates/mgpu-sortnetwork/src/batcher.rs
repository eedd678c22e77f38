//! Batcher's odd-even merge sort network on a thread's registers (seed 004: "sorts
//! inputs in O(n log² n) using only comparisons and swaps"; not stable).
//!
//! For a `VT` that is not a power of two the network is that of the next power of two
//! with the comparators that touch a position at or past `VT` removed: it is the network
//! of an input padded with keys greater than all others, whose comparators on the padding
//! never swap, so the truncated network still sorts.

use mgpu_core::Comparator;

/// The network: for each merge width `p` (1, 2, 4, ...) and each distance `k`
/// (`p`, `p/2`, ..., 1), runs `$body` on the compare-and-swap unit `($a, $b)` =
/// `(i + j, i + j + k)` of each pair that lies in the same block of `2p`, for `$n`
/// elements. A macro, not a function taking a closure, so that the `const fn`
/// [`odd_even_merge_sort_comparators`] walks the same network as [`batcher`].
macro_rules! for_each_comparator {
    ($n:expr, |$a:ident, $b:ident| $body:block) => {{
        let n = $n;
        let mut p = 1;
        while p < n {
            let mut k = p;
            while k >= 1 {
                let mut j = k % p;
                while j + k < n {
                    let mut i = 0;
                    while i < k && i + j + k < n {
                        let ($a, $b) = (i + j, i + j + k);
                        if $a / (2 * p) == $b / (2 * p) $body
                        i += 1;
                    }
                    j += 2 * k;
                }
                k /= 2;
            }
            p *= 2;
        }
    }};
}

/// Batcher's network on `keys`, moving `values` with them.
#[inline(always)]
fn batcher<K: Copy, V: Copy, Comp: Comparator<K>, const VT: usize>(
    keys: &mut [K; VT],
    values: &mut [V; VT],
) {
    for_each_comparator!(VT, |a, b| {
        if Comp::compare(&keys[b], &keys[a]) {
            keys.swap(a, b);
            values.swap(a, b);
        }
    });
}

/// Sorts `keys` in place with Batcher's odd-even merge sort network (fewer comparisons
/// than [`odd_even_transpose_sort_keys`](crate::odd_even_transpose_sort_keys), not
/// stable).
///
/// # Examples
///
/// ```
/// use mgpu_core::Greater;
/// let mut k = [0.5f32, 3.0, -1.0, 2.0, 7.0, 1.0, 0.0];
/// mgpu_sortnetwork::odd_even_merge_sort_keys::<_, Greater, 7>(&mut k);
/// assert_eq!(k, [7.0, 3.0, 2.0, 1.0, 0.5, 0.0, -1.0]);
/// ```
#[inline(always)]
pub fn odd_even_merge_sort_keys<K: Copy, Comp: Comparator<K>, const VT: usize>(keys: &mut [K; VT]) {
    batcher::<K, (), Comp, VT>(keys, &mut [(); VT]);
}

/// Sorts `keys` and moves `values` with them, with Batcher's odd-even merge sort network
/// (not stable: equal keys may come out with their values in any order).
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// let mut k = [4u32, 3, 2, 1];
/// let mut v = ['d', 'c', 'b', 'a'];
/// mgpu_sortnetwork::odd_even_merge_sort_pairs::<_, _, Less, 4>(&mut k, &mut v);
/// assert_eq!(k, [1, 2, 3, 4]);
/// assert_eq!(v, ['a', 'b', 'c', 'd']);
/// ```
#[inline(always)]
pub fn odd_even_merge_sort_pairs<K: Copy, V: Copy, Comp: Comparator<K>, const VT: usize>(
    keys: &mut [K; VT],
    values: &mut [V; VT],
) {
    batcher::<K, V, Comp, VT>(keys, values);
}

/// The number of compare-and-swap units in Batcher's network for `n` elements (for
/// comparing with the `n (n - 1) / 2` of odd-even transposition sort).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_sortnetwork::odd_even_merge_sort_comparators(8), 19);
/// assert_eq!(mgpu_sortnetwork::odd_even_merge_sort_comparators(1), 0);
/// ```
pub const fn odd_even_merge_sort_comparators(n: usize) -> usize {
    let mut count = 0;
    for_each_comparator!(n, |_a, _b| {
        count += 1;
    });
    count
}
