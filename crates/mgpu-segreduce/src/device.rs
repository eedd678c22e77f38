//! The kernel bodies of the segmented reduction over CSR (seed 002's `SegReduceCsr`),
//! generic over [`Cta`], the element, index and operator types and the tile shape, with
//! the input checks fused in (DESIGN §5).
//!
//! # The decomposition
//!
//! The values (A: work items `0..total`) are merged with the segment starts (B: the CSR
//! array, `n` values, B first on ties), the load-balancing search's merge (seed 001), and
//! cut into tiles of `NT * VT` merge steps by its upper-bound Merge Path partitions
//! (`mgpu_partition::load_balance_partitions`). Each tile therefore holds as many values
//! plus segment starts as any other, whatever the segment lengths: empty segments,
//! thousands of them in a row, and a single segment of every value cost the same per step.
//! (The seed maps `NT * VT` values to a tile instead, which cannot hold more than `NT * VT`
//! segment ends, and strips empty segments with an extra CSR-to-CSR2 pass and a bulk
//! insert; here they need nothing.)
//!
//! A thread walks its `VT` steps in order. A value step folds the value into the thread's
//! accumulator; the B step of segment `j` ends segment `j - 1` (there is one more, virtual,
//! end after the last value, which ends segment `n - 1`): the accumulator is that
//! segment's partial reduction (the identity for an empty segment), and it is cleared.
//! Then:
//!
//! 1. [`seg_reduce_tiles`]: the CTA segmented scan of the threads' carry-outs (the
//!    accumulators left after their last end) gives each thread the reduction of the
//!    values of its first ended segment that lie in earlier threads (its carry-in), which
//!    is prepended to its first end's partial: every segment that ends in the tile gets
//!    the reduction of its values in the tile, in order. The results go through shared
//!    memory to coalesced stores; the tile's carry-out (the values of the segment still
//!    open at its end) goes to `carry_out[tile]`.
//! 2. [`spine`] (one launch, a CTA per chunk of `NT * VT` tiles): the same segmented scan
//!    over the tiles' carry-outs, a tile "ending a segment" when it holds a B step or the
//!    virtual end, gives each tile the reduction of its first ended segment's values in
//!    earlier tiles of its chunk; each chunk publishes its own fold, and folds those of
//!    the chunks before it back to the nearest that ends a segment; the result is
//!    prepended to the tile's first ended segment's result in `output` (one
//!    read-modify-write per tile).
//!
//! Every operand is combined in segment order (earlier values on the left), so the
//! operator need not be commutative, and the association depends only on the tile shape:
//! the results are the same bits on every run.

use mgpu_core::{AssociativeOp, BinaryOp, Cta, Element, Less, Multiplies, WARP_SIZE};
use mgpu_ctascan::{cta_seg_scan, seg_scan_shared_bytes};
use mgpu_ctasearch::{load_balance_tile, merge_path, Counting, Idx, Upper};

pub use mgpu_loadbalance::device::{ERROR_FIRST, ERROR_TOTAL, ERROR_UNSORTED};

/// Error bit of [`spmv_tiles`]: a column index at or past the vector's length.
pub const ERROR_COLUMN: u32 = 8;
/// Error bit of [`indirect_tiles`]: a segment's source range reaching past `data`.
pub const ERROR_GATHER: u32 = 16;
/// Error bit of reduce-by-key ([`crate::rbk`]): more runs than the outputs' `capacity`.
pub const ERROR_CAPACITY: u32 = 32;

/// Where a tile's values come from: the value of step `i` (a global value index), with
/// a fault ORed into `bad`.
pub trait Values<T: Element, I>: Copy {
    /// Whether the values are read during the walk ([`Values::walk_value`], which knows
    /// each value's segment) instead of loaded with the tile ([`Values::value`]).
    const IN_WALK: bool = false;
    /// Whether the tiles load the values from a window aligned to [`SKEW`] values
    /// (SpMV's, whose tiles are bound by L2's throughput: 1 to 2 % faster on an H200).
    /// The plain reduction's loads gained nothing from it, and ptxas spilled in its
    /// 4-byte tiles.
    const SKEWED: bool = false;
    /// What value `i`'s load needs first (SpMV: its column). The tiles load it for all
    /// their values before any value ([`Values::value_or`]), so that the loads that
    /// depend on it are in flight together, not one after another.
    type Pre: Copy + Default;
    /// What value `i`'s load needs first.
    ///
    /// # Safety
    /// As [`Values::value`].
    unsafe fn pre(args: &SegReduceArgs<T, I>, i: usize) -> Self::Pre;
    /// Value `i`, given [`Values::pre`] of it, when `ok`; else `or`, nothing read and no
    /// fault raised. No branch: the loads are predicated on `ok`, so that a tile's loads
    /// are all in flight together and what combines them (SpMV's products) waits for them
    /// after the last is issued (ptxas waits for a load before the end of a branch that
    /// holds its use: SpMV's gathers went out one round trip apart).
    ///
    /// # Safety
    /// As [`Values::value`] when `ok` (`pre` then being [`Values::pre`] of `i`).
    unsafe fn value_or(
        args: &SegReduceArgs<T, I>,
        i: usize,
        pre: Self::Pre,
        ok: bool,
        or: T,
        bad: &mut u32,
    ) -> T;
    /// Value `i`.
    ///
    /// # Safety
    /// `i < args.total`, and the pointers the implementation reads are valid there.
    #[inline(always)]
    unsafe fn value(args: &SegReduceArgs<T, I>, i: usize, bad: &mut u32) -> T {
        Self::value_or(args, i, Self::pre(args, i), true, T::ZERO, bad)
    }
    /// Value `i` of a segment that starts at value `seg_start` and whose source starts at
    /// `source`, read during the walk (only when [`Values::IN_WALK`]).
    ///
    /// # Safety
    /// As [`Values::value`].
    #[inline(always)]
    unsafe fn walk_value(
        args: &SegReduceArgs<T, I>,
        i: u64,
        seg_start: u64,
        source: u64,
        bad: &mut u32,
    ) -> T {
        let _ = (seg_start, source);
        Self::value(args, i as usize, bad)
    }
}

/// One level of source indirection (seed 002's `IndirectReduceCsr` and
/// `SpmvCsrIndirect[Unary|Binary]`): value `i` of segment `s` (starting at value `csr[s]`)
/// is `V`'s value at `sources[s] + i - csr[s]` (for [`Direct`], `data` there; for SpMV,
/// the product of that nonzero); a source range past `data_len` raises [`ERROR_GATHER`]
/// and reads nothing.
///
/// ```
/// use mgpu_segreduce::device::{Indirect, SegReduceArgs, Values};
/// let data = [1i32, 2, 3, 4];
/// let args = SegReduceArgs::<i32, u32> { data: data.as_ptr(), data_len: 4, ..Default::default() };
/// // Value 5 of a segment starting at value 4 whose source starts at data[2].
/// assert_eq!(unsafe { Indirect::walk_value(&args, 5, 4, 2, &mut 0) }, 4);
/// ```
pub struct IndirectOf<V>(core::marker::PhantomData<V>);

impl<V> Clone for IndirectOf<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for IndirectOf<V> {}

/// The indirect segmented reduction (seed 002's `IndirectReduceCsr`): `data` at each
/// segment's source.
pub type Indirect = IndirectOf<Direct>;

/// Indirect CSR SpMV, binary (seed 002's `SpmvCsrIndirectBinary`): row `r`'s nonzeros
/// start at `sources[r]` in the matrix values and columns.
///
/// ```
/// use mgpu_segreduce::device::{SegReduceArgs, SpmvIndirectBinary, Values};
/// let (m, c, v) = ([2.0f64, 3.0], [1u32, 0], [10.0f64, 20.0]);
/// let args = SegReduceArgs { data: m.as_ptr(), data_len: 2, cols: c.as_ptr(), vec: v.as_ptr(), vec_len: 2, ..Default::default() };
/// // Value 0 of a row whose nonzeros start at 1: 3 * v[cols[1]] = 3 * v[0].
/// assert_eq!(unsafe { SpmvIndirectBinary::walk_value(&args, 0, 0, 1, &mut 0) }, 30.0);
/// ```
pub type SpmvIndirectBinary = IndirectOf<SpmvBinary>;

