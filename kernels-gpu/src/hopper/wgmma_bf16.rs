//! BF16 on Hopper's own path: TMA copies, an mbarrier ring, wgmma from
//! shared memory. `C = A·B` with A M×K and B K×N row-major BF16, C M×N
//! row-major fp32; K and N multiples of 8 (TMA needs 16-byte row pitches).
//!
//! What changed from the `mma.sync` BF16 rung, and why it is faster:
//! - **wgmma reads A and B from shared memory.** `mma.sync` needs every
//!   fragment in registers, loaded by every warp (ldmatrix); wgmma takes two
//!   64-bit descriptors, and a warpgroup computes a 64×256 tile per
//!   instruction. Registers hold only the accumulators (128 per thread).
//! - **TMA instead of per-thread copies.** One thread asks for a whole
//!   tile; the copy engine fetches it, zero-fills what lies outside the
//!   matrix, and writes it in the 128-byte swizzled layout wgmma reads
//!   without bank conflicts. No thread computes an address per element.
//! - **An mbarrier ring of `STAGES` tiles.** A stage's *full* barrier
//!   completes when its bytes have landed, its *empty* barrier when every
//!   consumer has read it ([`super::pipeline`]), so copies run `STAGES - 1`
//!   tiles ahead of the math without any block-wide barrier in the loop.
//!
//! Two kernels share the body:
//! - [`PIPELINED`]: two warpgroups compute; thread 0 also refills stages,
//!   so its warpgroup pauses whenever it waits for the other to free a stage.
//! - [`SPECIALIZED`]: a third, producer warpgroup only issues copies and
//!   gives its registers away (`setmaxnreg.dec` to 40); the two consumer
//!   warpgroups take them (`setmaxnreg.inc` to 232) and never wait on
//!   copies they issue themselves.

use super::{Bf16Params, Entry, HopperKernel, HopperTiling, wgmma_tiling};
use crate::launch::Kernel;
use crate::matmul::tiling::Tiling;
use kernels_macros::kernel;

/// Two consumer warpgroups of 64×256; 64 BF16 values (one 128-byte
/// swizzle row) along K per stage; 4 stages.
pub const TILING: Tiling = wgmma_tiling(2, 256, 64, 4);
const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
/// A's tile (TILE_M rows × 128 bytes) then B's (TILE_K rows × TILE_N × 2 bytes).
pub(super) const STAGE_BYTES: u32 = (TILE_M + TILE_N) * TILE_K * 2;

const fn bf16(kernel: Kernel<Bf16Params>, specialized: bool, persistent: bool) -> HopperKernel {
    let tiling =
        HopperTiling { tiling: TILING, specialized, persistent, cluster: 1, stage_bytes: STAGE_BYTES, epilogue_bytes: 0, store_rows: 0 };
    HopperKernel { entry: Entry::Bf16(kernel), tiling }
}

pub const PIPELINED: HopperKernel = bf16(BF16_WGMMA_TMA, false, false);
pub const SPECIALIZED: HopperKernel = bf16(BF16_WGMMA_SPECIALIZED, true, false);
pub const PERSISTENT: HopperKernel = bf16(BF16_WGMMA_PERSISTENT, true, true);

