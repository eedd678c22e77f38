//! Merge and mergesort through the facade, on every backend.

use mgpu::{Backend, Comparator, Element, Greater, Less, MergeKernels, SortComparator, SortValue};
use mgpu_testkit::{self as kit, expect_invalid, Rng, Target};

/// Keys per blocksort tile of the sm_90 tuning for 4-byte keys alone.
const NV: usize = mgpu_merge::kernels::tuning::SORT.sm90.nv(4);
/// Keys per blocksort tile of the sm_90 tuning for wider keys and for pairs.
const NV8: usize = mgpu_merge::kernels::tuning::SORT.sm90.nv(8);
/// Keys per tile of the sm_70 tuning.
const NV70: usize = mgpu_merge::kernels::tuning::SORT.sm70.nv(4);

/// A comparator with every kernel the suite calls for keys `K`.
trait Cmp<K: Element>: SortComparator<K> + MergeKernels<K, u32> + MergeKernels<K, u64> {}
impl<K: Element, C> Cmp<K> for C where
    C: SortComparator<K> + MergeKernels<K, u32> + MergeKernels<K, u64>
{
}

/// The key types, with what the suite makes of random bits and of small numbers.
trait Key: Element + SortValue {
    fn small(x: u64) -> Self;
}
macro_rules! key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            fn small(x: u64) -> Self {
                x as $t
            }
        }
    )*};
}
key!(i32, u32, i64, u64, f32, f64);

/// The sizes every sort runs: 0 to 5, tile multiples of both tunings (sm_90's for 4-byte
/// keys and for wider keys and pairs) and one off them, then larger ones as the target
/// allows.
fn sizes(t: Target) -> Vec<usize> {
    let mut all = vec![0, 1, 2, 3, 4, 5, 100];
    for nv in [NV70, NV8, NV] {
        for k in [1, 2, 3, 4] {
            all.extend([k * nv - 1, k * nv, k * nv + 1]);
        }
    }
    all.extend([5 * NV + 17, 1 << 20, 10_000_000, 100_000_000]);
    all.sort();
    all.dedup();
    t.sizes(&all)
}

/// The inputs of one size: nearly sorted, random bits, few distinct, all equal, sorted,
/// reversed.
fn inputs<K: Key>(n: usize, seed: u64) -> Vec<(&'static str, Vec<K>)> {
    let mut rng = Rng::new(seed ^ n as u64);
    let random: Vec<K> = kit::random_bits(&mut rng, n);
    let few: Vec<K> = (0..n).map(|_| K::small(rng.below(4))).collect();
    let mut sorted = random.clone();
    sorted.sort_by(|a, b| order::<K, Less>(a, b));
    let reversed: Vec<K> = sorted.iter().rev().copied().collect();
    // Sorted but for one pair near the end: the tiles before it take the blocksort's
    // sorted path (both ping-pong buffers written), the passes still run.
    let mut nearly = sorted.clone();
    if n >= 2 {
        nearly.swap(n - 2, n - 1);
        nearly[n - 1] = nearly[0];
    }
    vec![
        ("nearly sorted", nearly),
        ("random", random),
        ("few distinct", few),
        ("all equal", vec![K::small(7); n]),
        ("sorted", sorted),
        ("reversed", reversed),
    ]
}

