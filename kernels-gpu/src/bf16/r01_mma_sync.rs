// ANCHOR: rung
//! BF16 rung 1: tensor cores through `mma.sync` (the Ampere instruction,
//! which Hopper still runs), bf16 inputs, fp32 accumulation.
//!
//! The structure is the SGEMM ladder's rung 11 without the 3xTF32 split:
//! bf16 inputs go to the tensor core as they are, one
//! `mma.sync.m16n8k16` per 16×8×16 tile (4096 multiply-adds). Block tiles
//! of 128×256×32 travel global → shared in a 3-stage `cp.async` pipeline
//! (16-byte copies, 8 bf16 each); 8 warps each own a 64×64 tile of C,
//! 4×8 `mma` tiles, 128 fp32 accumulators per lane.
//!
//! Fragments come out of shared memory with `ldmatrix`: one instruction
//! gives each lane its four A registers (four 8×8 tiles), and its `.trans`
//! form reads B, which is stored K×N row-major, as the k-major pairs the
//! `mma` B operand wants, so neither operand is rearranged on the way in.
//! Rows are padded by 8 bf16 (16 bytes) so that the 8 row addresses of one
//! 8×8 tile fall in different banks.
//!
//! Edges: rows of A (or B) whose length is a multiple of 8 are copied with
//! `cp.async`, zero-filling what lies outside the matrix; other shapes
//! (K or N not a multiple of 8, so rows are not 16-byte aligned) load
//! element by element. Any M, N, K works.
//!
//! The 64×64 warp tiles do twice the `mma` work per `ldmatrix` and per
//! barrier of 64×32 ones. With 242 registers only 8 warps fit on an SM,
//! and `mma.sync` has each warp wait on its own results: Hopper's `wgmma`,
//! asynchronous and fed from shared memory, is the next step. Measured
//! numbers, and the shapes tried, are in `docs/measurements.md`.

use super::Bf16Kernel;
use crate::gemm::copy_ring::CopyRing;
use crate::gemm::tiling::Tiling;
use crate::gpu::{self, WARP_SIZE, cp_async_16, ldmatrix_x4, ldmatrix_x4_trans, mma_bf16};
use crate::launch::{LaunchShape, tiled_launch};
use kernels_macros::kernel;

/// Block tile 128×256×32 in 3 stages; warp tile 64×64; each lane holds 128
/// accumulators (the `mma` fragment layout: 2 rows × 2 columns of each of
/// its 4×8 16×8 tiles, counted as an 8×16 thread tile).
pub const TILING: Tiling = Tiling::block(128, 256, 32, 8, 16).with_warp_tile(64, 64).with_stages(3);
const _: () = TILING.check();
const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
const WARPS_M: u32 = TILE_M / TILING.warp_m;
const WARPS_N: u32 = TILING.warps_n();
const STAGES: u32 = TILING.stages;
/// `mma` tiles per warp: MT × 16 rows, NT × 8 columns.
const MT: usize = (TILING.warp_m / 16) as usize;
const NT: usize = (TILING.warp_n / 8) as usize;
/// 16 bytes of padding per shared-memory row (see the header).
const PAD: u32 = 8;
const A_STRIDE: u32 = TILE_K + PAD;
const B_STRIDE: u32 = TILE_N + PAD;
const A_ELEMENTS: u32 = TILE_M * A_STRIDE;
const STAGE_ELEMENTS: u32 = A_ELEMENTS + TILE_K * B_STRIDE;
/// bf16 values per 16-byte copy.
const CHUNK: u32 = 8;
pub const THREADS: u32 = TILING.threads();
/// Dynamic shared memory of one block: the stages of both tiles.
pub const SHARED_BYTES: u32 = STAGES * STAGE_ELEMENTS * 2;

const _: () = {
    assert!(TILE_M == WARPS_M * MT as u32 * 16 && TILE_N == WARPS_N * NT as u32 * 8);
    assert!(TILE_K % 16 == 0 && NT % 2 == 0 && STAGES >= 2);
    assert!((TILE_M * TILE_K / CHUNK) % THREADS == 0 && (TILE_K * TILE_N / CHUNK) % THREADS == 0);
    // ldmatrix rows and cp.async destinations must be 16-byte aligned.
    assert!((A_STRIDE * 2) % 16 == 0 && (B_STRIDE * 2) % 16 == 0 && (A_ELEMENTS * 2) % 16 == 0);
};

pub const KERNEL: Bf16Kernel = Bf16Kernel {
    kernel: BF16_MMA_SYNC,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: bf16_mma_sync,
};

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, TILE_M, TILE_N, THREADS, SHARED_BYTES)
}

