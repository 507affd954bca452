// ANCHOR: rung
//! BF16 rung 7: rung 6 with half of each tile's epilogue moved behind the
//! next tile's first wgmmas.
//!
//! In rung 6 the tensor cores stop at the end of every tile. Both
//! consumers finish their last k-tile together, and both then spend
//! thousands of cycles storing 128 accumulators each: shared memory,
//! a proxy fence, a barrier, and a TMA store, eight times; Nsight's
//! warp-state samples show the consumers spending more of their time
//! there than cuBLAS's do (docs/measurements.md has the figures). Three
//! changes shorten that stop:
//!
//! - **Each warp stores its own rows.** A warp writes its 16 rows of a
//!   32-column chunk into one of its own two 2 KB slots, fences, and its
//!   lane 0 hands the 16×32 box to TMA. The only barrier is the warp's
//!   own (`bar.warp.sync`), so no warp waits at a warpgroup barrier for
//!   the slowest of four.
//! - **Half the tile is stored later.** At the end of a tile, a consumer
//!   stores columns 0-127 and keeps columns 128-255 in registers (64 per
//!   thread; the consumer's 232 registers hold them beside the next
//!   tile's 128 accumulators). During the next tile's first four k-tiles,
//!   after issuing each k-tile's wgmmas, which run on their own, it
//!   stores one 32-column chunk of the kept half. The tensor cores then
//!   wait for half an epilogue per tile, not a whole one.
//! - **Bands of 16 tile-rows.** The cluster walks pairs of tiles in bands
//!   of 8 pairs, not 4, so the blocks running at once share more of A in
//!   L2, and fewer of its tiles are read from DRAM twice.
//!
//! The stages, the ring shared by the cluster, the multicast of B and the
//! producer are rung 6's ([`crate::gemm::hopper::cluster`]).

use crate::gemm::hopper::cluster::CLUSTER;
use crate::gemm::hopper::stages::STAGE_BYTES;
use crate::gemm::hopper::tma_store::C_BOX_COLS;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// Rung 6's tiles and stages.
pub const TILING: Tiling = crate::gemm::hopper::stages::TILING;
/// Rows of C per TMA store: one warp's share of a consumer's 64.
pub const STORE_ROWS: u32 = 16;
const WARPS: u32 = 4;
const CONSUMERS: u32 = TILING.tile_m / 64;
/// Columns per chunk: 32 fp32, one 128-byte swizzle row.
const CHUNK_COLS: u32 = C_BOX_COLS;
/// One warp's chunk: 16 rows × 32 fp32.
const SLOT_BYTES: u32 = STORE_ROWS * CHUNK_COLS * 4;
/// Slots per warp: TMA reads one while the warp fills the other.
const SLOTS: u32 = 2;
const EPILOGUE_BYTES: u32 = CONSUMERS * WARPS * SLOTS * SLOT_BYTES;

const SHAPE: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: true,
    cluster: CLUSTER,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: EPILOGUE_BYTES,
    store_rows: STORE_ROWS,
};

