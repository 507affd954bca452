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

use super::layout::{Padded, Swizzled};
use super::r06_vectorized::{TILING, launch_for};
use kernels_macros::kernel;

const THREADS: u32 = TILING.threads();

pub const PADDED: super::GemmKernel = gemm_kernel!(sgemm_vectorized_padded, |m, n| launch_for::<Padded>(TILING, m, n), THREADS, 2);
pub const SWIZZLED: super::GemmKernel = gemm_kernel!(sgemm_vectorized_swizzled, |m, n| launch_for::<Swizzled>(TILING, m, n), THREADS, 2);

/// Rung 6's kernel ([`super::r06_vectorized::sgemm_vectorized`]: same
/// shape contract and thread mapping) with shared tiles in the [`Padded`]
/// layout.
#[kernel]
pub unsafe fn sgemm_vectorized_padded(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe { vectorized_body!(Padded, TILING)(m, n, k, alpha, a, b, beta, c) }
}

/// Rung 6's kernel ([`super::r06_vectorized::sgemm_vectorized`]: same
/// shape contract and thread mapping) with shared tiles in the [`Swizzled`]
/// layout.
#[kernel]
pub unsafe fn sgemm_vectorized_swizzled(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe { vectorized_body!(Swizzled, TILING)(m, n, k, alpha, a, b, beta, c) }
}
