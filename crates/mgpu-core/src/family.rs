//! The family kit: what every kernel family (algorithm crate) declares its kernels with.
//!
//! A family writes, in its `kernels.rs`:
//!
//! 1. one [`Tuning`] per kernel (its launch shape on each architecture and value width,
//!    and the threads per SM it is built to fit);
//! 2. its kernel types with [`kernel_type!`](crate::kernel_type) (a struct generic over its
//!    types, `NT` and `VT`, and the [`Kernel`](crate::Kernel) impl that calls the body in
//!    `device.rs`), or [`kernel_impl!`](crate::kernel_impl) for a kernel written by hand,
//!    and its kernel set with [`kernel_set!`](crate::kernel_set);
//! 3. one instance list (`for_each_<family>_instance!`) from which the nvptx entry points
//!    ([`kernel_entry!`](crate::kernel_entry) with [`tuned!`](crate::tuned) at
//!    [`Arch::TARGET`]) and, on the host, the [`EntryName`] impls and the family's kernel
//!    sets (an associated type `Sm70` and `Sm90` per instance) are generated;
//! 4. its host launchers pick the set of the device's architecture with
//!    [`by_arch!`](crate::by_arch), the one place that matches on an [`Arch`].
//!
//! `docs/architecture.md` ("Adding a family") walks through the files in order.

use crate::Arch;

/// One architecture's launch shape of a kernel: threads per CTA and values per thread,
/// the latter for 4-byte and 8-byte value types.
///
/// A *value* is what the kernel's tuning documents it as (elements of the input, merge
/// steps, outputs); its *width* is the size in bytes of the type named there (the element
/// type for scan and bulk, the index type for the load-balancing search).
///
/// # Examples
///
/// ```
/// use mgpu_core::Shape;
/// let s = Shape { nt: 128, vt4: 15, vt8: 7 };
/// assert_eq!((s.vt(4), s.vt(8), s.nv(8)), (15, 7, 896));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Threads per CTA.
    pub nt: usize,
    /// Values per thread for 4-byte values.
    pub vt4: usize,
    /// Values per thread for 8-byte values.
    pub vt8: usize,
}

impl Shape {
    /// `nt` threads of `vt` values for every width.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(mgpu_core::Shape::uniform(128, 7).vt(8), 7);
    /// ```
    pub const fn uniform(nt: usize, vt: usize) -> Shape {
        Shape {
            nt,
            vt4: vt,
            vt8: vt,
        }
    }

    /// Values per thread for values of `bytes` bytes (4 or less: `vt4`, else `vt8`).
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(mgpu_core::Shape { nt: 256, vt4: 11, vt8: 5 }.vt(8), 5);
    /// ```
    pub const fn vt(&self, bytes: usize) -> usize {
        if bytes <= 4 {
            self.vt4
        } else {
            self.vt8
        }
    }

    /// Values per tile (`nt * vt`) for values of `bytes` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(mgpu_core::Shape { nt: 256, vt4: 11, vt8: 5 }.nv(4), 2816);
    /// ```
    pub const fn nv(&self, bytes: usize) -> usize {
        self.nt * self.vt(bytes)
    }
}

/// A kernel's tuning table: its [`Shape`] per architecture, and the threads per SM it is
/// built to fit (`.minnctapersm` = threads per SM / `NT`, which bounds its registers) per
/// value width. The one tuning type of every family (CUB's tuning policies, moderngpu's
/// launch box), fixed in the committed PTX.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Arch, Shape, Tuning};
/// const T: Tuning = Tuning {
///     sm70: Shape { nt: 128, vt4: 7, vt8: 7 },
///     sm90: Shape { nt: 128, vt4: 23, vt8: 7 },
///     threads_per_sm4: 1536,
///     threads_per_sm8: 1024,
/// };
/// assert_eq!(T.shape(Arch::Sm90).nv(4), 128 * 23);
/// assert_eq!((T.min_ctas_per_sm(4, 128), T.min_ctas_per_sm(8, 128)), (12, 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// The shape on Volta to Ada (sm_70 PTX).
    pub sm70: Shape,
    /// The shape on Hopper and later (sm_90 PTX).
    pub sm90: Shape,
    /// Threads per SM the kernel is built to fit for 4-byte values.
    pub threads_per_sm4: usize,
    /// Threads per SM the kernel is built to fit for 8-byte values.
    pub threads_per_sm8: usize,
}

