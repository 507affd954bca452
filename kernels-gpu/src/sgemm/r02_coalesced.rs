// ANCHOR: rung
//! Rung 2: global-memory coalescing. Same arithmetic as rung 1; only the
//! mapping from thread to element of C changes.
//!
//! Now the 32 lanes of a warp share one row and take 32 consecutive
//! columns. Their reads of B and writes of C fall in four 32-byte sectors
//! instead of 32, and all lanes read the same element of A (one broadcast).
//! Same FLOPs, far fewer bytes moved per warp request.
//!
//! Each thread walks down a column of B, one row length per step. That
//! step is written with [`gpu::advance`], one wide multiply-add, as nvcc
//! emits for the C++ version; a plain 64-bit pointer add costs two
//! instructions per load, and this kernel spends most of its instructions on
//! addresses (docs/measurements.md has the difference).

use crate::gemm::epilogue::store_scalar;
use crate::gpu::{self, Dim3};
use crate::launch::{LaunchShape, tile_count};
use kernels_macros::kernel;

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_COALESCED,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_coalesced,
};
/// Each block computes a `TILE`×`TILE` square of C with `TILE*TILE` threads.
pub const TILE: u32 = 32;

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    LaunchShape { grid: Dim3::new(tile_count(m, TILE), tile_count(n, TILE), 1), block: Dim3::new(TILE * TILE, 1, 1), shared_bytes: 0 }
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 1024 threads covers the 32×32 tile of C at row 32·x,
/// column 32·y; thread t computes C[32·x + t / 32][32·y + t % 32], so a
/// warp's 32 lanes share a row and read and write consecutive columns.
#[kernel]
pub unsafe fn sgemm_coalesced(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let thread = gpu::thread_idx().x;
    // Consecutive threads (one warp) → same row, consecutive columns.
    let row = gpu::block_idx().x * TILE + thread / TILE;
    let col = gpu::block_idx().y * TILE + thread % TILE;
    if row < m && col < n {
        let a_row = unsafe { a.add(row as usize * k as usize) };
        let mut b_col = unsafe { b.add(col as usize) };
        let mut acc = 0.0f32;
        for i in 0..k {
            acc = gpu::fma(unsafe { gpu::load(a_row.add(i as usize)) }, unsafe { gpu::load(b_col) }, acc);
            b_col = gpu::advance(b_col, n);
        }
        unsafe { store_scalar(c, row as usize * n as usize + col as usize, alpha, acc, beta) };
    }
}
// ANCHOR_END: rung
