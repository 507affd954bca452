//! Exercise 14, solved: each thread keeps 4 sums in registers and reads
//! each `b` value from shared memory once for all 4.

use crate::gpu::{self, load, store};
use crate::{ROWS_PER_THREAD, SIDE};
use kernels_macros::kernel;

/// Rows of the block's tile of C (and of its tile of A).
const TILE_M: u32 = SIDE * ROWS_PER_THREAD;

#[kernel]
pub unsafe fn sol14_matmul_register_blocked(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((TILE_M * SIDE) as usize) };
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (first_row, col) = (gpu::block_idx().y * TILE_M, gpu::block_idx().x * SIDE + tx);
    let mut sums = [0.0f32; ROWS_PER_THREAD as usize];
    let mut k0 = 0;
    while k0 < k {
        for r in 0..ROWS_PER_THREAD {
            let (tile_row, a_col) = (ty + SIDE * r, k0 + tx);
            let row = first_row + tile_row;
            let value = if row < m && a_col < k { unsafe { load(a.add((row * k + a_col) as usize)) } } else { 0.0 };
            unsafe { store(a_tile.add((tile_row * SIDE + tx) as usize), value) };
        }
        let b_row = k0 + ty;
        let value = if b_row < k && col < n { unsafe { load(b.add((b_row * n + col) as usize)) } } else { 0.0 };
        unsafe { store(b_tile.add((ty * SIDE + tx) as usize), value) };
        gpu::sync_threads();
        for kk in 0..SIDE {
            let b_value = unsafe { load(b_tile.add((kk * SIDE + tx) as usize)) };
            for r in 0..ROWS_PER_THREAD as usize {
                let a_value = unsafe { load(a_tile.add(((ty + SIDE * r as u32) * SIDE + kk) as usize)) };
                sums[r] = gpu::fma(a_value, b_value, sums[r]);
            }
        }
        gpu::sync_threads();
        k0 += SIDE;
    }
    for r in 0..ROWS_PER_THREAD {
        let row = first_row + ty + SIDE * r;
        if row < m && col < n {
            unsafe { store(c.add((row * n + col) as usize), sums[r as usize]) };
        }
    }
}
