//! The GEMM of the 3xTF32 rungs (SGEMM rungs 12, 14 and 15): both inputs
//! split into big and small TF32 parts beforehand, Bᵀ stored K-major, four tiles
//! per stage (A big, A small, Bᵀ big, Bᵀ small) copied by TMA, and each
//! 32-deep stage summed from zero on the tensor cores
//! (`small·big + big·small + big·big`) before an ordinary fp32 add into the
//! running sum. Rung 14 adds a slice of K per block ([`crate::gemm::split_k`]).
//!
//! Rung 15 reads B as it lies in memory: each stage holds B's fp32 k-tile,
//! and the consumers split and transpose it in shared memory
//! (`split_b_block`) into one of two buffers of Bᵀ big and small while
//! the tensor cores work on the previous k-tile.

use super::{HopperTiling, wgmma_tiling};
use crate::gemm::tiling::Tiling;

/// Two consumer warpgroups of 64×128; 32 floats (one 128-byte swizzle row)
/// along K per stage; 3 stages.
pub const TILING: Tiling = wgmma_tiling(2, 128, 32, 3);
pub const TILE_K: u32 = TILING.tile_k;
/// One tile of 128 rows × 128 bytes; a stage holds A big, A small, Bᵀ big
/// and Bᵀ small.
const TILE_BYTES: u32 = 128 * TILE_K * 4;
const STAGE_BYTES: u32 = 4 * TILE_BYTES;
/// Rung 15's stage: A big, A small, and B's fp32 k-tile as four boxes of
/// 32 rows (K) × 32 columns (128 bytes, the widest a swizzled box is).
const RAW_B_STAGE_BYTES: u32 = 3 * TILE_BYTES;
/// Rung 15's two buffers of Bᵀ big and small, written by the consumers:
/// one is read by the tensor cores while the other is filled.
const SPLIT_B_BYTES: u32 = 2 * 2 * TILE_BYTES;

/// One block per tile (per unit of a tile and a slice of K, when split).
pub const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: false,
    cluster: 1,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: 0,
    store_rows: 0,
};

/// Which 4×4 block of B's 32×128 k-tile rung 15's consumer thread `thread`
/// (0-255) splits: its group of 4 columns (0-31) and of 4 rows of K (0-7).
///
/// Chosen so that both its 16-byte reads (4 rows of B's fp32 tile, four
/// boxes of 32 columns with the 128-byte swizzle) and its 16-byte writes
/// (4 rows of Bᵀ, K-major, the same swizzle) hit 8 different 16-byte bank
/// groups across each quarter-warp, the unit in which shared memory serves
/// 16-byte accesses: with `p` the thread's place in its quarter-warp, the
/// column group is `8·b + p` and the k group `G ^ p ^ 4·(p % 2)`, so the
/// swizzle's XOR with the row sends the 8 threads to 8 different places
/// on both sides ([`swizzled_chunk`]).
pub const fn split_b_block(thread: u32) -> (u32, u32) {
    let (p, group) = (thread % 8, thread / 8);
    (8 * (group % 4) + p, (group / 4) ^ p ^ (4 * (p % 2)))
}

/// Where 16-byte chunk `chunk` of 128-byte row `row` lies under the
/// 128-byte swizzle: its place within the row (the bank group).
pub const fn swizzled_chunk(row: u32, chunk: u32) -> u32 {
    chunk ^ (row % 8)
}

/// Rung 15: B's fp32 tile in each stage, and the split parts of B beside
/// the stages.
pub const RAW_B_SHAPE: HopperTiling = HopperTiling { stage_bytes: RAW_B_STAGE_BYTES, scratch_bytes: SPLIT_B_BYTES, ..SHAPE };

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::body;

