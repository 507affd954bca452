//! The whole kernel of BF16 rungs 2-4: each block walks its tiles, its
//! warpgroups either sharing the copies (rung 2) or split into a producer
//! and consumers (rungs 3 and 4), and stores C from registers.

use super::consumer::mainloop;
use super::ring::Ring;
use super::stages::{Stages, TILING, produce};
use super::{Scale, store_accumulators, tile_origin};
use crate::gpu::hopper::descriptor::ATOM_BYTES;
use crate::gpu::hopper::tma::TensorMap;
use crate::gpu::hopper::{WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, shared_address};
use crate::gpu::{self, sync_threads};

const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
const STAGES: u32 = TILING.stages;
const CONSUMERS: u32 = TILE_M / 64;

/// The whole kernel; `SPECIALIZED` picks the warpgroup roles and
/// `GROUP_M` the order of tiles (see [`tile_origin`]).
/// Every block walks tiles `blockIdx.x, blockIdx.x + gridDim.x, ...`:
/// one tile when the grid covers them all, many when it is persistent.
#[inline(always)]
pub unsafe fn body<const SPECIALIZED: bool, const GROUP_M: u32>(m: u32, n: u32, k: u32, maps: *const TensorMap, c: *mut f32) {
    let t = gpu::thread_idx().x;
    let base = shared_address(gpu::dynamic_shared::<u8>());
    let tiles = Stages { first: base.next_multiple_of(ATOM_BYTES) };
    let ring = Ring::new(tiles.a(STAGES), STAGES);
    if t == 0 {
        unsafe { ring.init(CONSUMERS) };
    }
    sync_threads();

    let k_tiles = k.div_ceil(TILE_K);
    let grid = (m.div_ceil(TILE_M), n.div_ceil(TILE_N));
    let tile_count = grid.0 * grid.1;
    let (first, stride) = (gpu::block_idx().x, gpu::grid_dim().x);
    let origin = |tile: u32| tile_origin(tile, grid, GROUP_M, (TILE_M, TILE_N));
    let warpgroup = t / WARPGROUP_THREADS;
    let consumer = if SPECIALIZED {
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let mut i = 0;
                let mut tile = first;
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
        warpgroup - 1
    } else {
        if t == 0 {
            for kt in 0..k_tiles.min(STAGES) {
                unsafe { produce(&ring, tiles, maps, kt, kt, origin(first)) };
            }
        }
        warpgroup
    };

    let mut i = 0;
    let mut tile = first;
    while tile < tile_count {
        let (row0, col0) = origin(tile);
        let refill = |kt: u32, i: u32| {
            if !SPECIALIZED && t == 0 && kt + STAGES < k_tiles {
                unsafe { produce(&ring, tiles, maps, i + STAGES, kt + STAGES, (row0, col0)) };
            }
        };
        let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_tiles, refill) };
        unsafe { store_accumulators(&acc, Scale::NONE, c, (m, n), (row0 + consumer * 64, col0), t % WARPGROUP_THREADS) };
        tile += stride;
    }
}
