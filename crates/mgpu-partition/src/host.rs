//! Host launchers of the partition kernels, generic over [`Device`]. Each queues one
//! launch of a group of lanes per partition point (the group size from
//! [`partition_lanes_log2`]) and returns the partitions in a pool temporary ([`Temp`])
//! without synchronising: the next kernel on the stream reads them. `.to_vec()` on the
//! result copies them to the host (and synchronises).
//!
//! The partition kernels read only a few elements per search (`log2(n)` along the
//! bisection, the cooperative groups' probes beside it, or the interpolation search's
//! few), so they do not check that the inputs are sorted (or that a CSR starts at 0): on
//! such input the partitions are meaningless but deterministic and always inside the range
//! the serial search can return (the serial result itself for the merge partitions that a
//! group of lanes bisects; not necessarily for the k-ary or interpolating searches), and the
//! algorithm kernels that read all the data validate it (DESIGN §5).
//!
//! The counting partitions (Bulk Insert's) run one lane per search by interpolation
//! (`MGPU_PARTITION_SEARCH=binary` restores the bisection, for measuring). The search
//! (Bulk Remove's), load-balancing and merge partitions (merge and mergesort) run groups
//! of 32 lanes up to [`COOP_MAX_PARTITIONS`] points. Above that the merge partitions run
//! one lane by interpolation over the keys (the comparator's
//! [`OrderEstimate`](mgpu_core::OrderEstimate); `MGPU_PARTITION_SEARCH=kary` gives them
//! [`merge_kary_log2`]'s K = 4 or the bisection instead), and the search and
//! load-balancing partitions one lane with a k-ary search of [`partition_kary_log2`]
//! (K = 8 or 4 while there are few searches, the bisection when there are many), except
//! that the load-balancing partitions of dense scans (a mean count of at most
//! [`LBS_INTERPOLATE_MAX_MEAN`]) interpolate. The CSR partitions bisect with
//! [`partition_lanes_log2`]'s groups. On the H200 the interpolation was slower for the CSR partitions and, on
//! heavy-tailed scans, for the load-balancing ones, and no faster for the binary-search
//! ones (docs/partition.md).

use crate::device::{CountingArgs, CsrArgs, LbsArgs, MergeArgs, SearchArgs};
use crate::kernels::{MergeComparator, PartitionIndex, NT};
use mgpu_core::{Element, Kernel};
use mgpu_ctasearch::{Bounds, SearchBounds, COOP_MAX_LANES_LOG2};
use mgpu_runtime::{Device, DeviceSlice, Error, ErrorWord, Result, Temp};
use std::sync::OnceLock;

/// The number of partitions of `n` merge steps (or elements) in tiles of `nv`:
/// `ceil(n / nv) + 1`, one per tile boundary (the first is always 0 and the last is the end).
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_partition::partition_count(0, 10), 1);
/// assert_eq!(mgpu_partition::partition_count(30, 10), 4);
/// assert_eq!(mgpu_partition::partition_count(31, 10), 5);
/// ```
pub fn partition_count(n: usize, nv: usize) -> usize {
    n.div_ceil(nv.max(1)) + 1
}

fn check_nv(nv: usize) -> Result<()> {
    if nv == 0 {
        return Err(Error::InvalidInput(
            "nv (elements per tile) must be positive".into(),
        ));
    }
    Ok(())
}

/// The environment variable `var` as a number, if it is one.
fn env_u32(var: &str) -> Option<u32> {
    std::env::var(var).ok()?.trim().parse().ok()
}

/// `MGPU_PARTITION_LANES` (1, 2, 4, 8, 16 or 32), read once: forces the group size, for
/// measuring. Anything else is ignored.
fn lanes_override() -> Option<u32> {
    static LANES: OnceLock<Option<u32>> = OnceLock::new();
    *LANES.get_or_init(|| {
        let v = env_u32("MGPU_PARTITION_LANES")?;
        (v.is_power_of_two() && v <= 1 << COOP_MAX_LANES_LOG2).then(|| v.trailing_zeros())
    })
}

/// Partition counts up to which [`partition_lanes_log2`] gives each search a group of 32
/// lanes (above it, one lane).
pub const COOP_MAX_PARTITIONS: usize = 1024;

/// How many lanes search each of `partitions` partition points together, as a power of
/// two (the kernels' `lanes_log2`, 0 to 5): 32 lanes up to [`COOP_MAX_PARTITIONS`]
/// partitions, one lane above. Measured on an H200 (docs/partition.md): the cooperative
/// search's extra probes cost more memory traffic than the round trips they save as soon
/// as the machine holds more than a few thousand searches (at 2^24 elements, about 12,000
/// partitions, the load-balancing partitions take 9.9 us with one lane and 18.9 us with
/// 16); only at a few hundred partitions do 32 lanes win, by under a microsecond.
///
/// The environment variable `MGPU_PARTITION_LANES` (1, 2, 4, 8, 16 or 32; read once per
/// process) overrides the choice, for measuring.
///
/// # Examples
///
/// ```
/// # if std::env::var_os("MGPU_PARTITION_LANES").is_none() {
/// assert_eq!(mgpu_partition::partition_lanes_log2(100), 5); // 32 lanes
/// assert_eq!(mgpu_partition::partition_lanes_log2(1024), 5);
/// assert_eq!(mgpu_partition::partition_lanes_log2(1025), 0); // 1 lane
/// assert_eq!(mgpu_partition::partition_lanes_log2(100_000), 0);
/// # }
/// ```
pub fn partition_lanes_log2(partitions: usize) -> u32 {
    if let Some(l) = lanes_override() {
        return l;
    }
    if partitions <= COOP_MAX_PARTITIONS {
        COOP_MAX_LANES_LOG2
    } else {
        0
    }
}