/// Indirect CSR SpMV, unary (seed 002's `SpmvCsrIndirectUnary`): row `r`'s columns start
/// at `sources[r]`.
///
/// ```
/// use mgpu_segreduce::device::{SegReduceArgs, SpmvIndirectUnary, Values};
/// let (c, v) = ([1u64, 0], [10i32, 20]);
/// let args = SegReduceArgs { data_len: 2, cols: c.as_ptr(), vec: v.as_ptr(), vec_len: 2, ..Default::default() };
/// assert_eq!(unsafe { SpmvIndirectUnary::walk_value(&args, 3, 3, 0, &mut 0) }, 20);
/// ```
pub type SpmvIndirectUnary = IndirectOf<SpmvUnary>;

impl<T: Element, I, V: Values<T, I>> Values<T, I> for IndirectOf<V> {
    const IN_WALK: bool = true;
    type Pre = ();
    #[inline(always)]
    unsafe fn pre(_: &SegReduceArgs<T, I>, _: usize) {}
    #[inline(always)]
    unsafe fn value_or(_: &SegReduceArgs<T, I>, _: usize, _: (), _: bool, or: T, _: &mut u32) -> T {
        or
    }
    #[inline(always)]
    unsafe fn walk_value(
        args: &SegReduceArgs<T, I>,
        i: u64,
        seg_start: u64,
        source: u64,
        bad: &mut u32,
    ) -> T {
        let at = source.wrapping_add(i.wrapping_sub(seg_start));
        if at < args.data_len && source <= args.data_len {
            V::value(args, at as usize, bad)
        } else {
            *bad |= ERROR_GATHER;
            T::ZERO
        }
    }
}

/// The plain segmented reduction: `data[i]`.
///
/// ```
/// use mgpu_segreduce::device::{Direct, SegReduceArgs, Values};
/// let data = [4i32, 5];
/// let args = SegReduceArgs::<i32, u32> { data: data.as_ptr(), total: 2, ..Default::default() };
/// assert_eq!(unsafe { <Direct as Values<i32, u32>>::value(&args, 1, &mut 0) }, 5);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Direct;

impl<T: Element, I> Values<T, I> for Direct {
    type Pre = ();
    #[inline(always)]
    unsafe fn pre(_: &SegReduceArgs<T, I>, _: usize) {}
    #[inline(always)]
    unsafe fn value_or(
        args: &SegReduceArgs<T, I>,
        i: usize,
        _: (),
        ok: bool,
        or: T,
        _: &mut u32,
    ) -> T {
        // Read once: evict-first (`ld.global.cs`). On an H200 the 8-byte rows took 4 to 9 %
        // less time at 2^24 than with default loads (docs/segreduce.md).
        mgpu_core::load_streaming_or(args.data.wrapping_add(i), ok, or)
    }
}

/// SpMV's gather when `ok`: `vec[col]` (through the read-only path: no thread writes the
/// vector), or [`ERROR_COLUMN`] into `bad` for a column at or past `vec_len`; `None`
/// then, and when not `ok`, with nothing read. A predicated load, no branch
/// ([`Values::value_or`]).
///
/// # Safety
/// `vec` is readable at `0..vec_len`.
#[inline(always)]
unsafe fn gather<T: Element, I: Idx>(
    args: &SegReduceArgs<T, I>,
    col: I,
    ok: bool,
    bad: &mut u32,
) -> Option<T> {
    let col = col.to_u64();
    let inside = col < args.vec_len;
    *bad |= ERROR_COLUMN * (ok && !inside) as u32;
    let x =
        mgpu_core::load_read_only_or(args.vec.wrapping_add(col as usize), ok && inside, T::ZERO);
    (ok && inside).then_some(x)
}

/// An SpMV step's value from its [`gather`] `x`: `or` when the step is not `ok`, `f(x)`
/// when the gather read the vector, zero on a column past it (the step raised
/// [`ERROR_COLUMN`]).
#[inline(always)]
fn gathered_or<T: Element>(ok: bool, x: Option<T>, or: T, f: impl FnOnce(T) -> T) -> T {
    match (ok, x) {
        (false, _) => or,
        (true, Some(x)) => f(x),
        (true, None) => T::ZERO,
    }
}

/// CSR SpMV over another semiring (seed 002's `SpmvCsrBinary` with its `mul` operator):
/// `Mul(data[i], vec[cols[i]])`, the tiles' operator being the semiring's `add` (min-plus
/// for shortest paths: `Mul = Plus`, `add = Minimum`); a column past the vector raises
/// [`ERROR_COLUMN`] and reads nothing. `SKEWED`: [`Values::SKEWED`] (the product,
/// [`SpmvBinary`]; the other semirings' tiles keep plain loads: with the window ptxas
/// spilled in more of them, which sit at 64 registers).
///
/// ```
/// use mgpu_core::Plus;
/// use mgpu_segreduce::device::{SegReduceArgs, SpmvWith, Values};
/// let (m, c, v) = ([2i32, 3], [1u32, 0], [10i32, 20]);
/// let args = SegReduceArgs { data: m.as_ptr(), total: 2, cols: c.as_ptr(), vec: v.as_ptr(), vec_len: 2, ..Default::default() };
/// assert_eq!(unsafe { <SpmvWith<Plus> as Values<i32, u32>>::value(&args, 0, &mut 0) }, 22);
/// ```
#[derive(Debug, Default)]
pub struct SpmvWith<Mul, const SKEWED: bool = false>(core::marker::PhantomData<Mul>);

impl<Mul, const SKEWED: bool> Clone for SpmvWith<Mul, SKEWED> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Mul, const SKEWED: bool> Copy for SpmvWith<Mul, SKEWED> {}

impl<T: Element, I: Idx, Mul: BinaryOp<T>, const SKEWED: bool> Values<T, I>
    for SpmvWith<Mul, SKEWED>
{
    const SKEWED: bool = SKEWED;
    type Pre = I;
    #[inline(always)]
    unsafe fn pre(args: &SegReduceArgs<T, I>, i: usize) -> I {
        // Streaming: read once, and not to push the gathered vector out of L2.
        mgpu_core::load_streaming(args.cols.add(i))
    }
    #[inline(always)]
    unsafe fn value_or(
        args: &SegReduceArgs<T, I>,
        i: usize,
        col: I,
        ok: bool,
        or: T,
        bad: &mut u32,
    ) -> T {
        let x = gather(args, col, ok, bad);
        let m = mgpu_core::load_streaming_or(args.data.wrapping_add(i), ok, T::ZERO);
        gathered_or(ok, x, or, |x| Mul::apply(m, x))
    }
}

/// CSR SpMV, binary (seed 002's `SpmvCsrBinary`): `data[i] * vec[cols[i]]`; a column past
/// the vector raises [`ERROR_COLUMN`] and reads nothing.
///
/// ```
/// use mgpu_segreduce::device::{SegReduceArgs, SpmvBinary, Values, ERROR_COLUMN};
/// let (m, c, v) = ([2.0f64, 3.0], [1u32, 7], [10.0f64, 20.0]);
/// let args = SegReduceArgs { data: m.as_ptr(), total: 2, cols: c.as_ptr(), vec: v.as_ptr(), vec_len: 2, ..Default::default() };
/// let mut bad = 0;
/// assert_eq!(unsafe { SpmvBinary::value(&args, 0, &mut bad) }, 40.0);
/// unsafe { SpmvBinary::value(&args, 1, &mut bad) };
/// assert_eq!(bad, ERROR_COLUMN);
/// ```
pub type SpmvBinary = SpmvWith<Multiplies, true>;

/// CSR SpMV, unary (seed 002's `SpmvCsrUnary`): `vec[cols[i]]` (no matrix values); a
/// column past the vector raises [`ERROR_COLUMN`].
///
/// ```
/// use mgpu_segreduce::device::{SegReduceArgs, SpmvUnary, Values};
/// let (c, v) = ([1u64, 0], [10i32, 20]);
/// let args = SegReduceArgs { total: 2, cols: c.as_ptr(), vec: v.as_ptr(), vec_len: 2, ..Default::default() };
/// assert_eq!(unsafe { SpmvUnary::value(&args, 0, &mut 0) }, 20);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SpmvUnary;

impl<T: Element, I: Idx> Values<T, I> for SpmvUnary {
    const SKEWED: bool = true;
    type Pre = I;
    #[inline(always)]
    unsafe fn pre(args: &SegReduceArgs<T, I>, i: usize) -> I {
        mgpu_core::load_streaming(args.cols.add(i))
    }
    #[inline(always)]
    unsafe fn value_or(
        args: &SegReduceArgs<T, I>,
        _: usize,
        col: I,
        ok: bool,
        or: T,
        bad: &mut u32,
    ) -> T {
        gathered_or(ok, gather(args, col, ok, bad), or, |x| x)
    }
}

