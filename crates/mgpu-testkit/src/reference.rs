//! Plain-loop references: what every backend's result is compared with. Each is the
//! definition written as the simplest sequential loop (no search, no tiling, no
//! parallelism), with indices, offsets and counts as `u64` (convert with
//! [`to_index`](crate::to_index)).

/// The exclusive scan of `x` under `op` from `init`, by a left fold, and the total (the
/// fold of everything).
///
/// # Examples
///
/// ```
/// let (scan, total) = mgpu_testkit::exclusive_scan(&[3u32, 2, 5], 0, |a, b| a + b);
/// assert_eq!((scan, total), (vec![0, 3, 5], 10));
/// ```
pub fn exclusive_scan<T: Copy>(x: &[T], init: T, op: impl Fn(T, T) -> T) -> (Vec<T>, T) {
    let mut acc = init;
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(acc);
        acc = op(acc, v);
    }
    (out, acc)
}

/// The inclusive scan of `x` under `op` from `init`, by a left fold, and the total.
///
/// # Examples
///
/// ```
/// let (scan, total) = mgpu_testkit::inclusive_scan(&[4i32, -1, 7], i32::MIN, i32::max);
/// assert_eq!((scan, total), (vec![4, 4, 7], 7));
/// ```
pub fn inclusive_scan<T: Copy>(x: &[T], init: T, op: impl Fn(T, T) -> T) -> (Vec<T>, T) {
    let mut acc = init;
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        acc = op(acc, v);
        out.push(acc);
    }
    (out, acc)
}

/// The exclusive scan of `counts` (wrapping) and their total: the offsets of the objects'
/// work items.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_testkit::offsets(&[2, 0, 3]), (vec![0, 2, 2], 5));
/// ```
pub fn offsets(counts: &[u64]) -> (Vec<u64>, u64) {
    exclusive_scan(counts, 0, u64::wrapping_add)
}

/// The load-balancing search of the exclusive scan `scan` (non-decreasing, from 0, every
/// value at most `total`): for each of the `total` work items its object (`upper_bound -
/// 1` of the item in `scan`) and its rank within the object, by walking the objects.
///
/// # Examples
///
/// Seed 001's first objects: counts 1, 2, 4, 0, 4.
///
/// ```
/// let (objects, ranks) = mgpu_testkit::load_balance_search(&[0, 1, 3, 7, 7], 11);
/// assert_eq!(objects, [0, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4]);
/// assert_eq!(ranks, [0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3]);
/// ```
pub fn load_balance_search(scan: &[u64], total: u64) -> (Vec<u64>, Vec<u64>) {
    let mut objects = Vec::with_capacity(total as usize);
    let mut ranks = Vec::with_capacity(total as usize);
    for (j, &start) in scan.iter().enumerate() {
        let end = scan.get(j + 1).copied().unwrap_or(total);
        for r in 0..end - start {
            objects.push(j as u64);
            ranks.push(r);
        }
    }
    assert_eq!(objects.len() as u64, total, "scan[0] must be 0");
    (objects, ranks)
}

/// The end of interval `j` of `scan`: the next start, or `total` after the last.
fn end(scan: &[u64], total: u64, j: usize) -> u64 {
    scan.get(j + 1).copied().unwrap_or(total)
}

/// Interval expand: object `j`'s value `values[j]` repeated over its interval
/// `scan[j]..scan[j + 1]` of the `total` outputs.
///
/// # Examples
///
/// ```
/// let out = mgpu_testkit::interval_expand(&[0, 2, 2, 5], 6, &['a', 'b', 'c', 'd']);
/// assert_eq!(out, ['a', 'a', 'c', 'c', 'c', 'd']);
/// ```
pub fn interval_expand<T: Copy>(scan: &[u64], total: u64, values: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(total as usize);
    for j in 0..scan.len() {
        for _ in scan[j]..end(scan, total, j) {
            out.push(values[j]);
        }
    }
    out
}

/// Interval gather: output `scan[j] + r` is `input[gather[j] + r]` for every rank `r` of
/// interval `j`.
///
/// # Examples
///
/// ```
/// let out = mgpu_testkit::interval_gather(&[0, 2], 3, &[4, 0], &[10, 11, 12, 13, 14, 15]);
/// assert_eq!(out, [14, 15, 10]);
/// ```
pub fn interval_gather<T: Copy>(scan: &[u64], total: u64, gather: &[u64], input: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(total as usize);
    for j in 0..scan.len() {
        for k in scan[j]..end(scan, total, j) {
            out.push(input[(gather[j] + k - scan[j]) as usize]);
        }
    }
    out
}