/// `MGPU_PARTITION_SEARCH` (read once), for measuring: `binary` makes the counting
/// partitions bisect, with [`partition_lanes_log2`]'s groups, and `kary` run the k-ary
/// search, instead of interpolating (`kary` also makes the merge partitions run
/// [`merge_kary_log2`]'s k-ary search or the bisection); `interpolate` makes the search
/// and load-balancing partitions interpolate instead of running their k-ary search.
/// Anything else is ignored.
fn search_override() -> Option<&'static str> {
    static SEARCH: OnceLock<Option<&'static str>> = OnceLock::new();
    *SEARCH.get_or_init(|| parse_search(&std::env::var("MGPU_PARTITION_SEARCH").ok()?))
}

/// The value of `MGPU_PARTITION_SEARCH` that [`search_override`] acts on, if `v` is one.
fn parse_search(v: &str) -> Option<&'static str> {
    ["binary", "interpolate", "kary"]
        .into_iter()
        .find(|k| v.trim() == *k)
}

/// `MGPU_PARTITION_KARY` (0 to 3), read once: forces `log2(K)` of the k-ary searches (0:
/// the bisection; 1: K = 2, the bisection's probes in the k-ary loop), for measuring.
/// Anything else is ignored.
fn kary_override() -> Option<u32> {
    static KARY: OnceLock<Option<u32>> = OnceLock::new();
    *KARY.get_or_init(|| {
        env_u32("MGPU_PARTITION_KARY").filter(|&v| v <= mgpu_ctasearch::KARY_MAX_LOG2)
    })
}

/// Partition counts up to which [`partition_kary_log2`] picks K = 8, and up to which K = 4.
pub const KARY_PARTITIONS: [usize; 2] = [10_000, 40_000];

/// `log2(K)` of the k-ary search that the search and load-balancing partitions run with
/// one lane per point: K = 8 (7 independent probes a round) up to 10,000 partitions, K = 4
/// up to 40,000, 0 (the bisection) above. A k-ary search takes `log_K` round
/// trips instead of `log2`, for `K - 1` times the loads a round: with few searches the
/// round trips dominate, with many the traffic. Measured on an H100 (docs/partition.md):
/// at 2^24 outputs the load-balancing search (6,300 partitions) was fastest with K = 8 and
/// Bulk Remove (18,700) with K = 4 in a build with K fixed (with K chosen here that gain did
/// not reproduce); at 2^27 (50,000 and 150,000) none beat the bisection.
/// `MGPU_PARTITION_KARY=0|1|2|3` (read once per process) forces it, for measuring.
///
/// # Examples
///
/// ```
/// # if std::env::var_os("MGPU_PARTITION_KARY").is_none() {
/// assert_eq!(mgpu_partition::partition_kary_log2(6_000), 3);
/// assert_eq!(mgpu_partition::partition_kary_log2(20_000), 2);
/// assert_eq!(mgpu_partition::partition_kary_log2(100_000), 0);
/// # }
/// ```
pub fn partition_kary_log2(partitions: usize) -> u32 {
    if let Some(l) = kary_override() {
        return l;
    }
    if partitions <= KARY_PARTITIONS[0] {
        3
    } else if partitions <= KARY_PARTITIONS[1] {
        2
    } else {
        0
    }
}

/// Partition counts up to which [`merge_kary_log2`] picks K = 4 (the bisection above).
pub const MERGE_KARY_PARTITIONS: usize = 10_000;

/// `log2(K)` of the k-ary search that the merge and mergesort partitions run with one lane
/// per point when `MGPU_PARTITION_SEARCH=kary` (by default they interpolate over the keys,
/// [`mgpu_ctasearch::merge_path_interpolation_by`]): K = 4 (3 probes a round, two keys
/// each) up to [`MERGE_KARY_PARTITIONS`], 0 (the bisection) above. Measured on an H100
/// (docs/merge.md), with the searches' two loads a probe: at 2^24 keys (3,855 partitions
/// a pass) K = 4 took a mergesort of i32 keys from 0.940 to 0.918 ms and the merge from
/// 0.075 to 0.073 (K = 8: 0.922 and 0.074); at 2^27 (30,000) K = 4 was 2 to 3 % slower
/// than the bisection, K = 8 5 to 10 %.
/// `MGPU_PARTITION_KARY=0|1|2|3` (read once per process) forces it, for measuring.
///
/// # Examples
///
/// ```
/// # if std::env::var_os("MGPU_PARTITION_KARY").is_none() {
/// assert_eq!(mgpu_partition::merge_kary_log2(3_855), 2);
/// assert_eq!(mgpu_partition::merge_kary_log2(30_000), 0);
/// # }
/// ```
pub fn merge_kary_log2(partitions: usize) -> u32 {
    if let Some(l) = kary_override() {
        return l;
    }
    if partitions <= MERGE_KARY_PARTITIONS {
        2
    } else {
        0
    }
}

/// How a launch searches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Search {
    /// Groups of [`partition_lanes_log2`] lanes, bisecting (the CSR partitions).
    Groups,
    /// One lane by interpolation (the counting partitions, and the load-balancing ones of
    /// dense scans), unless `MGPU_PARTITION_SEARCH=binary` or `kary`.
    Interpolate,
    /// Groups of 32 lanes where [`partition_lanes_log2`] picks them, else one lane by a
    /// k-ary search of [`partition_kary_log2`] (the search and load-balancing partitions).
    Kary,
    /// Groups of 32 lanes where [`partition_lanes_log2`] picks them, else one lane by
    /// interpolation over the keys' [`OrderEstimate`](mgpu_core::OrderEstimate) (the merge
    /// partitions), unless `MGPU_PARTITION_SEARCH=kary`: then as `Kary`, with
    /// [`merge_kary_log2`]'s K.
    Merge,
}

