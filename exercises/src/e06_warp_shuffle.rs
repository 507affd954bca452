//! # Exercise 6: warp shuffles
//!
//! Each warp (32 consecutive threads) sums its 32 elements of `x` (0 past
//! `n`), and lane 0 writes the sum to `out[global_x / 32]`. No shared
//! memory and no barrier: lanes read each other's registers with
//! `gpu::shuffle_xor(value, mask)`, which returns the value of lane
//! `lane ^ mask`. Five butterfly steps (masks 16, 8, 4, 2, 1) leave the
//! sum in every lane.
//!
//! A shuffle is a meeting of all 32 lanes: every lane must call it, also
//! the lanes past `n`.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex06_warp_sums(x: *const f32, out: *mut f32, n: u32) {
    unwritten((x, out, n));
}