/// Arguments of the kernels ([`seg_reduce_tiles`] and its SpMV and indirect forms,
/// [`spine`], reduce-by-key's value pass): one struct, so that they form one kernel set.
///
/// # Examples
///
/// ```
/// let a = mgpu_segreduce::device::SegReduceArgs::<f64, u32>::default();
/// assert!(a.data.is_null() && a.num_segments == 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SegReduceArgs<T, I> {
    /// The values (`total` of them).
    pub data: *const T,
    /// Values.
    pub total: u64,
    /// The segment starts: `csr[j]` is the first value of segment `j` (an exclusive scan
    /// of the segment lengths: `csr[0] == 0`, non-decreasing, at most `total`).
    pub csr: *const I,
    /// Segments (`csr` and `output` length).
    pub num_segments: u64,
    /// Upper-bound Merge Path partitions of the values against `csr`, one per tile
    /// boundary (`tiles + 1`, from `mgpu_partition::load_balance_partitions`).
    pub mp: *const u64,
    /// Tiles of [`seg_reduce_tiles`] (its grid).
    pub tiles: u64,
    /// Merge steps per tile of [`seg_reduce_tiles`] (its `NT * VT`).
    pub nv: u64,
    /// Per segment: its reduction (the identity when it is empty). The first segment a
    /// tile ends gets only its values in the tile from [`seg_reduce_tiles`]; the spine
    /// prepends the rest.
    pub output: *mut T,
    /// Per tile: the reduction of its values after its last segment end.
    pub carry_out: *mut T,
    /// Per chunk of [`spine`] (`NT * VT` tiles): the reduction of its tiles' carry-outs
    /// after its last tile that ends a segment, published for the chunks after it.
    pub chunk_carry: *mut T,
    /// Per chunk: 1 when one of its tiles ends a segment.
    pub chunk_ends: *mut u32,
    /// Per chunk `c`, in 32-bit word `2 * c + 1` (the high half of the pool's 64-bit
    /// epoch word `c`, where every user of the block keeps a tag, never a value):
    /// `epoch << 2 | 1` once its `chunk_carry` and `chunk_ends` are written (tags of other
    /// epochs: not yet); null with one chunk.
    pub chunk_flags: *mut u32,
    /// This launch's epoch in `chunk_flags` (1 to 2^30 - 1).
    pub epoch: u32,
    /// The error word: [`seg_reduce_tiles`] ORs `ERROR_*` bits into it (zeroed by the
    /// host); when one is set, the spine does nothing (the tiles that failed wrote neither
    /// results nor carry-outs).
    pub error: *mut u32,
    /// SpMV ([`spmv_tiles`]): the column of each nonzero (`total` of them; `data` holds
    /// the matrix values for the binary form). Null otherwise.
    pub cols: *const I,
    /// SpMV: the dense vector the columns index. Null otherwise.
    pub vec: *const T,
    /// SpMV: the vector's length; a column at or past it is [`ERROR_COLUMN`].
    pub vec_len: u64,
    /// Indirect reduction ([`indirect_tiles`]): where each segment's values start in
    /// `data` (`num_segments` of them). Null otherwise.
    pub sources: *const I,
    /// Indirect reduction: `data`'s length; a segment reaching past it is
    /// [`ERROR_GATHER`].
    pub data_len: u64,
    /// Reduce-by-key ([`crate::rbk::rbk_reduce`]): per tile, the runs that start before
    /// it (an exclusive scan of the tiles' run heads). When set, the spine takes each
    /// tile's ended segments from it instead of from `mp`. Null otherwise.
    pub heads: *const u64,
    /// Reduce-by-key: the number of runs (one word, on the device).
    pub run_count: *const u64,
    /// Reduce-by-key: each tile thread's run heads ([`crate::rbk::rbk_heads`]).
    pub codes: *const u32,
    /// Reduce-by-key: the outputs' length; more runs is [`ERROR_CAPACITY`].
    pub capacity: u64,
    /// Reduce-by-key in one go (no plan): the head keys that [`crate::rbk::rbk_heads`]
    /// left, as `key_words` 32-bit words a key (tile `t`'s from key `t * NT * VT`), which
    /// [`crate::rbk::rbk_reduce`] copies to `keys_out`, so no launch of
    /// [`crate::rbk::rbk_keys`] is needed. Null when a plan's key pass moves the keys.
    pub head_keys: *const u32,
    /// Reduce-by-key in one go: the first key of each run, `key_words` words a key
    /// (`capacity` keys).
    pub keys_out: *mut u32,
    /// Reduce-by-key in one go: 32-bit words a key (1 or 2).
    pub key_words: u32,
    /// A warp a segment ([`crate::warps`]): one word, zeroed before the launch: the
    /// pieces of the segments listed as too long for a warp. Null otherwise.
    pub long_count: *mut u32,
    /// A warp a segment: at a listed segment's first piece, the segment's number.
    pub long_segs: *mut u64,
    /// A warp a segment: at a listed segment's first piece, its pieces folded so far.
    pub long_done: *mut u32,
    /// A warp a segment: per piece, its segment's first piece.
    pub piece_owner: *mut u32,
    /// A warp a segment: per piece, its values folded.
    pub partials: *mut T,
}

impl<T, I> Default for SegReduceArgs<T, I> {
    /// Null pointers and zero sizes.
    fn default() -> Self {
        use core::ptr::{null, null_mut};
        SegReduceArgs {
            data: null(),
            total: 0,
            csr: null(),
            num_segments: 0,
            mp: null(),
            tiles: 0,
            nv: 0,
            output: null_mut(),
            carry_out: null_mut(),
            chunk_carry: null_mut(),
            chunk_ends: null_mut(),
            chunk_flags: null_mut(),
            epoch: 0,
            error: null_mut(),
            cols: null(),
            vec: null(),
            vec_len: 0,
            sources: null(),
            data_len: 0,
            heads: null(),
            run_count: null(),
            codes: null(),
            capacity: 0,
            head_keys: null(),
            keys_out: null_mut(),
            key_words: 0,
            long_count: null_mut(),
            long_segs: null_mut(),
            long_done: null_mut(),
            piece_owner: null_mut(),
            partials: null_mut(),
        }
    }
}

/// Chunk `c`'s flag in the spine's `chunk_flags`: the high half of the epoch block's
/// 64-bit word `c`. A low half may hold a 4-byte value that a scan published in an
/// earlier call, which could equal this call's tag; every user keeps a tag in the high
/// half, so an old one there is of another epoch.
#[inline(always)]
fn chunk_flag(flags: *mut u32, c: usize) -> *mut u32 {
    flags.wrapping_add(2 * c + 1)
}

/// Bytes rounded up to 16.
pub(crate) const fn align16(bytes: usize) -> usize {
    bytes.div_ceil(16) * 16
}

/// Slots of the tile's segment starts: a tile holds at most `NT * VT` of them and one
/// sentinel after them, and the walk may read up to `VT` slots past its range before the
/// checks have voted (on a bad CSR), so they are padded by `VT`.
const fn tile_slots(nt: usize, vt: usize) -> usize {
    nt * vt + 1 + vt
}

/// Slots of the tile's values and results: the values from the bottom (at most `NT * VT`),
/// the results from the top down ([`result_top`]), one per segment start (that of segment
/// 0 in a slot of its own above the top) and the last tile's final one. On a bad CSR (not
/// yet voted on) a walk may read values up to `VT` slots past its range and store results
/// up to `VT` slots past its own: padded by `2 * VT`, the two never meet, so the walks
/// store results while others still read values.
const fn value_slots(nt: usize, vt: usize) -> usize {
    nt * vt + 2 * vt + 2
}

/// The slot of the tile's first result (segment `first`); segment `first + r` is in slot
/// `result_top - r`.
const fn result_top(nt: usize, vt: usize) -> usize {
    value_slots(nt, vt) - 2
}

/// Offset of the segment starts in [`seg_reduce_tiles`]' shared memory: after the
/// values and results.
const fn starts_offset(nt: usize, vt: usize, t_bytes: usize) -> usize {
    align16((SKEW + value_slots(nt, vt)) * t_bytes)
}