/// Interval scatter: `output[scatter[j] + r] = input[scan[j] + r]` for every rank `r` of
/// interval `j`; the rest of `output` keeps its values.
///
/// # Examples
///
/// ```
/// let mut out = [0; 4];
/// mgpu_testkit::interval_scatter(&[0, 2], 3, &[1, 0], &[7, 8, 9], &mut out);
/// assert_eq!(out, [9, 7, 8, 0]);
/// ```
pub fn interval_scatter<T: Copy>(
    scan: &[u64],
    total: u64,
    scatter: &[u64],
    input: &[T],
    output: &mut [T],
) {
    for j in 0..scan.len() {
        for k in scan[j]..end(scan, total, j) {
            output[(scatter[j] + k - scan[j]) as usize] = input[k as usize];
        }
    }
}

/// Interval move: `output[scatter[j] + r] = input[gather[j] + r]` for every rank `r` of
/// interval `j`; the rest of `output` keeps its values.
///
/// # Examples
///
/// ```
/// let mut out = [0; 4];
/// mgpu_testkit::interval_move(&[0, 2], 3, &[2, 0], &[2, 0], &[5, 6, 7, 8], &mut out);
/// assert_eq!(out, [5, 0, 7, 8]);
/// ```
pub fn interval_move<T: Copy>(
    scan: &[u64],
    total: u64,
    gather: &[u64],
    scatter: &[u64],
    input: &[T],
    output: &mut [T],
) {
    for j in 0..scan.len() {
        for r in 0..end(scan, total, j) - scan[j] {
            output[(scatter[j] + r) as usize] = input[(gather[j] + r) as usize];
        }
    }
}

/// Bulk remove: `source` without the elements at `indices` (any order; duplicates remove
/// once).
///
/// # Examples
///
/// The seed's comment example: indices 1, 3, 4, 5, 7, 8 of ten elements leave A0 A2 A6 A9.
///
/// ```
/// let a: Vec<i32> = (0..10).collect();
/// assert_eq!(mgpu_testkit::bulk_remove(&a, &[1, 3, 4, 5, 7, 8]), [0, 2, 6, 9]);
/// ```
pub fn bulk_remove<T: Copy>(source: &[T], indices: &[u64]) -> Vec<T> {
    let mut removed = vec![false; source.len()];
    for &i in indices {
        removed[i as usize] = true;
    }
    let mut out = Vec::with_capacity(source.len());
    for (j, &x) in source.iter().enumerate() {
        if !removed[j] {
            out.push(x);
        }
    }
    out
}

/// Bulk insert: `values[k]` goes before `source[indices[k]]` (after the end for
/// `indices[k] == source.len()`), values at one index in their order, all before that
/// source element. `indices` must be sorted and at most `source.len()`.
///
/// # Examples
///
/// The seed's comment example: indices 1, 1, 2, 3, 3 give B0 A0 A1 B1 A2 B2 A3 A4.
///
/// ```
/// let out = mgpu_testkit::bulk_insert(&[100, 101, 102, 103, 104], &[1, 1, 2, 3, 3], &[0, 1, 2]);
/// assert_eq!(out, [0, 100, 101, 1, 102, 2, 103, 104]);
/// ```
pub fn bulk_insert<T: Copy>(values: &[T], indices: &[u64], source: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len() + source.len());
    let mut k = 0;
    for j in 0..=source.len() {
        while k < values.len() && indices[k] as usize == j {
            out.push(values[k]);
            k += 1;
        }
        if j < source.len() {
            out.push(source[j]);
        }
    }
    assert_eq!(
        k,
        values.len(),
        "indices must be sorted and at most the source length"
    );
    out
}

/// The sequential merge of `a` and `b`, each sorted by `less` (a strict order): the source
/// of each output in turn, `i` for `a[i]` and `a.len() + j` for `b[j]`. On equal keys the
/// elements of `a` come first when `a_first` (a lower-bound merge, Modern GPU's default),
/// those of `b` otherwise (an upper-bound merge).
///
/// # Examples
///
/// ```
/// let less = |x: &u32, y: &u32| x < y;
/// // a = [1, 3], b = [3, 4]: 1, then the 3 of a (a first), the 3 of b, 4.
/// assert_eq!(mgpu_testkit::merge_sources(&[1, 3], &[3, 4], true, less), [0, 1, 2, 3]);
/// // B first on ties: the 3 of b before the 3 of a.
/// assert_eq!(mgpu_testkit::merge_sources(&[1, 3], &[3, 4], false, less), [0, 2, 1, 3]);
/// // Keys sorted by `>`: descending lists.
/// assert_eq!(mgpu_testkit::merge_sources(&[5, 2], &[4], true, |x: &i32, y: &i32| x > y), [0, 2, 1]);
/// ```
pub fn merge_sources<T>(
    a: &[T],
    b: &[T],
    a_first: bool,
    less: impl Fn(&T, &T) -> bool,
) -> Vec<u64> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() || j < b.len() {
        let take_a = j == b.len()
            || (i < a.len()
                && if a_first {
                    !less(&b[j], &a[i])
                } else {
                    less(&a[i], &b[j])
                });
        if take_a {
            out.push(i as u64);
            i += 1;
        } else {
            out.push((a.len() + j) as u64);
            j += 1;
        }
    }
    out
}

