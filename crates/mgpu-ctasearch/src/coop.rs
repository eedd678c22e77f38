//! Cooperative searches: a group of `2^g` lanes of one warp runs one [`binary_search`] or
//! [`merge_path`] together, for latency-bound searches over global memory (the partition
//! kernels), where one thread per search leaves the machine idle waiting on `log2(n)`
//! dependent loads.
//!
//! Each round, the group probes the top `g` levels of the serial bisection's decision tree
//! below the current range at once: lane `r` of the group takes node `r + 1` in heap
//! order (the root, then its two children, then their four, ...; `2^g - 1` nodes, the
//! group's last lane has none), follows the node's path from the root with the serial
//! search's own `mid` arithmetic, and probes that node's `mid` (one load, two independent
//! ones for Merge Path). A ballot over the group's lanes gathers the `2^g - 1` decisions,
//! and every lane then walks the `g` levels the serial search would have walked, taking
//! each decision from the ballot. So a round costs one memory latency and does `g` steps
//! of the serial bisection: `ceil(log2(n) / g)` rounds instead of `log2(n)` steps.
//!
//! Because the group probes exactly the positions the serial search would probe and
//! follows exactly its decisions, the result is the serial search's bit for bit on every
//! input, sorted or not. A k-ary search of `2^g` evenly spaced probes would narrow the
//! range `2^g + 1`-fold a round instead of `2^g`-fold (with 32 lanes: 33 against 32,
//! the same number of rounds in practice), but on unsorted input it would end elsewhere.
//!
//! [`binary_search`]: crate::binary_search
//! [`merge_path`]: crate::merge_path

use crate::search::{
    bisect_carry, merge_path_decides, merge_path_keys, merge_path_range, range_len, search_probe,
    step,
};
use crate::{Idx, Keys, SearchBounds};
use mgpu_core::{shfl_idx, Comparator, Cta, Element, WARP_SIZE};

/// The largest group of the cooperative searches, as a power of two: a whole warp (32
/// lanes, `lanes_log2 = 5`).
///
/// # Examples
///
/// ```
/// assert_eq!(1u32 << mgpu_ctasearch::COOP_MAX_LANES_LOG2, mgpu_core::WARP_SIZE);
/// ```
pub const COOP_MAX_LANES_LOG2: u32 = 5;

/// What a cooperative bisection carries out of its probes: nothing, or the key the last
/// right-going probe loaded ([`Kept`]), which another lane may hold.
pub(crate) trait Carry: Copy {
    /// The value of group lane `src` (warp lane), for every lane of `mask`.
    fn fetch_from_lane<X: Cta>(self, cta: &X, mask: u32, src: u32) -> Self;
}

impl Carry for () {
    #[inline(always)]
    fn fetch_from_lane<X: Cta>(self, _cta: &X, _mask: u32, _src: u32) -> Self {}
}

/// A key kept by [`bisect_coop`], fetched from its lane with a shuffle at the end.
#[derive(Clone, Copy)]
pub(crate) struct Kept<T>(pub(crate) T);

impl<T: Element> Carry for Kept<T> {
    #[inline(always)]
    fn fetch_from_lane<X: Cta>(self, cta: &X, mask: u32, src: u32) -> Self {
        Kept(shfl_idx(cta, mask, self.0, src, WARP_SIZE))
    }
}

