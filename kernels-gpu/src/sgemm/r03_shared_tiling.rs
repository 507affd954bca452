// ANCHOR: rung
//! Rung 3: shared-memory tiling. The block stages a 32×32 tile of A and one
//! of B in shared memory, then every thread reads its 32 products' operands
//! from there.
//!
//! In rung 2 each float of A and B was fetched from global memory (or L2) by
//! 32 different threads. Here each is fetched once per block and reused 32
//! times from on-chip memory: global traffic drops 32×. Two barriers per tile:
//! one so no thread reads a tile before it is fully written, one so no thread
//! overwrites it while others still read.
//!
//! The 32 values of A a thread needs per tile are one contiguous row of the
//! tile, shared by the whole warp (a broadcast), so they are read four at a
//! time with 128-bit shared loads. nvcc does that by itself for the C++
//! version, whose `__shared__` array has a known alignment; LLVM cannot prove
//! the alignment through the dynamic shared-memory window, so here the
//! 128-bit load is written out.
//!
//! The tile loads index A and B with 32-bit element offsets that move by a
//! tile per step (the host keeps every matrix below 2^31 elements), so each
//! address is one wide multiply-add; 64-bit index arithmetic made each a
//! chain of four instructions.

use crate::gemm::epilogue::store_scalar;
use crate::gpu::{self, load_f32x4};
use crate::launch::{LaunchShape, float_bytes, tiled_launch};
use kernels_macros::kernel;

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_SHARED_TILING,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_shared_tiling,
};
pub const TILE: u32 = 32;
const THREADS: u32 = TILE * TILE;

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, TILE, TILE, THREADS, float_bytes(2 * TILE * TILE))
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 1024 threads covers the 32×32 tile of C at row 32·y,
/// column 32·x, with 8 KB of shared memory; thread t computes the element
/// at (t / 32, t % 32) of the tile and loads that element of each 32×32
/// tile of A and B per step.
#[kernel]
pub unsafe fn sgemm_shared_tiling(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((TILE * TILE) as usize) };

    let thread = gpu::thread_idx().x;
    let (ty, tx) = (thread / TILE, thread % TILE);
    let row = gpu::block_idx().y * TILE + ty;
    let col = gpu::block_idx().x * TILE + tx;
    let me = (ty * TILE + tx) as usize;
    // Offsets of this thread's elements of the first tiles of A and B
    // (wrapping: rows past the matrix are never read).
    let mut a_at = row.wrapping_mul(k).wrapping_add(tx);
    let mut b_at = ty.wrapping_mul(n).wrapping_add(col);

    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < k {
        unsafe {
            // Each thread brings one element of each tile (zero outside).
            let a_value = if row < m && k0 + tx < k { gpu::load(a.add(a_at as usize)) } else { 0.0 };
            gpu::store(a_tile.add(me), a_value);
            let b_value = if k0 + ty < k && col < n { gpu::load(b.add(b_at as usize)) } else { 0.0 };
            gpu::store(b_tile.add(me), b_value);
        }
        a_at = a_at.wrapping_add(TILE);
        b_at = b_at.wrapping_add(TILE.wrapping_mul(n));
        gpu::sync_threads();
        let a_row = unsafe { a_tile.add((ty * TILE) as usize) };
        let b_col = unsafe { b_tile.add(tx as usize) };
        for i in (0..TILE as usize).step_by(4) {
            let a4 = unsafe { load_f32x4(a_row.add(i)) };
            for j in 0..4 {
                acc = gpu::fma(a4[j], unsafe { gpu::load(b_col.add((i + j) * TILE as usize)) }, acc);
            }
        }
        gpu::sync_threads();
        k0 += TILE;
    }
    if row < m && col < n {
        unsafe { store_scalar(c, row as usize * n as usize + col as usize, alpha, acc, beta) };
    }
}
// ANCHOR_END: rung
