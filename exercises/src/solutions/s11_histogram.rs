//! Exercise 11, solved: per-block counters in shared memory (atomics
//! there are cheap and contend only within the block), merged into the
//! global counts with one atomic per bin per block.

use crate::BINS;
use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol11_histogram(data: *const u32, counts: *mut u32, n: u32) {
    let bins = gpu::dynamic_shared::<u32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    if t < BINS {
        unsafe { store(bins.add(t as usize), 0u32) };
    }
    gpu::sync_threads();
    if i < n {
        let value = unsafe { load(data.add(i as usize)) };
        unsafe { gpu::atomic_add_u32(bins.add((value % BINS) as usize), 1) };
    }
    gpu::sync_threads();
    if t < BINS {
        unsafe { gpu::atomic_add_u32(counts.add(t as usize), load(bins.add(t as usize))) };
    }
}
