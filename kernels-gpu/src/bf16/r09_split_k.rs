// ANCHOR: rung
//! BF16 rung 9: few tiles, K split over the SMs.
//!
//! What changed from rung 4, and why it is faster on the shapes a model
//! runs: rung 4's persistent blocks walk tiles, and a shape with fewer
//! 128×256 tiles than SMs leaves the rest idle while each busy SM walks
//! all of K. Llama-3-8B's down projection at M ≤ 128 has 16 tiles for
//! 132 SMs. Here a unit of work is one tile's slice of K
//! ([`crate::gemm::split_k`]): as many slices as fill one wave, each
//! writing its own partial C, added afterwards in a fixed order by the
//! small-M rung's reduction. At small M the shape is bound by reading the
//! weights, and now every SM reads its share of them.
//!
//! Two smaller changes come with it: a consumer warpgroup whose 64 rows
//! lie wholly below M only hands its stages back (at M ≤ 64 half the
//! tensor work was on rows of zeros), and each slice sums fewer values of
//! K in its tensor-core accumulator, so deep K loses fewer bits.

use crate::gemm::hopper::stages;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use kernels_macros::kernel;

const SHAPE: HopperTiling = stages::PERSISTENT;

pub const SPLIT_K: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SPLIT_K), tiling: SHAPE };

/// As [`super::r04_wgmma_persistent::bf16_wgmma_persistent`], over units of
/// one tile × one slice of `slice_k_tiles` k-tiles, each storing its
/// partial C at `partial + slice·m·n`.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_split_k(m: u32, n: u32, k: u32, maps: *const u64, partial: *mut f32, slice_k_tiles: u32) {
    unsafe { crate::gemm::hopper::tile_loop::body::<true, 8, true>(m, n, k, maps.cast(), partial, slice_k_tiles) }
}
// ANCHOR_END: rung
