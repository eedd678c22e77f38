//! Simulator tests of the segmented scan and the segmented reduction core against plain
//! sequential definitions, and seed 002's carry-in table as a golden test.

use super::*;
use mgpu_core::sim::{launch, SimCta};
use mgpu_core::{Maximum, Plus};
use proptest::prelude::*;

/// Seed 002's 24-thread table ("Carry-out and carry-in"). The text puts the segment ends in
/// threads 3, 10, 11 and 17, but its "seg start" and "tid delta" rows and every number after
/// them need the end in thread 16 (shared/seeds/README.md): we trust the definition and use
/// 3, 10, 11, 16. With NT = 24 the seed's NumWarps = NT / 32 would be 0, so the table runs
/// with 32 threads, threads 24..31 carrying the identity and no flag.
#[test]
fn seed_002_carry_in_table() {
    const NT: usize = 32;
    let values = [
        4u32, 4, 3, 2, 2, 5, 5, 0, 5, 0, 3, 4, 5, 1, 1, 0, 5, 3, 2, 3, 3, 2, 3, 1,
    ];
    let ends = [3usize, 10, 11, 16];
    let seg_start = [
        0u32, 0, 0, 3, 3, 3, 3, 3, 3, 3, 10, 11, 11, 11, 11, 11, 16, 16, 16, 16, 16, 16, 16, 16,
    ];
    let tid_delta = [
        0u32, 1, 2, 0, 1, 2, 3, 4, 5, 6, 0, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 7,
    ];
    let offset16 = [
        4u32, 8, 11, 2, 4, 9, 14, 14, 19, 19, 3, 4, 9, 10, 11, 11, 5, 8, 10, 13, 16, 18, 21, 22,
    ];
    let carry_in = [
        0u32, 4, 8, 11, 2, 4, 9, 14, 14, 19, 19, 3, 4, 9, 10, 11, 11, 5, 8, 10, 13, 16, 18, 21,
    ];
    let mut got = vec![(0u32, 0u32, 0u32); NT];
    let gp = got.as_mut_ptr() as usize;
    launch(
        1,
        NT as u32,
        seg_scan_shared_bytes(NT, 4),
        &|cta: &SimCta| unsafe {
            let t = cta.tid() as usize;
            let x = if t < 24 { values[t] } else { 0 };
            let flag = ends.contains(&t);
            let sh = cta.shared_base();
            let d = find_seg_scan_delta::<_, NT>(cta, flag, sh as *mut u32);
            let (ci, co) = seg_scan_delta::<_, u32, Plus, NT>(cta, d, x, sh as *mut u32);
            *(gp as *mut (u32, u32, u32)).add(t) = (d, ci, co);
        },
    );
    for t in 0..24 {
        assert_eq!(got[t].0, tid_delta[t], "tid delta of thread {t}");
        assert_eq!(t as u32 - got[t].0, seg_start[t], "seg start of thread {t}");
        assert_eq!(got[t].1, carry_in[t], "carry-in of thread {t}");
        // The inclusive scan (the "offset = 16" row) is the next thread's carry-in.
        if t + 1 < NT {
            assert_eq!(got[t + 1].1, offset16[t], "inclusive scan of thread {t}");
        }
    }
    assert!(got.iter().all(|g| g.2 == 22), "carry-out 22");
}

/// `find_seg_scan_delta` against its definition for flags given as a bit set.
fn check_delta<const NT: usize>(flags: &[bool]) {
    let mut got = vec![0u32; NT];
    let (gp, fp) = (got.as_mut_ptr() as usize, flags.as_ptr() as usize);
    launch(
        1,
        NT as u32,
        seg_scan_shared_bytes(NT, 4),
        &|cta: &SimCta| unsafe {
            let t = cta.tid() as usize;
            let d = find_seg_scan_delta::<_, NT>(cta, *(fp as *const bool).add(t), cta.shared(0));
            *(gp as *mut u32).add(t) = d;
        },
    );
    for (t, &d) in got.iter().enumerate() {
        let start = (0..=t).rev().find(|&s| flags[s]).unwrap_or(0);
        assert_eq!(d as usize, t - start, "thread {t}");
    }
}

/// Plain sequential segmented scan: `ends[j]` marks element `j` as its segment's last.
fn seq_seg_scan<T: Element, Op: AssociativeOp<T>>(
    x: &[T],
    ends: &[bool],
    kind: ScanKind,
) -> (Vec<T>, T) {
    let mut c = Op::identity();
    let mut y = Vec::with_capacity(x.len());
    for (v, &e) in x.iter().zip(ends) {
        let exc = c;
        c = Op::apply(c, *v);
        y.push(if kind == ScanKind::Inclusive { c } else { exc });
        if e {
            c = Op::identity();
        }
    }
    (y, c)
}

