//! Interval expand (load-balanced and naive), gather, scatter and move: lengths, totals
//! past the index type and totals without intervals (host checks); scans and ranges the
//! kernels' fused validation rejects (`ERROR_SCAN_START`, `ERROR_SCAN_ORDER`,
//! `ERROR_TOTAL`, `ERROR_GATHER`, `ERROR_SCATTER`); and overlapping scatter ranges.

use crate::common::{invalid, length, overflow, spots, to_index, verdict, Counts, Scale};
use mgpu::cpu::intervalmove::Source as CpuSource;
use mgpu::intervalmove::kernels;
use mgpu::intervalmove::{IntervalData, Source};
use mgpu::Sequence;
use mgpu::{Device, DeviceVec, Error, IntervalElement, IntervalIndex, Result};
use mgpu_testkit::Guarded;

/// Merge steps per tile of the expand and of move/gather/scatter on `dev`.
pub fn nv<D: Device, T: IntervalElement<I>, I>(dev: &D) -> (usize, usize) {
    (
        kernels::expand_nv::<T, I>(dev.arch()),
        kernels::move_nv::<T, I>(dev.arch()),
    )
}

/// A small valid expand gives the right result (the device is still usable).
pub fn usable<D: Device>(dev: &D) {
    let scan = DeviceVec::from_slice(dev, &[0u32, 1, 3, 4, 4, 8, 10, 13, 13]).unwrap();
    let vals = DeviceVec::from_slice(dev, &[0i32, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    let mut out = DeviceVec::<i32, D>::zeros(dev, 15).unwrap();
    let r = mgpu::intervalmove::interval_expand(
        scan.as_slice(),
        15,
        vals.as_slice().into(),
        out.as_mut_slice(),
    );
    assert_eq!(r, Ok(()), "the device is unusable after bad input");
    assert_eq!(
        out.to_vec().unwrap(),
        [0, 1, 1, 2, 4, 4, 4, 4, 5, 5, 6, 6, 6, 8, 8]
    );
}

/// Grows (`by > 0`, with zeros) or shrinks `v` by `by` elements; its new length.
fn resize<T: Clone + Default>(v: &mut Vec<T>, by: isize) -> usize {
    v.resize(v.len().checked_add_signed(by).unwrap(), T::default());
    v.len()
}

/// The calls of the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Expand,
    Naive,
    Gather,
    Scatter,
    Move,
}

/// One call's input: the scan and total, gather and scatter starts (one per interval
/// unless a case breaks that), expand values, the input array (or a generated sequence
/// with `seq`) and the output length.
#[derive(Clone)]
pub struct Input<T> {
    pub scan: Vec<u64>,
    pub total: usize,
    pub gather: Vec<u64>,
    pub scatter: Vec<u64>,
    pub values: Vec<T>,
    pub input: Vec<T>,
    pub seq: bool,
    pub out_len: usize,
}

/// Value `i` of the test data (`1 + i`, exact for every element type).
fn value<T: IntervalData + Sequence>(i: u64) -> T {
    <T as Sequence>::sequence(T::ONE, T::ONE, i)
}

impl<T: IntervalData + Sequence> Input<T> {
    /// A valid input for the counts of `b`: gather reads the intervals in reverse order
    /// from an input of `total`, move reads them in order, scatter stores them in reverse
    /// order into an output of `total`.
    pub fn new(b: &Counts) -> Input<T> {
        let t = b.total;
        let reversed: Vec<u64> = (0..b.n()).map(|k| t - b.scan[k] - b.counts[k]).collect();
        Input {
            scan: b.scan.clone(),
            total: t as usize,
            gather: reversed.clone(),
            scatter: reversed,
            values: (0..b.n() as u64).map(value).collect(),
            input: (0..t).map(value).collect(),
            seq: false,
            out_len: t as usize,
        }
    }
}

/// Runs `op` on `x` on the device (with a guarded output, guards checked after the call)
/// and on the CPU backend (`None` where it has no equivalent call: the expand and gather
/// take their total from the output there). Returns both results and outputs.
#[allow(clippy::type_complexity)]
pub fn run<D: Device, T, I: IntervalIndex>(
    dev: &D,
    case: &str,
    op: Op,
    x: &Input<T>,
) -> (Result<()>, Option<Result<()>>, Vec<T>, Vec<T>)
where
    T: IntervalData + IntervalElement<I> + Sequence,
{
    let (scan, gather, scatter): (Vec<I>, Vec<I>, Vec<I>) =
        (to_index(&x.scan), to_index(&x.gather), to_index(&x.scatter));
    let sd = DeviceVec::from_slice(dev, &scan).unwrap();
    let gd = DeviceVec::from_slice(dev, &gather).unwrap();
    let cd = DeviceVec::from_slice(dev, &scatter).unwrap();
    let vd = DeviceVec::from_slice(dev, &x.values).unwrap();
    let id = DeviceVec::from_slice(dev, &x.input).unwrap();
    fn src<T: IntervalData, D: Device>(seq: bool, a: &DeviceVec<T, D>) -> Source<'_, T, D> {
        if seq {
            Source::step(T::ONE, T::ONE)
        } else {
            a.as_slice().into()
        }
    }
    let mut out = Guarded::<T, D>::new(dev, x.out_len).unwrap();
    let (s, t) = (sd.as_slice(), x.total);
    use mgpu::intervalmove as im;
    let got = match op {
        Op::Expand => im::interval_expand_into(s, t, src(x.seq, &vd), out.slice()),
        Op::Naive => im::interval_expand_naive_into(s, t, src(x.seq, &vd), out.slice()),
        Op::Gather => im::interval_gather_into(s, t, gd.as_slice(), src(x.seq, &id), out.slice()),
        Op::Scatter => im::interval_scatter_into(s, t, cd.as_slice(), src(x.seq, &id), out.slice()),
        Op::Move => im::interval_move_into(
            s,
            t,
            gd.as_slice(),
            cd.as_slice(),
            src(x.seq, &id),
            out.slice(),
        ),
    }
    .and_then(|p| p.wait());
    out.check_guards(case);
    let dev_out = out.to_vec();

    fn csrc<T: IntervalData>(seq: bool, a: &[T]) -> CpuSource<'_, T> {
        if seq {
            CpuSource::Sequence {
                first: T::ONE,
                step: T::ONE,
            }
        } else {
            CpuSource::Array(a)
        }
    }
    let mut host = vec![mgpu_testkit::poison::<T>(); x.out_len];
    use mgpu::cpu::intervalmove as cm;
    let same_total = x.out_len == x.total;
    let cpu = match op {
        Op::Expand | Op::Naive => {
            same_total.then(|| cm::interval_expand(&scan, csrc(x.seq, &x.values), &mut host))
        }
        Op::Gather => same_total
            .then(|| cm::interval_gather(&scan, &gather, csrc(x.seq, &x.input), &mut host)),
        Op::Scatter => Some(cm::interval_scatter(
            &scan,
            t,
            &scatter,
            csrc(x.seq, &x.input),
            &mut host,
        )),
        Op::Move => Some(cm::interval_move(
            &scan,
            t,
            &gather,
            &scatter,
            csrc(x.seq, &x.input),
            &mut host,
        )),
    };
    (got, cpu, dev_out, host)
}