/// The alignment, in values, of the windows the tiles load their values from: a tile's
/// values `a0..a0 + a_count` are loaded as window slots `skew..skew + a_count` of a window
/// that starts at the multiple of `SKEW` at or below `a0` (when the window, `NT * VT`
/// slots, still holds them all; at `a0` otherwise), so that every warp's load of 4-byte
/// columns covers one 128-byte line and of 8-byte values two, not one line more: at an
/// arbitrary `a0` about 12 % more sectors, which SpMV's tiles, bound by L2's
/// throughput, pay for. The values' shared slots are below `vals` by the skew; the
/// layout reserves `SKEW` slots for it.
const SKEW: usize = 32;

/// The skew of a tile's value window ([`SKEW`]): `a0`'s remainder, when the window of
/// `nv` slots still holds the tile's `a_count` values after it, else 0 (`window_skew(100,
/// 50, 896)` is 4, `window_skew(100, 894, 896)` 0).
#[inline(always)]
fn window_skew(a0: u64, a_count: u32, nv: u32) -> u32 {
    let skew = (a0 % SKEW as u64) as u32;
    if skew + a_count <= nv {
        skew
    } else {
        0
    }
}

/// Offset of the segmented scan's scratch area.
const fn scratch_offset(nt: usize, vt: usize, t_bytes: usize, i_bytes: usize) -> usize {
    starts_offset(nt, vt, t_bytes) + align16(tile_slots(nt, vt) * i_bytes)
}

/// Bytes of shared memory [`seg_reduce_tiles`] needs with `NT * VT` steps per tile,
/// `t_bytes`-byte values and `i_bytes`-byte indices: the tile's values and results, its
/// segment starts, and the segmented scan's scratch.
///
/// # Examples
///
/// ```
/// use mgpu_segreduce::device::tiles_shared_bytes;
/// assert_eq!(tiles_shared_bytes(128, 11, 4, 4), 5856 + 5680 + 32);
/// ```
pub const fn tiles_shared_bytes(nt: usize, vt: usize, t_bytes: usize, i_bytes: usize) -> usize {
    scratch_offset(nt, vt, t_bytes, i_bytes) + align16(seg_scan_shared_bytes(nt, t_bytes))
}

/// The first segment a tile ends, and one past its last: a tile whose B steps are the
/// starts of segments `b0..b1` ends segments `b0 - 1 .. b1 - 1` (the start of segment 0
/// ends nothing), and the last tile also ends segment `n - 1`.
///
/// # Examples
///
/// ```
/// use mgpu_segreduce::device::ended_segments;
/// assert_eq!(ended_segments(0, 3, 7, false), (0, 2));
/// assert_eq!(ended_segments(3, 7, 7, true), (2, 7));
/// assert_eq!(ended_segments(4, 4, 7, false), (3, 3)); // no start: ends nothing
/// ```
#[inline(always)]
pub fn ended_segments(b0: u64, b1: u64, n: u64, last_tile: bool) -> (u64, u64) {
    let begin = b0.saturating_sub(1);
    let end = if last_tile { n } else { b1.saturating_sub(1) };
    (begin, if end > begin { end } else { begin })
}

/// Tile `tile`'s segment starts `b0..b1` from the partitions (tiles of `nv` merge steps
/// over `total` values and `n` segments): `b0 = nv * tile - mp[tile]`, the same for `b1`
/// at the next boundary.
///
/// # Safety
/// `mp` is readable at `tile` and `tile + 1`.
#[inline(always)]
unsafe fn tile_starts(mp: *const u64, tile: u64, nv: u64, steps: u64) -> (u64, u64) {
    let d0 = nv * tile;
    let d1 = if d0 + nv < steps { d0 + nv } else { steps };
    let (m0, m1) = (*mp.add(tile as usize), *mp.add(tile as usize + 1));
    (d0.saturating_sub(m0), d1.saturating_sub(m1))
}

/// The segmented reduction of one tile (see the module docs): checks the tile's CSR and
/// partitions as the load-balancing search does (a tile that finds a fault raises it and
/// writes nothing), loads its values and segment starts to shared memory, walks each
/// thread's `VT` merge steps, and stores the tile's results and carry-out.
///
/// # Safety
/// `data` is readable at `0..total`, `csr` at `0..num_segments`, `mp` at `0..=grid`,
/// `output` writable at `0..num_segments`, `carry_out` at `0..grid`, `error` is one
/// writable word; shared memory is [`tiles_shared_bytes`]. The grid is `mp`'s length
/// minus one. `NT` is a multiple of 32 and `VT <= 32`.
///
/// # Examples
///
/// Segments of lengths 2, 0, 3 (CSR 0, 2, 2) in one tile: one kernel, no spine.
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::device::{seg_reduce_tiles, tiles_shared_bytes, SegReduceArgs};
/// let (data, csr, mp) = ([1i32, 2, 3, 4, 5], [0u32, 2, 2], [0u64, 5]);
/// let (mut out, mut carry, mut err) = ([9i32; 3], [9i32], [0u32]);
/// let args = SegReduceArgs {
///     data: data.as_ptr(), total: 5, csr: csr.as_ptr(), num_segments: 3, mp: mp.as_ptr(),
///     output: out.as_mut_ptr(), carry_out: carry.as_mut_ptr(), error: err.as_mut_ptr(),
///     ..Default::default()
/// };
/// sim::launch(1, 32, tiles_shared_bytes(32, 1, 4, 4), &|cta: &sim::SimCta| unsafe {
///     seg_reduce_tiles::<_, i32, u32, Plus, 32, 1>(cta, &args)
/// });
/// assert_eq!((out, carry, err), ([3, 0, 12], [0], [0]));
/// ```
#[inline(always)]
pub unsafe fn seg_reduce_tiles<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    tiles::<C, T, I, Op, Direct, NT, VT>(cta, args)
}

/// CSR SpMV (seed 002's `SpmvCsrBinary`/`SpmvCsrUnary`): the tiles of
/// [`seg_reduce_tiles`] over the values `V` makes from the nonzeros ([`SpmvBinary`]:
/// `data[i] * vec[cols[i]]`; [`SpmvUnary`]: `vec[cols[i]]`), reduced with `Op` per row
/// (`Plus` for the product of a matrix and a vector). A column at or past `vec_len` raises [`ERROR_COLUMN`] (the tile still
/// writes its results; they are unspecified).
///
/// # Safety
/// As [`seg_reduce_tiles`], with `cols` readable at `0..total`, `vec` at `0..vec_len` and,
/// for [`SpmvBinary`], `data` at `0..total`.
///
/// # Examples
///
/// The 3x3 matrix `[1 0 2; 0 0 0; 0 3 0]` times `[1, 10, 100]`.
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::device::{spmv_tiles, tiles_shared_bytes, SegReduceArgs, SpmvBinary};
/// let (m, cols, csr, x, mp) = ([1.0f64, 2.0, 3.0], [0u32, 2, 1], [0u32, 2, 2], [1.0, 10.0, 100.0], [0u64, 3]);
/// let (mut y, mut carry, mut err) = ([0.0f64; 3], [0.0f64], [0u32]);
/// let args = SegReduceArgs {
///     data: m.as_ptr(), total: 3, csr: csr.as_ptr(), num_segments: 3, mp: mp.as_ptr(),
///     output: y.as_mut_ptr(), carry_out: carry.as_mut_ptr(), error: err.as_mut_ptr(),
///     cols: cols.as_ptr(), vec: x.as_ptr(), vec_len: 3, ..Default::default()
/// };
/// sim::launch(1, 32, tiles_shared_bytes(32, 1, 8, 4), &|cta: &sim::SimCta| unsafe {
///     spmv_tiles::<_, f64, u32, Plus, SpmvBinary, 32, 1>(cta, &args)
/// });
/// assert_eq!((y, err), ([201.0, 0.0, 30.0], [0]));
/// ```
#[inline(always)]
pub unsafe fn spmv_tiles<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    V: Values<T, I>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    tiles::<C, T, I, Op, V, NT, VT>(cta, args)
}

