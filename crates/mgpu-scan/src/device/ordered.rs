//! Ordered look-back ([`ordered`], floats): a single-pass scan whose association order
//! depends only on `n` and the tile shape. The order is stated at [`ordered`].

use super::*;
use mgpu_core::shfl_idx;

/// Tiles per group: one tile aggregate per lane of warp 0.
pub const GROUP_TILES: u64 = 32;

/// Groups per superblock: one group aggregate per lane of warp 0.
pub const SUPERBLOCK_GROUPS: u64 = 32;

/// Tiles per superblock.
const SUPERBLOCK_TILES: u64 = GROUP_TILES * SUPERBLOCK_GROUPS;

/// Slots [`ordered`] publishes values in for `tiles` tiles: one per tile, then one per
/// group, then one per superblock. A slot is `T::WORDS` status words (one per 32 bits of
/// the value).
///
/// ```
/// use mgpu_scan::device::ordered_slots;
/// assert_eq!(ordered_slots(1), 3);
/// assert_eq!(ordered_slots(1025), 1025 + 33 + 2);
/// ```
pub const fn ordered_slots(tiles: u64) -> u64 {
    tiles + tiles.div_ceil(GROUP_TILES) + tiles.div_ceil(SUPERBLOCK_TILES)
}

/// The slot of group `g`'s aggregate.
#[inline(always)]
fn group_slot(tiles: u64, g: u64) -> u64 {
    tiles + g
}

/// The slot of superblock `s`'s inclusive prefix.
#[inline(always)]
fn superblock_slot(tiles: u64, s: u64) -> u64 {
    tiles + tiles.div_ceil(GROUP_TILES) + s
}

/// Warp 0's part of tile `tile` (> 0, aggregate `agg`): the tile's exclusive prefix in the
/// fixed order [`ordered`] states. Lane `l` reads `a(32g + l)` for `l < k`, `G(32s + l)`
/// for `l < j`, `G(32(s - 1) + l)` when `s > 0`, and lane 31 `SP(s - 2)` when `s > 1`, all
/// at once; it polls every [`LOOKBACK_POLL_NS`] while any is unpublished. As soon as the
/// `a`s are in, a group's last tile publishes `G(g)` (it polls without the first wait: the
/// next group's tiles need its `G`); as soon as the previous superblock's values are in,
/// a superblock's first tile publishes `SP(s - 1)`. The grid's last tile publishes nothing.
#[inline(always)]
pub(super) unsafe fn ordered_prefix<C: Cta, T: Element, Op: AssociativeOp<T>>(
    cta: &C,
    a: &ScanArgs<T>,
    tiles: u64,
    tile: u64,
    agg: T,
) -> T {
    let lane = cta.lane() as u64;
    let (g, k) = (tile / GROUP_TILES, tile % GROUP_TILES);
    let (s, j) = (g / SUPERBLOCK_GROUPS, g % SUPERBLOCK_GROUPS);
    let not_last = tile != tiles - 1;
    let publish_g = not_last && k == GROUP_TILES - 1;
    let publish_sp = s > 0 && j == 0 && k == 0;
    let id = Op::identity();
    // The fold of the group's earlier aggregates, once all of them are in.
    let mut a_sum = id;
    let mut a_in = k == 0;
    // The previous superblock's inclusive prefix, `SP(s - 1)`, once its values are in.
    let mut prev = id;
    let mut prev_in = s == 0;
    if !publish_g {
        cta.backoff(LOOKBACK_FIRST_POLL_NS);
    }
    // Each lane's values, each read until it is published and then kept: a poll reads
    // only what is still missing (re-reading every value at every poll, up to four 8-byte
    // slots a lane for f64, put the polls' traffic beside the scan's own in L2).
    let (mut a_ok, mut va) = (a_in || lane >= k, id);
    let (mut g_ok, mut vg) = (lane >= j, id);
    let (mut p_ok, mut vp) = (prev_in, id);
    let (mut sp_ok, mut vsp) = (prev_in || s < 2 || lane != 31, id);
    loop {
        if !a_ok {
            (a_ok, va) = read_split::<C, T>(cta, a, tile - k + lane);
        }
        if !g_ok {
            (g_ok, vg) = read_split::<C, T>(cta, a, group_slot(tiles, g - j + lane));
        }
        if !p_ok {
            (p_ok, vp) = read_split::<C, T>(
                cta,
                a,
                group_slot(tiles, (s - 1) * SUPERBLOCK_GROUPS + lane),
            );
        }
        if !sp_ok {
            (sp_ok, vsp) = read_split::<C, T>(cta, a, superblock_slot(tiles, s - 2));
        }
        if !a_in && cta.ballot(!0, !a_ok) == 0 {
            a_in = true;
            a_sum = warp_reduce::<C, T, Op>(cta, va);
            if publish_g && lane == 0 {
                let gv = Op::apply(a_sum, agg);
                publish_split::<C, T>(cta, a, group_slot(tiles, g), STATUS_A, gv);
            }
        }
        if !prev_in && cta.ballot(!0, !(p_ok && sp_ok)) == 0 {
            prev_in = true;
            let gs = warp_reduce::<C, T, Op>(cta, vp);
            prev = if s > 1 {
                Op::apply(shfl_idx(cta, !0, vsp, 31, 32), gs)
            } else {
                gs
            };
            if publish_sp && lane == 0 {
                publish_split::<C, T>(cta, a, superblock_slot(tiles, s - 1), STATUS_P, prev);
            }
        }
        if a_in && prev_in && cta.ballot(!0, !g_ok) == 0 {
            let gg = warp_reduce::<C, T, Op>(cta, vg);
            let base = if s > 0 { Op::apply(prev, gg) } else { gg };
            return Op::apply(base, a_sum);
        }
        cta.backoff(LOOKBACK_POLL_NS);
    }
}

