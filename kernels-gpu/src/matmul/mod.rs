//! The SGEMM ladder: `C = alpha * A * B + beta * C`, row-major fp32, any
//! M, N, K. One file per rung; each opens with what changed from the
//! previous rung and why it is faster.
//!
//! Every kernel takes the same arguments, in this order:
//! `(m, n, k, alpha, a, b, beta, c)` with `a` M×K, `b` K×N and `c` M×N.
//! As in BLAS, `beta == 0` means C is only written, never read, so C may hold
//! anything (NaN poison included) before the call.

use crate::launch::{Kernel, LaunchShape};

/// Parameters shared by every SGEMM kernel: `(m, n, k, alpha, a, b, beta, c)`.
pub type GemmParams = (u32, u32, u32, f32, *const f32, *const f32, f32, *mut f32);

/// Signature shared by every SGEMM kernel, as the host build sees it.
pub type GemmFn = unsafe fn(u32, u32, u32, f32, *const f32, *const f32, f32, *mut f32);

/// What the host needs to launch one SGEMM kernel.
#[derive(Clone, Copy)]
pub struct GemmKernel {
    /// The typed launch handle (entry name and parameters).
    pub kernel: Kernel<GemmParams>,
    /// Grid, block and shared memory for an `m`×`n` output.
    pub launch: fn(m: u32, n: u32) -> LaunchShape,
    /// CUDA's `__launch_bounds__`, which Rust has no attribute for.
    pub bounds: Option<crate::LaunchBounds>,
    /// The same kernel compiled for the host, for the CPU emulator.
    #[cfg(not(target_arch = "nvptx64"))]
    pub emulate: GemmFn,
}

/// `gemm_kernel!(function, launch)` builds the [`GemmKernel`] describing a
/// kernel declared with `#[kernel]`; `gemm_kernel!(function, launch, threads,
/// blocks)` also asks ptxas to fit `blocks` blocks of `threads` per SM.
macro_rules! gemm_kernel {
    ($kernel:ident, $launch:expr) => {
        gemm_kernel!(@ $kernel, $launch, None)
    };
    ($kernel:ident, $launch:expr, $threads:expr, $blocks:expr) => {
        gemm_kernel!(@ $kernel, $launch, Some($crate::LaunchBounds {
            kernel: stringify!($kernel),
            max_threads: $threads,
            min_blocks_per_sm: $blocks,
            cluster: 1,
        }))
    };
    (@ $kernel:ident, $launch:expr, $bounds:expr) => {
        $crate::matmul::GemmKernel {
            kernel: $crate::launch::Kernel::new(stringify!($kernel)),
            launch: $launch,
            bounds: $bounds,
            #[cfg(not(target_arch = "nvptx64"))]
            emulate: $kernel,
        }
    };
}

impl GemmKernel {
    /// The `.entry` name in the PTX module.
    pub const fn name(&self) -> &'static str {
        self.kernel.name()
    }
}

pub mod r01_naive;
pub mod r02_coalesced;
pub mod r03_shared_tiling;
pub mod r04_blocktile_1d;
pub mod r05_blocktile_2d;
#[macro_use]
pub mod r06_vectorized;
pub mod r07_bank_conflicts;
pub mod r08_autotuned;
pub mod r09_warptiling;
pub mod r10_async_pipeline;
pub mod r11_tensor_cores;

pub mod async_copy;
mod epilogue;
pub mod layout;
pub mod tiles;
pub mod tiling;
pub mod warp_tile;

/// Every SGEMM kernel in the PTX module: the rungs and rung 8's candidates.
pub const KERNELS: &[GemmKernel] = &{
    const RUNGS: [GemmKernel; 11] = [
        r01_naive::KERNEL,
        r02_coalesced::KERNEL,
        r03_shared_tiling::KERNEL,
        r04_blocktile_1d::KERNEL,
        r05_blocktile_2d::KERNEL,
        r06_vectorized::KERNEL,
        r07_bank_conflicts::PADDED,
        r07_bank_conflicts::SWIZZLED,
        r09_warptiling::KERNEL,
        r10_async_pipeline::KERNEL,
        r11_tensor_cores::KERNEL,
    ];
    let mut all = [RUNGS[0]; RUNGS.len() + r08_autotuned::CONFIGS.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < RUNGS.len() { RUNGS[i] } else { r08_autotuned::CONFIGS[i - RUNGS.len()].kernel };
        i += 1;
    }
    all
};
