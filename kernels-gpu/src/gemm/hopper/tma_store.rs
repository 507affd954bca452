//! A consumer warpgroup's tile of C stored by TMA from shared memory (BF16
//! rungs 5 and 6): the accumulators go into a staging buffer in the
//! 128-byte swizzled layout, `CHUNK_COLS` columns at a time, and one
//! thread hands each chunk to the copy engine, which writes C while the
//! warpgroup moves on. Two buffers per consumer alternate.

use super::stages::TILING;

/// Columns of C one staging buffer holds: 64 rows × 32 fp32, one
/// 128-byte-swizzled TMA box of 8 KB.
const CHUNK_COLS: u32 = 32;
pub const BUFFERS: u32 = 2;
/// The box of C's tensor map: 64 rows (one consumer's) × 32 fp32 (128
/// bytes, the widest box the 128-byte swizzle allows).
pub const C_BOX_ROWS: u32 = 64;
pub const C_BOX_COLS: u32 = 32;
const BOX_COLS: u32 = C_BOX_COLS;
const BOX_BYTES: u32 = C_BOX_ROWS * BOX_COLS * 4;
pub const CHUNK_BYTES: u32 = CHUNK_COLS / BOX_COLS * BOX_BYTES;

const TILE_M: u32 = TILING.tile_m;
const CONSUMERS: u32 = TILE_M / 64;
pub const EPILOGUE_BYTES: u32 = CONSUMERS * BUFFERS * CHUNK_BYTES;

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::store_tile;

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::swizzled_offset;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, store_shared_f32x2, sync_named};

    const TILE_N: u32 = TILING.tile_n;

    /// Writes a consumer's 64×TILE_N accumulators to C rows `row0..`,
    /// columns `col0..` through its staging buffers at `staging`.
    #[inline(always)]
    pub unsafe fn store_tile(acc: &[f32; 128], staging: u32, map: *const TensorMap, (row0, col0): (u32, u32), consumer: u32) {
        let thread = gpu::thread_idx().x % WARPGROUP_THREADS;
        let (warp, lane) = (thread / 32, thread % 32);
        for chunk in 0..TILE_N / CHUNK_COLS {
            let buffer = staging + (chunk % BUFFERS) * CHUNK_BYTES;
            // The wgmma accumulator layout: this thread holds columns
            // 8j + 2(lane % 4) and the next of rows lane/4 and lane/4 + 8 of
            // its warp's 16; the swizzle spreads one column of 16-byte
            // chunks over all banks, so these stores do not conflict.
            for jj in 0..CHUNK_COLS / 8 {
                let j = (chunk * CHUNK_COLS / 8 + jj) as usize;
                let col = 8 * jj + 2 * (lane % 4);
                let box_start = buffer + col / BOX_COLS * BOX_BYTES;
                for half in 0..2 {
                    let row = 16 * warp + lane / 4 + 8 * half as u32;
                    let address = box_start + swizzled_offset(row, col % BOX_COLS / 4) + col % 4 * 4;
                    unsafe { store_shared_f32x2(address, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]) };
                }
            }
            tma::fence_proxy_async_shared();
            // The buffer filled next was last read by the chunk before
            // this one: let its copy finish reading before anyone reuses it.
            if thread == 0 {
                tma::wait_group_read::<{ BUFFERS - 2 }>();
            }
            // Named barrier 1 or 2: this consumer's warpgroup only.
            sync_named(1 + consumer, WARPGROUP_THREADS);
            if thread == 0 {
                for b in 0..CHUNK_COLS / BOX_COLS {
                    unsafe { tma::store_2d(map, buffer + b * BOX_BYTES, col0 + chunk * CHUNK_COLS + b * BOX_COLS, row0) };
                }
                tma::commit_group();
            }
        }
    }
}
