//! Exercise 9, solved: the tile's rows are 33 floats apart, so column `c`
//! of rows 0..32 lies in banks `(33 r + c) % 32`, all different.

use crate::gpu::{self, load, store};
use crate::{TILE, TILE_ROWS};
use kernels_macros::kernel;

/// Floats from one tile row to the next: one more than the tile is wide.
const PITCH: u32 = TILE + 1;

#[kernel]
pub unsafe fn sol09_transpose_padded(src: *const f32, dst: *mut f32, rows: u32, cols: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (block_col, block_row) = (gpu::block_idx().x * TILE, gpu::block_idx().y * TILE);
    let mut r = ty;
    while r < TILE {
        let (row, col) = (block_row + r, block_col + tx);
        if row < rows && col < cols {
            unsafe { store(tile.add((r * PITCH + tx) as usize), load(src.add((row * cols + col) as usize))) };
        }
        r += TILE_ROWS;
    }
    gpu::sync_threads();
    let mut r = ty;
    while r < TILE {
        let (dst_row, dst_col) = (block_col + r, block_row + tx);
        if dst_row < cols && dst_col < rows {
            unsafe { store(dst.add((dst_row * rows + dst_col) as usize), load(tile.add((tx * PITCH + r) as usize))) };
        }
        r += TILE_ROWS;
    }
}
