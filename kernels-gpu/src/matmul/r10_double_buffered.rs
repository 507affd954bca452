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
//! 16-byte copies: each thread copies its own row of the A tile as 4-byte
//! copies into the k-major tile. At a fixed k a warp then writes 32
//! consecutive floats, so the plain layout has no bank conflicts and needs
//! no swizzle. B moves as 16-byte copies. Each thread's source rows are fixed
//! for the whole kernel, so inside the matrices a copy is one instruction
//! with a constant offset; only edge tiles take the masked path, where copies
//! that fall outside read nothing and fill zeros (the `src-size` operand).

use super::r06_vectorized::Plain;
use super::r09_warptiling::{Accumulators, QUAD, Tiling, multiply_tile, store_accumulators, thread_origin};
use super::{LaunchShape, float_bytes, tiled_launch};
use crate::gpu::{self, cp_async_4, cp_async_16, cp_async_commit, cp_async_wait};

pub const TILING: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 8, warp_m: 64, warp_n: 64 };
pub const ITER_M: usize = 2;
pub const ITER_N: usize = 4;
/// Tiles resident in shared memory at once.
pub const STAGES: u32 = 4;
pub const THREADS: u32 = TILING.threads();
const _: () = check(TILING, ITER_M, ITER_N);

pub const KERNEL: super::GemmKernel =
    gemm_kernel!(sgemm_double_buffered, |m, n| launch_for(TILING, STAGES, m, n), THREADS, 2);

/// Rung 9's checks, plus what the copy plan needs: whole rows of A per
/// thread and whole groups of 4 columns of B.
pub const fn check(tiling: Tiling, iter_m: usize, iter_n: usize) {
    tiling.check(iter_m, iter_n);
    let threads = tiling.threads();
    assert!(threads % tiling.tile_m == 0 && threads % (tiling.tile_n / 4) == 0);
    assert!((tiling.tile_k * tiling.tile_n / 4) % threads == 0 && (tiling.tile_m * tiling.tile_k) % threads == 0);
}

/// Shared floats for one stage: the A and B tiles in the plain layout.
pub const fn stage_floats(tiling: Tiling) -> u32 {
    tiling.tile_k * (tiling.tile_m + tiling.tile_n)
}

/// Launch shape for a tiling with `stages` tiles in flight.
pub const fn launch_for(tiling: Tiling, stages: u32, m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, tiling.tile_m, tiling.tile_n, tiling.threads(), float_bytes(stages * stage_floats(tiling)))
}

/// Which part of the A and B tiles thread `t` copies, fixed for the whole
/// kernel: one row of A (a run of `a_run` values of k starting at `a_k`),
/// and `b_quads` groups of 4 columns of B, `b_row_step` rows apart.
#[derive(Clone, Copy)]
struct CopyPlan {
    a_row: u32,
    a_k: u32,
    a_run: u32,
    b_row: u32,
    b_col: u32,
    b_quads: u32,
    b_row_step: u32,
}

impl CopyPlan {
    #[inline(always)]
    fn new(tiling: Tiling, t: u32) -> CopyPlan {
        let threads = tiling.threads();
        let quads_per_row = tiling.tile_n / 4;
        CopyPlan {
            a_row: t % tiling.tile_m,
            a_run: tiling.tile_m * tiling.tile_k / threads,
            a_k: (t / tiling.tile_m) * (tiling.tile_m * tiling.tile_k / threads),
            b_row: t / quads_per_row,
            b_col: (t % quads_per_row) * 4,
            b_quads: tiling.tile_k * quads_per_row / threads,
            b_row_step: threads / quads_per_row,
        }
    }
}

