// ANCHOR: rung
//! BF16 rung 6: rung 5 run by clusters of two blocks that share B's tiles
//! through TMA multicast.
//!
//! What changed from rung 5, and what it saves: two blocks of a cluster
//! compute two 128×256 tiles of C stacked along M, so they need the same
//! 64×256 tile of B at every k-step. Each block's producer loads its own A
//! tile (16 KB) and *half* of B's (16 KB), and multicasts that half into
//! both blocks' shared memory at once: every block still receives 48 KB
//! per stage, but L2 sends it 32 KB instead of 48. Less L2 traffic is less
//! energy, and the H200 runs a BF16 GEMM at its power limit, where the
//! clock (and so the speed) follows the energy per multiply. cuBLAS's own
//! kernel here runs in clusters of 2 as well.
//!
//! The ring is shared across the pair (`gemm::hopper::ring::Ring::clustered`):
//! a stage may be refilled only when the consumers of *both* blocks have
//! read it, since either producer writes into both; so each consumer
//! arrives on the *empty* barrier of both blocks (`mapa` names the
//! other block's copy of a shared address). The arrive keeps its default
//! CTA-scope release: `.release.cluster` made this kernel a third slower.

use crate::gemm::hopper::cluster::CLUSTER;
use crate::gemm::hopper::stages::STAGE_BYTES;
use crate::gemm::hopper::tma_store::{C_BOX_ROWS, EPILOGUE_BYTES};
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// Rung 5's tiles, stages and staging.
pub const TILING: Tiling = crate::gemm::hopper::stages::TILING;

const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: true,
    cluster: CLUSTER,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: EPILOGUE_BYTES,
    store_rows: C_BOX_ROWS,
};

pub const CLUSTERED: HopperKernel = HopperKernel { entry: Entry::Bf16Store(BF16_WGMMA_CLUSTER), tiling: SHAPE };

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gemm::hopper::cluster::{ClusterBlock, MAPS};
    use crate::gemm::hopper::consumer::mainloop;
    use crate::gemm::hopper::tma_store::{BUFFERS, CHUNK_BYTES, store_tile};
    use crate::gpu;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, sync_cluster};

    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap) {
        let t = gpu::thread_idx().x;
        // The cluster walks pairs of tiles (TILE_M·CLUSTER rows), in bands
        // of 4 pairs (8 tile-rows, as the persistent rung).
        let block =
            unsafe { ClusterBlock::<{ TILING.tile_n }, { TILING.stages }>::new((m, n, k), (maps, MAPS), EPILOGUE_BYTES, 8 / CLUSTER) };
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                unsafe { block.produce_all(maps) };
            }
        } else {
            set_max_registers_increase::<232>();
            let consumer = warpgroup - 1;
            let staging = block.staging + consumer * BUFFERS * CHUNK_BYTES;
            let (first, stride) = block.first_and_stride();
            let (mut i, mut pair) = (0, first);
            while pair < block.pairs() {
                let (row0, col0) = block.origin(pair);
                let acc = unsafe { mainloop(&block.ring, block.tiles, consumer, &mut i, block.k_tiles, |_, _| {}) };
                unsafe { store_tile(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0), consumer) };
                pair += stride;
            }
            if t % WARPGROUP_THREADS == 0 {
                tma::wait_group_all();
            }
        }
        // Neither block may exit while the other can still arrive on its
        // barriers or multicast into its shared memory.
        sync_cluster();
    }
}

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::r05_wgmma_tma_store::bf16_wgmma_tma_store`] with clusters of two
/// blocks sharing B's tiles by TMA multicast. 384 threads, one block per
/// multiprocessor, an even grid.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1), cluster(SHAPE.cluster))]
pub unsafe fn bf16_wgmma_cluster(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body(m, n, k, maps.cast()) }
}
// ANCHOR_END: rung
