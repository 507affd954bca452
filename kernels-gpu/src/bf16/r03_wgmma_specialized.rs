// ANCHOR: rung
//! BF16 rung 3: warp specialization.
//!
//! What changed from rung 2, and why it is faster: a third, producer
//! warpgroup only issues TMA copies and gives its registers away
//! (`setmaxnreg.dec` to 40); the two consumer warpgroups take them
//! (`setmaxnreg.inc` to 232) and never wait on copies they issue
//! themselves, so neither pauses while the other frees a stage. The body
//! is rung 2's (`gemm::hopper::tile_loop`) with the roles split.

use crate::gemm::hopper::stages::{STAGE_BYTES, TILING};
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use kernels_macros::kernel;

const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: false,
    cluster: 1,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: 0,
    store_rows: 0,
};

pub const SPECIALIZED: HopperKernel = HopperKernel { entry: Entry::Bf16(BF16_WGMMA_SPECIALIZED), tiling: SHAPE };

/// As [`super::r02_wgmma_tma::bf16_wgmma_tma`] with a producer warpgroup:
/// 384 threads, the first 128 only issue TMA copies.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_specialized(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { crate::gemm::hopper::tile_loop::body::<true, 1, false>(m, n, k, maps.cast(), c, 0) }
}
// ANCHOR_END: rung
