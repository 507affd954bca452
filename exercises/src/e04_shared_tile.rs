//! # Exercise 4: a block-wide shared tile, and a barrier
//!
//! Reverse each block's 128 elements: thread `t` of block `b` writes
//! `out[i] = x[128 * b + 127 - t]` for `i = 128 * b + t < n`, with 0 where
//! the source index is `>= n`.
//!
//! Do it through shared memory: each thread stores its own element (0 past
//! `n`) into a 128-float tile, the block waits at `gpu::sync_threads()`,
//! then each thread reads its partner's slot. The launch gives each block
//! 128 floats of shared memory: `gpu::dynamic_shared::<f32>()`.
//!
//! Every thread must reach the barrier: do not return early.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex04_reverse_blocks(x: *const f32, out: *mut f32, n: u32) {
    unwritten((x, out, n));
}
