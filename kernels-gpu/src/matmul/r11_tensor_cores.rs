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
//! On the H200: 60 TFLOP/s at 4096³, 1.37× rung 10 and 1.18× cuBLAS's SGEMM
//! (which runs on the FP32 pipes), with relative error 3e-7 against the f64
//! reference (the FFMA rungs: 1.1e-6). The tensor pipe is busy 57% of the
//! time: with 245 registers per thread only 8 warps fit on an SM, and they
//! stall waiting on `mma` results. Shapes with 16 warps per SM (32×32 warp
//! tiles, or two 64×128 blocks) measured 103-110% of cuBLAS.
//!
//! One difference from FFMA: an infinite input gives NaN (∞ − ∞ in the
//! split) where the FFMA rungs give ±∞.

use super::{GemmKernel, LaunchShape, epilogue::store_scalar, float_bytes, tiled_launch};
use crate::gpu::{self, WARP_SIZE, cp_async_4, cp_async_16, cp_async_commit, cp_async_wait, mma_tf32, split_tf32};

/// A block tile of `tile_m`×`tile_n`, `tile_k` deep per pipeline stage,
/// split among `warps_m`×`warps_n` warps; `stages` tiles in flight.
#[derive(Clone, Copy)]
pub struct TensorTiling {
    pub tile_m: u32,
    pub tile_n: u32,
    pub tile_k: u32,
    pub warps_m: u32,
    pub warps_n: u32,
    pub stages: u32,
}

/// Rows of an `mma` tile of A (and C), columns of B (and C), and its depth.
const MMA_M: u32 = 16;
const MMA_N: u32 = 8;
const MMA_K: u32 = 8;
/// Row padding in floats: A rows are `tile_k + 4` long and B rows
/// `tile_n + 8`, so a fragment's 32 reads fall in 32 different banks.
const A_PAD: u32 = 4;
const B_PAD: u32 = 8;

impl TensorTiling {
    pub const fn threads(self) -> u32 {
        self.warps_m * self.warps_n * WARP_SIZE
    }
    const fn a_stride(self) -> u32 {
        self.tile_k + A_PAD
    }
    const fn b_stride(self) -> u32 {
        self.tile_n + B_PAD
    }
    const fn a_floats(self) -> u32 {
        self.tile_m * self.a_stride()
    }
    const fn stage_floats(self) -> u32 {
        self.a_floats() + self.tile_k * self.b_stride()
    }
    const fn shared_bytes(self) -> u32 {
        float_bytes(self.stages * self.stage_floats())
    }
    pub const fn launch(self, m: u32, n: u32) -> LaunchShape {
        tiled_launch(m, n, self.tile_m, self.tile_n, self.threads(), self.shared_bytes())
    }
    /// Fails at compile time unless `MT`×`NT` mma tiles make a warp tile,
    /// `depth` mma steps make `tile_k`, and the copies divide evenly among
    /// the threads.
    const fn check(self, mt: usize, nt: usize, depth: usize) {
        assert!(self.tile_k == depth as u32 * MMA_K, "tile_k = DEPTH * 8");
        assert!(self.tile_m == self.warps_m * mt as u32 * MMA_M, "tile_m = warps_m * MT * 16");
        assert!(self.tile_n == self.warps_n * nt as u32 * MMA_N, "tile_n = warps_n * NT * 8");
        assert!(self.stages >= 2 && self.stages <= 5);
        assert!((self.tile_m * self.tile_k / 4) % self.threads() == 0);
        assert!((self.tile_k * self.tile_n / 4) % self.threads() == 0);
    }
}

/// Copies `cols` floats of `rows` rows, 4 at a time, from `src` (a
/// `src_rows`×`src_cols` row-major matrix, starting at (`row0`, `col0`)) to
/// `dst` (row stride `dst_stride`). Outside the matrix copies read nothing
/// and leave zeros.
#[inline(always)]
unsafe fn copy_tile(
    dst: *mut f32,
    dst_stride: u32,
    (rows, cols): (u32, u32),
    src: *const f32,
    (src_rows, src_cols): (u32, u32),
    (row0, col0): (u32, u32),
    (thread, threads): (u32, u32),
    interior: bool,
) {
    let quads = cols / 4;
    for i in 0..rows * quads / threads {
        let q = thread + i * threads;
        let (r, c) = (q / quads, (q % quads) * 4);
        let d = unsafe { dst.add((r * dst_stride + c) as usize) };
        let (gr, gc) = (row0 + r, col0 + c);
        let at = |col: u32| unsafe { src.add(gr as usize * src_cols as usize + col as usize) };
        if interior {
            unsafe { cp_async_16(d, at(gc), 16) };
        } else if src_cols % 4 == 0 {
            let valid = if gr < src_rows && gc < src_cols { (src_cols - gc).min(4) } else { 0 };
            unsafe { cp_async_16(d, if valid > 0 { at(gc) } else { src }, valid * 4) };
        } else {
            // Rows are not 16-byte aligned: four 4-byte copies.
            for j in 0..4 {
                let inside = gr < src_rows && gc + j < src_cols;
                unsafe { cp_async_4(d.add(j as usize), if inside { at(gc + j) } else { src }, if inside { 4 } else { 0 }) };
            }
        }
    }
}

