//! Serial merge of `VT` outputs per thread (the seeds' `SerialMerge`), with source indices.
//!
//! Both forms merge A before B on equal keys (a stable merge: they continue a
//! [`Lower`](crate::Lower)-bound [`merge_path`](crate::merge_path) split) and return the
//! `VT` merged keys with, for each, its position in `keys` (A's and B's positions share
//! one index space: typically both lists sit in one shared-memory array, A then B), which
//! is what a gather of values needs.

use crate::Keys;
use mgpu_core::Comparator;

/// Serial merge without range checks: `VT` steps of the merge of the A list starting at
/// `a_begin` and the B list starting at `b_begin`, both in `keys`.
///
/// For the tiles the seeds call "extended": the caller guarantees that neither list runs
/// out within the `VT` steps, *or* that `keys` holds a halo, the key that follows each list
/// in the full merge, right after the list's last key (at `a_end` and `b_end`), so the
/// comparisons after a list ends still decide as the full merge does. Positions read are
/// at most `a_begin + VT - 1` and `b_begin + VT - 1`, and never one past the last step.
///
/// # Safety
/// `keys` is readable at every position the merge reads (see above).
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::serial_merge;
/// // A = [1, 4, 6] at 0..3 then its halo 9 at 3; B = [2, 4, 5] at 4..7, halo 8 at 7.
/// let keys = [1u32, 4, 6, 9, 2, 4, 5, 8];
/// let (k, i): ([u32; 6], [u32; 6]) = unsafe { serial_merge(&keys[..], 0, 4, Less) };
/// assert_eq!(k, [1, 2, 4, 4, 5, 6]);
/// assert_eq!(i, [0, 4, 1, 5, 6, 2]); // ties: A's 4 (position 1) first
/// ```
#[inline(always)]
pub unsafe fn serial_merge<T, K, C, const VT: usize>(
    keys: K,
    a_begin: u32,
    b_begin: u32,
    _comp: C,
) -> ([T; VT], [u32; VT])
where
    T: Copy,
    K: Keys<T>,
    C: Comparator<T>,
{
    let (mut a, mut b) = (a_begin, b_begin);
    let mut a_key = keys.key(a as usize);
    let mut b_key = keys.key(b as usize);
    let mut out = [a_key; VT];
    let mut idx = [0u32; VT];
    for i in 0..VT {
        let p = !C::compare(&b_key, &a_key);
        out[i] = if p { a_key } else { b_key };
        idx[i] = if p { a } else { b };
        if i + 1 < VT {
            if p {
                a += 1;
                a_key = keys.key(a as usize);
            } else {
                b += 1;
                b_key = keys.key(b as usize);
            }
        }
    }
    (out, idx)
}

/// Serial merge with range checks: `VT` steps of the merge of `keys[a_begin..a_end]` and
/// `keys[b_begin..b_end]`, reading only inside those ranges. Once both lists are exhausted
/// (a partial tile) the remaining outputs are unspecified (their index is `>= a_end`):
/// the caller stores only the first `(a_end - a_begin) + (b_end - b_begin)` of them.
///
/// # Safety
/// `keys` is readable at `a_begin..a_end` and `b_begin..b_end`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::serial_merge_guarded;
/// let keys = [3i32, 5, 1, 5, 7];
/// // A = keys[0..2] = [3, 5], B = keys[2..5] = [1, 5, 7]; 5 outputs, then 1 spare.
/// let (k, i): ([i32; 6], [u32; 6]) = unsafe { serial_merge_guarded(&keys[..], 0, 2, 2, 5, Less) };
/// assert_eq!(&k[..5], &[1, 3, 5, 5, 7]);
/// assert_eq!(&i[..5], &[2, 0, 1, 3, 4]);
/// ```
#[inline(always)]
pub unsafe fn serial_merge_guarded<T, K, C, const VT: usize>(
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    comp: C,
) -> ([T; VT], [u32; VT])
where
    T: Copy + Default,
    K: Keys<T>,
    C: Comparator<T>,
{
    collected::<T, K, C, VT, false>(keys, a_begin, a_end, b_begin, b_end, comp)
}