/// Copies a `rows`×`cols` tile starting at (`row0`, `col0`) of the
/// `src_rows`×`src_cols` row-major `src` to `dst` (row stride
/// `dst_stride`), 8 values per thread step; zeros outside the matrix.
#[inline(always)]
unsafe fn copy_tile(
    dst: *mut u16,
    dst_stride: u32,
    (rows, cols): (u32, u32),
    src: *const u16,
    (src_rows, src_cols): (u32, u32),
    (row0, col0): (u32, u32),
    thread: u32,
) {
    let chunks = cols / CHUNK;
    for i in 0..rows * chunks / THREADS {
        let q = thread + i * THREADS;
        let (r, c) = (q / chunks, (q % chunks) * CHUNK);
        let d = unsafe { dst.add((r * dst_stride + c) as usize) };
        let (gr, gc) = (row0 + r, col0 + c);
        let at = |col: u32| unsafe { src.add(gr as usize * src_cols as usize + col as usize) };
        if src_cols % CHUNK == 0 {
            // Rows are 16-byte aligned and a chunk is all in or all out.
            let inside = gr < src_rows && gc < src_cols;
            let from = if inside { at(gc) } else { src };
            unsafe { cp_async_16(d.cast(), from.cast(), if inside { 16 } else { 0 }) };
        } else {
            // One 16-byte store of the chunk (as the 16-byte copy writes),
            // so the emulator's checkers see it: they track whole words.
            let mut chunk = [0u16; CHUNK as usize];
            for j in 0..CHUNK {
                let inside = gr < src_rows && gc + j < src_cols;
                chunk[j as usize] = if inside { unsafe { *at(gc + j) } } else { 0 };
            }
            unsafe { gpu::store(d.cast::<[u16; CHUNK as usize]>(), chunk) };
        }
    }
}

/// `C = A·B` with A `m`×`k` and B `k`×`n` row-major bf16 (as u16 bits) and C
/// `m`×`n` row-major fp32, only written; any shape. Launch: one block of 256
/// threads per 128×256 tile of C (x over column tiles), [`SHARED_BYTES`]
/// of dynamic shared memory. Warp `w` owns the 64×64 tile at rows
/// `64·(w / 4)`, columns `64·(w % 4)` of the block tile; lane `l` holds, in
/// each of its 4×8 `mma` tiles, rows `l / 4` and `l / 4 + 8` and columns
/// `2·(l % 4)` and `2·(l % 4) + 1`.
#[kernel(bounds(THREADS, 1))]
pub unsafe fn bf16_mma_sync(m: u32, n: u32, k: u32, a: *const u16, b: *const u16, c: *mut f32) {
    let thread = gpu::thread_idx().x;
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    let warp_row = (warp / WARPS_N) * MT as u32 * 16;
    let warp_col = (warp % WARPS_N) * NT as u32 * 8;
    let row0 = gpu::block_idx().y * TILE_M;
    let col0 = gpu::block_idx().x * TILE_N;
    let steps = k.div_ceil(TILE_K);
    let ring = CopyRing::new(gpu::dynamic_shared::<u16>(), STAGE_ELEMENTS, STAGES, steps);
    let copy = |s: u32, step: u32| {
        let k0 = step * TILE_K;
        let a_tile = ring.stage(s);
        let b_tile = unsafe { a_tile.add(A_ELEMENTS as usize) };
        unsafe {
            copy_tile(a_tile, A_STRIDE, (TILE_M, TILE_K), a, (m, k), (row0, k0), thread);
            copy_tile(b_tile, B_STRIDE, (TILE_K, TILE_N), b, (k, n), (k0, col0), thread);
        }
    };

    unsafe { ring.start(copy) };
    // ldmatrix: lane l gives the address of row l % 16, column block
    // l / 16 of a 16×16 tile (tiles 0-3: rows 0-7/8-15 × columns 0-7/8-15).
    let (frag_row, frag_col) = (lane % 16, 8 * (lane / 16));
    let mut acc = [[[0.0f32; 4]; NT]; MT];
    for step in 0..steps {
        let a_tile = unsafe { ring.advance(step, copy) };
        let b_tile = unsafe { a_tile.add(A_ELEMENTS as usize) };
        for kk in 0..TILE_K / 16 {
            let mut a_frags = [[0u32; 4]; MT];
            for mt in 0..MT {
                let row = warp_row + mt as u32 * 16 + frag_row;
                a_frags[mt] = unsafe { ldmatrix_x4(a_tile.add((row * A_STRIDE + kk * 16 + frag_col) as usize)) };
            }
            // One transposed load covers two 8-column B tiles: registers
            // 0-1 are the first tile's fragment, 2-3 the second's.
            let mut b_frags = [[0u32; 4]; NT / 2];
            for p in 0..NT / 2 {
                let col = warp_col + p as u32 * 16 + frag_col;
                b_frags[p] = unsafe { ldmatrix_x4_trans(b_tile.add(((kk * 16 + frag_row) * B_STRIDE + col) as usize)) };
            }
            for mt in 0..MT {
                for nt in 0..NT {
                    let pair = b_frags[nt / 2];
                    let b_frag = [pair[2 * (nt % 2)], pair[2 * (nt % 2) + 1]];
                    acc[mt][nt] = mma_bf16(a_frags[mt], b_frag, acc[mt][nt]);
                }
            }
        }
    }

    let (g, q) = (lane / 4, lane % 4);
    for mt in 0..MT {
        for nt in 0..NT {
            let row = row0 + warp_row + mt as u32 * 16 + g;
            let col = col0 + warp_col + nt as u32 * 8 + 2 * q;
            for i in 0..4 {
                let (r, cc) = (row + 8 * (i as u32 / 2), col + i as u32 % 2);
                if r < m && cc < n {
                    unsafe { gpu::store(c.add(r as usize * n as usize + cc as usize), acc[mt][nt][i]) };
                }
            }
        }
    }
}
// ANCHOR_END: rung