impl Tuning {
    /// The same shape on both architectures, built to fit `threads_per_sm` threads per SM
    /// for every width.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{Arch, Shape, Tuning};
    /// let t = Tuning::uniform(Shape::uniform(128, 7), 1536);
    /// assert_eq!(t.shape(Arch::Sm70), t.shape(Arch::Sm90));
    /// ```
    pub const fn uniform(shape: Shape, threads_per_sm: usize) -> Tuning {
        Tuning {
            sm70: shape,
            sm90: shape,
            threads_per_sm4: threads_per_sm,
            threads_per_sm8: threads_per_sm,
        }
    }

    /// The same shapes, built to fit `threads_per_sm` threads per SM for every width (a
    /// kernel that shares another's tiles but not its register budget).
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{Shape, Tuning};
    /// let t = Tuning::uniform(Shape::uniform(256, 7), 1536).fitting(2048);
    /// assert_eq!(t.min_ctas_per_sm(8, 256), 8);
    /// ```
    pub const fn fitting(self, threads_per_sm: usize) -> Tuning {
        Tuning {
            threads_per_sm4: threads_per_sm,
            threads_per_sm8: threads_per_sm,
            ..self
        }
    }

    /// The shape on `arch`.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{Arch, Shape, Tuning};
    /// let t = Tuning::uniform(Shape::uniform(128, 7), 1536);
    /// assert_eq!(t.shape(Arch::Sm90).nt, 128);
    /// ```
    pub const fn shape(&self, arch: Arch) -> Shape {
        match arch {
            Arch::Sm70 => self.sm70,
            Arch::Sm90 => self.sm90,
        }
    }

    /// `.minnctapersm` of an instance of `nt` threads for values of `bytes` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu_core::{Shape, Tuning};
    /// assert_eq!(Tuning::uniform(Shape::uniform(256, 7), 1536).min_ctas_per_sm(4, 256), 6);
    /// ```
    pub const fn min_ctas_per_sm(&self, bytes: usize, nt: usize) -> u32 {
        let threads = if bytes <= 4 {
            self.threads_per_sm4
        } else {
            self.threads_per_sm8
        };
        (threads / nt) as u32
    }
}

/// The entry-point name of a kernel instantiation, `<family>_<kernel>_<types>`:
/// implemented by each family's instance list (so the host can only name entries the PTX
/// has), read by [`kernel_type!`](crate::kernel_type) as the kernel's
/// [`Kernel::ENTRY`](crate::Kernel::ENTRY).
///
/// # Examples
///
/// ```
/// use mgpu_core::EntryName;
/// struct MyKernel;
/// impl EntryName for MyKernel {
///     const NAME: &'static str = "demo_kernel_u32";
/// }
/// assert_eq!(MyKernel::NAME, "demo_kernel_u32");
/// ```
pub trait EntryName {
    /// The entry point's name.
    const NAME: &'static str;
}