/// [`serial_merge_guarded`] handing each of the `VT` outputs to `emit(i, key, index)` as
/// it is made, instead of returning them: a kernel that writes them straight to shared
/// memory keeps no register array of outputs (a merge tile then fits more CTAs on an SM).
///
/// # Safety
/// As [`serial_merge_guarded`].
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::serial_merge_guarded_with;
/// let keys = [3i32, 5, 1, 5, 7];
/// let mut out = Vec::new();
/// unsafe { serial_merge_guarded_with::<_, _, _, 5>(&keys[..], 0, 2, 2, 5, Less, |_, k, i| out.push((k, i))) };
/// assert_eq!(out, [(1, 2), (3, 0), (5, 1), (5, 3), (7, 4)]);
/// ```
#[inline(always)]
pub unsafe fn serial_merge_guarded_with<T, K, C, const VT: usize>(
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    _comp: C,
    mut emit: impl FnMut(usize, T, u32),
) where
    T: Copy + Default,
    K: Keys<T>,
    C: Comparator<T>,
{
    let (mut a, mut b) = (a_begin, b_begin);
    let mut a_key = if a < a_end {
        keys.key(a as usize)
    } else {
        T::default()
    };
    let mut b_key = if b < b_end {
        keys.key(b as usize)
    } else {
        T::default()
    };
    for i in 0..VT {
        let p = b >= b_end || (a < a_end && !C::compare(&b_key, &a_key));
        emit(i, if p { a_key } else { b_key }, if p { a } else { b });
        if i + 1 < VT {
            if p {
                a += 1;
                if a < a_end {
                    a_key = keys.key(a as usize);
                }
            } else {
                b += 1;
                if b < b_end {
                    b_key = keys.key(b as usize);
                }
            }
        }
    }
}

/// [`serial_merge_guarded_with`] without branches: each step makes its output with
/// selects and loads the next key from the list it took from with one unconditional read,
/// so a warp never diverges on the keys (the guarded form branches twice a step). The
/// price is its contract: `keys` must also be readable one past each list, at `a_end` and
/// at `b_end` (the values read there are never used; a tile's shared memory gives each
/// list that slot by padding). As there, outputs past the two lists' total are
/// unspecified.
///
/// # Safety
/// `keys` is readable at `a_begin..=a_end` and `b_begin..=b_end`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::serial_merge_padded_with;
/// // A = keys[0..2], B = keys[2..5], and one readable slot past B (keys[5]).
/// let keys = [3i32, 5, 1, 5, 7, 0];
/// let mut out = Vec::new();
/// unsafe { serial_merge_padded_with::<_, _, _, 5>(&keys[..], 0, 2, 2, 5, Less, |_, k, i| out.push((k, i))) };
/// assert_eq!(out, [(1, 2), (3, 0), (5, 1), (5, 3), (7, 4)]);
/// ```
#[inline(always)]
pub unsafe fn serial_merge_padded_with<T, K, C, const VT: usize>(
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    _comp: C,
    emit: impl FnMut(usize, T, u32),
) where
    T: Copy,
    K: Keys<T>,
    C: Comparator<T>,
{
    merge_steps::<T, K, C, VT, false>(keys, a_begin, a_end, b_begin, b_end, emit)
}

/// The serial merge of one thread of a tile: [`serial_merge_padded_with`], or, when the
/// tile is `full`, the same merge without its clamp. In a full tile a thread's two lists
/// hold at least `VT` keys together from its split, so no step finds both lists ended:
/// each step reads the next key one past the position it took (`keys[j + 1]`) and
/// advances one list by the step's predicate. On sm_90 that is 15 SASS instructions a
/// step for i32 keys with the output's store to shared memory, against 17 for the padded
/// form. `full` is the same for every thread of a tile, so a warp does not diverge on it.
///
/// # Safety
/// As [`serial_merge_padded_with`] (`keys` readable at `a_begin..=a_end` and
/// `b_begin..=b_end`), and when `full`, `(a_end - a_begin) + (b_end - b_begin) >= VT`.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::serial_merge_tile_with;
/// // A = keys[0..2], B = keys[2..5], and one readable slot past B: 5 outputs of 5 keys.
/// let keys = [3i32, 5, 1, 5, 7, 0];
/// for full in [true, false] {
///     let mut out = Vec::new();
///     unsafe { serial_merge_tile_with::<_, _, _, 5>(full, &keys[..], 0, 2, 2, 5, Less, |_, k, i| out.push((k, i))) };
///     assert_eq!(out, [(1, 2), (3, 0), (5, 1), (5, 3), (7, 4)]);
/// }
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn serial_merge_tile_with<T, K, C, const VT: usize>(
    full: bool,
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    comp: C,
    emit: impl FnMut(usize, T, u32),
) where
    T: Copy,
    K: Keys<T>,
    C: Comparator<T>,
{
    if full {
        merge_steps::<T, K, C, VT, true>(keys, a_begin, a_end, b_begin, b_end, emit)
    } else {
        serial_merge_padded_with::<T, K, C, VT>(keys, a_begin, a_end, b_begin, b_end, comp, emit)
    }
}