/// The indirect segmented reduction (seed 002's `IndirectReduceCsr`): the tiles of
/// [`seg_reduce_tiles`], each value read during the walk from its segment's source
/// ([`Indirect`]). A source range past `data_len` raises [`ERROR_GATHER`].
///
/// # Safety
/// As [`seg_reduce_tiles`], with `sources` readable at `0..num_segments` and `data` at
/// `0..data_len`.
///
/// # Examples
///
/// Segments of lengths 2 and 3 whose values start at `data[3]` and `data[0]`.
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::device::{indirect_tiles, tiles_shared_bytes, SegReduceArgs};
/// let (data, csr, sources, mp) = ([1i32, 2, 3, 40, 50], [0u32, 2], [3u32, 0], [0u64, 5]);
/// let (mut out, mut carry, mut err) = ([0i32; 2], [0i32], [0u32]);
/// let args = SegReduceArgs {
///     data: data.as_ptr(), total: 5, csr: csr.as_ptr(), num_segments: 2, mp: mp.as_ptr(),
///     output: out.as_mut_ptr(), carry_out: carry.as_mut_ptr(), error: err.as_mut_ptr(),
///     sources: sources.as_ptr(), data_len: 5, ..Default::default()
/// };
/// sim::launch(1, 32, tiles_shared_bytes(32, 1, 4, 4), &|cta: &sim::SimCta| unsafe {
///     indirect_tiles::<_, i32, u32, Plus, 32, 1>(cta, &args)
/// });
/// assert_eq!((out, err), ([90, 6], [0]));
/// ```
#[inline(always)]
pub unsafe fn indirect_tiles<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    tiles::<C, T, I, Op, Indirect, NT, VT>(cta, args)
}

/// The tiles of [`seg_reduce_tiles`] over the values `V` gives.
///
/// The tile's partitions are checked first (they give the ranges it reads). The values
/// and segment starts are then loaded, and the segment starts checked in shared memory
/// while the walk runs: every adjacent pair of the CSR lies in one tile (with the start
/// before it, which thread 0 loads), so the tiles together check that it is
/// non-decreasing from 0 and at most `total`, and the partitions made from it are then
/// right. The checks vote at the barrier before the results are stored, and a tile that
/// found a fault stores nothing. Until then a bad CSR can only make the walk read
/// shared slots of its own (both arrays are padded for it).
#[inline(always)]
unsafe fn tiles<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    V: Values<T, I>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    cta.grid_dependency_wait(); // the partitions come from the kernel just before
    let (n, total) = (args.num_segments, args.total);
    let (t_bytes, i_bytes) = (core::mem::size_of::<T>(), core::mem::size_of::<I>());
    let nv = (NT * VT) as u64;
    let block = cta.block();
    let tid = cta.tid();
    let last_tile = block + 1 == cta.grid();

    // The partitions: ordered and inside the inputs (the same values in every thread, so
    // a bad tile returns as a whole).
    let (mp0, mp1) = (
        *args.mp.add(block as usize),
        *args.mp.add(block as usize + 1),
    );
    if mgpu_loadbalance::device::tile_ranges(block, nv, n, total, mp0, mp1).is_none() {
        if tid == 0 {
            cta.raise_error(args.error, ERROR_UNSORTED);
        }
        return;
    }
    let tile = load_balance_tile::<I>(
        block,
        nv,
        I::from_u64(total),
        I::from_u64(n),
        mp0,
        mp1,
        false,
    );
    let (a0, b0) = (tile.a0, tile.b0);
    let (a_count, b_count) = (tile.a_count(), tile.b_count());
    // The values' window (loaded aligned, [`SKEW`]); the tile's values from `vals` on.
    const { assert!(!V::SKEWED || NT >= SKEW) };
    let skew = if V::IN_WALK || !V::SKEWED {
        0
    } else {
        window_skew(a0.to_u64(), a_count, nv as u32)
    };
    let window = cta.shared::<T>(0);
    let vals = window.add(skew as usize);
    let starts = cta.shared::<I>(starts_offset(NT, VT, t_bytes));
    let scratch = cta.shared::<u8>(scratch_offset(NT, VT, t_bytes, i_bytes));

    // The values into registers, all issued before the first store so that they are in
    // flight together (coalesced, strided); the segment starts meanwhile straight to
    // shared memory, with a sentinel after them that ends the walk's comparisons (the
    // next tile's first value; none in the last tile); thread 0 also loads the start
    // before the tile's, for the checks.
    // The first two rows of starts are loaded with the values (a tile of mean-8 or
    // longer segments has no more); the rest, after the values are stored, so that no
    // value register stays live across a loop (at 40 registers it would spill).
    let mut bad = 0u32;
    let csr = args.csr.add(b0.to_usize());
    let row = |k: u32| -> I {
        let i = tid + k * NT as u32;
        if i < b_count {
            *csr.add(i as usize)
        } else {
            I::ZERO
        }
    };
    let (c0, c1) = (row(0), row(1));
    let mut v = [Op::identity(); VT];
    if !V::IN_WALK {
        // What the values need first (SpMV's columns), all in flight together; then the
        // values (SpMV's gathers), all in flight together.
        // Window slot `w = tid + NT * k` holds value `a0 - skew + w` when `skew <= w <
        // skew + a_count` (only `k = 0` can be below the skew: `NT >= SKEW`).
        let at = a0.to_usize() - skew as usize + tid as usize;
        let (lo, hi) = (skew, skew + a_count);
        let inside = |k: usize| {
            let w = tid + (NT * k) as u32;
            (k > 0 || w >= lo) && w < hi
        };
        let mut pre = [V::Pre::default(); VT];
        for (k, p) in pre.iter_mut().enumerate() {
            if inside(k) {
                *p = V::pre(args, at + NT * k);
            }
        }
        for (k, x) in v.iter_mut().enumerate() {
            *x = V::value_or(args, at + NT * k, pre[k], inside(k), *x, &mut bad);
        }
    }
    // Thread 0's loads for the checks: the start before the tile's; the first start
    // (tile 0) and the last (the last tile), which need not lie in those tiles.
    let (mut prev, mut first_start, mut last_start) = (I::ZERO, I::ZERO, I::ZERO);
    if tid == 0 {
        if b_count > 0 && b0 != I::ZERO {
            prev = *csr.sub(1);
        }
        if block == 0 && n > 0 {
            first_start = *args.csr;
        }
        if last_tile && n > 0 {
            last_start = *args.csr.add(n as usize - 1);
        }
    }
    if tid == 0 {
        *starts.add(b_count as usize) = if last_tile {
            I::from_u64(u64::MAX)
        } else {
            tile.a1
        };
    }
    if tid < b_count {
        *starts.add(tid as usize) = c0;
    }
    if tid + (NT as u32) < b_count {
        *starts.add(tid as usize + NT) = c1;
    }
    if !V::IN_WALK {
        // Every window slot, outside the tile's values too (the identity there, never
        // read as a value): one guard per value, not two (ptxas keeps the loads' guards
        // for the stores in spilled predicate bits otherwise).
        for (k, x) in v.iter().enumerate() {
            *window.add(tid as usize + NT * k) = *x;
        }
        cta.raise_error(args.error, bad); // SpMV's columns: the results are still stored
    }
    cta.launch_dependents(); // the spine may start its CTAs (it waits for this grid's end)
    let mut i = tid + 2 * NT as u32;
    while i < b_count {
        *starts.add(i as usize) = *csr.add(i as usize);
        i += NT as u32;
    }
    cta.sync();

    // The checks of the segment starts (voted on below).
    let mut csr_bad = 0u32;
    let mut j = tid;
    while j + 1 < b_count {
        if *starts.add(j as usize + 1) < *starts.add(j as usize) {
            csr_bad |= ERROR_UNSORTED;
        }
        j += NT as u32;
    }
    if tid == 0 {
        if b_count > 0 && b0 != I::ZERO && *starts < prev {
            csr_bad |= ERROR_UNSORTED;
        }
        if first_start != I::ZERO {
            csr_bad |= ERROR_FIRST;
        }
        if last_start.to_u64() > total {
            csr_bad |= ERROR_TOTAL;
        }
    }

    // The walk. A tile with few segment starts (at most `SPARSE_STARTS` of them) walks
    // its values in thread order, `VT` to a thread, the starts at most a few per thread
    // ([`sparse_walk`]); any other walks its Merge Path, `VT` steps to a thread ([`walk`]).
    // (The choice is the same in every thread: `b_count` is the tile's.) The start `b`
    // (tile-local) ends segment `b0 + b - 1`, whose result goes to `res.sub(b)` (the slot
    // above the top in the tile of segment 0, whose own start ends nothing); each thread
    // stores its ends as it finds them but its first, which waits for the carry-in.
    let shift = (b0 == I::ZERO) as usize;
    let res = vals.add(result_top(NT, VT) + shift);
    let sparse = !V::IN_WALK && b_count as usize <= sparse_starts(NT);
    let steps = a_count + b_count;
    let (walk, has_last) = if sparse {
        let lo = VT as u32 * tid;
        let last_thread = if a_count / (VT as u32) < NT as u32 {
            a_count / VT as u32
        } else {
            NT as u32 - 1
        };
        let has_last = last_tile && n > 0 && steps > 0 && tid == last_thread;
        let walk = if lo + VT as u32 <= a_count {
            sparse_walk::<T, I, Op, VT, true>(vals, starts, res, a0, a_count, b_count, lo)
        } else {
            sparse_walk::<T, I, Op, VT, false>(vals, starts, res, a0, a_count, b_count, lo)
        };
        (walk, has_last)
    } else {
        // Each thread's first step on the tile's Merge Path, then its steps in order.
        let diag = if VT as u32 * tid < steps {
            VT as u32 * tid
        } else {
            steps
        };
        let mp_t = merge_path(
            Counting(a0),
            a_count,
            starts as *const I,
            b_count,
            diag,
            Upper,
            Less,
        );
        let (a_t, b_t) = (mp_t, diag - mp_t);
        let at = Steps {
            a0,
            b0,
            a: a_t,
            b: b_t,
        };
        let walk = if last_tile {
            let my_steps = steps - diag;
            walk::<T, I, Op, V, VT, false>(args, vals, starts, res, at, my_steps, &mut bad)
        } else {
            walk::<T, I, Op, V, VT, true>(args, vals, starts, res, at, VT as u32, &mut bad)
        };
        // The virtual end after the last value: the thread holding the tile's last step.
        let has_last = last_tile && n > 0 && steps > 0 && tid == (steps - 1) / VT as u32;
        (walk, has_last)
    };
    if V::IN_WALK {
        cta.raise_error(args.error, bad);
    }
    let carry = if has_last { Op::identity() } else { walk.acc };
    let (carry_in, tile_carry) =
        cta_seg_scan::<C, T, Op, NT>(cta, carry, walk.seen || has_last, scratch);

    // The thread's first end, and the last tile's final result, now that the carry-in
    // is known.
    if walk.seen {
        *res.sub(walk.first_b as usize) = walk.first_with::<Op>(carry_in);
    }
    let (first, end) = ended_segments(b0.to_u64(), tile.b1.to_u64(), n, last_tile);
    let top = vals.add(result_top(NT, VT)); // the tile's first result (`res` less `shift`)
    if has_last {
        *top.sub((n - 1 - first) as usize) = walk.last_with::<Op>(carry_in);
    }
    if cta.sync_or(csr_bad != 0) {
        cta.raise_error(args.error, csr_bad);
        return;
    }
    let count = (end - first) as u32;
    let out = args.output.add(first as usize);
    let mut i = tid;
    while i < count {
        *out.add(i as usize) = *top.sub(i as usize);
        i += NT as u32;
    }
    if tid == 0 {
        *args.carry_out.add(block as usize) = tile_carry;
    }
}

