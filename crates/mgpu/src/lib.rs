//! # mgpu: Modern GPU primitives in Rust
//!
//! mgpu ports Sean Baxter's Modern GPU to Rust: load-balanced primitives for irregular
//! problems (scan, load-balancing search, interval expand and move, bulk remove and insert,
//! segmented reduction, merge and sort), with kernels written in Rust and compiled to PTX,
//! a rayon CPU backend with the same semantics, and a safe host API.
//!
//! Layer: **facade** (host only), the user's entry point. This crate holds no algorithm of
//! its own. It re-exports
//!
//! - from `mgpu-core`: the operators ([`Plus`], [`Multiplies`], [`Maximum`], [`Minimum`],
//!   [`BitAnd`], [`BitOr`], [`BitXor`], ...), the element and index types ([`Element`],
//!   [`Index`]) and [`Error`] / [`Result`];
//! - from `mgpu-runtime`: the devices ([`Context`] for CUDA, [`Simulator`]) and typed
//!   device memory ([`DeviceVec`], [`DeviceSlice`], [`DeviceSliceMut`]);
//! - the algorithm crates as modules, for direct use on one backend: [`scan`] and
//!   [`loadbalance`] (the GPU backend, generic over [`Device`]) and [`cpu`] (the CPU
//!   backend on host slices);
//!
//! and it adds the **backend-neutral API**: a [`Backend`] (a CUDA device, the CTA
//! simulator, or the CPU) and [`Buffer`]s that live on it, so one program runs on the GPU
//! or on the CPU with the same calls. [`Backend::detect`] picks CUDA device 0 when there
//! is one and the CPU otherwise. Operators are passed as values of their zero-sized types
//! (`backend.scan_exclusive(&x, Plus)`).
//!
//! Semantics are the same on every backend: integer arithmetic wraps (also in debug
//! builds), as on the GPU; a count or offset total that does not fit the index type is
//! [`Error::IndexOverflow`], never a wrapped value; results are deterministic (the same
//! input on the same backend gives the same bits, floats included). Integer results are
//! the same on every backend; float sums and products may differ between backends within
//! rounding, because each associates in its own fixed order.
//!
//! # Examples
//!
//! The seeds' `Scan(counts)`: object counts become offsets, and the total is returned.
//! The same lines run on the GPU with `Backend::detect()` on a machine that has one.
//!
//! ```
//! use mgpu::{Backend, Maximum, Plus};
//!
//! let backend = Backend::cpu();
//! assert_eq!(backend.describe(), "no CUDA device: CPU backend");
//!
//! let mut counts = backend.upload(&[3u32, 2, 5, 0, 1])?;
//! let total = backend.scan_counts_exclusive_in_place(&mut counts)?;
//! assert_eq!(counts.to_vec()?, vec![0, 3, 5, 10, 10]);
//! assert_eq!(total, 11);
//!
//! let x = backend.upload(&[4i32, -1, 7, 2])?;
//! let (running_max, max) = backend.scan_inclusive(&x, Maximum)?;
//! assert_eq!(running_max.to_vec()?, vec![4, 4, 7, 7]);
//! assert_eq!(max, 7);
//! assert_eq!(backend.reduce(&x, Plus)?, 12);
//! # Ok::<(), mgpu::Error>(())
//! ```

// The README's example (what crates.io shows) is a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod algorithms;
mod backend;
mod buffer;

pub use backend::Backend;
pub use buffer::Buffer;

pub use algorithms::BulkSource;
pub use algorithms::IntervalSource;
pub use mgpu_bulk::{BulkData, BulkElement, BulkIndex};
pub use mgpu_core::{
    AssociativeOp, BinaryOp, BitAnd, BitOr, BitXor, Comparator, Element, EqualTo, Error, Greater,
    Index, Integer, Less, Mat2Mul, Maximum, Minimum, Minus, Modulus, Multiplies, Plus, Result,
    Sequence, Source, Violation,
};
pub use mgpu_intervalmove::{IntervalData, IntervalElement, IntervalIndex};
pub use mgpu_loadbalance::LoadBalanceIndex;
pub use mgpu_merge::{MergeKernels, SortComparator, SortIndex, SortValue};
pub use mgpu_runtime::{
    Arch, Context, Device, DeviceInfo, DeviceSlice, DeviceSliceMut, DeviceVec, Pending, Simulator,
};
pub use mgpu_scan::{ScanKind, ScanOp};
pub use mgpu_segreduce::kernels::Semiring;
pub use mgpu_segreduce::SegReduceOp;

