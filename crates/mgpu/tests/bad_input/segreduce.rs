//! The segmented reduction family (seed 002): host checks and the faults its kernels find
//! in the data (a bad CSR, a column past the vector, a source range past the data,
//! outputs too small for reduce-by-key's runs), on the device path and the CPU backend.

use crate::common::{invalid, length, spots, to_index, verdict, Counts, Scale};
use mgpu::{Device, DeviceVec, EqualTo, LoadBalanceIndex, Plus};
use mgpu_testkit::Guarded;

/// Merge steps (values plus segment starts) per tile of the reduction of `i32` on `dev`.
fn nv<D: Device, I: LoadBalanceIndex>(dev: &D) -> usize
where
    Plus: mgpu::SegReduceOp<i32, I>,
{
    mgpu::segreduce::kernels::nv::<i32, I, Plus>(dev.arch())
}

/// A small valid reduction gives the right result (the device is still usable, and no
/// stale error bit leaks into the next call).
fn usable<D: Device>(dev: &D) {
    let data = DeviceVec::from_slice(dev, &[1i32, 2, 3, 4, 5]).unwrap();
    let csr = DeviceVec::from_slice(dev, &[0u32, 2, 2]).unwrap();
    let mut out = DeviceVec::<i32, D>::zeros(dev, 3).unwrap();
    let r =
        mgpu::segreduce::seg_reduce_csr(data.as_slice(), csr.as_slice(), out.as_mut_slice(), Plus);
    assert_eq!(r, Ok(()), "the device is unusable after bad input");
    assert_eq!(out.to_vec().unwrap(), [3, 0, 12]);
}

/// `seg_reduce_csr_into` of `total` values over `csr` into an output of `out_len`:
/// `want`'s variant on both backends, guards intact, the device usable after.
fn case<D: Device, I: LoadBalanceIndex>(
    dev: &D,
    case: &str,
    csr: &[u64],
    total: usize,
    out_len: usize,
    want: &mgpu::Error,
) where
    Plus: mgpu::SegReduceOp<i32, I>,
{
    let data: Vec<i32> = (0..total as i32).collect();
    let c: Vec<I> = to_index(csr);
    let (dd, cd) = (
        DeviceVec::from_slice(dev, &data).unwrap(),
        DeviceVec::from_slice(dev, &c).unwrap(),
    );
    let mut out = Guarded::<i32, D>::new(dev, out_len).unwrap();
    let got = mgpu::segreduce::seg_reduce_csr_into(dd.as_slice(), cd.as_slice(), out.slice(), Plus)
        .and_then(|p| p.wait());
    out.check_guards(case);
    let cpu = mgpu::cpu::seg_reduce_csr::<i32, I, Plus>(&data, &c, &mut vec![0; out_len]);
    verdict(case, want, got, Some(cpu));
    usable(dev);
}

/// `spmv_csr` of `m` (columns `cols`, rows `csr`) and `x` into a guarded output of one
/// per row, or `spmv_csr_indirect` with `sources`: `want`'s variant on both backends,
/// guards intact, the device usable after.
fn spmv_case<D: Device, I: LoadBalanceIndex>(
    dev: &D,
    case: &str,
    (m, cols, csr, x): (&[f64], &[I], &[I], &[f64]),
    sources: Option<&[I]>,
    want: &mgpu::Error,
) where
    mgpu::segreduce::device::SpmvBinary: mgpu::segreduce::kernels::SpmvForm<f64, I>,
    mgpu::segreduce::device::SpmvIndirectBinary: mgpu::segreduce::kernels::SpmvForm<f64, I>,
{
    let (md, cd, rd, xd) = (
        DeviceVec::from_slice(dev, m).unwrap(),
        DeviceVec::from_slice(dev, cols).unwrap(),
        DeviceVec::from_slice(dev, csr).unwrap(),
        DeviceVec::from_slice(dev, x).unwrap(),
    );
    let mut y = Guarded::<f64, D>::new(dev, csr.len()).unwrap();
    let mut host_y = vec![0.0; csr.len()];
    let (got, cpu) = match sources {
        None => (
            mgpu::segreduce::spmv_csr(
                md.as_slice(),
                cd.as_slice(),
                rd.as_slice(),
                xd.as_slice(),
                y.slice(),
            ),
            mgpu::cpu::spmv_csr(m, cols, csr, x, &mut host_y),
        ),
        Some(s) => {
            let sd = DeviceVec::from_slice(dev, s).unwrap();
            (
                mgpu::segreduce::spmv_csr_indirect(
                    md.as_slice(),
                    cd.as_slice(),
                    rd.as_slice(),
                    sd.as_slice(),
                    xd.as_slice(),
                    y.slice(),
                ),
                mgpu::cpu::spmv_csr_indirect(m, cols, csr, s, x, &mut host_y),
            )
        }
    };
    y.check_guards(case);
    verdict(case, want, got, Some(cpu));
    usable(dev);
}

