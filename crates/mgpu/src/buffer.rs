//! [`Buffer`]: an array on one backend.

use mgpu_core::Result;
use mgpu_runtime::{Context, Device, DeviceVec, Simulator};

/// An array of `T` on one [`Backend`](crate::Backend): device memory of a CUDA context or
/// of the simulator, or a host vector for the CPU backend.
///
/// Make buffers with the backend ([`Backend::upload`](crate::Backend::upload),
/// [`Backend::zeros`](crate::Backend::zeros), or as results of its algorithms) and pass
/// them back to the same backend; a buffer of another backend is
/// [`Error::InvalidInput`](crate::Error::InvalidInput). The variants are public so a
/// program can leave the neutral API and use a backend's own crate on the data
/// ([`mgpu::scan`](crate::scan) on a [`DeviceVec`], [`mgpu::cpu`](crate::cpu) on a
/// slice) without copies.
///
/// # Examples
///
/// ```
/// use mgpu::{Backend, Buffer};
/// let buf = Backend::cpu().upload(&[1u32, 2, 3])?;
/// assert_eq!(buf.len(), 3);
/// assert!(!buf.is_empty());
/// assert!(matches!(&buf, Buffer::Host(v) if v == &[1, 2, 3]));
/// assert_eq!(buf.to_vec()?, vec![1, 2, 3]);
/// # Ok::<(), mgpu::Error>(())
/// ```
#[derive(Debug)]
pub enum Buffer<T: Copy + 'static> {
    /// Device memory of a CUDA [`Context`].
    Cuda(DeviceVec<T, Context>),
    /// Host memory of the CTA [`Simulator`].
    Simulator(DeviceVec<T, Simulator>),
    /// A host vector of the CPU backend.
    Host(Vec<T>),
}

impl<T: Copy + 'static> Buffer<T> {
    /// Number of elements.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// assert_eq!(Backend::simulator().zeros::<i32>(5)?.len(), 5);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        match self {
            Buffer::Cuda(v) => v.len(),
            Buffer::Simulator(v) => v.len(),
            Buffer::Host(v) => v.len(),
        }
    }

    /// Whether it has no elements.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// assert!(Backend::cpu().upload::<f64>(&[])?.is_empty());
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A host copy of the contents. On a GPU backend it waits for the work queued so far
    /// (synchronises).
    ///
    /// # Errors
    ///
    /// CUDA errors ([`Error::ContextLost`](crate::Error::ContextLost) after a device
    /// fault) on a GPU backend.
    ///
    /// # Examples
    ///
    /// ```
    /// use mgpu::Backend;
    /// let sim = Backend::simulator();
    /// assert_eq!(sim.upload(&[7i64, -8])?.to_vec()?, vec![7, -8]);
    /// # Ok::<(), mgpu::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        match self {
            Buffer::Cuda(v) => v.to_vec(),
            Buffer::Simulator(v) => v.to_vec(),
            Buffer::Host(v) => Ok(v.clone()),
        }
    }
}

/// A GPU device whose [`DeviceVec`]s are a [`Buffer`] variant, so the facade writes each
/// GPU algorithm once, generic over the device.
pub(crate) trait BufferDevice: Device {
    /// `v` as a buffer.
    fn wrap<T: Copy + 'static>(v: DeviceVec<T, Self>) -> Buffer<T>;
}
