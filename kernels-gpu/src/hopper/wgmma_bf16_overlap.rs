//! Experimental: rung 6 with the epilogue's staging as deep as shared
//! memory allows, so TMA stores drain while the next tile is multiplied.

use super::{Entry, HopperKernel, HopperTiling, wgmma_tiling};
use crate::matmul::tiling::Tiling;
use kernels_macros::kernel;

const CLUSTER: u32 = 2;
const CHUNK_BYTES: u32 = 64 * 32 * 4;

const fn overlap(kernel: super::Entry, tile_k: u32, stages: u32, slots: u32, store_rows: u32) -> HopperKernel {
    let tiling: Tiling = wgmma_tiling(2, 256, tile_k, stages);
    HopperKernel {
        entry: kernel,
        tiling: HopperTiling {
            tiling,
            specialized: true,
            persistent: true,
            cluster: CLUSTER,
            stage_bytes: (128 + 256) * tile_k * 2,
            epilogue_bytes: 2 * slots * CHUNK_BYTES,
            store_rows,
        },
    }
}

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, swizzled_64, swizzled_128, swizzled_offset};
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, cluster_rank, set_max_registers_decrease, set_max_registers_increase, shared_address, store_shared_f32x2,
        sync_cluster, sync_named, wgmma,
    };
    use crate::hopper::pipeline::Ring;

    const TILE_M: u32 = 128;
    const TILE_N: u32 = 256;
    const CONSUMERS: u32 = 2;
    const EVERY_BLOCK: u16 = 3;

    #[inline(always)]
    const fn stage_bytes(tile_k: u32) -> u32 {
        (TILE_M + TILE_N) * tile_k * 2
    }

    #[inline(always)]
    unsafe fn store_tile<const SLOTS: u32>(acc: &[f32; 128], staging: u32, map: *const TensorMap, (row0, col0): (u32, u32), consumer: u32) {
        let thread = gpu::thread_idx().x % WARPGROUP_THREADS;
        let (warp, lane) = (thread / 32, thread % 32);
        if thread == 0 {
            tma::wait_group_read::<0>();
        }
        sync_named(1 + consumer, WARPGROUP_THREADS);
        for chunk in 0..TILE_N / 32 {
            if chunk >= SLOTS {
                if thread == 0 {
                    match SLOTS {
                        2 => tma::wait_group_read::<1>(),
                        5 => tma::wait_group_read::<4>(),
                        _ => tma::wait_group_read::<7>(),
                    }
                }
                sync_named(1 + consumer, WARPGROUP_THREADS);
            }
            let buffer = staging + (chunk % SLOTS) * CHUNK_BYTES;
            for jj in 0..4 {
                let j = (chunk * 4 + jj) as usize;
                let col = 8 * jj + 2 * (lane % 4);
                for half in 0..2 {
                    let row = 16 * warp + lane / 4 + 8 * half as u32;
                    let address = buffer + swizzled_offset(row, col / 4) + col % 4 * 4;
                    unsafe { store_shared_f32x2(address, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]) };
                }
            }
            tma::fence_proxy_async_shared();
            sync_named(1 + consumer, WARPGROUP_THREADS);
            if thread == 0 {
                unsafe { tma::store_2d(map, buffer, col0 + chunk * 32, row0) };
                tma::commit_group();
            }
        }
    }

    /// Each warp stores its own 16 rows, 32 columns at a time, through
    /// two 2 KB slots: no barrier across the warpgroup.
    #[inline(always)]
    unsafe fn store_tile_warp(acc: &[f32; 128], staging: u32, map: *const TensorMap, (row0, col0): (u32, u32)) {
        let thread = gpu::thread_idx().x % WARPGROUP_THREADS;
        let (warp, lane) = (thread / 32, thread % 32);
        let staging = staging + warp * 2 * 2048;
        for chunk in 0..TILE_N / 32 {
            if lane == 0 {
                tma::wait_group_read::<1>();
            }
            crate::gpu::hopper::sync_warp();
            let buffer = staging + (chunk % 2) * 2048;
            for jj in 0..4 {
                let j = (chunk * 4 + jj) as usize;
                let col = 8 * jj + 2 * (lane % 4);
                for half in 0..2 {
                    let row = lane / 4 + 8 * half as u32;
                    let address = buffer + swizzled_offset(row, col / 4) + col % 4 * 4;
                    unsafe { store_shared_f32x2(address, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]) };
                }
            }
            tma::fence_proxy_async_shared();
            crate::gpu::hopper::sync_warp();
            if lane == 0 {
                unsafe { tma::store_2d(map, buffer, col0 + chunk * 32, row0 + 16 * warp) };
                tma::commit_group();
            }
        }
    }

    /// One warp's 16 rows × 32 columns (`vals`, the accumulators of one
    /// 32-column chunk) to C at (`row`, `col`) through slot `slot` (2 KB) of
    /// this warp's two.
    #[inline(always)]
    unsafe fn store_chunk_warp(vals: &[f32; 16], staging: u32, slot: u32, map: *const TensorMap, (row, col): (u32, u32)) {
        let lane = gpu::thread_idx().x % 32;
        if lane == 0 {
            tma::wait_group_read::<1>();
        }
        crate::gpu::hopper::sync_warp();
        let buffer = staging + slot * 2048;
        for jj in 0..4 {
            let c = 8 * jj + 2 * (lane % 4);
            for half in 0..2 {
                let r = lane / 4 + 8 * half as u32;
                let address = buffer + swizzled_offset(r, c / 4) + c % 4 * 4;
                unsafe { store_shared_f32x2(address, vals[4 * jj as usize + 2 * half], vals[4 * jj as usize + 2 * half + 1]) };
            }
        }
        tma::fence_proxy_async_shared();
        crate::gpu::hopper::sync_warp();
        if lane == 0 {
            unsafe { tma::store_2d(map, buffer, col, row) };
            tma::commit_group();
        }
    }

    /// Rung 6 whose consumers store the left half of a tile at once and
    /// keep the right half in registers, storing it one chunk per k-tile
    /// during the first four k-tiles of the next tile, while its wgmmas run.
    #[inline(always)]
    pub unsafe fn body_deferred(m: u32, n: u32, k: u32, maps: *const TensorMap) {
        const TILE_K: u32 = 64;
        const STAGES: u32 = 4;
        let _ = m;
        let _ = n;
        let t = gpu::thread_idx().x;
        let rank = cluster_rank();
        let base = shared_address(gpu::dynamic_shared::<u8>()).next_multiple_of(ATOM_BYTES);
        let stage = |s: u32| base + s * stage_bytes(TILE_K);
        let b_of = |s: u32| stage(s) + TILE_M * TILE_K * 2;
        let b_box = 64 * TILE_K * 2;
        let staging = stage(STAGES);
        let ring = Ring::clustered(staging + 2 * 2 * CHUNK_BYTES, STAGES, CLUSTER);
        if t == 0 {
            unsafe { ring.init(CONSUMERS) };
        }
        sync_cluster();

        let k_tiles = k.div_ceil(TILE_K);
        let grid = (m.div_ceil(TILE_M * CLUSTER), n.div_ceil(TILE_N));
        let pairs = grid.0 * grid.1;
        let (first, stride) = (gpu::block_idx().x / CLUSTER, gpu::grid_dim().x / CLUSTER);
        let origin = |pair: u32| {
            let (row0, col0) = super::super::tile_origin(pair, grid, 8, (TILE_M * CLUSTER, TILE_N));
            (row0 + TILE_M * rank, col0)
        };
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let (mut i, mut pair) = (0, first);
                while pair < pairs {
                    let (row0, col0) = origin(pair);
                    for kt in 0..k_tiles {
                        let s = unsafe { ring.acquire(i, stage_bytes(TILE_K)) };
                        unsafe { tma::load_2d(stage(s), maps, ring.full(s), kt * TILE_K, row0) };
                        for j in 0..TILE_N / 64 / CLUSTER {
                            let b = rank * (TILE_N / 64 / CLUSTER) + j;
                            unsafe {
                                tma::load_2d_multicast(
                                    b_of(s) + b * b_box,
                                    maps.add(1),
                                    ring.full(s),
                                    col0 + 64 * b,
                                    kt * TILE_K,
                                    EVERY_BLOCK,
                                )
                            };
                        }
                        i += 1;
                    }
                    pair += stride;
                }
            }
        } else {
            set_max_registers_increase::<232>();
            let consumer = warpgroup - 1;
            let thread = t % WARPGROUP_THREADS;
            let (warp, leader) = (thread / 32, thread == 0);
            let staging = staging + consumer * 2 * CHUNK_BYTES + warp * 2 * 2048;
            let map = unsafe { maps.add(2) };
            let mut pending = [0.0f32; 64];
            // Where the pending right half goes: rows of this warp, first column; none yet.
            let mut pending_at: Option<(u32, u32)> = None;
            let (mut i, mut pair) = (0, first);
            let step = |acc: &mut [f32; 128], i: u32, kt: u32| {
                let s = unsafe { ring.wait_full(i) };
                wgmma::fence();
                for kk in 0..TILE_K / 16 {
                    let a = swizzled_128(stage(s) + consumer * 64 * 128 + kk * 32, 16, ATOM_BYTES);
                    let b = swizzled_128(b_of(s) + kk * 16 * 128, b_box, ATOM_BYTES);
                    unsafe { wgmma::mma_bf16_m64n256k16(acc, a, b, true) };
                }
                wgmma::commit();
                let _ = kt;
            };
            while pair < pairs {
                let (row0, col0) = origin(pair);
                let mut acc = [0.0f32; 128];
                macro_rules! peeled {
                    ($kt:expr) => {
                        if $kt < k_tiles {
                            step(&mut acc, i, $kt);
                        }
                        if let Some((row, col)) = pending_at {
                            let vals: &[f32; 16] = pending[16 * $kt..16 * $kt + 16].try_into().unwrap();
                            unsafe { store_chunk_warp(vals, staging, (4 + $kt) % 2, map, (row, col + 32 * (4 + $kt))) };
                        }
                        if $kt < k_tiles {
                            wgmma::wait::<1>();
                            if $kt > 0 && leader {
                                unsafe { ring.release(i - 1) };
                            }
                            i += 1;
                        }
                    };
                }
                peeled!(0);
                peeled!(1);
                peeled!(2);
                peeled!(3);
                for kt in 4..k_tiles {
                    step(&mut acc, i, kt);
                    wgmma::wait::<1>();
                    if leader {
                        unsafe { ring.release(i - 1) };
                    }
                    i += 1;
                }
                wgmma::wait::<0>();
                wgmma::fence_operands(&mut acc);
                if leader {
                    unsafe { ring.release(i - 1) };
                }
                let row = row0 + 64 * consumer + 16 * warp;
                macro_rules! left {
                    ($c:expr) => {
                        let vals: &[f32; 16] = acc[16 * $c..16 * $c + 16].try_into().unwrap();
                        unsafe { store_chunk_warp(vals, staging, $c % 2, map, (row, col0 + 32 * $c)) };
                    };
                }
                left!(0);
                left!(1);
                left!(2);
                left!(3);
                pending.copy_from_slice(&acc[64..]);
                pending_at = Some((row, col0));
                pair += stride;
            }
            if let Some((row, col)) = pending_at {
                macro_rules! right {
                    ($c:expr) => {
                        let vals: &[f32; 16] = pending[16 * $c..16 * $c + 16].try_into().unwrap();
                        unsafe { store_chunk_warp(vals, staging, $c % 2, map, (row, col + 32 * (4 + $c))) };
                    };
                }
                right!(0);
                right!(1);
                right!(2);
                right!(3);
            }
            if thread % 32 == 0 {
                tma::wait_group_all();
            }
        }
        sync_cluster();
    }

    #[inline(always)]
    pub unsafe fn body<const TILE_K: u32, const STAGES: u32, const SLOTS: u32, const PER_WARP: bool>(
        m: u32,
        n: u32,
        k: u32,
        maps: *const TensorMap,
    ) {
        let t = gpu::thread_idx().x;
        let rank = cluster_rank();
        let base = shared_address(gpu::dynamic_shared::<u8>()).next_multiple_of(ATOM_BYTES);
        let stage = |s: u32| base + s * stage_bytes(TILE_K);
        let b_of = |s: u32| stage(s) + TILE_M * TILE_K * 2;
        let b_box = 64 * TILE_K * 2;
        let staging = stage(STAGES);
        let ring = Ring::clustered(staging + 2 * SLOTS * CHUNK_BYTES, STAGES, CLUSTER);
        if t == 0 {
            unsafe { ring.init(CONSUMERS) };
        }
        sync_cluster();

        let k_tiles = k.div_ceil(TILE_K);
        let grid = (m.div_ceil(TILE_M * CLUSTER), n.div_ceil(TILE_N));
        let pairs = grid.0 * grid.1;
        let (first, stride) = (gpu::block_idx().x / CLUSTER, gpu::grid_dim().x / CLUSTER);
        let origin = |pair: u32| {
            let (row0, col0) = super::super::tile_origin(pair, grid, 8, (TILE_M * CLUSTER, TILE_N));
            (row0 + TILE_M * rank, col0)
        };
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let (mut i, mut pair) = (0, first);
                while pair < pairs {
                    let (row0, col0) = origin(pair);
                    for kt in 0..k_tiles {
                        let s = unsafe { ring.acquire(i, stage_bytes(TILE_K)) };
                        unsafe { tma::load_2d(stage(s), maps, ring.full(s), kt * TILE_K, row0) };
                        for j in 0..TILE_N / 64 / CLUSTER {
                            let b = rank * (TILE_N / 64 / CLUSTER) + j;
                            unsafe {
                                tma::load_2d_multicast(
                                    b_of(s) + b * b_box,
                                    maps.add(1),
                                    ring.full(s),
                                    col0 + 64 * b,
                                    kt * TILE_K,
                                    EVERY_BLOCK,
                                )
                            };
                        }
                        i += 1;
                    }
                    pair += stride;
                }
            }
        } else {
            set_max_registers_increase::<232>();
            let consumer = warpgroup - 1;
            let leader = t % WARPGROUP_THREADS == 0;
            let staging = staging + consumer * SLOTS * CHUNK_BYTES;
            let (mut i, mut pair) = (0, first);
            while pair < pairs {
                let (row0, col0) = origin(pair);
                let mut acc = [0.0f32; 128];
                for kt in 0..k_tiles {
                    let s = unsafe { ring.wait_full(i) };
                    wgmma::fence();
                    for kk in 0..TILE_K / 16 {
                        let a = if TILE_K == 64 {
                            swizzled_128(stage(s) + consumer * 64 * 128 + kk * 32, 16, ATOM_BYTES)
                        } else {
                            swizzled_64(stage(s) + consumer * 64 * 64 + kk * 32, 16, 512)
                        };
                        let b = swizzled_128(b_of(s) + kk * 16 * 128, b_box, ATOM_BYTES);
                        unsafe { wgmma::mma_bf16_m64n256k16(&mut acc, a, b, true) };
                    }
                    wgmma::commit();
                    wgmma::wait::<1>();
                    if kt > 0 && leader {
                        unsafe { ring.release(i - 1) };
                    }
                    i += 1;
                }
                wgmma::wait::<0>();
                wgmma::fence_operands(&mut acc);
                if k_tiles > 0 && leader {
                    unsafe { ring.release(i - 1) };
                }
                if PER_WARP {
                    unsafe { store_tile_warp(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0)) };
                } else {
                    unsafe { store_tile::<SLOTS>(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0), consumer) };
                }
                pair += stride;
            }
            if PER_WARP && t % 32 == 0 || leader {
                tma::wait_group_all();
            }
        }
        sync_cluster();
    }
}