/// Allocates `num` partitions and launches `K` with `search`'s groups of lanes; `args`
/// makes the arguments from the output pointer and the kernel's `lanes_log2` argument.
fn launch<D: Device, K: Kernel>(
    dev: &D,
    num: usize,
    search: Search,
    args: impl FnOnce(*mut u64, u32) -> K::Args,
) -> Result<Temp<u64, D>> {
    launch_after::<D, K>(dev, num, search, false, args)
}

/// [`launch`], queued as a dependent launch of the kernel before it when `dependent` (its
/// CTAs wait in `Cta::grid_dependency_wait` for that kernel to finish: only kernel bodies
/// that wait before they read are launched so).
fn launch_after<D: Device, K: Kernel>(
    dev: &D,
    num: usize,
    search: Search,
    dependent: bool,
    args: impl FnOnce(*mut u64, u32) -> K::Args,
) -> Result<Temp<u64, D>> {
    let search = match (search, search_override()) {
        (Search::Interpolate, Some("binary")) => Search::Groups,
        (Search::Interpolate, Some("kary")) => Search::Kary,
        (Search::Kary, Some("interpolate")) => Search::Interpolate,
        (Search::Merge, o) if partition_lanes_log2(num) == 0 && o != Some("kary") => {
            Search::Interpolate
        }
        (s, _) => s,
    };
    let interpolate = search == Search::Interpolate;
    let lanes_log2 = if interpolate {
        crate::device::INTERPOLATE
    } else {
        let l = partition_lanes_log2(num);
        match search {
            Search::Kary if l == 0 => partition_kary_log2(num) << crate::device::KARY_SHIFT,
            Search::Merge if l == 0 => merge_kary_log2(num) << crate::device::KARY_SHIFT,
            _ => l,
        }
    };
    let grid = num.div_ceil(NT >> (lanes_log2 & 0xff));
    if grid > u32::MAX as usize {
        return Err(Error::InvalidInput(format!(
            "{num} partitions are more than one launch can search"
        )));
    }
    let out = Temp::<u64, D>::new(dev, num)?;
    let a = args(out.as_mut_ptr(), lanes_log2);
    // SAFETY: `out` has `num` slots; the arguments name the caller's device slices with
    // their lengths, as the kernel bodies document.
    unsafe {
        if dependent {
            dev.launch_dependent::<K>(grid as u32, &a)?
        } else {
            dev.launch::<K>(grid as u32, &a)?
        }
    };
    Ok(out)
}

/// `MGPU_PARTITION_IN_TILES` (0 or 1), read once: forces [`partitions_in_tiles`]' answer,
/// for measuring.
fn in_tiles_override() -> Option<bool> {
    static IN_TILES: OnceLock<Option<u32>> = OnceLock::new();
    IN_TILES
        .get_or_init(|| env_u32("MGPU_PARTITION_IN_TILES").filter(|&v| v <= 1))
        .map(|v| v == 1)
}

/// Mean counts (work items per object) up to which a load-balancing launch runs in
/// **object tiles** (`mgpu_ctasearch::ObjectTile`: a fixed number of objects a tile and
/// all their items, no partitions; [`object_tiles`]): dense scans, whose partition
/// searches cost the most for their work and whose tiles rarely overflow. On an H100
/// object tiles made the mean-1 load-balancing search 15 % faster at 2^24 and 12 % at
/// 2^27 (docs/loadbalance.md). `MGPU_LBS_OBJECT_TILES=0|1` (read once) forces Merge Path
/// or object tiles for every mean.
///
/// ```
/// assert_eq!(mgpu_partition::OBJECT_TILES_MAX_MEAN, 2);
/// ```
pub const OBJECT_TILES_MAX_MEAN: u64 = 2;

/// The share of a tile's merge steps an object tile is sized to fill on average: the rest
/// is room for counts above the mean (a tile of uniform [0, 2] counts has a standard
/// deviation of about 1 % of its steps; a tile that overflows spills).
const OBJECT_TILE_FILL: f64 = 0.95;

/// Objects per tile when a load-balancing launch of `total` work items over `objects`
/// objects, in tiles of `nv` merge steps, should run in object tiles (a mean count of at
/// most [`OBJECT_TILES_MAX_MEAN`]): `0.95 * nv * objects / (objects + total)`, at least 1
/// and below `nv`; `None` for Merge Path tiles.
///
/// ```
/// assert_eq!(mgpu_partition::object_tiles(1000, 1000, 100), Some(47));
/// assert_eq!(mgpu_partition::object_tiles(10_000, 1000, 100), None); // mean 10
/// ```
pub fn object_tiles(total: usize, objects: usize, nv: usize) -> Option<usize> {
    static OVERRIDE: OnceLock<Option<u32>> = OnceLock::new();
    let forced = OVERRIDE.get_or_init(|| env_u32("MGPU_LBS_OBJECT_TILES").filter(|&v| v <= 1));
    let dense = total as u64 <= OBJECT_TILES_MAX_MEAN * objects as u64;
    if !forced.map_or(dense, |v| v == 1) || nv < 2 {
        return None;
    }
    let k = OBJECT_TILE_FILL * nv as f64 * objects as f64 / (objects as f64 + total as f64);
    Some((k as usize).clamp(1, nv - 1))
}