/// `cta_seg_scan_tile` on the first `count` of `x`/`ends` (a partial tile when
/// `count < NT * VT`; the rest get the identity and no flags).
fn check_tile<T: Element, Op: AssociativeOp<T>, const NT: usize, const VT: usize>(
    x: &[T],
    ends: &[bool],
    count: usize,
) {
    let nv = NT * VT;
    let xs: Vec<T> = (0..nv)
        .map(|j| if j < count { x[j] } else { Op::identity() })
        .collect();
    let es: Vec<bool> = (0..nv).map(|j| j < count && ends[j]).collect();
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        let mut y = vec![T::ZERO; nv];
        let mut carry = vec![T::ZERO; NT];
        let ptrs = (
            xs.as_ptr() as usize,
            es.as_ptr() as usize,
            y.as_mut_ptr() as usize,
            carry.as_mut_ptr() as usize,
        );
        let bytes = seg_scan_shared_bytes(NT, core::mem::size_of::<T>());
        launch(1, NT as u32, bytes, &|cta: &SimCta| unsafe {
            let t = cta.tid() as usize;
            let v: [T; VT] = core::array::from_fn(|i| *(ptrs.0 as *const T).add(t * VT + i));
            let mut flags = 0u32;
            for i in 0..VT {
                flags |= (*(ptrs.1 as *const bool).add(t * VT + i) as u32) << i;
            }
            let (out, c) =
                cta_seg_scan_tile::<_, T, Op, NT, VT>(cta, &v, flags, cta.shared_base(), kind);
            for (i, o) in out.iter().enumerate() {
                *(ptrs.2 as *mut T).add(t * VT + i) = *o;
            }
            *(ptrs.3 as *mut T).add(t) = c;
        });
        let (want, want_carry) = seq_seg_scan::<T, Op>(&xs[..count], &es[..count], kind);
        assert_eq!(
            &y[..count],
            &want[..],
            "NT {NT} VT {VT} count {count} {kind:?}"
        );
        assert!(carry.iter().all(|&c| c == want_carry), "carry-out");
    }
}

/// `seg_reduce_to_global` against a sequential reduction: segments of the given lengths
/// laid over a tile of `count` elements starting at a segment start; the last segment may
/// continue past the tile (`continues`).
fn check_reduce<
    T: Element,
    Op: AssociativeOp<T>,
    const NT: usize,
    const VT: usize,
    const HALF: bool,
>(
    x: &[T],
    lens: &[usize],
    count: usize,
    continues: bool,
) {
    let nv = NT * VT;
    assert!(count <= nv && count > 0);
    // Row of each element; the rows covering `count`.
    let mut rows = Vec::with_capacity(nv);
    for (r, &l) in lens.iter().enumerate() {
        rows.extend(std::iter::repeat_n(r as u32, l));
    }
    rows.resize(count, rows.last().copied().unwrap_or(0));
    rows.truncate(count);
    let last_row = rows[count - 1];
    // The row after the tile: the same (continues) or the next.
    let after = if continues { last_row } else { last_row + 1 };
    let total = if continues { last_row } else { last_row + 1 };
    let mut want = vec![Op::identity(); total as usize];
    let mut want_carry = Op::identity();
    for j in 0..count {
        if rows[j] < total {
            want[rows[j] as usize] = Op::apply(want[rows[j] as usize], x[j]);
        } else {
            want_carry = Op::apply(want_carry, x[j]);
        }
    }
    // The tile: positions past `count` repeat the last row and hold the identity.
    let rs: Vec<u32> = (0..nv)
        .map(|j| if j < count { rows[j] } else { last_row })
        .collect();
    let xs: Vec<T> = (0..nv)
        .map(|j| if j < count { x[j] } else { Op::identity() })
        .collect();
    let mut out = vec![T::ZERO; total as usize + 1];
    let mut carry = T::ZERO;
    let mut ret = vec![T::ZERO; NT];
    let ptrs = (
        rs.as_ptr() as usize,
        xs.as_ptr() as usize,
        out.as_mut_ptr() as usize,
        &mut carry as *mut T as usize,
        ret.as_mut_ptr() as usize,
    );
    let bytes = seg_reduce_shared_bytes(NT, VT, core::mem::size_of::<T>(), HALF);
    launch(1, NT as u32, bytes, &|cta: &SimCta| unsafe {
        let t = cta.tid() as usize;
        let r: [u32; VT] = core::array::from_fn(|i| *(ptrs.0 as *const u32).add(t * VT + i));
        let d: [T; VT] = core::array::from_fn(|i| *(ptrs.1 as *const T).add(t * VT + i));
        let next = if t + 1 < NT {
            *(ptrs.0 as *const u32).add(t * VT + VT)
        } else {
            after
        };
        let c = seg_reduce_to_global::<_, T, Op, NT, VT, HALF>(
            cta,
            &r,
            next,
            total,
            &d,
            ptrs.2 as *mut T,
            ptrs.3 as *mut T,
            cta.shared_base(),
        );
        *(ptrs.4 as *mut T).add(t) = c;
    });
    assert_eq!(
        &out[..total as usize],
        &want[..],
        "NT {NT} VT {VT} count {count} half {HALF}"
    );
    assert_eq!(out[total as usize], T::ZERO, "nothing past total");
    assert_eq!(carry, want_carry, "carry-out");
    assert!(ret.iter().all(|&c| c == want_carry));
}

