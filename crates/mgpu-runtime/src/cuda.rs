//! The CUDA device (placeholder until the cudarc implementation lands).

/// A CUDA device context.
pub struct Context;
