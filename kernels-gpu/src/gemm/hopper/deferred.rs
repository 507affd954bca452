//! The clustered GEMM whose warps store C themselves, half of each tile
//! behind the next tile's first wgmmas (BF16 rungs 7, 14 and 16), generic over
//! the tile's width `N` (256, 192 or 128 columns).
//!
//! - **Each warp stores its own rows.** A warp writes its 16 rows of a
//!   32-column chunk into one of its own two 2 KB slots, fences, and its
//!   lane 0 hands the 16×32 box to TMA. The only barrier is the warp's
//!   own (`bar.warp.sync`).
//! - **Half the tile is stored later.** At the end of a tile, a consumer
//!   stores its left half and keeps the right half in registers. During
//!   the next tile's first k-tiles, after issuing each k-tile's wgmmas,
//!   which run on their own, it stores one 32-column chunk of the kept
//!   half.
//! - **Bands of 16 tile-rows.** The cluster walks pairs of tiles in bands
//!   of 8 pairs, so the blocks running at once share more of A in L2.
//!
//! The stages, the ring shared by the cluster, the multicast of B and the
//! producer are [`super::cluster`]'s.

use super::cluster::CLUSTER;
use super::stages::{TILING, stage_bytes};
use super::tma_store::C_BOX_COLS;
use super::{HopperTiling, SHARED_BYTES_PER_BLOCK, wgmma_tiling};

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