/// What a load-balancing launch in object tiles needs besides its inputs: the
/// [`SpillList`](mgpu_ctasearch::SpillList) for its arguments (objects a tile, a
/// temporary list with room for every chunk the tiles can spill, a zeroed count word from
/// the pool, no memset) and the grids of its two launches: the object tiles, then the
/// dependent launch of persistent CTAs that maps the spilled chunks. Dropping it gives the
/// count word back (dirty); keep it until both launches are queued.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::Simulator;
/// let dev = Simulator::new();
/// let l = mgpu_partition::ObjectTileLaunch::new(&dev, 1000, 1000, 100, 47, 12).unwrap();
/// assert_eq!((l.list.tile_objects, l.tiles, l.list.capacity), (47, 22, 20 + 22));
/// ```
pub struct ObjectTileLaunch<D: Device> {
    /// The arguments' object-tile part.
    pub list: mgpu_ctasearch::SpillList,
    /// The object tiles' grid.
    pub tiles: usize,
    /// The spill launch's grid (as many CTAs as fit the device at once, at most the
    /// list's capacity).
    pub persistent: usize,
    _spilled: Temp<u64, D>,
    dev: D,
}

impl<D: Device> ObjectTileLaunch<D> {
    /// The launch of `total` work items over `objects` objects in tiles of `k` objects
    /// (from [`object_tiles`]) and `nv` merge steps, `ctas_per_sm` CTAs an SM.
    ///
    /// # Errors
    /// More tiles than one launch can take; out of device memory.
    pub fn new(
        dev: &D,
        total: usize,
        objects: usize,
        nv: usize,
        k: usize,
        ctas_per_sm: u32,
    ) -> Result<Self> {
        let tiles = objects.div_ceil(k.max(1));
        if tiles > u32::MAX as usize {
            return Err(Error::InvalidInput(format!(
                "{objects} objects in tiles of {k} are more than one launch can take"
            )));
        }
        let capacity = (total + objects).div_ceil(nv) + tiles;
        let spilled = Temp::<u64, D>::new(dev, mgpu_ctasearch::CHUNK_WORDS * capacity)?;
        let count = dev.pool().clean_word(dev)?;
        let persistent = (dev.info().sm_count as usize * ctas_per_sm.max(1) as usize)
            .min(capacity)
            .max(1);
        Ok(ObjectTileLaunch {
            list: mgpu_ctasearch::SpillList {
                tile_objects: k as u64,
                spilled: spilled.as_mut_ptr(),
                count: count as *mut u32,
                capacity: capacity as u64,
            },
            tiles,
            persistent,
            _spilled: spilled,
            dev: dev.clone(),
        })
    }
}

impl<D: Device> Drop for ObjectTileLaunch<D> {
    fn drop(&mut self) {
        // SAFETY: the word came from `clean_word`; the launches using it are queued.
        unsafe { self.dev.pool().give_dirty(self.list.count as u64) };
    }
}

/// Whether a load-balancing launch of `grid` tiles, `ctas_per_sm` of which fit an SM,
/// should let each tile find its own two partitions
/// (`mgpu_ctasearch::cta_load_balance_partitions`) instead of queuing
/// [`load_balance_partitions`] before it: when the grid is at most one wave
/// (`dev.info().sm_count * ctas_per_sm` tiles), so that every tile searches at once and
/// the call saves the partition kernel's launch and its own chain of round trips. Larger
/// grids would pay a search per wave: on an H100 at 2^24 and more, tiles searching their
/// own partitions made bulk remove and the segmented reduction 1.4 to 2 times slower
/// (docs/bulk.md, docs/segreduce.md). `MGPU_PARTITION_IN_TILES=0|1` (read once per
/// process) forces the answer, for measuring.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Device, Simulator};
/// # if std::env::var_os("MGPU_PARTITION_IN_TILES").is_none() {
/// let dev = Simulator::new();
/// let wave = dev.info().sm_count as usize * 12;
/// assert!(mgpu_partition::partitions_in_tiles(&dev, wave, 12));
/// assert!(!mgpu_partition::partitions_in_tiles(&dev, wave + 1, 12));
/// # }
/// ```
pub fn partitions_in_tiles<D: Device>(dev: &D, grid: usize, ctas_per_sm: u32) -> bool {
    in_tiles_override()
        .unwrap_or_else(|| grid <= dev.info().sm_count as usize * ctas_per_sm.max(1) as usize)
}

/// Merge Path partitions of the merge of `a` and `b` (both sorted by `comp`) in tiles of
/// `nv` outputs: entry `i` is how many of the first `min(nv * i, a.len() + b.len())` merged
/// outputs come from `a` (the tile's A start; its B start is `nv * i` minus it).
/// [`Bounds::Lower`] takes A first on equal keys (merge, Bulk Insert), [`Bounds::Upper`]
/// takes B first (load-balancing search, vectorized sorted search). The seeds'
/// `MergePathPartitions<Bounds>(a, aCount, b, bCount, nv, 0, comp)`. Asynchronous.
///
/// # Errors
/// `nv == 0`; `a` and `b` on different devices is not checked (they must share `dev`).
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_ctasearch::Bounds;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let a = DeviceVec::from_slice(&dev, &[1i32, 3, 5, 7]).unwrap();
/// let b = DeviceVec::from_slice(&dev, &[3i32, 3, 8]).unwrap();
/// let mp = mgpu_partition::merge_path_partitions(a.as_slice(), b.as_slice(), 3, Bounds::Lower, Less).unwrap();
/// // Merge: 1a 3a 3b | 3b 5a 7a | 8b
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 2, 4, 4]);
/// ```
pub fn merge_path_partitions<D: Device, T: Element, C: MergeComparator<T>>(
    a: DeviceSlice<'_, T, D>,
    b: DeviceSlice<'_, T, D>,
    nv: usize,
    bounds: Bounds,
    _comp: C,
) -> Result<Temp<u64, D>> {
    check_nv(nv)?;
    let num = partition_count(a.len() + b.len(), nv);
    launch::<D, C::Kernel>(a.device(), num, Search::Merge, |out, lanes_log2| {
        MergeArgs {
            a: a.as_ptr(),
            b: b.as_ptr(),
            a_count: a.len() as u64,
            b_count: b.len() as u64,
            nv: nv as u64,
            coop: 0,
            num_partitions: num as u64,
            out,
            upper: bounds.is_upper() as u32,
            lanes_log2,
            skip_unless: core::ptr::null(),
        }
    })
}

