// ANCHOR: rung
//! SGEMM rung 14: few tiles: 3xTF32 with K split over the SMs.
//!
//! What changed from rung 12, and why it is faster on the shapes a model
//! runs: rung 12 gives each 128×128 tile of C to one block, which walks all
//! of K. A shape with fewer tiles than SMs (a few hundred tokens times a
//! weight matrix, or a small C with a deep K) leaves most SMs idle. Here a
//! block is one tile's slice of K ([`crate::gemm::split_k`], as BF16 rung
//! 9): as many slices as fill the GPU, each storing its partial C, added
//! afterwards in a fixed order together with `alpha` and `beta`. The
//! split into TF32 parts and the GEMM are rung 12's
//! ([`crate::gemm::hopper::tf32x3`]); only the unit of work changed.
//!
//! Each slice's sum is also shorter, and the slices are added in fp32 with
//! round-to-nearest, so a deep K loses fewer bits.

use crate::gemm::hopper::tf32x3::SHAPE;
use crate::gemm::hopper::{Entry, HopperKernel};
use kernels_macros::kernel;

pub const SPLIT_K: HopperKernel = HopperKernel { entry: Entry::Tf32x3Split(SGEMM_TF32X3_SPLIT_K), tiling: SHAPE };

/// Rung 12's GEMM over units of one tile × one slice of `slice_k_tiles`
/// k-tiles: block `b` is slice `b / tiles` of tile `b % tiles`, and stores
/// its partial `A·B` at `partial + slice·m·n`. The maps are rung 12's.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn sgemm_tf32x3_split_k(m: u32, n: u32, k: u32, maps: *const u64, partial: *mut f32, slice_k_tiles: u32) {
    unsafe {
        crate::gemm::hopper::tf32x3::body::<true, false>(m, n, k, crate::gemm::hopper::Scale::NONE, maps.cast(), partial, slice_k_tiles)
    }
}
// ANCHOR_END: rung
