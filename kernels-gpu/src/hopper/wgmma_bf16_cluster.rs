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
const CLUSTER: u32 = 2;

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
mod device {
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

    /// The producer's work for k-tile `kt`: this block's A tile, and its
    /// share of B's boxes for every block of the cluster.
    #[inline(always)]
    unsafe fn produce(ring: &Ring, tiles: Stages, maps: *const TensorMap, i: u32, kt: u32, (row0, col0): (u32, u32), rank: u32) {
        unsafe {
            let s = ring.acquire(i, STAGE_BYTES);
            tma::load_2d(tiles.a(s), maps, ring.full(s), kt * TILE_K, row0);
            for j in 0..B_BOXES_EACH {
                let b = rank * B_BOXES_EACH + j;
                tma::load_2d_multicast(tiles.b(s) + b * B_BOX_BYTES, maps.add(1), ring.full(s), col0 + 64 * b, kt * TILE_K, EVERY_BLOCK);
            }
        }
    }

    #[inline(always)]
    pub unsafe fn body<const BAND: u32, const EPI: u32, const LAG: u32>(m: u32, n: u32, k: u32, maps: *const TensorMap, c: *mut f32) {
        let t = gpu::thread_idx().x;
        let rank = cluster_rank();
        let base = shared_address(gpu::dynamic_shared::<u8>());
        let tiles = Stages { first: base.next_multiple_of(ATOM_BYTES) };
        let staging = tiles.a(STAGES);
        let ring = Ring::clustered(staging + if EPI == 2 { 0 } else { EPILOGUE_BYTES }, STAGES, CLUSTER);
        if t == 0 {
            unsafe { ring.init(CONSUMERS) };
        }
        // Both blocks' barriers exist before either producer multicasts or
        // either consumer arrives remotely.
        sync_cluster();

        let k_tiles = k.div_ceil(TILE_K);
        // The cluster walks pairs of tiles (TILE_M·CLUSTER rows), in bands
        // of 4 pairs (8 tile-rows, as the persistent rung).
        let grid = (m.div_ceil(TILE_M * CLUSTER), n.div_ceil(TILE_N));
        let pairs = grid.0 * grid.1;
        let (first, stride) = (gpu::block_idx().x / CLUSTER, gpu::grid_dim().x / CLUSTER);
        let origin = |pair: u32| {
            let (row0, col0) = super::super::tile_origin(pair, grid, BAND, (TILE_M * CLUSTER, TILE_N));
            (row0 + TILE_M * rank, col0)
        };
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let (mut i, mut pair) = (0, first);
                while pair < pairs {
                    for kt in 0..k_tiles {
                        unsafe { produce(&ring, tiles, maps, i, kt, origin(pair), rank) };
                        i += 1;
                    }
                    pair += stride;
                }
            }
        } else {
            set_max_registers_increase::<232>();
            let consumer = warpgroup - 1;
            let staging = staging + consumer * BUFFERS * CHUNK_BYTES;
            let (mut i, mut pair) = (0, first);
            if LAG > 0 && consumer == 1 && pair < pairs {
                crate::gpu::hopper::sync_named(3, 2 * WARPGROUP_THREADS);
            }
            let mut firsttile = true;
            while pair < pairs {
                let (row0, col0) = origin(pair);
                let hook = |kt: u32, _| {
                    if LAG > 0 && consumer == 0 && firsttile && kt == LAG - 1 {
                        crate::gpu::hopper::arrive_named(3, 2 * WARPGROUP_THREADS);
                    }
                };
                let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_tiles, hook) };
                firsttile = false;
                if EPI == 0 {
                    unsafe { store_tile(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0), consumer) };
                } else if EPI == 2 {
                    unsafe {
                        crate::hopper::store_accumulators(
                            &acc,
                            crate::hopper::Scale::NONE,
                            c,
                            (m, n),
                            (row0 + 64 * consumer, col0),
                            t % WARPGROUP_THREADS,
                        )
                    };
                }
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
    unsafe { device::body::<4, 0, 0>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}

#[kernel(sm_90a)]
pub unsafe fn x_g2(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<2, 0, 0>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}
pub const K_X_G2: HopperKernel = HopperKernel { entry: Entry::Bf16Store(X_G2), ..CLUSTERED };

#[kernel(sm_90a)]
pub unsafe fn x_g8(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<8, 0, 0>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}
pub const K_X_G8: HopperKernel = HopperKernel { entry: Entry::Bf16Store(X_G8), ..CLUSTERED };

#[kernel(sm_90a)]
pub unsafe fn x_g16(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<16, 0, 0>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}
pub const K_X_G16: HopperKernel = HopperKernel { entry: Entry::Bf16Store(X_G16), ..CLUSTERED };

#[kernel(sm_90a)]
pub unsafe fn x_noepi(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<4, 1, 0>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}
pub const K_X_NOEPI: HopperKernel = HopperKernel { entry: Entry::Bf16Store(X_NOEPI), ..CLUSTERED };

#[kernel(sm_90a)]
pub unsafe fn x_lag1(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<4, 0, 1>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}
pub const K_X_LAG1: HopperKernel = HopperKernel { entry: Entry::Bf16Store(X_LAG1), ..CLUSTERED };

#[kernel(sm_90a)]
pub unsafe fn x_lag2(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<4, 0, 2>(m, n, k, maps.cast(), core::ptr::null_mut()) }
}
pub const K_X_LAG2: HopperKernel = HopperKernel { entry: Entry::Bf16Store(X_LAG2), ..CLUSTERED };

#[kernel(sm_90a)]
pub unsafe fn x_direct(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { device::body::<4, 2, 0>(m, n, k, maps.cast(), c) }
}
pub const K_X_DIRECT: HopperKernel =
    HopperKernel { entry: Entry::Bf16(X_DIRECT), tiling: HopperTiling { epilogue_bytes: 0, store_rows: 0, ..CLUSTERED.tiling } };
