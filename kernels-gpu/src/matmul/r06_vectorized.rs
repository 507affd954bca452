//! Rung 6: 128-bit accesses. Same 128×128 tile and 8×8 results per thread
//! as rung 5, but every memory access moves four floats at once.
//!
//! - Global loads and stores use `ld/st.global.v4.f32`: a quarter of the
//!   load instructions, and each warp request covers whole 32-byte sectors.
//! - The A tile is stored *transposed* (k-major) in shared memory, so the 8
//!   values of A a thread needs at one step of k sit side by side and come
//!   in two 128-bit shared loads, like the 8 values of B. Rung 5 needed 16
//!   scalar shared loads per step; this needs 4.
//!
//! The kernel body is generic over the shared-memory layout and the tile
//! sizes: rung 7 changes only the layout, rung 8 only the sizes.

use super::epilogue::store_row4;
use super::tiles::load_row4;
use super::{LaunchShape, float_bytes, tiled_launch};
use crate::gpu::{self, load_f32x4, store_f32x4};

/// Where each element of the two shared tiles lives. Both tiles are k-major:
/// row `k` of the A tile holds A[row0..row0+TILE_M][k0 + k] (A transposed),
/// row `k` of the B tile holds B[k0 + k][col0..col0+TILE_N]. A layout may pad
/// each row and may permute columns, as long as it keeps every aligned group
/// of four columns contiguous and 16-byte aligned (128-bit accesses).
pub trait SharedLayout {
    /// Floats of padding after each row; a multiple of 4.
    const ROW_PAD: u32;
    /// Physical column of logical column `col` in row `k` of the A tile.
    fn a_col(k: u32, col: u32) -> u32;
    /// Physical column of logical column `col` in row `k` of the B tile.
    fn b_col(k: u32, col: u32) -> u32;
}

/// The obvious layout: rows of exactly TILE_M (or TILE_N) floats.
pub struct Plain;

impl SharedLayout for Plain {
    const ROW_PAD: u32 = 0;
    #[inline(always)]
    fn a_col(_k: u32, col: u32) -> u32 {
        col
    }
    #[inline(always)]
    fn b_col(_k: u32, col: u32) -> u32 {
        col
    }
}

/// Shared memory for the two tiles of one stage.
pub const fn shared_floats<L: SharedLayout>(tile_m: u32, tile_n: u32, tile_k: u32) -> u32 {
    tile_k * (tile_m + L::ROW_PAD) + tile_k * (tile_n + L::ROW_PAD)
}

/// Threads for a `TILE_M`×`TILE_N` block tile with `THREAD_M`×`THREAD_N`
/// results per thread.
pub const fn threads(tile_m: u32, tile_n: u32, thread_m: usize, thread_n: usize) -> u32 {
    (tile_m / thread_m as u32) * (tile_n / thread_n as u32)
}

/// Launch shape of [`sgemm_vectorized_body`] for these parameters.
pub const fn launch_for<L: SharedLayout, const TILE_M: u32, const TILE_N: u32, const TILE_K: u32, const THREAD_M: usize, const THREAD_N: usize>(
    m: u32,
    n: u32,
) -> LaunchShape {
    tiled_launch(
        m,
        n,
        TILE_M,
        TILE_N,
        threads(TILE_M, TILE_N, THREAD_M, THREAD_N),
        float_bytes(shared_floats::<L>(TILE_M, TILE_N, TILE_K)),
    )
}

/// Copies the A tile (transposed) and the B tile of step `k0` from global
/// to shared memory with 128-bit global loads; zeros outside the matrices.
///
/// The block walks the A tile in slabs of 8 columns of k: one warp then
/// reads 16 rows × 32 bytes (whole sectors) and its transposed stores touch 8
/// consecutive rows of the tile, which the layouts of rung 7 spread over all
/// 32 banks.
///
/// # Safety
/// `a_tile`/`b_tile` must hold the tiles described by `L` and the sizes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn load_tiles<L: SharedLayout>(
    a_tile: *mut f32,
    b_tile: *mut f32,
    (a, b): (*const f32, *const f32),
    (m, n, k): (u32, u32, u32),
    (row0, col0, k0): (u32, u32, u32),
    (tile_m, tile_n, tile_k): (u32, u32, u32),
    (t, threads): (u32, u32),
) {
    let a_quads = tile_m * tile_k / 4;
    for i in 0..a_quads.div_ceil(threads) {
        let q = t + i * threads;
        if a_quads % threads == 0 || q < a_quads {
            // Two quads (8 values of k) per row of A, then the next row; the
            // next slab of 8 k values after all tile_m rows.
            let row = (q / 2) % tile_m;
            let kk = (q % 2) * 4 + (q / (2 * tile_m)) * 8;
            let values = unsafe { load_row4(a, m, k, row0 + row, k0 + kk) };
            for j in 0..4u32 {
                let r = kk + j;
                let value = values[j as usize];
                unsafe { gpu::store(a_tile.add((r * (tile_m + L::ROW_PAD) + L::a_col(r, row)) as usize), value) };
            }
        }
    }
    let b_quads = tile_k * tile_n / 4;
    for i in 0..b_quads.div_ceil(threads) {
        let q = t + i * threads;
        if b_quads % threads == 0 || q < b_quads {
            let r = q / (tile_n / 4);
            let col = (q % (tile_n / 4)) * 4;
            let values = unsafe { load_row4(b, k, n, k0 + r, col0 + col) };
            unsafe { store_f32x4(b_tile.add((r * (tile_n + L::ROW_PAD) + L::b_col(r, col)) as usize), values) };
        }
    }
}

