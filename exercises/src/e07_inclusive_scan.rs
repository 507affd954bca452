//! # Exercise 7: an inclusive scan
//!
//! Within each block of 128 elements, `out[i]` is the sum of the block's
//! elements up to and including `i`: `out[i] = x[base] + … + x[i]` with
//! `base = 128 * blockIdx.x` (for `i < n`).
//!
//! Hillis and Steele: stage the elements in the shared tile (128 floats,
//! 0 past `n`), then for `offset` = 1, 2, 4, …, 64 every thread `t >= offset`
//! adds `tile[t - offset]` into `tile[t]`. A thread must read its
//! neighbour's value before that neighbour overwrites it: read into a
//! register, wait, write, wait.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex07_block_scan(x: *const f32, out: *mut f32, n: u32) {
    unwritten((x, out, n));
}