/// The serial bisection of `search::bisect_carry` (same probes, same decisions, same
/// result and carried value) run by a group of `2^lanes_log2` lanes; see the module docs.
/// `lanes_log2 == 0` runs the serial loop itself (no warp operation).
///
/// # Safety
/// The group's lanes call it together with equal arguments (below), `probe` is safe to
/// call at every position of `[begin, end)`.
#[inline(always)]
pub(crate) unsafe fn bisect_coop<X: Cta, I: Idx, V: Carry>(
    cta: &X,
    lanes_log2: u32,
    mut begin: I,
    end: I,
    none: V,
    mut probe: impl FnMut(I) -> (bool, V),
) -> (I, V) {
    if lanes_log2 == 0 {
        return bisect_carry(begin, end, none, probe);
    }
    debug_assert!(lanes_log2 <= COOP_MAX_LANES_LOG2);
    let lanes = 1u32 << lanes_log2;
    // The group: lanes [base, base + lanes) of the warp.
    let base = cta.lane() & !(lanes - 1);
    let mask = (u32::MAX >> (WARP_SIZE - lanes)) << base;
    // This lane's node of the top `lanes_log2` levels of the decision tree, in heap order
    // (1 the root; the children of h are 2h, left, and 2h + 1, right). The last lane's
    // node (`lanes`) is past those levels: it never probes.
    let node = cta.lane() - base + 1;
    let probes = node < lanes;
    // The node's path from the root: the bits of `node` below its leading one, here
    // reversed so the first step is the lowest bit, above a sentinel 1 that ends it.
    let depth = 31 - node.leading_zeros();
    let path = (node.reverse_bits() >> 1 >> (31 - depth)) | (1 << depth);
    // The value this lane's last owned probe returned, and which lane of the group owns
    // the last right-going probe so far (group-uniform).
    let mut held = none;
    let mut owner: Option<u32> = None;
    // The range as `begin` and a length, as in `bisect_carry`. Both are equal in every
    // lane of the group (equal arguments, then equal ballots), so every lane takes the
    // same number of rounds and meets every ballot.
    let mut len = range_len(begin, end);
    while len != I::ZERO {
        // The range the node bisects, following its path (1 = right). An empty one is
        // never reached (the serial search stops first): the node does not probe.
        let (mut b, mut l) = (begin, len);
        let mut steps = path;
        while steps > 1 {
            if l != I::ZERO {
                (b, l) = step(b, l, steps & 1 != 0);
            }
            steps >>= 1;
        }
        let (right, v) = if probes && l != I::ZERO {
            probe(b.wrapping_add(l.half()))
        } else {
            (false, none)
        };
        let votes = cta.ballot(mask, right) >> base;
        // The serial search's next `lanes_log2` steps, decisions from the ballot (`h` is
        // the heap index of the node each step decides).
        let mut h = 1u32;
        let mut last_right = 0u32;
        while h < lanes && len != I::ZERO {
            let r = (votes >> (h - 1)) & 1;
            (begin, len) = step(begin, len, r != 0);
            if r != 0 {
                last_right = h;
            }
            h = 2 * h + r;
        }
        if last_right != 0 {
            owner = Some(last_right - 1);
            if node == last_right {
                held = v;
            }
        }
    }
    let left = match owner {
        Some(r) => held.fetch_from_lane(cta, mask, base + r),
        None => none,
    };
    (begin, left)
}

/// [`binary_search`](crate::binary_search) run by a group of `2^lanes_log2` lanes of one
/// warp (1 to 32): about `log2(count) / lanes_log2` rounds of one load per lane instead of
/// `log2(count)` dependent loads, and the same result as the serial search on every
/// input, sorted or not (the group probes the serial search's own positions; see the
/// module docs). `lanes_log2 == 0` is the serial search.
///
/// # Safety
/// - `data` is readable at `0..count`;
/// - `lanes_log2 <= 5`, and the group is the aligned lanes `[base, base + 2^lanes_log2)`
///   of a warp (`base` a multiple of `2^lanes_log2`), which all call this together, with
///   equal `count`, `key` and bounds (the ballot's member mask is exactly the group).
///
/// # Examples
///
/// Eight groups of four lanes, each searching for its own key:
///
/// ```
/// use mgpu_core::{sim, Cta, Less};
/// use mgpu_ctasearch::{binary_search, binary_search_coop, Lower};
/// let data: Vec<u32> = (0..100).map(|i| i * 3).collect();
/// let mut out = vec![0u32; 32];
/// let (d, o) = (data.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     let key = cta.tid() / 4 * 37;
///     let r = binary_search_coop(cta, 2, d as *const u32, 100u32, key, Lower, Less);
///     *(o as *mut u32).add(cta.tid() as usize) = r;
/// });
/// for (t, &r) in out.iter().enumerate() {
///     let key = t as u32 / 4 * 37;
///     assert_eq!(r, unsafe { binary_search(&data[..], 100u32, key, Lower, Less) });
/// }
/// ```
#[inline(always)]
pub unsafe fn binary_search_coop<X, T, K, I, B, C>(
    cta: &X,
    lanes_log2: u32,
    data: K,
    count: I,
    key: T,
    bounds: B,
    comp: C,
) -> I
where
    X: Cta,
    K: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    bisect_coop(cta, lanes_log2, I::ZERO, count, (), |mid| {
        (search_probe(data, &key, bounds, comp, mid).0, ())
    })
    .0
}