#[cfg(ptx_ladder_hopper)]
pub(super) mod device {
    use super::*;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, SWIZZLE_BYTES, swizzled_128};
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, set_max_registers_decrease, set_max_registers_increase, shared_address, wgmma};
    use crate::gpu::{self, sync_threads};
    use crate::hopper::Scale;

    const STAGES: u32 = TILING.stages;
    const CONSUMERS: u32 = TILE_M / 64;
    use crate::hopper::pipeline::Ring;

    /// B's tile is copied as boxes 64 columns wide (the most one 128-byte
    /// swizzle row holds), each TILE_K rows deep.
    pub(in crate::hopper) const B_BOX_BYTES: u32 = 64 * TILE_K * 2;

    /// Shared addresses of one stage's tiles.
    #[derive(Clone, Copy)]
    pub(in crate::hopper) struct Stages {
        pub(in crate::hopper) first: u32,
    }

    impl Stages {
        pub(in crate::hopper) fn a(self, stage: u32) -> u32 {
            self.first + stage * STAGE_BYTES
        }
        pub(in crate::hopper) fn b(self, stage: u32) -> u32 {
            self.a(stage) + TILE_M * SWIZZLE_BYTES
        }
    }

    /// The producer's work for k-tile `kt` of the tile at (`row0`, `col0`),
    /// the `i`-th k-tile this block loads: wait for its stage to be free,
    /// then one TMA copy for A's tile and one per 64 columns of B's.
    #[inline(always)]
    pub(in crate::hopper) unsafe fn produce(ring: &Ring, tiles: Stages, maps: *const TensorMap, i: u32, kt: u32, (row0, col0): (u32, u32)) {
        unsafe {
            let s = ring.acquire(i, STAGE_BYTES);
            tma::load_2d(tiles.a(s), maps, ring.full(s), kt * TILE_K, row0);
            for j in 0..TILE_N / 64 {
                tma::load_2d(tiles.b(s) + j * B_BOX_BYTES, maps.add(1), ring.full(s), col0 + 64 * j, kt * TILE_K);
            }
        }
    }

    /// Waits until the ring's k-tile `i` has landed, then issues warpgroup
    /// `consumer`'s wgmmas on it into `acc`, as one commit group (running
    /// when this returns).
    #[inline(always)]
    pub(in crate::hopper) unsafe fn issue_k_tile(ring: &Ring, tiles: Stages, consumer: u32, i: u32, acc: &mut [f32; TILE_N as usize / 2]) {
        let s = unsafe { ring.wait_full(i) };
        wgmma::fence();
        for kk in 0..TILE_K / 16 {
            // A: this warpgroup's 64 rows, 16 values of K further along
            // each 128-byte row. B: 16 k-rows further down; 64-column
            // boxes B_BOX_BYTES apart, 8-row atoms 1024 bytes apart.
            let a = swizzled_128(tiles.a(s) + consumer * 64 * SWIZZLE_BYTES + kk * 32, 16, ATOM_BYTES);
            let b = swizzled_128(tiles.b(s) + kk * 16 * SWIZZLE_BYTES, B_BOX_BYTES, ATOM_BYTES);
            unsafe { wgmma::mma_bf16_m64n256k16(acc, a, b, true) };
        }
        wgmma::commit();
    }

    /// One tile's `k_steps` k-tiles for warpgroup `consumer`, starting at
    /// the ring's k-tile `*i` (advanced past them); returns the 64×TILE_N
    /// accumulators. After each k-tile's stage is handed back, `refill`
    /// gets that k-tile's number within the tile and in the ring.
    #[inline(always)]
    pub(in crate::hopper) unsafe fn mainloop(
        ring: &Ring,
        tiles: Stages,
        consumer: u32,
        i: &mut u32,
        k_steps: u32,
        mut refill: impl FnMut(u32, u32),
    ) -> [f32; TILE_N as usize / 2] {
        let leader = gpu::thread_idx().x % WARPGROUP_THREADS == 0;
        let mut acc = [0.0f32; TILE_N as usize / 2];
        for kt in 0..k_steps {
            unsafe { issue_k_tile(ring, tiles, consumer, *i, &mut acc) };
            // Keep this k-tile's wgmmas running; the previous one's are
            // done, so its stage can be handed back (and refilled).
            wgmma::wait::<1>();
            if kt > 0 {
                if leader {
                    unsafe { ring.release(*i - 1) };
                }
                refill(kt - 1, *i - 1);
            }
            *i += 1;
        }
        wgmma::wait::<0>();
        wgmma::fence_operands(&mut acc);
        if k_steps > 0 && leader {
            unsafe { ring.release(*i - 1) };
        }
        acc
    }

    /// The whole kernel; `SPECIALIZED` picks the warpgroup roles and
    /// `GROUP_M` the order of tiles (see [`super::super::tile_origin`]).
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
        let origin = |tile: u32| super::super::tile_origin(tile, grid, GROUP_M, (TILE_M, TILE_N));
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
            unsafe { super::super::store_accumulators(&acc, Scale::NONE, c, (m, n), (row0 + consumer * 64, col0), t % WARPGROUP_THREADS) };
            tile += stride;
        }
    }
}

/// `C = A·B` in BF16 with fp32 accumulation: TMA, an mbarrier ring of
/// 4 stages, two wgmma warpgroups of 64×256. `maps` points to A's and B's
/// tensor maps (16 words each). Shape: one block per 128×256 tile of C, 256 threads.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_tma(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { device::body::<false, 1>(m, n, k, maps.cast(), c) }
}

/// As [`bf16_wgmma_tma`] with a producer warpgroup: 384 threads, the
/// first 128 only issue TMA copies.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_specialized(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { device::body::<true, 1>(m, n, k, maps.cast(), c) }
}

/// As [`bf16_wgmma_specialized`], persistent: one block per
/// multiprocessor walks tiles in bands of 8 tile-rows, and its
/// producer runs on into the next tile while the consumers store.
#[kernel(sm_90a)]
pub unsafe fn bf16_wgmma_persistent(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32) {
    unsafe { device::body::<true, 8>(m, n, k, maps.cast(), c) }
}
