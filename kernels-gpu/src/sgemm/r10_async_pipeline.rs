// ANCHOR: rung
//! Rung 10: asynchronous copies, several stages deep. Rung 9's warp tiling,
//! but tiles travel from global to shared memory with `cp.async` (sm_80+)
//! while the warps compute on tiles that already arrived.
//!
//! In rung 9 every step was load → barrier → compute → barrier, so each SM
//! sat idle through a global-memory round trip per step unless another block
//! filled the gap. Here shared memory holds `STAGES` = 4 steps: the copies
//! for step t+3 are in flight while step t is computed, there is one barrier
//! per step instead of two, and the copies bypass registers (no staging
//! registers, no load/store instructions for them in the loop).
//!
//! Registers freed from staging pay for a bigger thread tile: 8×16 results
//! per thread (warp tile 64×64, block tile 128×256), so each step's 6
//! 128-bit shared loads feed 128 FMAs instead of 4 feeding 64.
//!
//! `cp.async` copies bytes as they are, so it cannot transpose A with
//! 16-byte copies: A moves as 4-byte copies into rung 7's swizzled k-major
//! tile (8 lanes per row along k: whole 32-byte sectors from global memory,
//! 32 different banks in shared memory). B moves as 16-byte copies. Inside
//! the matrices no copy checks bounds; on edge tiles copies that fall outside
//! read nothing and fill zeros (the `src-size` operand).

use crate::gemm::copy_ring::CopyRing;
use crate::gemm::layout::{SharedLayout, Swizzled, a_tile_floats, stage_floats};
use crate::gemm::tiling::Tiling;
use crate::gemm::warp_tile::{Accumulators, QUAD, check, multiply_tile, store_accumulators, thread_origin};
use crate::gpu::{self, cp_async_4, cp_async_16};
use crate::launch::LaunchShape;
use kernels_macros::kernel;

/// Block tile 128×256 in 4 stages, warp tiles 64×64, 8×16 results per
/// thread.
pub const TILING: Tiling = Tiling::block(128, 256, 8, 8, 16).with_warp_tile(64, 64).with_stages(4);
pub const ITER_M: usize = 2;
pub const ITER_N: usize = 4;
/// Tiles resident in shared memory at once.
pub const STAGES: u32 = TILING.stages;
pub const THREADS: u32 = TILING.threads();
type Layout = Swizzled;
const _: () = check(TILING, ITER_M, ITER_N);
const _: () = assert!((TILING.tile_m * TILING.tile_k) % THREADS == 0 && (TILING.tile_k * TILING.tile_n / 4) % THREADS == 0);

/// About 230 registers per thread: one block of 256 threads per SM.
pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_ASYNC_PIPELINE,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_async_pipeline,
};

/// Shared floats for one stage: the A and B tiles in the swizzled layout.
const STAGE_FLOATS: u32 = stage_floats::<Layout>(TILING);

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    TILING.launch(m, n, STAGE_FLOATS)
}

