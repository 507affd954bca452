// ANCHOR: rung
//! Rung 11: tensor cores, keeping fp32 accuracy by splitting each input
//! into two TF32 numbers (3xTF32).
//!
//! Rungs 1-10 do every multiply-add on the FP32 pipes (FFMA): one per lane
//! per instruction. One `mma.sync` instruction has the warp's tensor cores
//! do a 16×8×8 tile, 1024 multiply-adds, but on TF32 inputs (10 mantissa
//! bits instead of 23), which alone would miss 1e-5 relative error. Writing
//! x = big + small, both TF32, and summing big·big + big·small + small·big
//! recovers about 21 bits, for three tensor-core instructions per tile.
//! That is still many more multiply-adds per clock than the FP32 pipes.
//!
//! The rest is rung 10's structure: block tiles in a 4-stage `cp.async`
//! pipeline, warp tiles inside. The tiles are stored the way fragments are
//! read (A row-major, B k-major), with rows padded so that the 32 lanes'
//! reads of one fragment hit 32 different banks; both travel as 16-byte
//! copies.
//!
//! With 245 registers per thread only 8 warps fit on an SM, so the tensor
//! pipe waits on `mma` results part of the time; docs/measurements.md has
//! the numbers, and the shapes tried.
//!
//! One difference from FFMA: an infinite input gives NaN (∞ − ∞ in the
//! split) where the FFMA rungs give ±∞.

use crate::gemm::copy_ring::{CopyRing, copy_tile};
use crate::gemm::epilogue::store_scalar;
use crate::gemm::tiling::Tiling;
use crate::gpu::{self, WARP_SIZE, mma_tf32, split_tf32};
use crate::launch::LaunchShape;
use kernels_macros::kernel;

/// Rows of an `mma` tile of A (and C), columns of B (and C), and its depth.
const MMA_M: u32 = 16;
const MMA_N: u32 = 8;
const MMA_K: u32 = 8;
/// Row padding in floats: A rows are `tile_k + 4` long and B rows
/// `tile_n + 8`, so a fragment's 32 reads fall in 32 different banks.
const A_PAD: u32 = 4;
const B_PAD: u32 = 8;

/// Rung 11's padded layout of a tiling's stage: A row-major with rows of
/// `tile_k + A_PAD`, then B k-major with rows of `tile_n + B_PAD`.
const fn a_stride(t: Tiling) -> u32 {
    t.tile_k + A_PAD
}
const fn b_stride(t: Tiling) -> u32 {
    t.tile_n + B_PAD
}
const fn a_floats(t: Tiling) -> u32 {
    t.tile_m * a_stride(t)
}
const fn stage_floats(t: Tiling) -> u32 {
    a_floats(t) + t.tile_k * b_stride(t)
}

/// Fails at compile time unless `MT`×`NT` mma tiles make a warp tile, a
/// thread holds 2×2 of each, `depth` mma steps make `tile_k`, and the copies
/// divide evenly among the threads.
const fn check(t: Tiling, mt: usize, nt: usize, depth: usize) {
    t.check();
    assert!(t.tile_k == depth as u32 * MMA_K, "tile_k = DEPTH * 8");
    assert!(t.warp_m == mt as u32 * MMA_M && t.warp_n == nt as u32 * MMA_N, "warp tile = MT×NT mma tiles");
    assert!(t.thread_m == 2 * mt as u32 && t.thread_n == 2 * nt as u32);
    assert!(t.stages >= 2 && t.stages <= 5);
    assert!((t.tile_m * t.tile_k / 4) % t.threads() == 0);
    assert!((t.tile_k * t.tile_n / 4) % t.threads() == 0);
}

/// The warp's A fragments for one `mma` depth step, each split in two:
/// `[mt][0]` big parts, `[mt][1]` small parts.
#[inline(always)]
unsafe fn a_fragments<const MT: usize>(t: Tiling, a_tile: *const f32, warp_row: u32, k: u32, lane: u32) -> [[[u32; 4]; 2]; MT] {
    let (g, q) = (lane / 4, lane % 4);
    let mut out = [[[0; 4]; 2]; MT];
    for mt in 0..MT {
        let row = warp_row + mt as u32 * MMA_M + g;
        let at = |r: u32, c: u32| unsafe { gpu::load(a_tile.add((r * a_stride(t) + c) as usize)) };
        let values = [at(row, k + q), at(row + 8, k + q), at(row, k + q + 4), at(row + 8, k + q + 4)];
        for i in 0..4 {
            let (big, small) = split_tf32(values[i]);
            out[mt][0][i] = big;
            out[mt][1][i] = small;
        }
    }
    out
}

/// The warp's B fragments for one depth step, split like A's.
#[inline(always)]
unsafe fn b_fragments<const NT: usize>(t: Tiling, b_tile: *const f32, warp_col: u32, k: u32, lane: u32) -> [[[u32; 2]; 2]; NT] {
    let (g, q) = (lane / 4, lane % 4);
    let mut out = [[[0; 2]; 2]; NT];
    for nt in 0..NT {
        let col = warp_col + nt as u32 * MMA_N + g;
        let at = |r: u32| unsafe { gpu::load(b_tile.add((r * b_stride(t) + col) as usize)) };
        let values = [at(k + q), at(k + q + 4)];
        for i in 0..2 {
            let (big, small) = split_tf32(values[i]);
            out[nt][0][i] = big;
            out[nt][1][i] = small;
        }
    }
    out
}

