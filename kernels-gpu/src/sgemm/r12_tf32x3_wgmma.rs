// ANCHOR: rung
//! SGEMM rung 12: fp32 accuracy on wgmma: every input is split into two TF32 numbers,
//! `x ≈ big + small`, and the tensor cores sum `small·big + big·small +
//! big·big` (the small·small term is below fp32's rounding), as rung 11 does
//! with `mma.sync`.
//!
//! What changed from rung 11, and why it is faster:
//! - **Split once, not per warp.** Rung 11 splits every fragment value in
//!   registers, in every warp that reads it. Here two small kernels split
//!   A and B once per call into big and small arrays in global memory
//!   ([`sgemm_tf32x3_split_rows`](SGEMM_TF32X3_SPLIT_ROWS),
//!   [`sgemm_tf32x3_split_transposed`](SGEMM_TF32X3_SPLIT_TRANSPOSED)); the GEMM only copies and multiplies.
//! - **wgmma from shared memory, TMA, warp specialization**, as the BF16
//!   rungs ([`crate::bf16::r03_wgmma_specialized`]): no fragment registers, so a consumer
//!   warpgroup holds a 64×128 tile twice over (the running sum and one
//!   stage's partial sum) and the tensor pipe stays fed.
//! - **B is transposed while it is split.** TF32 wgmma has no transpose
//!   flag: both operands must be K-major, so B (K×N row-major) is written
//!   as Bᵀ (N×K).
//! - **The split arrays have padded rows** (K rounded up to 4 floats, the
//!   tail zero), so TMA's 16-byte row-pitch rule holds for every K: this
//!   rung takes any shape.
//!
//! The GEMM itself is [`crate::gemm::hopper::tf32x3`], shared with rungs 14
//! and 15, which split K.
//!
//! Accuracy: the tensor core's adder truncates, so one accumulator over all
//! of K loses bits as K grows. Each 32-deep stage is summed from zero on
//! the tensor cores and added to the running fp32 sum with an ordinary add,
//! which keeps the error at rung 11's level.

use crate::gemm::hopper::tf32x3::SHAPE;
pub use crate::gemm::hopper::tf32x3::{TILE_K, TILING};
use crate::gemm::hopper::{Entry, HopperKernel};
use kernels_macros::kernel;

pub const KERNEL: HopperKernel = HopperKernel { entry: Entry::Tf32x3(SGEMM_TF32X3_WGMMA), tiling: SHAPE };

pub const SPLIT_THREADS: u32 = 256;
/// Floats of the transposing split's shared tile: 32 rows of 33 (one
/// float of padding, so reading a column hits 32 different banks).
pub const TRANSPOSE_TILE_FLOATS: u32 = 32 * 33;

/// Row pitch, in floats, of the split arrays for `k` columns: 16-byte rows.
pub const fn padded_k(k: u32) -> u32 {
    k.next_multiple_of(4)
}

#[cfg(ptx_ladder_hopper)]
mod device {
    use crate::gpu::{self, split_tf32, sync_threads};

    /// The body of [`super::sgemm_tf32x3_split_rows`].
    #[inline(always)]
    pub unsafe fn split_rows(rows: u32, cols: u32, pitch: u32, src: *const f32, big: *mut f32, small: *mut f32) {
        let col = gpu::block_idx().x * gpu::block_dim().x + gpu::thread_idx().x;
        let mut row = gpu::block_idx().y;
        while row < rows && col < pitch {
            let x = if col < cols { unsafe { *src.add(row as usize * cols as usize + col as usize) } } else { 0.0 };
            let (b, s) = split_tf32(x);
            let at = row as usize * pitch as usize + col as usize;
            unsafe {
                *big.add(at) = f32::from_bits(b);
                *small.add(at) = f32::from_bits(s);
            }
            row += gpu::grid_dim().y;
        }
    }

    /// The body of [`super::sgemm_tf32x3_split_transposed`].
    #[inline(always)]
    pub unsafe fn split_transposed(rows: u32, cols: u32, pitch: u32, src: *const f32, big: *mut f32, small: *mut f32) {
        let tile = gpu::dynamic_shared::<f32>();
        let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
        let (row0, col0) = (gpu::block_idx().y * 32, gpu::block_idx().x * 32);
        for r in 0..4 {
            let (row, col) = (row0 + ty + 8 * r, col0 + tx);
            let x = if row < rows && col < cols { unsafe { *src.add(row as usize * cols as usize + col as usize) } } else { 0.0 };
            unsafe { *tile.add(((ty + 8 * r) * 33 + tx) as usize) = x };
        }
        sync_threads();
        for r in 0..4 {
            // Output row = source column, output column = source row.
            let (out_row, out_col) = (col0 + ty + 8 * r, row0 + tx);
            if out_row < cols && out_col < pitch {
                let (b, s) = split_tf32(unsafe { *tile.add((tx * 33 + ty + 8 * r) as usize) });
                let at = out_row as usize * pitch as usize + out_col as usize;
                unsafe {
                    *big.add(at) = f32::from_bits(b);
                    *small.add(at) = f32::from_bits(s);
                }
            }
        }
    }
}

/// `C = alpha·A·B + beta·C` at fp32 accuracy from TF32 big/small parts:
/// four tensor maps (A big, A small, Bᵀ big, Bᵀ small; 16 words each), 3
/// stages, one producer and two consumer warpgroups of 64×128. Shape: one
/// block per 128×128 tile of C, 384 threads.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn sgemm_tf32x3_wgmma(m: u32, n: u32, k: u32, alpha: f32, maps: *const u64, beta: f32, c: *mut f32) {
    unsafe { crate::gemm::hopper::tf32x3::body::<false, false>(m, n, k, crate::gemm::hopper::Scale { alpha, beta }, maps.cast(), c, 0) }
}

/// Splits a `rows`×`cols` row-major fp32 matrix into TF32 big and small
/// parts with rows of `pitch` floats (zeros past `cols`). One thread per
/// output element; blocks of [`SPLIT_THREADS`] along a row, `y` over rows.
#[kernel(sm_90a)]
pub unsafe fn sgemm_tf32x3_split_rows(rows: u32, cols: u32, pitch: u32, src: *const f32, big: *mut f32, small: *mut f32) {
    unsafe { device::split_rows(rows, cols, pitch, src, big, small) }
}

/// Splits a `rows`×`cols` row-major fp32 matrix into the big and small
/// parts of its transpose (`cols` rows of `pitch` floats, zeros past
/// `rows`). Blocks of 32×8 threads move 32×32 tiles through shared memory
/// (block (x, y): source rows `32y..`, columns `32x..`), so reads and
/// writes both coalesce.
#[kernel(sm_90a)]
pub unsafe fn sgemm_tf32x3_split_transposed(rows: u32, cols: u32, pitch: u32, src: *const f32, big: *mut f32, small: *mut f32) {
    unsafe { device::split_transposed(rows, cols, pitch, src, big, small) }
}
// ANCHOR_END: rung