/// The shape of the kernel over tiles of 128 rows × `tile_n` columns:
/// a producer warpgroup and two consumers, one block per SM, clusters of
/// 2, the warps' store slots, and as many stages as fit beside them: 4 of
/// 256 or 192 columns, 6 of 128 (whose stage holds half the multiplies of
/// 256's, so more of them keep as much work in flight).
pub const fn shape(tile_n: u32) -> HopperTiling {
    let shape = HopperTiling {
        tiling: wgmma_tiling(CONSUMERS, tile_n, TILING.tile_k, 1),
        specialized: true,
        persistent: true,
        cluster: CLUSTER,
        stage_bytes: stage_bytes(tile_n),
        scratch_bytes: EPILOGUE_BYTES,
        store_rows: STORE_ROWS,
    }
    .with_most_stages();
    assert!(tile_n % (2 * CHUNK_COLS) == 0, "each half of a tile is whole chunks");
    assert!(shape.shared_bytes() <= SHARED_BYTES_PER_BLOCK, "the stages must fit in shared memory");
    shape
}

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::body;

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gemm::hopper::cluster::{ClusterBlock, MAPS};
    use crate::gemm::hopper::consumer::issue_k_tile;
    use crate::gemm::hopper::ring::Ring;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::swizzled_offset;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::wgmma::Accumulators;
    use crate::gpu::hopper::{
        WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, store_shared_f32x2, sync_cluster, sync_warp, wgmma,
    };

    /// Pairs of tiles per band: 16 tile-rows.
    const BAND: u32 = 8;
    /// Accumulators per chunk and thread: 32 columns × 2 rows / 4 lanes.
    const CHUNK_VALUES: usize = 16;
    /// The most chunks a half tile holds (256 columns: 4). The stores and
    /// the first k-tiles are written out for each, as calls with constant
    /// chunk numbers; those past a narrower tile's half do nothing.
    const MOST_KEPT: usize = 4;

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
        /// warp's first row) goes to `at`, as the tile's chunk `first + C`;
        /// nothing if the half has no chunk `C`. `C` is a constant, so every
        /// index into `half` is one and `half` stays in registers.
        #[inline(always)]
        unsafe fn store<const C: usize, const HALF: usize>(self, half: &[f32; HALF], (row, col): (u32, u32), first: u32) {
            if CHUNK_VALUES * (C + 1) > HALF {
                return;
            }
            let values = half[CHUNK_VALUES * C..CHUNK_VALUES * (C + 1)].try_into().unwrap();
            // Slots alternate by the chunk's number in its tile: a tile has
            // an even number of chunks, so consecutive stores never share one.
            let chunk = first + C as u32;
            unsafe { store_chunk(values, self.slots, chunk % SLOTS, self.map, (row, col + CHUNK_COLS * chunk)) };
        }

        /// Every chunk of `half`, the tile's chunks `first..`. Calls rather
        /// than a loop: LLVM did not unroll that loop (each chunk's stores
        /// are long), so `half` was indexed at run time and went to local
        /// memory: 4.3 KB of spills, and rung 7 ran at 23% of cuBLAS.
        #[inline(always)]
        unsafe fn store_half<const HALF: usize>(self, half: &[f32; HALF], at: (u32, u32), first: u32) {
            const { assert!(HALF <= MOST_KEPT * CHUNK_VALUES) };
            unsafe {
                self.store::<0, HALF>(half, at, first);
                self.store::<1, HALF>(half, at, first);
                self.store::<2, HALF>(half, at, first);
                self.store::<3, HALF>(half, at, first);
            }
        }
    }

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
        fn finish<const ACC: usize>(&mut self, acc: &mut [f32; ACC]) {
            wgmma::wait::<0>();
            wgmma::fence_operands(acc);
            if self.leader {
                unsafe { self.ring.release(self.i - 1) };
            }
        }
    }

    /// A tile's first k-tiles, each hiding one chunk of the previous tile's
    /// kept half (`HALF` accumulators) behind its wgmmas.
    struct FirstKTiles<'a, const N: u32, const STAGES: u32, const HALF: usize> {
        block: &'a ClusterBlock<N, STAGES>,
        consumer: u32,
        stores: WarpStores,
        /// The previous tile's right half, and where its tile's first
        /// element goes; None before the first tile.
        kept: &'a [f32; HALF],
        kept_at: Option<(u32, u32)>,
    }

    impl<const N: u32, const STAGES: u32, const HALF: usize> FirstKTiles<'_, N, STAGES, HALF> {
        /// Chunks in a half tile.
        const KEPT: u32 = (HALF / CHUNK_VALUES) as u32;

        /// K-tile `C`: issue its wgmmas, store chunk `C` of the kept half
        /// while they run, then retire the previous k-tile. Nothing past
        /// the kept half's chunks: the main loop takes those k-tiles.
        #[inline(always)]
        unsafe fn step<const C: usize, const ACC: usize>(&self, k_tiles: &mut KTiles, acc: &mut [f32; ACC])
        where
            [f32; ACC]: Accumulators,
        {
            let kt = C as u32;
            if kt >= Self::KEPT {
                return;
            }
            if kt < self.block.k_tiles {
                unsafe { issue_k_tile(k_tiles.ring, self.block.tiles, self.consumer, k_tiles.i, acc) };
            }
            if let Some(at) = self.kept_at {
                unsafe { self.stores.store::<C, HALF>(self.kept, at, Self::KEPT) };
            }
            if kt < self.block.k_tiles {
                k_tiles.retire_previous(kt == 0);
            }
        }
    }

    /// The whole kernel over tiles `N` columns wide, `STAGES` deep
    /// ([`super::shape`]), each consumer holding `ACC` = `N / 2`
    /// accumulators per thread, `HALF` = `ACC / 2` of them kept for the
    /// next tile.
    #[inline(always)]
    pub unsafe fn body<const N: u32, const STAGES: u32, const ACC: usize, const HALF: usize>(m: u32, n: u32, k: u32, maps: *const TensorMap)
    where
        [f32; ACC]: Accumulators,
    {
        const { assert!(2 * ACC as u32 == N && 2 * HALF == ACC, "a thread holds half a row; half of that is kept") };
        let t = gpu::thread_idx().x;
        let block = unsafe { ClusterBlock::<N, STAGES>::new((m, n, k), (maps, MAPS), EPILOGUE_BYTES, BAND) };
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
            let kept_chunks = FirstKTiles::<N, STAGES, HALF>::KEPT;
            // The right half of the previous tile, and where its tile's
            // first element goes; None before the first tile.
            let mut kept = [0.0f32; HALF];
            let mut kept_at: Option<(u32, u32)> = None;
            let (first, stride) = block.first_and_stride();
            let mut pair = first;
            while pair < block.pairs() {
                let (row0, col0) = block.origin(pair);
                let mut acc = [0.0f32; ACC];
                let first_k_tiles = FirstKTiles { block: &block, consumer, stores, kept: &kept, kept_at };
                unsafe {
                    first_k_tiles.step::<0, ACC>(&mut k_tiles, &mut acc);
                    first_k_tiles.step::<1, ACC>(&mut k_tiles, &mut acc);
                    first_k_tiles.step::<2, ACC>(&mut k_tiles, &mut acc);
                    first_k_tiles.step::<3, ACC>(&mut k_tiles, &mut acc);
                }
                for _ in kept_chunks..block.k_tiles {
                    unsafe { issue_k_tile(k_tiles.ring, block.tiles, consumer, k_tiles.i, &mut acc) };
                    k_tiles.retire_previous(false);
                }
                k_tiles.finish(&mut acc);
                // Store the left half now, keep the right half.
                let row = row0 + 64 * consumer + STORE_ROWS * warp;
                let (left, right) = acc.split_at(HALF);
                unsafe { stores.store_half::<HALF>(left.try_into().unwrap(), (row, col0), 0) };
                kept.copy_from_slice(right);
                kept_at = Some((row, col0));
                pair += stride;
            }
            // The last tile's right half has no next tile to hide behind.
            if let Some(at) = kept_at {
                unsafe { stores.store_half(&kept, at, kept_chunks) };
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