/// The partitions of one mergesort merge pass (the `coop` form, seed 004): `keys` holds
/// sorted lists of `nv * coop / 2` keys (the last one shorter), and `coop` tiles of `nv`
/// merge each pair of lists into one. Entry `i` is tile `i`'s lower-bound Merge Path split
/// in its own merge's coordinates (relative to its A list); tiles read their ranges with
/// [`mgpu_ctasearch::compute_merge_range`]. The seeds'
/// `MergePathPartitions<MgpuBoundsLower>(keys, count, keys, 0, nv, coop, comp)`.
/// Asynchronous.
///
/// # Errors
/// `nv == 0`, or `coop` not a power of two of at least 2.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// // Two sorted lists of 4 (tiles of nv = 4, coop = 2 merges them into one).
/// let k = DeviceVec::from_slice(&dev, &[1u32, 4, 6, 7, 2, 3, 5, 8]).unwrap();
/// let mp = mgpu_partition::mergesort_partitions(k.as_slice(), 4, 2, Less).unwrap();
/// // Merge 1a 2b 3b 4a | 5b 6a 7a 8b: tile 1 starts at A = 2.
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 2, 0]);
/// ```
pub fn mergesort_partitions<D: Device, T: Element, C: MergeComparator<T>>(
    keys: DeviceSlice<'_, T, D>,
    nv: usize,
    coop: usize,
    comp: C,
) -> Result<Temp<u64, D>> {
    // SAFETY: a null word is never read.
    unsafe { mergesort_partitions_unless(keys, nv, coop, comp, core::ptr::null()) }
}

/// [`mergesort_partitions`] whose kernel does nothing when the device word `unsorted`
/// (non-null) reads 0 as it runs: a mergesort's flag that its input was already sorted,
/// so that the passes skip without a round trip to the host (`mgpu_merge`). With a
/// non-null `unsorted` the kernel is queued as a dependent launch of the kernel before
/// it (the one that wrote the lists and the word), so that its launch overlaps that
/// kernel's end; its CTAs wait for that kernel in `Cta::grid_dependency_wait`.
///
/// # Safety
/// `unsorted` is null or a device word that stays valid until the kernel has run.
///
/// # Errors
/// As [`mergesort_partitions`].
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let k = DeviceVec::from_slice(&dev, &[1u32, 4, 6, 7, 2, 3, 5, 8]).unwrap();
/// let flag = DeviceVec::from_slice(&dev, &[1u32]).unwrap();
/// let mp = unsafe { mgpu_partition::mergesort_partitions_unless(k.as_slice(), 4, 2, Less, flag.as_slice().as_ptr()) }.unwrap();
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 2, 0]);
/// ```
pub unsafe fn mergesort_partitions_unless<D: Device, T: Element, C: MergeComparator<T>>(
    keys: DeviceSlice<'_, T, D>,
    nv: usize,
    coop: usize,
    _comp: C,
    unsorted: *const u32,
) -> Result<Temp<u64, D>> {
    check_nv(nv)?;
    if coop < 2 || !coop.is_power_of_two() {
        return Err(Error::InvalidInput(format!(
            "coop must be a power of two of at least 2, not {coop}"
        )));
    }
    let num = partition_count(keys.len(), nv);
    // A mergesort pass's partitions follow the kernel that wrote the lists (the blocksort
    // or the pass before): a dependent launch, whose CTAs wait for it in the kernel.
    let dependent = !unsorted.is_null();
    launch_after::<D, C::Kernel>(keys.device(), num, Search::Merge, dependent, |out, lanes_log2| {
        MergeArgs {
            a: keys.as_ptr(),
            b: keys.as_ptr(),
            a_count: keys.len() as u64,
            b_count: 0,
            nv: nv as u64,
            coop: coop as u64,
            num_partitions: num as u64,
            out,
            upper: 0,
            lanes_log2,
            skip_unless: unsorted,
        }
    })
}

/// Binary-search partitions: entry `i` is the lower (or upper) bound of
/// `min(nv * i, count)` in `data` (sorted ascending): where tile `i` of `count` source
/// elements starts in a sorted index array (Bulk Remove's remove indices). The seeds'
/// `BinarySearchPartitions<Bounds>(count, data, numItems, nv, less)`. Asynchronous.
///
/// # Errors
/// `nv == 0`; [`Error::IndexOverflow`] when `count` does not fit `I`.
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::Bounds;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let remove = DeviceVec::from_slice(&dev, &[3u32, 4, 10, 11, 12, 25]).unwrap();
/// let p = mgpu_partition::binary_search_partitions(remove.as_slice(), 30, 10, Bounds::Lower).unwrap();
/// assert_eq!(p.to_vec().unwrap(), vec![0, 2, 5, 6]);
/// ```
pub fn binary_search_partitions<D: Device, I: PartitionIndex>(
    data: DeviceSlice<'_, I, D>,
    count: usize,
    nv: usize,
    bounds: Bounds,
) -> Result<Temp<u64, D>> {
    binary_search_partitions_clearing(data, count, nv, bounds, &ErrorWord::none())
}