/// What a thread's walk leaves once it has stored every end but its first: the
/// accumulator after its last step, and (`seen`: the thread found an end) the partial
/// its first end found (the carry-in goes before it) and that end's start (tile-local;
/// reduce-by-key's walk does not use it). The segmented reduction's and reduce-by-key's
/// walks both close their segments with [`Walk::end`].
pub(crate) struct Walk<T> {
    pub(crate) acc: T,
    first: T,
    first_b: u32,
    pub(crate) seen: bool,
}

impl<T: Element> Walk<T> {
    /// The walk before its first step.
    #[inline(always)]
    pub(crate) fn new(identity: T) -> Self {
        Walk {
            acc: identity,
            first: identity,
            first_b: 0,
            seen: false,
        }
    }

    /// The start `b` ends the open segment: its result is stored in `slot()` (then
    /// `true`), or kept for the carry-in if it is the thread's first end.
    ///
    /// # Safety
    /// `slot()` is writable.
    #[inline(always)]
    pub(crate) unsafe fn end(&mut self, slot: impl FnOnce() -> *mut T, b: u32) -> bool {
        let stored = self.seen;
        if stored {
            *slot() = self.acc;
        } else {
            self.first = self.acc;
            self.first_b = b;
        }
        self.seen = true;
        stored
    }

    /// The thread's first end's result, with the carry-in before it.
    #[inline(always)]
    pub(crate) fn first_with<Op: AssociativeOp<T>>(&self, carry_in: T) -> T {
        Op::apply(carry_in, self.first)
    }

    /// The result of the segment open after the thread's last step (the last tile's
    /// virtual end): the accumulator, after the carry-in when the thread ended nothing.
    #[inline(always)]
    pub(crate) fn last_with<Op: AssociativeOp<T>>(&self, carry_in: T) -> T {
        if self.seen {
            self.acc
        } else {
            Op::apply(carry_in, self.acc)
        }
    }
}

/// The most segment starts a tile may hold for [`sparse_walk`]: one per four threads (a
/// thread finds its own by a binary search and then loops over them, so their number
/// bounds a thread's work; on an H100 tiles of mean-10 segments, 130 to 180 starts, were
/// 7 to 12 % slower this way than on the Merge Path, mean-1000 ones 12 % faster).
const fn sparse_starts(nt: usize) -> usize {
    nt / 4
}

/// A thread's walk over tile positions `lo..lo + VT` of its values in thread order
/// (values at `vals`, tile-local; `a_count` of them), for tiles with few segment starts
/// (at `starts`, global value indices, `b_count` of them). A start at position `p` ends
/// the open segment before value `p` is folded in: the thread finds its starts (the
/// first by a binary search) and marks their positions in a mask, then walks its values
/// without branches but at the marked ones, where it stores the ends (into `res`, see
/// [`Walk::end`]) and the empty segments of further starts at the same value.
/// `FULL`: all `VT` positions hold values.
///
/// # Safety
/// As [`tiles`], after its loads; `res.sub(b)` is writable for every `b < b_count`.
#[inline(always)]
unsafe fn sparse_walk<
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const VT: usize,
    const FULL: bool,
>(
    vals: *const T,
    starts: *const I,
    res: *mut T,
    a0: I,
    a_count: u32,
    b_count: u32,
    lo: u32,
) -> Walk<T> {
    let base = a0.wrapping_add(I::from_u32(lo));
    // The first start at or after position `lo` (a bad CSR, not yet voted on, only gives
    // wrong positions: every read stays below `b_count`).
    let (mut l, mut r) = (0u32, b_count);
    while l < r {
        let m = (l + r) / 2;
        if *starts.add(m as usize) < base {
            l = m + 1;
        } else {
            r = m;
        }
    }
    let mut end_bits = 0u32;
    let mut j = l;
    while j < b_count {
        let p = (*starts.add(j as usize)).wrapping_sub(base).to_u64();
        if p >= VT as u64 {
            break;
        }
        end_bits |= 1 << p;
        j += 1;
    }
    let mut walk = Walk::new(Op::identity());
    if end_bits == 0 {
        // No start here (most threads of long segments): a plain fold.
        for k in 0..VT {
            if FULL || lo + (k as u32) < a_count {
                walk.acc = Op::apply(walk.acc, *vals.add(lo as usize + k));
            }
        }
        return walk;
    }
    let mut b = l; // the next start
    for k in 0..VT {
        // Read before the end's stores, so that the read is in flight during them.
        let x = (FULL || lo + (k as u32) < a_count).then(|| *vals.add(lo as usize + k));
        if (end_bits >> k) & 1 != 0 {
            walk.end(|| res.sub(b as usize), b);
            walk.acc = Op::identity();
            // The other starts at this value begin empty segments: each ends the one
            // before it with nothing.
            b += 1;
            let at = base.wrapping_add(I::from_u32(k as u32));
            while b < b_count && *starts.add(b as usize) == at {
                *res.sub(b as usize) = Op::identity();
                b += 1;
            }
        }
        if let Some(x) = x {
            walk.acc = Op::apply(walk.acc, x);
        }
    }
    walk
}

/// Where a thread's walk on its tile's Merge Path begins: the tile's first value and
/// segment start (global), and the thread's first step (tile-local).
struct Steps<I> {
    a0: I,
    b0: I,
    a: u32,
    b: u32,
}

/// A thread's walk from `at` on the tile's Merge Path (values at `vals`, tile-local;
/// segment starts at `starts`, global value indices, with the sentinel at `b_count`):
/// a value step folds the value in, a start step ends the open segment (stored into
/// `res`, see [`Walk::end`]). `FULL` tiles take all `VT` steps without branches but at
/// the ends (the sentinel stops the starts); the last tile takes `my_steps`. Values read
/// in the walk ([`Values::IN_WALK`]) follow each segment's source.
///
/// # Safety
/// As [`tiles`], after its loads; `res.sub(b)` is writable for every start `b` the walk
/// can reach (up to `VT` past the tile's on a bad CSR).
#[inline(always)]
unsafe fn walk<
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    V: Values<T, I>,
    const VT: usize,
    const FULL: bool,
