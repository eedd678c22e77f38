//! Where one instance of a suite runs, its size budget, and the macros that instantiate a
//! suite once per backend.

use mgpu_runtime::{Arch, Context, Simulator};
use std::time::Instant;

/// The backend one instance of a test runs on, and so how large its inputs may be.
///
/// A suite's checks are written once, as functions that take the backend (a `&Backend`
/// of the facade, or a `&D` for `D: Device`) and its `Target`; [`backend_tests!`] and
/// [`device_tests!`](crate::device_tests) make one `#[test]` per check and target. The
/// checks ask the target for their sizes ([`Target::sizes`], [`Target::cap`]): the
/// simulator runs the edge cases and a few tiles, the CPU backend a million elements, a
/// CUDA GPU everything up to 10^8, and every target stays under the sanitizer cap
/// ([`max_len`](crate::max_len)).
///
/// # Examples
///
/// ```
/// use mgpu_testkit::Target;
/// let sizes = [0, 1, 895, 896, 897, 1_000_003, 100_000_000];
/// assert_eq!(Target::Simulator.sizes(&sizes), [0, 1, 895, 896, 897]);
/// if !mgpu_testkit::capped() {
///     assert_eq!(Target::Cpu.sizes(&sizes).len(), 6);
///     assert_eq!(Target::Cuda.sizes(&sizes).len(), 7);
/// }
/// assert!(Target::SimulatorSm70.is_simulator() && !Target::Cuda.is_simulator());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The CPU backend (`mgpu-cpu`, on rayon).
    Cpu,
    /// The CTA simulator with the sm_90 tuning (`Simulator::new()`).
    Simulator,
    /// The CTA simulator with the sm_70 tuning (`Simulator::with_arch(Arch::Sm70)`).
    SimulatorSm70,
    /// CUDA device 0 (its tests are `#[ignore = "needs a CUDA GPU"]`).
    Cuda,
}

/// The largest input a simulator instance uses: the edge cases and a few tiles.
pub const SIMULATOR_BUDGET: usize = 16_384;
/// The largest input a CPU-backend instance uses: 2^20, a million elements and a bit.
pub const CPU_BUDGET: usize = 1 << 20;

impl Target {
    /// Every target, in the order the macros instantiate them.
    ///
    /// ```
    /// assert_eq!(mgpu_testkit::Target::ALL.len(), 4);
    /// ```
    pub const ALL: [Target; 4] = [
        Target::Cpu,
        Target::Simulator,
        Target::SimulatorSm70,
        Target::Cuda,
    ];

    /// The largest input size an instance on this target uses, before the sanitizer cap:
    /// [`SIMULATOR_BUDGET`], [`CPU_BUDGET`], or no limit on CUDA.
    ///
    /// ```
    /// use mgpu_testkit::Target;
    /// assert!(Target::Simulator.budget() < Target::Cpu.budget());
    /// assert_eq!(Target::Cuda.budget(), usize::MAX);
    /// ```
    pub const fn budget(self) -> usize {
        match self {
            Target::Cpu => CPU_BUDGET,
            Target::Simulator | Target::SimulatorSm70 => SIMULATOR_BUDGET,
            Target::Cuda => usize::MAX,
        }
    }

    /// The sizes of `all` within this target's budget and the sanitizer cap, in order
    /// (every edge case stays, the large sizes go).
    ///
    /// ```
    /// use mgpu_testkit::Target;
    /// assert_eq!(Target::SimulatorSm70.sizes(&[5, 0, 1 << 20]), [5, 0]);
    /// ```
    pub fn sizes(self, all: &[usize]) -> Vec<usize> {
        let max = self.budget().min(crate::max_len());
        all.iter().copied().filter(|&n| n <= max).collect()
    }

    /// `n`, or this target's budget (and the sanitizer cap) where that is smaller.
    ///
    /// ```
    /// use mgpu_testkit::Target;
    /// assert_eq!(Target::Simulator.cap(10_000_000), mgpu_testkit::SIMULATOR_BUDGET);
    /// assert_eq!(Target::Simulator.cap(7), 7);
    /// ```
    pub fn cap(self, n: usize) -> usize {
        n.min(self.budget()).min(crate::max_len())
    }

    /// `n`, or at most a `parts`-th of [`Target::cap`]'s limit: one of `parts` pieces of
    /// an input that must fit under the budget together.
    ///
    /// ```
    /// use mgpu_testkit::Target;
    /// assert_eq!(Target::Simulator.cap_share(1_000_000, 4), mgpu_testkit::SIMULATOR_BUDGET / 4);
    /// assert_eq!(Target::Simulator.cap_share(10, 4), 10);
    /// ```
    pub fn cap_share(self, n: usize, parts: usize) -> usize {
        n.min(self.budget().min(crate::max_len()) / parts)
    }

