//! Unit tests of the look-back walk, the ordered look-back and the reduction's collection,
//! in the simulator.
use super::lookback::*;
use super::reduce::*;
use super::*;
use mgpu_core::sim::{launch, SimCta};
use mgpu_core::Plus;

/// Tiles published as aggregates (A) or inclusive prefixes (P) in a fixed pattern; the
/// walk from every tile must fold back to the nearest P, across several windows.
fn check_walk<T: Element>(value: impl Fn(u64) -> T, add: impl Fn(T, T) -> T)
where
    Plus: AssociativeOp<T>,
{
    let tiles = 300u64;
    // P only at tiles 0, 7, 150, so walks cross several windows of 32.
    let is_p = |t: u64| t == 0 || t == 7 || t == 150;
    let mut status = vec![0u64; tiles as usize + 1];
    let mut values = vec![T::ZERO; 2 * tiles as usize];
    let mut inclusive = vec![T::ZERO; tiles as usize];
    let mut acc = T::ZERO;
    for t in 0..tiles {
        acc = add(acc, value(t));
        inclusive[t as usize] = acc;
    }
    let args = ScanArgs::<T> {
        status: status.as_mut_ptr(),
        values: values.as_mut_ptr(),
        epoch: 5,
        ..Default::default()
    };
    // Publish through the kernels' own function, from a one-thread "CTA".
    launch(1, 32, 0, &|cta: &SimCta| unsafe {
        if cta.tid() == 0 {
            for t in 0..tiles {
                let (s, v) = if is_p(t) {
                    (STATUS_P, inclusive[t as usize])
                } else {
                    (STATUS_A, value(t))
                };
                publish::<SimCta, T>(cta, &args, tiles, t, s, v);
            }
        }
    });
    for tile in [
        1u64, 2, 8, 9, 40, 71, 72, 73, 100, 149, 150, 151, 152, 230, 299,
    ] {
        let mut got = vec![T::ZERO; 32];
        let gp = got.as_mut_ptr() as usize;
        launch(1, 32, 0, &|cta: &SimCta| unsafe {
            let p = look_back::<SimCta, T, Plus>(cta, &args, tiles, tile);
            *(gp as *mut T).add(cta.lane() as usize) = p;
        });
        let want = inclusive[tile as usize - 1];
        assert!(
            got.iter().all(|&g| g == want),
            "tile {tile}: {:?} vs {want:?}",
            got[0]
        );
    }
}

#[test]
fn words_of_another_epoch_read_as_unpublished() {
    let mut status = vec![0u64; 4];
    let mut flags = vec![0u64; 4];
    let mut values = vec![0u64; 8];
    let mk = |status: *mut u64, values: *mut u64, epoch: u32| ScanArgs::<u64> {
        status,
        values,
        epoch,
        ..Default::default()
    };
    let (sp, fp, vp) = (
        status.as_mut_ptr() as usize,
        flags.as_mut_ptr() as usize,
        values.as_mut_ptr() as usize,
    );
    launch(1, 32, 0, &|cta: &SimCta| unsafe {
        if cta.tid() != 0 {
            return;
        }
        // 4-byte values: packed words.
        let old = ScanArgs::<u32> {
            status: sp as *mut u64,
            epoch: 4,
            ..Default::default()
        };
        publish::<SimCta, u32>(cta, &old, 4, 1, STATUS_P, 77);
        let new = ScanArgs::<u32> { epoch: 5, ..old };
        assert_eq!(read_status::<SimCta, u32>(cta, &new, 4, 1).0, STATUS_X);
        assert_eq!(read_status::<SimCta, u32>(cta, &old, 4, 1), (STATUS_P, 77));
        // 8-byte values: flag words and side values.
        let old = mk(fp as *mut u64, vp as *mut u64, 9);
        publish::<SimCta, u64>(cta, &old, 4, 2, STATUS_A, 1 << 40);
        assert_eq!(
            read_status::<SimCta, u64>(cta, &mk(fp as *mut u64, vp as *mut u64, 10), 4, 2).0,
            STATUS_X
        );
        assert_eq!(
            read_status::<SimCta, u64>(cta, &old, 4, 2),
            (STATUS_A, 1 << 40)
        );
    });
}

