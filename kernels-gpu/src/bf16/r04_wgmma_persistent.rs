// ANCHOR: rung
//! BF16 rung 4: persistent blocks walking grouped tiles.
//!
//! What changed from rung 3, and why it is faster: one block per
//! multiprocessor walks many tiles instead of one block per tile, so the
//! producer runs on into the next tile's k-tiles while the consumers store
//! this one's; and the tiles are walked in bands of 8 tile-rows
//! (`gemm::hopper::tile_origin`), so the blocks running at once
//! share rows of A and columns of B in L2.

use crate::gemm::hopper::stages;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use kernels_macros::kernel;

const SHAPE: HopperTiling = stages::PERSISTENT;

pub const PERSISTENT: HopperKernel = HopperKernel { entry: Entry::Bf16(BF16_WGMMA_PERSISTENT), tiling: SHAPE };

/// As [`super::r03_wgmma_specialized::bf16_wgmma_specialized`], persistent:
/// one block per multiprocessor walks tiles in bands of 8 tile-rows, and its
/// producer runs on into the next tile while the consumers store.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_persistent(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { crate::gemm::hopper::tile_loop::body::<true, 8, false>(m, n, k, maps.cast(), c, 0) }
}
// ANCHOR_END: rung
