//! The whole kernel of BF16 rungs 2-4 and 9: each block walks its units of
//! work (tiles, or with K split, a tile's slice of K), its warpgroups either
//! sharing the copies (rung 2) or split into a producer and consumers
//! (rungs 3, 4 and 9), and stores C (or a slice's partial C) from
//! registers.

use super::consumer::{drain, mainloop};
use super::ring::Ring;
use super::stages::{Stages, TILING, produce};
use super::{Scale, store_accumulators, tile_origin};
use crate::gemm::split_k::slice_range;
use crate::gpu::hopper::descriptor::ATOM_BYTES;
use crate::gpu::hopper::tma::{self, TensorMap};
use crate::gpu::hopper::{WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, shared_address};
use crate::gpu::{self, sync_threads};

const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
const STAGES: u32 = TILING.stages;
const CONSUMERS: u32 = TILE_M / 64;

/// The whole kernel; `SPECIALIZED` picks the warpgroup roles and
/// `GROUP_M` the order of tiles (see [`tile_origin`]).
/// Every block walks units `blockIdx.x, blockIdx.x + gridDim.x, ...`:
/// one when the grid covers them all, many when it is persistent.
///
/// With `SPLIT`, K is cut into slices of `slice_k_tiles` k-tiles
/// ([`crate::gemm::split_k`]): unit `u` is slice `u / tiles` of tile
/// `u % tiles`, and writes its partial C to `c + slice·m·n`. A consumer
/// warpgroup whose 64 rows all lie below M then only hands its stages
/// back, which at M ≤ 64 halves the tensor cores' work. Without it, K is
/// whole and `slice_k_tiles` is not read.
#[inline(always)]
pub unsafe fn body<const SPECIALIZED: bool, const GROUP_M: u32, const SPLIT: bool>(
    m: u32,
    n: u32,
    k: u32,
    maps: *const TensorMap,
    c: *mut f32,
    slice_k_tiles: u32,
) {
    let t = gpu::thread_idx().x;
    if t == 0 {
        unsafe { tma::prefetch_maps(maps, 2) };
        if SPLIT {
            // The partial sums' kernel may start beside this one's blocks:
            // it waits for them before reading.
            crate::gpu::hopper::launch_dependents();
        }
    }
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
    let per_slice = if SPLIT { slice_k_tiles } else { k_tiles };
    let units = if SPLIT { tile_count * k_tiles.div_ceil(per_slice) } else { tile_count };
    let (first, stride) = (gpu::block_idx().x, gpu::grid_dim().x);
    let origin = |tile: u32| tile_origin(tile, grid, GROUP_M, (TILE_M, TILE_N));
    // A unit's tile, slice and k-tiles.
    let unit = |u: u32| {
        let (tile, slice) = if SPLIT { (u % tile_count, u / tile_count) } else { (u, 0) };
        (tile, slice, slice_range(slice, per_slice, k_tiles))
    };
    let warpgroup = t / WARPGROUP_THREADS;
    let consumer = if SPECIALIZED {
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let mut i = 0;
                let mut u = first;
                while u < units {
                    let (tile, _, (k_begin, k_end)) = unit(u);
                    for kt in k_begin..k_end {
                        unsafe { produce(&ring, tiles, maps, i, kt, origin(tile)) };
                        i += 1;
                    }
                    u += stride;
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
    let mut u = first;
    while u < units {
        let (tile, slice, (k_begin, k_end)) = unit(u);
        let (row0, col0) = origin(tile);
        let rows = row0 + consumer * 64;
        if SPLIT && rows >= m {
            unsafe { drain(&ring, consumer, &mut i, k_end - k_begin) };
        } else {
            let refill = |kt: u32, i: u32| {
                if !SPECIALIZED && t == 0 && kt + STAGES < k_tiles {
                    unsafe { produce(&ring, tiles, maps, i + STAGES, kt + STAGES, (row0, col0)) };
                }
            };
            let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_end - k_begin, refill) };
            let out = if SPLIT { unsafe { c.add(slice as usize * m as usize * n as usize) } } else { c };
            unsafe { store_accumulators(&acc, Scale::NONE, out, (m, n), (rows, col0), t % WARPGROUP_THREADS) };
        }
        u += stride;
    }
}