/// A reduction whose last CTA collects more partials than it polls at once
/// (`COLLECT_UNROLL * NT`), so it polls in rounds; 4- and 8-byte partials.
fn check_collect<T: Element>(value: impl Fn(u64) -> T)
where
    Plus: AssociativeOp<T>,
{
    const NT: usize = 32;
    let grid = 4 * COLLECT_UNROLL * NT + 5;
    let n = grid * NT + 7; // the last CTA's tile is partial
    let x: Vec<T> = (0..n as u64).map(value).collect();
    let want = x.iter().fold(T::ZERO, |a, &b| {
        <Plus as mgpu_core::BinaryOp<T>>::apply(a, b)
    });
    let mut status = vec![0u64; 2 * grid + 2];
    let mut total = vec![T::ZERO; 1];
    let args = ScanArgs::<T> {
        input: x.as_ptr(),
        n: n as u64,
        status: status.as_mut_ptr(),
        total: total.as_mut_ptr(),
        tiles_per_cta: 1,
        epoch: 3,
        ..Default::default()
    };
    let blocks = n.div_ceil(NT) as u32;
    launch(
        blocks,
        NT as u32,
        shared_bytes(size_of::<T>(), NT, 1),
        &|cta: &SimCta| unsafe { partials::<SimCta, T, Plus, NT, 1>(cta, &args) },
    );
    assert!(total[0] == want, "{:?} vs {want:?}", total[0]);
}

#[test]
fn reduction_collects_partials_in_rounds() {
    check_collect::<u32>(|i| (i * 2654435761 % 1000) as u32);
    check_collect::<u64>(|i| (i << 33) ^ i);
    check_collect::<f64>(|i| (i % 17) as f64 - 8.0);
}

#[test]
fn look_back_folds_aggregates_back_to_the_nearest_prefix() {
    check_walk::<u32>(|t| (t * 37 % 101) as u32, |a, b| a.wrapping_add(b));
    check_walk::<u64>(|t| t * t + (1 << 40), |a, b| a.wrapping_add(b));
}

/// An 8-byte status read never takes a 4-byte value an earlier launch published for its
/// flag: the flag lives in the word's high half, where every status word keeps its tag.
/// (The flags were once the `u32`s at the tile's index, the low half of word `tile / 2`
/// for an even tile: a 4-byte value there equal to a later launch's tag read as published.)
#[test]
fn an_eight_byte_flag_never_reads_a_four_byte_value() {
    let mut status = vec![0u64; 4];
    let mut values = vec![0u64; 8];
    let (sp, vp) = (status.as_mut_ptr() as usize, values.as_mut_ptr() as usize);
    launch(1, 32, 0, &|cta: &SimCta| unsafe {
        if cta.tid() != 0 {
            return;
        }
        let mk = |epoch: u32| ScanArgs::<u32> {
            status: sp as *mut u64,
            epoch,
            ..Default::default()
        };
        // Epoch 5 publishes, for tiles 1 and 2, values that are epoch 6's tags.
        publish::<SimCta, u32>(cta, &mk(5), 4, 1, STATUS_P, tag(6, STATUS_P));
        publish::<SimCta, u32>(cta, &mk(5), 4, 2, STATUS_A, tag(6, STATUS_A));
        let wide = ScanArgs::<u64> {
            status: sp as *mut u64,
            values: vp as *mut u64,
            epoch: 6,
            ..Default::default()
        };
        for tile in 0..4 {
            let (status, _) = read_status::<SimCta, u64>(cta, &wide, 4, tile);
            assert_eq!(status, STATUS_X, "tile {tile}");
        }
        publish::<SimCta, u64>(cta, &wide, 4, 2, STATUS_P, 1 << 50);
        assert_eq!(
            read_status::<SimCta, u64>(cta, &wide, 4, 2),
            (STATUS_P, 1 << 50)
        );
        // The 4-byte word of tile 1 is untouched by the 8-byte launch's words.
        assert_eq!(
            read_status::<SimCta, u32>(cta, &mk(5), 4, 1),
            (STATUS_P, tag(6, STATUS_P))
        );
    });
}

/// [`mgpu_ctascan::warp_reduce`]'s butterfly over 32 lanes, as lane 0 computes it.
fn butterfly<T: Element, Op: AssociativeOp<T>>(mut v: [T; 32]) -> T {
    for d in [16, 8, 4, 2, 1] {
        let old = v;
        for (l, x) in v.iter_mut().enumerate() {
            *x = Op::apply(old[l], old[l ^ d]);
        }
    }
    v[0]
}

/// The fold of `v` (at most 32 values) in lanes `0..v.len()`, the identity in the rest.
fn fold32<T: Element, Op: AssociativeOp<T>>(v: &[T]) -> T {
    assert!(v.len() <= 32);
    butterfly::<T, Op>(core::array::from_fn(|l| {
        v.get(l).copied().unwrap_or_else(Op::identity)
    }))
}

