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
//! addresses (12.3% instead of 11.5% of cuBLAS on the H200).

use super::{LaunchShape, epilogue::store_scalar, tiles};
use crate::gpu::{self, Dim3};

pub const KERNEL: super::GemmKernel = gemm_kernel!(sgemm_coalesced, launch);
/// Each block computes a `TILE`×`TILE` square of C with `TILE*TILE` threads.
pub const TILE: u32 = 32;

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    LaunchShape {
        grid: Dim3::new(tiles(m, TILE), tiles(n, TILE), 1),
        block: Dim3::new(TILE * TILE, 1, 1),
        shared_bytes: 0,
    }
}

kernel! {
    pub fn sgemm_coalesced(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        let t = gpu::thread_idx().x;
        // Consecutive threads (one warp) → same row, consecutive columns.
        let row = gpu::block_idx().x * TILE + t / TILE;
        let col = gpu::block_idx().y * TILE + t % TILE;
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
}