/// The stable merge of `a` and `b`, each sorted by `less` (a strict order), by the plain
/// two-pointer loop of [`merge_sources`]: on equal keys the elements of `a` come first.
///
/// # Examples
///
/// ```
/// let out = mgpu_testkit::merge(&[1, 3, 3], &[2, 3], |x: &i32, y: &i32| x < y);
/// assert_eq!(out, [1, 2, 3, 3, 3]);
/// // Ties A first: the (3, 'a') pairs of `a` before the (3, 'b') of `b`.
/// let out = mgpu_testkit::merge(&[(3, 'a')], &[(3, 'b')], |x: &(i32, char), y| x.0 < y.0);
/// assert_eq!(out, [(3, 'a'), (3, 'b')]);
/// ```
pub fn merge<T: Copy, F: Fn(&T, &T) -> bool>(a: &[T], b: &[T], less: F) -> Vec<T> {
    merge_sources(a, b, true, less)
        .into_iter()
        .map(|s| source(a, b, s))
        .collect()
}

/// Element `s` of `a` followed by `b` (a source of [`merge_sources`]).
fn source<T: Copy>(a: &[T], b: &[T], s: u64) -> T {
    let s = s as usize;
    if s < a.len() {
        a[s]
    } else {
        b[s - a.len()]
    }
}

/// The stable merge of the pairs `(a_keys, a_values)` and `(b_keys, b_values)`, keys
/// sorted by `less`, as [`merge`]: the merged keys and their values.
///
/// # Examples
///
/// ```
/// let (k, v) = mgpu_testkit::merge_pairs(&[1, 3], &['a', 'b'], &[3, 4], &['B', 'C'], |x: &u32, y: &u32| x < y);
/// assert_eq!((k, v), (vec![1, 3, 3, 4], vec!['a', 'b', 'B', 'C']));
/// ```
pub fn merge_pairs<K: Copy, V: Copy, F: Fn(&K, &K) -> bool>(
    a_keys: &[K],
    a_values: &[V],
    b_keys: &[K],
    b_values: &[V],
    less: F,
) -> (Vec<K>, Vec<V>) {
    assert_eq!(a_keys.len(), a_values.len(), "one A value per key");
    assert_eq!(b_keys.len(), b_values.len(), "one B value per key");
    merge_sources(a_keys, b_keys, true, less)
        .into_iter()
        .map(|s| (source(a_keys, b_keys, s), source(a_values, b_values, s)))
        .unzip()
}

/// The stable sorting permutation of `keys` by `less` (a strict order), from std's
/// `sort_by`: entry `j` is the input position of the key that goes to position `j`, equal
/// keys in input order. Apply it with [`permute`].
///
/// # Examples
///
/// ```
/// let keys = [3u32, 1, 3, 1, 2];
/// let perm = mgpu_testkit::sort_stable(&keys, |x, y| x < y);
/// assert_eq!(perm, [1, 3, 4, 0, 2]);
/// assert_eq!(mgpu_testkit::permute(&keys, &perm), [1, 1, 2, 3, 3]);
/// // Floats by totalOrder: -0.0 before 0.0, NaN last.
/// let f = [f64::NAN, 0.0, -0.0];
/// assert_eq!(mgpu_testkit::sort_stable(&f, |x, y| x.total_cmp(y).is_lt()), [2, 1, 0]);
/// ```
pub fn sort_stable<T: Copy, F: Fn(&T, &T) -> bool>(keys: &[T], less: F) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..keys.len()).collect();
    perm.sort_by(|&i, &j| {
        if less(&keys[i], &keys[j]) {
            core::cmp::Ordering::Less
        } else if less(&keys[j], &keys[i]) {
            core::cmp::Ordering::Greater
        } else {
            core::cmp::Ordering::Equal
        }
    });
    perm
}

/// `v` permuted by `perm`: entry `j` is `v[perm[j]]`.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_testkit::permute(&['a', 'b', 'c'], &[2, 0, 1]), ['c', 'a', 'b']);
/// ```
pub fn permute<T: Copy>(v: &[T], perm: &[usize]) -> Vec<T> {
    perm.iter().map(|&p| v[p]).collect()
}

