// ANCHOR: rung
//! BF16 rung 7: rung 6 with half of each tile's epilogue moved behind the
//! next tile's first wgmmas.
//!
//! In rung 6 the tensor cores stop at the end of every tile. Both
//! consumers finish their last k-tile together, and both then spend
//! thousands of cycles storing 128 accumulators each: shared memory,
//! a proxy fence, a barrier, and a TMA store, eight times; Nsight's
//! warp-state samples show the consumers spending more of their time
//! there than cuBLAS's do (docs/measurements.md has the figures). Three
//! changes shorten that stop:
//!
//! - **Each warp stores its own rows.** A warp writes its 16 rows of a
//!   32-column chunk into one of its own two 2 KB slots, fences, and its
//!   lane 0 hands the 16×32 box to TMA. The only barrier is the warp's
//!   own (`bar.warp.sync`), so no warp waits at a warpgroup barrier for
//!   the slowest of four.
//! - **Half the tile is stored later.** At the end of a tile, a consumer
//!   stores columns 0-127 and keeps columns 128-255 in registers (64 per
//!   thread; the consumer's 232 registers hold them beside the next
//!   tile's 128 accumulators). During the next tile's first four k-tiles,
//!   after issuing each k-tile's wgmmas, which run on their own, it
//!   stores one 32-column chunk of the kept half. The tensor cores then
//!   wait for half an epilogue per tile, not a whole one.
//! - **Bands of 16 tile-rows.** The cluster walks pairs of tiles in bands
//!   of 8 pairs, not 4, so the blocks running at once share more of A in
//!   L2, and fewer of its tiles are read from DRAM twice.
//!
//! The stages, the ring shared by the cluster, the multicast of B and the
//! producer are rung 6's ([`crate::gemm::hopper::cluster`]); the kernel is
//! [`crate::gemm::hopper::deferred`], over tiles 256 wide.

use crate::gemm::hopper::deferred;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// Rung 6's tiles and stages.
pub const TILING: Tiling = crate::gemm::hopper::stages::TILING;
const SHAPE: HopperTiling = deferred::shape(TILING.tile_n);

pub const DEFERRED: HopperKernel = HopperKernel { entry: Entry::Bf16Store(BF16_WGMMA_DEFERRED), tiling: SHAPE };

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::r06_wgmma_cluster::bf16_wgmma_cluster`] with each warp storing
/// its own rows, and half of each tile stored during the next tile's first
/// k-tiles. 384 threads, one block per multiprocessor, clusters of 2.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1), cluster(SHAPE.cluster))]
pub unsafe fn bf16_wgmma_deferred(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { deferred::body::<256, { SHAPE.tiling.stages }, 128, 64>(m, n, k, maps.cast()) }
}
// ANCHOR_END: rung
