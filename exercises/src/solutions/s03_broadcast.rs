//! Exercise 3, solved: all threads of a row read the same `a[row]` (one
//! broadcast), neighbouring threads neighbouring `b[col]`.

use crate::gpu::{self, load, store};
use kernels_macros::kernel;

#[kernel]
pub unsafe fn sol03_outer_product(a: *const f32, b: *const f32, out: *mut f32, rows: u32, cols: u32) {
    let (col, row) = (gpu::global_x(), gpu::global_y());
    if row < rows && col < cols {
        let value = unsafe { load(a.add(row as usize)) * load(b.add(col as usize)) };
        unsafe { store(out.add((row * cols + col) as usize), value) };
    }
}
