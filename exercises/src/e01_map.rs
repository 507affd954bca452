//! # Exercise 1: map, with a guard
//!
//! Write `out[i] = 2 * x[i] + 1` for every `i < n`, one element per thread.
//!
//! The launch has `ceil(n / 128)` blocks of 128 threads: the grid is rounded
//! up to whole blocks, so when `n` is not a multiple of 128 the last block
//! has threads past the end of the arrays. Those must do nothing.
//!
//! - this thread's element: `gpu::global_x()` (`blockIdx.x * blockDim.x + threadIdx.x`);
//! - read and write through `gpu::load` and `gpu::store`, so the checkers see the accesses.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex01_map(x: *const f32, out: *mut f32, n: u32) {
    unwritten((x, out, n));
}
