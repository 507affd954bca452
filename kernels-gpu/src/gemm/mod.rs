//! Building blocks shared by the GEMM ladders ([`crate::sgemm`],
//! [`crate::bf16`]): the tiling every rung describes itself with, shared
//! memory layouts, tile loads, the warp tile, the epilogue, the cp.async copy ring,
//! the Hopper building blocks ([`hopper`]), K cut into slices ([`split_k`]), and [`LadderKernel`], what the
//! host needs to launch or emulate one rung's kernel.

pub mod copy_ring;
pub(crate) mod epilogue;
pub mod hopper;
pub mod layout;
pub mod padding;
pub mod small_m;
pub mod small_m_tensor;
pub mod split_k;
pub mod tiles;
pub mod tiling;
pub mod warp_tile;

use crate::launch::{Kernel, LaunchShape};

/// A kernel's parameter tuple, and the signature of the same kernel
/// compiled for the host (what the CPU emulator calls).
pub trait Params {
    type HostFn: Copy;
}

/// The BF16 ladder's `(m, n, k, a, b, c)`.
impl<A, B, C, D, E, F> Params for (A, B, C, D, E, F) {
    type HostFn = unsafe fn(A, B, C, D, E, F);
}

/// The SGEMM ladder's `(m, n, k, alpha, a, b, beta, c)`.
impl<A, B, C, D, E, F, G, H> Params for (A, B, C, D, E, F, G, H) {
    type HostFn = unsafe fn(A, B, C, D, E, F, G, H);
}

/// What the host needs to launch one kernel of a ladder's portable module
/// (parameters `P`), and to run it on the CPU.
#[derive(Clone, Copy)]
pub struct LadderKernel<P: Params> {
    /// The typed launch handle (entry name, parameters, launch bounds).
    pub kernel: Kernel<P>,
    /// Grid, block and shared memory for an `m`×`n` output.
    pub launch: fn(m: u32, n: u32) -> LaunchShape,
    /// The same kernel compiled for the host, for the CPU emulator.
    #[cfg(not(target_arch = "nvptx64"))]
    pub emulate: P::HostFn,
}

impl<P: Params> LadderKernel<P> {
    /// The `.entry` name in the PTX module.
    pub const fn name(&self) -> &'static str {
        self.kernel.name()
    }
}
