//! Merge and mergesort on any backend: `mgpu-merge` on a GPU device, `mgpu-cpu` on the
//! host.

use super::{host, pick, pick_mut, Pick};
use crate::backend::ViewMut;
use crate::buffer::Buffer;
use crate::Backend;
use mgpu_core::{Element, Result};
use mgpu_merge::{MergeKernels, SortComparator, SortIndex, SortValue};
use mgpu_runtime::{Context, Simulator};

fn gpu_merge_pairs<D: Pick, K: Element, V: SortValue, C>(
    a: [&Buffer<K>; 2],
    a_values: &Buffer<V>,
    b_values: &Buffer<V>,
    keys: &mut Buffer<K>,
    values: &mut Buffer<V>,
    comp: C,
) -> Result<()>
where
    C: SortComparator<K> + MergeKernels<K, V::Bits>,
{
    mgpu_merge::merge_pairs(
        pick::<D, K>(a[0])?,
        pick::<D, V>(a_values)?,
        pick::<D, K>(a[1])?,
        pick::<D, V>(b_values)?,
        pick_mut::<D, K>(keys)?,
        pick_mut::<D, V>(values)?,
        comp,
    )
}

fn gpu_sort_pairs<D: Pick, K: Element, V: SortValue, C>(
    keys: &mut Buffer<K>,
    values: &mut Buffer<V>,
    comp: C,
) -> Result<()>
where
    C: SortComparator<K> + MergeKernels<K, V::Bits>,
{
    mgpu_merge::mergesort_pairs(pick_mut::<D, K>(keys)?, pick_mut::<D, V>(values)?, comp)
}

fn gpu_sort_indices<D: Pick, K: Element, I: SortIndex, C>(
    keys: &mut Buffer<K>,
    indices: &mut Buffer<I>,
    comp: C,
) -> Result<()>
where
    C: SortComparator<K> + MergeKernels<K, I>,
{
    mgpu_merge::mergesort_indices(pick_mut::<D, K>(keys)?, pick_mut::<D, I>(indices)?, comp)
}

