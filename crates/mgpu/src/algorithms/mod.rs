//! The algorithms of the backend-neutral API, one file per family, each an `impl Backend`
//! block that checks its buffers with `Backend::view` and calls the family's GPU crate
//! (generic over the device) or `mgpu-cpu`. Later families (load-balancing search,
//! interval expand and move, bulk remove and insert, segmented reduction, merge and sort)
//! go beside `scan`.

mod bulk;
pub use bulk::BulkSource;
mod intervalmove;
pub use intervalmove::IntervalSource;
mod loadbalance;
mod scan;