fn order<K: Element, C: Comparator<K>>(a: &K, b: &K) -> std::cmp::Ordering {
    if C::compare(a, b) {
        std::cmp::Ordering::Less
    } else if C::compare(b, a) {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

/// Sorts `keys` with their positions as values on `b` (pairs, and indices as `u32`) and
/// checks keys, pairs and indices against the stable plain sort, bit for bit.
fn check_sort<K: Key, C: Cmp<K>>(b: &Backend, t: Target, what: &str, keys: &[K]) {
    let n = keys.len();
    let perm = kit::sort_stable(keys, C::compare);
    let want = kit::permute(keys, &perm);
    let mut k = b.upload(keys).unwrap();
    t.timed(&format!("mergesort_keys {} {what}", K::NAME), n, || {
        let mut k2 = b.upload(keys).unwrap();
        b.mergesort_keys(&mut k2, C::default()).unwrap();
    });
    b.mergesort_keys(&mut k, C::default()).unwrap();
    assert_eq!(
        kit::bits(&k.to_vec().unwrap()),
        kit::bits(&want),
        "keys {what} n = {n}"
    );
    // Pairs: the values are the positions, so stability shows.
    let pos: Vec<u32> = (0..n as u32).collect();
    let (mut k, mut v) = (b.upload(keys).unwrap(), b.upload(&pos).unwrap());
    b.mergesort_pairs(&mut k, &mut v, C::default()).unwrap();
    let want_pos: Vec<u32> = perm.iter().map(|&p| p as u32).collect();
    assert_eq!(
        kit::bits(&k.to_vec().unwrap()),
        kit::bits(&want),
        "pair keys {what} n = {n}"
    );
    assert_eq!(v.to_vec().unwrap(), want_pos, "pair values {what} n = {n}");
    let mut k = b.upload(keys).unwrap();
    let p = b
        .mergesort_indices::<K, u32, C>(&mut k, C::default())
        .unwrap();
    assert_eq!(p.to_vec().unwrap(), want_pos, "indices {what} n = {n}");
}

fn sorts<K: Key>(b: &Backend, t: Target)
where
    Less: Cmp<K>,
    Greater: Cmp<K>,
{
    // Under racecheck, random input by `Less` alone (kit::racecheck), at the sizes that
    // still reach every kernel shape: the small ones, one off a tile of each tuning, and
    // sorts of two and three blocksort tiles (one and two passes).
    let few = kit::racecheck();
    let racecheck_sizes = [
        0,
        1,
        5,
        100,
        NV70 + 1,
        NV8 - 1,
        NV8 + 1,
        NV - 1,
        NV + 1,
        2 * NV + 1,
        3 * NV8 + 1,
    ];
    for n in sizes(t) {
        if few && !racecheck_sizes.contains(&n) {
            continue;
        }
        // The largest sizes for one key type each, and random input only.
        let all = n <= 1 << 20 && !few;
        for (what, keys) in inputs::<K>(n, 0x5027) {
            if !all && (what != "random" || !few && K::NAME != "i32" && K::NAME != "u64") {
                continue;
            }
            check_sort::<K, Less>(b, t, what, &keys);
            if all {
                check_sort::<K, Greater>(b, t, what, &keys);
            }
        }
    }
}

/// Real data ([`kit::co2_weekly`]: Mauna Loa's weekly CO2, 1958 to 2001): the readings
/// as f64 and f32 keys (the 59 missing weeks as NaN), and as i32 tenths of a ppm (the
/// missing weeks as -1), seven copies back to back (within the simulator's budget) so
/// that the sort crosses tiles of both tunings with every reading repeated. Keys, pairs
/// (stability through the positions) and indices, by `Less` and `Greater`, bit for bit
/// against the stable plain sort.
fn real_co2(b: &Backend, t: Target) {
    let readings: Vec<f64> = kit::co2_weekly().into_iter().map(|w| w.1).collect();
    assert_eq!(readings.len(), 2284);
    assert_eq!(readings.iter().filter(|x| x.is_nan()).count(), 59);
    let keys: Vec<f64> = readings
        .iter()
        .copied()
        .cycle()
        .take(7 * readings.len())
        .collect();
    let narrow: Vec<f32> = keys.iter().map(|&x| x as f32).collect();
    let tenths: Vec<i32> = keys
        .iter()
        .map(|&x| {
            if x.is_nan() {
                -1
            } else {
                (x * 10.0).round() as i32
            }
        })
        .collect();
    for n in t.sizes(&[readings.len(), keys.len()]) {
        check_sort::<f64, Less>(b, t, "co2", &keys[..n]);
        check_sort::<f64, Greater>(b, t, "co2", &keys[..n]);
        check_sort::<f32, Less>(b, t, "co2", &narrow[..n]);
        check_sort::<i32, Less>(b, t, "co2 tenths", &tenths[..n]);
        check_sort::<i32, Greater>(b, t, "co2 tenths", &tenths[..n]);
    }
}

/// Seed 004's 16 keys, sorted (its merge tree's last line), both ways.
fn seed_sixteen_keys(b: &Backend, _: Target) {
    let keys = [
        13i32, 90, 83, 12, 96, 91, 22, 63, 30, 9, 54, 27, 18, 54, 99, 95,
    ];
    let want = [
        9, 12, 13, 18, 22, 27, 30, 54, 54, 63, 83, 90, 91, 95, 96, 99,
    ];
    let mut k = b.upload(&keys).unwrap();
    b.mergesort_keys(&mut k, Less).unwrap();
    assert_eq!(k.to_vec().unwrap(), want);
    b.mergesort_keys(&mut k, Greater).unwrap();
    assert_eq!(
        k.to_vec().unwrap(),
        want.iter().rev().copied().collect::<Vec<_>>()
    );
}

/// NaNs of both signs (with payloads), infinities, signed zeros: placed as
/// `total_cmp` places them, on every backend.
fn float_order<K: Key>(b: &Backend, t: Target)
where
    Less: Cmp<K>,
    Greater: Cmp<K>,
{
    let specials = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.5,
        -1.5,
    ];
    let mut rng = Rng::new(9);
    for n in t.sizes(&[8, 1000, 3 * NV + 5, 200_000]) {
        let keys: Vec<K> = (0..n)
            .map(|_| {
                let x = specials[rng.below(specials.len() as u64) as usize];
                let bits = if K::WORDS == 1 {
                    let f = x as f32;
                    // A NaN payload, so that NaNs differ in their bits.
                    let b = f.to_bits() | if f.is_nan() { rng.below(64) as u32 } else { 0 };
                    [b, 0]
                } else {
                    let b = x.to_bits() | if x.is_nan() { rng.below(64) } else { 0 };
                    [b as u32, (b >> 32) as u32]
                };
                K::from_words(bits)
            })
            .collect();
        check_sort::<K, Less>(b, t, "specials", &keys);
        check_sort::<K, Greater>(b, t, "specials", &keys);
    }
}

/// Pairs whose values are of other types than the keys: moved as their bits.
fn pair_values<V: Key>(b: &Backend, t: Target)
where
    Greater: MergeKernels<i32, V::Bits>,
{
    let mut rng = Rng::new(3);
    for n in t.sizes(&[0, 1, 5, NV8, 2 * NV8 + 1, 2 * NV + 3, 300_000]) {
        let keys: Vec<i32> = (0..n).map(|_| rng.below(50) as i32 - 25).collect();
        let vals: Vec<V> = kit::random_bits(&mut rng, n);
        let perm = kit::sort_stable(&keys, <Greater as Comparator<i32>>::compare);
        let (mut k, mut v) = (b.upload(&keys).unwrap(), b.upload(&vals).unwrap());
        b.mergesort_pairs(&mut k, &mut v, Greater).unwrap();
        assert_eq!(
            k.to_vec().unwrap(),
            kit::permute(&keys, &perm),
            "keys n = {n}"
        );
        assert_eq!(
            kit::bits(&v.to_vec().unwrap()),
            kit::bits(&kit::permute(&vals, &perm)),
            "values n = {n}"
        );
        let mut k = b.upload(&keys).unwrap();
        let p = b.mergesort_indices::<i32, u64, _>(&mut k, Greater).unwrap();
        let want: Vec<u64> = perm.iter().map(|&p| p as u64).collect();
        assert_eq!(p.to_vec().unwrap(), want, "u64 indices n = {n}");
    }
}

/// Merges of sorted arrays of many lengths, ties across them (A first), pairs.
fn merges<K: Key>(b: &Backend, t: Target)
where
    Less: Cmp<K>,
    Greater: Cmp<K>,
{
    let mut rng = Rng::new(11);
    let lens = [
        0usize,
        1,
        2,
        5,
        NV - 1,
        NV,
        NV + 1,
        3 * NV + 7,
        500_000,
        50_000_000,
    ];
    for &na in &t.sizes(&lens) {
        for &nb in &t.sizes(&[0, 1, 3, NV + 2, 2 * NV, 400_000, 50_000_000]) {
            if (na > 1 << 20 || nb > 1 << 20) && na != nb {
                continue;
            }
            merge_one::<K, Less>(b, t, &mut rng, na, nb);
            merge_one::<K, Greater>(b, t, &mut rng, na, nb);
        }
    }
}

fn merge_one<K: Key, C: Cmp<K>>(b: &Backend, t: Target, rng: &mut Rng, na: usize, nb: usize) {
    let sorted = |rng: &mut Rng, n: usize| {
        let mut v: Vec<K> = (0..n).map(|_| K::small(rng.below(1000))).collect();
        v.sort_by(|x, y| order::<K, C>(x, y));
        v
    };
    let (a, bb) = (sorted(rng, na), sorted(rng, nb));
    let want = kit::merge(&a, &bb, C::compare);
    let (da, db) = (b.upload(&a).unwrap(), b.upload(&bb).unwrap());
    let got = t.timed(
        &format!("merge_keys {} {na}+{nb}", K::NAME),
        na + nb,
        || b.merge_keys(&da, &db, C::default()).unwrap(),
    );
    assert_eq!(
        kit::bits(&got.to_vec().unwrap()),
        kit::bits(&want),
        "merge {na}+{nb}"
    );
    let av: Vec<u32> = (0..na as u32).collect();
    let bv: Vec<u32> = (0..nb as u32).map(|x| x | 1 << 31).collect();
    let (wk, wv) = kit::merge_pairs(&a, &av, &bb, &bv, C::compare);
    let (dav, dbv) = (b.upload(&av).unwrap(), b.upload(&bv).unwrap());
    let (k, v) = b.merge_pairs(&da, &dav, &db, &dbv, C::default()).unwrap();
    assert_eq!(
        kit::bits(&k.to_vec().unwrap()),
        kit::bits(&wk),
        "merge pairs keys {na}+{nb}"
    );
    assert_eq!(v.to_vec().unwrap(), wv, "merge pairs values {na}+{nb}");
}

/// Every bad input: sizes, and unsorted merge inputs on either side, at the first pair,
/// the last, and in the middle of a long input (garbage partitions stay memory-safe).
fn errors(b: &Backend, t: Target) {
    let up = |v: &[i32]| b.upload(v).unwrap();
    let msg = "a merge input is not sorted by the comparator";
    expect_invalid(b.merge_keys(&up(&[2, 1]), &up(&[1, 2]), Less), msg);
    expect_invalid(b.merge_keys(&up(&[1, 2]), &up(&[3, 2]), Less), msg);
    expect_invalid(b.merge_keys(&up(&[1, 2]), &up(&[1, 2]), Greater), msg);
    let v = b.upload(&[0u32]).unwrap();
    assert!(matches!(
        b.merge_pairs(&up(&[1, 2]), &v, &up(&[3]), &v, Less),
        Err(mgpu::Error::LengthMismatch { .. })
    ));
    let (mut k, mut vv) = (up(&[3, 1]), b.upload(&[0.5f64]).unwrap());
    assert!(matches!(
        b.mergesort_pairs(&mut k, &mut vv, Less),
        Err(mgpu::Error::LengthMismatch { .. })
    ));
    let mut rng = Rng::new(5);
    for n in t.sizes(&[3 * NV + 11, 1 << 20]) {
        let mut a: Vec<i32> = (0..n as i32).collect();
        let bb: Vec<i32> = (0..n as i32).map(|x| 2 * x).collect();
        for pos in [1, n / 2, n - 1] {
            let mut a2 = a.clone();
            a2.swap(pos - 1, pos);
            expect_invalid(b.merge_keys(&up(&a2), &up(&bb), Less), msg);
            expect_invalid(b.merge_keys(&up(&bb), &up(&a2), Less), msg);
        }
        // Garbage: every partition and tile range nonsense; an error, never a fault.
        for x in a.iter_mut() {
            *x = rng.next_u64() as i32;
        }
        expect_invalid(b.merge_keys(&up(&a), &up(&bb), Less), msg);
        // The backend is still usable, and an error never leaks into the next call.
        assert_eq!(
            b.merge_keys(&up(&[1]), &up(&[0]), Less)
                .unwrap()
                .to_vec()
                .unwrap(),
            [0, 1]
        );
    }
}

mgpu_testkit::backend_tests! {
    seed_sixteen_keys,
    real_co2,
    sorts_i32 = sorts::<i32>,
    sorts_u32 = sorts::<u32>,
    sorts_i64 = sorts::<i64>,
    sorts_u64 = sorts::<u64>,
    sorts_f32 = sorts::<f32>,
    sorts_f64 = sorts::<f64>,
    float_order_f32 = float_order::<f32>,
    float_order_f64 = float_order::<f64>,
    pair_values_f64 = pair_values::<f64>,
    pair_values_u32 = pair_values::<u32>,
    pair_values_i64 = pair_values::<i64>,
    merges_i32 = merges::<i32>,
    merges_u64 = merges::<u64>,
    merges_f32 = merges::<f32>,
    errors,
}
