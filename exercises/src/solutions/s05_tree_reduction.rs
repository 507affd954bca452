//! Exercise 5, solved: one barrier after staging and one after every step
//! of the tree, outside the `if`, so every thread reaches each of them.

use crate::BLOCK;
use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol05_block_sums(x: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    let mine = if i < n { unsafe { load(x.add(i as usize)) } } else { 0.0 };
    unsafe { store(tile.add(t as usize), mine) };
    gpu::sync_threads();
    let mut active = BLOCK / 2;
    while active > 0 {
        if t < active {
            unsafe {
                let sum = load(tile.add(t as usize)) + load(tile.add((t + active) as usize));
                store(tile.add(t as usize), sum);
            }
        }
        gpu::sync_threads();
        active /= 2;
    }
    if t == 0 {
        unsafe { store(out.add(gpu::block_idx().x as usize), load(tile)) };
    }
}