/// `indirect_reduce_csr` of `data` over `csr` from `sources` into a guarded output:
/// `want`'s variant on both backends, guards intact, the device usable after.
fn indirect_case<D: Device, I: LoadBalanceIndex>(
    dev: &D,
    case: &str,
    (data, csr, sources): (&[i32], &[I], &[I]),
    want: &mgpu::Error,
) where
    Plus: mgpu::segreduce::kernels::IndirectOp<i32, I>,
{
    let (dd, rd, sd) = (
        DeviceVec::from_slice(dev, data).unwrap(),
        DeviceVec::from_slice(dev, csr).unwrap(),
        DeviceVec::from_slice(dev, sources).unwrap(),
    );
    let mut out = Guarded::<i32, D>::new(dev, csr.len()).unwrap();
    let got = mgpu::segreduce::indirect_reduce_csr(
        dd.as_slice(),
        rd.as_slice(),
        sd.as_slice(),
        out.slice(),
        Plus,
    );
    out.check_guards(case);
    let cpu =
        mgpu::cpu::indirect_reduce_csr::<i32, I, Plus>(data, csr, sources, &mut vec![0; csr.len()]);
    verdict(case, want, got, Some(cpu));
    usable(dev);
}

/// Host checks of every front-end: outputs, columns and sources of the wrong length,
/// values with no segments, keys and values of different lengths, reduce-by-key outputs
/// too small for the runs.
pub fn host_checks<D: Device>(dev: &D, _scale: Scale) {
    let b = Counts::new(2 * nv::<D, u32>(dev), 17);
    let (n, total) = (b.n(), b.total as usize);
    case::<D, u32>(
        dev,
        &format!("seg_reduce_csr: output of n + 1, n = {n}"),
        &b.scan,
        total,
        n + 1,
        &length(),
    );
    case::<D, u32>(
        dev,
        "seg_reduce_csr: 5 values, no segments",
        &[],
        5,
        0,
        &invalid(),
    );
    // SpMV: one column short; indirect: one source short.
    let csr32: Vec<u32> = to_index(&b.scan);
    let (m, x) = (vec![1.0f64; total], [2.0f64; 3]);
    spmv_case::<D, u32>(
        dev,
        "spmv_csr: one column short",
        (&m, &vec![0; total - 1], &csr32, &x),
        None,
        &length(),
    );
    spmv_case::<D, u32>(
        dev,
        "spmv_csr_indirect: one source short",
        (&m, &vec![0; total], &csr32, &x),
        Some(&vec![0; n - 1]),
        &length(),
    );
    let data = vec![1i32; total];
    indirect_case::<D, u32>(
        dev,
        "indirect_reduce_csr: one source short",
        (&data, &csr32, &vec![0; n - 1]),
        &length(),
    );
    // Reduce-by-key: values one short (outputs of one slot per key); outputs one slot
    // short of the runs, keys or values (`InvalidInput`, the guards intact).
    let keys: Vec<u32> = (0..total as u32).map(|i| i / 3).collect();
    let runs = total.div_ceil(3);
    let vals: Vec<i64> = vec![1; total];
    let kd = DeviceVec::from_slice(dev, &keys).unwrap();
    for (nv, kc, vc, want) in [
        (total - 1, total, total, length()),
        (total, runs - 1, runs, invalid()),
        (total, runs, runs - 1, invalid()),
    ] {
        let case = format!("reduce_by_key: {nv} values for {total} keys, outputs of {kc} and {vc} slots for {runs} runs");
        let vd = DeviceVec::from_slice(dev, &vals[..nv]).unwrap();
        let (mut ko, mut vo) = (
            Guarded::<u32, D>::new(dev, kc).unwrap(),
            Guarded::<i64, D>::new(dev, vc).unwrap(),
        );
        let got = mgpu::segreduce::reduce_by_key(
            kd.as_slice(),
            vd.as_slice(),
            ko.slice(),
            vo.slice(),
            EqualTo,
            Plus,
        );
        ko.check_guards(&case);
        vo.check_guards(&case);
        let (mut hk, mut hv) = (vec![0; kc], vec![0; vc]);
        let cpu = mgpu::cpu::reduce_by_key::<u32, i64, EqualTo, Plus>(
            &keys,
            &vals[..nv],
            &mut hk,
            &mut hv,
        );
        verdict(&case, &want, got, Some(cpu));
        usable(dev);
    }
}

