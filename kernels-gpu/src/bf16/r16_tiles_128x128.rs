// ANCHOR: rung
//! BF16 rung 16: rung 7 with tiles 128 columns wide, for shapes whose
//! rounds of 192- and 256-column tiles both end mostly empty.
//!
//! What changed from rung 14, and why it is faster on some shapes: rung
//! 14's 192-column tiles fill the last round where rung 7's leave it
//! mostly empty, but not everywhere. Llama-3-70B's qkv projection at
//! M = 1024 (N = 10240) has 8 × 40 = 320 tiles of 128×256: rounds of 132,
//! 132 and 56, the third 42% full; in 192-column tiles it has 8 × 54 =
//! 432, rounds of 132, 132, 132 and 36. In 128-column tiles it has 8 × 80
//! = 640: four full rounds and a fifth of 112 (85%), each round half the
//! work of rung 7's, so the GEMM takes 2.5 of rung 7's rounds instead of 3.
//! The price: A's tile is read once per 128 columns instead of 256, and
//! each wgmma reads its 64×16 slice of A for half the multiplies, so
//! where rung 7's or 14's rounds are full these tiles are slower; the auto
//! rung weighs the rounds of all three widths.
//!
//! Nothing else changes: the consumers issue `wgmma ... m64n128k16` (64
//! accumulators per thread, 32 kept for the next tile's first two
//! k-tiles), of a stage's two 64-column boxes of B each block of the
//! cluster loads and multicasts one, and a stage of 32 KB leaves room for
//! six of them where rung 7 has four of 48 KB, about as much work in
//! flight.

use crate::gemm::hopper::deferred;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use kernels_macros::kernel;

/// Columns of C per tile.
pub const TILE_N: u32 = 128;
const SHAPE: HopperTiling = deferred::shape(TILE_N);

pub const TILES_128X128: HopperKernel = HopperKernel { entry: Entry::Bf16Store(BF16_WGMMA_128X128), tiling: SHAPE };

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::r07_wgmma_deferred::bf16_wgmma_deferred`] over 128×128 tiles.
/// 384 threads, one block per multiprocessor, clusters of 2.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1), cluster(SHAPE.cluster))]
pub unsafe fn bf16_wgmma_128x128(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { deferred::body::<TILE_N, { SHAPE.tiling.stages }, 64, 32>(m, n, k, maps.cast()) }
}
// ANCHOR_END: rung