/// The steps of [`serial_merge_padded_with`] (`FULL` false) and of
/// [`serial_merge_tile_with`]'s full form (`FULL` true): the same selects, and the next key read one
/// past the position taken, which the padded form keeps at `a_end` once both lists have
/// ended.
#[inline(always)]
unsafe fn merge_steps<T, K, C, const VT: usize, const FULL: bool>(
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    mut emit: impl FnMut(usize, T, u32),
) where
    T: Copy,
    K: Keys<T>,
    C: Comparator<T>,
{
    let (mut a, mut b) = (a_begin, b_begin);
    let mut a_key = keys.key(a as usize);
    let mut b_key = keys.key(b as usize);
    for i in 0..VT {
        let p = b >= b_end || (a < a_end && !C::compare(&b_key, &a_key));
        // (The two forms order these selects as they were measured in.)
        let (k, j) = if FULL {
            let j = if p { a } else { b };
            (if p { a_key } else { b_key }, j)
        } else {
            let k = if p { a_key } else { b_key };
            (k, if p { a } else { b })
        };
        emit(i, k, j);
        if i + 1 < VT {
            let next = if FULL {
                let next = keys.key(j as usize + 1);
                a += p as u32;
                b += !p as u32;
                next
            } else {
                // Past both ends (a partial tile) the reads stay at a_end and b_end.
                // (`p` is false only while B has keys.)
                a += (p && a < a_end) as u32;
                b += !p as u32;
                keys.key(if p { a } else { b } as usize)
            };
            if p {
                a_key = next;
            } else {
                b_key = next;
            }
        }
    }
}

/// [`serial_merge_padded_with`] returning the `VT` merged keys and their positions in
/// `keys`, as [`serial_merge_guarded`] does.
///
/// # Safety
/// As [`serial_merge_padded_with`].
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::serial_merge_padded;
/// let keys = [3i32, 5, 1, 5, 7, 0]; // keys[5]: the slot past B
/// let (k, i): ([i32; 6], [u32; 6]) = unsafe { serial_merge_padded(&keys[..], 0, 2, 2, 5, Less) };
/// assert_eq!(&k[..5], &[1, 3, 5, 5, 7]);
/// assert_eq!(&i[..5], &[2, 0, 1, 3, 4]);
/// ```
#[inline(always)]
pub unsafe fn serial_merge_padded<T, K, C, const VT: usize>(
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    comp: C,
) -> ([T; VT], [u32; VT])
where
    T: Copy + Default,
    K: Keys<T>,
    C: Comparator<T>,
{
    collected::<T, K, C, VT, true>(keys, a_begin, a_end, b_begin, b_end, comp)
}

/// The array forms: the `VT` outputs of [`serial_merge_padded_with`] (`PADDED`) or
/// [`serial_merge_guarded_with`] with their positions.
#[inline(always)]
unsafe fn collected<T, K, C, const VT: usize, const PADDED: bool>(
    keys: K,
    a_begin: u32,
    a_end: u32,
    b_begin: u32,
    b_end: u32,
    comp: C,
) -> ([T; VT], [u32; VT])
where
    T: Copy + Default,
    K: Keys<T>,
    C: Comparator<T>,
{
    let mut out = [T::default(); VT];
    let mut idx = [0u32; VT];
    let emit = |i: usize, k: T, g: u32| {
        out[i] = k;
        idx[i] = g;
    };
    if PADDED {
        serial_merge_padded_with::<T, K, C, VT>(keys, a_begin, a_end, b_begin, b_end, comp, emit);
    } else {
        serial_merge_guarded_with::<T, K, C, VT>(keys, a_begin, a_end, b_begin, b_end, comp, emit);
    }
    (out, idx)
}
