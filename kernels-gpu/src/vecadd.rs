//! The first kernel: `c[i] = a[i] + b[i]`, one thread per element.
//!
//! The launch rounds the thread count up to whole blocks, so the last block
//! may have threads past the end of the arrays: the `i < n` mask keeps them
//! from touching memory they do not own.

use crate::gpu;

/// Kernel name in the PTX module.
pub const VEC_ADD: &str = "vec_add";

kernel! {
    /// `c[i] = a[i] + b[i]` for `i < n`.
    pub fn vec_add(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
        let i = gpu::global_x();
        if i < n {
            let i = i as usize;
            unsafe { *c.add(i) = *a.add(i) + *b.add(i) };
        }
    }
}
