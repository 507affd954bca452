// ANCHOR: rung
//! Rung 5: 2D register blocking. Each thread computes an 8×8 square of C.
//!
//! Per step of k a thread now loads 8 values of A and 8 of B into registers
//! and does their 64 products (an outer product): each loaded value serves
//! 8 FMAs, where in rung 4 a value of B served 8 and a value of A one. The
//! block grows to a 128×128 tile with 256 threads, so each float fetched
//! from global memory serves 128 results instead of 64.
//!
//! 64 accumulators plus fragments need about 140 registers, which leaves
//! room for one block of 256 threads per SM; the launch bounds (256 threads,
//! 2 blocks per SM) ask ptxas for at most 128, so two blocks fit and one can
//! compute while the other waits at a barrier.

use crate::gemm::tiling::Tiling;
use crate::gemm::{epilogue::store_scalar, tiles::load_or_zero};
use crate::gpu;
use crate::launch::LaunchShape;
use kernels_macros::kernel;

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_BLOCKTILE_2D,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_blocktile_2d,
};
/// Block tile 128×128, 8 deep; each thread an 8×8 square.
pub const TILING: Tiling = Tiling::block(128, 128, 8, 8, 8);
pub const THREADS: u32 = TILING.threads();
const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
const THREAD_M: u32 = TILING.thread_m;
const THREAD_N: u32 = TILING.thread_n;
/// The thread tile as array lengths.
const TM: usize = THREAD_M as usize;
const TN: usize = THREAD_N as usize;

// The loaders give every thread the same number of elements of each tile.
const _: () = {
    TILING.check();
    assert!((TILE_M * TILE_K) % THREADS == 0 && (TILE_K * TILE_N) % THREADS == 0);
};

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    TILING.launch(m, n, TILE_M * TILE_K + TILE_K * TILE_N)
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 256 threads covers the 128×128 tile of C at row 128·y,
/// column 128·x; thread t computes the 8×8 square at rows (t / 16)·8,
/// columns (t % 16)·8 of the tile.
#[kernel(bounds(THREADS, 2))]
pub unsafe fn sgemm_blocktile_2d(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let a_tile = gpu::dynamic_shared::<f32>(); // TILE_M × TILE_K
    let b_tile = unsafe { a_tile.add((TILE_M * TILE_K) as usize) }; // TILE_K × TILE_N

    let thread = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * TILE_M;
    let col0 = gpu::block_idx().x * TILE_N;
    let tile_row = (thread / (TILE_N / THREAD_N)) * THREAD_M;
    let tile_col = (thread % (TILE_N / THREAD_N)) * THREAD_N;

    let mut acc = [[0.0f32; TN]; TM];
    let mut a_frag = [0.0f32; TM];
    let mut b_frag = [0.0f32; TN];
    let mut k0 = 0;
    while k0 < k {
        // The tiles have more elements than the block has threads: each
        // thread loads every THREADS-th one (a fixed count, so the loop
        // unrolls and its addresses stay in registers).
        for j in 0..TILE_M * TILE_K / THREADS {
            let i = thread + j * THREADS;
            let (r, cc) = (i / TILE_K, i % TILE_K);
            let value = unsafe { load_or_zero(a, m, k, row0 + r, k0 + cc) };
            unsafe { gpu::store(a_tile.add(i as usize), value) };
        }
        for j in 0..TILE_K * TILE_N / THREADS {
            let i = thread + j * THREADS;
            let (r, cc) = (i / TILE_N, i % TILE_N);
            let value = unsafe { load_or_zero(b, k, n, k0 + r, col0 + cc) };
            unsafe { gpu::store(b_tile.add(i as usize), value) };
        }
        gpu::sync_threads();
        for kk in 0..TILE_K {
            for r in 0..TM {
                a_frag[r] = unsafe { gpu::load(a_tile.add(((tile_row + r as u32) * TILE_K + kk) as usize)) };
            }
            for j in 0..TN {
                b_frag[j] = unsafe { gpu::load(b_tile.add((kk * TILE_N + tile_col + j as u32) as usize)) };
            }
            for r in 0..TM {
                for j in 0..TN {
                    acc[r][j] = gpu::fma(a_frag[r], b_frag[j], acc[r][j]);
                }
            }
        }
        gpu::sync_threads();
        k0 += TILE_K;
    }

    for r in 0..TM {
        let row = row0 + tile_row + r as u32;
        for j in 0..TN {
            let col = col0 + tile_col + j as u32;
            if row < m && col < n {
                unsafe { store_scalar(c, row as usize * n as usize + col as usize, alpha, acc[r][j], beta) };
            }
        }
    }
}
// ANCHOR_END: rung