/// [`binary_search_partitions`] whose kernel also zeroes `clear` (from its first thread):
/// the error word of the kernel queued after it (Bulk Remove's), which then needs no
/// memset, and no gap in the stream for one.
///
/// # Errors
/// As [`binary_search_partitions`].
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::Bounds;
/// use mgpu_runtime::{DeviceVec, ErrorWord, Simulator};
/// let dev = Simulator::new();
/// let remove = DeviceVec::from_slice(&dev, &[3u32, 4, 10, 11, 12, 25]).unwrap();
/// let word = ErrorWord::uncleared(&dev).unwrap();
/// let p = mgpu_partition::binary_search_partitions_clearing(remove.as_slice(), 30, 10, Bounds::Lower, &word).unwrap();
/// assert_eq!((p.to_vec().unwrap(), word.read().unwrap()), (vec![0, 2, 5, 6], 0));
/// ```
pub fn binary_search_partitions_clearing<D: Device, I: PartitionIndex>(
    data: DeviceSlice<'_, I, D>,
    count: usize,
    nv: usize,
    bounds: Bounds,
    clear: &ErrorWord<D>,
) -> Result<Temp<u64, D>> {
    check_nv(nv)?;
    Error::check_fits::<I>("binary-search partition count", count)?;
    let num = partition_count(count, nv);
    launch::<D, I::Search>(data.device(), num, Search::Kary, |out, lanes_log2| {
        SearchArgs {
            data: data.as_ptr(),
            num_items: data.len() as u64,
            count: count as u64,
            nv: nv as u64,
            num_partitions: num as u64,
            out,
            upper: bounds.is_upper() as u32,
            lanes_log2,
            clear: clear.as_mut_ptr(),
        }
    })
}

/// CSR partitions (seed 002's `PartitionCsrSegReduce`): for tiles of `nv` of the `nz`
/// elements described by the row offsets `csr` (starting at 0, non-decreasing), entry
/// `i` is the row holding element `nv * i` (`upper_bound(csr, nv * i) - 1`), with
/// [`CSR_CONTINUATION`](crate::CSR_CONTINUATION) (bit 63) set when that row starts before
/// `nv * i`; the last entry is `csr.len()` (the row count). Read them with
/// [`csr_limit_row`](crate::csr_limit_row) and
/// [`csr_limit_continues`](crate::csr_limit_continues). Asynchronous.
///
/// # Errors
/// `nv == 0`; [`Error::IndexOverflow`] when `nz` does not fit `I`.
///
/// # Examples
///
/// The seed's example: CSR { 0, 957, 1008, 2000, 2312 }, tiles of 1000.
///
/// ```
/// use mgpu_partition::CSR_CONTINUATION as F;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let csr = DeviceVec::from_slice(&dev, &[0u32, 957, 1008, 2000, 2312]).unwrap();
/// let p = mgpu_partition::csr_partitions(csr.as_slice(), 3000, 1000).unwrap();
/// assert_eq!(p.to_vec().unwrap(), vec![0, 1 | F, 3, 5]);
/// ```
pub fn csr_partitions<D: Device, I: PartitionIndex>(
    csr: DeviceSlice<'_, I, D>,
    nz: usize,
    nv: usize,
) -> Result<Temp<u64, D>> {
    check_nv(nv)?;
    Error::check_fits::<I>("CSR element count", nz)?;
    let num = partition_count(nz, nv);
    launch::<D, I::Csr>(csr.device(), num, Search::Groups, |out, lanes_log2| {
        CsrArgs {
            csr: csr.as_ptr(),
            num_rows: csr.len() as u64,
            nz: nz as u64,
            nv: nv as u64,
            num_partitions: num as u64,
            out,
            lanes_log2,
        }
    })
}

/// Load-balancing search partitions (seed 001): the upper-bound Merge Path partitions of
/// the `total` work items (the natural numbers) against `scan`, the exclusive scan of the
/// objects' work-item counts, in tiles of `nv` merge steps (work items plus objects).
/// Entry `i` is the first work item of tile `i`: the `mp` that
/// [`mgpu_ctasearch::cta_load_balance`] reads. Asynchronous.
///
/// # Errors
/// `nv == 0`; [`Error::IndexOverflow`] when `total` does not fit `I`.
///
/// # Examples
///
/// Seed 001's 40 objects (79 work items) in 4 tiles of 30 steps:
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let counts = [1u32, 2, 4, 0, 4, 4, 3, 3, 2, 4, 0, 0, 1, 2, 1, 1, 0, 2, 2, 1,
///               1, 4, 2, 3, 2, 2, 1, 1, 3, 0, 2, 1, 1, 3, 4, 2, 2, 4, 0, 4];
/// let mut scan = counts.to_vec();
/// let total = mgpu_cpu::scan_counts_exclusive_in_place(&mut scan).unwrap();
/// let dev = Simulator::new();
/// let s = DeviceVec::from_slice(&dev, &scan).unwrap();
/// let mp = mgpu_partition::load_balance_partitions(s.as_slice(), total as usize, 30).unwrap();
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 21, 38, 58, 79]);
/// ```
pub fn load_balance_partitions<D: Device, I: PartitionIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: usize,
    nv: usize,
) -> Result<Temp<u64, D>> {
    load_balance_partitions_clearing(scan, total, nv, &ErrorWord::none())
}

/// [`load_balance_partitions`] whose kernel also zeroes `clear` (from its first thread):
/// the error word of the kernel queued after it (the load-balancing search's, interval
/// expand's and move's), which then needs no memset.
///
/// # Errors
/// As [`load_balance_partitions`].
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, ErrorWord, Simulator};
/// let dev = Simulator::new();
/// let s = DeviceVec::from_slice(&dev, &[0u32, 2, 7, 10, 10]).unwrap();
/// let word = ErrorWord::uncleared(&dev).unwrap();
/// let mp = mgpu_partition::load_balance_partitions_clearing(s.as_slice(), 11, 4, &word).unwrap();
/// assert_eq!((mp.len(), word.read().unwrap()), (5, 0));
/// ```
pub fn load_balance_partitions_clearing<D: Device, I: PartitionIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: usize,
    nv: usize,
    clear: &ErrorWord<D>,
) -> Result<Temp<u64, D>> {
    check_nv(nv)?;
    Error::check_fits::<I>("load-balancing total", total)?;
    let num = partition_count(total + scan.len(), nv);
    launch::<D, I::Lbs>(scan.device(), num, lbs_search(total, scan.len()), |out, lanes_log2| {
        LbsArgs {
            scan: scan.as_ptr(),
            num_objects: scan.len() as u64,
            total: total as u64,
            nv: nv as u64,
            num_partitions: num as u64,
            out,
            lanes_log2,
            clear: clear.as_mut_ptr(),
        }
    })
}