/// Declares a tiled kernel type and its [`Kernel`](crate::Kernel) impl: a struct generic
/// over the listed type parameters plus `const NT: usize, const VT: usize` (appended), whose
/// body calls `body::<C, params.., NT, VT>(cta, args)` (an `unsafe fn` of the family's
/// `device.rs` whose safety contract the host launcher meets), whose entry name is its
/// [`EntryName`](crate::EntryName) and whose `.minnctapersm` comes from its
/// [`Tuning`](crate::Tuning) for values of `width` bytes. `shared` may use `NT`, `VT` and
/// the type parameters.
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, Element, EntryName, Kernel, Shape, Tuning};
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// pub struct Args<T> { out: *mut T }
/// const FILL: Tuning = Tuning::uniform(Shape::uniform(32, 2), 1024);
/// /// Writes zero into every slot of each CTA's `NT * VT` values.
/// unsafe fn fill<C: Cta, T: Element, const NT: usize, const VT: usize>(cta: &C, a: &Args<T>) {
///     for j in 0..VT {
///         let i = cta.block() as usize * NT * VT + j * NT + cta.tid() as usize;
///         unsafe { *a.out.add(i) = T::ZERO };
///     }
/// }
/// mgpu_core::kernel_type! {
///     /// The fill kernel.
///     pub struct Fill<T: Element>;
///     args: Args<T>,
///     module: "demo",
///     tuning: FILL,
///     width: core::mem::size_of::<T>(),
///     shared: 0,
///     body: fill,
/// }
/// impl<const NT: usize, const VT: usize> EntryName for Fill<u32, NT, VT> {
///     const NAME: &'static str = "demo_fill_u32";
/// }
/// type K = mgpu_core::tuned!(Fill<u32>, FILL, Sm90, 4);
/// assert_eq!((K::ENTRY, K::NT, K::VT, K::NV, K::MIN_CTAS_PER_SM), ("demo_fill_u32", 32, 2, 64, 32));
/// let mut v = vec![7u32; 128];
/// sim::launch_kernel::<K>(2, &Args { out: v.as_mut_ptr() });
/// assert!(v.iter().all(|&x| x == 0));
/// ```
#[macro_export]
macro_rules! kernel_type {
    (
        $(#[$m:meta])*
        $vis:vis struct $name:ident<$($p:ident: $bound:path),+ $(,)?>;
        args: $args:ty,
        module: $module:expr,
        tuning: $tuning:expr,
        width: $width:expr,
        shared: $shared:expr,
        body: $($body:ident)::+ $(,)?
    ) => {
        $(#[$m])*
        $vis struct $name<$($p,)+ const NT: usize, const VT: usize>(
            ::core::marker::PhantomData<($($p,)+)>,
        );

        $crate::kernel_impl! {
            impl[$($p: $bound,)+ const NT: usize, const VT: usize] $name<$($p,)+ NT, VT>;
            args: $args, module: $module, nt: NT, vt: VT,
            shared: $shared, min_ctas: $tuning.min_ctas_per_sm($width, NT);
            fn body<C>(cta, args) {
                // SAFETY: the host launcher sizes every buffer as the body documents.
                unsafe { $($body)::+::<C, $($p,)+ NT, VT>(cta, args) }
            }
        }
    };
}

/// Declares several kernel types of a family with [`kernel_type!`](crate::kernel_type)
/// that share their type parameters, arguments, module and value width: a header
/// `impl[params..] args: .., module: .., width: ..;`, then one line per kernel with what
/// differs, its tuning, shared bytes (may use `NT`, `VT` and the type parameters) and
/// body.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Cta, Element, EntryName, Kernel, Shape, Tuning};
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// pub struct Args<T> { out: *mut T }
/// const SMALL: Tuning = Tuning::uniform(Shape::uniform(32, 2), 1024);
/// const LARGE: Tuning = Tuning::uniform(Shape::uniform(64, 4), 2048);
/// unsafe fn fill<C: Cta, T: Element, const NT: usize, const VT: usize>(_: &C, _: &Args<T>) {}
/// unsafe fn copy<C: Cta, T: Element, const NT: usize, const VT: usize>(_: &C, _: &Args<T>) {}
/// mgpu_core::kernel_types! {
///     impl[T: Element] args: Args<T>, module: "demo", width: core::mem::size_of::<T>();
///     /// The fill kernel.
///     pub struct Fill { tuning: SMALL, shared: 0, body: fill }
///     /// The copy kernel.
///     pub struct Copy { tuning: LARGE, shared: NT * VT * core::mem::size_of::<T>(), body: copy }
/// }
/// impl<const NT: usize, const VT: usize> EntryName for Copy<u64, NT, VT> {
///     const NAME: &'static str = "demo_copy_u64";
/// }
/// type K = mgpu_core::tuned!(Copy<u64>, LARGE, Sm90, 8);
/// assert_eq!((K::ENTRY, K::SHARED_BYTES, K::MIN_CTAS_PER_SM), ("demo_copy_u64", 2048, 32));
/// ```
#[macro_export]
macro_rules! kernel_types {
    (
        impl[$($p:ident: $bound:path),+ $(,)?] args: $args:ty, module: $module:expr,
        width: $width:expr;
        $($kernels:tt)*
    ) => {
        $crate::kernel_types!(@each [[$($p: $bound),+] $args, $module, $width] $($kernels)*);
    };
    (
        @each $common:tt
        $(#[$m:meta])*
        $vis:vis struct $name:ident {
            tuning: $tuning:expr, shared: $shared:expr, body: $($body:ident)::+ $(,)?
        }
        $($rest:tt)*
    ) => {
        $crate::kernel_types!(@one $common [$(#[$m])*] $vis $name, $tuning, $shared, $($body)::+);
        $crate::kernel_types!(@each $common $($rest)*);
    };
    (@each $common:tt) => {};
    (
        @one [[$($p:ident: $bound:path),+] $args:ty, $module:expr, $width:expr]
        [$(#[$m:meta])*] $vis:vis $name:ident, $tuning:expr, $shared:expr, $($body:ident)::+
    ) => {
        $crate::kernel_type! {
            $(#[$m])*
            $vis struct $name<$($p: $bound),+>;
            args: $args,
            module: $module,
            tuning: $tuning,
            width: $width,
            shared: $shared,
            body: $($body)::+,
        }
    };
}

/// The [`Kernel`](crate::Kernel) impl of a kernel type declared by hand (one whose body is
/// written in place, or whose parameters [`kernel_type!`](crate::kernel_type) does not
/// cover): `impl[generics] Type;`, then its arguments, module, `NT`, `VT`, shared bytes and
/// `.minnctapersm`, then the body. The entry name is the type's
/// [`EntryName`](crate::EntryName).
///
/// # Examples
///
/// ```
/// use mgpu_core::{sim, Cta, EntryName, Kernel};
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// pub struct Args { out: *mut u32 }
/// pub struct Iota<const NT: usize>;
/// mgpu_core::kernel_impl! {
///     impl[const NT: usize] Iota<NT>;
///     args: Args, module: "demo", nt: NT, vt: 1, shared: 0, min_ctas: 1;
///     fn body<C>(cta, a) {
///         let i = cta.block() as usize * NT + cta.tid() as usize;
///         unsafe { *a.out.add(i) = i as u32 };
///     }
/// }
/// impl EntryName for Iota<32> {
///     const NAME: &'static str = "demo_iota";
/// }
/// let mut v = vec![0u32; 64];
/// sim::launch_kernel::<Iota<32>>(2, &Args { out: v.as_mut_ptr() });
/// assert_eq!((v[63], <Iota<32> as Kernel>::ENTRY), (63, "demo_iota"));
/// ```
#[macro_export]
macro_rules! kernel_impl {
    (
        impl[$($g:tt)*] $ty:ty;
        args: $args:ty, module: $module:expr, nt: $nt:expr, vt: $vt:expr,
        shared: $shared:expr, min_ctas: $ctas:expr;
        fn body<$c:ident>($cta:ident, $a:ident) $body:block
    ) => {
        impl<$($g)*> $crate::Kernel for $ty
        where
            Self: $crate::EntryName,
        {
            type Args = $args;
            const MODULE: &'static str = $module;
            const ENTRY: &'static str = <Self as $crate::EntryName>::NAME;
            const NT: u32 = ($nt) as u32;
            const VT: u32 = ($vt) as u32;
            const SHARED_BYTES: u32 = ($shared) as u32;
            const MIN_CTAS_PER_SM: u32 = $ctas;
            #[inline(always)]
            fn body<$c: $crate::Cta>($cta: &$c, $a: &Self::Args) $body
        }
    };
}

/// The instance of kernel type `K<types..>` with the shape its [`Tuning`](crate::Tuning)
/// gives on architecture `arch` (`Sm70`, `Sm90`, or `TARGET`: [`Arch::TARGET`], the
/// architecture the PTX is being built for) for values of `width` bytes:
/// `K<types.., NT, VT>`.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Shape, Tuning};
/// struct K<T, const NT: usize, const VT: usize>(T);
/// const T: Tuning = Tuning {
///     sm70: Shape { nt: 64, vt4: 3, vt8: 2 },
///     sm90: Shape { nt: 128, vt4: 7, vt8: 5 },
///     threads_per_sm4: 1024,
///     threads_per_sm8: 1024,
/// };
/// let _: mgpu_core::tuned!(K<u8>, T, Sm70, 8) = K::<u8, 64, 2>(0);
/// let _: mgpu_core::tuned!(K<u8>, T, Sm90, 4) = K::<u8, 128, 7>(0);
/// ```
#[macro_export]
macro_rules! tuned {
    ($($k:ident)::+ <$($t:ty),+ $(,)?>, $tuning:expr, $arch:ident, $width:expr) => {
        $($k)::+ <
            $($t,)+
            { $tuning.shape($crate::Arch::$arch).nt },
            { $tuning.shape($crate::Arch::$arch).vt($width) },
        >
    };
}

/// One instance of a family's kernels (one row of its instance list), in one of two modes:
/// `entries`, the nvptx entry points (in `kernels-ptx/entries`: one
/// [`kernel_entry!`](crate::kernel_entry) per kernel at [`tuned!`](crate::tuned)`(..,
/// TARGET)`), or `host`, in the family crate: the [`EntryName`](crate::EntryName) of each
/// kernel and the impl of the family's instance trait with its kernel sets `Sm90` and
/// `Sm70` (the family's `Set` at each architecture's shape), plus any further items given.
///
/// The header names the family's `kernels` module (which holds the kernel types, `Set`
/// and `tuning`), the instance's type arguments, the type whose size is the value width,
/// and the entry-name suffix (pasted: `[t _ i]` gives `i32_u32`). Each slot of the set is
/// `[Kernel entry_prefix TUNING]` (the entry `<entry_prefix>_<suffix>`) or `(Type)`, a
/// fixed type that has no entry (a slot the instance does not use).
///
/// # Examples
///
/// ```
/// use mgpu_core::{Cta, Element, Kernel};
/// mod kernels {
///     use mgpu_core::{Cta, Element};
///     #[derive(Clone, Copy)]
///     #[repr(C)]
///     pub struct Args<T> { pub out: *mut T }
///     pub mod tuning {
///         use mgpu_core::{Shape, Tuning};
///         pub const FILL: Tuning = Tuning {
///             sm70: Shape::uniform(64, 3),
///             sm90: Shape::uniform(128, 7),
///             threads_per_sm4: 1024,
///             threads_per_sm8: 1024,
///         };
///     }
///     unsafe fn fill<C: Cta, T: Element, const NT: usize, const VT: usize>(_: &C, _: &Args<T>) {}
///     mgpu_core::kernel_types! {
///         impl[T: Element] args: Args<T>, module: "demo", width: core::mem::size_of::<T>();
///         /// The fill kernel.
///         pub struct Fill { tuning: tuning::FILL, shared: 0, body: fill }
///     }
///     mgpu_core::kernel_set! {
///         /// The kernels of one element type.
///         pub trait KernelSet<T> for Args<T> {
///             /// The fill kernel.
///             Fill,
///         }
///     }
/// }
/// trait DemoElement: Element {
///     type Sm90: kernels::KernelSet<Self>;
///     type Sm70: kernels::KernelSet<Self>;
///     const NAME: &'static str;
/// }
/// mgpu_core::family_instance! {
///     host kernels<u64>, width: u64, name: [u64];
///     impl DemoElement for u64 {
///         [Fill demo_fill FILL];
///         const NAME: &'static str = "u64";
///     }
/// }
/// type K = <<u64 as DemoElement>::Sm70 as kernels::KernelSet<u64>>::Fill;
/// assert_eq!((K::ENTRY, K::NV, <u64 as DemoElement>::NAME), ("demo_fill_u64", 64 * 3, "u64"));
/// ```
#[macro_export]
macro_rules! family_instance {
    (
        $mode:ident $($kernels:ident)::+ <$($ty:ty),+>, width: $width:ty, name: [$($name:tt)+];
        impl $tr:ident $(<$($targ:ty),+>)? for $self:ty {
            $($slot:tt),+;
            $($item:tt)*
        }
    ) => {
        $crate::family_instance!(
            @$mode [$($kernels)::+; $($ty),+; $width; $($name)+]
            [$tr $(<$($targ),+>)?] [$self] [$($slot),+] [$($item)*]
        );
    };
    (@entries $h:tt $tr:tt $self:tt [$($slot:tt),+] $items:tt) => {
        $( $crate::family_instance!(@entry $h $slot); )+
    };
    (@host $h:tt [$($tr:tt)+] [$self:ty] [$($slot:tt),+] [$($item:tt)*]) => {
        $( $crate::family_instance!(@name $h $slot); )+
        impl $($tr)+ for $self {
            type Sm90 = $crate::family_instance!(@set $h Sm90 $($slot),+);
            type Sm70 = $crate::family_instance!(@set $h Sm70 $($slot),+);
            $($item)*
        }
    };
    (@set [$($kernels:ident)::+; $($h:tt)*] $arch:ident $($slot:tt),+) => {
        $crate::family_instance!(
            @set [$($kernels)::+] [$($kernels)::+; $($h)*] $arch $($slot),+
        )
    };
    (@set [$($kernels:ident)::+] $h:tt $arch:ident $($slot:tt),+) => {
        $($kernels)::+::Set<$( $crate::family_instance!(@ty $h $arch $slot) ),+>
    };
    (@ty $h:tt $arch:ident ($fixed:ty)) => { $fixed };
    (
        @ty [$($kernels:ident)::+; $($ty:ty),+; $width:ty; $($name:tt)+]
        $arch:ident [$k:ident $entry:ident $tuning:ident]
    ) => {
        $crate::tuned!(
            $($kernels)::+::$k<$($ty),+>,
            $($kernels)::+::tuning::$tuning,
            $arch,
            ::core::mem::size_of::<$width>()
        )
    };
    (@entry $h:tt ($fixed:ty)) => {};
    (
        @entry [$($kernels:ident)::+; $($ty:ty),+; $width:ty; $($name:tt)+]
        [$k:ident $entry:ident $tuning:ident]
    ) => {
        $crate::__paste::paste! {
            $crate::kernel_entry!(
                [<$entry _ $($name)+>],
                $crate::family_instance!(
                    @ty [$($kernels)::+; $($ty),+; $width; $($name)+] TARGET [$k $entry $tuning]
                )
            );
        }
    };
    (@name $h:tt ($fixed:ty)) => {};
    (
        @name [$($kernels:ident)::+; $($ty:ty),+; $width:ty; $($name:tt)+]
        [$k:ident $entry:ident $tuning:ident]
    ) => {
        impl<const NT: usize, const VT: usize> $crate::EntryName
            for $($kernels)::+::$k<$($ty,)+ NT, VT>
        {
            const NAME: &'static str = $crate::__paste::paste!(stringify!([<$entry _ $($name)+>]));
        }
    };
}

/// Calls `m!(args.., T)` for each [`Element`](crate::Element) type `T`: the integers
/// ([`for_each_integer!`](crate::for_each_integer)), then the floats
/// ([`for_each_float!`](crate::for_each_float)). For families' instance lists.
///
/// # Examples
///
/// ```
/// macro_rules! size { ($v:ident, $t:ty) => { $v.push(core::mem::size_of::<$t>()) }; }
/// let mut v = Vec::new();
/// mgpu_core::for_each_element!(size!(v));
/// assert_eq!(v, [4, 4, 8, 8, 4, 8]);
/// ```
#[macro_export]
macro_rules! for_each_element {
    ($($m:ident)::+ ! ($($args:tt)+)) => {
        $crate::for_each_integer!($($m)::+!($($args)+));
        $crate::for_each_float!($($m)::+!($($args)+));
    };
}

/// Calls `m!(args.., T)` for each [`Integer`](crate::Integer) type `T`: i32, u32, i64,
/// u64.
///
/// # Examples
///
/// ```
/// macro_rules! name { ($v:ident, $t:ty) => { $v.push(stringify!($t)) }; }
/// let mut v = Vec::new();
/// mgpu_core::for_each_integer!(name!(v));
/// assert_eq!(v, ["i32", "u32", "i64", "u64"]);
/// ```
#[macro_export]
macro_rules! for_each_integer {
    ($($m:ident)::+ ! ($($args:tt)+)) => {
        $($m)::+!($($args)+, i32);
        $($m)::+!($($args)+, u32);
        $($m)::+!($($args)+, i64);
        $($m)::+!($($args)+, u64);
    };
}

/// Calls `m!(args.., T)` for each floating-point [`Element`](crate::Element) type `T`:
/// f32, f64.
///
/// # Examples
///
/// ```
/// macro_rules! name { ($v:ident, $t:ty) => { $v.push(stringify!($t)) }; }
/// let mut v = Vec::new();
/// mgpu_core::for_each_float!(name!(v));
/// assert_eq!(v, ["f32", "f64"]);
/// ```
#[macro_export]
macro_rules! for_each_float {
    ($($m:ident)::+ ! ($($args:tt)+)) => {
        $($m)::+!($($args)+, f32);
        $($m)::+!($($args)+, f64);
    };
}

/// Calls the generic function `f` with the kernel set of the device's architecture
/// appended to its type arguments: `f::<A.., <X as Family>::Sm70>(args..)` or `..::Sm90`,
/// where `X as Family` names one instance of a family (e.g. `T as BulkElement<I>`), whose
/// kernel sets are its associated types `Sm70` and `Sm90`. The second form,
/// `by_arch!(arch, X as Family, <KernelSet<..>>::Kernel::CONST)`, reads a
/// [`Kernel`](crate::Kernel) constant (`NV`, `NT`, ..) of one kernel of that set. The one
/// place that matches on an [`Arch`]: families never do.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Arch, Cta, Kernel};
/// trait Family { type Sm70; type Sm90; }
/// trait Set { const NV: usize; }
/// struct Small; struct Large;
/// impl Set for Small { const NV: usize = 896; }
/// impl Set for Large { const NV: usize = 1920; }
/// impl Family for u32 { type Sm70 = Small; type Sm90 = Large; }
/// fn tiles<T, S: Set>(n: usize) -> usize { n.div_ceil(S::NV) }
/// assert_eq!(mgpu_core::by_arch!(Arch::Sm70, u32 as Family, tiles::<u32>(10_000)), 12);
/// assert_eq!(mgpu_core::by_arch!(Arch::Sm90, u32 as Family, tiles::<u32>(10_000)), 6);
///
/// trait KernelSet { type Scan: Kernel; }
/// struct K<const VT: u32>;
/// impl<const VT: u32> Kernel for K<VT> {
///     type Args = ();
///     const MODULE: &'static str = "demo";
///     const ENTRY: &'static str = "demo_scan";
///     const NT: u32 = 128;
///     const VT: u32 = VT;
///     const SHARED_BYTES: u32 = 0;
///     fn body<C: Cta>(_: &C, _: &()) {}
/// }
/// impl KernelSet for Small { type Scan = K<7>; }
/// impl KernelSet for Large { type Scan = K<15>; }
/// assert_eq!(mgpu_core::by_arch!(Arch::Sm90, u32 as Family, <KernelSet>::Scan::NV), 1920);
/// ```
#[macro_export]
macro_rules! by_arch {
    ($arch:expr, $x:ty as $family:path, $f:ident::<$($g:ty),* $(,)?>($($a:expr),* $(,)?)) => {
        match $arch {
            $crate::Arch::Sm70 => $f::<$($g,)* <$x as $family>::Sm70>($($a),*),
            $crate::Arch::Sm90 => $f::<$($g,)* <$x as $family>::Sm90>($($a),*),
        }
    };
    ($arch:expr, $x:ty as $family:path, <$set:path>::$k:ident::$c:ident) => {
        match $arch {
            $crate::Arch::Sm70 => <<<$x as $family>::Sm70 as $set>::$k as $crate::Kernel>::$c,
            $crate::Arch::Sm90 => <<<$x as $family>::Sm90 as $set>::$k as $crate::Kernel>::$c,
        }
    };
}

/// Declares a family's kernel set: a trait `KernelSet<params..>` with one associated
/// kernel type per kernel of the family (each a [`Kernel`](crate::Kernel) taking `args`),
/// and `Set<..>`, the set made of given kernel types. A family's instance trait names one
/// set per architecture (`type Sm70: KernelSet<..>; type Sm90: KernelSet<..>;`), which
/// [`by_arch!`](crate::by_arch) picks from.
///
/// # Examples
///
/// ```
/// use mgpu_core::{Cta, Kernel};
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// pub struct Args<T> { out: *mut T }
/// mgpu_core::kernel_set! {
///     /// The kernels of one element type.
///     pub trait KernelSet<T> for Args<T> {
///         /// The first kernel.
///         First,
///         /// The second kernel.
///         Second,
///     }
/// }
/// struct K;
/// impl Kernel for K {
///     type Args = Args<u32>;
///     const MODULE: &'static str = "demo";
///     const ENTRY: &'static str = "demo_k";
///     const NT: u32 = 128;
///     const VT: u32 = 7;
///     const SHARED_BYTES: u32 = 0;
///     fn body<C: Cta>(_: &C, _: &Args<u32>) {}
/// }
/// type S = Set<K, K>;
/// assert_eq!(<<S as KernelSet<u32>>::Second as Kernel>::NV, 896);
/// ```
#[macro_export]
macro_rules! kernel_set {
    (
        $(#[$m:meta])*
        pub trait KernelSet<$($p:ident),+ $(,)?> for $args:ty {
            $( $(#[$km:meta])* $k:ident ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        pub trait KernelSet<$($p),+> {
            $( $(#[$km])* type $k: $crate::Kernel<Args = $args>; )+
        }

        /// A [`KernelSet`] from its kernels, in the order the trait lists them.
        pub struct Set<$($k),+>(::core::marker::PhantomData<($($k,)+)>);

        impl<$($p,)+ $($k: $crate::Kernel<Args = $args>),+> KernelSet<$($p),+> for Set<$($k),+> {
            $( type $k = $k; )+
        }
    };
}

/// A family crate's root, after its `pub mod device; pub mod kernels;`: declares `mod
/// host;` (the file `src/host.rs`, compiled for the host only), re-exports its items at
/// the crate root, and names this crate's items `__core`, the path the family's exported macros
/// (its instance list and entry points) reach the kit through.
///
/// # Examples
///
/// A family's `src/lib.rs` (the crate also has `src/host.rs`):
///
/// ```ignore
/// #![cfg_attr(target_arch = "nvptx64", no_std)]
///
/// pub mod device;
/// pub mod kernels;
///
/// mgpu_core::family_crate!();
/// ```
#[macro_export]
macro_rules! family_crate {
    () => {
        #[cfg(not(target_arch = "nvptx64"))]
        mod host;
        #[cfg(not(target_arch = "nvptx64"))]
        pub use host::*;

        #[doc(hidden)]
        pub use $crate::__kit as __core;
    };
}
