//! ptx-ladder: GPU kernels written in plain Rust, compiled to PTX by
//! `build.rs`, and launched from the host through `cust`.
//!
//! - [`device`]: the open GPU, typed launches, event timing;
//! - [`emulator`]: runs the same kernels on the CPU, for tests without a GPU;
//! - [`launch_math`]: grid sizes and their limits;
//! - [`vecadd`], [`matmul`]: the jobs behind `ptx-ladder vecadd` and `ptx-ladder matmul`.

pub mod device;
pub mod emulator;
pub mod error;
pub mod exercises;
pub mod inputs;
pub mod labs;
pub mod launch_math;
pub mod matmul;
pub mod progress;
pub mod svg;
pub mod sweep;
pub mod text;
pub mod vecadd;

pub use error::{Error, Result};

/// The PTX module holding every kernel of `kernels-gpu`.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// The Hopper kernels (wgmma, TMA, setmaxnreg), compiled for `sm_90a`:
/// loaded only on a GPU of compute capability 9.0.
pub const PTX_SM90A: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels_sm90a.ptx"));

/// The GPU architecture the PTX was compiled for (`PTX_LADDER_ARCH`).
pub const PTX_ARCH: &str = env!("PTX_LADDER_ARCH");