/// Single-pass scan with an ordered look-back (floats): CTA `blockIdx.x` scans tile
/// `blockIdx.x` of `NT * VT` values, `grid = tiles`, with the tile steps of [`lookback`]
/// (16-byte vector loads and stores of full tiles, the in-tile scan written back to shared
/// memory before warp 0 waits, `prefix op v` stored after a barrier), but the tile's prefix
/// is combined in a fixed order, so that float results are the same bits on every run. As
/// for [`lookback`], forward progress relies on CTAs starting in block order: a tile only
/// waits for earlier tiles.
///
/// # The order
///
/// Tiles form groups of [`GROUP_TILES`], groups superblocks of [`SUPERBLOCK_GROUPS`].
/// Three kinds of values are published in the epoch block, each in a slot of its own
/// ([`ordered_slots`]: the tiles' slots, then the groups', then the superblocks'), a slot
/// being one tagged status word per 32 bits of the value, so relaxed stores publish it and
/// a reader's loads are all independent:
///
/// - `a(i)`: tile `i`'s aggregate, right after its CTA scan (not by the last tile of a
///   group or of the grid: nobody reads it);
/// - `G(g)`: group `g`'s aggregate, by the group's last tile as soon as it has read the
///   group's other aggregates, `fold(a(32g), ..., a(32g + 30)) op a(32g + 31)`; that tile
///   polls without [`LOOKBACK_FIRST_POLL_NS`]'s wait, since every tile of the next group
///   waits for its `G`;
/// - `SP(s)`: superblock `s`'s inclusive prefix, `fold(G(32s), ..., G(32s + 31))` for
///   `s = 0` and `SP(s - 1) op fold(G(32s), ..., G(32s + 31))` after, published by the
///   first tile of superblock `s + 1`, which computes it anyway (below).
///
/// Tile `i`, at position `k` of group `g`, which is at position `j` of superblock `s`, has
/// the exclusive prefix `(SP(s - 1) op fold(G(32s), ..., G(32s + j - 1))) op fold(a(32g),
/// ..., a(32g + k - 1))` (tile 0: the identity; for `s = 0` the first term is
/// `fold(G(0), ..., G(j - 1))` alone), where `fold` is [`warp_reduce`]'s fixed butterfly
/// over 32 lanes, lane `l` holding the `l`-th value and the identity past the last. Each
/// tile of superblock `s > 0` computes `SP(s - 1)` itself from `SP(s - 2)` (read) and the
/// previous superblock's 32 group aggregates, so that `SP(s - 1)`, published by tile
/// `1024s`, is first needed 1024 tiles later, by superblock `s + 1`: no tile waits for the
/// look-back of a tile just before it, only for its aggregate or its group's. Warp 0 reads
/// every value it needs at once (lane `l`: `a(32g + l)` for `l < k`, `G(32s + l)` for
/// `l < j`, `G(32(s - 1) + l)` when `s > 0`, lane 31 also `SP(s - 2)` when `s > 1`),
/// waiting [`LOOKBACK_FIRST_POLL_NS`] first (but a group's last tile) and polling every
/// [`LOOKBACK_POLL_NS`] while any is unpublished. The only serial chain is `SP`'s, one
/// link per 1024 tiles (74 links for 2^27 f64 values on sm_90).
///
/// The thread holding the last element of the last tile keeps that element's inclusive
/// value within the tile (in an exclusive scan too), and the total is the tile's prefix
/// `op` it: bit for bit the last value of an inclusive scan.
///
/// Reads `input`, `n`, `status` (`T::WORDS * ordered_slots(tiles)` words tagged with
/// `epoch`), `epoch`, `flags` (`FLAG_CHECK_MONOTONIC` is ignored); writes `output` and
/// `total` (by the last tile). `values` is not used.
///
/// # Safety
/// The pointers cover what the launch reads and writes; `NT` equals the block size; shared
/// memory holds `shared_bytes(size_of::<T>(), NT, VT)`.
#[inline(always)]
pub unsafe fn ordered<
    C: Cta,
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    a: &ScanArgs<T>,
) {
    let k = ScanCta::<C, T, Op, NT, VT>::new(cta);
    let span = k.span(a);
    let TileSpan {
        tiles,
        tile,
        count,
        src,
        dst,
        full,
    } = span;
    let last = tile == tiles - 1;
    k.load_segment_async(src, count, span.vec_load());
    let (thread_exc, agg) = k.scan_cta_shared();
    // A group's last tile folds its own aggregate into `G` itself.
    if cta.warp() == 0 && cta.lane() == 0 && !last && tile % GROUP_TILES != GROUP_TILES - 1 {
        publish_split::<C, T>(cta, a, tile, STATUS_A, agg);
    }
    // The thread's values scanned within the tile, in place; in the last tile the thread
    // holding the input's last element keeps that element's inclusive value within the
    // tile (in an exclusive scan too) for the total.
    let last_at = if last && cta.tid() as usize == (count - 1) / VT {
        (count - 1) % VT
    } else {
        VT
    };
    k.scan_thread_shared(thread_exc, kind_of(a.flags), last_at, false);
    if cta.warp() == 0 {
        let prefix = if tile == 0 {
            Op::identity()
        } else {
            ordered_prefix::<C, T, Op>(cta, a, tiles, tile, agg)
        };
        if cta.lane() == 0 {
            *k.misc_t = prefix;
        }
    }
    cta.sync();
    let prefix = *k.misc_t;
    if last && cta.tid() == 0 {
        *a.total = Op::apply(prefix, *k.misc_last);
    }
    k.store_segment(
        prefix,
        dst,
        count,
        full && (dst as usize).is_multiple_of(16),
    );
}
