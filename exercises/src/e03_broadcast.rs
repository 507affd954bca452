//! # Exercise 3: broadcast
//!
//! The outer product: `out[r][c] = a[r] * b[c]` for a `rows × cols` output
//! (row-major), `a` of `rows` floats and `b` of `cols` floats.
//!
//! Blocks are 16×16 threads, the grid `ceil(cols / 16) × ceil(rows / 16)`.
//! Every thread of a row reads the same `a[r]`: one value broadcast to
//! many threads costs one memory transaction, not one per thread.
//!
//! - x is the column, y the row; guard both.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex03_outer_product(a: *const f32, b: *const f32, out: *mut f32, rows: u32, cols: u32) {
    unwritten((a, b, out, rows, cols));
}
