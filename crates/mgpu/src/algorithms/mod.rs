//! The algorithms of the backend-neutral API, one file per family, each an `impl Backend`
//! block that checks its buffers with `Backend::view` and calls the family's GPU crate
//! (generic over the device) or `mgpu-cpu`. Later families (load-balancing search,
//! interval expand and move, bulk remove and insert, segmented reduction, merge and sort)
//! go beside `scan`.

use crate::Buffer;
use mgpu_core::{Error, Result};
use mgpu_runtime::{Context, Device, DeviceSlice, DeviceSliceMut, DeviceVec, Simulator};

/// A GPU device whose buffers a [`Buffer`] variant holds: the device vector of a buffer
/// when it lives on `Self`, for the families' launchers generic over the device.
trait Pick: Device + Sized {
    fn pick<T: Copy + 'static>(b: &Buffer<T>) -> Option<&DeviceVec<T, Self>>;
    fn pick_mut<T: Copy + 'static>(b: &mut Buffer<T>) -> Option<&mut DeviceVec<T, Self>>;
}

/// `impl Pick` for the device whose buffers are the `Buffer::$variant` ones.
macro_rules! impl_pick {
    ($device:ty, $variant:ident) => {
        impl Pick for $device {
            fn pick<T: Copy + 'static>(b: &Buffer<T>) -> Option<&DeviceVec<T, Self>> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn pick_mut<T: Copy + 'static>(b: &mut Buffer<T>) -> Option<&mut DeviceVec<T, Self>> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

impl_pick!(Context, Cuda);
impl_pick!(Simulator, Simulator);

/// The error of a buffer of another kind than the one an operation runs on (after the
/// backend's `view` checks, not expected).
fn foreign() -> Error {
    Error::InvalidInput("buffers of different backends".into())
}

/// The device slice of `b` on `D`.
fn pick<D: Pick, T: Copy + 'static>(b: &Buffer<T>) -> Result<DeviceSlice<'_, T, D>> {
    Ok(D::pick(b).ok_or_else(foreign)?.as_slice())
}

/// The writable device slice of `b` on `D`.
fn pick_mut<D: Pick, T: Copy + 'static>(b: &mut Buffer<T>) -> Result<DeviceSliceMut<'_, T, D>> {
    Ok(D::pick_mut(b).ok_or_else(foreign)?.as_mut_slice())
}

/// The host elements of `b`.
fn host<T: Copy + 'static>(b: &Buffer<T>) -> Result<&[T]> {
    match b {
        Buffer::Host(v) => Ok(v),
        _ => Err(foreign()),
    }
}

mod bulk;
pub use bulk::BulkSource;
mod intervalmove;
pub use intervalmove::IntervalSource;
mod loadbalance;
mod merge;
mod scan;
mod segreduce;
#[cfg(feature = "sprs")]
mod sprs;
