//! Rung 9: warptiling. A third level of tiling between the block and the
//! thread: block tile 128×128 → eight warp tiles of 64×32 → per thread 2×2
//! squares of 4×4 results, spaced across the warp tile.
//!
//! In rung 7 a thread's 8×8 results were one contiguous square, so lanes
//! reading B hit addresses 32 bytes apart. Here, at each step of k, the 32
//! lanes of a warp read 8 consecutive 16-byte groups of A and 4 of B per
//! instruction: every shared load is one conflict-free, mostly broadcast
//! access, whatever the layout. Keeping a warp's work inside a 64×32 window
//! also gives each warp its own small working set (better register and L1
//! locality), and `tile_k` = 16 halves the barriers per FLOP. Shared tiles
//! use rung 7's swizzled layout.

use super::epilogue::store_row4;
use super::r06_vectorized::{SharedLayout, load_tiles, shared_floats};
use super::r07_bank_conflicts::Swizzled;
use super::{LaunchShape, float_bytes, tiled_launch};
use crate::gpu::{self, WARP_SIZE, load_f32x4};

pub const TILE_M: u32 = 128;
pub const TILE_N: u32 = 128;
pub const TILE_K: u32 = 16;
/// Each warp's share of the block tile.
pub const WARP_M: u32 = 64;
pub const WARP_N: u32 = 32;
/// A warp covers its tile in WARP_ITER_M × WARP_ITER_N passes...
pub const WARP_ITER_M: usize = 2;
pub const WARP_ITER_N: usize = 2;
/// ...of THREAD_M × THREAD_N results per thread each.
pub const THREAD_M: usize = 4;
pub const THREAD_N: usize = 4;
/// Rows and columns one pass of a warp covers.
const SUB_M: u32 = WARP_M / WARP_ITER_M as u32;
const SUB_N: u32 = WARP_N / WARP_ITER_N as u32;
/// How the 32 lanes tile one pass.
const LANES_N: u32 = SUB_N / THREAD_N as u32;
pub const THREADS: u32 = (TILE_M / WARP_M) * (TILE_N / WARP_N) * WARP_SIZE;

const _: () = assert!((SUB_M / THREAD_M as u32) * LANES_N == WARP_SIZE);

/// Shared-memory layout of the tiles (rung 7's lesson).
pub type Layout = Swizzled;

/// One thread's accumulators: `acc[mi][i][ni][j]` is row `mi*SUB_M + i`,
/// column `ni*SUB_N + j` of its part of the warp tile.
pub type Accumulators = [[[[f32; THREAD_N]; WARP_ITER_N]; THREAD_M]; WARP_ITER_M];

pub const KERNEL: super::GemmKernel = gemm_kernel!(sgemm_warptiling, launch);

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, TILE_M, TILE_N, THREADS, float_bytes(shared_floats::<Layout>(TILE_M, TILE_N, TILE_K)))
}

/// Row and column, inside the block tile, of this thread's first result.
#[inline(always)]
pub fn thread_origin(t: u32) -> (u32, u32) {
    let (warp, lane) = (t / WARP_SIZE, t % WARP_SIZE);
    let warp_row = (warp / (TILE_N / WARP_N)) * WARP_M;
    let warp_col = (warp % (TILE_N / WARP_N)) * WARP_N;
    (warp_row + (lane / LANES_N) * THREAD_M as u32, warp_col + (lane % LANES_N) * THREAD_N as u32)
}

/// Accumulates one `TILE_K` step from the shared tiles into `acc`.
///
/// # Safety
/// The tiles must hold a full step in layout `L`.
#[inline(always)]
pub unsafe fn multiply_tile<L: SharedLayout>(a_tile: *const f32, b_tile: *const f32, (row, col): (u32, u32), acc: &mut Accumulators) {
    let a_stride = TILE_M + L::ROW_PAD;
    let b_stride = TILE_N + L::ROW_PAD;
    for kk in 0..TILE_K {
        let mut a_frag = [[0.0f32; THREAD_M]; WARP_ITER_M];
        let mut b_frag = [[0.0f32; THREAD_N]; WARP_ITER_N];
        for (mi, frag) in a_frag.iter_mut().enumerate() {
            let col_a = row + mi as u32 * SUB_M;
            *frag = unsafe { load_f32x4(a_tile.add((kk * a_stride + L::a_col(kk, col_a)) as usize)) };
        }
        for (ni, frag) in b_frag.iter_mut().enumerate() {
            let col_b = col + ni as u32 * SUB_N;
            *frag = unsafe { load_f32x4(b_tile.add((kk * b_stride + L::b_col(kk, col_b)) as usize)) };
        }
        for mi in 0..WARP_ITER_M {
            for i in 0..THREAD_M {
                for ni in 0..WARP_ITER_N {
                    for j in 0..THREAD_N {
                        acc[mi][i][ni][j] = gpu::fma(a_frag[mi][i], b_frag[ni][j], acc[mi][i][ni][j]);
                    }
                }
            }
        }
    }
}

/// Writes a thread's accumulators to C at (`row`, `col`), masked at the
/// edges.
///
/// # Safety
/// `c` must be an `m`×`n` row-major matrix.
#[inline(always)]
pub unsafe fn store_accumulators(c: *mut f32, (m, n): (u32, u32), (row, col): (u32, u32), alpha: f32, beta: f32, acc: &Accumulators) {
    for (mi, rows) in acc.iter().enumerate() {
        for (i, quads) in rows.iter().enumerate() {
            let r = row + mi as u32 * SUB_M + i as u32;
            if r < m {
                for (ni, quad) in quads.iter().enumerate() {
                    unsafe { store_row4(c, n, r, col + ni as u32 * SUB_N, alpha, *quad, beta) };
                }
            }
        }
    }
}

kernel! {
    pub fn sgemm_warptiling(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        let a_tile = gpu::dynamic_shared::<f32>();
        let b_tile = unsafe { a_tile.add((TILE_K * (TILE_M + Layout::ROW_PAD)) as usize) };
        let t = gpu::thread_idx().x;
        let row0 = gpu::block_idx().y * TILE_M;
        let col0 = gpu::block_idx().x * TILE_N;
        let origin = thread_origin(t);

        let mut acc: Accumulators = [[[[0.0; THREAD_N]; WARP_ITER_N]; THREAD_M]; WARP_ITER_M];
        let mut k0 = 0;
        while k0 < k {
            unsafe {
                load_tiles::<Layout, TILE_M, TILE_N, TILE_K>(a_tile, b_tile, (a, b), (m, n, k), (row0, col0, k0), (t, THREADS));
            }
            gpu::sync_threads();
            unsafe { multiply_tile::<Layout>(a_tile, b_tile, origin, &mut acc) };
            gpu::sync_threads();
            k0 += TILE_K;
        }
        unsafe { store_accumulators(c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
    }
}
