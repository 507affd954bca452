//! Latency hiding: a memory-bound copy whose occupancy the host lowers by
//! asking for shared memory it never uses.

use crate::gpu::{self, load_f32x4, store_f32x4};
use kernels_macros::kernel;

pub const THREADS: u32 = 256;

/// Copies `quads` groups of 4 floats with a grid-stride loop, so any
/// grid size covers the whole array.
#[kernel]
pub unsafe fn occupancy_copy(src: *const f32, dst: *mut f32, quads: u32) {
    let mut q = gpu::global_x();
    let stride = gpu::grid_threads_x();
    while q < quads {
        let offset = q as usize * 4;
        unsafe { store_f32x4(dst.add(offset), load_f32x4(src.add(offset))) };
        q += stride;
    }
}
