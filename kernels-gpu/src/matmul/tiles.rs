//! Moving tiles from global memory: four consecutive floats of one row,
//! with zeros for whatever lies outside the matrix.

use crate::gpu::{load, load_f32x4};

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
    if row < rows && col < cols {
        unsafe { load(matrix.add(row as usize * cols as usize + col as usize)) }
    } else {
        0.0
    }
}
