//! Kernels as types: a body generic over [`Cta`], an entry name, a module, a launch shape.

use crate::Cta;

/// The architectures the committed PTX is built for; each has its own tuning table.
///
/// # Examples
///
/// ```
/// use mgpu_core::Arch;
/// assert_eq!(Arch::for_compute_capability(9, 0), Some(Arch::Sm90));
/// assert_eq!(Arch::for_compute_capability(8, 6), Some(Arch::Sm70));
/// assert_eq!(Arch::for_compute_capability(6, 1), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Volta and later, for portability (PTX ISA 7.0).
    Sm70,
    /// Hopper and later (PTX ISA 7.8).
    Sm90,
}

impl Arch {
    /// The PTX built for a device of compute capability `major.minor`: sm_90 for 9.0 and
    /// later, sm_70 for 7.0 to 8.x, none before Volta.
    pub fn for_compute_capability(major: u32, minor: u32) -> Option<Arch> {
        let cc = major * 10 + minor;
        if cc >= 90 {
            Some(Arch::Sm90)
        } else if cc >= 70 {
            Some(Arch::Sm70)
        } else {
            None
        }
    }

    /// The architecture this crate is being compiled for: the PTX build of each
    /// architecture sets `--cfg mgpu_arch="sm_70"` or `"sm_90"` (`cargo xtask ptx`), so an
    /// entry point instantiated at `TARGET` gets that architecture's shape; sm_90 on the
    /// host.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(mgpu_core::Arch::TARGET, mgpu_core::Arch::Sm90); // on the host
    /// ```
    #[cfg(mgpu_arch = "sm_70")]
    pub const TARGET: Arch = Arch::Sm70;
    /// The architecture this crate is being compiled for: the PTX build of each
    /// architecture sets `--cfg mgpu_arch="sm_70"` or `"sm_90"` (`cargo xtask ptx`), so an
    /// entry point instantiated at `TARGET` gets that architecture's shape; sm_90 on the
    /// host.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(mgpu_core::Arch::TARGET, mgpu_core::Arch::Sm90); // on the host
    /// ```
    #[cfg(not(mgpu_arch = "sm_70"))]
    pub const TARGET: Arch = Arch::Sm90;

    /// The lowest compute capability whose devices run this architecture's PTX: 7.0 or
    /// 9.0.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::Arch;
    /// assert_eq!(Arch::Sm70.compute_capability(), (7, 0));
    /// let (major, minor) = Arch::Sm90.compute_capability();
    /// assert_eq!(Arch::for_compute_capability(major, minor), Some(Arch::Sm90));
    /// ```
    pub fn compute_capability(self) -> (u32, u32) {
        match self {
            Arch::Sm70 => (7, 0),
            Arch::Sm90 => (9, 0),
        }
    }

    /// `"sm_70"` or `"sm_90"`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm70 => "sm_70",
            Arch::Sm90 => "sm_90",
        }
    }
}

/// A kernel: its body (run by every thread of every CTA), the PTX module (algorithm
/// family) and entry point that hold its compiled form, and its launch shape (`NT`, `VT`,
/// `NV`, shared memory, CTAs per SM), so the host never recomputes them.
///
/// `Args` is a `#[repr(C)]` `Copy` struct of scalars and raw pointers, passed by value as
/// the entry point's single parameter. Implementations are generated per instantiation;
/// [`kernel_entry!`](crate::kernel_entry) makes the nvptx entry point of one.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, Kernel};
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Args { out: *mut u32 }
/// struct Iota;
/// impl Kernel for Iota {
///     type Args = Args;
///     const MODULE: &'static str = "demo";
///     const ENTRY: &'static str = "demo_iota";
///     const NT: u32 = 32;
///     const VT: u32 = 1;
///     const SHARED_BYTES: u32 = 0;
///     fn body<C: Cta>(cta: &C, a: &Args) {
///         let i = cta.block() * C::nt(cta) + cta.tid();
///         unsafe { *a.out.add(i as usize) = i };
///     }
/// }
/// let mut v = vec![0u32; 64];
/// let a = Args { out: v.as_mut_ptr() };
/// sim::launch_kernel::<Iota>(2, &a);
/// assert_eq!(v[63], 63);
/// ```
pub trait Kernel {
    /// The single by-value parameter of the entry point.
    type Args: Copy + 'static;
    /// The PTX module (algorithm family) that holds the entry point, e.g. `"scan"`.
    const MODULE: &'static str;
    /// The entry point's name, `<family>_<kernel>_<types>_<op>`.
    const ENTRY: &'static str;
    /// Threads per CTA.
    const NT: u32;
    /// Values per thread (what a value is, the kernel's tuning says: elements, merge
    /// steps, outputs); 1 for kernels that are not tiled.
    const VT: u32;
    /// Values per tile, `NT * VT`: the host sizes its grid and partitions by it.
    const NV: u32 = Self::NT * Self::VT;
    /// Dynamic shared memory per CTA in bytes.
    const SHARED_BYTES: u32;
    /// CTAs per SM the kernel is tuned to fit: with `NT` it becomes the entry's
    /// `.maxntid NT, 1, 1` and `.minnctapersm` directives, which bound its registers.
    const MIN_CTAS_PER_SM: u32 = 1;
    /// The body every thread runs.
    fn body<C: Cta>(cta: &C, args: &Self::Args);
}

/// Instantiates the `extern "ptx-kernel"` entry point of a [`Kernel`] on nvptx64:
/// `kernel_entry!(scan_tile_i32_plus, ScanTile<i32, Plus, Sm90>);`. The entry's single
/// parameter is the kernel's `Args`, by value. Its body starts with a comment
/// `// mgpu-launch-bounds NT CTAS` that `cargo xtask ptx` turns into `.maxntid` and
/// `.minnctapersm` directives (rustc has no attribute for them). Expands to nothing on the
/// host.
#[macro_export]
macro_rules! kernel_entry {
    ($name:ident, $k:ty) => {
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(args: <$k as $crate::Kernel>::Args) {
            // A marker `cargo xtask ptx` turns into the entry's performance directives.
            ::core::arch::asm!(
                "// mgpu-launch-bounds {nt} {ctas}",
                nt = const <$k as $crate::Kernel>::NT,
                ctas = const <$k as $crate::Kernel>::MIN_CTAS_PER_SM,
                options(nomem, nostack, preserves_flags)
            );
            <$k as $crate::Kernel>::body(&$crate::__private::NvptxCta::new(), &args)
        }
    };
}
