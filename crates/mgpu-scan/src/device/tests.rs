//! Unit tests of the look-back walk and the reduction's collection, in the simulator.
use super::lookback::*;
use super::reduce_then_scan::*;
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
        input: core::ptr::null(),
        output: core::ptr::null_mut(),
        n: 0,
        status: status.as_mut_ptr(),
        values: values.as_mut_ptr(),
        total: core::ptr::null_mut(),
        error: core::ptr::null_mut(),
        flags: 0,
        tiles_per_cta: 0,
        epoch: 5,
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
        input: core::ptr::null(),
        output: core::ptr::null_mut(),
        n: 0,
        status,
        values,
        total: core::ptr::null_mut(),
        error: core::ptr::null_mut(),
        flags: 0,
        tiles_per_cta: 0,
        epoch,
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
            input: core::ptr::null(),
            output: core::ptr::null_mut(),
            n: 0,
            status: sp as *mut u64,
            values: core::ptr::null_mut(),
            total: core::ptr::null_mut(),
            error: core::ptr::null_mut(),
            flags: 0,
            tiles_per_cta: 0,
            epoch: 4,
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
        output: core::ptr::null_mut(),
        n: n as u64,
        status: status.as_mut_ptr(),
        values: core::ptr::null_mut(),
        total: total.as_mut_ptr(),
        error: core::ptr::null_mut(),
        flags: FLAG_REDUCE_ONLY,
        tiles_per_cta: 1,
        epoch: 3,
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
