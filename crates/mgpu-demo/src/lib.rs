//! # mgpu-demo: the seeds' demonstrations
//!
//! Layer: tooling (a binary and this small library). It runs the fixed-input
//! demonstrations of the Modern GPU pages on any [`Backend`] of the `mgpu` facade and
//! returns their text in the seeds' layout ([`print_array`] is the seeds' `PrintArray`),
//! so the binary prints them and the tests compare them with the seeds' output exactly.
//! Depends on `mgpu` only.
//!
//! `cargo run --release -p mgpu-demo` prints the backend it runs on
//! ([`Backend::detect`]: CUDA device 0, else the CPU backend), then every demonstration of
//! [`DEMOS`] in order; `cargo run --release -p mgpu-demo -- scan` runs the named ones.
//!
//! Adding a demonstration (load-balancing search, interval expand and move, bulk remove
//! and insert, ...): write `src/<family>.rs` with a `pub fn <family>_demo(backend:
//! &Backend) -> Result<String>` that builds its text with [`print_array`], re-export it
//! here, append it to [`DEMOS`], and add a golden test of its exact text in
//! `tests/golden.rs`.
//!
//! # Examples
//!
//! ```
//! use mgpu::Backend;
//! let text = mgpu_demo::scan_demo(&Backend::cpu())?;
//! assert!(text.starts_with("\nSCAN DEMONSTRATION:\n"));
//! assert!(text.ends_with("Total:  125\n"));
//! # Ok::<(), mgpu::Error>(())
//! ```

mod bulk;
mod intervalmove;
mod loadbalance;
mod merge;
mod print;
mod scan;
mod segreduce;

pub use bulk::{bulk_insert_demo, bulk_remove_demo};
pub use intervalmove::{interval_expand_demo, interval_move_demo};
pub use loadbalance::load_balance_demo;
pub use merge::{sort_keys_demo, sort_pairs_demo, SORT_KEYS, SORT_PAIRS_KEYS};
pub use print::print_array;
pub use scan::{scan_demo, OBJECT_COUNTS};
pub use segreduce::{
    reduce_by_key_demo, seg_reduce_demo, KEY_RUNS, KEY_VALUES, SEGMENT_STARTS, SEGMENT_VALUES,
};

use mgpu::{Backend, Result};

/// One demonstration: the name that selects it on the command line, and the function that
/// runs it on a backend and returns its text.
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// let demo = &mgpu_demo::DEMOS[0];
/// assert_eq!(demo.name, "scan");
/// assert!((demo.run)(&Backend::cpu())?.contains("Total:  125"));
/// # Ok::<(), mgpu::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Demo {
    /// The name on the command line (`cargo run -p mgpu-demo -- <name>`).
    pub name: &'static str,
    /// Runs the demonstration and returns its text.
    pub run: fn(&Backend) -> Result<String>,
}

/// Every demonstration, in the order the binary prints them. Later families append theirs
/// here (load-balancing search, interval expand and move, bulk remove and insert, ...).
///
/// # Examples
///
/// ```
/// let names: Vec<&str> = mgpu_demo::DEMOS.iter().map(|d| d.name).collect();
/// assert_eq!(names[0], "scan");
/// ```
pub const DEMOS: &[Demo] = &[
    Demo {
        name: "scan",
        run: scan_demo,
    },
    Demo {
        name: "lbs",
        run: load_balance_demo,
    },
    Demo {
        name: "expand",
        run: interval_expand_demo,
    },
    Demo {
        name: "move",
        run: interval_move_demo,
    },
    Demo {
        name: "remove",
        run: bulk_remove_demo,
    },
    Demo {
        name: "insert",
        run: bulk_insert_demo,
    },
    Demo {
        name: "segreduce",
        run: seg_reduce_demo,
    },
    Demo {
        name: "reducebykey",
        run: reduce_by_key_demo,
    },
    Demo {
        name: "sortkeys",
        run: sort_keys_demo,
    },
    Demo {
        name: "sortpairs",
        run: sort_pairs_demo,
    },
];

/// The demonstrations `names` asks for, in the order asked; all of [`DEMOS`] when `names`
/// is empty. An unknown name is an error whose text lists the known ones.
///
/// # Examples
///
/// ```
/// assert_eq!(mgpu_demo::select(&[]).unwrap().len(), mgpu_demo::DEMOS.len());
/// assert_eq!(mgpu_demo::select(&["scan".to_string()]).unwrap()[0].name, "scan");
/// let err = mgpu_demo::select(&["nope".to_string()]).unwrap_err();
/// assert!(err.starts_with("unknown demonstration `nope`; known: scan, lbs"));
/// ```
pub fn select(names: &[String]) -> std::result::Result<Vec<&'static Demo>, String> {
    if names.is_empty() {
        return Ok(DEMOS.iter().collect());
    }
    names
        .iter()
        .map(|name| {
            DEMOS.iter().find(|d| d.name == name).ok_or_else(|| {
                let known: Vec<&str> = DEMOS.iter().map(|d| d.name).collect();
                format!(
                    "unknown demonstration `{name}`; known: {}",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// The first line the binary prints: `Backend: ` and the backend's
/// [`describe`](Backend::describe).
///
/// # Examples
///
/// ```
/// use mgpu::Backend;
/// assert_eq!(
///     mgpu_demo::backend_line(&Backend::cpu()),
///     "Backend: no CUDA device: CPU backend"
/// );
/// ```
pub fn backend_line(backend: &Backend) -> String {
    format!("Backend: {}", backend.describe())
}
