// ANCHOR: rung
//! BF16 rung 15: deep K, one small swapped tile's K spread over every SM.
//!
//! What changed from rungs 11 and 13, and why it is faster where K is
//! deep and the output small (64×64×65536: one 64×64 tile of C, a thousand
//! k-tiles): rung 13 has 64×64 swapped tiles, but adds a tile's slices of
//! K inside a cluster, at most 8 blocks; 8 SMs then each walk 128 k-tiles
//! while 124 idle. Rung 11 spreads K over every SM, but its 16×128 tiles
//! at 64 rows of A make four tiles of rows, each reading all the weights,
//! and at 64 columns of B half of every weights' box is zeros. Here the
//! tile is 64 rows × 64 columns (`m64n64k16`, one consumer warpgroup, 13
//! stages of 16 KB) and the slices are rung 11's: as many as fill the
//! SMs (128 slices of 8 k-tiles at K = 65536), each written as a partial
//! C, added in a fixed order by a second kernel. A slice's 8 k-tiles fit
//! in its 13 stages at once, so every SM asks DRAM for its whole share at
//! the start and the inputs stream at DRAM's rate.
//!
//! Splitting K this finely also makes the sum more accurate: each slice
//! sums 512 products in the tensor core's truncating accumulator, and
//! the 128 partial sums are added in fp32 with rounding to nearest.

use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling, swap_ab};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// 64 rows of A (wgmma's N) × 64 columns of B (one consumer warpgroup of
/// wgmma's M = 64), 64 values of K per stage, 13 stages.
pub const TILING: Tiling = swap_ab::tiling(64, 1, 13);

/// Persistent blocks walking units (tile, slice), C's partial sums stored
/// from registers, as rung 11.
const SHAPE: HopperTiling = swap_ab::shape(TILING);

pub const DEEP_K: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_DEEP_K), tiling: SHAPE };

/// As [`super::r11_swap_ab::bf16_wgmma_swap_ab`], over tiles of 64 rows
/// of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_deep_k(m: u32, n: u32, k: u32, maps: *const u64, partial: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<{ SHAPE.tiling.tile_m }, { SHAPE.consumers() }, { SHAPE.tiling.stages }, { SHAPE.tiling.tile_m as usize / 2 }, false>(
            m,
            n,
            k,
            maps.cast(),
            partial,
            slice_k_tiles,
        )
    }
}
// ANCHOR_END: rung
