//! BF16 rung 5: the persistent rung's mainloop, with C stored by TMA
//! from shared memory.
//!
//! What changed from the persistent rung, and why it is faster: rung 4's
//! consumers store their 128 accumulators each straight from registers to
//! global memory, eight bytes at a time, and the tensor cores wait until
//! the last store has left. Here each consumer writes its accumulators
//! into a small staging area of shared memory, `CHUNK_COLS` columns at a
//! time, in the 128-byte swizzled layout, and one thread hands each chunk
//! to TMA (`cp.async.bulk.tensor` from shared to global). The copy engine
//! then writes C while the warpgroup is already multiplying the next tile;
//! TMA also clips what falls outside C, so edge tiles need no bounds
//! checks. Two staging buffers per consumer alternate: while TMA reads
//! one, the threads fill the other.

use super::{Entry, HopperKernel, HopperTiling};
use crate::matmul::tiling::Tiling;
use kernels_macros::kernel;

/// Parameters of rung 5: `(m, n, k, maps)`, `C = A·B`. `maps` points to
/// the tensor maps of A, B and C (16 words each); C is written through its
/// map, so the kernel takes no pointer to it.
pub type Bf16StoreParams = (u32, u32, u32, *const u64);

/// Columns of C one staging buffer holds: 64 rows × 32 fp32, one
/// 128-byte-swizzled TMA box of 8 KB.
const CHUNK_COLS: u32 = 32;
pub(super) const BUFFERS: u32 = 2;
/// The box of C's tensor map: 64 rows (one consumer's) × 32 fp32 (128
/// bytes, the widest box the 128-byte swizzle allows).
pub const C_BOX_ROWS: u32 = 64;
pub const C_BOX_COLS: u32 = 32;
const BOX_COLS: u32 = C_BOX_COLS;
const BOX_BYTES: u32 = C_BOX_ROWS * BOX_COLS * 4;
pub(super) const CHUNK_BYTES: u32 = CHUNK_COLS / BOX_COLS * BOX_BYTES;

/// The persistent rung's: 4 stages of 48 KB, and 32 KB of staging
/// buffers still fit in the 227 KB a block may have.
pub const TILING: Tiling = super::wgmma_bf16::TILING;
const TILE_M: u32 = TILING.tile_m;
const CONSUMERS: u32 = TILE_M / 64;
pub(super) const EPILOGUE_BYTES: u32 = CONSUMERS * BUFFERS * CHUNK_BYTES;

pub const TMA_STORE: HopperKernel = HopperKernel {
    entry: Entry::Bf16Store(BF16_WGMMA_TMA_STORE),
    tiling: HopperTiling {
        tiling: TILING,
        specialized: true,
        persistent: true,
        cluster: 1,
        stage_bytes: super::wgmma_bf16::STAGE_BYTES,
        epilogue_bytes: EPILOGUE_BYTES,
        store_rows: C_BOX_ROWS,
    },
};

#[cfg(ptx_ladder_hopper)]
pub(super) mod device {
    use super::*;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, swizzled_offset};
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, shared_address, store_shared_f32x2, sync_named,
    };
    use crate::gpu::{self, sync_threads};
    use crate::hopper::pipeline::Ring;
    use crate::hopper::wgmma_bf16::device::{Stages, mainloop, produce};

    const STAGES: u32 = TILING.stages;
    const TILE_N: u32 = TILING.tile_n;

    /// Writes a consumer's 64×TILE_N accumulators to C rows `row0..`,
    /// columns `col0..` through its staging buffers at `staging`.
    #[inline(always)]
    pub(in crate::hopper) unsafe fn store_tile(
        acc: &[f32; 128],
        staging: u32,
        map: *const TensorMap,
        (row0, col0): (u32, u32),
        consumer: u32,
    ) {
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

    /// The persistent rung's body with [`store_tile`] as the epilogue.
    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap) {
        let t = gpu::thread_idx().x;
        let base = shared_address(gpu::dynamic_shared::<u8>());
        let tiles = Stages { first: base.next_multiple_of(ATOM_BYTES) };
        let staging = tiles.a(STAGES);
        let ring = Ring::new(staging + EPILOGUE_BYTES, STAGES);
        if t == 0 {
            unsafe { ring.init(CONSUMERS) };
        }
        sync_threads();

        let k_tiles = k.div_ceil(TILING.tile_k);
        let grid = (m.div_ceil(TILE_M), n.div_ceil(TILE_N));
        let tile_count = grid.0 * grid.1;
        let (first, stride) = (gpu::block_idx().x, gpu::grid_dim().x);
        let origin = |tile: u32| super::super::tile_origin(tile, grid, 8, (TILE_M, TILE_N));
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let (mut i, mut tile) = (0, first);
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
        let consumer = warpgroup - 1;
        let staging = staging + consumer * BUFFERS * CHUNK_BYTES;
        let (mut i, mut tile) = (0, first);
        while tile < tile_count {
            let (row0, col0) = origin(tile);
            let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_tiles, |_, _| {}) };
            unsafe { store_tile(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0), consumer) };
            tile += stride;
        }
        // Shared memory must outlive the copies reading it.
        if t % WARPGROUP_THREADS == 0 {
            tma::wait_group_all();
        }
    }
}

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::wgmma_bf16::bf16_wgmma_persistent`] but storing C with TMA
/// from shared memory. 384 threads, one block per multiprocessor.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_tma_store(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body(m, n, k, maps.cast()) }
}