/// Mean counts (work items per object) up to which the load-balancing partitions
/// interpolate instead of running their k-ary search or bisection (see
/// [`load_balance_partitions`]).
///
/// ```
/// assert_eq!(mgpu_partition::LBS_INTERPOLATE_MAX_MEAN, 2);
/// ```
pub const LBS_INTERPOLATE_MAX_MEAN: usize = 2;

/// The search of the load-balancing partitions of `total` work items over `objects`
/// objects: interpolation when the mean count is at most [`LBS_INTERPOLATE_MAX_MEAN`]
/// (dense scans, where an estimate from the scan's ends lands within a few values), the
/// k-ary search (bisection above 40,000 partitions) otherwise. Measured on an H100
/// (docs/partition.md): with mean-1 counts, interpolating made the load-balancing search
/// 8 % faster at 2^27 (1.47 to 1.37 copies) and the interval expand 6 % (2.18 to 2.04);
/// with mean-10 counts it gained nothing at 2^24, and with heavy-tailed counts (mean about
/// 10, one count of 2^20) it was 29 % slower at 2^24. Heavy-tailed counts with a mean of
/// at most 2 would take the interpolation and lose there.
fn lbs_search(total: usize, objects: usize) -> Search {
    if total <= LBS_INTERPOLATE_MAX_MEAN.saturating_mul(objects) {
        Search::Interpolate
    } else {
        Search::Kary
    }
}

/// The partitions of a load-balancing launch of tiles of `nv` merge steps, and its error
/// word: with `in_tiles` ([`partitions_in_tiles`]), a temporary of one slot per tile
/// boundary for the tiles to write their own partitions into, and a clean word
/// (`ErrorWord::clean`), with nothing queued; otherwise
/// [`load_balance_partitions_clearing`] with an uncleared word that its kernel zeroes.
///
/// # Errors
/// As [`load_balance_partitions`].
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let s = DeviceVec::from_slice(&dev, &[0u32, 2, 7, 10, 10]).unwrap();
/// let (mp, word) = mgpu_partition::load_balance_partitions_or_slots(s.as_slice(), 11, 4, false).unwrap();
/// assert_eq!((mp.to_vec().unwrap(), word.read().unwrap()), (vec![0, 2, 6, 9, 11], 0));
/// let (slots, word) = mgpu_partition::load_balance_partitions_or_slots(s.as_slice(), 11, 4, true).unwrap();
/// assert_eq!((slots.len(), word.read().unwrap()), (5, 0));
/// ```
pub fn load_balance_partitions_or_slots<D: Device, I: PartitionIndex>(
    scan: DeviceSlice<'_, I, D>,
    total: usize,
    nv: usize,
    in_tiles: bool,
) -> Result<(Temp<u64, D>, ErrorWord<D>)> {
    let dev = scan.device();
    if in_tiles {
        check_nv(nv)?;
        let slots = Temp::new(dev, partition_count(total + scan.len(), nv))?;
        return Ok((slots, ErrorWord::clean(dev)?));
    }
    let error = ErrorWord::uncleared(dev)?;
    let mp = load_balance_partitions_clearing(scan, total, nv, &error)?;
    Ok((mp, error))
}

/// The indices [`merge_path_counting_partitions`] merges with the counting positions: a
/// device array, or the arithmetic sequence `first + step * k` for `k` in `0..len`
/// (wrapping in `I`, as the seeds' `step_iterator`; nothing is read for it).
///
/// # Examples
///
/// ```
/// use mgpu_partition::IndexSource;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let v = DeviceVec::from_slice(&dev, &[2u32, 7]).unwrap();
/// let a: IndexSource<'_, u32, Simulator> = v.as_slice().into();
/// assert_eq!(a.len(), 2);
/// let s: IndexSource<'_, u32, Simulator> = IndexSource::Sequence { first: 2, step: 5, len: 20 };
/// assert_eq!(s.len(), 20);
/// ```
pub enum IndexSource<'a, I, D: Device> {
    /// A device array.
    Array(DeviceSlice<'a, I, D>),
    /// The generated indices `first + step * k`, `k < len`.
    Sequence {
        /// Index 0.
        first: I,
        /// Difference between consecutive indices.
        step: I,
        /// Number of indices.
        len: usize,
    },
}

impl<I: Copy, D: Device> Clone for IndexSource<'_, I, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I: Copy, D: Device> Copy for IndexSource<'_, I, D> {}

impl<I: Copy + 'static, D: Device> IndexSource<'_, I, D> {
    /// The number of indices.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_partition::IndexSource;
    /// let s: IndexSource<'_, u64, mgpu_runtime::Simulator> =
    ///     IndexSource::Sequence { first: 0, step: 0, len: 3 };
    /// assert!(!s.is_empty() && s.len() == 3);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            IndexSource::Array(a) => a.len(),
            IndexSource::Sequence { len, .. } => *len,
        }
    }

    /// Whether there are no indices.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_partition::IndexSource;
    /// let s: IndexSource<'_, u32, mgpu_runtime::Simulator> =
    ///     IndexSource::Sequence { first: 5, step: 1, len: 0 };
    /// assert!(s.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, I, D: Device> From<DeviceSlice<'a, I, D>> for IndexSource<'a, I, D> {
    fn from(s: DeviceSlice<'a, I, D>) -> Self {
        IndexSource::Array(s)
    }
}