impl Backend {
    /// Merge (the seeds' `MergeKeys`, seed 004): a new buffer with the stable merge of `a`
    /// and `b`, both sorted by `comp` ([`Less`](crate::Less) or
    /// [`Greater`](crate::Greater); floats by IEEE totalOrder): on equal keys A's come
    /// first. Synchronises (the inputs are checked on the device and the verdict read
    /// back).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when an input is not sorted by
    /// `comp` ("a merge input is not sorted by the comparator"), or a buffer belongs to
    /// another backend; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Less};
    /// let backend = Backend::cpu();
    /// let a = backend.upload(&[1i32, 4, 4, 9])?;
    /// let b = backend.upload(&[2i32, 4, 10])?;
    /// assert_eq!(backend.merge_keys(&a, &b, Less)?.to_vec()?, vec![1, 2, 4, 4, 4, 9, 10]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn merge_keys<K: Element, C: SortComparator<K>>(
        &self,
        a: &Buffer<K>,
        b: &Buffer<K>,
        comp: C,
    ) -> Result<Buffer<K>> {
        self.view(a, "a")?;
        self.view(b, "b")?;
        let mut out = self.zeros::<K>(a.len() + b.len())?;
        match &mut out {
            Buffer::Cuda(o) => mgpu_merge::merge_keys(
                pick::<Context, K>(a)?,
                pick::<Context, K>(b)?,
                o.as_mut_slice(),
                comp,
            )?,
            Buffer::Simulator(o) => mgpu_merge::merge_keys(
                pick::<Simulator, K>(a)?,
                pick::<Simulator, K>(b)?,
                o.as_mut_slice(),
                comp,
            )?,
            Buffer::Host(o) => mgpu_cpu::merge_keys(host(a)?, host(b)?, o, comp)?,
        }
        Ok(out)
    }

    /// Merge of pairs (the seeds' `MergePairs`): new key and value buffers, the keys as
    /// [`Backend::merge_keys`] gives them, each value moved with its key (any element type
    /// as the value). Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when a values buffer differs
    /// in length from its keys; otherwise as [`Backend::merge_keys`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Less};
    /// let backend = Backend::cpu();
    /// let (ak, av) = (backend.upload(&[1u32, 3])?, backend.upload(&[0.5f32, 1.5])?);
    /// let (bk, bv) = (backend.upload(&[1u32, 2])?, backend.upload(&[-0.5f32, -1.5])?);
    /// let (k, v) = backend.merge_pairs(&ak, &av, &bk, &bv, Less)?;
    /// assert_eq!((k.to_vec()?, v.to_vec()?), (vec![1, 1, 2, 3], vec![0.5, -0.5, -1.5, 1.5]));
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn merge_pairs<K: Element, V: SortValue, C>(
        &self,
        a_keys: &Buffer<K>,
        a_values: &Buffer<V>,
        b_keys: &Buffer<K>,
        b_values: &Buffer<V>,
        comp: C,
    ) -> Result<(Buffer<K>, Buffer<V>)>
    where
        C: SortComparator<K> + MergeKernels<K, V::Bits>,
    {
        self.view(a_keys, "a_keys")?;
        self.view(a_values, "a_values")?;
        self.view(b_keys, "b_keys")?;
        self.view(b_values, "b_values")?;
        mgpu_core::checks::merge_pairs(
            [a_keys.len(), a_values.len()],
            [b_keys.len(), b_values.len()],
            [a_keys.len() + b_keys.len(); 2],
        )?;
        let n = a_keys.len() + b_keys.len();
        let (mut keys, mut values) = (self.zeros::<K>(n)?, self.zeros::<V>(n)?);
        let a = [a_keys, b_keys];
        match self {
            Backend::Cuda(_) => gpu_merge_pairs::<Context, K, V, C>(
                a,
                a_values,
                b_values,
                &mut keys,
                &mut values,
                comp,
            )?,
            Backend::Simulator(_) => gpu_merge_pairs::<Simulator, K, V, C>(
                a,
                a_values,
                b_values,
                &mut keys,
                &mut values,
                comp,
            )?,
            Backend::Cpu => {
                let (ViewMut::Host(k), ViewMut::Host(v)) = (
                    self.view_mut(&mut keys, "keys")?,
                    self.view_mut(&mut values, "values")?,
                ) else {
                    unreachable!("the CPU backend's buffers are host vectors")
                };
                mgpu_cpu::merge_pairs(
                    host(a_keys)?,
                    host(a_values)?,
                    host(b_keys)?,
                    host(b_values)?,
                    k,
                    v,
                    comp,
                )?
            }
        }
        Ok((keys, values))
    }

    /// Mergesort of keys (the seeds' `MergesortKeys`): `keys` sorted in place by `comp`
    /// ([`Less`](crate::Less) ascending, [`Greater`](crate::Greater) descending; floats
    /// by IEEE totalOrder, as `f64::total_cmp`: `-0.0` before `+0.0`, NaNs at the ends by
    /// sign), stably. Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `keys` belongs to another
    /// backend; out of memory and CUDA errors on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Greater};
    /// let backend = Backend::cpu();
    /// let mut k = backend.upload(&[3.5f64, -0.0, f64::NAN, 0.0, -2.0])?;
    /// backend.mergesort_keys(&mut k, Greater)?;
    /// let got = k.to_vec()?;
    /// assert!(got[0].is_nan());
    /// assert_eq!(got[1..].iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
    ///     [3.5f64, 0.0, -0.0, -2.0].map(f64::to_bits));
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn mergesort_keys<K: Element, C: SortComparator<K>>(
        &self,
        keys: &mut Buffer<K>,
        comp: C,
    ) -> Result<()> {
        match self.view_mut(keys, "keys")? {
            ViewMut::Gpu(k) => mgpu_merge::mergesort_keys(k.as_mut_slice(), comp),
            ViewMut::Sim(k) => mgpu_merge::mergesort_keys(k.as_mut_slice(), comp),
            ViewMut::Host(k) => mgpu_cpu::mergesort_keys(k, comp),
        }
    }

    /// Mergesort of pairs (the seeds' `MergesortPairs`, Thrust's `sort_by_key`): `keys`
    /// sorted in place as [`Backend::mergesort_keys`] sorts them, each value (any element
    /// type) moved with its key; equal keys keep their values' order. Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) when `values` and `keys`
    /// differ in length; otherwise as [`Backend::mergesort_keys`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Less};
    /// let backend = Backend::cpu();
    /// let mut k = backend.upload(&[2i32, 1, 2, 1])?;
    /// let mut v = backend.upload(&[0u64, 1, 2, 3])?;
    /// backend.mergesort_pairs(&mut k, &mut v, Less)?;
    /// assert_eq!((k.to_vec()?, v.to_vec()?), (vec![1, 1, 2, 2], vec![1, 3, 0, 2]));
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn mergesort_pairs<K: Element, V: SortValue, C>(
        &self,
        keys: &mut Buffer<K>,
        values: &mut Buffer<V>,
        comp: C,
    ) -> Result<()>
    where
        C: SortComparator<K> + MergeKernels<K, V::Bits>,
    {
        self.view_mut(keys, "keys")?;
        self.view_mut(values, "values")?;
        match self {
            Backend::Cuda(_) => gpu_sort_pairs::<Context, K, V, C>(keys, values, comp),
            Backend::Simulator(_) => gpu_sort_pairs::<Simulator, K, V, C>(keys, values, comp),
            Backend::Cpu => match (keys, values) {
                (Buffer::Host(k), Buffer::Host(v)) => mgpu_cpu::mergesort_pairs(k, v, comp),
                _ => unreachable!("the CPU backend's buffers are host vectors"),
            },
        }
    }

    /// Mergesort of indices (the seeds' `MergesortIndices`): `keys` sorted in place as
    /// [`Backend::mergesort_keys`] sorts them, and a new buffer with the permutation that
    /// sorts them: element `j` is the position the key now at `j` had (`I` is u32 or u64).
    /// Synchronises.
    ///
    /// # Errors
    ///
    /// [`Error::IndexOverflow`](crate::Error::IndexOverflow) when the positions do not fit
    /// `I`; otherwise as [`Backend::mergesort_keys`].
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::{Backend, Less};
    /// let backend = Backend::cpu();
    /// let mut k = backend.upload(&[30i64, 10, 20, 10])?;
    /// let p = backend.mergesort_indices::<i64, u32, _>(&mut k, Less)?;
    /// assert_eq!((k.to_vec()?, p.to_vec()?), (vec![10, 10, 20, 30], vec![1, 3, 2, 0]));
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn mergesort_indices<K: Element, I: SortIndex, C>(
        &self,
        keys: &mut Buffer<K>,
        comp: C,
    ) -> Result<Buffer<I>>
    where
        C: SortComparator<K> + MergeKernels<K, I>,
    {
        self.view_mut(keys, "keys")?;
        mgpu_core::checks::sort_indices::<I>(keys.len(), keys.len())?;
        let mut indices = self.zeros::<I>(keys.len())?;
        match self {
            Backend::Cuda(_) => gpu_sort_indices::<Context, K, I, C>(keys, &mut indices, comp)?,
            Backend::Simulator(_) => {
                gpu_sort_indices::<Simulator, K, I, C>(keys, &mut indices, comp)?
            }
            Backend::Cpu => match (keys, &mut indices) {
                (Buffer::Host(k), Buffer::Host(p)) => mgpu_cpu::mergesort_indices(k, p, comp)?,
                _ => unreachable!("the CPU backend's buffers are host vectors"),
            },
        }
        Ok(indices)
    }
}
