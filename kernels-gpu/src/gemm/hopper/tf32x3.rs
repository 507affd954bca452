//! The GEMM of the 3xTF32 rungs (SGEMM rungs 12 and 14): both inputs split
//! into big and small TF32 parts beforehand, Bᵀ stored K-major, four tiles
//! per stage (A big, A small, Bᵀ big, Bᵀ small) copied by TMA, and each
//! 32-deep stage summed from zero on the tensor cores
//! (`small·big + big·small + big·big`) before an ordinary fp32 add into the
//! running sum. Rung 14 adds a slice of K per block ([`crate::gemm::split_k`]).

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

/// One block per tile (per unit of a tile and a slice of K, when split).
pub const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: false,
    cluster: 1,
    stage_bytes: STAGE_BYTES,
    epilogue_bytes: 0,
    store_rows: 0,
};

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
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, wgmma};

    const TILE_M: u32 = TILING.tile_m;
    const TILE_N: u32 = TILING.tile_n;
    const STAGES: u32 = TILING.stages;
    const CONSUMERS: u32 = TILE_M / 64;

    /// Order of the four tiles in a stage, and of the four tensor maps.
    const A_BIG: u32 = 0;
    const A_SMALL: u32 = 1;
    const B_BIG: u32 = 2;
    const B_SMALL: u32 = 3;

    /// The whole kernel: block `b` computes tile `b` of C, `C = alpha·A·B +
    /// beta·C` through `scale`. With `SPLIT`, block `b` is slice
    /// `b / tiles` (of `slice_k_tiles` k-tiles) of tile `b % tiles`, and
    /// stores its partial sum at `c + slice·m·n` (`scale` then is
    /// [`Scale::NONE`]); without it, `slice_k_tiles` is not read.
    #[inline(always)]
    pub unsafe fn body<const SPLIT: bool>(m: u32, n: u32, k: u32, scale: Scale, maps: *const TensorMap, c: *mut f32, slice_k_tiles: u32) {
        let t = gpu::thread_idx().x;
        let first = first_stage();
        let tile = |stage: u32, which: u32| first + stage * STAGE_BYTES + which * TILE_BYTES;
        let ring = unsafe { Ring::set_up(first + STAGES * STAGE_BYTES, STAGES, CONSUMERS, t) };

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
                        let s = ring.acquire(i, STAGE_BYTES);
                        let kt = k_begin + i;
                        let load =
                            |which: u32, row: u32| tma::load_2d(tile(s, which), maps.add(which as usize), ring.full(s), kt * TILE_K, row);
                        load(A_BIG, row0);
                        load(A_SMALL, row0);
                        load(B_BIG, col0);
                        load(B_SMALL, col0);
                    }
                }
            }
            return;
        }
        set_max_registers_increase::<232>();
        let consumer = warpgroup - 1;

        let mut sum = [0.0f32; TILE_N as usize / 2];
        let mut stage_sum = [0.0f32; TILE_N as usize / 2];
        for i in 0..k_end - k_begin {
            let s = unsafe { ring.wait_full(i) };
            wgmma::fence();
            for kk in 0..TILE_K / 8 {
                // Both operands K-major: 8 floats (32 bytes) further along
                // each row per step; 8-row atoms 1024 bytes apart.
                let rows = consumer * 64 * SWIZZLE_BYTES + kk * 32;
                let desc = |which: u32, offset: u32| swizzled_128(tile(s, which) + offset, 16, ATOM_BYTES);
                let (a_big, a_small) = (desc(A_BIG, rows), desc(A_SMALL, rows));
                let (b_big, b_small) = (desc(B_BIG, kk * 32), desc(B_SMALL, kk * 32));
                unsafe {
                    wgmma::mma_tf32_m64n128k8(&mut stage_sum, a_small, b_big, kk > 0);
                    wgmma::mma_tf32_m64n128k8(&mut stage_sum, a_big, b_small, true);
                    wgmma::mma_tf32_m64n128k8(&mut stage_sum, a_big, b_big, true);
                }
            }
            wgmma::commit();
            wgmma::wait::<0>();
            wgmma::fence_operands(&mut stage_sum);
            if t % WARPGROUP_THREADS == 0 {
                unsafe { ring.release(i) };
            }
            for x in 0..sum.len() {
                sum[x] += stage_sum[x];
            }
        }
        let out = if SPLIT { unsafe { c.add(slice as usize * m as usize * n as usize) } } else { c };
        unsafe { store_accumulators(&sum, scale, out, (m, n), (row0 + consumer * 64, col0), t % WARPGROUP_THREADS) };
    }
}
// ANCHOR_END: body
