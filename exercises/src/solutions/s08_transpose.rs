//! Exercise 8, solved: read a 32×32 tile along rows of `src`, write it
//! along rows of `dst`; the turn happens in shared memory, where a column
//! read costs bank conflicts (exercise 9) but no extra DRAM traffic.

use crate::gpu::{self, load, store};
use crate::{TILE, TILE_ROWS};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol08_transpose(src: *const f32, dst: *mut f32, rows: u32, cols: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (block_col, block_row) = (gpu::block_idx().x * TILE, gpu::block_idx().y * TILE);
    let mut r = ty;
    while r < TILE {
        let (row, col) = (block_row + r, block_col + tx);
        if row < rows && col < cols {
            unsafe { store(tile.add((r * TILE + tx) as usize), load(src.add((row * cols + col) as usize))) };
        }
        r += TILE_ROWS;
    }
    gpu::sync_threads();
    // dst is cols × rows: its row is src's column.
    let mut r = ty;
    while r < TILE {
        let (dst_row, dst_col) = (block_col + r, block_row + tx);
        if dst_row < cols && dst_col < rows {
            unsafe { store(dst.add((dst_row * rows + dst_col) as usize), load(tile.add((tx * TILE + r) as usize))) };
        }
        r += TILE_ROWS;
    }
}
