//! Host launchers of merge and mergesort, generic over [`Device`].
//!
//! A merge is two launches on the device's stream: the Merge Path partitions
//! (`mgpu_partition::merge_path_partitions`) and the merge tiles (a dependent launch, which
//! checks that both inputs are sorted where it loads them). A mergesort is the blocksort,
//! then for each global pass the mergesort partitions
//! (`mgpu_partition::mergesort_partitions_unless`, a dependent launch of the kernel that
//! wrote the lists) and the merge tiles; the passes ping-pong between the caller's
//! buffers and temporaries, the blocksort writing where the last pass will read from, so
//! the result lands in the caller's buffers without a copy (seed 004).

use crate::device::{MergeArgs, MergeValue, ERROR_ORDER, FLAG_CHECK, FLAG_INDICES};
use crate::kernels::{KernelSet, MergeKernels};
use mgpu_core::{checks, Element, Index, Kernel, Violation};
use mgpu_ctasearch::Bounds;
use mgpu_partition::MergeComparator;
use mgpu_runtime::{Device, DeviceSlice, DeviceSliceMut, Error, ErrorWord, Pending, Result, Temp};

/// A comparator that merges and sorts keys `K`: [`Less`](mgpu_core::Less) (ascending) and
/// [`Greater`](mgpu_core::Greater) (descending) for every element type (floats by IEEE
/// totalOrder).
///
/// # Examples
///
/// ```
/// fn takes<C: mgpu_merge::SortComparator<f64>>(_: C) {}
/// takes(mgpu_core::Less);
/// takes(mgpu_core::Greater);
/// ```
pub trait SortComparator<K: Element>:
    MergeComparator<K> + MergeKernels<K, ()> + MergeKernels<K, u32> + MergeKernels<K, u64>
{
}
impl<K: Element, C> SortComparator<K> for C where
    C: MergeComparator<K> + MergeKernels<K, ()> + MergeKernels<K, u32> + MergeKernels<K, u64>
{
}

/// A value type of pairs: every element type, moved as its bits ([`SortValue::Bits`]).
///
/// # Examples
///
/// ```
/// use mgpu_merge::SortValue;
/// fn bits<V: SortValue>() -> usize { core::mem::size_of::<V::Bits>() }
/// assert_eq!((bits::<f32>(), bits::<i64>()), (4, 8));
/// ```
pub trait SortValue: Element {
    /// The unsigned integer of the same size (`u32` or `u64`).
    type Bits: MergeValue + Element;
}
impl SortValue for i32 {
    type Bits = u32;
}
impl SortValue for u32 {
    type Bits = u32;
}
impl SortValue for f32 {
    type Bits = u32;
}
impl SortValue for i64 {
    type Bits = u64;
}
impl SortValue for u64 {
    type Bits = u64;
}
impl SortValue for f64 {
    type Bits = u64;
}

/// An index type of [`mergesort_indices`]: u32 (the seeds' `int`) or u64.
///
/// # Examples
///
/// ```
/// fn takes<I: mgpu_merge::SortIndex>(_: I) {}
/// takes(0u32);
/// takes(0u64);
/// ```
pub trait SortIndex: Index + MergeValue + Element {}
impl SortIndex for u32 {}
impl SortIndex for u64 {}

/// `s` as the bits of its values.
fn bits<'a, V: SortValue, D: Device>(s: DeviceSlice<'a, V, D>) -> DeviceSlice<'a, V::Bits, D> {
    // SAFETY: `V::Bits` has `V`'s size and every bit pattern is a valid `V::Bits`.
    unsafe { DeviceSlice::from_raw(s.device(), s.device_ptr(), s.len()) }
}

/// `s` as the bits of its values, writable.
fn bits_mut<'a, V: SortValue, D: Device>(
    s: DeviceSliceMut<'a, V, D>,
) -> DeviceSliceMut<'a, V::Bits, D> {
    // SAFETY: as `bits`; values written as bits are read back as the `V`s they were.
    unsafe { DeviceSliceMut::from_raw(s.device(), s.device_ptr(), s.len()) }
}

