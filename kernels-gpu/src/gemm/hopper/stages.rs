//! The BF16 Hopper rungs' stages in shared memory, and their producer.
//!
//! Every BF16 wgmma rung (2-7) computes 128×256 tiles of C in two consumer
//! warpgroups of 64×256, and takes 64 values of K (one 128-byte swizzle
//! row) per stage, 4 stages deep: [`TILING`]; rung 14's tiles are 192
//! wide. A stage holds A's tile, then B's as boxes 64 columns wide, each
//! written by TMA in the 128-byte swizzled layout wgmma reads.

use super::{HopperTiling, wgmma_tiling};
use crate::gemm::tiling::Tiling;

/// Two consumer warpgroups of 64×256; 64 BF16 values (one 128-byte
/// swizzle row) along K per stage; 4 stages.
pub const TILING: Tiling = wgmma_tiling(2, 256, 64, 4);
const TILE_M: u32 = TILING.tile_m;
const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;
/// A stage's tile of A: TILE_M rows of TILE_K BF16 values (one 128-byte
/// swizzle row each).
pub const A_TILE_BYTES: u32 = TILE_M * TILE_K * 2;
/// A stage of tiles `tile_n` wide: A's tile ([`A_TILE_BYTES`]), then B's
/// (TILE_K rows × `tile_n` × 2 bytes).
pub const fn stage_bytes(tile_n: u32) -> u32 {
    A_TILE_BYTES + tile_n * TILE_K * 2
}
/// A stage of [`TILING`]'s tiles.
pub const STAGE_BYTES: u32 = stage_bytes(TILE_N);
/// The shape of the tile loop's persistent kernels (BF16 rungs 4 and 9):
/// a producer warpgroup and two consumers, one block per SM, C stored from
/// registers.
pub const PERSISTENT: HopperTiling = HopperTiling {
    tiling: TILING,
    specialized: true,
    persistent: true,
    cluster: 1,
    stage_bytes: STAGE_BYTES,
    scratch_bytes: 0,
    store_rows: 0,
};
/// B's tile is copied as boxes 64 columns wide (the most one 128-byte
/// swizzle row holds), each TILE_K rows deep.
pub const B_BOX_BYTES: u32 = 64 * TILE_K * 2;

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::*;

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::*;
    use crate::gemm::hopper::ring::Ring;
    use crate::gpu::hopper::tma::{self, TensorMap};

    /// Shared addresses of one stage's tiles, for tiles `N` columns wide.
    #[derive(Clone, Copy)]
    pub struct Stages<const N: u32> {
        pub first: u32,
    }

    impl<const N: u32> Stages<N> {
        pub const BYTES: u32 = stage_bytes(N);

        pub fn a(self, stage: u32) -> u32 {
            self.first + stage * Self::BYTES
        }
        pub fn b(self, stage: u32) -> u32 {
            self.a(stage) + A_TILE_BYTES
        }
    }

    /// The producer's work for k-tile `kt` of the tile at (`row0`, `col0`),
    /// the `i`-th k-tile this block loads: wait for its stage to be free,
    /// then one TMA copy for A's tile and one per 64 columns of B's.
    #[inline(always)]
    pub unsafe fn produce(ring: &Ring, tiles: Stages<TILE_N>, maps: *const TensorMap, i: u32, kt: u32, (row0, col0): (u32, u32)) {
        unsafe {
            let s = ring.acquire(i, STAGE_BYTES);
            tma::load_2d(tiles.a(s), maps, ring.full(s), kt * TILE_K, row0);
            for j in 0..TILE_N / 64 {
                tma::load_2d(tiles.b(s) + j * B_BOX_BYTES, maps.add(1), ring.full(s), col0 + 64 * j, kt * TILE_K);
            }
        }
    }
}