/// The kernel of rungs 6, 7 and 8: block tile `TILE_M`×`TILE_N`, steps of
/// `TILE_K`, each thread a contiguous `THREAD_M`×`THREAD_N` square of C.
///
/// # Safety
/// Must be launched with [`launch_for`] of the same parameters.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn sgemm_vectorized_body<L: SharedLayout, const TILE_M: u32, const TILE_N: u32, const TILE_K: u32, const THREAD_M: usize, const THREAD_N: usize>(
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    a: *const f32,
    b: *const f32,
    beta: f32,
    c: *mut f32,
) {
    const { assert!(THREAD_M % 4 == 0 && THREAD_N % 4 == 0 && TILE_K % 8 == 0 && TILE_M % 32 == 0 && TILE_N % 32 == 0) };
    let a_stride = TILE_M + L::ROW_PAD;
    let b_stride = TILE_N + L::ROW_PAD;
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((TILE_K * a_stride) as usize) };

    let t = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * TILE_M;
    let col0 = gpu::block_idx().x * TILE_N;
    let threads_per_row = TILE_N / THREAD_N as u32;
    let tile_row = (t / threads_per_row) * THREAD_M as u32;
    let tile_col = (t % threads_per_row) * THREAD_N as u32;

    let mut acc = [[0.0f32; THREAD_N]; THREAD_M];
    let mut a_frag = [0.0f32; THREAD_M];
    let mut b_frag = [0.0f32; THREAD_N];
    let mut k0 = 0;
    while k0 < k {
        unsafe {
            load_tiles::<L>(
                a_tile,
                b_tile,
                (a, b),
                (m, n, k),
                (row0, col0, k0),
                (TILE_M, TILE_N, TILE_K),
                (t, threads(TILE_M, TILE_N, THREAD_M, THREAD_N)),
            )
        };
        gpu::sync_threads();
        for kk in 0..TILE_K {
            for i in 0..THREAD_M / 4 {
                let col = tile_row + 4 * i as u32;
                let v = unsafe { load_f32x4(a_tile.add((kk * a_stride + L::a_col(kk, col)) as usize)) };
                a_frag[4 * i..4 * i + 4].copy_from_slice(&v);
            }
            for j in 0..THREAD_N / 4 {
                let col = tile_col + 4 * j as u32;
                let v = unsafe { load_f32x4(b_tile.add((kk * b_stride + L::b_col(kk, col)) as usize)) };
                b_frag[4 * j..4 * j + 4].copy_from_slice(&v);
            }
            for r in 0..THREAD_M {
                for j in 0..THREAD_N {
                    acc[r][j] = gpu::fma(a_frag[r], b_frag[j], acc[r][j]);
                }
            }
        }
        gpu::sync_threads();
        k0 += TILE_K;
    }

    for r in 0..THREAD_M {
        let row = row0 + tile_row + r as u32;
        if row < m {
            for j in 0..THREAD_N / 4 {
                let quad = [acc[r][4 * j], acc[r][4 * j + 1], acc[r][4 * j + 2], acc[r][4 * j + 3]];
                unsafe { store_row4(c, n, row, col0 + tile_col + 4 * j as u32, alpha, quad, beta) };
            }
        }
    }
}

pub const TILE_M: u32 = 128;
pub const TILE_N: u32 = 128;
pub const TILE_K: u32 = 8;
pub const THREAD_M: usize = 8;
pub const THREAD_N: usize = 8;

pub const KERNEL: super::GemmKernel = gemm_kernel!(
    sgemm_vectorized,
    launch_for::<Plain, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>,
    threads(TILE_M, TILE_N, THREAD_M, THREAD_N),
    2
);

kernel! {
    pub fn sgemm_vectorized(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        unsafe { sgemm_vectorized_body::<Plain, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N>(m, n, k, alpha, a, b, beta, c) }
    }
}