/// The warp's A fragments for one `mma` depth step, each split in two:
/// `[mt][0]` big parts, `[mt][1]` small parts.
#[inline(always)]
unsafe fn a_fragments<const MT: usize>(t: TensorTiling, a_tile: *const f32, warp_row: u32, k: u32, lane: u32) -> [[[u32; 4]; 2]; MT] {
    let (g, q) = (lane / 4, lane % 4);
    let mut out = [[[0; 4]; 2]; MT];
    for mt in 0..MT {
        let row = warp_row + mt as u32 * MMA_M + g;
        let at = |r: u32, c: u32| unsafe { gpu::load(a_tile.add((r * t.a_stride() + c) as usize)) };
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
unsafe fn b_fragments<const NT: usize>(t: TensorTiling, b_tile: *const f32, warp_col: u32, k: u32, lane: u32) -> [[[u32; 2]; 2]; NT] {
    let (g, q) = (lane / 4, lane % 4);
    let mut out = [[[0; 2]; 2]; NT];
    for nt in 0..NT {
        let col = warp_col + nt as u32 * MMA_N + g;
        let at = |r: u32| unsafe { gpu::load(b_tile.add((r * t.b_stride() + col) as usize)) };
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
    t: TensorTiling,
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
    let stage = |s: u32| unsafe { shared.add((s * t.stage_floats()) as usize) };
    let thread = gpu::thread_idx().x;
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    let warp_row = (warp / t.warps_n) * MT as u32 * MMA_M;
    let warp_col = (warp % t.warps_n) * NT as u32 * MMA_N;
    let row0 = gpu::block_idx().y * t.tile_m;
    let col0 = gpu::block_idx().x * t.tile_n;
    let steps = k.div_ceil(t.tile_k);
    let full_block = row0 + t.tile_m <= m && col0 + t.tile_n <= n && n % 4 == 0 && k % 4 == 0;
    let copy = |s: u32, step: u32| {
        let k0 = step * t.tile_k;
        let interior = full_block && k0 + t.tile_k <= k;
        let a_tile = stage(s);
        let b_tile = unsafe { a_tile.add(t.a_floats() as usize) };
        let this_thread = (thread, t.threads());
        unsafe {
            copy_tile(a_tile, t.a_stride(), (t.tile_m, t.tile_k), a, (m, k), (row0, k0), this_thread, interior);
            copy_tile(b_tile, t.b_stride(), (t.tile_k, t.tile_n), b, (k, n), (k0, col0), this_thread, interior);
        }
    };

    // Same pipeline as rung 10: `stages - 1` steps in flight ahead.
    for s in 0..t.stages - 1 {
        if s < steps {
            copy(s, s);
        }
        cp_async_commit();
    }
    let mut acc = [[[0.0f32; 4]; NT]; MT];
    for step in 0..steps {
        cp_async_wait_for(t.stages);
        gpu::sync_threads();
        let next = step + t.stages - 1;
        if next < steps {
            copy(next % t.stages, next);
        }
        cp_async_commit();
        let a_tile = stage(step % t.stages);
        let b_tile = unsafe { a_tile.add(t.a_floats() as usize) };
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

/// `cp.async.wait_group stages-2`: the PTX instruction takes a constant.
#[inline(always)]
fn cp_async_wait_for(stages: u32) {
    match stages {
        2 => cp_async_wait::<0>(),
        3 => cp_async_wait::<1>(),
        4 => cp_async_wait::<2>(),
        5 => cp_async_wait::<3>(),
        _ => unreachable!(),
    }
}

pub const TILING: TensorTiling = TensorTiling { tile_m: 128, tile_n: 128, tile_k: 32, warps_m: 2, warps_n: 4, stages: 4 };
const MT: usize = 4;
const NT: usize = 4;
const DEPTH: usize = 4;
const _: () = TILING.check(MT, NT, DEPTH);
pub const THREADS: u32 = TILING.threads();

pub const KERNEL: GemmKernel = gemm_kernel!(sgemm_tensor_cores, launch, THREADS, 1);

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    TILING.launch(m, n)
}

kernel! {
    pub fn sgemm_tensor_cores(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        unsafe { sgemm_tensor_body::<MT, NT, DEPTH>(TILING, m, n, k, alpha, a, b, beta, c) }
    }
}
