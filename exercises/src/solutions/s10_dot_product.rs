//! Exercise 10, solved: a tree sum per block, then one atomic add per
//! block into the single result.

use crate::BLOCK;
use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol10_dot(a: *const f32, b: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    let product = if i < n { unsafe { load(a.add(i as usize)) * load(b.add(i as usize)) } } else { 0.0 };
    unsafe { store(tile.add(t as usize), product) };
    gpu::sync_threads();
    let mut active = BLOCK / 2;
    while active > 0 {
        if t < active {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + load(tile.add((t + active) as usize))) };
        }
        gpu::sync_threads();
        active /= 2;
    }
    if t == 0 {
        unsafe { gpu::atomic_add_f32(out, load(tile)) };
    }
}
