// ANCHOR: rung
//! Rung 4: 1D register blocking. Each thread now computes a column of
//! `THREAD_M` = 8 results instead of one.
//!
//! In rung 3 every multiply-add needed its own value of B from shared
//! memory. Here a thread keeps its column of the B tile (8 values) in
//! registers and reuses each value for 8 rows: per tile step it does 64 FMAs
//! for 8 loads of B and 16 128-bit loads of A rows (as in rung 3, a row of
//! the A tile is contiguous), where rung 3 needed 64 loads of B alone. The
//! block covers a 64×64 tile of C with 512 threads, so each float fetched
//! from global memory also serves twice as many results.

use crate::gemm::tiling::Tiling;
use crate::gemm::{epilogue::store_scalar, tiles::load_or_zero};
use crate::gpu::{self, load_f32x4};
use crate::launch::LaunchShape;
use kernels_macros::kernel;

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_BLOCKTILE_1D,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_blocktile_1d,
};
/// Block tile 64×64, 8 deep; each thread 8 results stacked down one column.
pub const TILING: Tiling = Tiling::block(64, 64, 8, 8, 1);
pub const THREADS: u32 = TILING.threads();
const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
const THREAD_M: u32 = TILING.thread_m;

// Each thread loads one element of each tile.
const _: () = {
    TILING.check();
    assert!(TILING.thread_n == 1 && THREADS == TILE_M * TILE_K && THREADS == TILE_K * TILE_N);
};

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    TILING.launch(m, n, TILE_M * TILE_K + TILE_K * TILE_N)
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 512 threads covers the 64×64 tile of C at row 64·y,
/// column 64·x; thread t computes column t % 64, rows (t / 64)·8 to +8 of
/// the tile, and loads one element of each 64×8 and 8×64 tile per step.
#[kernel]
pub unsafe fn sgemm_blocktile_1d(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let a_tile = gpu::dynamic_shared::<f32>(); // TILE_M × TILE_K
    let b_tile = unsafe { a_tile.add((TILE_M * TILE_K) as usize) }; // TILE_K × TILE_N

    let thread = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * TILE_M;
    let col0 = gpu::block_idx().x * TILE_N;
    // Which column of the tile this thread owns, and which 8 rows.
    let tile_col = thread % TILE_N;
    let tile_row = (thread / TILE_N) * THREAD_M;
    // Which element of each tile this thread loads (one of each).
    let (a_r, a_c) = (thread / TILE_K, thread % TILE_K);
    let (b_r, b_c) = (thread / TILE_N, thread % TILE_N);

    let mut acc = [0.0f32; THREAD_M as usize];
    let mut k0 = 0;
    while k0 < k {
        unsafe {
            let a_value = load_or_zero(a, m, k, row0 + a_r, k0 + a_c);
            gpu::store(a_tile.add(thread as usize), a_value);
            let b_value = load_or_zero(b, k, n, k0 + b_r, col0 + b_c);
            gpu::store(b_tile.add(thread as usize), b_value);
        }
        gpu::sync_threads();
        let mut b_column = [0.0f32; TILE_K as usize];
        for kk in 0..TILE_K as usize {
            b_column[kk] = unsafe { gpu::load(b_tile.add(kk * TILE_N as usize + tile_col as usize)) };
        }
        for r in 0..THREAD_M as usize {
            let a_row = unsafe { a_tile.add((tile_row as usize + r) * TILE_K as usize) };
            for quad in 0..TILE_K as usize / 4 {
                let a4 = unsafe { load_f32x4(a_row.add(4 * quad)) };
                for j in 0..4 {
                    acc[r] = gpu::fma(a4[j], b_column[4 * quad + j], acc[r]);
                }
            }
        }
        gpu::sync_threads();
        k0 += TILE_K;
    }

    let col = col0 + tile_col;
    for r in 0..THREAD_M {
        let row = row0 + tile_row + r;
        if row < m && col < n {
            unsafe { store_scalar(c, row as usize * n as usize + col as usize, alpha, acc[r as usize], beta) };
        }
    }
}
// ANCHOR_END: rung
