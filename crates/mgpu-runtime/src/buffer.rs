//! Typed device memory: owned vectors, borrowed slices, pooled temporaries.

use crate::{Device, Error, Result};
use std::marker::PhantomData;
use std::mem::size_of;
use std::ops::Range;

fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .ok_or(Error::OutOfMemory { bytes: usize::MAX })
}

fn check_range(r: &Range<usize>, len: usize) -> Result<()> {
    if r.start > r.end || r.end > len {
        return Err(Error::InvalidInput(format!(
            "range {}..{} out of a buffer of length {len}",
            r.start, r.end
        )));
    }
    Ok(())
}

/// An owned array of `T` in device memory, freed on drop.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let mut v = DeviceVec::<i32, _>::zeros(&dev, 4).unwrap();
/// v.copy_from_host(&[1, 2, 3, 4]).unwrap();
/// assert_eq!(v.slice(1..3).unwrap().to_vec().unwrap(), vec![2, 3]);
/// ```
pub struct DeviceVec<T: Copy + 'static, D: Device> {
    dev: D,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

// SAFETY: the vector owns device memory; T is plain data.
unsafe impl<T: Copy + Send + 'static, D: Device> Send for DeviceVec<T, D> {}
unsafe impl<T: Copy + Sync + 'static, D: Device> Sync for DeviceVec<T, D> {}

impl<T: Copy + 'static, D: Device> DeviceVec<T, D> {
    /// `len` elements with undefined contents.
    pub fn uninit(dev: &D, len: usize) -> Result<Self> {
        let ptr = dev.alloc_bytes(bytes_of::<T>(len)?)?;
        Ok(DeviceVec {
            dev: dev.clone(),
            ptr,
            len,
            _t: PhantomData,
        })
    }

    /// `len` elements, all bytes zero.
    pub fn zeros(dev: &D, len: usize) -> Result<Self> {
        let v = Self::uninit(dev, len)?;
        // SAFETY: the range is the allocation just made.
        unsafe { dev.memset(v.ptr, 0, bytes_of::<T>(len)?)? };
        Ok(v)
    }

    /// A copy of `host` on the device.
    pub fn from_slice(dev: &D, host: &[T]) -> Result<Self> {
        let mut v = Self::uninit(dev, host.len())?;
        v.copy_from_host(host)?;
        Ok(v)
    }

    /// Overwrites the whole vector from `host` (same length).
    pub fn copy_from_host(&mut self, host: &[T]) -> Result<()> {
        self.as_mut_slice().copy_from_host(host)
    }

    /// Copies the vector to the host (synchronises).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device it lives on.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// Borrows the whole vector.
    pub fn as_slice(&self) -> DeviceSlice<'_, T, D> {
        DeviceSlice {
            dev: &self.dev,
            ptr: self.ptr,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// Borrows the whole vector mutably.
    pub fn as_mut_slice(&mut self) -> DeviceSliceMut<'_, T, D> {
        DeviceSliceMut {
            dev: &self.dev,
            ptr: self.ptr,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// Borrows `range`.
    pub fn slice(&self, range: Range<usize>) -> Result<DeviceSlice<'_, T, D>> {
        self.as_slice().slice(range)
    }

    /// Borrows `range` mutably.
    pub fn slice_mut(&mut self, range: Range<usize>) -> Result<DeviceSliceMut<'_, T, D>> {
        check_range(&range, self.len)?;
        Ok(DeviceSliceMut {
            dev: &self.dev,
            ptr: self.ptr + (range.start * size_of::<T>()) as u64,
            len: range.len(),
            _t: PhantomData,
        })
    }

    /// The device address of the first element.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }
}

impl<T: Copy + 'static, D: Device> Drop for DeviceVec<T, D> {
    fn drop(&mut self) {
        // SAFETY: this vector owns the allocation; nothing borrows it any more.
        unsafe { self.dev.free_bytes(self.ptr, self.len * size_of::<T>()) }
    }
}

impl<T: Copy + 'static, D: Device> std::fmt::Debug for DeviceVec<T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceVec<{}>[{}] @ {:#x}",
            std::any::type_name::<T>(),
            self.len,
            self.ptr
        )
    }
}

/// A borrowed, read-only range of device memory.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let v = DeviceVec::from_slice(&dev, &[5u8, 6, 7]).unwrap();
/// let s = v.as_slice();
/// assert_eq!(s.len(), 3);
/// assert_eq!(s.slice(2..3).unwrap().to_vec().unwrap(), vec![7]);
/// ```
pub struct DeviceSlice<'a, T, D: Device> {
    dev: &'a D,
    ptr: u64,
    len: usize,
    _t: PhantomData<&'a [T]>,
}

impl<T, D: Device> Clone for DeviceSlice<'_, T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, D: Device> Copy for DeviceSlice<'_, T, D> {}