/// Merge Path partitions by their definition: for each tile boundary `p = 0..=ceil(n /
/// nv)` of the `n = sources.len()` outputs of a merge, how many of its first `min(nv * p,
/// n)` outputs come from A (`sources` as [`merge_sources`] gives them, A's elements being
/// those below `a_len`).
///
/// # Examples
///
/// ```
/// // A's elements are the sources 0 and 1; tiles of 2 outputs.
/// let sources = [0, 2, 1, 3];
/// assert_eq!(mgpu_testkit::merge_splits(&sources, 2, 2), [0, 1, 2]);
/// assert_eq!(mgpu_testkit::merge_splits(&[], 0, 5), [0]);
/// ```
pub fn merge_splits(sources: &[u64], a_len: usize, nv: usize) -> Vec<u64> {
    let mut from_a = Vec::with_capacity(sources.len() + 1);
    from_a.push(0u64);
    for &s in sources {
        from_a.push(from_a[from_a.len() - 1] + u64::from((s as usize) < a_len));
    }
    let n = sources.len();
    (0..=n.div_ceil(nv))
        .map(|p| from_a[(nv * p).min(n)])
        .collect()
}

/// The segmented reduction over CSR by a plain loop: for each segment `j`, the values
/// `data[csr[j]..csr[j + 1]]` (the last to the end of `data`) folded left to right from
/// `identity` with `op`. `csr` must be valid (from 0, non-decreasing, at most
/// `data.len()`).
///
/// # Examples
///
/// ```
/// let r = mgpu_testkit::seg_reduce_csr(&[1, 2, 3, 4, 5, 6], &[0, 2, 2, 5], 0, |a, b| a + b);
/// assert_eq!(r, [3, 0, 12, 6]);
/// ```
pub fn seg_reduce_csr<T: Copy>(
    data: &[T],
    csr: &[u64],
    identity: T,
    op: impl Fn(T, T) -> T,
) -> Vec<T> {
    (0..csr.len())
        .map(|j| {
            let end = csr.get(j + 1).map_or(data.len(), |&e| e as usize);
            data[csr[j] as usize..end]
                .iter()
                .fold(identity, |a, &x| op(a, x))
        })
        .collect()
}

/// CSR SpMV by a plain loop over the rows: row `r` sums `mul(matrix[k], vec[cols[k]])`
/// over its nonzeros `k` (`csr[r]..csr[r + 1]`, the last row to `cols.len()`) from
/// `zero`, left to right; without `matrix` (unary SpMV) it sums `vec[cols[k]]`. Every
/// column must index `vec`.
///
/// # Examples
///
/// ```
/// let y = mgpu_testkit::spmv_csr(Some(&[1, 2, 3][..]), &[0, 2, 1], &[0, 2, 2], &[1, 10, 100], 0, |a, b| a + b, |a, b| a * b);
/// assert_eq!(y, [201, 0, 30]);
/// let u = mgpu_testkit::spmv_csr(None, &[0, 2, 1], &[0, 2, 2], &[1, 10, 100], 0, |a, b| a + b, |a, b| a * b);
/// assert_eq!(u, [101, 0, 10]);
/// ```
pub fn spmv_csr<T: Copy>(
    matrix: Option<&[T]>,
    cols: &[u64],
    csr: &[u64],
    vec: &[T],
    zero: T,
    add: impl Fn(T, T) -> T,
    mul: impl Fn(T, T) -> T,
) -> Vec<T> {
    (0..csr.len())
        .map(|r| {
            let end = csr.get(r + 1).map_or(cols.len(), |&e| e as usize);
            (csr[r] as usize..end).fold(zero, |acc, k| {
                let x = vec[cols[k] as usize];
                add(acc, matrix.map_or(x, |m| mul(m[k], x)))
            })
        })
        .collect()
}

/// Reduce-by-key by a plain loop: the runs of adjacent keys that `same` calls equal,
/// each run's first key and its values folded left to right from `identity` with `op`.
///
/// # Examples
///
/// ```
/// let (k, v) = mgpu_testkit::reduce_by_key(&[5, 5, 1, 5], &[1, 2, 3, 4], 0, |a, b| a + b, |a, b| a == b);
/// assert_eq!((k, v), (vec![5, 1, 5], vec![3, 3, 4]));
/// ```
pub fn reduce_by_key<K: Copy, T: Copy>(
    keys: &[K],
    values: &[T],
    identity: T,
    op: impl Fn(T, T) -> T,
    same: impl Fn(&K, &K) -> bool,
) -> (Vec<K>, Vec<T>) {
    let (mut ko, mut vo) = (Vec::new(), Vec::new());
    for (i, (k, &v)) in keys.iter().zip(values).enumerate() {
        if i == 0 || !same(&keys[i - 1], k) {
            ko.push(*k);
            vo.push(identity);
        }
        let last = vo.last_mut().expect("a run is open");
        *last = op(*last, v);
    }
    (ko, vo)
}