/// Rung 11's kernel for any tiling; `MT`×`NT` mma tiles per warp.
///
/// # Safety
/// Launch with `t.launch(m, n)`.
#[inline(always)]
unsafe fn sgemm_tensor_body<const MT: usize, const NT: usize, const DEPTH: usize>(
    t: Tiling,
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    a: *const f32,
    b: *const f32,
    beta: f32,
    c: *mut f32,
) {
    let thread = gpu::thread_idx().x;
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    let warp_row = (warp / t.warps_n()) * MT as u32 * MMA_M;
    let warp_col = (warp % t.warps_n()) * NT as u32 * MMA_N;
    let row0 = gpu::block_idx().y * t.tile_m;
    let col0 = gpu::block_idx().x * t.tile_n;
    let steps = k.div_ceil(t.tile_k);
    let ring = CopyRing::new(gpu::dynamic_shared::<f32>(), stage_floats(t), t.stages, steps);
    let full_block = row0 + t.tile_m <= m && col0 + t.tile_n <= n && n % 4 == 0 && k % 4 == 0;
    let copy = |s: u32, step: u32| {
        let k0 = step * t.tile_k;
        let interior = full_block && k0 + t.tile_k <= k;
        let a_tile = ring.stage(s);
        let b_tile = unsafe { a_tile.add(a_floats(t) as usize) };
        let this_thread = (thread, t.threads());
        unsafe {
            copy_tile(a_tile, a_stride(t), (t.tile_m, t.tile_k), a, (m, k), (row0, k0), this_thread, interior);
            copy_tile(b_tile, b_stride(t), (t.tile_k, t.tile_n), b, (k, n), (k0, col0), this_thread, interior);
        }
    };

    // Same pipeline as rung 10: `stages - 1` steps in flight ahead.
    unsafe { ring.start(copy) };
    let mut acc = [[[0.0f32; 4]; NT]; MT];
    for step in 0..steps {
        let a_tile = unsafe { ring.advance(step, copy) };
        let b_tile = unsafe { a_tile.add(a_floats(t) as usize) };
        // All of the step's fragments first, then, per tile of C, the
        // step's 3 × DEPTH products chained on the tensor core from zero.
        // The tensor core truncates when it adds into its accumulator, which
        // shrinks a long running sum a little at every add (2.9e-5 relative
        // error at K = 4096 when everything went into one accumulator). So
        // each step's partial sum is added to the running sum with an
        // ordinary, rounded fp32 add instead (3e-7).
        let mut a_frags = [[[[0u32; 4]; 2]; MT]; DEPTH];
        let mut b_frags = [[[[0u32; 2]; 2]; NT]; DEPTH];
        for d in 0..DEPTH {
            a_frags[d] = unsafe { a_fragments::<MT>(t, a_tile, warp_row, d as u32 * MMA_K, lane) };
            b_frags[d] = unsafe { b_fragments::<NT>(t, b_tile, warp_col, d as u32 * MMA_K, lane) };
        }
        for mt in 0..MT {
            for nt in 0..NT {
                let mut part = [0.0f32; 4];
                for d in 0..DEPTH {
                    // Small terms first, so the big product comes last.
                    let [a_big, a_small] = a_frags[d][mt];
                    let [b_big, b_small] = b_frags[d][nt];
                    part = mma_tf32(a_small, b_big, part);
                    part = mma_tf32(a_big, b_small, part);
                    part = mma_tf32(a_big, b_big, part);
                }
                for i in 0..4 {
                    acc[mt][nt][i] += part[i];
                }
            }
        }
    }

    let (g, q) = (lane / 4, lane % 4);
    for mt in 0..MT {
        for nt in 0..NT {
            let row = row0 + warp_row + mt as u32 * MMA_M + g;
            let col = col0 + warp_col + nt as u32 * MMA_N + 2 * q;
            for i in 0..4 {
                let (r, cc) = (row + 8 * (i as u32 / 2), col + i as u32 % 2);
                if r < m && cc < n {
                    unsafe { store_scalar(c, r as usize * n as usize + cc as usize, alpha, acc[mt][nt][i], beta) };
                }
            }
        }
    }
}

/// Block tile 128×128, 32 deep per stage, 4 stages; warp tiles 64×32 (2×4
/// warps). A thread holds 2 rows × 2 columns of each 16×8 `mma` tile of C,
/// so its thread tile is 8×8.
pub const TILING: Tiling = Tiling::block(128, 128, 32, 8, 8).with_warp_tile(64, 32).with_stages(4);
const MT: usize = 4;
const NT: usize = 4;
const DEPTH: usize = 4;
const _: () = check(TILING, MT, NT, DEPTH);
pub const THREADS: u32 = TILING.threads();

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_TENSOR_CORES,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_tensor_cores,
};

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    TILING.launch(m, n, stage_floats(TILING))
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 256 threads covers the 128×128 tile of C at row 128·y,
/// column 128·x, with 4 stages of shared memory. Warp w owns the 64×32
/// warp tile at rows (w / 4)·64, columns (w % 4)·32, as 4×4 `mma` tiles of
/// 16×8; lane l holds rows l / 4 and l / 4 + 8, columns 2·(l % 4) and the
/// next, of each.
#[kernel(bounds(THREADS, 1))]
pub unsafe fn sgemm_tensor_cores(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe { sgemm_tensor_body::<MT, NT, DEPTH>(TILING, m, n, k, alpha, a, b, beta, c) }
}
// ANCHOR_END: rung