/// Counting Merge Path partitions (Bulk Insert's, seed 003): the Merge Path of the
/// `indices` (A: sorted ascending, a device array or a generated sequence) against the
/// source positions `0, 1, ..., count - 1` (B, the seeds' `counting_iterator<int>(0)`,
/// never materialised), in tiles of `nv` merge steps. Entry `i` is how many of the first
/// `min(nv * i, indices.len() + count)` merged outputs are indices (the tile's A start;
/// its first position is `nv * i` minus it). [`Bounds::Lower`] puts index `x` before
/// position `x` (Bulk Insert: the value inserted at `x` precedes source element `x`),
/// [`Bounds::Upper`] after it. The seeds' `MergePathPartitions<Bounds>(indices, m,
/// counting_iterator<int>(0), count, nv, 0, mgpu::less<int>())`. Asynchronous.
///
/// The indices are not checked (unsorted ones give a deterministic result inside the
/// serial search's range, not necessarily its result); `indices`, when an array, must be on `dev`.
///
/// # Errors
/// `nv == 0`; [`Error::IndexOverflow`] when `count` does not fit `I`.
///
/// # Examples
///
/// The seed's Bulk Insert example: 5 values at 1, 1, 2, 3, 3 into 3 source elements,
/// B0 A0 A1 | B1 A2 B2 | A3 A4 in tiles of 3; then generated indices.
///
/// ```
/// use mgpu_ctasearch::Bounds;
/// use mgpu_partition::IndexSource;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let idx = DeviceVec::from_slice(&dev, &[1u32, 1, 2, 3, 3]).unwrap();
/// let mp = mgpu_partition::merge_path_counting_partitions(&dev, idx.as_slice().into(), 3, 3, Bounds::Lower).unwrap();
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 2, 3, 5]);
/// // Upper bounds: B0 B1 A0 | A1 B2 A2 | A3 A4.
/// let mp = mgpu_partition::merge_path_counting_partitions(&dev, idx.as_slice().into(), 3, 3, Bounds::Upper).unwrap();
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 1, 3, 5]);
/// // 2, 7 (a step_iterator) into 10 positions, tiles of 4:
/// // B0 B1 A0 B2 | B3 B4 B5 B6 | A1 B7 B8 B9
/// let seq = IndexSource::Sequence { first: 2u64, step: 5, len: 2 };
/// let mp = mgpu_partition::merge_path_counting_partitions(&dev, seq, 10, 4, Bounds::Lower).unwrap();
/// assert_eq!(mp.to_vec().unwrap(), vec![0, 1, 1, 2]);
/// ```
pub fn merge_path_counting_partitions<D: Device, I: PartitionIndex>(
    dev: &D,
    indices: IndexSource<'_, I, D>,
    count: usize,
    nv: usize,
    bounds: Bounds,
) -> Result<Temp<u64, D>> {
    merge_path_counting_partitions_clearing(dev, indices, count, nv, bounds, &ErrorWord::none())
}

/// [`merge_path_counting_partitions`] whose kernel also zeroes `clear` (from its first
/// thread): the error word of the kernel queued after it (Bulk Insert's), which then needs
/// no memset.
///
/// # Errors
/// As [`merge_path_counting_partitions`].
///
/// # Examples
///
/// ```
/// use mgpu_ctasearch::Bounds;
/// use mgpu_runtime::{DeviceVec, ErrorWord, Simulator};
/// let dev = Simulator::new();
/// let idx = DeviceVec::from_slice(&dev, &[1u32, 1, 2, 3, 3]).unwrap();
/// let word = ErrorWord::uncleared(&dev).unwrap();
/// let mp = mgpu_partition::merge_path_counting_partitions_clearing(&dev, idx.as_slice().into(), 3, 3, Bounds::Lower, &word).unwrap();
/// assert_eq!((mp.to_vec().unwrap(), word.read().unwrap()), (vec![0, 2, 3, 5], 0));
/// ```
pub fn merge_path_counting_partitions_clearing<D: Device, I: PartitionIndex>(
    dev: &D,
    indices: IndexSource<'_, I, D>,
    count: usize,
    nv: usize,
    bounds: Bounds,
    clear: &ErrorWord<D>,
) -> Result<Temp<u64, D>> {
    check_nv(nv)?;
    Error::check_fits::<I>("counting partition count", count)?;
    let m = indices.len();
    let num = partition_count(m + count, nv);
    let (ptr, first, step, sequence) = match indices {
        IndexSource::Array(a) => (a.as_ptr(), I::ZERO, I::ZERO, 0),
        IndexSource::Sequence { first, step, .. } => (std::ptr::null(), first, step, 1),
    };
    launch::<D, I::Counting>(dev, num, Search::Interpolate, |out, lanes_log2| {
        CountingArgs {
            indices: ptr,
            num_indices: m as u64,
            first,
            step,
            count: count as u64,
            nv: nv as u64,
            num_partitions: num as u64,
            out,
            upper: bounds.is_upper() as u32,
            sequence,
            lanes_log2,
            clear: clear.as_mut_ptr(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::parse_search;

    /// Every search the launcher's override acts on is recognised, and nothing else.
    #[test]
    fn search_override_values() {
        for v in ["binary", "interpolate", "kary", " kary\n"] {
            assert_eq!(parse_search(v), Some(v.trim()));
        }
        assert_eq!(parse_search("k-ary"), None);
        assert_eq!(parse_search(""), None);
    }
}
