//! Exercise 7, solved: at each step every thread first reads (into a
//! register), all wait, then the threads that add write, and all wait
//! again: no thread overwrites a slot another has yet to read.

use crate::BLOCK;
use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol07_block_scan(x: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    let mine = if i < n { unsafe { load(x.add(i as usize)) } } else { 0.0 };
    unsafe { store(tile.add(t as usize), mine) };
    gpu::sync_threads();
    let mut offset = 1;
    while offset < BLOCK {
        let left = if t >= offset { unsafe { load(tile.add((t - offset) as usize)) } } else { 0.0 };
        gpu::sync_threads();
        if t >= offset {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + left) };
        }
        gpu::sync_threads();
        offset *= 2;
    }
    if i < n {
        unsafe { store(out.add(i as usize), load(tile.add(t as usize))) };
    }
}
