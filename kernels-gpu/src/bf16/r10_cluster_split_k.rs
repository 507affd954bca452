// ANCHOR: rung
//! BF16 rung 10: split K, the slices added inside a cluster.
//!
//! What changed from rung 9, and why it is faster: rung 9 writes one
//! partial 128×256 fp32 tile per slice of K to global memory, and a second
//! kernel reads them all back to add them. At M = 128 with 8 slices that
//! is 8 partial tiles of 128 KB for every 128 KB of C: as many bytes as
//! half the weights, plus a second launch. Here the blocks that compute one
//! tile's slices are launched as one cluster (one block per slice, at most
//! [`MOST_CLUSTER_SLICES`](crate::gemm::split_k::MOST_CLUSTER_SLICES)), and
//! add their partial tiles through distributed shared memory
//! ([`crate::gemm::hopper::cluster_sum`]): each block owns a share of the
//! tile, the others store their values of it straight into its shared
//! memory, and it adds them in slice order and stores C. The partial sums
//! never leave the chip, and there is one launch.
//!
//! Each block computes one unit (not persistent): a cluster's blocks must
//! run at once, and the slices are chosen so that the clusters fill the
//! GPU once. Shapes that need more slices than a cluster holds (one tile
//! with a deep K) stay with rung 9.

use crate::gemm::hopper::stages::{self, STAGE_BYTES, TILING};
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling, cluster_sum};
use kernels_macros::kernel;

/// Rung 9's tiles and stages, one unit per block.
const SHAPE: HopperTiling = HopperTiling { persistent: false, ..stages::PERSISTENT };

pub const CLUSTER_SPLIT_K: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_CLUSTER_SPLIT_K), tiling: SHAPE };

/// Accumulator quads (two pairs of neighbouring columns) per consumer
/// thread: a 64×256 tile over 128 threads.
const QUADS: u32 = TILING.tile_n / 8;
// The sends land in the stages.
const _: () = assert!(cluster_sum::scratch_bytes(TILING.tile_m / 64, QUADS) <= TILING.stages * STAGE_BYTES);

/// Block `b` computes slice `b % slices` of tile `b / slices` and is rank
/// `b % slices` of its cluster of `slices` blocks (the launch sets the
/// cluster size); the cluster stores the tile's sum to `c`.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_cluster_split_k(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe { device::body(m, n, k, maps.cast(), c, slice_k_tiles) }
}
// ANCHOR_END: rung

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::QUADS;
    use crate::gemm::hopper::cluster_sum::ClusterSum;
    use crate::gemm::hopper::consumer::{drain, mainloop};
    use crate::gemm::hopper::ring::{Ring, first_stage};
    use crate::gemm::hopper::stages::{Stages, TILING, produce};
    use crate::gemm::hopper::{Scale, pair_position, tile_origin};
    use crate::gemm::split_k::slice_range;
    use crate::gpu;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, cluster_rank, set_max_registers_decrease, set_max_registers_increase};

    const TILE_M: u32 = TILING.tile_m;
    const TILE_N: u32 = TILING.tile_n;
    const STAGES: u32 = TILING.stages;
    const CONSUMERS: u32 = TILE_M / 64;

    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap, c: *mut f32, slice_k_tiles: u32) {
        let t = gpu::thread_idx().x;
        if t == 0 {
            unsafe { tma::prefetch_maps(maps, 2) };
        }
        let tiles = Stages { first: first_stage() };
        let ring = unsafe { Ring::set_up(tiles.a(STAGES), STAGES, CONSUMERS, t) };

        let k_tiles = k.div_ceil(TILING.tile_k);
        let slices = k_tiles.div_ceil(slice_k_tiles);
        let slice = cluster_rank();
        let grid = (m.div_ceil(TILE_M), n.div_ceil(TILE_N));
        let (row0, col0) = tile_origin(gpu::block_idx().x / slices, grid, 1, (TILE_M, TILE_N));
        let (k_begin, k_end) = slice_range(slice, slice_k_tiles, k_tiles);
        let sum = ClusterSum::new(tiles.a(0), (slices, slice), CONSUMERS, QUADS);

        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                for (i, kt) in (k_begin..k_end).enumerate() {
                    unsafe { produce(&ring, tiles, maps, i as u32, kt, (row0, col0)) };
                }
            }
            sum.stand_by();
            return;
        }
        set_max_registers_increase::<232>();
        let consumer = warpgroup - 1;
        let thread = t % WARPGROUP_THREADS;
        let rows = row0 + consumer * 64;
        let mut i = 0;
        if rows >= m {
            unsafe { drain(&ring, consumer, &mut i, k_end - k_begin) };
            sum.stand_by();
            return;
        }
        let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_end - k_begin, |_, _| {}) };
        unsafe {
            // A quad's first row (its second is 8 below) must hold rows of A.
            sum.exchange(&acc, (consumer, thread), |quad| pair_position(thread, 2 * quad).0 < m - rows);
            sum.add_and_store(QUADS, (consumer, thread), Scale::NONE, c, (m, n), (rows, col0));
        }
    }
}