/// Starts the copies of step `k0` into `stage` (A tile then B tile).
/// `interior`: the whole step lies inside A and B and rows of B are 16-byte
/// aligned, so no copy needs a bounds check.
///
/// # Safety
/// `stage` must point to one stage of shared memory for `tiling`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn start_copies(
    tiling: Tiling,
    plan: CopyPlan,
    stage: *mut f32,
    (a, b): (*const f32, *const f32),
    (m, n, k): (u32, u32, u32),
    (row0, col0, k0): (u32, u32, u32),
    interior: bool,
) {
    let a_tile = stage;
    let b_tile = unsafe { stage.add((tiling.tile_k * tiling.tile_m) as usize) };
    // A: 4-byte copies along one row. At a fixed k the 32 lanes of a warp
    // write 32 consecutive floats of the k-major tile: no bank conflicts.
    let gr = row0 + plan.a_row;
    let a_src = unsafe { a.add(gr as usize * k as usize + (k0 + plan.a_k) as usize) };
    let a_dst = unsafe { a_tile.add((plan.a_k * tiling.tile_m + plan.a_row) as usize) };
    for j in 0..plan.a_run {
        let dst = unsafe { a_dst.add((j * tiling.tile_m) as usize) };
        if interior {
            unsafe { cp_async_4(dst, a_src.add(j as usize), 4) };
        } else {
            let inside = gr < m && k0 + plan.a_k + j < k;
            let src = if inside { unsafe { a_src.add(j as usize) } } else { a };
            unsafe { cp_async_4(dst, src, if inside { 4 } else { 0 }) };
        }
    }
    // B: 16-byte copies of 4 consecutive columns, or four 4-byte copies when
    // rows of B are not 16-byte aligned.
    let gc = col0 + plan.b_col;
    for i in 0..plan.b_quads {
        let r = plan.b_row + i * plan.b_row_step;
        let gr = k0 + r;
        let dst = unsafe { b_tile.add((r * tiling.tile_n + plan.b_col) as usize) };
        let src = unsafe { b.add(gr as usize * n as usize + gc as usize) };
        if interior {
            unsafe { cp_async_16(dst, src, 16) };
        } else if n % 4 == 0 {
            let valid = if gr < k && gc < n { (n - gc).min(4) } else { 0 };
            unsafe { cp_async_16(dst, if valid > 0 { src } else { b }, valid * 4) };
        } else {
            for j in 0..4 {
                let inside = gr < k && gc + j < n;
                unsafe { cp_async_4(dst.add(j as usize), if inside { src.add(j as usize) } else { b }, if inside { 4 } else { 0 }) };
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
    let stage = |s: u32| unsafe { shared.add((s * stage_floats(tiling)) as usize) };
    let t = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * tiling.tile_m;
    let col0 = gpu::block_idx().x * tiling.tile_n;
    let origin = thread_origin::<ITER_M, ITER_N>(tiling, t);
    let steps = k.div_ceil(tiling.tile_k);
    let plan = CopyPlan::new(tiling, t);
    // Blocks whose tile lies inside C, with aligned rows of B, skip every
    // bounds check except on the last, partial step of k.
    let full_block = row0 + tiling.tile_m <= m && col0 + tiling.tile_n <= n && n % 4 == 0;
    let copy = |s: u32, step: u32| {
        let k0 = step * tiling.tile_k;
        let interior = full_block && k0 + tiling.tile_k <= k;
        unsafe { start_copies(tiling, plan, stage(s), (a, b), (m, n, k), (row0, col0, k0), interior) }
    };

    // Prologue: the first STAGES-1 steps in flight. Every thread commits a
    // group per step, even an empty one, so group counts stay aligned.
    for s in 0..STAGES - 1 {
        if s < steps {
            copy(s, s);
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
            copy(next % STAGES, next);
        }
        cp_async_commit();
        let current = stage(step % STAGES);
        let b_tile = unsafe { current.add((tiling.tile_k * tiling.tile_m) as usize) };
        unsafe { multiply_tile::<Plain, ITER_M, ITER_N>(tiling, current, b_tile, origin, &mut acc) };
    }
    unsafe { store_accumulators(tiling, c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
}

kernel! {
    pub fn sgemm_double_buffered(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        unsafe { sgemm_async_body::<ITER_M, ITER_N, STAGES>(TILING, m, n, k, alpha, a, b, beta, c) }
    }
}
