//! The facade's behavioural suite, written once and run on every backend (STYLE.md, "One
//! suite, every backend"): the CPU backend, the CTA simulator (the real kernels on the
//! host), and a CUDA GPU (ignored where there is none; `cargo test -p mgpu -- --ignored` on
//! a GPU machine runs it).
//!
//! The checks are generic functions of a `&Backend` (in `scan` and `buffers`);
//! `backend_suite!` makes one `#[test]` per check for one backend. Sizes stay small enough
//! for the simulator (at most 5 scan tiles). Later algorithm families add their checks
//! beside `scan` and list them in the macro.

mod buffers;
mod common;
mod scan;

use mgpu::{Backend, Context};

macro_rules! backend_suite {
    ($name:ident, $make:expr $(, #[$attr:meta])*) => {
        mod $name {
            use super::*;

            fn backend() -> Backend {
                $make
            }

            #[test] $(#[$attr])*
            fn upload_and_zeros() { buffers::upload_and_zeros(&backend()) }
            #[test] $(#[$attr])*
            fn results_stay_on_the_backend() { buffers::results_stay_on_the_backend(&backend()) }
            #[test] $(#[$attr])*
            fn foreign_buffers_are_refused() { buffers::foreign_buffers_are_refused(&backend()) }

            #[test] $(#[$attr])*
            fn scan_i32() { scan::integers::<i32>(&backend()) }
            #[test] $(#[$attr])*
            fn scan_u32() { scan::integers::<u32>(&backend()) }
            #[test] $(#[$attr])*
            fn scan_i64() { scan::integers::<i64>(&backend()) }
            #[test] $(#[$attr])*
            fn scan_u64() { scan::integers::<u64>(&backend()) }
            #[test] $(#[$attr])*
            fn scan_f32() { scan::floats::<f32>(&backend()) }
            #[test] $(#[$attr])*
            fn scan_f64() { scan::floats::<f64>(&backend()) }
            #[test] $(#[$attr])*
            fn scan_empty_and_single() { scan::empty_and_single(&backend()) }
            #[test] $(#[$attr])*
            fn count_scan_u32() { scan::counts::<u32>(&backend()) }
            #[test] $(#[$attr])*
            fn count_scan_u64() { scan::counts::<u64>(&backend()) }
            #[test] $(#[$attr])*
            fn count_scan_overflow() { scan::count_overflow(&backend()) }

        }
    };
}

backend_suite!(cpu, Backend::cpu());
backend_suite!(simulator, Backend::simulator());
backend_suite!(
    cuda,
    Backend::cuda(0).expect("needs a CUDA GPU"),
    #[ignore = "needs a CUDA GPU"]
);

/// `describe` and `detect`, which depend on the machine rather than on a backend's
/// semantics.
mod backend {
    use super::*;

    #[test]
    fn describe_names_the_backend() {
        assert_eq!(Backend::cpu().describe(), "no CUDA device: CPU backend");
        assert_eq!(Backend::simulator().describe(), "mgpu CTA simulator");
        assert_eq!(format!("{:?}", Backend::cpu()), "Cpu");
        assert_eq!(
            format!("{:?}", Backend::simulator()),
            "Simulator { arch: Sm90 }"
        );
    }

    #[test]
    fn detect_picks_cuda_device_0_or_the_cpu() {
        match (Backend::detect(), Context::new(0)) {
            (Backend::Cuda(ctx), Ok(_)) => {
                let described = Backend::Cuda(ctx).describe();
                assert!(
                    described.contains(" (sm_") && described.ends_with(" SMs)"),
                    "{described}"
                );
            }
            (backend @ Backend::Cpu, Err(_)) => {
                assert_eq!(backend.describe(), "no CUDA device: CPU backend")
            }
            (backend, ctx) => panic!("detect gave {backend:?} while Context::new(0) gave {ctx:?}"),
        }
    }

    #[test]
    fn cuda_without_the_device_is_no_device() {
        assert!(matches!(
            Backend::cuda(1 << 20),
            Err(mgpu::Error::NoDevice(_))
        ));
    }
}
