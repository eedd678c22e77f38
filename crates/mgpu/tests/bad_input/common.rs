//! What every family's cases share: sizes and fault positions, inputs, and the verdict
//! (both backends fail with the expected variant and the same text).

use mgpu::Error;
use mgpu_testkit::Rng;
use std::mem::discriminant;

/// Which device a test text runs on: the simulator keeps to one size of a few tiles, the
/// GPU adds larger sizes (capped by `MGPU_TEST_MAX_LEN` under the sanitizers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Sim,
    Gpu,
}

impl Scale {
    /// Sizes (merge steps or elements) for tiles of `nv`: three and a half tiles (so the
    /// last tile is partial) everywhere; on the GPU also about 6 * 10^4 and 10^6, as far as
    /// the sanitizer cap allows.
    pub fn sizes(self, nv: usize) -> Vec<usize> {
        let few = 3 * nv + nv / 2;
        let mut v = vec![few];
        if self == Scale::Gpu {
            v.extend(
                mgpu_testkit::sizes(&[60_013, 1_000_003])
                    .into_iter()
                    .filter(|&s| s > few),
            );
        }
        v
    }
}

/// Where a fault goes in an input of `len` positions (merge steps, source positions or
/// outputs) cut into tiles of `nv`: inside the first tile, at the first position of tile 1
/// (the boundary of tiles 0 and 1), inside a middle tile, and in the last (partial) tile.
pub fn spots(len: usize, nv: usize) -> [(&'static str, usize); 4] {
    let tiles = len.div_ceil(nv);
    [
        ("first tile", nv / 3),
        ("tile 0|1 boundary", nv),
        ("middle tile", tiles / 2 * nv + nv / 2),
        ("last tile", len - 2),
    ]
}

/// Interval or object counts (0 to 4, mean 2, a run of zeros every few hundred) whose
/// objects and work items make about `steps` merge steps; with their exclusive scan and
/// total.
pub struct Counts {
    pub counts: Vec<u64>,
    pub scan: Vec<u64>,
    pub total: u64,
}

impl Counts {
    pub fn new(steps: usize, seed: u64) -> Counts {
        let mut rng = Rng::new(seed);
        // The first count is 2, so that `scan[0] = 1` alone is a scan that does not start
        // at 0 (still non-decreasing).
        let counts: Vec<u64> = (0..steps / 3)
            .map(|i| match i {
                0 => 2,
                _ if i % 400 >= 390 => 0,
                _ => rng.below(5),
            })
            .collect();
        Counts::from_counts(counts)
    }

    pub fn from_counts(counts: Vec<u64>) -> Counts {
        let mut scan = Vec::with_capacity(counts.len());
        let mut total = 0;
        for &c in &counts {
            scan.push(total);
            total += c;
        }
        Counts {
            counts,
            scan,
            total,
        }
    }

    pub fn n(&self) -> usize {
        self.scan.len()
    }

    pub fn steps(&self) -> usize {
        self.n() + self.total as usize
    }

    /// The object whose merge-path position (`k + scan[k]`) is the last at or before `d`.
    pub fn object_at(&self, d: usize) -> usize {
        let k = partition_point(self.n(), |k| k + self.scan[k] as usize <= d);
        k.saturating_sub(1)
    }

    /// The first object from `k` on (else the last before it) that satisfies `ok`.
    pub fn near(&self, k: usize, ok: impl Fn(usize) -> bool) -> usize {
        (k..self.n())
            .chain((0..k).rev())
            .find(|&j| ok(j))
            .expect("some object qualifies")
    }

    /// The tile (of `nv` merge steps) that object `k` starts in.
    pub fn tile(&self, k: usize, nv: usize) -> usize {
        (k + self.scan[k] as usize) / nv
    }
}

/// The first `k < n` where `pred` turns false (`pred` true, then false, over `0..n`).
pub fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A value of each variant, to compare discriminants with.
pub fn length() -> Error {
    Error::LengthMismatch {
        what: "",
        expected: 0,
        got: 0,
    }
}

pub fn overflow() -> Error {
    Error::IndexOverflow { what: "", max: 0 }
}

pub fn invalid() -> Error {
    Error::InvalidInput(String::new())
}

pub fn variant(e: &Error) -> &'static str {
    match e {
        Error::NoDevice(_) => "NoDevice",
        Error::ContextLost(_) => "ContextLost",
        Error::Cuda(_) => "Cuda",
        Error::OutOfMemory { .. } => "OutOfMemory",
        Error::LengthMismatch { .. } => "LengthMismatch",
        Error::IndexOverflow { .. } => "IndexOverflow",
        Error::InvalidInput(_) => "InvalidInput",
    }
}

fn verdict_of<A>(r: &Result<A, Error>) -> String {
    match r {
        Ok(_) => "Ok (accepted)".to_string(),
        Err(e) => format!("{} ({e})", variant(e)),
    }
}

/// One case's verdict: the device path (`dev`: simulator or CUDA) and the CPU backend
/// (`cpu`, `None` where it has no equivalent call) must both fail with `want`'s variant
/// and the same text. Prints one line per case: the variant and the message.
pub fn verdict<A, B>(
    case: &str,
    want: &Error,
    dev: Result<A, Error>,
    cpu: Option<Result<B, Error>>,
) {
    let dev_ok = matches!(&dev, Err(e) if discriminant(e) == discriminant(want));
    let cpu_ok = match &cpu {
        None => true,
        Some(r) => matches!(r, Err(e) if discriminant(e) == discriminant(want)),
    };
    let cpu_text = cpu
        .as_ref()
        .map_or("no equivalent call".to_string(), verdict_of);
    assert!(
        dev_ok && cpu_ok,
        "{case}: want {} on both; device path: {}; CPU backend: {cpu_text}",
        variant(want),
        verdict_of(&dev),
    );
    let d = dev.err().expect("checked").to_string();
    if let Some(Err(c)) = &cpu {
        assert_eq!(
            c.to_string(),
            d,
            "{case}: the device path and the CPU backend give different texts"
        );
    }
    println!(
        "bad input | {case} | {} | \"{d}\" | {}",
        variant(want),
        if cpu.is_some() {
            "same on the CPU backend"
        } else {
            "no CPU equivalent"
        }
    );
}

/// `v` as indices of type `I` (wrapping: callers pass values that fit, or mean to wrap).
pub fn to_index<I: mgpu::Index>(v: &[u64]) -> Vec<I> {
    v.iter().map(|&x| I::from_u64_wrapping(x)).collect()
}