/// What the merge kernels' error bit means.
fn meaning() -> [(u32, Violation); 1] {
    [(ERROR_ORDER, Violation::MergeOrder)]
}

/// The grid of `total` outputs in tiles of `nv`, checked to fit one launch.
fn grid_of(total: usize, nv: usize) -> Result<u32> {
    u32::try_from(total.div_ceil(nv)).map_err(|_| {
        Error::InvalidInput(format!("{total} keys are more tiles than one launch can run"))
    })
}

/// Queues the merge of `a` and `b` (values `a_vals`, `b_vals`, null without) into
/// `keys_out`/`vals_out` with the kernel set `S` (sizes checked by the caller).
#[allow(clippy::too_many_arguments)]
fn queue_merge<D: Device, K: Element, V: MergeValue, C: SortComparator<K>, S>(
    a: DeviceSlice<'_, K, D>,
    a_vals: *const V,
    b: DeviceSlice<'_, K, D>,
    b_vals: *const V,
    keys_out: *mut K,
    vals_out: *mut V,
) -> Result<Pending<D>>
where
    S: KernelSet<K, V, C>,
{
    let (dev, total) = (a.device(), a.len() + b.len());
    if total == 0 {
        return Ok(Pending::done());
    }
    let nv = S::Merge::NV as usize;
    let grid = grid_of(total, nv)?;
    let mp = mgpu_partition::merge_path_partitions(a, b, nv, Bounds::Lower, C::default())?;
    let error = ErrorWord::zeroed(dev)?;
    let args = MergeArgs {
        a_keys: a.as_ptr(),
        a_vals,
        a_count: a.len() as u64,
        b_keys: b.as_ptr(),
        b_vals,
        b_count: b.len() as u64,
        mp: mp.as_mut_ptr(),
        keys_out,
        vals_out,
        error: error.as_mut_ptr(),
        flags: FLAG_CHECK,
        ..Default::default()
    };
    // SAFETY: `mp` has grid + 1 partitions; the inputs have their lengths, the outputs
    // `total` (checked by the callers); `error` is one word.
    unsafe { dev.launch_dependent::<S::Merge>(grid, &args)? };
    Ok(Pending::new(error, &meaning()))
}

/// Queues the sort of the `n` keys at `input.0` (with the values at `input.1`, or the
/// keys' positions with [`FLAG_INDICES`] in `flags`) into `keys` and `vals` (which may be
/// the inputs) with the kernel set `S`.
///
/// # Safety
/// `input`, `keys` and (with values) `vals` address `n` elements of `dev`.
unsafe fn queue_sort<D: Device, K: Element, V: MergeValue, C: SortComparator<K>, S>(
    dev: &D,
    n: usize,
    input: (*const K, *const V),
    keys: *mut K,
    vals: *mut V,
    flags: u32,
) -> Result<Pending<D>>
where
    S: KernelSet<K, V, C>,
{
    if n == 0 {
        return Ok(Pending::done());
    }
    // The blocksort's tiles are `per_sort` merge tiles (a power of two): its sorted lists
    // are what the first pass merges in pairs.
    let (nv, sort_nv) = (S::Merge::NV as usize, S::Blocksort::NV as usize);
    let per_sort = sort_nv / nv;
    debug_assert!(per_sort.is_power_of_two() && per_sort * nv == sort_nv);
    let sort_grid = grid_of(n, sort_nv)?;
    let grid = grid_of(n, nv)?;
    let passes = (sort_grid as usize).next_power_of_two().trailing_zeros();
    let temp_keys = Temp::<K, D>::new(dev, if passes > 0 { n } else { 0 })?;
    let temp_vals = Temp::<V, D>::new(dev, if passes > 0 && V::HAS { n } else { 0 })?;
    let error = ErrorWord::zeroed(dev)?;
    let unsorted = Temp::<u32, D>::zeroed(dev, 1)?;
    // The blocksort writes where the passes, alternating, end in the caller's buffers.
    let (mut src, mut dst) = ((keys, vals), (temp_keys.as_mut_ptr(), temp_vals.as_mut_ptr()));
    if passes % 2 == 1 {
        core::mem::swap(&mut src, &mut dst);
    }
    let (also_keys, also_vals) = if passes > 0 {
        dst
    } else {
        (core::ptr::null_mut(), core::ptr::null_mut())
    };
    let mut args = MergeArgs {
        a_keys: input.0,
        a_vals: input.1,
        a_count: n as u64,
        keys_out: src.0,
        vals_out: src.1,
        error: error.as_mut_ptr(),
        unsorted: unsorted.as_mut_ptr(),
        also_keys,
        also_vals,
        flags,
        ..Default::default()
    };
    // SAFETY: the inputs and the first destination have `n` elements.
    unsafe { dev.launch::<S::Blocksort>(sort_grid, &args)? };
    for pass in 0..passes {
        let coop = (2 * per_sort) << pass;
        // SAFETY: `src.0` holds the `n` keys the kernel before this one writes.
        let lists = unsafe { DeviceSlice::<K, D>::from_raw(dev, src.0 as u64, n) };
        // SAFETY: `unsorted` outlives the queued kernels (the pool reuses it only after).
        let mp = unsafe {
            mgpu_partition::mergesort_partitions_unless(
                lists,
                nv,
                coop,
                C::default(),
                unsorted.as_mut_ptr(),
            )?
        };
        args = MergeArgs {
            a_keys: src.0,
            a_vals: src.1,
            a_count: n as u64,
            b_keys: src.0,
            b_vals: src.1,
            mp: mp.as_mut_ptr(),
            coop: coop as u64,
            keys_out: dst.0,
            vals_out: dst.1,
            error: error.as_mut_ptr(),
            unsorted: unsorted.as_mut_ptr(),
            ..Default::default()
        };
        // SAFETY: `mp` has grid + 1 partitions; sources and destinations `n` elements.
        unsafe { dev.launch_dependent::<S::Merge>(grid, &args)? };
        core::mem::swap(&mut src, &mut dst);
    }
    debug_assert_eq!(src.0, keys);
    Ok(Pending::new(error, &meaning()))
}

