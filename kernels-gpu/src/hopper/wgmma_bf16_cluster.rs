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
//! The ring is shared across the pair ([`super::pipeline::Ring::clustered`]):
//! a stage may be refilled only when the consumers of *both* blocks have
//! read it, since either producer writes into both; so each consumer
//! arrives on the *empty* barrier of both blocks (`mapa` names the
//! other block's copy of a shared address). The arrive keeps its default
//! CTA-scope release: `.release.cluster` made this kernel a third slower.

use super::{Entry, HopperKernel, HopperTiling};
use crate::matmul::tiling::Tiling;
use kernels_macros::kernel;

/// Blocks per cluster, stacked along M.
pub(super) const CLUSTER: u32 = 2;

/// Rung 5's tiles, stages and staging.
pub const TILING: Tiling = super::wgmma_bf16_store::TILING;

pub const CLUSTERED: HopperKernel = HopperKernel {
    entry: Entry::Bf16Store(BF16_WGMMA_CLUSTER),
    tiling: HopperTiling {
        tiling: TILING,
        specialized: true,
        persistent: true,
        cluster: CLUSTER,
        stage_bytes: super::wgmma_bf16::STAGE_BYTES,
        epilogue_bytes: super::wgmma_bf16_store::EPILOGUE_BYTES,
        store_rows: super::wgmma_bf16_store::C_BOX_ROWS,
    },
};

#[cfg(ptx_ladder_hopper)]
pub(super) mod device {
    use super::*;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::ATOM_BYTES;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, cluster_rank, set_max_registers_decrease, set_max_registers_increase, shared_address, sync_cluster,
    };
    use crate::hopper::pipeline::Ring;
    use crate::hopper::wgmma_bf16::STAGE_BYTES;
    use crate::hopper::wgmma_bf16::device::{B_BOX_BYTES, Stages, mainloop};
    use crate::hopper::wgmma_bf16_store::device::store_tile;
    use crate::hopper::wgmma_bf16_store::{BUFFERS, CHUNK_BYTES, EPILOGUE_BYTES};

    const STAGES: u32 = TILING.stages;
    const TILE_M: u32 = TILING.tile_m;
    const TILE_N: u32 = TILING.tile_n;
    const TILE_K: u32 = TILING.tile_k;
    const CONSUMERS: u32 = TILE_M / 64;
    /// B's 64-column boxes each producer loads and multicasts.
    const B_BOXES_EACH: u32 = TILE_N / 64 / CLUSTER;
    const EVERY_BLOCK: u16 = (1 << CLUSTER) - 1;

    /// What a block of a clustered rung sets up before its warpgroups part:
    /// the stages, the staging area after them, the ring shared with the
    /// other block, and the walk of the cluster over pairs of tiles.
    pub(in crate::hopper) struct ClusterBlock {
        pub(in crate::hopper) tiles: Stages,
        /// First byte after the stages: the epilogue's staging.
        pub(in crate::hopper) staging: u32,
        pub(in crate::hopper) ring: Ring,
        pub(in crate::hopper) k_tiles: u32,
        rank: u32,
        /// Pairs of tiles (TILE_M·CLUSTER rows × TILE_N columns) along M and N.
        grid: (u32, u32),
        /// Pairs per band of the walk (see [`super::super::tile_origin`]).
        band: u32,
    }

    impl ClusterBlock {
        /// Lays out shared memory (`staging_bytes` of staging), has thread
        /// 0 set up the ring, and waits until both blocks have done so.
        #[inline(always)]
        pub(in crate::hopper) unsafe fn new((m, n, k): (u32, u32, u32), staging_bytes: u32, band: u32) -> ClusterBlock {
            let base = shared_address(gpu::dynamic_shared::<u8>());
            let tiles = Stages { first: base.next_multiple_of(ATOM_BYTES) };
            let staging = tiles.a(STAGES);
            let ring = Ring::clustered(staging + staging_bytes, STAGES, CLUSTER);
            if gpu::thread_idx().x == 0 {
                unsafe { ring.init(CONSUMERS) };
            }
            // Both blocks' barriers exist before either producer multicasts or
            // either consumer arrives remotely.
            sync_cluster();
            let grid = (m.div_ceil(TILE_M * CLUSTER), n.div_ceil(TILE_N));
            ClusterBlock { tiles, staging, ring, k_tiles: k.div_ceil(TILE_K), rank: cluster_rank(), grid, band }
        }

        /// The pairs this cluster computes, in order: `pair` from the first
        /// up to (not including) [`ClusterBlock::pairs`].
        pub(in crate::hopper) fn first_and_stride(&self) -> (u32, u32) {
            (gpu::block_idx().x / CLUSTER, gpu::grid_dim().x / CLUSTER)
        }

        pub(in crate::hopper) fn pairs(&self) -> u32 {
            self.grid.0 * self.grid.1
        }

        /// Where this block's tile of pair number `pair` starts in C.
        #[inline(always)]
        pub(in crate::hopper) fn origin(&self, pair: u32) -> (u32, u32) {
            let (row0, col0) = super::super::tile_origin(pair, self.grid, self.band, (TILE_M * CLUSTER, TILE_N));
            (row0 + TILE_M * self.rank, col0)
        }

        /// The producer thread's whole work: every k-tile of every pair, in
        /// the ring's order.
        #[inline(always)]
        pub(in crate::hopper) unsafe fn produce_all(&self, maps: *const TensorMap) {
            let (first, stride) = self.first_and_stride();
            let (mut i, mut pair) = (0, first);
            while pair < self.pairs() {
                for kt in 0..self.k_tiles {
                    unsafe { self.produce(maps, i, kt, self.origin(pair)) };
                    i += 1;
                }
                pair += stride;
            }
        }

        /// The producer's work for k-tile `kt`: this block's A tile, and its
        /// share of B's boxes for every block of the cluster.
        #[inline(always)]
        unsafe fn produce(&self, maps: *const TensorMap, i: u32, kt: u32, (row0, col0): (u32, u32)) {
            let (ring, tiles) = (&self.ring, self.tiles);
            unsafe {
                let s = ring.acquire(i, STAGE_BYTES);
                tma::load_2d(tiles.a(s), maps, ring.full(s), kt * TILE_K, row0);
                for j in 0..B_BOXES_EACH {
                    let b = self.rank * B_BOXES_EACH + j;
                    tma::load_2d_multicast(
                        tiles.b(s) + b * B_BOX_BYTES,
                        maps.add(1),
                        ring.full(s),
                        col0 + 64 * b,
                        kt * TILE_K,
                        EVERY_BLOCK,
                    );
                }
            }
        }
    }

    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap) {
        let t = gpu::thread_idx().x;
        // The cluster walks pairs of tiles (TILE_M·CLUSTER rows), in bands
        // of 4 pairs (8 tile-rows, as the persistent rung).
        let block = unsafe { ClusterBlock::new((m, n, k), EPILOGUE_BYTES, 8 / CLUSTER) };
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
/// [`super::wgmma_bf16_store::bf16_wgmma_tma_store`] with clusters of two
/// blocks sharing B's tiles by TMA multicast. 384 threads, one block per
/// multiprocessor, an even grid.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_cluster(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body(m, n, k, maps.cast()) }
}
