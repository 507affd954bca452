// ANCHOR: rung
//! BF16 rung 14: rung 7 with tiles 192 columns wide, so the last wave of
//! tiles is not mostly empty.
//!
//! What changed from rung 7, and why it is faster on some shapes: rung 7's
//! clusters take pairs of 128×256 tiles, one tile per SM, in rounds of as
//! many pairs as the SMs hold (66 on the H200). Llama-3-8B's qkv projection
//! at M = 1024 has 8 × 24 = 192 tiles: a first round of 132 and a second
//! of 60, in which 72 SMs wait. The GEMM takes two rounds for 1.45
//! rounds' work. Tiles 192 wide cut it into 8 × 32 = 256 tiles of three
//! quarters the work: two rounds of 132 and 124, 1.5 rounds of rung 7's
//! tiles, and every SM busy in both. Where rung 7's rounds are already
//! full (4096³: 512 tiles, 3.9 rounds), narrower tiles only add rounds
//! and read more bytes per FLOP (A's tile is shared by 192 columns, not
//! 256); the auto rung picks the width whose rounds finish first.
//!
//! Nothing else changes: the consumers issue `wgmma ... m64n192k16`
//! (96 accumulators per thread, 48 kept for the next tile's first three
//! k-tiles), and of a stage's three 64-column boxes of B the first block
//! of the cluster loads and multicasts two, the second one.

use crate::gemm::hopper::deferred;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use kernels_macros::kernel;

/// Columns of C per tile.
pub const TILE_N: u32 = 192;
const SHAPE: HopperTiling = deferred::shape(TILE_N);

pub const NARROW_TILES: HopperKernel = HopperKernel { entry: Entry::Bf16Store(BF16_WGMMA_128X192), tiling: SHAPE };

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::r07_wgmma_deferred::bf16_wgmma_deferred`] over 128×192 tiles.
/// 384 threads, one block per multiprocessor, clusters of 2.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1), cluster(SHAPE.cluster))]
pub unsafe fn bf16_wgmma_128x192(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { deferred::body::<TILE_N, { SHAPE.tiling.stages }, 96, 48>(m, n, k, maps.cast()) }
}
// ANCHOR_END: rung