/// Runs `op` on `x`, expecting `want`'s variant on both backends; then checks the device.
pub fn expect<D: Device, T, I: IntervalIndex>(
    dev: &D,
    case: &str,
    op: Op,
    x: &Input<T>,
    want: &Error,
) where
    T: IntervalData + IntervalElement<I> + Sequence,
{
    let case = format!("interval {op:?} {}/{}: {case}", T::NAME, I::NAME);
    let (got, cpu, _, _) = run::<D, T, I>(dev, &case, op, x);
    verdict(&case, want, got, cpu);
    usable(dev);
}

/// Host checks: lengths that disagree, a total past `u32`, a total with no intervals, a
/// count sum past `u32` in the counts forms.
pub fn host_checks<D: Device>(dev: &D, _scale: Scale) {
    let b = Counts::new(2 * nv::<D, i32, u32>(dev).0, 21);
    let base = Input::<i32>::new(&b);
    let (n, t) = (b.n(), b.total as usize);
    let x = |f: &dyn Fn(&mut Input<i32>)| {
        let mut x = base.clone();
        f(&mut x);
        x
    };
    type Case<'a> = (&'a [Op], String, Input<i32>, Error);
    // Lengths that disagree with the scan (one per interval) or the total: (call, what,
    // by how much).
    let lengths: [(&[Op], &str, isize); 8] = [
        (&[Op::Expand], "values", -1),
        (&[Op::Naive], "values", 1),
        (&[Op::Expand], "output", 1),
        (&[Op::Gather], "output", -1),
        (&[Op::Gather], "gather starts", 1),
        (&[Op::Scatter], "scatter starts", -1),
        (&[Op::Scatter], "input", -1),
        (&[Op::Move], "scatter starts", 1),
    ];
    let mut cases: Vec<Case> = vec![];
    for (ops, part, by) in lengths {
        let mut input = base.clone();
        let (len, of) = match part {
            "values" => (resize(&mut input.values, by), format!("{n} intervals")),
            "gather starts" => (resize(&mut input.gather, by), format!("{n} intervals")),
            "scatter starts" => (resize(&mut input.scatter, by), format!("{n} intervals")),
            "input" => (resize(&mut input.input, by), format!("a total of {t}")),
            "output" => {
                input.out_len = input.out_len.checked_add_signed(by).unwrap();
                (input.out_len, format!("a total of {t}"))
            }
            _ => unreachable!("{part}"),
        };
        cases.push((ops, format!("{part} of {len} for {of}"), input, length()));
    }
    let more: [Case; 3] = [
        (
            &[Op::Expand, Op::Move],
            "a total of 2^32 for u32 indices (output of the real total)".into(),
            x(&|x| x.total = 1 << 32),
            overflow(),
        ),
        (
            &[Op::Scatter],
            "a total of 2^32 for u32 indices, generated input".into(),
            x(&|x| {
                x.total = 1 << 32;
                x.seq = true;
            }),
            overflow(),
        ),
        (
            &[Op::Expand, Op::Move],
            "a total of 3 with no intervals".into(),
            Input {
                scan: vec![],
                total: 3,
                gather: vec![],
                scatter: vec![],
                values: vec![],
                input: vec![1, 2, 3],
                seq: false,
                out_len: 3,
            },
            invalid(),
        ),
    ];
    cases.extend(more);
    for (ops, what, input, want) in cases {
        for &op in ops {
            expect::<D, i32, u32>(dev, &format!("{what}, n = {n}"), op, &input, &want);
        }
    }

    // The counts forms: a count sum past u32 (the scan's overflow check).
    let mut counts = vec![1u32; n];
    counts[n / 2] = u32::MAX - 7;
    let c = DeviceVec::from_slice(dev, &counts).unwrap();
    let g = DeviceVec::from_slice(dev, &vec![0u32; n]).unwrap();
    let mut out = Guarded::<i32, D>::new(dev, t).unwrap();
    for form in ["interval_expand_counts", "interval_move_counts"] {
        let case = format!("{form}: u32 count sum past MAX, n = {n}");
        let got = if form == "interval_expand_counts" {
            mgpu::intervalmove::interval_expand_counts(
                c.as_slice(),
                Source::counting(0),
                out.slice(),
            )
        } else {
            mgpu::intervalmove::interval_move_counts(
                c.as_slice(),
                g.as_slice(),
                g.as_slice(),
                Source::counting(0),
                out.slice(),
            )
        };
        out.check_guards(&case);
        // The CPU backend has no counts form: its count scan is the step that fails.
        let cpu = mgpu::cpu::scan_counts_exclusive(&counts, &mut vec![0; n]);
        verdict(&case, &overflow(), got, Some(cpu));
        usable(dev);
    }
}