/// [`binary_search_coop`], also returning `data[result - 1]` (`None` when the result is
/// 0) as the search loaded it, without loading it again: the probe at `result - 1` is the
/// last one that went right. The CSR partition uses it to tell whether the row found
/// starts exactly at the key. Every lane of the group gets the value (one shuffle).
///
/// # Safety
/// As [`binary_search_coop`].
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, Less};
/// use mgpu_ctasearch::{binary_search_coop_left, Upper};
/// let csr = [0u64, 957, 1008, 2000, 2312];
/// let mut out = vec![(0u64, None::<u64>); 32];
/// let (d, o) = (csr.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 32, 0, &|cta: &sim::SimCta| unsafe {
///     // 4 groups of 8 lanes: keys 0, 1000, 2000, 3000.
///     let key = cta.tid() as u64 / 8 * 1000;
///     let r = binary_search_coop_left(cta, 3, d as *const u64, 5u64, key, Upper, Less);
///     *(o as *mut (u64, Option<u64>)).add(cta.tid() as usize) = r;
/// });
/// assert_eq!(out[0], (1, Some(0)));
/// assert_eq!(out[8], (2, Some(957)));
/// assert_eq!(out[16], (4, Some(2000)));
/// assert_eq!(out[31], (5, Some(2312)));
/// ```
#[inline(always)]
pub unsafe fn binary_search_coop_left<X, T, K, I, B, C>(
    cta: &X,
    lanes_log2: u32,
    data: K,
    count: I,
    key: T,
    bounds: B,
    comp: C,
) -> (I, Option<T>)
where
    X: Cta,
    T: Element,
    K: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    let (r, Kept(left)) = bisect_coop(cta, lanes_log2, I::ZERO, count, Kept(T::ZERO), |mid| {
        let (right, k) = search_probe(data, &key, bounds, comp, mid);
        (right, Kept(k))
    });
    (r, (r != I::ZERO).then_some(left))
}

/// [`merge_path`](crate::merge_path) run by a group of `2^lanes_log2` lanes of one warp
/// (1 to 32): each round every probing lane loads `a[i]` and `b[diag - 1 - i]` at once, so
/// a round costs one memory latency and does `lanes_log2` steps of the serial search. The
/// same result as the serial `merge_path` on every input, sorted or not.
/// `lanes_log2 == 0` is the serial search.
///
/// # Safety
/// - `a` is readable at `0..a_count`, `b` at `0..b_count`, `diag <= a_count + b_count`;
/// - `lanes_log2 <= 5`, and the group is the aligned lanes `[base, base + 2^lanes_log2)`
///   of a warp, which all call this together with equal counts, `diag` and bounds.
///
/// # Examples
///
/// A whole warp on one diagonal; then 16 pairs of lanes, one diagonal each:
///
/// ```
/// use mgpu_core::{sim, Cta, Less};
/// use mgpu_ctasearch::{merge_path, merge_path_coop, Lower};
/// let a: Vec<u32> = (0..500).map(|i| i * 2).collect();
/// let b: Vec<u32> = (0..300).map(|i| i * 5).collect();
/// let mut out = vec![0u64; 64];
/// let (pa, pb, o) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize);
/// sim::launch(1, 64, 0, &|cta: &sim::SimCta| unsafe {
///     let (lanes_log2, diag) = if cta.warp() == 0 { (5, 400) } else { (1, cta.lane() as u64 / 2 * 50) };
///     let r = merge_path_coop(cta, lanes_log2, pa as *const u32, 500u64, pb as *const u32, 300,
///         diag, Lower, Less);
///     *(o as *mut u64).add(cta.tid() as usize) = r;
/// });
/// let serial = |d: u64| unsafe { merge_path(&a[..], 500u64, &b[..], 300, d, Lower, Less) };
/// assert!(out[..32].iter().all(|&r| r == serial(400)));
/// assert_eq!(out[32 + 2 * 7], serial(350));
/// ```
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn merge_path_coop<X, T, KA, KB, I, B, C>(
    cta: &X,
    lanes_log2: u32,
    a: KA,
    a_count: I,
    b: KB,
    b_count: I,
    diag: I,
    bounds: B,
    _comp: C,
) -> I
where
    X: Cta,
    KA: Keys<T>,
    KB: Keys<T>,
    I: Idx,
    B: SearchBounds,
    C: Comparator<T>,
{
    let (begin, end) = merge_path_range(a_count, b_count, diag);
    bisect_coop(cta, lanes_log2, begin, end, (), |mid| {
        let (a_key, b_key) = merge_path_keys(a, b, diag, mid);
        (merge_path_decides::<T, B, C>(&a_key, &b_key, bounds), ())
    })
    .0
}
