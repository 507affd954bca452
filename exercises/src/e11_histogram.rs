//! # Exercise 11: a histogram
//!
//! `data` holds `n` values in `0..32`; count them: `counts[v]` = how many
//! `data[i] == v`. `counts` starts at 0.
//!
//! Many threads hit the same bin at once. Give each block its own 32
//! counters in shared memory (the launch gives 32 `u32`s): zero them, wait,
//! count with `gpu::atomic_add_u32` on the shared counter, wait, then the
//! first 32 threads add the block's counts to `counts` with
//! `gpu::atomic_add_u32`. Blocks of 128 threads.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex11_histogram(data: *const u32, counts: *mut u32, n: u32) {
    unwritten((data, counts, n));
}
