//! Exercise 6, solved: every lane takes part in every shuffle (lanes past
//! `n` with 0), and lane 0 writes the warp's sum.

use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol06_warp_sums(x: *const f32, out: *mut f32, n: u32) {
    let i = gpu::global_x();
    let mut sum = if i < n { unsafe { load(x.add(i as usize)) } } else { 0.0 };
    let mut mask = 16;
    while mask > 0 {
        sum += gpu::shuffle_xor(sum, mask);
        mask /= 2;
    }
    if gpu::lane_id() == 0 && i < n {
        unsafe { store(out.add((i / 32) as usize), sum) };
    }
}
