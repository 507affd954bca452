// ANCHOR: rung
//! BF16 rung 5: the persistent rung's mainloop, with C stored by TMA
//! from shared memory.
//!
//! What changed from the persistent rung, and why it is faster: rung 4's
//! consumers store their 128 accumulators each straight from registers to
//! global memory, eight bytes at a time, and the tensor cores wait until
//! the last store has left. Here each consumer writes its accumulators
//! into a small staging area of shared memory, 32 columns at a
//! time, in the 128-byte swizzled layout, and one thread hands each chunk
//! to TMA (`cp.async.bulk.tensor` from shared to global). The copy engine
//! then writes C while the warpgroup is already multiplying the next tile;
//! TMA also clips what falls outside C, so edge tiles need no bounds
//! checks. Two staging buffers per consumer alternate: while TMA reads
//! one, the threads fill the other.

use crate::gemm::hopper::stages::STAGE_BYTES;
use crate::gemm::hopper::tma_store::{C_BOX_ROWS, EPILOGUE_BYTES};
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// The persistent rung's tiles and stages: 4 stages of 48 KB, and 32 KB
/// of staging buffers still fit in the 227 KB a block may have.
pub const TILING: Tiling = crate::gemm::hopper::stages::TILING;
const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: true,
    cluster: 1,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: EPILOGUE_BYTES,
    store_rows: C_BOX_ROWS,
};

pub const TMA_STORE: HopperKernel = HopperKernel { entry: Entry::Bf16Store(BF16_WGMMA_TMA_STORE), tiling: SHAPE };

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gemm::hopper::consumer::mainloop;
    use crate::gemm::hopper::ring::{Ring, first_stage};
    use crate::gemm::hopper::stages::{Stages, produce};
    use crate::gemm::hopper::tile_origin;
    use crate::gemm::hopper::tma_store::{BUFFERS, CHUNK_BYTES, store_tile};
    use crate::gpu;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase};

    const STAGES: u32 = TILING.stages;
    const TILE_M: u32 = TILING.tile_m;
    const TILE_N: u32 = TILING.tile_n;
    const CONSUMERS: u32 = TILE_M / 64;

    /// The persistent rung's body with `store_tile` as the epilogue.
    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap) {
        let t = gpu::thread_idx().x;
        if t == 0 {
            unsafe { tma::prefetch_maps(maps, 3) };
        }
        let tiles = Stages { first: first_stage() };
        let staging = tiles.a(STAGES);
        let ring = unsafe { Ring::set_up(staging + EPILOGUE_BYTES, STAGES, CONSUMERS, t) };

        let k_tiles = k.div_ceil(TILING.tile_k);
        let grid = (m.div_ceil(TILE_M), n.div_ceil(TILE_N));
        let tile_count = grid.0 * grid.1;
        let (first, stride) = (gpu::block_idx().x, gpu::grid_dim().x);
        let origin = |tile: u32| tile_origin(tile, grid, 8, (TILE_M, TILE_N));
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let (mut i, mut tile) = (0, first);
                while tile < tile_count {
                    for kt in 0..k_tiles {
                        unsafe { produce(&ring, tiles, maps, i, kt, origin(tile)) };
                        i += 1;
                    }
                    tile += stride;
                }
            }
            return;
        }
        set_max_registers_increase::<232>();
        let consumer = warpgroup - 1;
        let staging = staging + consumer * BUFFERS * CHUNK_BYTES;
        let (mut i, mut tile) = (0, first);
        while tile < tile_count {
            let (row0, col0) = origin(tile);
            let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_tiles, |_, _| {}) };
            unsafe { store_tile(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0), consumer) };
            tile += stride;
        }
        // Shared memory must outlive the copies reading it.
        if t % WARPGROUP_THREADS == 0 {
            tma::wait_group_all();
        }
    }
}

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::r04_wgmma_persistent::bf16_wgmma_persistent`] but storing C with TMA
/// from shared memory. 384 threads, one block per multiprocessor.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_tma_store(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body(m, n, k, maps.cast()) }
}
// ANCHOR_END: rung
