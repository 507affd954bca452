// ANCHOR: rung
//! Rung 1: naive. One thread per element of C, each walking a row of A and
//! a column of B straight from global memory.
//!
//! The thread's x index picks the *row*. The 32 lanes of a warp therefore
//! read 32 different rows of A (K floats apart) and write 32 different rows
//! of C: every lane needs its own 32-byte sector, so a warp moves up to 32
//! times the bytes it uses. This is the baseline the next rungs fix.

use crate::gemm::epilogue::store_scalar;
use crate::gpu::{self, Dim3};
use crate::launch::{LaunchShape, tile_count};
use kernels_macros::kernel;

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_NAIVE,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_naive,
};
/// Threads per block along each of x and y.
pub const BLOCK_EDGE: u32 = 32;

/// One thread per element of C: x over rows, y over columns.
pub const fn launch(m: u32, n: u32) -> LaunchShape {
    LaunchShape {
        grid: Dim3::new(tile_count(m, BLOCK_EDGE), tile_count(n, BLOCK_EDGE), 1),
        block: Dim3::new(BLOCK_EDGE, BLOCK_EDGE, 1),
        shared_bytes: 0,
    }
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Thread (x, y) of the 32×32 grid of threads computes C[row][col] with
/// `row = global x`, `col = global y`: neighbouring lanes own neighbouring
/// rows, so their loads of B and stores of C are 4·n bytes apart.
#[kernel]
pub unsafe fn sgemm_naive(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let row = gpu::global_x();
    let col = gpu::global_y();
    if row < m && col < n {
        let mut acc = 0.0f32;
        for i in 0..k as usize {
            unsafe {
                let a_ik = gpu::load(a.add(row as usize * k as usize + i));
                let b_kj = gpu::load(b.add(i * n as usize + col as usize));
                acc = gpu::fma(a_ik, b_kj, acc);
            }
        }
        unsafe { store_scalar(c, row as usize * n as usize + col as usize, alpha, acc, beta) };
    }
}
// ANCHOR_END: rung
