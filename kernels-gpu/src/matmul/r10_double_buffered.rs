//! Rung 10: asynchronous copies, several stages deep. Rung 9's warp tiling,
//! but tiles travel from global to shared memory with `cp.async` (sm_80+)
//! while the warps compute on tiles that already arrived.
//!
//! In rung 9 every step was load → barrier → compute → barrier, so each SM
//! sat idle through a global-memory round trip per step unless another block
//! filled the gap. Here shared memory holds `STAGES` steps: the copies for
//! step t+STAGES-1 are in flight while step t is computed, there is one
//! barrier per step instead of two, and the copies bypass registers (no
//! staging registers, no load/store instructions for them in the loop).
//!
//! `cp.async` copies bytes as they are, so it cannot transpose A with
//! 16-byte copies: A moves as 4-byte copies into the swizzled k-major tile
//! (a warp covers 4 rows × 8 values of k, so its global reads are whole
//! 32-byte sectors and its shared writes land in 32 different banks). B moves
//! as 16-byte copies. Copies that fall outside the matrices read nothing and
//! fill zeros (the `src-size` operand).

use super::r06_vectorized::SharedLayout;
use super::r09_warptiling::{Accumulators, Layout, QUAD, Tiling, multiply_tile, store_accumulators, thread_origin};
use super::{LaunchShape, float_bytes, tiled_launch};
use crate::gpu::{self, cp_async_4, cp_async_16, cp_async_commit, cp_async_wait};

pub const TILING: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 16, warp_m: 64, warp_n: 32 };
pub const ITER_M: usize = 2;
pub const ITER_N: usize = 2;
/// Tiles resident in shared memory at once.
pub const STAGES: u32 = 3;
pub const THREADS: u32 = TILING.threads();
const _: () = TILING.check(ITER_M, ITER_N);

pub const KERNEL: super::GemmKernel =
    gemm_kernel!(sgemm_double_buffered, |m, n| launch_for(TILING, STAGES, m, n), THREADS, 2);

/// Launch shape for a tiling with `stages` tiles in flight.
pub const fn launch_for(tiling: Tiling, stages: u32, m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, tiling.tile_m, tiling.tile_n, tiling.threads(), float_bytes(stages * tiling.stage_floats()))
}

/// Starts the copies of step `k0` into `stage` (A tile then B tile).
///
/// # Safety
/// `stage` must point to one stage of shared memory for `tiling`.
#[inline(always)]
unsafe fn start_copies(
    tiling: Tiling,
    stage: *mut f32,
    (a, b): (*const f32, *const f32),
    (m, n, k): (u32, u32, u32),
    (row0, col0, k0): (u32, u32, u32),
    t: u32,
) {
    let threads = tiling.threads();
    let a_stride = tiling.tile_m + Layout::ROW_PAD;
    let b_stride = tiling.tile_n + Layout::ROW_PAD;
    let a_tile = stage;
    let b_tile = unsafe { stage.add((tiling.tile_k * a_stride) as usize) };
    // A: 4-byte copies, 8 consecutive k of one row per 8 lanes.
    let a_elements = tiling.tile_m * tiling.tile_k;
    for i in 0..a_elements / threads {
        let e = t + i * threads;
        let kk = (e % 8) + (e / (8 * tiling.tile_m)) * 8;
        let row = (e / 8) % tiling.tile_m;
        let (gr, gk) = (row0 + row, k0 + kk);
        let inside = gr < m && gk < k;
        let src = if inside { unsafe { a.add(gr as usize * k as usize + gk as usize) } } else { a };
        let dst = unsafe { a_tile.add((kk * a_stride + Layout::a_col(kk, row)) as usize) };
        unsafe { cp_async_4(dst, src, if inside { 4 } else { 0 }) };
    }
    // B: 16-byte copies of 4 consecutive columns when rows are 16-byte
    // aligned; otherwise four 4-byte copies.
    let b_quads = tiling.tile_k * tiling.tile_n / 4;
    for i in 0..b_quads / threads {
        let q = t + i * threads;
        let r = q / (tiling.tile_n / 4);
        let col = (q % (tiling.tile_n / 4)) * 4;
        let (gr, gc) = (k0 + r, col0 + col);
        let dst = unsafe { b_tile.add((r * b_stride + Layout::b_col(r, col)) as usize) };
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

/// Waits until the oldest of `STAGES - 1` committed copy groups has landed.
#[inline(always)]
fn wait_for_oldest<const STAGES: u32>() {
    match STAGES {
        2 => cp_async_wait::<0>(),
        3 => cp_async_wait::<1>(),
        4 => cp_async_wait::<2>(),
        _ => cp_async_wait::<0>(),
    }
}

/// The pipelined kernel body for any tiling and stage count.
///
/// # Safety
/// Must be launched with [`launch_for`] of the same tiling and stages.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn sgemm_async_body<const ITER_M: usize, const ITER_N: usize, const STAGES: u32>(
    tiling: Tiling,
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    a: *const f32,
    b: *const f32,
    beta: f32,
    c: *mut f32,
) {
    let shared = gpu::dynamic_shared::<f32>();
    let stage = |s: u32| unsafe { shared.add((s * tiling.stage_floats()) as usize) };
    let t = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * tiling.tile_m;
    let col0 = gpu::block_idx().x * tiling.tile_n;
    let origin = thread_origin::<ITER_M, ITER_N>(tiling, t);
    let steps = k.div_ceil(tiling.tile_k);

    // Prologue: the first STAGES-1 steps in flight. Every thread commits a
    // group per step, even an empty one, so group counts stay aligned.
    for s in 0..STAGES - 1 {
        if s < steps {
            unsafe { start_copies(tiling, stage(s), (a, b), (m, n, k), (row0, col0, s * tiling.tile_k), t) };
        }
        cp_async_commit();
    }

    let mut acc: Accumulators<ITER_M, ITER_N> = [[[[0.0; QUAD]; ITER_N]; QUAD]; ITER_M];
    for step in 0..steps {
        // Step `step` has landed once at most STAGES-2 newer groups are
        // pending; the barrier makes every thread's copies visible and
        // guarantees all warps finished computing step-1.
        wait_for_oldest::<STAGES>();
        gpu::sync_threads();
        // Refill the stage step-1 used with step+STAGES-1.
        let next = step + STAGES - 1;
        if next < steps {
            unsafe { start_copies(tiling, stage(next % STAGES), (a, b), (m, n, k), (row0, col0, next * tiling.tile_k), t) };
        }
        cp_async_commit();
        let current = stage(step % STAGES);
        let b_tile = unsafe { current.add((tiling.tile_k * (tiling.tile_m + Layout::ROW_PAD)) as usize) };
        unsafe { multiply_tile::<Layout, ITER_M, ITER_N>(tiling, current, b_tile, origin, &mut acc) };
    }
    unsafe { store_accumulators(tiling, c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
}

kernel! {
    pub fn sgemm_double_buffered(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        unsafe { sgemm_async_body::<ITER_M, ITER_N, STAGES>(TILING, m, n, k, alpha, a, b, beta, c) }
    }
}
