//! Scan and the count scan: outputs and totals of the wrong length (host checks), and
//! count sums past the index type (`FLAG_CHECK_MONOTONIC`, detected by the look-back
//! kernel) with the crossing in the first, a boundary, a middle and the last tile.

use crate::common::{length, overflow, spots, verdict, Scale};
use mgpu::{Device, DeviceVec, Element, Index, Plus, ScanKind, ScanOp};
use mgpu_testkit::Guarded;

/// Elements per tile of the scan of `T` with `Plus` on `dev`.
pub fn nv<D: Device, T: Element>(dev: &D) -> usize
where
    Plus: ScanOp<T>,
{
    mgpu::scan::kernels::nv::<T, Plus>(dev.arch())
}

/// A small valid count scan gives the right result (the device is still usable).
pub fn usable<D: Device>(dev: &D) {
    let c = DeviceVec::from_slice(dev, &[3u32, 2, 5]).unwrap();
    let mut s = DeviceVec::<u32, D>::zeros(dev, 3).unwrap();
    let total = mgpu::scan::scan_counts_exclusive(c.as_slice(), s.as_mut_slice());
    assert_eq!(total, Ok(10), "the device is unusable after bad input");
    assert_eq!(s.to_vec().unwrap(), [0, 3, 5]);
}

/// Outputs, totals and reduction outputs of the wrong length.
pub fn lengths<D: Device>(dev: &D, _scale: Scale) {
    let n = 2 * nv::<D, i32>(dev) + 5;
    let x: Vec<i32> = (0..n as i32).map(|i| i % 7 - 3).collect();
    let input = DeviceVec::from_slice(dev, &x).unwrap();
    for (kind, out_len) in [(ScanKind::Exclusive, n - 1), (ScanKind::Inclusive, n + 1)] {
        let case = format!("scan_into {kind:?}: output of {out_len} for {n} inputs");
        let mut out = Guarded::<i32, D>::new(dev, out_len).unwrap();
        let got = mgpu::scan::scan_into(input.as_slice(), out.slice(), kind, None, Plus);
        out.check_guards(&case);
        let mut host = vec![0; out_len];
        let cpu = match kind {
            ScanKind::Exclusive => mgpu::cpu::scan_exclusive::<i32, Plus>(&x, &mut host),
            ScanKind::Inclusive => mgpu::cpu::scan_inclusive::<i32, Plus>(&x, &mut host),
        };
        verdict(&case, &length(), got, Some(cpu));
        usable(dev);
    }
    for t in [0, 2] {
        let case = format!("scan_into: total of {t} elements");
        let mut out = Guarded::<i32, D>::new(dev, n).unwrap();
        let mut total = Guarded::<i32, D>::new(dev, t).unwrap();
        let got = mgpu::scan::scan_into(
            input.as_slice(),
            out.slice(),
            ScanKind::Exclusive,
            Some(total.slice()),
            Plus,
        );
        out.check_guards(&case);
        total.check_guards(&case);
        // The CPU backend returns the total by value: no total buffer to get wrong.
        verdict(&case, &length(), got, None::<mgpu::Result<()>>);
        usable(dev);
    }
    for t in [0, 2] {
        let case = format!("reduce_into: output of {t} elements");
        let mut out = Guarded::<i32, D>::new(dev, t).unwrap();
        let got = mgpu::scan::reduce_into(input.as_slice(), out.slice(), Plus);
        out.check_guards(&case);
        verdict(&case, &length(), got, None::<mgpu::Result<()>>);
        usable(dev);
    }
    let counts: Vec<u32> = (0..n as u32).map(|i| i % 5).collect();
    let c = DeviceVec::from_slice(dev, &counts).unwrap();
    let case = format!("scan_counts_exclusive: output of {} for {n} counts", n - 1);
    let mut out = Guarded::<u32, D>::new(dev, n - 1).unwrap();
    let got = mgpu::scan::scan_counts_exclusive(c.as_slice(), out.slice());
    out.check_guards(&case);
    let cpu = mgpu::cpu::scan_counts_exclusive(&counts, &mut vec![0; n - 1]);
    verdict(&case, &length(), got, Some(cpu));
    usable(dev);
}

/// Runs the count scan (into an output, and in place) on `counts`, whose sum does not
/// fit `I`: `IndexOverflow` on both backends, nothing written outside the outputs.
fn overflowing<D: Device, I: Index>(dev: &D, case: &str, counts: &[I])
where
    Plus: ScanOp<I>,
{
    let n = counts.len();
    let c = DeviceVec::from_slice(dev, counts).unwrap();
    let mut out = Guarded::<I, D>::new(dev, n).unwrap();
    let got = mgpu::scan::scan_counts_exclusive(c.as_slice(), out.slice());
    out.check_guards(case);
    let cpu = mgpu::cpu::scan_counts_exclusive(counts, &mut vec![I::ZERO; n]);
    verdict(case, &overflow(), got, Some(cpu));
    usable(dev);

    let case = format!("{case}, in place");
    let mut data = Guarded::<I, D>::new(dev, n).unwrap();
    data.slice().copy_from_host(counts).unwrap();
    let got = mgpu::scan::scan_counts_exclusive_in_place(data.slice());
    data.check_guards(&case);
    let cpu = mgpu::cpu::scan_counts_exclusive_in_place(&mut counts.to_vec());
    verdict(&case, &overflow(), got, Some(cpu));
    usable(dev);
}

/// Count sums past `I::MAX`: one large count that makes the running sum cross `I::MAX`
/// exactly at each spot; four counts of `2^(bits - 1)` in a middle tile (the sum wraps to
/// exactly 0 there); and equal counts whose sum crosses `I::MAX` halfway (no single count
/// is large; the total is about twice `I::MAX`).
pub fn count_overflow<D: Device, I: Index>(dev: &D, scale: Scale)
where
    Plus: ScanOp<I>,
{
    let nv = nv::<D, I>(dev);
    let max = I::MAX.to_u64();
    for len in scale.sizes(nv) {
        for (place, p) in spots(len, nv) {
            // counts[..p] sum to p, so the prefix through p is I::MAX + 1.
            let mut counts = vec![I::from_u64_wrapping(1); len];
            counts[p] = I::from_u64_wrapping(max - p as u64 + 1);
            let case = format!(
                "scan_counts_exclusive {}: sum crosses MAX at count {p} ({place}, tile {} of {}), n = {len}",
                std::any::type_name::<I>(),
                p / nv,
                len.div_ceil(nv),
            );
            overflowing(dev, &case, &counts);
        }
        // Four counts of 2^(bits - 1) in a middle tile, zeros elsewhere: the sum wraps twice
        // within the tile and comes back to exactly 0 (the tile's wrapped total is 0).
        let t = len.div_ceil(nv) / 2;
        let mut counts = vec![I::ZERO; len];
        for c in &mut counts[t * nv + 10..t * nv + 14] {
            *c = I::from_u64_wrapping(max / 2 + 1);
        }
        let case = format!(
            "scan_counts_exclusive {}: four counts of 2^(bits-1) in tile {t}, the wrapped sum is 0, n = {len}",
            std::any::type_name::<I>(),
        );
        overflowing(dev, &case, &counts);
        let c = max / (len as u64 / 2) + 1;
        let counts = vec![I::from_u64_wrapping(c); len];
        let case = format!(
            "scan_counts_exclusive {}: {len} equal counts of {c}, sum crosses MAX halfway",
            std::any::type_name::<I>(),
        );
        overflowing(dev, &case, &counts);
    }
}
