//! Rung 10: asynchronous copies, several stages deep. Rung 9's warp tiling,
//! but tiles travel from global to shared memory with `cp.async` (sm_80+)
//! while the warps compute on tiles that already arrived.
//!
//! In rung 9 every step was load → barrier → compute → barrier, so each SM
//! sat idle through a global-memory round trip per step unless other blocks
//! filled the gap. Here shared memory holds `STAGES` = 3 steps: the copies
//! for step t+2 are in flight while step t is computed, one barrier per step
//! instead of two, and the copies bypass registers (no staging registers,
//! no load/store instructions in the loop body).
//!
//! `cp.async` copies bytes as they are, so it cannot transpose A with
//! 16-byte copies: A moves as 4-byte copies into the swizzled k-major tile
//! (eight per thread per step, a warp covering 4 rows × 8 values of k so its
//! reads are whole sectors and its writes all different banks). B moves as
//! 16-byte copies. Copies that fall outside the matrices read nothing and
//! fill zeros (the `src-size` operand).

use super::r06_vectorized::{SharedLayout, shared_floats};
use super::r09_warptiling::{
    Accumulators, Layout, THREAD_M, THREAD_N, THREADS, TILE_K, TILE_M, TILE_N, WARP_ITER_M, WARP_ITER_N, multiply_tile,
    store_accumulators, thread_origin,
};
use super::{LaunchShape, float_bytes, tiled_launch};
use crate::gpu::{self, cp_async_4, cp_async_16, cp_async_commit, cp_async_wait};

/// Tiles resident in shared memory at once.
pub const STAGES: u32 = 3;
const STAGE_FLOATS: u32 = shared_floats::<Layout>(TILE_M, TILE_N, TILE_K);
const A_STRIDE: u32 = TILE_M + Layout::ROW_PAD;
const B_STRIDE: u32 = TILE_N + Layout::ROW_PAD;

pub const KERNEL: super::GemmKernel = gemm_kernel!(sgemm_double_buffered, launch);

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, TILE_M, TILE_N, THREADS, float_bytes(STAGES * STAGE_FLOATS))
}

/// Starts the copies of step `k0` into `stage` (A tile then B tile).
///
/// # Safety
/// `stage` must point to `STAGE_FLOATS` floats of shared memory.
#[inline(always)]
unsafe fn start_copies(stage: *mut f32, (a, b): (*const f32, *const f32), (m, n, k): (u32, u32, u32), (row0, col0, k0): (u32, u32, u32), t: u32) {
    let a_tile = stage;
    let b_tile = unsafe { stage.add((TILE_K * A_STRIDE) as usize) };
    // A: 4-byte copies, 8 consecutive k of one row per 8 lanes.
    let a_elements = TILE_M * TILE_K;
    for i in 0..a_elements / THREADS {
        let e = t + i * THREADS;
        let kk = (e % 8) + (e / (8 * TILE_M)) * 8;
        let row = (e / 8) % TILE_M;
        let (gr, gk) = (row0 + row, k0 + kk);
        let inside = gr < m && gk < k;
        let src = if inside { unsafe { a.add(gr as usize * k as usize + gk as usize) } } else { a };
        let dst = unsafe { a_tile.add((kk * A_STRIDE + Layout::a_col(kk, row)) as usize) };
        unsafe { cp_async_4(dst, src, if inside { 4 } else { 0 }) };
    }
    // B: 16-byte copies of 4 consecutive columns when rows are 16-byte
    // aligned; otherwise four 4-byte copies.
    let b_quads = TILE_K * TILE_N / 4;
    for i in 0..b_quads / THREADS {
        let q = t + i * THREADS;
        let r = q / (TILE_N / 4);
        let col = (q % (TILE_N / 4)) * 4;
        let (gr, gc) = (k0 + r, col0 + col);
        let dst = unsafe { b_tile.add((r * B_STRIDE + Layout::b_col(r, col)) as usize) };
        let row_inside = gr < k;
        if n % 4 == 0 {
            let valid = if row_inside && gc < n { (n - gc).min(4) } else { 0 };
            let src = if valid > 0 { unsafe { b.add(gr as usize * n as usize + gc as usize) } } else { b };
            unsafe { cp_async_16(dst, src, valid * 4) };
        } else {
            for j in 0..4 {
                let inside = row_inside && gc + j < n;
                let src = if inside { unsafe { b.add(gr as usize * n as usize + (gc + j) as usize) } } else { b };
                unsafe { cp_async_4(dst.add(j as usize), src, if inside { 4 } else { 0 }) };
            }
        }
    }
}

const _: () = assert!((TILE_M * TILE_K) % THREADS == 0 && (TILE_K * TILE_N / 4) % THREADS == 0);

kernel! {
    pub fn sgemm_double_buffered(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        let shared = gpu::dynamic_shared::<f32>();
        let stage = |s: u32| unsafe { shared.add((s * STAGE_FLOATS) as usize) };
        let t = gpu::thread_idx().x;
        let row0 = gpu::block_idx().y * TILE_M;
        let col0 = gpu::block_idx().x * TILE_N;
        let origin = thread_origin(t);
        let steps = k.div_ceil(TILE_K);

        // Prologue: the first STAGES-1 steps in flight. Every thread commits a
        // group per step, even an empty one, so group counts stay aligned.
        for s in 0..STAGES - 1 {
            if s < steps {
                unsafe { start_copies(stage(s), (a, b), (m, n, k), (row0, col0, s * TILE_K), t) };
            }
            cp_async_commit();
        }

        let mut acc: Accumulators = [[[[0.0; THREAD_N]; WARP_ITER_N]; THREAD_M]; WARP_ITER_M];
        for step in 0..steps {
            // Step `step` has landed once at most STAGES-2 newer groups are
            // pending; the barrier makes every thread's copies visible and
            // guarantees all warps finished computing step-1.
            cp_async_wait::<{ STAGES - 2 }>();
            gpu::sync_threads();
            // Refill the stage step-1 used with step+STAGES-1.
            let next = step + STAGES - 1;
            if next < steps {
                unsafe { start_copies(stage(next % STAGES), (a, b), (m, n, k), (row0, col0, next * TILE_K), t) };
            }
            cp_async_commit();
            let current = stage(step % STAGES);
            unsafe {
                multiply_tile::<Layout>(current, current.add((TILE_K * A_STRIDE) as usize), origin, &mut acc)
            };
        }
        unsafe { store_accumulators(c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
    }
}
