// ANCHOR: rung
//! Rung 7: bank conflicts. Rung 6's kernel, unchanged, with two other
//! shared-memory layouts.
//!
//! Shared memory is 32 banks of 4 bytes; a warp's accesses to different
//! addresses in one bank are served one after another. Rung 6 had two such
//! collisions:
//! - storing A transposed: the lanes of a warp write 16 rows × 2 groups of k.
//!   Rows of the tile are 128 floats (a multiple of 32 banks), so the two
//!   lanes of each row hit the same bank: 2-way conflicts.
//! - reading B: a thread's 8 columns start 8 floats after its neighbour's, so
//!   a 128-bit read by 16 lanes lands on only half the bank groups.
//!
//! `padded` adds 4 floats to each row: the transposed stores shift by 4 banks
//! per row and stop colliding, but no padding can separate lanes that read
//! the *same* row, so the B reads keep their conflict.
//! `swizzled` permutes 16-byte groups inside each row with an XOR instead:
//! A's group index is XORed with (k mod 8), spreading the transposed stores;
//! in B, every other group of 8 swaps neighbours, so the 16 lanes reading B
//! cover all bank groups. No memory is wasted and both conflicts are gone.

use super::r06_vectorized::{TILING, launch_for, sgemm_vectorized_body};
use crate::gemm::layout::{Padded, Swizzled};
use kernels_macros::kernel;

const THREADS: u32 = TILING.threads();

pub const PADDED: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_VECTORIZED_PADDED,
    launch: |m, n| launch_for::<Padded>(TILING, m, n),
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_vectorized_padded,
};
pub const SWIZZLED: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_VECTORIZED_SWIZZLED,
    launch: |m, n| launch_for::<Swizzled>(TILING, m, n),
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_vectorized_swizzled,
};

/// Rung 6's kernel ([`super::r06_vectorized::sgemm_vectorized`]: same
/// shape contract and thread mapping) with shared tiles in the [`Padded`]
/// layout.
#[kernel(bounds(THREADS, 2))]
pub unsafe fn sgemm_vectorized_padded(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe {
        sgemm_vectorized_body::<
            Padded,
            { TILING.tile_m },
            { TILING.tile_n },
            { TILING.tile_k },
            { TILING.thread_m as usize },
            { TILING.thread_n as usize },
        >(m, n, k, alpha, a, b, beta, c)
    }
}

/// Rung 6's kernel ([`super::r06_vectorized::sgemm_vectorized`]: same
/// shape contract and thread mapping) with shared tiles in the [`Swizzled`]
/// layout.
#[kernel(bounds(THREADS, 2))]
pub unsafe fn sgemm_vectorized_swizzled(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe {
        sgemm_vectorized_body::<
            Swizzled,
            { TILING.tile_m },
            { TILING.tile_n },
            { TILING.tile_k },
            { TILING.thread_m as usize },
            { TILING.thread_n as usize },
        >(m, n, k, alpha, a, b, beta, c)
    }
}
// ANCHOR_END: rung