/// The constructor and accessors of [`DeviceSlice`] and [`DeviceSliceMut`] (the same
/// fields: `dev`, `ptr`, `len`, `_t`), in their `impl<'a, T, D>` blocks; `from_raw` takes
/// each type's own doc (its safety contract).
macro_rules! raw_slice_methods {
    ($(#[$from_raw_doc:meta])*) => {
        $(#[$from_raw_doc])*
        pub unsafe fn from_raw(dev: &'a D, ptr: u64, len: usize) -> Self {
            Self {
                dev,
                ptr,
                len,
                _t: PhantomData,
            }
        }
        /// Number of elements.
        pub fn len(&self) -> usize {
            self.len
        }
        /// Whether it has no elements.
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
        /// The device.
        pub fn device(&self) -> &'a D {
            self.dev
        }
        /// Device address of the first element.
        pub fn device_ptr(&self) -> u64 {
            self.ptr
        }
    };
}

impl<'a, T: Copy + 'static, D: Device> DeviceSlice<'a, T, D> {
    raw_slice_methods! {
        /// A slice over raw device memory.
        ///
        /// # Safety
        /// `ptr` must address `len` initialised `T`s on `dev` that stay valid and unwritten
        /// for `'a` (for example a cudarc `CudaView`'s range).
    }
    /// The address as a kernel argument.
    pub fn as_ptr(&self) -> *const T {
        self.ptr as *const T
    }
    /// A sub-range.
    pub fn slice(&self, range: Range<usize>) -> Result<DeviceSlice<'a, T, D>> {
        check_range(&range, self.len)?;
        Ok(DeviceSlice {
            dev: self.dev,
            ptr: self.ptr + (range.start * size_of::<T>()) as u64,
            len: range.len(),
            _t: PhantomData,
        })
    }
    /// Copies to the host (synchronises).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out: Vec<T> = Vec::with_capacity(self.len);
        // SAFETY: out has capacity for len elements, all written by the copy.
        unsafe {
            self.dev.copy_dtoh(
                out.as_mut_ptr() as *mut u8,
                self.ptr,
                self.len * size_of::<T>(),
            )?;
            out.set_len(self.len);
        }
        Ok(out)
    }
}

/// A borrowed, writable range of device memory.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{DeviceVec, Simulator};
/// let dev = Simulator::new();
/// let mut v = DeviceVec::<u16, _>::zeros(&dev, 3).unwrap();
/// v.slice_mut(1..3).unwrap().copy_from_host(&[4, 5]).unwrap();
/// assert_eq!(v.to_vec().unwrap(), vec![0, 4, 5]);
/// ```
pub struct DeviceSliceMut<'a, T, D: Device> {
    dev: &'a D,
    ptr: u64,
    len: usize,
    _t: PhantomData<&'a mut [T]>,
}

impl<'a, T: Copy + 'static, D: Device> DeviceSliceMut<'a, T, D> {
    raw_slice_methods! {
        /// A mutable slice over raw device memory.
        ///
        /// # Safety
        /// `ptr` must address `len` `T`s on `dev`, valid and not otherwise accessed for `'a`.
    }
    /// The address as a kernel argument.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr as *mut T
    }
    /// Reborrows read-only.
    pub fn as_slice(&self) -> DeviceSlice<'_, T, D> {
        DeviceSlice {
            dev: self.dev,
            ptr: self.ptr,
            len: self.len,
            _t: PhantomData,
        }
    }
    /// Reborrows mutably (for passing on without giving up this slice).
    pub fn reborrow(&mut self) -> DeviceSliceMut<'_, T, D> {
        DeviceSliceMut {
            dev: self.dev,
            ptr: self.ptr,
            len: self.len,
            _t: PhantomData,
        }
    }
    /// Overwrites the slice from `host` (same length).
    pub fn copy_from_host(&mut self, host: &[T]) -> Result<()> {
        Error::check_len("host source", self.len, host.len())?;
        // SAFETY: both ranges have len elements.
        unsafe {
            self.dev.copy_htod(
                self.ptr,
                host.as_ptr() as *const u8,
                self.len * size_of::<T>(),
            )
        }
    }
    /// Queues a copy from another device slice of the same length.
    pub fn copy_from_device(&mut self, src: DeviceSlice<'_, T, D>) -> Result<()> {
        Error::check_len("device source", self.len, src.len())?;
        // SAFETY: both ranges have len elements.
        unsafe {
            self.dev
                .copy_dtod(self.ptr, src.device_ptr(), self.len * size_of::<T>())
        }
    }
}

/// A temporary device array from the device's [`crate::Pool`], given back on drop.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{Simulator, Temp};
/// let dev = Simulator::new();
/// let t = Temp::<u32, _>::new(&dev, 100).unwrap();
/// assert_eq!(t.len(), 100);
/// ```
pub struct Temp<T: Copy + 'static, D: Device> {
    dev: D,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Copy + 'static, D: Device> Temp<T, D> {
    /// `len` elements, contents undefined.
    pub fn new(dev: &D, len: usize) -> Result<Self> {
        let ptr = dev.pool().take(dev, bytes_of::<T>(len)?)?;
        Ok(Temp {
            dev: dev.clone(),
            ptr,
            len,
            _t: PhantomData,
        })
    }
    /// `len` elements, zeroed (queued memset).
    pub fn zeroed(dev: &D, len: usize) -> Result<Self> {
        let t = Self::new(dev, len)?;
        // SAFETY: the range lies in the block just taken.
        unsafe { dev.memset(t.ptr, 0, len * size_of::<T>())? };
        Ok(t)
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The address as a kernel argument.
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr as *mut T
    }
    /// Copies to the host (synchronises).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        // SAFETY: the temp covers len elements.
        unsafe { DeviceSlice::<T, D>::from_raw(&self.dev, self.ptr, self.len) }.to_vec()
    }
}