/// Starts the copies of step `k0` into `stage` (A tile then B tile).
/// `interior`: the step lies inside A and B and rows of B are 16-byte
/// aligned, so no copy needs a bounds check.
///
/// # Safety
/// `stage` must point to `STAGE_FLOATS` floats of shared memory.
#[inline(always)]
unsafe fn start_copies(
    stage: *mut f32,
    (a, b): (*const f32, *const f32),
    (m, n, k): (u32, u32, u32),
    (row0, col0, k0): (u32, u32, u32),
    thread: u32,
    interior: bool,
) {
    let (tile_m, tile_n, tile_k) = (TILING.tile_m, TILING.tile_n, TILING.tile_k);
    let a_tile = stage;
    let b_tile = unsafe { stage.add(a_tile_floats::<Layout>(TILING) as usize) };
    for i in 0..tile_m * tile_k / THREADS {
        // 8 consecutive k of one row per 8 lanes, then the next row.
        let e = thread + i * THREADS;
        let kk = (e % 8) + (e / (8 * tile_m)) * 8;
        let row = (e / 8) % tile_m;
        let (gr, gk) = (row0 + row, k0 + kk);
        let dst = unsafe { a_tile.add((kk * tile_m + Layout::a_col(kk, row)) as usize) };
        let inside = interior || (gr < m && gk < k);
        let src = if inside { unsafe { a.add(gr as usize * k as usize + gk as usize) } } else { a };
        unsafe { cp_async_4(dst, src, if inside { 4 } else { 0 }) };
    }
    for i in 0..tile_k * tile_n / 4 / THREADS {
        let q = thread + i * THREADS;
        let r = q / (tile_n / 4);
        let col = (q % (tile_n / 4)) * 4;
        let (gr, gc) = (k0 + r, col0 + col);
        let dst = unsafe { b_tile.add((r * tile_n + Layout::b_col(r, col)) as usize) };
        if interior {
            unsafe { cp_async_16(dst, b.add(gr as usize * n as usize + gc as usize), 16) };
        } else if n % 4 == 0 {
            let valid = if gr < k && gc < n { (n - gc).min(4) } else { 0 };
            let src = if valid > 0 { unsafe { b.add(gr as usize * n as usize + gc as usize) } } else { b };
            unsafe { cp_async_16(dst, src, valid * 4) };
        } else {
            // Rows of B are not 16-byte aligned: four 4-byte copies.
            for j in 0..4 {
                let inside = gr < k && gc + j < n;
                let src = if inside { unsafe { b.add(gr as usize * n as usize + (gc + j) as usize) } } else { b };
                unsafe { cp_async_4(dst.add(j as usize), src, if inside { 4 } else { 0 }) };
            }
        }
    }
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 256 threads covers the 128×256 tile of C at row 128·y,
/// column 256·x, with 4 stages of shared memory (48 KB). Warp w owns the
/// 64×64 warp tile at rows (w / 4)·64, columns (w % 4)·64; its lane l owns
/// 2×4 squares of 4×4 results at rows (l / 4)·4 + {0, 32} and columns
/// (l % 4)·4 + {0, 16, 32, 48} of the warp tile.
#[kernel(bounds(THREADS, 1))]
pub unsafe fn sgemm_async_pipeline(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let thread = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * TILING.tile_m;
    let col0 = gpu::block_idx().x * TILING.tile_n;
    let origin = thread_origin::<ITER_M, ITER_N>(TILING, thread);
    let steps = k.div_ceil(TILING.tile_k);
    let ring = CopyRing::new(gpu::dynamic_shared::<f32>(), STAGE_FLOATS, STAGES, steps);
    // Blocks whose tile lies inside C, with aligned rows of B, copy
    // without bounds checks except on a partial last step of k.
    let full_block = row0 + TILING.tile_m <= m && col0 + TILING.tile_n <= n && n % 4 == 0;
    let copy = |s: u32, step: u32| {
        let k0 = step * TILING.tile_k;
        let interior = full_block && k0 + TILING.tile_k <= k;
        unsafe { start_copies(ring.stage(s), (a, b), (m, n, k), (row0, col0, k0), thread, interior) }
    };

    // The first STAGES-1 steps in flight; then each step waits for its
    // stage and starts the copies STAGES-1 steps ahead.
    unsafe { ring.start(copy) };
    let mut acc: Accumulators<ITER_M, ITER_N> = [[[[0.0; QUAD]; ITER_N]; QUAD]; ITER_M];
    for step in 0..steps {
        let current = unsafe { ring.advance(step, copy) };
        let b_tile = unsafe { current.add(a_tile_floats::<Layout>(TILING) as usize) };
        unsafe { multiply_tile::<Layout, ITER_M, ITER_N>(TILING, current, b_tile, origin, &mut acc) };
    }
    unsafe { store_accumulators(TILING, c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
}
// ANCHOR_END: rung