/// The CPU backend (`mgpu-cpu`): every algorithm on host slices with rayon, operators as
/// type parameters.
///
/// # Examples
///
/// ```
/// use mgpu::Plus;
/// assert_eq!(mgpu::cpu::reduce::<u32, Plus>(&[1, 2, 3]), 6);
/// ```
pub use mgpu_cpu as cpu;

/// The GPU backend of scan and reduce (`mgpu-scan`): launchers generic over [`Device`],
/// on [`DeviceSlice`]s.
///
/// # Examples
///
/// ```
/// use mgpu::{DeviceVec, Plus, Simulator};
/// let dev = Simulator::new();
/// let x = DeviceVec::from_slice(&dev, &[1u32, 2, 3]).unwrap();
/// assert_eq!(mgpu::scan::reduce(x.as_slice(), Plus).unwrap(), 6);
/// ```
pub use mgpu_scan as scan;

/// The GPU backend of the load-balancing search (`mgpu-loadbalance`): launchers generic
/// over [`Device`], on [`DeviceSlice`]s.
///
/// # Examples
///
/// ```
/// use mgpu::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let counts = DeviceVec::from_slice(&dev, &[2u32, 0, 1]).unwrap();
/// let (objects, total) = mgpu::loadbalance::load_balance_search_counts(counts.as_slice()).unwrap();
/// assert_eq!((objects.to_vec().unwrap(), total), (vec![0, 0, 2], 3));
/// ```
pub use mgpu_loadbalance as loadbalance;

/// The GPU backend of interval expand, move, gather and scatter (`mgpu-intervalmove`):
/// launchers generic over [`Device`], on [`DeviceSlice`]s, with asynchronous `_into` forms.
///
/// # Examples
///
/// ```
/// use mgpu::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let counts = DeviceVec::from_slice(&dev, &[2u32, 0, 1]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 3).unwrap();
/// let total = mgpu::intervalmove::interval_expand_counts(counts.as_slice(),
///     mgpu::intervalmove::Source::counting(7), out.as_mut_slice()).unwrap();
/// assert_eq!((total, out.to_vec().unwrap()), (3, vec![7, 7, 9]));
/// ```
pub use mgpu_intervalmove as intervalmove;

/// The GPU backend of bulk remove and bulk insert (`mgpu-bulk`): launchers generic over
/// [`Device`], on [`DeviceSlice`]s, with asynchronous `_into` forms.
///
/// # Examples
///
/// ```
/// use mgpu::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let source = DeviceVec::from_slice(&dev, &[5i32, 6, 7]).unwrap();
/// let mut out = DeviceVec::<i32, _>::zeros(&dev, 5).unwrap();
/// mgpu::bulk::bulk_insert(mgpu::bulk::Source::counting(0), mgpu::bulk::Source::step(1u32, 1),
///     source.as_slice(), out.as_mut_slice()).unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![5, 0, 6, 1, 7]);
/// ```
pub use mgpu_bulk as bulk;

/// The GPU backend of the segmented reduction (`mgpu-segreduce`): launchers generic over
/// [`Device`], on [`DeviceSlice`]s, with a queued `_into` form.
///
/// ```
/// use mgpu::{DeviceVec, Minimum, Simulator};
/// let dev = Simulator::new();
/// let data = DeviceVec::from_slice(&dev, &[4u64, 2, 9]).unwrap();
/// let csr = DeviceVec::from_slice(&dev, &[0u32, 0]).unwrap(); // lengths 0, 3
/// let mut out = DeviceVec::<u64, _>::zeros(&dev, 2).unwrap();
/// mgpu::segreduce::seg_reduce_csr(data.as_slice(), csr.as_slice(), out.as_mut_slice(), Minimum)
///     .unwrap();
/// assert_eq!(out.to_vec().unwrap(), vec![u64::MAX, 2]);
/// ```
pub use mgpu_segreduce as segreduce;

/// The GPU backend of merge and mergesort (`mgpu-merge`): launchers generic over
/// [`Device`], on [`DeviceSlice`]s, with a queued `_into` form.
///
/// ```
/// use mgpu::{DeviceVec, Greater, Simulator};
/// let dev = Simulator::new();
/// let mut keys = DeviceVec::from_slice(&dev, &[4u64, 2, 9]).unwrap();
/// mgpu::merge::mergesort_keys(keys.as_mut_slice(), Greater).unwrap();
/// assert_eq!(keys.to_vec().unwrap(), vec![9, 4, 2]);
/// ```
pub use mgpu_merge as merge;
