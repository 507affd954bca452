//! # Exercise 5: the tree reduction
//!
//! Each block of 128 threads sums its 128 elements of `x` (0 past `n`) and
//! thread 0 writes the sum to `out[blockIdx.x]`.
//!
//! Stage the elements in the block's shared tile (128 floats), then halve:
//! at each step the first `active` threads add `tile[t + active]` into
//! `tile[t]`, for `active` = 64, 32, …, 1. Each step reads what the
//! previous step wrote, so all threads must wait between steps, and the
//! barrier must be reached by every thread, also by those not adding.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex05_block_sums(x: *const f32, out: *mut f32, n: u32) {
    unwritten((x, out, n));
}
