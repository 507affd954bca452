//! # Exercise 14: a register-blocked matmul
//!
//! The same `c = a · b` (row-major, `a` m×k, `b` k×n), but each thread
//! computes 4 elements of a column of `c`, so every value it loads from
//! shared memory into a register is used 4 times. Blocks of 16×16 threads
//! compute 64×16 tiles of `c` (grid `ceil(n / 16) × ceil(m / 64)`); thread
//! `(tx, ty)` owns rows `ty`, `ty + 16`, `ty + 32`, `ty + 48` of the tile,
//! column `tx`.
//!
//! Per step of 16 along `k`: load a 64×16 tile of `a` (4 floats per
//! thread) and a 16×16 tile of `b` into shared memory (the launch gives
//! 64 × 16 + 16 × 16 floats; 0 outside), wait, then for each `kk` read
//! `b_tile[kk][tx]` once into a register and multiply it with the 4 `a`
//! values of your rows; wait again.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex14_matmul_register_blocked(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    unwritten((a, b, c, m, n, k));
}
