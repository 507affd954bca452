//! BF16 rungs 5 and 6: the persistent rung's mainloop with a different
//! ending for each tile.
//!
//! What changed from the persistent rung, and why it is faster:
//! - **Rung 5, the epilogue through shared memory.** Rung 4's consumers
//!   store their 128 accumulators each straight from registers to global
//!   memory, eight bytes at a time, and the tensor cores wait until the
//!   last store has left. Here each consumer writes its accumulators into
//!   a small staging area of shared memory, `CHUNK_COLS` columns at a
//!   time, in the 128-byte swizzled layout, and one thread hands each
//!   chunk to TMA (`cp.async.bulk.tensor` from shared to global). The copy
//!   engine then writes C while the warpgroup is already multiplying the
//!   next tile; TMA also clips what falls outside C, so edge tiles need no
//!   bounds checks. Two staging buffers per consumer alternate: while
//!   TMA reads one, the threads fill the other.
//! - **Rung 6, stream-K for the last wave.** 128×256 tiles rarely divide
//!   evenly over 132 multiprocessors: 512 tiles at 4096³ leave 16 of them
//!   idle for the last quarter of the run. The k-steps of the last partial
//!   wave and of one full wave before it are dealt out evenly instead
//!   ([`super::schedule`]); a tile split between two blocks is finished by
//!   the one that computes its first k-steps, adding the other's partial
//!   sum from a workspace in global memory.

use super::schedule::StreamK;
use super::{Entry, HopperKernel, HopperTiling, Schedule, wgmma_tiling};
use crate::launch::Kernel;
use crate::matmul::tiling::Tiling;
use kernels_macros::kernel;

/// Parameters of rungs 5 and 6: `(m, n, k, maps, workspace)`, `C = A·B`.
/// `maps` points to the tensor maps of A, B and C (16 words each); C is
/// written through its map. `workspace` is rung 6's: one flag per block,
/// then one partial 128×256 tile per block ([`workspace_words`]), zeroed
/// before the first launch. Rung 6 splits tiles only when it is not null
/// (the host passes null where splitting does not pay); rung 5 ignores it.
pub type Bf16StoreParams = (u32, u32, u32, *const u64, *mut u32);

/// Columns of C one staging buffer holds: 64 rows × 32 fp32, one
/// 128-byte-swizzled TMA box of 8 KB.
const CHUNK_COLS: u32 = 32;
const BUFFERS: u32 = 2;
const BOX_COLS: u32 = 32;
const BOX_BYTES: u32 = 64 * BOX_COLS * 4;
const CHUNK_BYTES: u32 = CHUNK_COLS / BOX_COLS * BOX_BYTES;

/// As the persistent rung: 4 stages of 48 KB, and 32 KB of staging
/// buffers still fit in the 227 KB a block may have.
pub const TILING: Tiling = wgmma_tiling(2, 256, 64, 4);
const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const CONSUMERS: u32 = TILE_M / 64;
const EPILOGUE_BYTES: u32 = CONSUMERS * BUFFERS * CHUNK_BYTES;

/// Words of rung 6's workspace for a grid of `blocks`: the flags, rounded
/// up to 256 bytes, then a 128×256 fp32 partial tile per block.
pub const fn workspace_words(blocks: u32) -> usize {
    flag_words(blocks) as usize + (blocks * TILE_M * TILE_N) as usize
}

const fn flag_words(blocks: u32) -> u32 {
    blocks.next_multiple_of(64)
}

const fn staged(kernel: Kernel<Bf16StoreParams>, schedule: Schedule) -> HopperKernel {
    let tiling = HopperTiling {
        tiling: TILING,
        specialized: true,
        schedule,
        stage_bytes: super::wgmma_bf16::STAGE_BYTES,
        epilogue_bytes: EPILOGUE_BYTES,
    };
    HopperKernel { entry: Entry::Bf16Store(kernel), tiling }
}

pub const TMA_STORE: HopperKernel = staged(BF16_WGMMA_TMA_STORE, Schedule::Persistent);
pub const STREAM_K: HopperKernel = staged(BF16_WGMMA_STREAM_K, Schedule::StreamK);

/// The fewest k-steps a block must save for stream-K to pay: a split tile
/// costs its two blocks a partial-sum store, a flag and a reload. On the
/// H200 at 4096³ the split saves 7 k-steps and made the kernel 7-8% slower
/// than rung 5; at 8192³ it saves 62 and made it 9% faster
/// (docs/measurements.md).
pub const MIN_SAVED_STEPS: u32 = 32;

/// Whether stream-K pays for a launch of `blocks` blocks at this size: it
/// splits tiles, and saves at least [`MIN_SAVED_STEPS`] k-steps. Rung 6
/// splits only when the host passes it a workspace.
pub fn stream_k_pays(m: u32, n: u32, k: u32, blocks: u32) -> bool {
    stream_k_schedule(m, n, k, blocks).saved_steps() >= MIN_SAVED_STEPS
}

/// Whether rung 6 would split any tile at this size if given a workspace.
pub fn stream_k_splits(m: u32, n: u32, k: u32, blocks: u32) -> bool {
    stream_k_schedule(m, n, k, blocks).splits()
}