// ANCHOR: body
#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gemm::hopper::ring::{Ring, first_stage};
    use crate::gemm::hopper::{Scale, store_accumulators, tile_origin};
    use crate::gemm::split_k::slice_range;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, SWIZZLE_BYTES, swizzled_128};
    use crate::gpu::hopper::tma::{self, TensorMap, fence_proxy_async_shared};
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, load_shared_f32x4, set_max_registers_decrease, set_max_registers_increase, store_shared_f32x4, sync_named, wgmma,
    };
    use crate::gpu::split_tf32;

    const TILE_M: u32 = TILING.tile_m;
    const TILE_N: u32 = TILING.tile_n;
    const STAGES: u32 = TILING.stages;
    const CONSUMERS: u32 = TILE_M / 64;

    /// Order of the four tiles in a stage, and of the four tensor maps.
    /// Rung 15's stage holds B's fp32 tile in place of B big, and has no
    /// B small; its third map is B's.
    const A_BIG: u32 = 0;
    const A_SMALL: u32 = 1;
    const B_BIG: u32 = 2;
    const B_SMALL: u32 = 3;
    const B_RAW: u32 = 2;
    const RAW_B_BOX_BYTES: u32 = TILE_K * SWIZZLE_BYTES;
    /// Named barrier of the two consumer warpgroups (rung 15).
    const CONSUMERS_BARRIER: u32 = 1;

    /// Consumer thread `thread` (0-255) turns its 4×4 block
    /// ([`super::split_b_block`]) of B's k-tile at `raw` (row-major fp32,
    /// four boxes of 32×32 with the 128-byte swizzle) into the same block of
    /// Bᵀ's big and small TF32 parts (K-major, 128-byte swizzle: the layout
    /// TMA writes from rung 12's split arrays). The 256 threads cover the
    /// 32×128 tile.
    #[inline(always)]
    pub(super) unsafe fn split_b_block(raw: u32, (big, small): (u32, u32), thread: u32) {
        let (columns, ks) = super::split_b_block(thread);
        let mut rows = [[0.0f32; 4]; 4];
        for (r, row) in rows.iter_mut().enumerate() {
            let k = 4 * ks + r as u32;
            let at = (columns / 8) * RAW_B_BOX_BYTES + k * SWIZZLE_BYTES + swizzled_chunk(k, columns % 8) * 16;
            *row = unsafe { load_shared_f32x4(raw + at) };
        }
        for j in 0..4 {
            let n = 4 * columns + j as u32;
            let mut parts = ([0.0f32; 4], [0.0f32; 4]);
            for (r, row) in rows.iter().enumerate() {
                let (b, s) = split_tf32(row[j]);
                parts.0[r] = f32::from_bits(b);
                parts.1[r] = f32::from_bits(s);
            }
            let at = n * SWIZZLE_BYTES + swizzled_chunk(n, ks) * 16;
            unsafe {
                store_shared_f32x4(big + at, parts.0);
                store_shared_f32x4(small + at, parts.1);
            }
        }
    }

    /// The whole kernel: block `b` computes tile `b` of C, `C = alpha·A·B +
    /// beta·C` through `scale`. With `SPLIT`, block `b` is slice
    /// `b / tiles` (of `slice_k_tiles` k-tiles) of tile `b % tiles`, and
    /// stores its partial sum at `c + slice·m·n` (`scale` then is
    /// [`Scale::NONE`]); without it, `slice_k_tiles` is not read. With
    /// `RAW_B` (rung 15) the third map is B's own, and the consumers split
    /// it ([`split_b_block`]).
    #[inline(always)]
    pub unsafe fn body<const SPLIT: bool, const RAW_B: bool>(
        m: u32,
        n: u32,
        k: u32,
        scale: Scale,
        maps: *const TensorMap,
        c: *mut f32,
        slice_k_tiles: u32,
    ) {
        let t = gpu::thread_idx().x;
        if t == 0 {
            // A big and small, then B's two parts (Bᵀ big and small) or B itself.
            unsafe { tma::prefetch_maps(maps, if RAW_B { 3 } else { 4 }) };
            if SPLIT {
                // The partial sums' kernel may start beside this one's
                // blocks: it waits for them before reading.
                crate::gpu::hopper::launch_dependents();
            }
        }
        let first = first_stage();
        let stage_bytes = if RAW_B { RAW_B_STAGE_BYTES } else { STAGE_BYTES };
        let tile = |stage: u32, which: u32| first + stage * stage_bytes + which * TILE_BYTES;
        // Rung 15: buffer i % 2 of Bᵀ big and small, for the ring's k-tile i.
        let split_b = first + STAGES * stage_bytes;
        let split_tiles = |i: u32| {
            let big = split_b + (i % 2) * 2 * TILE_BYTES;
            (big, big + TILE_BYTES)
        };
        let scratch = if RAW_B { SPLIT_B_BYTES } else { 0 };
        let ring = unsafe { Ring::set_up(split_b + scratch, STAGES, CONSUMERS, t) };

        let k_tiles = k.div_ceil(TILE_K);
        let grid = (m.div_ceil(TILE_M), n.div_ceil(TILE_N));
        let unit = gpu::block_idx().x;
        let (tile_index, slice) = if SPLIT { (unit % (grid.0 * grid.1), unit / (grid.0 * grid.1)) } else { (unit, 0) };
        let (k_begin, k_end) = if SPLIT { slice_range(slice, slice_k_tiles, k_tiles) } else { (0, k_tiles) };
        let (row0, col0) = tile_origin(tile_index, grid, 1, (TILE_M, TILE_N));
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                for i in 0..k_end - k_begin {
                    unsafe {
                        let s = ring.acquire(i, stage_bytes);
                        let kt = k_begin + i;
                        let load =
                            |which: u32, row: u32| tma::load_2d(tile(s, which), maps.add(which as usize), ring.full(s), kt * TILE_K, row);
                        load(A_BIG, row0);
                        load(A_SMALL, row0);
                        if RAW_B {
                            // B's rows are K: four boxes of 32 columns.
                            for b in 0..TILE_N / 32 {
                                let dst = tile(s, B_RAW) + b * RAW_B_BOX_BYTES;
                                tma::load_2d(dst, maps.add(B_RAW as usize), ring.full(s), col0 + 32 * b, kt * TILE_K);
                            }
                        } else {
                            load(B_BIG, col0);
                            load(B_SMALL, col0);
                        }
                    }
                }
            }
            return;
        }
        set_max_registers_increase::<232>();
        let consumer = warpgroup - 1;

        let steps = k_end - k_begin;
        let consumer_thread = t - WARPGROUP_THREADS;
        // Rung 15: B's parts of the first k-tile, before any wgmma.
        let split = |i: u32| unsafe {
            let s = ring.wait_full(i);
            split_b_block(tile(s, B_RAW), split_tiles(i), consumer_thread);
            // The wgmmas read through the async proxy.
            fence_proxy_async_shared();
        };
        if RAW_B && steps > 0 {
            split(0);
            sync_named(CONSUMERS_BARRIER, CONSUMERS * WARPGROUP_THREADS);
        }
        let mut sum = [0.0f32; TILE_N as usize / 2];
        let mut stage_sum = [0.0f32; TILE_N as usize / 2];
        for i in 0..steps {
            let s = unsafe { ring.wait_full(i) };
            let (b_big_tile, b_small_tile) = if RAW_B { split_tiles(i) } else { (tile(s, B_BIG), tile(s, B_SMALL)) };
            wgmma::fence();
            for kk in 0..TILE_K / 8 {
                // Both operands K-major: 8 floats (32 bytes) further along
                // each row per step; 8-row atoms 1024 bytes apart.
                let rows = consumer * 64 * SWIZZLE_BYTES + kk * 32;
                let desc = |at: u32| swizzled_128(at, 16, ATOM_BYTES);
                let (a_big, a_small) = (desc(tile(s, A_BIG) + rows), desc(tile(s, A_SMALL) + rows));
                let (b_big, b_small) = (desc(b_big_tile + kk * 32), desc(b_small_tile + kk * 32));
                unsafe {
                    wgmma::mma_tf32_m64n128k8(&mut stage_sum, a_small, b_big, kk > 0);
                    wgmma::mma_tf32_m64n128k8(&mut stage_sum, a_big, b_small, true);
                    wgmma::mma_tf32_m64n128k8(&mut stage_sum, a_big, b_big, true);
                }
            }
            wgmma::commit();
            // Rung 15: the next k-tile's parts of B while the tensor cores run.
            if RAW_B && i + 1 < steps {
                split(i + 1);
            }
            wgmma::wait::<0>();
            wgmma::fence_operands(&mut stage_sum);
            if t % WARPGROUP_THREADS == 0 {
                unsafe { ring.release(i) };
            }
            for x in 0..sum.len() {
                sum[x] += stage_sum[x];
            }
            // Rung 15: both halves of the next buffer are written, and both
            // warpgroups are done reading this one (refilled at i + 2).
            if RAW_B {
                sync_named(CONSUMERS_BARRIER, CONSUMERS * WARPGROUP_THREADS);
            }
        }
        let out = if SPLIT { unsafe { c.add(slice as usize * m as usize * n as usize) } } else { c };
        unsafe { store_accumulators(&sum, scale, out, (m, n), (row0 + consumer * 64, col0), t % WARPGROUP_THREADS) };
    }
}
// ANCHOR_END: body
