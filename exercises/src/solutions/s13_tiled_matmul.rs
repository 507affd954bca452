//! Exercise 13, solved: a barrier after loading the tiles (nobody reads a
//! tile before it is whole) and one after using them (nobody overwrites a
//! tile another thread is still reading).

use crate::SIDE;
use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol13_matmul_tiled(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((SIDE * SIDE) as usize) };
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (row, col) = (gpu::block_idx().y * SIDE + ty, gpu::block_idx().x * SIDE + tx);
    let slot = (ty * SIDE + tx) as usize;
    let mut sum = 0.0;
    let mut k0 = 0;
    while k0 < k {
        let (a_col, b_row) = (k0 + tx, k0 + ty);
        let a_value = if row < m && a_col < k { unsafe { load(a.add((row * k + a_col) as usize)) } } else { 0.0 };
        let b_value = if b_row < k && col < n { unsafe { load(b.add((b_row * n + col) as usize)) } } else { 0.0 };
        unsafe {
            store(a_tile.add(slot), a_value);
            store(b_tile.add(slot), b_value);
        }
        gpu::sync_threads();
        for kk in 0..SIDE {
            sum = gpu::fma(
                unsafe { load(a_tile.add((ty * SIDE + kk) as usize)) },
                unsafe { load(b_tile.add((kk * SIDE + tx) as usize)) },
                sum,
            );
        }
        gpu::sync_threads();
        k0 += SIDE;
    }
    if row < m && col < n {
        unsafe { store(c.add((row * n + col) as usize), sum) };
    }
}
