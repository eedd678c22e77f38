//! The carry look-back: how a tile of the segmented reduction gets, in the same launch,
//! the values of its first ended segment that lie in earlier tiles (its carry-in), folded
//! in an order that depends only on the tile shape, so that float results are the same
//! bits on every run and non-commutative operators get their operands in segment order.
//!
//! A *carry* ([`Carry`]) is what a run of consecutive tiles passes on: the fold of its
//! values after its last segment end (all of them when it ends none) and whether it ends
//! one. Two carries combine as the segmented scan's operands do ([`Carry::then`]).
//!
//! Tiles form groups of [`GROUP_TILES`], groups superblocks of [`SUPERBLOCK_GROUPS`], and
//! three kinds of carries are published in the device pool's epoch block
//! ([`mgpu_core::status`]; [`carry_slots`] slots, the status telling whether the carry
//! ends a segment):
//!
//! - `a(t)`: tile `t`'s own carry, as soon as its walk and CTA scan are done, before it
//!   waits for anything (not by a group's last tile, nor by the grid's last);
//! - `G(g)`: group `g`'s carry, `a(32g) then ... then a(32g + 31)`, by the group's last
//!   tile;
//! - `S(s)`: superblock `s`'s carry, `G(32s) then ... then G(32s + 31)`, by the
//!   superblock's last tile.
//!
//! Tile `t`, at position `k` of group `g`, at position `j` of superblock `s`, that ends a
//! segment gets the carry `S(0) then ... then S(s - 1) then G(32s) then ... then
//! G(32s + j - 1) then a(32g) then ... then a(32g + k - 1)`, read from the nearest level
//! back: the `a`s first (one load a lane), the `G`s only when none of those ends a
//! segment, the `S`s (32 at a time, nearest first) only when none of the `G`s does. Each
//! window of up to 32 carries is folded by one warp scan from its last carry that ends a
//! segment, so a reader waits only for the carries from there on: tile `t - 1`'s alone
//! for segments shorter than a tile. A tile waits only for carries of earlier tiles,
//! which publish theirs before waiting for anything, so no chain forms: at most three
//! windows for a segment of 2^20 tiles. As with the scan's look-back, forward progress
//! relies on CTAs starting in block order.

use mgpu_core::status::{publish_split, read_split, STATUS_A, STATUS_P, STATUS_X};
use mgpu_core::{shfl_idx, AssociativeOp, Cta, Element};
use mgpu_ctascan::warp_scan_inclusive;

/// Tiles per group: one carry per lane of warp 0.
pub const GROUP_TILES: u64 = 32;

/// Groups per superblock: one group carry per lane of warp 0.
pub const SUPERBLOCK_GROUPS: u64 = 32;

/// Status of a published carry that ends no segment.
const OPEN: u32 = STATUS_A;
/// Status of a published carry that ends a segment.
const ENDS: u32 = STATUS_P;

/// Nanoseconds between polls of carries not yet published.
const POLL_NS: u32 = 200;

/// Slots of carries for `tiles` tiles: one per tile, then one per group, then one per
/// superblock. A slot is `T::WORDS` status words.
///
/// ```
/// use mgpu_segreduce::lookback::carry_slots;
/// assert_eq!(carry_slots(1), 3);
/// assert_eq!(carry_slots(1025), 1025 + 33 + 2);
/// ```
pub const fn carry_slots(tiles: u64) -> u64 {
    tiles + tiles.div_ceil(GROUP_TILES) + tiles.div_ceil(GROUP_TILES * SUPERBLOCK_GROUPS)
}

/// The slot of group `g`'s carry.
#[inline(always)]
fn group_slot(tiles: u64, g: u64) -> u64 {
    tiles + g
}

/// The slot of superblock `s`'s carry.
#[inline(always)]
fn superblock_slot(tiles: u64, s: u64) -> u64 {
    tiles + tiles.div_ceil(GROUP_TILES) + s
}

/// What a run of consecutive tiles passes on to the tiles after it.
///
/// ```
/// use mgpu_core::Plus;
/// use mgpu_segreduce::lookback::Carry;
/// let (a, b) = (Carry { value: 2, ends: true }, Carry { value: 3, ends: false });
/// assert_eq!(a.then::<Plus>(b), Carry { value: 5, ends: true });
/// assert_eq!(b.then::<Plus>(a), a);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carry<T> {
    /// The fold of the run's values after its last segment end (all of them when it ends
    /// none).
    pub value: T,
    /// Whether the run ends a segment.
    pub ends: bool,
}

impl<T: Element> Carry<T> {
    /// The carry of an empty run.
    ///
    /// ```
    /// use mgpu_core::Plus;
    /// assert_eq!(mgpu_segreduce::lookback::Carry::<i32>::none::<Plus>().value, 0);
    /// ```
    #[inline(always)]
    pub fn none<Op: AssociativeOp<T>>() -> Self {
        Carry {
            value: Op::identity(),
            ends: false,
        }
    }

    /// The carry of this run followed by `right`'s.
    #[inline(always)]
    pub fn then<Op: AssociativeOp<T>>(self, right: Self) -> Self {
        if right.ends {
            right
        } else {
            Carry {
                value: Op::apply(self.value, right.value),
                ends: self.ends,
            }
        }
    }
}

/// Publishes `c` in slot `j`.
#[inline(always)]
unsafe fn publish<C: Cta, T: Element>(cta: &C, block: *mut u64, epoch: u32, j: u64, c: Carry<T>) {
    let status = if c.ends { ENDS } else { OPEN };
    publish_split::<C, T>(cta, block, epoch, j, status, c.value);
}