/// [`queue_sort`] with the kernel set of the device's architecture.
///
/// # Safety
/// As [`queue_sort`].
unsafe fn sort<D: Device, K: Element, V: MergeValue, C: SortComparator<K> + MergeKernels<K, V>>(
    dev: &D,
    n: usize,
    keys: *mut K,
    vals: *mut V,
    flags: u32,
) -> Result<Pending<D>> {
    // SAFETY: forwarded from the caller.
    unsafe { sort_from::<D, K, V, C>(dev, n, (keys, vals), keys, vals, flags) }
}

/// [`queue_sort`] from `input` with the kernel set of the device's architecture.
///
/// # Safety
/// As [`queue_sort`].
unsafe fn sort_from<D: Device, K: Element, V: MergeValue, C: SortComparator<K> + MergeKernels<K, V>>(
    dev: &D,
    n: usize,
    input: (*const K, *const V),
    keys: *mut K,
    vals: *mut V,
    flags: u32,
) -> Result<Pending<D>> {
    // SAFETY: forwarded from the caller.
    unsafe {
        mgpu_core::by_arch!(
            dev.arch(),
            C as MergeKernels<K, V>,
            queue_sort::<D, K, V, C>(dev, n, input, keys, vals, flags)
        )
    }
}

/// [`queue_merge`] with the kernel set of the device's architecture.
fn merge<D: Device, K: Element, V: MergeValue, C: SortComparator<K> + MergeKernels<K, V>>(
    a: DeviceSlice<'_, K, D>,
    a_vals: *const V,
    b: DeviceSlice<'_, K, D>,
    b_vals: *const V,
    keys_out: *mut K,
    vals_out: *mut V,
) -> Result<Pending<D>> {
    mgpu_core::by_arch!(
        a.device().arch(),
        C as MergeKernels<K, V>,
        queue_merge::<D, K, V, C>(a, a_vals, b, b_vals, keys_out, vals_out)
    )
}

