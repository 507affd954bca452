// ANCHOR: rung
//! BF16 rung 12: A and B swapped, the slices of K added in a cluster.
//!
//! What changed from rung 11, and why it is faster where K is split: with
//! few columns of weights (N = 4096 is 32 tiles of 128), rung 11 cuts K
//! into slices to give every SM work, writes one partial C per slice to
//! global memory, and a second kernel adds them. At M ≤ 16 the partial
//! sums are few bytes, but the second launch and its pass over them cost a
//! few microseconds of a kernel that takes twenty. Here each tile's
//! slices run as one cluster, one block per slice, and add their partial
//! tiles through distributed shared memory, as rung 10 does for its
//! 128×256 tiles ([`crate::gemm::hopper::cluster_sum`]): one launch, and
//! the sums never leave the chip.
//!
//! The tiles, stages and multiplies are rung 11's
//! ([`crate::gemm::hopper::swap_ab`]); where K is cut, each block
//! computes one unit (a cluster's blocks must run at once), and a shape
//! whose K needs more slices than a cluster holds stays with rung 11.
//! Where K stays whole the blocks walk the tiles as rung 11's persistent
//! blocks do.

use super::r11_swap_ab::TILING;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling, cluster_sum, swap_ab};
use kernels_macros::kernel;

/// Rung 11's tiles and stages.
const SHAPE: HopperTiling = swap_ab::shape(TILING);

pub const SWAP_AB_CLUSTER: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_CLUSTER), tiling: SHAPE };

// The sends land in the stages: 2 quads per thread (8 accumulators).
const _: () = assert!(cluster_sum::scratch_bytes(SHAPE.consumers(), 2) <= TILING.stages * SHAPE.stage_bytes);

/// Block `b` computes slice `b % slices` of tile `b / slices` and is rank
/// `b % slices` of its cluster of `slices` blocks (the launch sets the
/// cluster size); the cluster stores the tile's sum to `c`.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_cluster(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<{ SHAPE.tiling.tile_m }, { SHAPE.consumers() }, { SHAPE.tiling.stages }, { SHAPE.tiling.tile_m as usize / 2 }, true>(
            m,
            n,
            k,
            maps.cast(),
            c,
            slice_k_tiles,
        )
    }
}
// ANCHOR_END: rung