    /// Whether this is one of the simulator targets.
    ///
    /// ```
    /// assert!(mgpu_testkit::Target::Simulator.is_simulator());
    /// ```
    pub const fn is_simulator(self) -> bool {
        matches!(self, Target::Simulator | Target::SimulatorSm70)
    }

    /// The architecture whose tuning the kernels use on this target: sm_70 for
    /// [`Target::SimulatorSm70`], sm_90 for the other simulator, `None` on the CPU and on
    /// CUDA (where the device decides).
    ///
    /// ```
    /// use mgpu_testkit::Target;
    /// assert_eq!(Target::SimulatorSm70.arch(), Some(mgpu_runtime::Arch::Sm70));
    /// assert_eq!(Target::Cpu.arch(), None);
    /// ```
    pub const fn arch(self) -> Option<Arch> {
        match self {
            Target::Simulator => Some(Arch::Sm90),
            Target::SimulatorSm70 => Some(Arch::Sm70),
            Target::Cpu | Target::Cuda => None,
        }
    }

    /// The simulator of this target: `Simulator::new()` or `Simulator::with_arch(Sm70)`.
    /// Panics on the CPU and CUDA targets.
    ///
    /// ```
    /// use mgpu_runtime::{Arch, Device};
    /// use mgpu_testkit::Target;
    /// assert_eq!(Target::SimulatorSm70.simulator().arch(), Arch::Sm70);
    /// ```
    pub fn simulator(self) -> Simulator {
        match self {
            Target::Simulator => Simulator::new(),
            Target::SimulatorSm70 => Simulator::with_arch(Arch::Sm70),
            _ => panic!("{self:?} is not a simulator target"),
        }
    }

    /// CUDA device 0; panics with "needs a CUDA GPU" without one (the CUDA instances are
    /// ignored in `cargo test`).
    ///
    /// ```no_run
    /// let ctx = mgpu_testkit::Target::cuda();
    /// ```
    pub fn cuda() -> Context {
        Context::new(0).expect("needs a CUDA GPU")
    }

    /// Runs `f` and returns its result; on CUDA, runs it twice (the first call JIT-loads
    /// the kernels' module) and prints the second call's wall time, labelled with `what`
    /// and the size `n`. `f` must synchronise (the facade's calls do).
    ///
    /// ```
    /// use mgpu_testkit::Target;
    /// let mut calls = 0;
    /// assert_eq!(Target::Cpu.timed("count", 1, || { calls += 1; calls }), 1);
    /// ```
    pub fn timed<R>(self, what: &str, n: usize, mut f: impl FnMut() -> R) -> R {
        if self != Target::Cuda {
            return f();
        }
        drop(f());
        let t = Instant::now();
        let r = f();
        println!(
            "{what:<40} n = {n:>11}  {:>10.1} us",
            t.elapsed().as_secs_f64() * 1e6
        );
        r
    }
}

