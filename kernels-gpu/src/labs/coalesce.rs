//! Coalescing: a warp's loads are served in 32-byte sectors, so how far
//! apart its 32 lanes read decides how many bytes move for the 128 it uses.

use crate::gpu;
use kernels_macros::kernel;

/// Loads per thread; each thread writes one sum, so writes stay a small,
/// constant part of the traffic.
pub const READS_PER_THREAD: u32 = 8;

/// Thread t of `threads` sums `input[(t + j * threads) * stride]` for
/// j in 0..READS_PER_THREAD into `output[t]`: at every j the lanes of a
/// warp read floats `stride` apart.
#[kernel]
pub unsafe fn strided_read(input: *const f32, output: *mut f32, threads: u32, stride: u32) {
    let t = gpu::global_x();
    if t < threads {
        let mut sum = 0.0f32;
        for j in 0..READS_PER_THREAD {
            let index = (t + j * threads) as usize * stride as usize;
            sum += unsafe { gpu::load(input.add(index)) };
        }
        unsafe { gpu::store(output.add(t as usize), sum) };
    }
}
