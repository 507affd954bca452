//! # Exercise 12: a 1D convolution, with a halo in shared memory
//!
//! `out[i] = w[0] * x[i-3] + w[1] * x[i-2] + … + w[6] * x[i+3]` for `i < n`,
//! with `x` taken as 0 outside `0..n` (7 weights, radius 3).
//!
//! Each block of 128 threads needs its 128 elements plus 3 on each side
//! (the halo): 134 floats, which the launch gives as shared memory. Load
//! them (each thread its own element, and the first 6 threads the halo,
//! 0 outside the array), wait, then compute from shared memory: every
//! input is read from global memory once instead of 7 times.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex12_convolve(x: *const f32, w: *const f32, out: *mut f32, n: u32) {
    unwritten((x, w, out, n));
}