/// One `#[test]` per check and backend of the facade: a module `cpu` (the CPU backend),
/// `simulator` (the CTA simulator, sm_90 tuning), `simulator_sm70` (sm_70 tuning) and
/// `cuda` (CUDA device 0, every test `#[ignore = "needs a CUDA GPU"]`), each with one test
/// per listed check. A check is a function `fn(&mgpu::Backend, Target)`: `name` calls the
/// function `name` of the enclosing module; `name = expr` calls `expr` (a generic
/// instance, say `scan_ints::<i32>`, found through the enclosing module's items).
///
/// The calling crate needs the facade `mgpu` (a dev-dependency); the macro names
/// `::mgpu::Backend` and leaves the test kit free of it.
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// use mgpu_testkit::Target;
///
/// fn round_trip(b: &Backend, t: Target) {
///     for n in t.sizes(&[0, 1, 1000]) {
///         let x: Vec<u32> = (0..n as u32).collect();
///         assert_eq!(b.upload(&x).unwrap().to_vec().unwrap(), x);
///     }
/// }
/// fn zeros<T: mgpu::Element + PartialEq + std::fmt::Debug>(b: &Backend, _: Target) {
///     assert_eq!(b.zeros::<T>(3).unwrap().to_vec().unwrap(), [T::ZERO; 3]);
/// }
///
/// // Tests `cpu::round_trip`, `simulator::round_trip`, ..., `cuda::zeros_f64`.
/// mgpu_testkit::backend_tests! {
///     round_trip,
///     zeros_f64 = zeros::<f64>,
/// }
/// # fn main() {
/// // What `cpu::round_trip` and `simulator_sm70::zeros_f64` run:
/// round_trip(&Backend::cpu(), Target::Cpu);
/// zeros::<f64>(&Backend::from(Target::SimulatorSm70.simulator()), Target::SimulatorSm70);
/// # }
/// ```
#[macro_export]
macro_rules! backend_tests {
    ($($test:ident $(= $check:expr)?),* $(,)?) => {
        $crate::backend_tests!(@target cpu, Cpu, ::mgpu::Backend::cpu(), cfg(all());
            $($test $(= $check)?),*);
        $crate::backend_tests!(@target simulator, Simulator, ::mgpu::Backend::simulator(),
            cfg(all()); $($test $(= $check)?),*);
        $crate::backend_tests!(@target simulator_sm70, SimulatorSm70,
            ::mgpu::Backend::from($crate::Target::SimulatorSm70.simulator()), cfg(all());
            $($test $(= $check)?),*);
        $crate::backend_tests!(@target cuda, Cuda,
            ::mgpu::Backend::from($crate::Target::cuda()), ignore = "needs a CUDA GPU";
            $($test $(= $check)?),*);
    };
    // `cfg(all())` is the no-op attribute of the targets that run in `cargo test`.
    (@target $module:ident, $target:ident, $make:expr, $attr:meta;
        $($test:ident $(= $check:expr)?),*) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                #[$attr]
                fn $test() {
                    let backend = $make;
                    $crate::__call_check!(backend, $crate::Target::$target, $test $(= $check)?);
                }
            )*
        }
    };
}

/// One `#[test]` per check and device of the family crates' own launchers: a module
/// `simulator` (`Simulator::new()`, sm_90 tuning), `simulator_sm70`
/// (`Simulator::with_arch(Arch::Sm70)`) and `cuda` (`Context::new(0)`, every test
/// `#[ignore = "needs a CUDA GPU"]`), each with one test per listed check. A check is a
/// generic function `fn<D: mgpu_runtime::Device>(&D, Target)`; `name` calls the function
/// `name` of the enclosing module, `name = expr` calls `expr`.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Device, DeviceVec};
/// use mgpu_testkit::Target;
///
/// fn round_trip<D: Device>(dev: &D, t: Target) {
///     let x: Vec<u64> = (0..t.cap(5000) as u64).collect();
///     assert_eq!(DeviceVec::from_slice(dev, &x).unwrap().to_vec().unwrap(), x);
/// }
///
/// // Tests `simulator::round_trip`, `simulator_sm70::round_trip`, `cuda::round_trip`.
/// mgpu_testkit::device_tests! { round_trip }
/// # fn main() {
/// // What `simulator_sm70::round_trip` runs:
/// round_trip(&Target::SimulatorSm70.simulator(), Target::SimulatorSm70);
/// # }
/// ```
#[macro_export]
macro_rules! device_tests {
    ($($test:ident $(= $check:expr)?),* $(,)?) => {
        $crate::device_tests!(@target simulator, Simulator, cfg(all()); $($test $(= $check)?),*);
        $crate::device_tests!(@target simulator_sm70, SimulatorSm70, cfg(all());
            $($test $(= $check)?),*);
        mod cuda {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                #[ignore = "needs a CUDA GPU"]
                fn $test() {
                    let dev = $crate::Target::cuda();
                    $crate::__call_check!(dev, $crate::Target::Cuda, $test $(= $check)?);
                }
            )*
        }
    };
    (@target $module:ident, $target:ident, $attr:meta; $($test:ident $(= $check:expr)?),*) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                #[$attr]
                fn $test() {
                    let dev = $crate::Target::$target.simulator();
                    $crate::__call_check!(dev, $crate::Target::$target, $test $(= $check)?);
                }
            )*
        }
    };
}

/// The call of one check inside [`backend_tests!`] and [`device_tests!`]: `super::name`
/// (the test function of the same name shadows the check inside the generated module), or
/// the given expression.
#[doc(hidden)]
#[macro_export]
macro_rules! __call_check {
    ($on:ident, $target:expr, $test:ident) => {
        super::$test(&$on, $target)
    };
    ($on:ident, $target:expr, $test:ident = $check:expr) => {
        ($check)(&$on, $target)
    };
}
