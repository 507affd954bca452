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

use super::r06_vectorized::{SharedLayout, THREAD_M, THREAD_N, TILE_K, TILE_M, TILE_N, launch_for, sgemm_vectorized_body, threads};
use kernels_macros::kernel;

/// Rows padded by one 16-byte group.
pub struct Padded;

impl SharedLayout for Padded {
    const ROW_PAD: u32 = 4;
    #[inline(always)]
    fn a_col(_k: u32, col: u32) -> u32 {
        col
    }
    #[inline(always)]
    fn b_col(_k: u32, col: u32) -> u32 {
        col
    }
}

/// XOR-swizzled 16-byte groups, no padding.
pub struct Swizzled;

impl SharedLayout for Swizzled {
    const ROW_PAD: u32 = 0;
    #[inline(always)]
    fn a_col(k: u32, col: u32) -> u32 {
        (((col / 4) ^ (k % 8)) * 4) | (col % 4)
    }
    #[inline(always)]
    fn b_col(_k: u32, col: u32) -> u32 {
        (((col / 4) ^ ((col / 32) % 2)) * 4) | (col % 4)
    }
}

const THREADS: u32 = threads(TILE_M, TILE_N, THREAD_M, THREAD_N);

pub const PADDED: super::GemmKernel =
    gemm_kernel!(sgemm_vectorized_padded, launch_for::<Padded, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>, THREADS, 2);
pub const SWIZZLED: super::GemmKernel =
    gemm_kernel!(sgemm_vectorized_swizzled, launch_for::<Swizzled, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>, THREADS, 2);

#[kernel]
pub unsafe fn sgemm_vectorized_padded(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe { sgemm_vectorized_body::<Padded, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>(m, n, k, alpha, a, b, beta, c) }
}

#[kernel]
pub unsafe fn sgemm_vectorized_swizzled(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe { sgemm_vectorized_body::<Swizzled, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>(m, n, k, alpha, a, b, beta, c) }
}