/// The CSRs the tiles' fused checks reject (`ERROR_FIRST`, `ERROR_UNSORTED`,
/// `ERROR_TOTAL`): `csr[0] = 1`; a start dipping by 1 and a start past the total, at
/// each place; columns past the vector (SpMV) and source ranges past the data (indirect)
/// in the middle tile.
pub fn csr_faults<D: Device, I: LoadBalanceIndex>(dev: &D, scale: Scale)
where
    Plus: mgpu::SegReduceOp<i32, I> + mgpu::segreduce::kernels::IndirectOp<i32, I>,
    mgpu::segreduce::device::SpmvBinary: mgpu::segreduce::kernels::SpmvForm<f64, I>,
    mgpu::segreduce::device::SpmvIndirectBinary: mgpu::segreduce::kernels::SpmvForm<f64, I>,
{
    let nv = nv::<D, I>(dev);
    let ty = std::any::type_name::<I>();
    for steps in scale.sizes(nv) {
        let b = Counts::new(steps, steps as u64 + 3);
        let (n, total) = (b.n(), b.total as usize);
        let name = |what: String, k: usize| {
            format!(
                "seg_reduce_csr {ty}: {what} at segment {k} (tile {}), n = {n}, total = {total}",
                b.tile(k, nv)
            )
        };
        let mut csr = b.scan.clone();
        csr[0] = 1;
        case::<D, I>(
            dev,
            &name("csr[0] = 1".into(), 0),
            &csr,
            total,
            n,
            &invalid(),
        );
        for (place, d) in spots(b.steps(), nv) {
            let k = b.near(b.object_at(d), |k| k > 0 && b.scan[k - 1] > 0);
            let mut csr = b.scan.clone();
            csr[k] = csr[k - 1] - 1;
            case::<D, I>(
                dev,
                &name(format!("{place}: start dips by 1"), k),
                &csr,
                total,
                n,
                &invalid(),
            );
            let mut csr = b.scan.clone();
            let k = b.object_at(d).max(1);
            for s in csr.iter_mut().skip(k) {
                *s = (total + 1) as u64;
            }
            case::<D, I>(
                dev,
                &name(format!("{place}: starts past the total from here"), k),
                &csr,
                total,
                n,
                &invalid(),
            );
        }
        // SpMV: one column past the vector in the middle tile.
        let (_, d) = spots(b.steps(), nv)[2];
        let k = b.near(b.object_at(d), |k| b.counts[k] > 0);
        let rows = n;
        let mut cols: Vec<u64> = (0..total as u64).map(|i| i % rows as u64).collect();
        cols[b.scan[k] as usize] = rows as u64;
        let (m, x) = (vec![1.0f64; total], vec![2.0f64; rows]);
        let (c, r): (Vec<I>, Vec<I>) = (to_index(&cols), to_index(&b.scan));
        let case =
            format!("spmv_csr {ty}: column {rows} of a vector of {rows} in row {k}, n = {n}");
        spmv_case::<D, I>(dev, &case, (&m, &c, &r, &x), None, &invalid());
        let case = format!("spmv_csr_indirect {ty}: the same column, sources = csr, n = {n}");
        spmv_case::<D, I>(dev, &case, (&m, &c, &r, &x), Some(&r), &invalid());
        // Indirect: segment k's source range ends one past the data.
        let data = vec![1i32; total];
        let mut sources = b.scan.clone();
        sources[k] = (total as u64 + 1) - b.counts[k];
        let case =
            format!("spmv_csr_indirect {ty}: row {k}'s source one past the nonzeros, n = {n}");
        let (m, x) = (vec![1.0f64; total], vec![2.0f64; rows]);
        let c = to_index::<I>(
            &(0..total as u64)
                .map(|i| i % rows as u64)
                .collect::<Vec<_>>(),
        );
        let s = to_index::<I>(&sources);
        spmv_case::<D, I>(dev, &case, (&m, &c, &r, &x), Some(&s), &invalid());
        let case =
            format!("indirect_reduce_csr {ty}: segment {k}'s source one past the data, n = {n}");
        indirect_case::<D, I>(
            dev,
            &case,
            (&data, &r, &to_index::<I>(&sources)),
            &invalid(),
        );
    }
}