mgpu_runtime::queued_and_blocking! {
    /// Merge (the seeds' `MergeKeys`), queued without synchronising: `output` gets the
    /// stable merge of `a` and `b`, both sorted by `comp` (on equal keys A's come first).
    /// The returned [`Pending`] reports inputs that are not sorted.
    ///
    /// # Errors
    /// At once: `output.len() != a.len() + b.len()`. From [`Pending::wait`]: an input not
    /// sorted by `comp` ("a merge input is not sorted by the comparator"; `output` is then
    /// unspecified).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let a = DeviceVec::from_slice(&dev, &[1i32, 3, 3, 8]).unwrap();
    /// let b = DeviceVec::from_slice(&dev, &[2i32, 3, 9]).unwrap();
    /// let mut out = DeviceVec::<i32, _>::zeros(&dev, 7).unwrap();
    /// mgpu_merge::merge_keys_into(a.as_slice(), b.as_slice(), out.as_mut_slice(), Less)
    ///     .unwrap().wait().unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![1, 2, 3, 3, 3, 8, 9]);
    /// ```
    pub fn merge_keys_into[D: Device, K: Element, C: SortComparator<K>](
        a: DeviceSlice<'_, K, D>,
        b: DeviceSlice<'_, K, D>,
        output: DeviceSliceMut<'_, K, D>,
        comp: C,
    ) -> Result<Pending<D>> {
        let (_, mut output) = (comp, output);
        checks::merge(a.len(), b.len(), output.len())?;
        let none = core::ptr::null_mut::<()>();
        merge::<D, K, (), C>(a, none, b, none, output.as_mut_ptr(), none)
    }

    /// [`merge_keys_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// Descending lists, and an unsorted input reported:
    ///
    /// ```
    /// use mgpu_core::Greater;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let a = DeviceVec::from_slice(&dev, &[9.5f64, 2.0]).unwrap();
    /// let b = DeviceVec::from_slice(&dev, &[4.0f64, 3.0, -1.0]).unwrap();
    /// let mut out = DeviceVec::<f64, _>::zeros(&dev, 5).unwrap();
    /// mgpu_merge::merge_keys(a.as_slice(), b.as_slice(), out.as_mut_slice(), Greater).unwrap();
    /// assert_eq!(out.to_vec().unwrap(), vec![9.5, 4.0, 3.0, 2.0, -1.0]);
    /// let e = mgpu_merge::merge_keys(b.as_slice(), a.as_slice(), out.as_mut_slice(), mgpu_core::Less);
    /// assert_eq!(e.unwrap_err().to_string(), "invalid input: a merge input is not sorted by the comparator");
    /// ```
    pub fn merge_keys;

    /// Merge of pairs (the seeds' `MergePairs`), queued without synchronising: the keys as
    /// [`merge_keys_into`], each value moved with its key.
    ///
    /// # Errors
    /// At once: a values array of another length than its keys, outputs of another length
    /// than both inputs. From [`Pending::wait`]: keys not sorted by `comp`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let (ak, av) = (DeviceVec::from_slice(&dev, &[1u32, 4]).unwrap(), DeviceVec::from_slice(&dev, &[10.0f32, 40.0]).unwrap());
    /// let (bk, bv) = (DeviceVec::from_slice(&dev, &[1u32, 2]).unwrap(), DeviceVec::from_slice(&dev, &[-1.0f32, -2.0]).unwrap());
    /// let mut ko = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
    /// let mut vo = DeviceVec::<f32, _>::zeros(&dev, 4).unwrap();
    /// mgpu_merge::merge_pairs_into(ak.as_slice(), av.as_slice(), bk.as_slice(), bv.as_slice(),
    ///     ko.as_mut_slice(), vo.as_mut_slice(), Less).unwrap().wait().unwrap();
    /// assert_eq!((ko.to_vec().unwrap(), vo.to_vec().unwrap()), (vec![1, 1, 2, 4], vec![10.0, -1.0, -2.0, 40.0]));
    /// ```
    pub fn merge_pairs_into[D: Device, K: Element, V: SortValue, C](
        a_keys: DeviceSlice<'_, K, D>,
        a_values: DeviceSlice<'_, V, D>,
        b_keys: DeviceSlice<'_, K, D>,
        b_values: DeviceSlice<'_, V, D>,
        keys_out: DeviceSliceMut<'_, K, D>,
        values_out: DeviceSliceMut<'_, V, D>,
        comp: C,
    ) -> Result<Pending<D>>
    where [C: SortComparator<K> + MergeKernels<K, V::Bits>]
    {
        let (_, mut keys_out) = (comp, keys_out);
        checks::merge_pairs(
            [a_keys.len(), a_values.len()],
            [b_keys.len(), b_values.len()],
            [keys_out.len(), values_out.len()],
        )?;
        let (av, bv, mut vo) = (bits(a_values), bits(b_values), bits_mut(values_out));
        merge::<D, K, V::Bits, C>(
            a_keys,
            av.as_ptr(),
            b_keys,
            bv.as_ptr(),
            keys_out.as_mut_ptr(),
            vo.as_mut_ptr(),
        )
    }

    /// [`merge_pairs_into`], then [`Pending::wait`]: validates, synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let (ak, av) = (DeviceVec::from_slice(&dev, &[5i64]).unwrap(), DeviceVec::from_slice(&dev, &[0u64]).unwrap());
    /// let (bk, bv) = (DeviceVec::from_slice(&dev, &[5i64]).unwrap(), DeviceVec::from_slice(&dev, &[1u64]).unwrap());
    /// let mut ko = DeviceVec::<i64, _>::zeros(&dev, 2).unwrap();
    /// let mut vo = DeviceVec::<u64, _>::zeros(&dev, 2).unwrap();
    /// mgpu_merge::merge_pairs(ak.as_slice(), av.as_slice(), bk.as_slice(), bv.as_slice(),
    ///     ko.as_mut_slice(), vo.as_mut_slice(), Less).unwrap();
    /// assert_eq!(vo.to_vec().unwrap(), vec![0, 1]); // A's 5 first
    /// ```
    pub fn merge_pairs;

    /// Mergesort of keys (the seeds' `MergesortKeys`), in place, queued without
    /// synchronising: `keys` sorted by `comp`, stably (equal keys keep their order, which
    /// shows in the bits of floats: `-0.0` and `+0.0` are ordered, as are NaNs).
    ///
    /// # Errors
    /// Out of memory and device errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let mut k = DeviceVec::from_slice(&dev, &[0.0f32, f32::NAN, -0.0, -1.5]).unwrap();
    /// mgpu_merge::mergesort_keys_into(k.as_mut_slice(), Less).unwrap().wait().unwrap();
    /// let got = k.to_vec().unwrap();
    /// assert_eq!(got[..3], [-1.5, -0.0, 0.0]);
    /// assert!(got[3].is_nan() && got[2].is_sign_positive() && got[1].is_sign_negative());
    /// ```
    pub fn mergesort_keys_into[D: Device, K: Element, C: SortComparator<K>](
        keys: DeviceSliceMut<'_, K, D>,
        comp: C,
    ) -> Result<Pending<D>> {
        let (_, mut keys) = (comp, keys);
        let none = core::ptr::null_mut::<()>();
        // SAFETY: `keys` has its length; there are no values.
        unsafe { sort::<D, K, (), C>(keys.device(), keys.len(), keys.as_mut_ptr(), none, 0) }
    }

    /// [`mergesort_keys_into`], then [`Pending::wait`]: synchronises.
    ///
    /// See also [`mergesort_keys_copy_into`], which leaves its input as it was.
    ///
    /// # Examples
    ///
    /// Seed 004's 16 keys:
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let mut k = DeviceVec::from_slice(&dev, &[13u32, 90, 83, 12, 96, 91, 22, 63, 30, 9, 54, 27, 18, 54, 99, 95]).unwrap();
    /// mgpu_merge::mergesort_keys(k.as_mut_slice(), Less).unwrap();
    /// assert_eq!(k.to_vec().unwrap(), vec![9, 12, 13, 18, 22, 27, 30, 54, 54, 63, 83, 90, 91, 95, 96, 99]);
    /// ```
    pub fn mergesort_keys;

    /// Mergesort of pairs (the seeds' `MergesortPairs`, Thrust's `sort_by_key`), in
    /// place, queued without synchronising: `keys` sorted by `comp`, stably, each value
    /// moved with its key.
    ///
    /// # Errors
    /// At once: `values.len() != keys.len()`. Out of memory and device errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Greater;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let mut k = DeviceVec::from_slice(&dev, &[1i32, 3, 1, 2]).unwrap();
    /// let mut v = DeviceVec::from_slice(&dev, &[0.5f64, 1.5, 2.5, 3.5]).unwrap();
    /// mgpu_merge::mergesort_pairs_into(k.as_mut_slice(), v.as_mut_slice(), Greater).unwrap().wait().unwrap();
    /// assert_eq!(k.to_vec().unwrap(), vec![3, 2, 1, 1]);
    /// assert_eq!(v.to_vec().unwrap(), vec![1.5, 3.5, 0.5, 2.5]);
    /// ```
    pub fn mergesort_pairs_into[D: Device, K: Element, V: SortValue, C](
        keys: DeviceSliceMut<'_, K, D>,
        values: DeviceSliceMut<'_, V, D>,
        comp: C,
    ) -> Result<Pending<D>>
    where [C: SortComparator<K> + MergeKernels<K, V::Bits>]
    {
        let (_, mut keys) = (comp, keys);
        checks::sort_pairs(keys.len(), values.len())?;
        let mut v = bits_mut(values);
        // SAFETY: both have the keys' length.
        unsafe {
            sort::<D, K, V::Bits, C>(keys.device(), keys.len(), keys.as_mut_ptr(), v.as_mut_ptr(), 0)
        }
    }

    /// [`mergesort_pairs_into`], then [`Pending::wait`]: synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let mut k = DeviceVec::from_slice(&dev, &[2u64, 1, 2, 1]).unwrap();
    /// let mut v = DeviceVec::from_slice(&dev, &[0i32, 1, 2, 3]).unwrap();
    /// mgpu_merge::mergesort_pairs(k.as_mut_slice(), v.as_mut_slice(), Less).unwrap();
    /// assert_eq!(v.to_vec().unwrap(), vec![1, 3, 0, 2]); // stable
    /// ```
    pub fn mergesort_pairs;

    /// Mergesort of indices (the seeds' `MergesortIndices`), in place, queued without
    /// synchronising: `keys` sorted by `comp`, stably, and `indices[j]` the position the
    /// key now at `j` had (the permutation that sorts; `I` is u32 or u64).
    ///
    /// # Errors
    /// At once: `indices.len() != keys.len()`, or positions past `I`. Out of memory and
    /// device errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Less;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let mut k = DeviceVec::from_slice(&dev, &[30i32, 10, 20, 10]).unwrap();
    /// let mut p = DeviceVec::<u32, _>::zeros(&dev, 4).unwrap();
    /// mgpu_merge::mergesort_indices_into(k.as_mut_slice(), p.as_mut_slice(), Less).unwrap().wait().unwrap();
    /// assert_eq!(p.to_vec().unwrap(), vec![1, 3, 2, 0]);
    /// ```
    pub fn mergesort_indices_into[D: Device, K: Element, I: SortIndex, C](
        keys: DeviceSliceMut<'_, K, D>,
        indices: DeviceSliceMut<'_, I, D>,
        comp: C,
    ) -> Result<Pending<D>>
    where [C: SortComparator<K> + MergeKernels<K, I>]
    {
        let (_, mut keys, mut indices) = (comp, keys, indices);
        checks::sort_indices::<I>(keys.len(), indices.len())?;
        // SAFETY: both have the keys' length; the indices are written, not read.
        unsafe {
            sort::<D, K, I, C>(keys.device(), keys.len(), keys.as_mut_ptr(), indices.as_mut_ptr(), FLAG_INDICES)
        }
    }

    /// [`mergesort_indices_into`], then [`Pending::wait`]: synchronises.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Greater;
    /// use mgpu_runtime::{DeviceVec, Simulator};
    /// let dev = Simulator::new();
    /// let mut k = DeviceVec::from_slice(&dev, &[1u64, 5, 5]).unwrap();
    /// let mut p = DeviceVec::<u64, _>::zeros(&dev, 3).unwrap();
    /// mgpu_merge::mergesort_indices(k.as_mut_slice(), p.as_mut_slice(), Greater).unwrap();
    /// assert_eq!((k.to_vec().unwrap(), p.to_vec().unwrap()), (vec![5, 5, 1], vec![1, 2, 0]));
    /// ```
    pub fn mergesort_indices;
}