>(
    args: &SegReduceArgs<T, I>,
    vals: *const T,
    starts: *const I,
    res: *mut T,
    at: Steps<I>,
    my_steps: u32,
    bad: &mut u32,
) -> Walk<T> {
    let Steps {
        a0,
        b0,
        mut a,
        mut b,
    } = at;
    let mut walk = Walk::new(Op::identity());
    // For values read during the walk: the current segment's first value and source.
    let global_b0 = b0.to_u64();
    let (mut seg_start, mut source) = (0u64, 0u64);
    if V::IN_WALK && global_b0 + b as u64 > 0 {
        let s = global_b0 + b as u64 - 1;
        seg_start = if b > 0 {
            (*starts.add(b as usize - 1)).to_u64()
        } else {
            (*args.csr.add(s as usize)).to_u64()
        };
        source = (*args.sources.add(s as usize)).to_u64();
    }
    for k in 0..VT {
        // Steps past the thread's last do nothing (selects, not a branch out of the
        // loop: it must unroll).
        let valid = FULL || (k as u32) < my_steps;
        let before = a0.wrapping_add(I::from_u32(a)) < *starts.add(b as usize);
        let (take_a, take_b) = (valid && before, valid && !before);
        if V::IN_WALK {
            if take_a {
                let i = a0.to_u64() + a as u64;
                walk.acc = Op::apply(walk.acc, V::walk_value(args, i, seg_start, source, bad));
            } else if take_b {
                walk.end(|| res.sub(b as usize), b);
                walk.acc = Op::identity();
                // (A bad CSR can step past the last segment: no source there.)
                let s = global_b0 + b as u64;
                if s < args.num_segments {
                    seg_start = (*starts.add(b as usize)).to_u64();
                    source = (*args.sources.add(s as usize)).to_u64();
                }
            }
        } else {
            if take_b {
                walk.end(|| res.sub(b as usize), b);
            }
            walk.acc = if take_a {
                Op::apply(walk.acc, *vals.add(a as usize))
            } else if take_b {
                Op::identity()
            } else {
                walk.acc
            };
        }
        a += take_a as u32;
        b += take_b as u32;
    }
    walk
}

/// Bytes of shared memory [`spine`] needs for `nt` threads and
/// `t_bytes`-byte values: the segmented scan's scratch, then `nt / 32` words for the
/// warps' end flags, one value for the chunk's carry-in and 32 for the chunks it folds.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_segreduce::device::spine_shared_bytes(256, 8), 96 + 32 + 264);
/// ```
pub const fn spine_shared_bytes(nt: usize, t_bytes: usize) -> usize {
    align16(seg_scan_shared_bytes(nt, t_bytes)) + align16(4 * (nt / WARP_SIZE as usize)) + 33 * 8
}

/// Tile `t`'s ended segments `first..end` (none when equal) among `n`: from the
/// partitions, or from reduce-by-key's per-tile run heads when `heads` is set.
///
/// # Safety
/// As [`spine`]; `t < tiles`.
#[inline(always)]
unsafe fn tile_segments<T, I>(args: &SegReduceArgs<T, I>, t: u64, n: u64) -> (u64, u64) {
    let last_tile = t + 1 == args.tiles;
    let (b0, b1) = if args.heads.is_null() {
        tile_starts(args.mp, t, args.nv, args.total + args.num_segments)
    } else {
        let h0 = *args.heads.add(t as usize);
        (
            h0,
            if last_tile {
                n
            } else {
                *args.heads.add(t as usize + 1)
            },
        )
    };
    ended_segments(b0, b1, n, last_tile)
}

/// What a spine thread reads of its `VT` consecutive tiles of its chunk before it folds
/// them: each one's ended segments `first..end` and carry-out (a tile past the chunk or
/// the grid ends none and carries the identity).
struct SpineTiles<T, const VT: usize> {
    first: [u64; VT],
    end: [u64; VT],
    carry: [T; VT],
}

impl<T: Element, const VT: usize> SpineTiles<T, VT> {
    /// Reads thread `tid`'s tiles of chunk `chunk` (chunks of `chunk_tiles` tiles): their
    /// ended segments among `n` now, and their carry-outs when `carries` is called (a
    /// tile that found a fault leaves its carry-out unwritten, so the spine reads them
    /// only once it has seen that no tile did).
    ///
    /// # Safety
    /// As [`spine`].
    #[inline(always)]
    unsafe fn segments<I, Op: AssociativeOp<T>>(
        args: &SegReduceArgs<T, I>,
        chunk: u32,
        tid: u32,
        chunk_tiles: u64,
        n: u64,
    ) -> Self {
        let mut tiles = SpineTiles {
            first: [0; VT],
            end: [0; VT],
            carry: [Op::identity(); VT],
        };
        for k in 0..VT {
            if let Some(t) = Self::tile(args, chunk, tid, chunk_tiles, k) {
                (tiles.first[k], tiles.end[k]) = tile_segments(args, t, n);
            }
        }
        tiles
    }

    /// Reads the carry-outs of the tiles [`SpineTiles::segments`] read.
    ///
    /// # Safety
    /// As [`spine`], and no tile raised an error.
    #[inline(always)]
    unsafe fn carries<I>(
        &mut self,
        args: &SegReduceArgs<T, I>,
        chunk: u32,
        tid: u32,
        chunk_tiles: u64,
    ) {
        for k in 0..VT {
            if let Some(t) = Self::tile(args, chunk, tid, chunk_tiles, k) {
                self.carry[k] = *args.carry_out.add(t as usize);
            }
        }
    }

    /// Thread `tid`'s tile `k` of chunk `chunk`, if there is one.
    #[inline(always)]
    fn tile<I>(
        args: &SegReduceArgs<T, I>,
        chunk: u32,
        tid: u32,
        chunk_tiles: u64,
        k: usize,
    ) -> Option<u64> {
        let i = tid as u64 * VT as u64 + k as u64;
        let t = chunk as u64 * chunk_tiles + i;
        (t < args.tiles && i < chunk_tiles).then_some(t)
    }

    /// The tiles folded in order after `x`: the carry leaving them (the reduction of the
    /// carry-outs after the last tile that ends a segment, that tile's own included) and
    /// whether one of them ends a segment. `at_end(k, c)` sees each tile `k` that ends a
    /// segment with the carry `c` entering it.
    #[inline(always)]
    fn fold<Op: AssociativeOp<T>>(&self, mut x: T, mut at_end: impl FnMut(usize, T)) -> (T, bool) {
        let mut ended = false;
        for k in 0..VT {
            if self.end[k] > self.first[k] {
                at_end(k, x);
                x = self.carry[k];
                ended = true;
            } else {
                x = Op::apply(x, self.carry[k]);
            }
        }
        (x, ended)
    }
}

