//! Exercise 2, solved: x (the fastest index within a warp) walks the
//! columns, which are contiguous in a row-major matrix, so a warp reads
//! and writes two runs of 16 neighbouring floats.

use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol02_add_row_vector(a: *const f32, v: *const f32, out: *mut f32, rows: u32, cols: u32) {
    let (col, row) = (gpu::global_x(), gpu::global_y());
    if row < rows && col < cols {
        let i = (row * cols + col) as usize;
        unsafe { store(out.add(i), load(a.add(i)) + load(v.add(col as usize))) };
    }
}
