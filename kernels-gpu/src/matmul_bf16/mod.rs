//! The BF16 ladder: `C = A·B` with A (M×K) and B (K×N) row-major bf16 and
//! C (M×N) row-major fp32, accumulated in fp32, any M, N, K. One file per
//! rung, each opening with what changed and why.
//!
//! Every kernel takes `(m, n, k, a, b, c)`: `a` and `b` point to the bf16
//! values' 16-bit patterns, `c` to fp32 output that is only written (it may
//! hold NaN poison before the call). Rungs that need more (tensor maps)
//! take extra parameters after these and are launched by their own host code.

use crate::launch::{Kernel, LaunchShape};

/// Parameters of every BF16 kernel of the portable module, for its typed
/// launch handle.
pub type Bf16Params = (u32, u32, u32, *const u16, *const u16, *mut f32);

/// Signature of every BF16 kernel on the host (for the CPU emulator).
pub type Bf16Fn = unsafe fn(u32, u32, u32, *const u16, *const u16, *mut f32);

/// What the host needs to launch one BF16 kernel of the portable module.
#[derive(Clone, Copy)]
pub struct Bf16Kernel {
    /// The typed launch handle (entry name and parameters).
    pub kernel: Kernel<Bf16Params>,
    /// Grid, block and shared memory for an `m`×`n` output.
    pub launch: fn(m: u32, n: u32) -> LaunchShape,
    /// CUDA's `__launch_bounds__`.
    pub bounds: Option<crate::LaunchBounds>,
    /// The same kernel compiled for the host, for the CPU emulator.
    #[cfg(not(target_arch = "nvptx64"))]
    pub emulate: Bf16Fn,
}

impl Bf16Kernel {
    /// The `.entry` name in the PTX module.
    pub const fn name(&self) -> &'static str {
        self.kernel.name()
    }
}

pub mod r01_mma_sync;

/// Every BF16 kernel in the portable PTX module.
pub const KERNELS: &[Bf16Kernel] = &[r01_mma_sync::KERNEL];