/// The spine, one launch: chunk `cta.block()` (`NT * VT` tiles, `VT` consecutive ones
/// per thread) folds its tiles' carry-outs (the segmented scan of the threads' folds),
/// publishes the carry leaving it for the chunks after it (`chunk_carry`, `chunk_ends`,
/// then its flag), and finds the carry entering it: warp 0 reads the chunks before it,
/// 32 at a time (lane `l` the chunk `end - 1 - l`, waiting for its flag), back to the
/// nearest one that ends a segment, and lane 0 folds them in order. Each tile that ends
/// a segment then gets the carry entering it prepended to the result of the first
/// segment it ends. A chunk waits only for the chunks before it to fold their own tiles
/// (they wait for nothing before publishing), and those started first; the fold is the
/// same whatever the timing, so the results are the same bits on every run.
///
/// # Safety
/// `carry_out` is readable at `0..tiles`, `mp` at `0..=tiles`, `output` readable and
/// writable at `0..num_segments`, `error` readable; with more than one chunk
/// `chunk_carry` and `chunk_ends` writable at `0..grid`, `chunk_flags` at `0..2 * grid`
/// (the flags of another epoch than `epoch`); shared memory is [`spine_shared_bytes`].
/// `NT` is a multiple of 32.
///
/// # Examples
///
/// Two tiles of 4 steps over 5 values and 3 segments (CSR 0, 2, 2; lengths 2, 0, 3): tile 0
/// holds values 0, 1 and starts 0, 1, 2 (results 3 and 0), tile 1 values 2 to 4; the
/// last segment's 12 is all in tile 1, which the spine leaves as it is.
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::device::{spine, spine_shared_bytes, SegReduceArgs};
/// let (mut carry, mp) = ([0i32, 0], [0u64, 2, 5]);
/// let (mut out, mut no_error) = ([3i32, 0, 12], [0u32]);
/// let args = SegReduceArgs::<i32, u32> {
///     carry_out: carry.as_mut_ptr(), tiles: 2, mp: mp.as_ptr(), nv: 4, total: 5,
///     num_segments: 3, output: out.as_mut_ptr(), error: no_error.as_mut_ptr(),
///     ..Default::default()
/// };
/// sim::launch(1, 32, spine_shared_bytes(32, 4), &|cta: &sim::SimCta| unsafe {
///     spine::<_, i32, u32, Plus, 32, 1>(cta, &args)
/// });
/// assert_eq!(out, [3, 0, 12]);
/// ```
///
/// Across chunks: 3 tiles of 4 steps, one a chunk, carry-outs 1, 2, 4 (CSR 0, 0, 9 over 9
/// values): tile 0 ends segment 0, tile 1 nothing, tile 2 segments 1 and 2; segment 1's
/// result gets 1 + 2 from the chunks before.
///
/// ```
/// use mgpu_core::{sim, Plus};
/// use mgpu_segreduce::device::{spine, spine_shared_bytes, SegReduceArgs};
/// let (mut carry, mp) = ([1i32, 2, 4], [0u64, 2, 6, 9]);
/// let (mut out, mut no_error) = ([10i32, 20, 30], [0u32]);
/// let (mut cc, mut ce, mut flags) = ([0i32; 3], [0u32; 3], [0u32; 6]);
/// let args = SegReduceArgs::<i32, u32> {
///     carry_out: carry.as_mut_ptr(), tiles: 3, mp: mp.as_ptr(), nv: 4, total: 9,
///     num_segments: 3, output: out.as_mut_ptr(), error: no_error.as_mut_ptr(),
///     chunk_carry: cc.as_mut_ptr(), chunk_ends: ce.as_mut_ptr(),
///     chunk_flags: flags.as_mut_ptr(), epoch: 1, ..Default::default()
/// };
/// // 32 threads of one tile each would make one chunk; take chunks of 1 tile instead.
/// sim::launch(3, 32, spine_shared_bytes(32, 4), &|cta: &sim::SimCta| unsafe {
///     mgpu_segreduce::device::spine_chunks::<_, i32, u32, Plus, 32, 1>(cta, &args, 1)
/// });
/// assert_eq!((out, ce), ([10, 23, 30], [1, 0, 1]));
/// ```
#[inline(always)]
pub unsafe fn spine<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
) {
    spine_chunks::<C, T, I, Op, NT, VT>(cta, args, (NT * VT) as u64)
}

/// [`spine`] with chunks of `chunk_tiles` tiles (at most `NT * VT`; threads past them
/// hold none): small chunks let the simulator take the spine across several of them.
///
/// # Safety
/// As [`spine`].
#[doc(hidden)]
#[inline(always)]
pub unsafe fn spine_chunks<
    C: Cta,
    T: Element,
    I: Idx,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
>(
    cta: &C,
    args: &SegReduceArgs<T, I>,
    chunk_tiles: u64,
) {
    cta.grid_dependency_wait(); // the carry-outs come from the kernel just before
    let (chunk, tid) = (cta.block(), cta.tid());
    // Everything the fold needs, read at once: the error word, the thread's tiles, and
    // for thread 0 the tile before the chunk. Reduce-by-key's segments are its runs,
    // each tile's counted in `heads`.
    let n = if args.heads.is_null() {
        args.num_segments
    } else {
        *args.run_count
    };
    let error = *args.error;
    let mut tiles = SpineTiles::<T, VT>::segments::<I, Op>(args, chunk, tid, chunk_tiles, n);
    let before_chunk = chunk as u64 * chunk_tiles;
    let has_prev = tid == 0 && before_chunk > 0 && before_chunk <= args.tiles;
    let prev_ends = has_prev && {
        let (first, end) = tile_segments(args, before_chunk - 1, n);
        end > first
    };
    if error != 0 {
        return;
    }
    // Then the carry-outs, and the results the carries are prepended to, read before
    // the scan and the look-back so that the reads overlap them.
    tiles.carries(args, chunk, tid, chunk_tiles);
    let prev_carry = if prev_ends {
        *args.carry_out.add(before_chunk as usize - 1)
    } else {
        Op::identity()
    };
    let mut results = [Op::identity(); VT];
    for (k, r) in results.iter_mut().enumerate() {
        if tiles.end[k] > tiles.first[k] && tiles.first[k] < n {
            *r = *args.output.add(tiles.first[k] as usize);
        }
    }
    let nw = NT / WARP_SIZE as usize;
    let t_bytes = core::mem::size_of::<T>();
    let scratch = cta.shared::<u8>(0);
    let warp_ends = cta.shared::<u32>(align16(seg_scan_shared_bytes(NT, t_bytes)));
    let chunk_in = cta.shared::<T>(align16(seg_scan_shared_bytes(NT, t_bytes)) + align16(4 * nw));

    // The chunk's own fold, published for the chunks after it.
    let (x, ended) = tiles.fold::<Op>(Op::identity(), |_, _| {});
    let vote = cta.ballot(u32::MAX, ended);
    if cta.lane() == 0 {
        *warp_ends.add(cta.warp() as usize) = vote;
    }
    let (carry_in, chunk_carry) = cta_seg_scan::<C, T, Op, NT>(cta, x, ended, scratch);
    let any = cta.sync_or(ended);
    if tid == 0 && !args.chunk_flags.is_null() {
        args.chunk_carry
            .add(chunk as usize)
            .write_volatile(chunk_carry);
        args.chunk_ends
            .add(chunk as usize)
            .write_volatile(any as u32);
        cta.store_release_u32(
            chunk_flag(args.chunk_flags, chunk as usize),
            args.epoch << 2 | 1,
        );
    }

    // The carry entering the chunk: the carry-out of the tile before it when that tile
    // ends a segment (nearly always); else warp 0 reads the chunks before it 32 at a time
    // (lane `l` the chunk `end - 1 - l`, once published) back to the nearest one that
    // ends a segment, and lane 0 folds them in order through shared memory.
    if cta.warp() == 0 {
        let lane = cta.lane() as usize;
        let window = chunk_in.add(1);
        let mut c = Op::identity();
        let mut end = if cta.ballot(u32::MAX, prev_ends) != 0 {
            c = prev_carry; // lane 0's, the one that uses it
            0
        } else {
            chunk as usize
        };
        while end > 0 {
            let k = end.wrapping_sub(1 + lane);
            if end > lane {
                let flag = chunk_flag(args.chunk_flags, k);
                while cta.load_acquire_u32(flag) != args.epoch << 2 | 1 {
                    cta.backoff(100);
                }
            }
            let (v, ends) = if end > lane {
                (
                    args.chunk_carry.add(k).read_volatile(),
                    args.chunk_ends.add(k).read_volatile() != 0,
                )
            } else {
                (Op::identity(), true)
            };
            *window.add(lane) = v;
            let vote = cta.ballot(u32::MAX, ends);
            cta.sync_warp(u32::MAX);
            if lane == 0 {
                let first = if vote != 0 {
                    vote.trailing_zeros() as usize
                } else {
                    31
                };
                let mut w = Op::identity();
                for j in (0..=first).rev() {
                    w = Op::apply(w, *window.add(j));
                }
                c = Op::apply(w, c);
            }
            cta.sync_warp(u32::MAX);
            if vote != 0 {
                break;
            }
            end = end.saturating_sub(32);
        }
        if lane == 0 {
            *chunk_in = c;
        }
    }
    cta.sync();
    // Whether a thread before this one in the chunk ends a segment; if none does, the
    // chunk's carry-in reaches this thread too.
    let warp = cta.warp() as usize;
    let mut before = *warp_ends.add(warp) & ((1u32 << cta.lane()) - 1) != 0;
    for w in 0..nw {
        before |= w < warp && *warp_ends.add(w) != 0;
    }
    let carry_in = if before {
        carry_in
    } else {
        Op::apply(*chunk_in, carry_in)
    };
    // Each tile that ends a segment gets the carry entering it prepended to the result
    // of the first segment it ends.
    tiles.fold::<Op>(carry_in, |k, c| {
        if tiles.first[k] < n {
            *args.output.add(tiles.first[k] as usize) = Op::apply(c, results[k]);
        }
    });
}