#[kernel(sm_90a)]
pub unsafe fn o1_k64_s4_b2(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<64, 4, 2, false>(m, n, k, maps.cast()) }
}
pub const O1: HopperKernel = overlap(Entry::Bf16Store(O1_K64_S4_B2), 64, 4, 2, 64);

#[kernel(sm_90a)]
pub unsafe fn o2_k64_s3_b5(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<64, 3, 5, false>(m, n, k, maps.cast()) }
}
pub const O2: HopperKernel = overlap(Entry::Bf16Store(O2_K64_S3_B5), 64, 3, 5, 64);

#[kernel(sm_90a)]
pub unsafe fn o3_k32_s4_b8(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<32, 4, 8, false>(m, n, k, maps.cast()) }
}
pub const O3: HopperKernel = overlap(Entry::Bf16Store(O3_K32_S4_B8), 32, 4, 8, 64);

#[kernel(sm_90a)]
pub unsafe fn o4_k32_s6_b5(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<32, 6, 5, false>(m, n, k, maps.cast()) }
}
pub const O4: HopperKernel = overlap(Entry::Bf16Store(O4_K32_S6_B5), 32, 6, 5, 64);

#[kernel(sm_90a)]
pub unsafe fn o5_k32_s8_b2(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<32, 8, 2, false>(m, n, k, maps.cast()) }
}
pub const O5: HopperKernel = overlap(Entry::Bf16Store(O5_K32_S8_B2), 32, 8, 2, 64);

#[kernel(sm_90a)]
pub unsafe fn o6_warp(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body::<64, 4, 2, true>(m, n, k, maps.cast()) }
}
pub const O6: HopperKernel = overlap(Entry::Bf16Store(O6_WARP), 64, 4, 2, 16);

#[kernel(sm_90a)]
pub unsafe fn o7_deferred(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body_deferred(m, n, k, maps.cast()) }
}
pub const O7: HopperKernel = overlap(Entry::Bf16Store(O7_DEFERRED), 64, 4, 2, 16);
