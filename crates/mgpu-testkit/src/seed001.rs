//! Seed 001's worked example (40 objects, 79 work items): the counts, their exclusive
//! scan, the load-balancing search, the work-item ranks and the tiles of 30 steps, copied
//! from the seed. The device blocks' golden tests (`mgpu-ctasearch`) and the
//! load-balancing search's suite check them.
//!
//! # Examples
//!
//! ```
//! use mgpu_testkit::seed001::*;
//! let c: Vec<u64> = COUNTS.iter().map(|&c| c as u64).collect();
//! let (scan, total) = mgpu_testkit::offsets(&c);
//! assert_eq!(total, 79);
//! assert!(scan.iter().zip(EXC_SCAN).all(|(&a, b)| a == b as u64));
//! ```

/// "Work-item counts" of the 40 objects.
///
/// ```
/// assert_eq!(mgpu_testkit::seed001::COUNTS.iter().sum::<u32>(), 79);
/// ```
pub const COUNTS: [u32; 40] = [
    1, 2, 4, 0, 4, 4, 3, 3, 2, 4, 0, 0, 1, 2, 1, 1, 0, 2, 2, 1, 1, 4, 2, 3, 2, 2, 1, 1, 3, 0, 2, 1,
    1, 3, 4, 2, 2, 4, 0, 4,
];

/// "Exc-scan of counts".
///
/// ```
/// assert_eq!(mgpu_testkit::seed001::EXC_SCAN[..4], [0, 1, 3, 7]);
/// ```
pub const EXC_SCAN: [u32; 40] = [
    0, 1, 3, 7, 7, 11, 15, 18, 21, 23, 27, 27, 27, 28, 30, 31, 32, 32, 34, 36, 37, 38, 42, 44, 47,
    49, 51, 52, 53, 56, 56, 58, 59, 60, 63, 67, 69, 71, 75, 75,
];

/// "Load-balancing search": the object of each work item.
///
/// ```
/// use mgpu_testkit::seed001::*;
/// let scan: Vec<u64> = EXC_SCAN.iter().map(|&s| s as u64).collect();
/// let (objects, _) = mgpu_testkit::load_balance_search(&scan, 79);
/// assert!(objects.iter().zip(LBS).all(|(&a, b)| a == b as u64));
/// ```
pub const LBS: [u32; 79] = [
    0, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 9, 9, 9, 9, 12, 13, 13,
    14, 15, 17, 17, 18, 18, 19, 20, 21, 21, 21, 21, 22, 22, 23, 23, 23, 24, 24, 25, 25, 26, 27, 28,
    28, 28, 30, 30, 31, 32, 33, 33, 33, 34, 34, 34, 34, 35, 35, 36, 36, 37, 37, 37, 37, 39, 39, 39,
    39,
];

/// "Work-item rank (i - excscan\[LBS\[i\]\])".
///
/// ```
/// use mgpu_testkit::seed001::*;
/// assert!((0..79).all(|i| RANKS[i] == i as u32 - EXC_SCAN[LBS[i] as usize]));
/// ```
pub const RANKS: [u32; 79] = [
    0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 0, 1, 0, 1, 2, 3, 0, 0, 1, 0, 0,
    0, 1, 0, 1, 0, 0, 0, 1, 2, 3, 0, 1, 0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 1, 2, 0, 1, 0, 0, 0, 1, 2, 0,
    1, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3,
];

/// "Divide into 4 equal partitions": the merge of the 79 work items with the 40 scan
/// values cut every 30 steps, each tile as `[a0, a1, b0, b1]` (work items `a0..a1`, scan
/// values `b0..b1`) by upper-bound Merge Path. The seed prints tile 3 as B = (31, 40); the
/// definition gives 32 (58 + 32 = 90 is its diagonal; the misprint listed in the seeds'
/// README).
///
/// ```
/// use mgpu_testkit::seed001::TILES;
/// assert!(TILES.iter().enumerate().all(|(t, r)| r[0] + r[2] == (30 * t as u32).min(119)));
/// ```
pub const TILES: [[u32; 4]; 4] = [
    [0, 21, 0, 9],
    [21, 38, 9, 22],
    [38, 58, 22, 32],
    [58, 79, 32, 40],
];
