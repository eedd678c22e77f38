//! # mgpu-cpu: the CPU reference backend of mgpu
//!
//! Layer: **CPU reference**. It implements mgpu's algorithms on host slices with
//! [rayon], with the same semantics as the GPU backend, so one program runs on either
//! backend and every GPU result can be checked against this crate. It may depend on
//! `mgpu-core` (element and index types, operators, [`Error`](mgpu_core::Error)) and
//! `rayon`, and on nothing else of ours.
//!
//! What it holds so far:
//!
//! - scans: [`scan_exclusive`], [`scan_inclusive`] and their in-place forms
//!   [`scan_exclusive_in_place`], [`scan_inclusive_in_place`];
//! - [`reduce`];
//! - the seeds' count scan `Scan(counts)` (Modern GPU's `Scan(data, count, context)`),
//!   which turns counts into offsets and returns the total, an error when the total does
//!   not fit the index type: [`scan_counts_exclusive`], [`scan_counts_exclusive_in_place`];
//! - the load-balancing search (seed 001): [`load_balance_search`],
//!   [`load_balance_search_ranks`], [`load_balance_search_counts`];
//! - bulk remove and bulk insert (seed 003): [`bulk_remove`], [`bulk_insert`];
//! - segmented reduction over CSR and CSR SpMV (seed 002): [`seg_reduce_csr`],
//!   [`indirect_reduce_csr`], [`spmv_csr`], [`spmv_csr_unary`];
//! - merge and mergesort (stable, by a [`Comparator`](mgpu_core::Comparator); floats by
//!   IEEE totalOrder): [`merge_keys`], [`merge_pairs`], [`mergesort_keys`],
//!   [`mergesort_pairs`], [`mergesort_indices`].
//!
//! Operators are type parameters (zero-sized types from `mgpu-core`), as on the GPU:
//! `scan_exclusive::<i32, Plus>(&input, &mut output)`. They must be
//! [`AssociativeOp`](mgpu_core::AssociativeOp)s, so a non-associative operator, or a
//! bit operator on floats, does not compile.
//!
//! ## Arithmetic and determinism
//!
//! Integer arithmetic wraps (also in debug builds), as on the GPU. Counts and offsets are
//! different: a count-scan total that does not fit the index type is
//! [`Error::IndexOverflow`](mgpu_core::Error::IndexOverflow), never a wrapped value.
//!
//! Results are **deterministic**: they do not depend on the number of rayon threads or on
//! scheduling. Inputs shorter than [`PARALLEL_MIN_LEN`] run sequentially, left to right.
//! Longer inputs are cut into chunks of the fixed length [`CHUNK_LEN`] (fixed, not derived
//! from the thread count). Each chunk is reduced in parallel (left to right, from the
//! identity); the chunk totals are combined sequentially into carry-ins; then each chunk is
//! scanned in parallel, element `i` of chunk `c` (`c ≥ 1`) getting
//! `carry(c) op (x[start(c)] op … op x[i])`, where `carry(c)` is the left-to-right
//! combination of the totals of chunks `0..c`. The total returned is the same
//! combination over all chunks, so `reduce`, the returned totals and the last element
//! of an inclusive scan agree bit for bit. In a one-thread pool the scans make the same
//! operations in one sequential pass (the carry of chunk `c + 1` is known when chunk `c`
//! ends), reading the input once instead of twice; the bits are the same.
//!
//! For integers every operator is associative, so the results are **bit for bit equal to a
//! plain left-to-right loop**. For floats (`Plus`, `Multiplies`) the chunked association
//! order differs from the left-to-right loop, so long inputs agree with it only within
//! rounding (they stay identical from run to run and across thread counts); `Maximum` and
//! `Minimum` select and are exact. With NaN inputs the results are deterministic but
//! otherwise unspecified (see `mgpu_core`'s note on `Maximum`/`Minimum`).
//!
//! # Examples
//!
//! The seeds' count scan: counts `[3, 2, 5]` become offsets `[0, 3, 5]`, total 10.
//!
//! ```
//! use mgpu_core::{Maximum, Plus};
//!
//! let mut counts = vec![3u32, 2, 5];
//! let total = mgpu_cpu::scan_counts_exclusive_in_place(&mut counts)?;
//! assert_eq!((counts, total), (vec![0, 3, 5], 10));
//!
//! let x = [4i32, -1, 7, 2];
//! let mut running_max = [0i32; 4];
//! let max = mgpu_cpu::scan_inclusive::<i32, Maximum>(&x, &mut running_max)?;
//! assert_eq!(running_max, [4, 4, 7, 7]);
//! assert_eq!(max, 7);
//! assert_eq!(mgpu_cpu::reduce::<i32, Plus>(&x), 12);
//! # Ok::<(), mgpu_core::Error>(())
//! ```

pub mod bulk;
mod chunks;
mod counts;
pub mod intervalmove;
mod loadbalance;
mod merge;
pub mod partition;
mod reduce;
mod scan;
mod segreduce;

pub use bulk::{bulk_insert, bulk_remove};
pub use chunks::{CHUNK_LEN, PARALLEL_MIN_LEN};
pub use counts::{scan_counts_exclusive, scan_counts_exclusive_in_place};
pub use intervalmove::{interval_expand, interval_gather, interval_move, interval_scatter};
pub use loadbalance::{load_balance_search, load_balance_search_counts, load_balance_search_ranks};
pub use merge::{merge_keys, merge_pairs, mergesort_indices, mergesort_keys, mergesort_pairs};
pub use reduce::reduce;
pub use scan::{scan_exclusive, scan_exclusive_in_place, scan_inclusive, scan_inclusive_in_place};
pub use segreduce::{
    indirect_reduce_csr, reduce_by_key, seg_reduce_csr, spmv_csr, spmv_csr_indirect,
    spmv_csr_indirect_unary, spmv_csr_semiring, spmv_csr_unary,
};
