//! Odd-even transposition sort on a thread's registers (seed 004's `OddEvenTransposeSort`).
//!
//! `VT` rounds; round `r` compares the pairs `(i, i + 1)` with `i ≡ r (mod 2)` and swaps
//! a pair when `comp(keys[i + 1], keys[i])`. With a strict comparator (`Less`, `Greater`)
//! equal keys never swap, so the sort is **stable**: this is why blocksort uses it, despite
//! its `VT²/2` comparisons, whenever keys carry values (keys alone take Batcher's
//! network). Every index is a constant after unrolling, so the arrays stay in registers.

use mgpu_core::Comparator;

/// The network shared by every variant: swaps `(i, i + 1)` unless element `i + 1` is a
/// segment head (bit `i + 1` of `flags`).
#[inline(always)]
fn transpose_sort<K: Copy, V: Copy, Comp: Comparator<K>, const VT: usize>(
    keys: &mut [K; VT],
    values: &mut [V; VT],
    flags: u32,
) {
    // (Heads are bits of one u32: the segmented form takes `VT <= 32`; past bit 31 there
    // are none, so that unsegmented sorts of more keys compile too.)
    let mut level = 0;
    while level < VT {
        let mut i = level & 1;
        while i + 1 < VT {
            let head = i + 1 < 32 && (flags >> (i + 1)) & 1 != 0;
            if !head && Comp::compare(&keys[i + 1], &keys[i]) {
                keys.swap(i, i + 1);
                values.swap(i, i + 1);
            }
            i += 2;
        }
        level += 1;
    }
}

/// Sorts `keys` in place with the odd-even transposition network; stable for a strict
/// comparator.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// let mut k = [5, 1, 4, 1, 3];
/// mgpu_sortnetwork::odd_even_transpose_sort_keys::<_, Less, 5>(&mut k);
/// assert_eq!(k, [1, 1, 3, 4, 5]);
/// ```
#[inline(always)]
pub fn odd_even_transpose_sort_keys<K: Copy, Comp: Comparator<K>, const VT: usize>(
    keys: &mut [K; VT],
) {
    transpose_sort::<K, (), Comp, VT>(keys, &mut [(); VT], 0);
}

/// Sorts `keys` and moves `values` with them (seed 004's `OddEvenTransposeSort`); stable
/// for a strict comparator: equal keys keep their order, and so do their values.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// let mut k = [2, 1, 2, 1];
/// let mut v = [0, 1, 2, 3];
/// mgpu_sortnetwork::odd_even_transpose_sort_pairs::<_, _, Less, 4>(&mut k, &mut v);
/// assert_eq!(k, [1, 1, 2, 2]);
/// assert_eq!(v, [1, 3, 0, 2]); // stable
/// ```
#[inline(always)]
pub fn odd_even_transpose_sort_pairs<K: Copy, V: Copy, Comp: Comparator<K>, const VT: usize>(
    keys: &mut [K; VT],
    values: &mut [V; VT],
) {
    transpose_sort::<K, V, Comp, VT>(keys, values, 0);
}

/// Sorts each segment of `keys` (with `values`) on its own (seed 004's
/// `OddEvenTransposeSortFlags`, for segmented sort): bit `j` of `head_flags`
/// (`1 <= j < VT`) set means element `j` starts a segment, so elements `j - 1` and `j` are
/// never swapped and nothing crosses the boundary. Bit 0 and bits at or above `VT` are
/// ignored. `VT` is at most 32. Stable for a strict comparator.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// let mut k = [3, 2, 1, 9, 8, 7];
/// let mut v = [0, 1, 2, 3, 4, 5];
/// // segments [0, 3) and [3, 6)
/// mgpu_sortnetwork::odd_even_transpose_sort_flags::<_, _, Less, 6>(&mut k, &mut v, 1 << 3);
/// assert_eq!(k, [1, 2, 3, 7, 8, 9]);
/// assert_eq!(v, [2, 1, 0, 5, 4, 3]);
/// ```
#[inline(always)]
pub fn odd_even_transpose_sort_flags<K: Copy, V: Copy, Comp: Comparator<K>, const VT: usize>(
    keys: &mut [K; VT],
    values: &mut [V; VT],
    head_flags: u32,
) {
    const { assert!(VT <= 32, "segment head flags are one u32: VT <= 32") };
    transpose_sort::<K, V, Comp, VT>(keys, values, head_flags);
}
