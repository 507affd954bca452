//! Vector add, `c[i] = a[i] + b[i]`, in two versions.
//!
//! `vec_add` is the first kernel anyone writes: one thread per element. The
//! launch rounds the thread count up to whole blocks, so the last block may
//! have threads past the end of the arrays; the `i < n` mask keeps them from
//! touching memory they do not own.
//!
//! `vec_add_x4` gives each thread four neighbouring elements, moved with
//! 128-bit loads and stores. The work is the same; what changes is how many
//! bytes each thread has in flight. A memory-bound kernel needs about
//! bandwidth × latency bytes outstanding to keep DRAM busy (Little's law):
//! at one float per load, even a full SM (2048 threads) cannot keep that
//! many requests going, while four floats per load can.

use crate::gpu::{self, load_f32x4, store_f32x4};
use kernels_macros::kernel;

/// `c[i] = a[i] + b[i]` for `i < n`, one thread per element.
#[kernel]
pub unsafe fn vec_add(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
    let i = gpu::global_x();
    if i < n {
        let i = i as usize;
        let sum = unsafe { gpu::load(a.add(i)) + gpu::load(b.add(i)) };
        unsafe { gpu::store(c.add(i), sum) };
    }
}

/// `c[i] = a[i] + b[i]` for `i < n`, four elements per thread; the
/// arrays must be 16-byte aligned (as `cudaMalloc` returns them).
#[kernel]
pub unsafe fn vec_add_x4(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
    let first = gpu::global_x() as usize * 4;
    let n = n as usize;
    if first + 4 <= n {
        unsafe {
            let (x, y) = (load_f32x4(a.add(first)), load_f32x4(b.add(first)));
            store_f32x4(c.add(first), [x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]]);
        }
    } else {
        // The last thread may own 1-3 leftover elements.
        for i in first..n {
            let sum = unsafe { gpu::load(a.add(i)) + gpu::load(b.add(i)) };
            unsafe { gpu::store(c.add(i), sum) };
        }
    }
}
