//! Lower- or upper-bound semantics of a search, chosen at run time.

/// Lower or upper bound of a search (the seeds' `MgpuBounds`) as a run-time value: the one
/// type the device searches (`mgpu_ctasearch`, where it implements `SearchBounds` next to
/// the compile-time `Lower`/`Upper`), the partition launchers (`mgpu_partition`) and the
/// CPU partitions (`mgpu_cpu::partition`) all take.
///
/// - [`Bounds::Lower`]: a search for `key` returns the first position whose element is not
///   less than `key`; Merge Path takes A before B on equal keys (a stable merge).
/// - [`Bounds::Upper`]: a search for `key` returns the first position whose element is
///   greater than `key`; Merge Path takes B before A on equal keys (the load-balancing
///   search).
///
/// # Examples
///
/// ```
/// use mgpu_core::Bounds;
/// let v = [1u32, 3, 3, 5];
/// let search = |b: Bounds, key: u32| match b {
///     Bounds::Lower => v.partition_point(|&x| x < key),
///     Bounds::Upper => v.partition_point(|&x| x <= key),
/// };
/// assert_eq!((search(Bounds::Lower, 3), search(Bounds::Upper, 3)), (1, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bounds {
    /// Lower bound; Merge Path takes A first on equal keys.
    Lower,
    /// Upper bound; Merge Path takes B first on equal keys.
    Upper,
}