fn stream_k_schedule(m: u32, n: u32, k: u32, blocks: u32) -> StreamK {
    StreamK::new(m.div_ceil(TILE_M) * n.div_ceil(TILE_N), k.div_ceil(TILING.tile_k), blocks, true)
}

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, swizzled_offset};
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, load_acquire, set_max_registers_decrease, set_max_registers_increase, shared_address, store_release,
        store_shared_f32x2, sync_named,
    };
    use crate::gpu::{self, sync_threads};
    use crate::hopper::pipeline::Ring;
    use crate::hopper::schedule::Role;
    use crate::hopper::wgmma_bf16::device::{Stages, mainloop, produce};

    type F32x4 = core::simd::Simd<f32, 4>;
    const STAGES: u32 = TILING.stages;
    /// Named barriers: 1 and 2 for each consumer's staging, 3 for both
    /// consumers together (the producer warpgroup never joins them).
    const CONSUMERS_BARRIER: u32 = 3;

    /// Writes a consumer's 64×TILE_N accumulators to C rows `row0..`,
    /// columns `col0..` through its staging buffers at `staging`.
    #[inline(always)]
    unsafe fn store_tile(acc: &[f32; 128], staging: u32, map: *const TensorMap, (row0, col0): (u32, u32), consumer: u32) {
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
            sync_named(1 + consumer, WARPGROUP_THREADS);
            if thread == 0 {
                for b in 0..CHUNK_COLS / BOX_COLS {
                    unsafe { tma::store_2d(map, buffer + b * BOX_BYTES, col0 + chunk * CHUNK_COLS + b * BOX_COLS, row0) };
                }
                tma::commit_group();
            }
        }
    }

    /// Where a consumer thread keeps its accumulators in a block's partial
    /// tile: its own 16-byte column of 32 rows, so a warp's stores are
    /// 512 contiguous bytes.
    #[inline(always)]
    fn partial(workspace: *mut u32, blocks: u32, block: u32, consumer: u32, thread: u32, q: u32) -> *mut F32x4 {
        let slot = unsafe { workspace.add(flag_words(blocks) as usize).cast::<F32x4>() };
        let index = ((block * CONSUMERS + consumer) * 32 + q) * WARPGROUP_THREADS + thread;
        unsafe { slot.add(index as usize) }
    }

    #[inline(always)]
    pub unsafe fn body<const STREAM_K: bool>(m: u32, n: u32, k: u32, maps: *const TensorMap, workspace: *mut u32) {
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
        let (block, blocks) = (gpu::block_idx().x, gpu::grid_dim().x);
        let schedule = StreamK::new(grid.0 * grid.1, k_tiles, blocks, STREAM_K && !workspace.is_null());
        let origin = |tile: u32| super::super::tile_origin(tile, grid, 8, (TILE_M, TILE_N));
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                let mut i = 0;
                for work in schedule.walk(block) {
                    for kt in work.k_begin..work.k_end {
                        unsafe { produce(&ring, tiles, maps, i, kt, origin(work.tile)) };
                        i += 1;
                    }
                }
            }
            return;
        }
        set_max_registers_increase::<232>();
        let consumer = warpgroup - 1;
        let thread = t % WARPGROUP_THREADS;
        let mut i = 0;
        for work in schedule.walk(block) {
            let (row0, col0) = origin(work.tile);
            let mut acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, work.k_end - work.k_begin, |_, _| {}) };
            match work.role {
                Role::Whole => {}
                Role::Tail => {
                    // Publish the partial sum: every consumer thread's
                    // stores, a barrier, then one release of the flag.
                    for q in 0..32 {
                        let v = F32x4::from_array([acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]]);
                        unsafe { partial(workspace, blocks, block, consumer, thread, q as u32).write(v) };
                    }
                    sync_named(CONSUMERS_BARRIER, CONSUMERS * WARPGROUP_THREADS);
                    if t == WARPGROUP_THREADS {
                        unsafe { store_release(workspace.add(block as usize), 1) };
                    }
                    continue;
                }
                Role::Head => {
                    // The next block computed this tile's last k-steps
                    // first thing; wait for its flag (lowering it for the
                    // next launch), then add its partial sum.
                    if t == WARPGROUP_THREADS {
                        let flag = unsafe { workspace.add(block as usize + 1) };
                        while unsafe { load_acquire(flag) } == 0 {}
                        unsafe { flag.write_volatile(0) };
                    }
                    sync_named(CONSUMERS_BARRIER, CONSUMERS * WARPGROUP_THREADS);
                    for q in 0..32 {
                        // A plain load: the flag's acquire and the barrier
                        // order it after the other block's stores.
                        let v = unsafe { partial(workspace, blocks, block + 1, consumer, thread, q as u32).read() };
                        for e in 0..4 {
                            acc[4 * q + e] += v[e];
                        }
                    }
                }
            }
            let staging = staging + consumer * BUFFERS * CHUNK_BYTES;
            unsafe { store_tile(&acc, staging, maps.add(2), (row0 + 64 * consumer, col0), consumer) };
        }
        // Shared memory must outlive the copies reading it.
        if thread == 0 {
            tma::wait_group_all();
        }
    }
}

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::wgmma_bf16::bf16_wgmma_persistent`] but storing C with TMA
/// from shared memory. 384 threads, one block per multiprocessor.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_tma_store(m: u32, n: u32, k: u32, maps: *const u64, workspace: *mut u32) {
    unsafe { device::body::<false>(m, n, k, maps.cast(), workspace) }
}

/// As [`bf16_wgmma_tma_store`], with the last waves' k-steps shared out
/// evenly (stream-K); `workspace` as [`Bf16StoreParams`] says.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_stream_k(m: u32, n: u32, k: u32, maps: *const u64, workspace: *mut u32) {
    unsafe { device::body::<true>(m, n, k, maps.cast(), workspace) }
}
