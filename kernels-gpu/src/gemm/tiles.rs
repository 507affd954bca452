//! Moving tiles from global memory: four consecutive floats of one row,
//! with zeros for whatever lies outside the matrix.

use super::layout::SharedLayout;
use crate::gpu::{load, load_f32x4, store, store_f32x4};

/// `matrix[row][col..col+4]` of a `rows`×`cols` row-major matrix, zero where
/// outside it. Uses one 128-bit load when the row is 16-byte aligned
/// (`cols % 4 == 0`, `col % 4 == 0`) and all four are inside.
///
/// # Safety
/// `matrix` must be a `rows`×`cols` row-major matrix.
#[inline(always)]
pub unsafe fn load_row4(matrix: *const f32, rows: u32, cols: u32, row: u32, col: u32) -> [f32; 4] {
    let mut out = [0.0; 4];
    if row < rows {
        let base = row as usize * cols as usize + col as usize;
        unsafe {
            if cols % 4 == 0 && col + 4 <= cols {
                out = load_f32x4(matrix.add(base));
            } else {
                for i in 0..4 {
                    if col + (i as u32) < cols {
                        out[i] = load(matrix.add(base + i));
                    }
                }
            }
        }
    }
    out
}

/// `matrix[row][col]`, or zero outside the `rows`×`cols` matrix.
///
/// # Safety
/// `matrix` must be a `rows`×`cols` row-major matrix.
#[inline(always)]
pub unsafe fn load_or_zero(matrix: *const f32, rows: u32, cols: u32, row: u32, col: u32) -> f32 {
    if row < rows && col < cols { unsafe { load(matrix.add(row as usize * cols as usize + col as usize)) } } else { 0.0 }
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
    (thread, threads): (u32, u32),
) {
    let a_quads = tile_m * tile_k / 4;
    for i in 0..a_quads.div_ceil(threads) {
        let q = thread + i * threads;
        if a_quads % threads == 0 || q < a_quads {
            // Two quads (8 values of k) per row of A, then the next row; the
            // next slab of 8 k values after all tile_m rows.
            let row = (q / 2) % tile_m;
            let kk = (q % 2) * 4 + (q / (2 * tile_m)) * 8;
            let values = unsafe { load_row4(a, m, k, row0 + row, k0 + kk) };
            for j in 0..4u32 {
                let r = kk + j;
                let value = values[j as usize];
                unsafe { store(a_tile.add((r * (tile_m + L::ROW_PAD) + L::a_col(r, row)) as usize), value) };
            }
        }
    }
    let b_quads = tile_k * tile_n / 4;
    for i in 0..b_quads.div_ceil(threads) {
        let q = thread + i * threads;
        if b_quads % threads == 0 || q < b_quads {
            let r = q / (tile_n / 4);
            let col = (q % (tile_n / 4)) * 4;
            let values = unsafe { load_row4(b, k, n, k0 + r, col0 + col) };
            unsafe { store_f32x4(b_tile.add((r * (tile_n + L::ROW_PAD) + L::b_col(r, col)) as usize), values) };
        }
    }
}
