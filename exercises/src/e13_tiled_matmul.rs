//! # Exercise 13: a tiled matmul
//!
//! `c = a · b` with `a` of `m × k`, `b` of `k × n`, `c` of `m × n`, all
//! row-major. Blocks of 16×16 threads, one per 16×16 tile of `c` (grid
//! `ceil(n / 16) × ceil(m / 16)`); thread `(tx, ty)` computes `c[row][col]`
//! with `row = 16 * blockIdx.y + ty`, `col = 16 * blockIdx.x + tx`.
//!
//! Walk `k` in steps of 16: the block loads a 16×16 tile of `a` and one of
//! `b` into shared memory (the launch gives 2 × 256 floats; 0 outside the
//! matrices), waits, accumulates the 16 products from shared memory, and
//! waits again before the next tiles overwrite these.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex13_matmul_tiled(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    unwritten((a, b, c, m, n, k));
}