/// Every tile's exclusive prefix in the order `ordered` documents, from the tile
/// aggregates: `(SP(s - 1) op fold(G of the j earlier groups)) op fold(a of the k earlier
/// tiles)` (for `s = 0` without the `SP` term), `G(g) = fold(a(32g..32g + 31)) op
/// a(32g + 31)`, `SP(0) = fold(G(0..32))`, `SP(s) = SP(s - 1) op fold(G(32s..32s + 32))`.
/// A pure function of the aggregates: no timing.
fn model_prefixes<T: Element, Op: AssociativeOp<T>>(agg: &[T]) -> Vec<T> {
    let tiles = agg.len();
    let group = |g: usize| {
        let a = &agg[32 * g..];
        Op::apply(fold32::<T, Op>(&a[..31]), a[31])
    };
    let full_groups = tiles / 32;
    let gs: Vec<T> = (0..full_groups).map(group).collect();
    let mut sp: Vec<T> = Vec::new();
    for s in 0..tiles / 1024 {
        let gg = fold32::<T, Op>(&gs[32 * s..32 * s + 32]);
        sp.push(if s > 0 { Op::apply(sp[s - 1], gg) } else { gg });
    }
    (0..tiles)
        .map(|i| {
            if i == 0 {
                return Op::identity();
            }
            let (g, k) = (i / 32, i % 32);
            let (s, j) = (g / 32, g % 32);
            let gg = fold32::<T, Op>(&gs[32 * s..32 * s + j]);
            let base = if s > 0 { Op::apply(sp[s - 1], gg) } else { gg };
            Op::apply(base, fold32::<T, Op>(&agg[32 * g..32 * g + k]))
        })
        .collect()
}

/// Each tile's aggregate as the scan kernels compute it (the per-warp load, the thread
/// reductions, the CTA scan's total).
fn tile_aggregates<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>(
    x: &[T],
) -> Vec<T> {
    let nv = NT * VT;
    let tiles = x.len().div_ceil(nv);
    let mut agg = vec![T::ZERO; tiles];
    let (xp, ap) = (x.as_ptr() as usize, agg.as_mut_ptr() as usize);
    launch(
        tiles as u32,
        NT as u32,
        shared_bytes(size_of::<T>(), NT, VT),
        &|cta: &SimCta| unsafe {
            let k = ScanCta::<SimCta, T, Op, NT, VT>::new(cta);
            let base = cta.block() as usize * nv;
            let count = (x.len() - base).min(nv);
            let src = (xp as *const T).add(base);
            let v = k.load_segment(src, count, count == nv && (src as usize).is_multiple_of(16));
            let t = mgpu_ctascan::thread_reduce::<T, Op, VT>(&v);
            let (_, total) = cta_scan::<SimCta, T, Op, NT>(cta, t, k.scan, ScanKind::Exclusive);
            if cta.tid() == 0 {
                *(ap as *mut T).add(cta.block() as usize) = total;
            }
        },
    );
    agg
}

/// Runs `ordered` on `x` (`flags`), in place when `in_place`: (output, total). The status
/// block is filled with words of an older epoch first, which must read as unpublished.
fn run_ordered<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>(
    x: &[T],
    flags: u32,
    in_place: bool,
) -> (Vec<T>, T) {
    let tiles = x.len().div_ceil(NT * VT) as u64;
    let words = T::WORDS * ordered_slots(tiles) as usize;
    // Stale words: every tag of epoch 8, published values of garbage.
    let stale = status_word(8, STATUS_P, 0xDEAD_BEEF);
    let mut status = vec![stale; words];
    let mut out = if in_place {
        x.to_vec()
    } else {
        vec![T::ZERO; x.len()]
    };
    let mut total = vec![T::ZERO; 1];
    let args = ScanArgs::<T> {
        input: if in_place { out.as_ptr() } else { x.as_ptr() },
        output: out.as_mut_ptr(),
        n: x.len() as u64,
        status: status.as_mut_ptr(),
        total: total.as_mut_ptr(),
        flags,
        epoch: 9,
        ..Default::default()
    };
    launch(
        tiles as u32,
        NT as u32,
        shared_bytes(size_of::<T>(), NT, VT),
        &|cta: &SimCta| unsafe { ordered::<SimCta, T, Op, NT, VT>(cta, &args) },
    );
    (out, total[0])
}

/// Sizes of `tiles` tiles of `nv`: whole tiles, and the last tile holding 1 or an odd
/// number of values.
fn ordered_sizes(tiles: &[usize], nv: usize) -> Vec<usize> {
    let mut v = Vec::new();
    for &t in tiles {
        v.extend([t * nv, (t - 1) * nv + 1, (t - 1) * nv + nv / 2 + 1]);
    }
    v
}

