//! Kernel exercises: fourteen small kernels to write, each checked on the
//! CPU emulator (every element against a CPU reference, plus the race,
//! barrier and bounds checkers, and the coalescing or bank-conflict check
//! where that is the point). `ptx-ladder exercise` lists them;
//! `ptx-ladder exercise N` prints the task and checks your kernel.
//!
//! Each `eNN_*.rs` file is one exercise: the task in its doc comment, a
//! stub body that calls [`unwritten`], which you replace. The reference
//! solutions are in [`solutions`] (`--solution` prints them), the
//! deliberately wrong variants the tests feed to the checks in [`wrong`].
//!
//! This crate is separate from `kernels-gpu` so that editing an exercise
//! rebuilds only this crate and the command line, not the PTX of every
//! kernel of the project (README: "Exercises").
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
#![cfg_attr(ptx_ladder_hopper, allow(dead_code, unused_imports))]
// Kernels index shared tiles with loop counters, as the GPU code reads.
#![allow(clippy::needless_range_loop, clippy::manual_is_multiple_of)]

pub use kernels_gpu::{gpu, launch};

pub mod e01_map;
pub mod e02_rows_and_columns;
pub mod e03_broadcast;
pub mod e04_shared_tile;
pub mod e05_tree_reduction;
pub mod e06_warp_shuffle;
pub mod e07_inclusive_scan;
pub mod e08_transpose;
pub mod e09_transpose_no_conflicts;
pub mod e10_dot_product;
pub mod e11_histogram;
pub mod e12_convolution;
pub mod e13_tiled_matmul;
pub mod e14_register_blocked_matmul;
pub mod solutions;
pub mod wrong;

#[cfg(not(target_arch = "nvptx64"))]
pub mod catalogue;

/// Threads per block of the one-dimensional exercises.
pub const BLOCK: u32 = 128;
/// Side of the square blocks (16×16 threads) of the 2D exercises and of
/// the tiled matmul's tiles.
pub const SIDE: u32 = 16;
/// Side of the transposes' square tile, and the rows of threads per block
/// that walk it (blocks of 32×8 threads, four rows each).
pub const TILE: u32 = 32;
pub const TILE_ROWS: u32 = 8;
/// Bins of the histogram exercise.
pub const BINS: u32 = 32;
/// Radius of the convolution exercise: `2 * RADIUS + 1` weights.
pub const RADIUS: u32 = 3;
/// Rows of C each thread of the register-blocked matmul computes.
pub const ROWS_PER_THREAD: u32 = 4;

/// The body of an exercise you have not written yet: replace the call
/// with your kernel. On the CPU it ends the check with "not started"; on a
/// GPU it does nothing (the output stays unwritten).
#[inline(always)]
pub fn unwritten<T>(parameters: T) {
    let _ = parameters;
    #[cfg(not(target_arch = "nvptx64"))]
    std::panic::resume_unwind(Box::new(ptx_ladder::exercises::UNWRITTEN));
}