fn ends_of(lens: &[usize], n: usize) -> Vec<bool> {
    let mut e = vec![false; n];
    let mut p = 0;
    for &l in lens {
        p += l;
        if p > n {
            break;
        }
        if p > 0 {
            e[p - 1] = true;
        }
    }
    e
}

fn lens_strategy(max_len: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(1..=max_len, 1..200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn delta_matches_definition(bits in proptest::collection::vec(any::<u8>(), 256)) {
        let f: Vec<bool> = bits.iter().map(|b| *b < 12).collect();
        check_delta::<32>(&f[..32]);
        check_delta::<256>(&f);
        check_delta::<1024>(&f.iter().cycle().take(1024).copied().collect::<Vec<_>>());
    }

    #[test]
    fn tile_scan_u32_plus(x in proptest::collection::vec(0u32..100, 32 * 7),
                          lens in lens_strategy(20), cut in 0usize..224) {
        let e = ends_of(&lens, 224);
        check_tile::<u32, Plus, 32, 7>(&x, &e, 224);
        check_tile::<u32, Plus, 32, 7>(&x, &e, cut + 1);
        check_tile::<u32, Plus, 64, 3>(&x, &e, 192);
        check_tile::<u32, Plus, 64, 3>(&x, &e, cut.min(191) + 1);
    }

    #[test]
    fn tile_scan_i64_max(x in proptest::collection::vec(any::<i64>(), 128 * 5),
                         lens in lens_strategy(300), cut in 0usize..640) {
        let e = ends_of(&lens, 640);
        check_tile::<i64, Maximum, 128, 5>(&x, &e, 640);
        check_tile::<i64, Maximum, 128, 5>(&x, &e, cut + 1);
        check_tile::<i64, Maximum, 256, 1>(&x, &e, 256);
    }

    #[test]
    fn reduce_u32_plus(x in proptest::collection::vec(0u32..1000, 64 * 7),
                       lens in lens_strategy(40), cut in 0usize..448, continues in any::<bool>()) {
        check_reduce::<u32, Plus, 64, 7, false>(&x, &lens, 448, continues);
        check_reduce::<u32, Plus, 64, 7, false>(&x, &lens, cut + 1, continues);
        check_reduce::<u32, Plus, 32, 1, false>(&x, &lens, 32, continues);
    }

    #[test]
    fn reduce_f64_plus_half_capacity(x in proptest::collection::vec(-50i32..50, 128 * 5),
                                     lens in lens_strategy(30), cut in 0usize..640, continues in any::<bool>()) {
        // Small integers: exact in f64 whatever the association.
        let x: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        check_reduce::<f64, Plus, 128, 5, true>(&x, &lens, 640, continues);
        check_reduce::<f64, Plus, 128, 5, true>(&x, &lens, cut + 1, continues);
    }
}

#[test]
fn half_capacity_with_more_ends_than_capacity() {
    // Segments of one or two elements: more than NV / 2 ends, so the direct-store path.
    let lens: Vec<usize> = (0..400).map(|i| 1 + (i % 3 == 0) as usize).collect();
    let x: Vec<i64> = (0..320).map(|i| i * 3 - 100).collect();
    check_reduce::<i64, Plus, 64, 5, true>(&x, &lens, 320, false);
    check_reduce::<i64, Plus, 64, 5, true>(&x, &lens, 320, true);
    check_reduce::<i64, Plus, 64, 5, false>(&x, &lens, 320, true);
    // One segment over the whole tile: nothing stored, all in the carry-out.
    check_reduce::<i64, Maximum, 64, 5, true>(&x, &[1000], 320, true);
    check_reduce::<i64, Maximum, 64, 5, true>(&x, &[320], 320, false);
}

#[test]
fn every_element_its_own_segment() {
    let x: Vec<u32> = (0..96).collect();
    let e = vec![true; 96];
    check_tile::<u32, Plus, 32, 3>(&x, &e, 96);
    check_reduce::<u32, Plus, 32, 3, false>(&x, &[1; 96], 96, false);
}
