//! # mgpu-segreduce: segmented reduction (seed 002)
//!
//! Layer: **algorithms**. Device code depends on `mgpu-core`, `mgpu-ctascan` (the CTA
//! scans), `mgpu-ctasearch` (Merge Path, the tile ranges) and `mgpu-loadbalance` (its
//! error bits); the host launchers on `mgpu-runtime`, `mgpu-partition` (the
//! load-balancing partitions) and `mgpu-scan` (reduce-by-key's tile counts).
//!
//! | function | what it computes |
//! | --- | --- |
//! | [`seg_reduce_csr`], [`seg_reduce_csr_into`] | `output[j] = data[csr[j]] op ... op data[csr[j + 1] - 1]`, the identity for an empty segment |
//! | [`spmv_csr`], [`spmv_csr_into`] | CSR sparse matrix times vector: `output[r] = sum of matrix[k] * vec[cols[k]]` over row `r`'s nonzeros |
//! | [`spmv_csr_unary`], [`spmv_csr_unary_into`] | the same without matrix values: `sum of vec[cols[k]]` |
//! | [`spmv_csr_semiring`], [`spmv_csr_semiring_into`] | SpMV over another semiring: min-plus, max-plus, or-and |
//! | [`spmv_csr_indirect`], [`spmv_csr_indirect_unary`] (and `_into`) | SpMV with row `r`'s nonzeros starting at `sources[r]` |
//! | [`indirect_reduce_csr`], [`indirect_reduce_csr_into`] | as `seg_reduce_csr`, segment `j`'s values starting at `data[sources[j]]` |
//! | [`reduce_by_key`], [`reduce_by_key_into`] | the runs of equal adjacent keys: each run's first key and its values reduced in order; the run count (read back, or left on the device) |
//! | [`SegReducePlan`] | a CSR prepared once (its partitions), applied to new values: `seg_reduce`, `spmv`, `spmv_indirect` (the seed's preprocess/apply) |
//! | [`ReduceByKeyPlan`] | keys prepared once (their runs), applied to new values: `reduce` |
//!
//! # How it partitions
//!
//! The values are merged with the segment starts, as the load-balancing search merges
//! work items with a scan (seed 001), and the merge is cut into tiles of `NT * VT` steps.
//! A tile therefore does the same work whatever the segment lengths: a million empty
//! segments in a row cost as much per step as values do, and a segment of every value is
//! reduced by all the tiles at once. The seed instead gives each tile `NT * VT` values,
//! which holds at most that many segment ends, so it asks for non-empty segments or an
//! extra pass (CSR to CSR2, then a bulk insert of the identities); here empty segments
//! need nothing. Within a tile each thread walks its steps in order, the CTA segmented
//! scan joins the threads, and a one-launch spine joins the tiles (`device`). Operators
//! are applied in segment order, so they need not be commutative, and the association
//! depends only on the tile shape: the same input gives the same bits on every run.
//! Segments of 256 values or more on average, with an operator whose operands may be
//! folded in any order (`AssociativeOp::COMMUTATIVE`), are reduced a warp a segment
//! instead, the longest split over all CTAs ([`warps`]): one launch and no partitions,
//! the association then depending on the segment alone.
//!
//! SpMV runs the same tiles over the products (or the gathered vector values), loaded with
//! the values: the rows are the segments. The indirect forms read each value during the
//! walk, from its segment's source. The CPU backend's versions are `mgpu_cpu`'s functions
//! of the same names.
//!
//! # Examples
//!
//! ```
//! use mgpu_core::Plus;
//! use mgpu_runtime::{DeviceVec, Simulator};
//! let dev = Simulator::new();
//! let data = DeviceVec::from_slice(&dev, &[1i64, 2, 3, 4, 5, 6]).unwrap();
//! let csr = DeviceVec::from_slice(&dev, &[0u32, 2, 2, 5]).unwrap(); // lengths 2, 0, 3, 1
//! let mut out = DeviceVec::<i64, _>::zeros(&dev, 4).unwrap();
//! mgpu_segreduce::seg_reduce_csr(data.as_slice(), csr.as_slice(), out.as_mut_slice(), Plus)
//!     .unwrap();
//! assert_eq!(out.to_vec().unwrap(), vec![3, 0, 12, 6]);
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub mod device;
pub mod kernels;
pub mod rbk;
pub mod warps;

mgpu_core::family_crate!();

pub use kernels::SegReduceOp;
