//! The warp tile of rungs 9 and 10: each warp owns `warp_m`×`warp_n` of
//! the block tile, and each thread `ITER_M`×`ITER_N` squares of
//! `QUAD`×`QUAD` results spaced across it (thread tile
//! `ITER_M * QUAD`×`ITER_N * QUAD`), so at every step of k the 32 lanes read
//! 8 consecutive 16-byte groups of A and 4 of B: conflict-free, mostly
//! broadcast shared loads, whatever the layout.

use super::epilogue::store_row4;
use super::layout::SharedLayout;
use super::tiling::Tiling;
use crate::gpu::{self, WARP_SIZE, load_f32x4};

/// A thread's results come in squares of `QUAD`×`QUAD`: one 128-bit load of
/// A and one of B per square and step of k.
pub const QUAD: usize = 4;

/// Rows and columns one pass of a warp covers, with `iter_m`×`iter_n`
/// passes per warp tile.
const fn pass(tiling: Tiling, iter_m: usize, iter_n: usize) -> (u32, u32) {
    (tiling.warp_m / iter_m as u32, tiling.warp_n / iter_n as u32)
}

/// Fails (at compile time, in a `const`) unless `tiling` has warp tiles,
/// a thread tile of `iter_m`×`iter_n` squares, and one pass of squares
/// covers exactly the 32 lanes of a warp.
pub const fn check(tiling: Tiling, iter_m: usize, iter_n: usize) {
    tiling.check();
    assert!(tiling.thread_m == iter_m as u32 * QUAD as u32 && tiling.thread_n == iter_n as u32 * QUAD as u32);
    let (pass_m, pass_n) = pass(tiling, iter_m, iter_n);
    assert!((pass_m / QUAD as u32) * (pass_n / QUAD as u32) == WARP_SIZE, "a pass must use all 32 lanes");
    assert!(tiling.tile_k % 8 == 0);
}

/// One thread's accumulators: `acc[mi][i][ni][j]` is row `mi*pass_m + i`,
/// column `ni*pass_n + j` of its part of the warp tile.
pub type Accumulators<const ITER_M: usize, const ITER_N: usize> = [[[[f32; QUAD]; ITER_N]; QUAD]; ITER_M];

/// Row and column, inside the block tile, of `thread`'s first result.
#[inline(always)]
pub fn thread_origin<const ITER_M: usize, const ITER_N: usize>(tiling: Tiling, thread: u32) -> (u32, u32) {
    let lanes_n = pass(tiling, ITER_M, ITER_N).1 / QUAD as u32;
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    let warps_n = tiling.warps_n();
    let warp_row = (warp / warps_n) * tiling.warp_m;
    let warp_col = (warp % warps_n) * tiling.warp_n;
    (warp_row + (lane / lanes_n) * QUAD as u32, warp_col + (lane % lanes_n) * QUAD as u32)
}

/// Accumulates one `tile_k` step from the shared tiles into `acc`.
///
/// # Safety
/// The tiles must hold a full step in layout `L`.
#[inline(always)]
pub unsafe fn multiply_tile<L: SharedLayout, const ITER_M: usize, const ITER_N: usize>(
    tiling: Tiling,
    a_tile: *const f32,
    b_tile: *const f32,
    (row, col): (u32, u32),
    acc: &mut Accumulators<ITER_M, ITER_N>,
) {
    let (pass_m, pass_n) = pass(tiling, ITER_M, ITER_N);
    let a_stride = tiling.tile_m + L::ROW_PAD;
    let b_stride = tiling.tile_n + L::ROW_PAD;
    for kk in 0..tiling.tile_k {
        let mut a_frag = [[0.0f32; QUAD]; ITER_M];
        let mut b_frag = [[0.0f32; QUAD]; ITER_N];
        for (mi, frag) in a_frag.iter_mut().enumerate() {
            let col_a = row + mi as u32 * pass_m;
            *frag = unsafe { load_f32x4(a_tile.add((kk * a_stride + L::a_col(kk, col_a)) as usize)) };
        }
        for (ni, frag) in b_frag.iter_mut().enumerate() {
            let col_b = col + ni as u32 * pass_n;
            *frag = unsafe { load_f32x4(b_tile.add((kk * b_stride + L::b_col(kk, col_b)) as usize)) };
        }
        for mi in 0..ITER_M {
            for i in 0..QUAD {
                for ni in 0..ITER_N {
                    for j in 0..QUAD {
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
#[allow(clippy::too_many_arguments)]
pub unsafe fn store_accumulators<const ITER_M: usize, const ITER_N: usize>(
    tiling: Tiling,
    c: *mut f32,
    (m, n): (u32, u32),
    (row, col): (u32, u32),
    alpha: f32,
    beta: f32,
    acc: &Accumulators<ITER_M, ITER_N>,
) {
    let (pass_m, pass_n) = pass(tiling, ITER_M, ITER_N);
    for (mi, rows) in acc.iter().enumerate() {
        for (i, quads) in rows.iter().enumerate() {
            let r = row + mi as u32 * pass_m + i as u32;
            if r < m {
                for (ni, quad) in quads.iter().enumerate() {
                    unsafe { store_row4(c, n, r, col + ni as u32 * pass_n, alpha, *quad, beta) };
                }
            }
        }
    }
}