/// The ordered scan of `x` against the order model and the wide reference: the first
/// value of every tile of the exclusive scan is the model's prefix `op` the identity, bit
/// for bit; every value is within `tol` of the exact scan (relative to the running sum of
/// magnitudes, with `wide`); both totals are the last inclusive value bit for bit; the
/// in-place scans give the same bits.
fn check_ordered<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>(
    x: &[T],
    wide: impl Fn(T) -> f64,
    exact: impl Fn(f64, f64) -> f64,
    tol: f64,
) {
    let nv = NT * VT;
    let n = x.len();
    let bits = |v: &[T]| v.iter().map(|e| e.to_words()).collect::<Vec<_>>();
    let (exc, exc_total) = run_ordered::<T, Op, NT, VT>(x, 0, false);
    let (inc, inc_total) = run_ordered::<T, Op, NT, VT>(x, FLAG_INCLUSIVE, false);
    let prefixes = model_prefixes::<T, Op>(&tile_aggregates::<T, Op, NT, VT>(x));
    for (i, p) in prefixes.iter().enumerate() {
        let want = Op::apply(*p, Op::identity());
        assert_eq!(
            exc[i * nv].to_words(),
            want.to_words(),
            "n={n}: tile {i}'s prefix {:?}, model {want:?}",
            exc[i * nv]
        );
    }
    assert_eq!(
        inc_total.to_words(),
        inc[n - 1].to_words(),
        "n={n}: inclusive total"
    );
    assert_eq!(
        exc_total.to_words(),
        inc_total.to_words(),
        "n={n}: exclusive total"
    );
    let close = |got: T, want: f64, mag: f64| {
        let got = wide(got);
        got == want || (got - want).abs() <= tol * mag.max(1.0)
    };
    let (mut acc, mut mag) = (wide(Op::identity()), 0f64);
    for i in 0..n {
        assert!(
            close(exc[i], acc, mag),
            "n={n}: exclusive {i}: {:?} vs {acc}",
            exc[i]
        );
        acc = exact(acc, wide(x[i]));
        mag += wide(x[i]).abs();
        assert!(
            close(inc[i], acc, mag),
            "n={n}: inclusive {i}: {:?} vs {acc}",
            inc[i]
        );
    }
    let (exc2, t2) = run_ordered::<T, Op, NT, VT>(x, 0, true);
    let (inc2, t3) = run_ordered::<T, Op, NT, VT>(x, FLAG_INCLUSIVE, true);
    assert!(
        bits(&exc2) == bits(&exc) && bits(&inc2) == bits(&inc),
        "n={n}: in place"
    );
    assert_eq!(
        bits(&[t2, t3]),
        bits(&[exc_total, inc_total]),
        "n={n}: in-place totals"
    );
}

/// Random values in [-1, 1) (`f64`), whose sums round: tiles of 32 x 3, so that 1, 31, 32,
/// 33, 1023, 1024, 1025 and 2049 tiles (the edges of groups and superblocks) stay small.
#[test]
fn ordered_f64_sums_follow_the_documented_order() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let tiles = [1, 2, 31, 32, 33, 64, 65, 1023, 1024, 1025, 2049];
    for n in ordered_sizes(&tiles, 96) {
        let x: Vec<f64> = (0..n).map(|_| next()).collect();
        check_ordered::<f64, Plus, 32, 3>(&x, |v| v, |a, b| a + b, 1e-13);
    }
}

/// `f32` sums (4-byte values in the status words), and `f64` products, maxima and minima
/// across groups and superblocks; the products of ±1 with a few ±2 and ±0.5 are exact.
#[test]
fn ordered_other_types_and_operators() {
    use mgpu_core::{Maximum, Minimum, Multiplies};
    let sizes = ordered_sizes(&[1, 33, 1025], 64);
    for &n in &sizes {
        let x: Vec<f32> = (0..n)
            .map(|i| ((i * 2_654_435_761) % 1000) as f32 / 500.0 - 1.0)
            .collect();
        check_ordered::<f32, Plus, 32, 2>(&x, |v| v as f64, |a, b| a + b, 1e-5);
        let y: Vec<f64> = (0..n)
            .map(|i| match (i * 7919) % 97 {
                0 => 2.0,
                1 => -0.5,
                k if k < 50 => -1.0,
                _ => 1.0,
            })
            .collect();
        check_ordered::<f64, Multiplies, 32, 2>(&y, |v| v, |a, b| a * b, 0.0);
        let z: Vec<f64> = x.iter().map(|&v| v as f64 * 1e3).collect();
        check_ordered::<f64, Maximum, 32, 2>(&z, |v| v, f64::max, 0.0);
        check_ordered::<f32, Minimum, 32, 2>(&x, |v| v as f64, f64::min, 0.0);
    }
}