/// Runs `op` on `x`, expecting both backends to accept it with equal outputs.
fn accept<D: Device, T, I: IntervalIndex>(dev: &D, case: &str, op: Op, x: &Input<T>)
where
    T: IntervalData + IntervalElement<I> + Sequence,
{
    let (got, cpu, d, c) = run::<D, T, I>(dev, case, op, x);
    assert_eq!(got, Ok(()), "{case}, {op:?}: device path");
    assert_eq!(cpu, Some(Ok(())), "{case}, {op:?}: CPU backend");
    assert!(d == c, "{case}, {op:?}: device and CPU disagree");
}

/// `base` with interval `k`'s gather start set to `at` (for the gather and move calls)
/// and with its scatter start set to `at` (for the scatter and move calls): (call, input,
/// which range).
fn past_ranges<T: Clone>(base: &Input<T>, k: usize, at: u64) -> [(Op, Input<T>, &'static str); 4] {
    let mut g = base.clone();
    g.gather[k] = at;
    let mut s = base.clone();
    s.scatter[k] = at;
    [
        (Op::Gather, g.clone(), "gather"),
        (Op::Move, g, "gather"),
        (Op::Scatter, s.clone(), "scatter"),
        (Op::Move, s, "scatter"),
    ]
}

/// Scans the kernels reject: `scan[0] != 0`, a dip (`scan[k]` one below `scan[k - 1]`)
/// and a total below the scan (crossing at object `k`) at each spot, for the
/// load-balanced expand, the naive expand and move (the move kernel also runs gather and
/// scatter, by mode bits); a start that is not 0 also for gather and scatter.
pub fn scan_faults<D: Device, T, I: IntervalIndex>(dev: &D, scale: Scale)
where
    T: IntervalData + IntervalElement<I> + Sequence,
{
    let (nve, nvm) = nv::<D, T, I>(dev);
    for steps in scale.sizes(nve) {
        let b = Counts::new(steps, steps as u64 + 1);
        let base = Input::<T>::new(&b);
        let n = b.n();
        for op in [Op::Expand, Op::Naive, Op::Gather, Op::Scatter, Op::Move] {
            // The unbroken input is accepted on both backends.
            accept::<D, T, I>(dev, &format!("valid input, n = {n}"), op, &base);
            let mut x = base.clone();
            x.scan[0] = 1;
            expect::<D, T, I>(dev, &format!("scan[0] = 1, n = {n}"), op, &x, &invalid());
        }
        for (place, d) in spots(b.steps(), nve) {
            let at = |k: usize, nv| {
                format!(
                    "object {k}, {place} (tile {} of {})",
                    b.tile(k, nv),
                    b.steps().div_ceil(nv)
                )
            };
            let k = b.near(b.object_at(d), |k| k > 0 && b.scan[k - 1] > 0);
            let mut dip = base.clone();
            dip.scan[k] = dip.scan[k - 1] - 1;
            let k2 = b.near(b.object_at(d), |k| k > 0 && b.counts[k - 1] > 0);
            // The expand's output has the (wrong) total's length; move keeps its input and
            // output (their lengths are free), so its ranges stay inside them.
            let mut past = base.clone();
            past.total = b.scan[k2] as usize - 1;
            for op in [Op::Expand, Op::Naive, Op::Move] {
                let nv = if op == Op::Move { nvm } else { nve };
                past.out_len = if op == Op::Move {
                    base.out_len
                } else {
                    past.total
                };
                expect::<D, T, I>(
                    dev,
                    &format!("scan dips by 1 at {}, n = {n}", at(k, nv)),
                    op,
                    &dip,
                    &invalid(),
                );
                expect::<D, T, I>(
                    dev,
                    &format!(
                        "total {} below the scan from {}, n = {n}",
                        past.total,
                        at(k2, nv)
                    ),
                    op,
                    &past,
                    &invalid(),
                );
            }
        }
    }
}

/// Gather and scatter ranges past their arrays, at each spot: interval `k`'s range ends one
/// past the input (gather) or the output (scatter); and starts of `I::MAX` in a middle
/// tile (the range wraps around the index type); and an interval three tiles long whose
/// range passes its array only at its last element. Gather for the gather and move calls,
/// scatter for the scatter and move calls. (Starts of `I::MAX` for an interval with no
/// elements are accepted by both backends.)
pub fn range_faults<D: Device, T, I: IntervalIndex>(dev: &D, scale: Scale)
where
    T: IntervalData + IntervalElement<I> + Sequence,
{
    let (_, nv) = nv::<D, T, I>(dev);
    for steps in scale.sizes(nv) {
        let b = Counts::new(steps, steps as u64 + 2);
        let base = Input::<T>::new(&b);
        let (n, t) = (b.n(), b.total);
        let tiles = b.steps().div_ceil(nv);
        let mut places: Vec<(String, usize, Option<u64>)> = spots(b.steps(), nv)
            .iter()
            .map(|&(place, d)| {
                let k = b.near(b.object_at(d), |k| b.counts[k] > 0);
                (
                    format!("{place}, object {k} (tile {} of {tiles})", b.tile(k, nv)),
                    k,
                    None,
                )
            })
            .collect();
        let k = places[2].1;
        places.push((
            format!("middle tile, object {k}, start I::MAX"),
            k,
            Some(mgpu::Index::to_u64(I::MAX)),
        ));
        // Not an error: starts far past the arrays for an interval with no elements.
        {
            let k = b.near(places[2].1, |k| b.counts[k] == 0);
            let mut x = base.clone();
            x.gather[k] = mgpu::Index::to_u64(I::MAX);
            x.scatter[k] = mgpu::Index::to_u64(I::MAX);
            for op in [Op::Gather, Op::Scatter, Op::Move] {
                let case = format!("empty interval {k} with starts I::MAX, n = {n}");
                accept::<D, T, I>(dev, &case, op, &x);
            }
        }
        for (place, k, start) in places {
            let past = start.unwrap_or(t - b.counts[k] + 1);
            for (op, x, what) in past_ranges(&base, k, past) {
                let case = format!(
                    "{what} range [{past}, +{}) past {t} at {place}, n = {n}",
                    b.counts[k]
                );
                expect::<D, T, I>(dev, &case, op, &x, &invalid());
            }
        }
        // An interval of 2 * nv + 3 elements (three tiles) in a middle tile whose range is
        // one past its array only at its last element: only the tile with its tail sees it.
        let mut counts = b.counts.clone();
        counts[k] = 2 * nv as u64 + 3;
        let long = Counts::from_counts(counts);
        let base = Input::<T>::new(&long);
        let (c, t) = (long.counts[k], long.total);
        for (op, x, what) in past_ranges(&base, k, t - c + 1) {
            let case = format!(
                "{what} range [{}, +{c}) of object {k} (tiles {} to {} of {}) one past {t} at its end, n = {n}",
                t - c + 1,
                long.tile(k, nv),
                (k + (long.scan[k] + c) as usize) / nv,
                long.steps().div_ceil(nv),
            );
            expect::<D, T, I>(dev, &case, op, &x, &invalid());
        }
    }
}

/// Overlapping scatter ranges, which the interval family documents as memory-safe with an
/// unspecified writer (`interval_move_into`: "each overlapped output element gets the
/// value of one of the intervals that write it, unspecified which"; the CPU backend copies
/// intervals in order, so the last writer wins there). Neither backend reports an error;
/// the test checks that, the guards, that every device output element holds the value of
/// one of its writers (untouched elements keep their poison), and that the CPU backend
/// holds the last writer's.
pub fn overlapping_scatter<D: Device, T, I: IntervalIndex>(dev: &D, scale: Scale)
where
    T: IntervalData + IntervalElement<I> + Sequence,
{
    let (_, nv) = nv::<D, T, I>(dev);
    for steps in scale.sizes(nv) {
        let b = Counts::new(steps, steps as u64 + 3);
        let mut x = Input::<T>::new(&b);
        let n = b.n();
        // Scatter in order; then two windows of 200 intervals: one spanning the boundary of
        // tiles 0 and 1 all stored at the same start, one in a middle tile each stored one
        // element after the previous interval's start.
        x.scatter = b.scan.clone();
        let k0 = b.object_at(nv).saturating_sub(100);
        for k in k0..k0 + 200 {
            x.scatter[k] = x.scatter[k0];
        }
        let k1 = b.object_at(spots(b.steps(), nv)[2].1);
        for k in k1 + 1..(k1 + 200).min(n) {
            x.scatter[k] = x.scatter[k - 1] + 1;
        }
        // Writers of each output element, in interval order.
        let mut writers: Vec<Vec<u64>> = vec![vec![]; x.out_len];
        let mut gx = x.clone();
        gx.gather = b.scan.clone(); // move: read each interval in order
        for (op, x) in [(Op::Scatter, &x), (Op::Move, &gx)] {
            for w in writers.iter_mut() {
                w.clear();
            }
            for k in 0..n {
                for r in 0..b.counts[k] {
                    let from = if op == Op::Move {
                        x.gather[k]
                    } else {
                        b.scan[k]
                    } + r;
                    writers[(x.scatter[k] + r) as usize].push(from);
                }
            }
            let case = format!(
                "interval {op:?} {}/{}: overlapping scatter ranges at objects {k0}.. and {k1}.., n = {n}",
                T::NAME,
                I::NAME
            );
            let (got, cpu, d, c) = run::<D, T, I>(dev, &case, op, x);
            assert_eq!(got, Ok(()), "{case}: device path");
            assert_eq!(cpu, Some(Ok(())), "{case}: CPU backend");
            let poison = mgpu_testkit::poison::<T>();
            let mut differ = 0;
            for (p, w) in writers.iter().enumerate() {
                let vals: Vec<T> = w.iter().map(|&i| x.input[i as usize]).collect();
                let last = vals.last().copied().unwrap_or(poison);
                assert!(
                    vals.contains(&d[p]) || (vals.is_empty() && d[p] == poison),
                    "{case}: device output {p} is {:?}, not one of its writers {vals:?}",
                    d[p]
                );
                assert!(
                    c[p] == last,
                    "{case}: CPU output {p} is not the last writer"
                );
                differ += (d[p] != c[p]) as usize;
            }
            println!(
                "overlap | {case} | Ok on both | {} elements with 2+ writers, {differ} differ between device and CPU",
                writers.iter().filter(|w| w.len() > 1).count()
            );
            usable(dev);
        }
    }
}
