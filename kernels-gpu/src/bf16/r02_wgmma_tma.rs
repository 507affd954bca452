// ANCHOR: rung
//! BF16 rung 2: Hopper's own path: TMA copies, an mbarrier ring, wgmma from
//! shared memory. `C = A·B` with A M×K and B K×N row-major BF16, C M×N
//! row-major fp32; K and N multiples of 8 (TMA needs 16-byte row pitches).
//!
//! What changed from the `mma.sync` BF16 rung, and why it is faster:
//! - **wgmma reads A and B from shared memory.** `mma.sync` needs every
//!   fragment in registers, loaded by every warp (ldmatrix); wgmma takes two
//!   64-bit descriptors, and a warpgroup computes a 64×256 tile per
//!   instruction. Registers hold only the accumulators (128 per thread).
//! - **TMA instead of per-thread copies.** One thread asks for a whole
//!   tile; the copy engine fetches it, zero-fills what lies outside the
//!   matrix, and writes it in the 128-byte swizzled layout wgmma reads
//!   without bank conflicts. No thread computes an address per element.
//! - **An mbarrier ring of `STAGES` tiles.** A stage's *full* barrier
//!   completes when its bytes have landed, its *empty* barrier when every
//!   consumer has read it (`gemm::hopper::ring`), so copies run `STAGES - 1`
//!   tiles ahead of the math without any block-wide barrier in the loop.
//!
//! Two warpgroups compute; thread 0 also refills stages, so its
//! warpgroup pauses whenever it waits for the other to free a stage (rung 3
//! removes that pause). The body is `gemm::hopper::tile_loop`,
//! shared with rungs 3 and 4.

use crate::gemm::hopper::stages::{STAGE_BYTES, TILING};
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use kernels_macros::kernel;

const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: false,
    persistent: false,
    cluster: 1,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: 0,
    store_rows: 0,
};

pub const PIPELINED: HopperKernel = HopperKernel { entry: Entry::Bf16(BF16_WGMMA_TMA), tiling: SHAPE };

/// `C = A·B` in BF16 with fp32 accumulation: TMA, an mbarrier ring of
/// 4 stages, two wgmma warpgroups of 64×256. `maps` points to A's and B's
/// tensor maps (16 words each). Shape: one block per 128×256 tile of C, 256 threads.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_tma(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { crate::gemm::hopper::tile_loop::body::<false, 1, false>(m, n, k, maps.cast(), c, 0) }
}
// ANCHOR_END: rung