/// Mergesort of keys into another buffer (CUB's `SortKeysCopy`), queued without
/// synchronising: `output` gets `input` sorted by `comp`, stably; `input` is left as it
/// was (the blocksort reads it; the passes run in `output` and a temporary).
///
/// # Errors
/// `output.len() != input.len()` ([`Error::LengthMismatch`]); out of memory and device
/// errors.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let input = DeviceVec::from_slice(&dev, &[3u32, 1, 2]).unwrap();
/// let mut out = DeviceVec::<u32, _>::zeros(&dev, 3).unwrap();
/// mgpu_merge::mergesort_keys_copy_into(input.as_slice(), out.as_mut_slice(), Less).unwrap().wait().unwrap();
/// assert_eq!((input.to_vec().unwrap(), out.to_vec().unwrap()), (vec![3, 1, 2], vec![1, 2, 3]));
/// ```
pub fn mergesort_keys_copy_into<D: Device, K: Element, C: SortComparator<K>>(
    input: DeviceSlice<'_, K, D>,
    mut output: DeviceSliceMut<'_, K, D>,
    comp: C,
) -> Result<Pending<D>> {
    let _ = comp;
    Error::check_len("mergesort output (one per key)", input.len(), output.len())?;
    let none = core::ptr::null_mut::<()>();
    // SAFETY: both have `n` keys; there are no values.
    unsafe {
        sort_from::<D, K, (), C>(
            input.device(),
            input.len(),
            (input.as_ptr(), none),
            output.as_mut_ptr(),
            none,
            0,
        )
    }
}

