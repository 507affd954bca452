//! Exercise 12, solved: the block's elements and a halo of 3 on each side
//! are loaded once into shared memory (0 outside the array), then every
//! output reads its 7 inputs from there.

use crate::gpu::{self, load, store};
use crate::{BLOCK, RADIUS};
use kernels_macros::kernel;

/// `x[index]`, or 0 outside `0..n` (`index` may be negative).
#[inline(always)]
unsafe fn element_or_zero(x: *const f32, index: i64, n: u32) -> f32 {
    if index >= 0 && index < n as i64 { unsafe { load(x.add(index as usize)) } } else { 0.0 }
}

#[kernel]
pub unsafe fn sol12_convolve(x: *const f32, w: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let t = gpu::thread_idx().x;
    let base = (gpu::block_idx().x * BLOCK) as i64 - RADIUS as i64;
    // tile[s] holds x[base + s] for s in 0..BLOCK + 2 * RADIUS.
    unsafe { store(tile.add((t + RADIUS) as usize), element_or_zero(x, base + (t + RADIUS) as i64, n)) };
    if t < 2 * RADIUS {
        // The first RADIUS threads load the left halo, the next RADIUS the right one.
        let s = if t < RADIUS { t } else { BLOCK + t };
        unsafe { store(tile.add(s as usize), element_or_zero(x, base + s as i64, n)) };
    }
    gpu::sync_threads();
    let i = gpu::global_x();
    if i < n {
        let mut sum = 0.0;
        for j in 0..2 * RADIUS + 1 {
            sum = gpu::fma(unsafe { load(w.add(j as usize)) }, unsafe { load(tile.add((t + j) as usize)) }, sum);
        }
        unsafe { store(out.add(i as usize), sum) };
    }
}
