//! # Exercise 8: a transpose, coalesced on both sides
//!
//! `src` is `rows × cols` (row-major), `dst` is `cols × rows`:
//! `dst[c][r] = src[r][c]`.
//!
//! Written directly, either the read or the write walks down a column, and
//! every lane of a warp touches its own 32-byte sector. Instead, each block
//! of 32×8 threads moves one 32×32 tile: it reads the tile row by row
//! (x = column of `src`), stores it in shared memory (32×32 floats, given
//! by the launch), waits, and writes it out row by row of `dst` (x = column
//! of `dst`), reading the shared tile down a column. Each thread handles
//! four rows of the tile (`ty`, `ty + 8`, `ty + 16`, `ty + 24`).
//!
//! The grid is `ceil(cols / 32) × ceil(rows / 32)`; guard the edges. The
//! check counts the sectors of every warp's global accesses.

use crate::unwritten;
use kernels_macros::kernel;

#[kernel]
pub unsafe fn ex08_transpose(src: *const f32, dst: *mut f32, rows: u32, cols: u32) {
    unwritten((src, dst, rows, cols));
}
