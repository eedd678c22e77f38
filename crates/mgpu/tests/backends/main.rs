//! The facade's own behaviour, written once and run on every backend (STYLE.md, "One
//! suite, every backend"): buffers on the CPU backend, the CTA simulator with either
//! tuning, and a CUDA GPU (ignored where there is none; `cargo test -p mgpu -- --ignored`
//! on a GPU machine runs it), instantiated by `mgpu_testkit::backend_tests!`. The
//! algorithms' checks live in each family's suite (`crates/mgpu-*/tests/suite/`), which
//! runs them through the facade on every backend in the same way.

mod buffers;

use mgpu::{Backend, Context};

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