impl<T: Copy + 'static, D: Device> Drop for Temp<T, D> {
    fn drop(&mut self) {
        // SAFETY: the block came from this pool with this size.
        unsafe { self.dev.pool().give(self.ptr, self.len * size_of::<T>()) }
    }
}

/// A launch's error word: one zeroed `u32` in device memory that the kernel ORs error
/// bits into (DESIGN §5), read back once by the pending check that owns it. A word that
/// was never allocated (nothing was launched) reads as 0.
///
/// # Examples
///
/// ```
/// use mgpu_runtime::{ErrorWord, Simulator};
/// let dev = Simulator::new();
/// let w = ErrorWord::zeroed(&dev).unwrap();
/// assert!(!w.as_mut_ptr().is_null());
/// assert_eq!(w.read().unwrap(), 0);
/// assert_eq!(ErrorWord::<Simulator>::none().read().unwrap(), 0);
/// ```
pub struct ErrorWord<D: Device>(Word<D>);

/// Where an [`ErrorWord`] lives.
enum Word<D: Device> {
    None,
    Temp(Temp<u32, D>),
    /// A word of [`crate::Pool::clean_word`], and whether it has been read back as 0.
    Clean(D, u64, core::cell::Cell<bool>),
}

impl<D: Device> ErrorWord<D> {
    /// No word: for a call that launches nothing.
    pub fn none() -> Self {
        ErrorWord(Word::None)
    }
    /// A zeroed word from the device's pool (queued memset).
    pub fn zeroed(dev: &D) -> Result<Self> {
        Ok(ErrorWord(Word::Temp(Temp::zeroed(dev, 1)?)))
    }
    /// A zeroed word with no memset queued for it ([`crate::Pool::clean_word`]): read back
    /// as 0 it goes back clean; otherwise (bits raised, or never read) it goes back dirty,
    /// and its block is zeroed again, once, when every word of it is back.
    ///
    /// ```
    /// use mgpu_runtime::{ErrorWord, Simulator};
    /// let dev = Simulator::new();
    /// let w = ErrorWord::clean(&dev).unwrap();
    /// assert_eq!(w.read().unwrap(), 0);
    /// ```
    pub fn clean(dev: &D) -> Result<Self> {
        let w = dev.pool().clean_word(dev)?;
        Ok(ErrorWord(Word::Clean(
            dev.clone(),
            w,
            core::cell::Cell::new(false),
        )))
    }
    /// A word from the device's pool, *not* zeroed: for a launcher whose first kernel
    /// zeroes it before any kernel ORs bits into it (the partition kernels' `clear`
    /// argument), saving the memset and its gap in the stream.
    ///
    /// ```
    /// use mgpu_runtime::{ErrorWord, Simulator};
    /// let w = ErrorWord::uncleared(&Simulator::new()).unwrap();
    /// assert!(!w.as_mut_ptr().is_null());
    /// ```
    pub fn uncleared(dev: &D) -> Result<Self> {
        Ok(ErrorWord(Word::Temp(Temp::new(dev, 1)?)))
    }
    /// The word's address as a kernel argument (null for [`ErrorWord::none`]).
    pub fn as_mut_ptr(&self) -> *mut u32 {
        match &self.0 {
            Word::None => core::ptr::null_mut(),
            Word::Temp(t) => t.as_mut_ptr(),
            Word::Clean(_, w, _) => *w as *mut u32,
        }
    }
    /// The bits the kernels raised (synchronises; 0 without a word).
    pub fn read(&self) -> Result<u32> {
        match &self.0 {
            Word::Temp(t) => Ok(t.to_vec()?[0]),
            Word::None => Ok(0),
            Word::Clean(dev, w, zero) => {
                // SAFETY: the word is ours, one `u32`.
                let v = unsafe { DeviceSlice::<u32, D>::from_raw(dev, *w, 1) }.to_vec()?[0];
                zero.set(v == 0);
                Ok(v)
            }
        }
    }
}

impl<D: Device> Drop for ErrorWord<D> {
    fn drop(&mut self) {
        if let Word::Clean(dev, w, zero) = &self.0 {
            // SAFETY: the word is ours; read back as 0, every launch using it had finished.
            unsafe {
                if zero.get() {
                    dev.pool().give_clean(*w);
                } else {
                    dev.pool().give_dirty(*w);
                }
            }
        }
    }
}

impl<'a, T, D: Device> From<DeviceSlice<'a, T, D>> for mgpu_core::Source<DeviceSlice<'a, T, D>, T> {
    /// The slice as the array of a [`mgpu_core::Source`].
    fn from(s: DeviceSlice<'a, T, D>) -> Self {
        mgpu_core::Source::Array(s)
    }
}