/// Warp-wide (every lane of a warp): the carry of the `count` (at most 32) slots
/// `first..first + count`, lane `l` reading slot `first + l` until it is published. It
/// returns as soon as the slots from the last back to the nearest that ends a segment are
/// in (all of them when none ends), folded from that one by a warp scan; every lane gets
/// it.
#[inline(always)]
unsafe fn window<C: Cta, T: Element, Op: AssociativeOp<T>>(
    cta: &C,
    block: *mut u64,
    epoch: u32,
    first: u64,
    count: u32,
) -> Carry<T> {
    let lane = cta.lane();
    let (mut ok, mut v, mut e) = (lane >= count, Op::identity(), false);
    loop {
        if !ok {
            let (status, x) = read_split::<C, T>(cta, block, epoch, first + lane as u64);
            if status != STATUS_X {
                (ok, v, e) = (true, x, status == ENDS);
            }
        }
        let in_mask = cta.ballot(!0, ok);
        let ends = cta.ballot(!0, ok && e);
        // The lanes from 31 down that are all in.
        let top = (!in_mask).leading_zeros();
        let suffix = if top == 0 { 0 } else { u32::MAX << (32 - top) };
        if top == 32 || ends & suffix != 0 {
            // The fold from the last lane that ends a segment (lane 0 when none does).
            let from = if ends != 0 {
                31 - ends.leading_zeros()
            } else {
                0
            };
            let x = if lane < from { Op::identity() } else { v };
            let folded = warp_scan_inclusive::<C, T, Op>(cta, x);
            return Carry {
                value: shfl_idx(cta, !0, folded, 31, 32),
                ends: ends != 0,
            };
        }
        cta.backoff(POLL_NS);
    }
}

/// Publishes tile `tile`'s own carry `own` for the later tiles of its group (one thread;
/// nothing from a group's last tile or the grid's last, whose carries nobody reads). Call
/// it before [`carry_in`], as soon as `own` is known.
///
/// # Safety
/// `block` holds `T::WORDS * carry_slots(tiles)` status words, none of them tagged with
/// `epoch` by an earlier launch.
#[inline(always)]
pub unsafe fn publish_own<C: Cta, T: Element>(
    cta: &C,
    block: *mut u64,
    epoch: u32,
    tiles: u64,
    tile: u64,
    own: Carry<T>,
) {
    if tile + 1 != tiles && tile % GROUP_TILES != GROUP_TILES - 1 {
        publish::<C, T>(cta, block, epoch, tile, own);
    }
}

/// Warp-wide, by one warp of tile `tile` (of `tiles`), after [`publish_own`]: publishes
/// the group's carry from a group's last tile and the superblock's from a superblock's
/// last tile, and returns the carry entering the tile (the module docs' order) when
/// `need_in` (the identity otherwise, and for tile 0). Every lane gets it.
///
/// # Safety
/// As [`publish_own`]; every tile of the grid calls both (a tile that reads them waits
/// for its predecessors' carries).
#[inline(always)]
pub unsafe fn carry_in<C: Cta, T: Element, Op: AssociativeOp<T>>(
    cta: &C,
    block: *mut u64,
    epoch: u32,
    tiles: u64,
    tile: u64,
    own: Carry<T>,
    need_in: bool,
) -> T {
    let (g, k) = (tile / GROUP_TILES, tile % GROUP_TILES);
    let (s, j) = (g / SUPERBLOCK_GROUPS, g % SUPERBLOCK_GROUPS);
    let group_last = tile + 1 != tiles && k == GROUP_TILES - 1;
    let superblock_last = group_last && j == SUPERBLOCK_GROUPS - 1;
    let need_in = need_in && tile > 0;
    if !need_in && !group_last {
        return Op::identity();
    }
    let lane0 = cta.lane() == 0;
    let in_group = if k > 0 {
        window::<C, T, Op>(cta, block, epoch, g * GROUP_TILES, k as u32)
    } else {
        Carry::none::<Op>()
    };
    let group = in_group.then::<Op>(own);
    if group_last && lane0 {
        publish::<C, T>(cta, block, epoch, group_slot(tiles, g), group);
    }
    let need_groups = (need_in && !in_group.ends) || (superblock_last && !group.ends);
    let groups = if need_groups && j > 0 {
        window::<C, T, Op>(
            cta,
            block,
            epoch,
            group_slot(tiles, s * SUPERBLOCK_GROUPS),
            j as u32,
        )
    } else {
        Carry::none::<Op>()
    };
    if superblock_last && lane0 {
        let sb = groups.then::<Op>(group);
        publish::<C, T>(cta, block, epoch, superblock_slot(tiles, s), sb);
    }
    if !need_in {
        return Op::identity();
    }
    let mut c = groups.then::<Op>(in_group);
    let mut end = s;
    while !c.ends && end > 0 {
        let first = end.saturating_sub(32);
        let w = window::<C, T, Op>(
            cta,
            block,
            epoch,
            superblock_slot(tiles, first),
            (end - first) as u32,
        );
        c = w.then::<Op>(c);
        end = first;
    }
    c.value
}

/// Waits (one thread) until tile 0's carry is published: tile 0 zeroes the launch's error
/// word first, with a fence before its publish, so a later tile ORs its error bits in
/// only after this (see [`crate::device::seg_reduce_tiles`]).
///
/// # Safety
/// As [`publish_own`], with more than one tile.
#[inline(always)]
pub unsafe fn wait_tile0<C: Cta, T: Element>(cta: &C, block: *mut u64, epoch: u32) {
    while read_split::<C, T>(cta, block, epoch, 0).0 == STATUS_X {
        cta.backoff(POLL_NS);
    }
    cta.fence_gpu();
}
