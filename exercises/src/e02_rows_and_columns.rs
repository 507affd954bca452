//! # Exercise 2: 2D indexing, rows and columns
//!
//! `a` is a `rows × cols` matrix stored row by row (row-major: element
//! `[r][c]` is at `r * cols + c`), `v` a vector of `cols` floats. Write
//! `out[r][c] = a[r][c] + v[c]`.
//!
//! Blocks are 16×16 threads and the grid covers a square of side
//! `max(rows, cols)` rounded up to 16, so both index orders reach every
//! element: pick the one whose memory accesses are coalesced. A warp is
//! 32 consecutive threads in x-fastest order, and its accesses are cheap
//! when neighbouring lanes touch neighbouring addresses. The check counts
//! the 32-byte sectors each warp touches.
//!
//! - `gpu::global_x()`, `gpu::global_y()`; guard both indices.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex02_add_row_vector(a: *const f32, v: *const f32, out: *mut f32, rows: u32, cols: u32) {
    unwritten((a, v, out, rows, cols));
}