/// Mergesort of pairs into other buffers (CUB's `SortPairsCopy`), queued without
/// synchronising: `keys_out`/`values_out` get the pairs sorted by key as
/// [`mergesort_pairs_into`] sorts them; the inputs are left as they were.
///
/// # Errors
/// Buffers of different lengths ([`Error::LengthMismatch`]); out of memory and device
/// errors.
///
/// # Examples
///
/// ```
/// use mgpu_core::Less;
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let (k, v) = (DeviceVec::from_slice(&dev, &[2i32, 1, 2]).unwrap(), DeviceVec::from_slice(&dev, &[0i32, 1, 2]).unwrap());
/// let (mut ko, mut vo) = (DeviceVec::<i32, _>::zeros(&dev, 3).unwrap(), DeviceVec::<i32, _>::zeros(&dev, 3).unwrap());
/// mgpu_merge::mergesort_pairs_copy_into(k.as_slice(), v.as_slice(), ko.as_mut_slice(), vo.as_mut_slice(), Less)
///     .unwrap().wait().unwrap();
/// assert_eq!((ko.to_vec().unwrap(), vo.to_vec().unwrap()), (vec![1, 2, 2], vec![1, 0, 2]));
/// ```
pub fn mergesort_pairs_copy_into<D: Device, K: Element, V: SortValue, C>(
    keys: DeviceSlice<'_, K, D>,
    values: DeviceSlice<'_, V, D>,
    mut keys_out: DeviceSliceMut<'_, K, D>,
    values_out: DeviceSliceMut<'_, V, D>,
    comp: C,
) -> Result<Pending<D>>
where
    C: SortComparator<K> + MergeKernels<K, V::Bits>,
{
    let _ = comp;
    checks::sort_pairs(keys.len(), values.len())?;
    Error::check_len("mergesort output keys (one per key)", keys.len(), keys_out.len())?;
    Error::check_len("mergesort output values (one per key)", keys.len(), values_out.len())?;
    let (v, mut vo) = (bits(values), bits_mut(values_out));
    // SAFETY: all four have `n` elements.
    unsafe {
        sort_from::<D, K, V::Bits, C>(
            keys.device(),
            keys.len(),
            (keys.as_ptr(), v.as_ptr()),
            keys_out.as_mut_ptr(),
            vo.as_mut_ptr(),
            0,
        )
    }
}