pub const DEFERRED: HopperKernel = HopperKernel { entry: Entry::Bf16Store(BF16_WGMMA_DEFERRED), tiling: SHAPE };
#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gemm::hopper::cluster::ClusterBlock;
    use crate::gemm::hopper::consumer::issue_k_tile;
    use crate::gemm::hopper::ring::Ring;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::swizzled_offset;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, store_shared_f32x2, sync_cluster, sync_warp, wgmma,
    };

    /// Pairs of tiles per band: 16 tile-rows.
    const BAND: u32 = 8;
    /// Accumulators per chunk and thread: 32 columns × 2 rows / 4 lanes.
    const CHUNK_VALUES: usize = 16;
    /// The chunks kept for later: the right half of the tile, one per
    /// k-tile of the next tile's first four.
    const KEPT: usize = (TILING.tile_n / CHUNK_COLS / 2) as usize;

    /// One warp's 16 rows × 32 columns of C at (`row`, `col`): `values` are
    /// this thread's accumulators of that chunk (in the wgmma layout: four
    /// 8-column groups, two rows, two neighbouring columns), staged in slot
    /// `slot` of the warp's two at `slots`.
    #[inline(always)]
    unsafe fn store_chunk(values: &[f32; CHUNK_VALUES], slots: u32, slot: u32, map: *const TensorMap, (row, col): (u32, u32)) {
        let lane = gpu::thread_idx().x % 32;
        // The slot was last read by the store two chunks back: at most one
        // store (the last) may still be reading.
        if lane == 0 {
            tma::wait_group_read::<{ SLOTS - 1 }>();
        }
        sync_warp();
        let buffer = slots + slot * SLOT_BYTES;
        for group in 0..4 {
            let c = 8 * group + 2 * (lane % 4);
            for half in 0..2 {
                let r = lane / 4 + 8 * half;
                let v = 4 * group as usize + 2 * half as usize;
                let address = buffer + swizzled_offset(r, c / 4) + c % 4 * 4;
                unsafe { store_shared_f32x2(address, values[v], values[v + 1]) };
            }
        }
        tma::fence_proxy_async_shared();
        sync_warp();
        if lane == 0 {
            unsafe { tma::store_2d(map, buffer, col, row) };
            tma::commit_group();
        }
    }

    /// Where a consumer warp's chunks go: its two slots, and C's tensor map.
    #[derive(Clone, Copy)]
    struct WarpStores {
        slots: u32,
        map: *const TensorMap,
    }

    impl WarpStores {
        /// Chunk `C` of `half`, one half of a tile whose first element (this
        /// warp's first row) goes to `at`, as the tile's chunk `first + C`.
        /// `C` is a constant, so every index into `half` is one and `half`
        /// stays in registers.
        #[inline(always)]
        unsafe fn store<const C: usize>(self, half: &[f32], (row, col): (u32, u32), first: u32) {
            let values = half[CHUNK_VALUES * C..CHUNK_VALUES * (C + 1)].try_into().unwrap();
            let chunk = first + C as u32;
            unsafe { store_chunk(values, self.slots, C as u32 % SLOTS, self.map, (row, col + CHUNK_COLS * chunk)) };
        }

        /// Every chunk of `half`, the tile's chunks `first..first + KEPT`.
        /// Four calls rather than a loop: LLVM did not unroll that loop
        /// (each chunk's stores are long), so `half` was indexed at run
        /// time and went to local memory: 4.3 KB of spills, and the rung
        /// ran at 23% of cuBLAS.
        #[inline(always)]
        unsafe fn store_half(self, half: &[f32], at: (u32, u32), first: u32) {
            unsafe {
                self.store::<0>(half, at, first);
                self.store::<1>(half, at, first);
                self.store::<2>(half, at, first);
                self.store::<3>(half, at, first);
            }
        }
    }

    /// One call per kept chunk, in [`WarpStores::store_half`] and in the
    /// first k-tiles of a tile.
    const _: () = assert!(KEPT == 4);

    /// The consumer's ring position and its role in handing stages back.
    struct KTiles<'a> {
        ring: &'a Ring,
        /// The ring's next k-tile.
        i: u32,
        /// This thread hands stages back for its warpgroup.
        leader: bool,
    }

    impl KTiles<'_> {
        /// The previous k-tile's wgmmas are done (this one's keep running):
        /// hand its stage back, unless this is the tile's first k-tile.
        #[inline(always)]
        fn retire_previous(&mut self, first: bool) {
            wgmma::wait::<1>();
            if !first && self.leader {
                unsafe { self.ring.release(self.i - 1) };
            }
            self.i += 1;
        }

        /// Every wgmma of the tile is done: hand the last stage back.
        #[inline(always)]
        fn finish(&mut self, acc: &mut [f32; 2 * KEPT * CHUNK_VALUES]) {
            wgmma::wait::<0>();
            wgmma::fence_operands(acc);
            if self.leader {
                unsafe { self.ring.release(self.i - 1) };
            }
        }
    }

    /// A tile's first KEPT k-tiles, each hiding one chunk of the previous
    /// tile's kept half behind its wgmmas.
    struct FirstKTiles<'a> {
        block: &'a ClusterBlock,
        consumer: u32,
        stores: WarpStores,
        /// The previous tile's right half, and where its tile's first
        /// element goes; None before the first tile.
        kept: &'a [f32; KEPT * CHUNK_VALUES],
        kept_at: Option<(u32, u32)>,
    }

    impl FirstKTiles<'_> {
        /// K-tile `C`: issue its wgmmas, store chunk `C` of the kept half
        /// while they run, then retire the previous k-tile.
        #[inline(always)]
        unsafe fn step<const C: usize>(&self, k_tiles: &mut KTiles, acc: &mut [f32; 2 * KEPT * CHUNK_VALUES]) {
            let kt = C as u32;
            if kt < self.block.k_tiles {
                unsafe { issue_k_tile(k_tiles.ring, self.block.tiles, self.consumer, k_tiles.i, acc) };
            }
            if let Some(at) = self.kept_at {
                unsafe { self.stores.store::<C>(self.kept, at, KEPT as u32) };
            }
            if kt < self.block.k_tiles {
                k_tiles.retire_previous(kt == 0);
            }
        }
    }

    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap) {
        let t = gpu::thread_idx().x;
        let block = unsafe { ClusterBlock::new((m, n, k), EPILOGUE_BYTES, BAND) };
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            set_max_registers_decrease::<40>();
            if t == 0 {
                unsafe { block.produce_all(maps) };
            }
        } else {
            set_max_registers_increase::<232>();
            let consumer = warpgroup - 1;
            let thread = t % WARPGROUP_THREADS;
            let warp = thread / 32;
            let slots = block.staging + (consumer * WARPS + warp) * SLOTS * SLOT_BYTES;
            let stores = WarpStores { slots, map: unsafe { maps.add(2) } };
            let mut k_tiles = KTiles { ring: &block.ring, i: 0, leader: thread == 0 };
            // The right half of the previous tile, and where its tile's
            // first element goes; None before the first tile.
            let mut kept = [0.0f32; KEPT * CHUNK_VALUES];
            let mut kept_at: Option<(u32, u32)> = None;
            let (first, stride) = block.first_and_stride();
            let mut pair = first;
            while pair < block.pairs() {
                let (row0, col0) = block.origin(pair);
                let mut acc = [0.0f32; 2 * KEPT * CHUNK_VALUES];
                let first_k_tiles = FirstKTiles { block: &block, consumer, stores, kept: &kept, kept_at };
                unsafe {
                    first_k_tiles.step::<0>(&mut k_tiles, &mut acc);
                    first_k_tiles.step::<1>(&mut k_tiles, &mut acc);
                    first_k_tiles.step::<2>(&mut k_tiles, &mut acc);
                    first_k_tiles.step::<3>(&mut k_tiles, &mut acc);
                }
                for _ in KEPT as u32..block.k_tiles {
                    unsafe { issue_k_tile(k_tiles.ring, block.tiles, consumer, k_tiles.i, &mut acc) };
                    k_tiles.retire_previous(false);
                }
                k_tiles.finish(&mut acc);
                // Store the left half now, keep the right half.
                let row = row0 + 64 * consumer + STORE_ROWS * warp;
                unsafe { stores.store_half(&acc, (row, col0), 0) };
                kept.copy_from_slice(&acc[KEPT * CHUNK_VALUES..]);
                kept_at = Some((row, col0));
                pair += stride;
            }
            // The last tile's right half has no next tile to hide behind.
            if let Some(at) = kept_at {
                unsafe { stores.store_half(&kept, at, KEPT as u32) };
            }
            // Shared memory must outlive the stores reading it; each warp's
            // lane 0 issued its own.
            if thread % 32 == 0 {
                tma::wait_group_all();
            }
        }
        // Neither block may exit while the other can still arrive on its
        // barriers or multicast into its shared memory.
        sync_cluster();
    }
}

/// `C = A·B` in BF16 with fp32 accumulation, as
/// [`super::r06_wgmma_cluster::bf16_wgmma_cluster`] with each warp storing
/// its own rows, and half of each tile stored during the next tile's first
/// k-tiles. 384 threads, one block per multiprocessor, clusters of 2.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1), cluster(SHAPE.cluster))]
pub unsafe fn bf16_wgmma_deferred(m: u32, n: u32, k: u32, maps: *const u64) {
    unsafe { device::body(m, n, k, maps.cast()) }
}
// ANCHOR_END: rung
