// ANCHOR: rung
//! BF16 rung 13: tiles fitted to the shape.
//!
//! What changed from rung 12, and why it is faster at M = 17 to 256 with
//! few tiles: rung 12's tiles have 16 rows of A, so 128 rows would read
//! the weights eight times; rungs 9 and 10's 128×256 tiles leave most SMs
//! idle at N = 4096 (16 tiles) and swap 128 KB of partial sums per block
//! when K is split to fill them. Here the same swapped GEMM
//! ([`crate::gemm::hopper::swap_ab`], slices added in a cluster) comes in
//! fourteen more tile shapes, with A's rows as wgmma's N:
//!
//! - 16 rows × 64 columns (one consumer, 22 stages of 10 KB): twice as many
//!   tiles as rung 12's, so fewer slices where N is small;
//! - 32 rows × 64 columns (`m64n32k16`, 18 stages of 12 KB), for M ≤ 32:
//!   half the bytes of A per stage, and half the multiplies, of the 64-row
//!   tiles, whose second half would be zeros;
//! - 64 rows × 64 columns (`m64n64k16`, 13 stages of 16 KB), for M ≤ 64;
//! - 32 and 64 rows × 128 columns (two consumers, 11 stages of 20 KB and 9
//!   of 24 KB): each row of A read once for twice the weights, where the
//!   SMs are as busy either way with K cut no finer (a wide N: Llama-3-8B's
//!   gate_up at M = 64 streams a quarter less per SM);
//! - 128 rows × 64 columns (`m64n128k16`, 9 stages of 24 KB): one tile of
//!   rows at M = 128, so the weights are read once, and twice as many
//!   tiles as 128×128 where N is small;
//! - 128 rows × 128 columns (two consumers, 6 stages of 32 KB): half the
//!   bytes of A per byte of weights, where N gives enough tiles;
//! - 80, 96 and 112 rows × 64 or 128 columns (`m64n80k16`, `m64n96k16`,
//!   `m64n112k16`; 12, 11 and 10 stages with one consumer, 8, 8 and 7
//!   with two): M between the powers of two. A tile of 128 rows at
//!   M = 96 multiplies a quarter zeros; at M = 200, two tiles of 112 rows
//!   hold 224 where two of 128 hold 256 (the tensor cores' work, and A's
//!   bytes per stage, in proportion);
//! - 128 rows × 192 columns (three consumers, 5 stages of 40 KB): two
//!   thirds as many tiles as 128×128, so the clusters of a cut of K fit
//!   where those of 128×128 would need a second round (N = 5120 at
//!   M = 128: 27 tiles in 4 slices keep 108 SMs busy at once; 40 tiles
//!   of 128×128 in 5 slices need two rounds, 22 clusters of 5 fitting).
//!
//! Which one a shape gets is the host's choice ([`TILES`],
//! `matmul::auto::fitted_choice` in the host crate): as few tiles of
//! rows as hold M and the fewest rows that do (M = 200: two of 112), then
//! the columns that keep the most SMs streaming, then the least predicted
//! time, then the fewest bytes each SM streams.

use super::r12_swap_ab_cluster::SWAP_AB_CLUSTER;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling, cluster_sum, swap_ab};
use kernels_macros::kernel;

const SHAPE_16X64: HopperTiling = swap_ab::shape(swap_ab::tiling(16, 1, 22));
const SHAPE_32X64: HopperTiling = swap_ab::shape(swap_ab::tiling(32, 1, 18));
const SHAPE_32X128: HopperTiling = swap_ab::shape(swap_ab::tiling(32, 2, 11));
const SHAPE_64X64: HopperTiling = swap_ab::shape(swap_ab::tiling(64, 1, 13));
const SHAPE_64X128: HopperTiling = swap_ab::shape(swap_ab::tiling(64, 2, 9));
const SHAPE_128X64: HopperTiling = swap_ab::shape(swap_ab::tiling(128, 1, 9));
const SHAPE_128X128: HopperTiling = swap_ab::shape(swap_ab::tiling(128, 2, 6));
const SHAPE_128X192: HopperTiling = swap_ab::shape(swap_ab::tiling(128, 3, 5));
const SHAPE_80X64: HopperTiling = swap_ab::shape(swap_ab::tiling(80, 1, 12));
const SHAPE_80X128: HopperTiling = swap_ab::shape(swap_ab::tiling(80, 2, 8));
const SHAPE_96X64: HopperTiling = swap_ab::shape(swap_ab::tiling(96, 1, 11));
const SHAPE_96X128: HopperTiling = swap_ab::shape(swap_ab::tiling(96, 2, 8));
const SHAPE_112X64: HopperTiling = swap_ab::shape(swap_ab::tiling(112, 1, 10));
const SHAPE_112X128: HopperTiling = swap_ab::shape(swap_ab::tiling(112, 2, 7));

// The sends land in the stages: a quad per 8 rows of A per thread.
const _: () = {
    assert!(cluster_sum::scratch_bytes(1, 16 / 8) <= SHAPE_16X64.tiling.stages * SHAPE_16X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(1, 32 / 8) <= SHAPE_32X64.tiling.stages * SHAPE_32X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(1, 64 / 8) <= SHAPE_64X64.tiling.stages * SHAPE_64X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(2, 32 / 8) <= SHAPE_32X128.tiling.stages * SHAPE_32X128.stage_bytes);
    assert!(cluster_sum::scratch_bytes(2, 64 / 8) <= SHAPE_64X128.tiling.stages * SHAPE_64X128.stage_bytes);
    assert!(cluster_sum::scratch_bytes(1, 128 / 8) <= SHAPE_128X64.tiling.stages * SHAPE_128X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(2, 128 / 8) <= SHAPE_128X128.tiling.stages * SHAPE_128X128.stage_bytes);
    assert!(cluster_sum::scratch_bytes(3, 128 / 8) <= SHAPE_128X192.tiling.stages * SHAPE_128X192.stage_bytes);
    assert!(cluster_sum::scratch_bytes(1, 80 / 8) <= SHAPE_80X64.tiling.stages * SHAPE_80X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(2, 80 / 8) <= SHAPE_80X128.tiling.stages * SHAPE_80X128.stage_bytes);
    assert!(cluster_sum::scratch_bytes(1, 96 / 8) <= SHAPE_96X64.tiling.stages * SHAPE_96X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(2, 96 / 8) <= SHAPE_96X128.tiling.stages * SHAPE_96X128.stage_bytes);
    assert!(cluster_sum::scratch_bytes(1, 112 / 8) <= SHAPE_112X64.tiling.stages * SHAPE_112X64.stage_bytes);
    assert!(cluster_sum::scratch_bytes(2, 112 / 8) <= SHAPE_112X128.tiling.stages * SHAPE_112X128.stage_bytes);
};

pub const SWAP_AB_16X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_16X64), tiling: SHAPE_16X64 };
pub const SWAP_AB_32X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_32X64), tiling: SHAPE_32X64 };
pub const SWAP_AB_32X128: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_32X128), tiling: SHAPE_32X128 };
pub const SWAP_AB_64X128: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_64X128), tiling: SHAPE_64X128 };
pub const SWAP_AB_64X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_64X64), tiling: SHAPE_64X64 };
pub const SWAP_AB_128X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_128X64), tiling: SHAPE_128X64 };
pub const SWAP_AB_128X128: HopperKernel =
    HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_128X128), tiling: SHAPE_128X128 };
pub const SWAP_AB_128X192: HopperKernel =
    HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_128X192), tiling: SHAPE_128X192 };
pub const SWAP_AB_80X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_80X64), tiling: SHAPE_80X64 };
pub const SWAP_AB_80X128: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_80X128), tiling: SHAPE_80X128 };
pub const SWAP_AB_96X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_96X64), tiling: SHAPE_96X64 };
pub const SWAP_AB_96X128: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_96X128), tiling: SHAPE_96X128 };
pub const SWAP_AB_112X64: HopperKernel = HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_112X64), tiling: SHAPE_112X64 };
pub const SWAP_AB_112X128: HopperKernel =
    HopperKernel { entry: Entry::Bf16ClusterSplit(BF16_WGMMA_SWAP_AB_112X128), tiling: SHAPE_112X128 };

/// The tile shapes this rung chooses from, fewest rows first: rung 12's
/// 16×128, then this rung's fourteen; the order breaks only exact ties.
pub const TILES: [HopperKernel; 15] = [
    SWAP_AB_CLUSTER,
    SWAP_AB_16X64,
    SWAP_AB_32X64,
    SWAP_AB_32X128,
    SWAP_AB_64X64,
    SWAP_AB_64X128,
    SWAP_AB_80X64,
    SWAP_AB_80X128,
    SWAP_AB_96X64,
    SWAP_AB_96X128,
    SWAP_AB_112X64,
    SWAP_AB_112X128,
    SWAP_AB_128X128,
    SWAP_AB_128X64,
    SWAP_AB_128X192,
];

/// Rung 12's kernel over tiles of 16 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_16X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_16x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_16X64.tiling.tile_m },
            { SHAPE_16X64.consumers() },
            { SHAPE_16X64.tiling.stages },
            { SHAPE_16X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 32 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_32X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_32x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_32X64.tiling.tile_m },
            { SHAPE_32X64.consumers() },
            { SHAPE_32X64.tiling.stages },
            { SHAPE_32X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 64 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_64X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_64x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_64X64.tiling.tile_m },
            { SHAPE_64X64.consumers() },
            { SHAPE_64X64.tiling.stages },
            { SHAPE_64X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 128 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_128X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_128x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_128X64.tiling.tile_m },
            { SHAPE_128X64.consumers() },
            { SHAPE_128X64.tiling.stages },
            { SHAPE_128X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 128 rows of A × 128 columns of B.
#[kernel(sm_90a, bounds(SHAPE_128X128.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_128x128(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_128X128.tiling.tile_m },
            { SHAPE_128X128.consumers() },
            { SHAPE_128X128.tiling.stages },
            { SHAPE_128X128.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 128 rows of A × 192 columns of B.
#[kernel(sm_90a, bounds(SHAPE_128X192.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_128x192(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_128X192.tiling.tile_m },
            { SHAPE_128X192.consumers() },
            { SHAPE_128X192.tiling.stages },
            { SHAPE_128X192.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 32 rows of A × 128 columns of B.
#[kernel(sm_90a, bounds(SHAPE_32X128.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_32x128(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_32X128.tiling.tile_m },
            { SHAPE_32X128.consumers() },
            { SHAPE_32X128.tiling.stages },
            { SHAPE_32X128.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 64 rows of A × 128 columns of B.
#[kernel(sm_90a, bounds(SHAPE_64X128.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_64x128(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_64X128.tiling.tile_m },
            { SHAPE_64X128.consumers() },
            { SHAPE_64X128.tiling.stages },
            { SHAPE_64X128.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 80 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_80X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_80x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_80X64.tiling.tile_m },
            { SHAPE_80X64.consumers() },
            { SHAPE_80X64.tiling.stages },
            { SHAPE_80X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 80 rows of A × 128 columns of B.
#[kernel(sm_90a, bounds(SHAPE_80X128.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_80x128(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_80X128.tiling.tile_m },
            { SHAPE_80X128.consumers() },
            { SHAPE_80X128.tiling.stages },
            { SHAPE_80X128.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 96 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_96X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_96x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_96X64.tiling.tile_m },
            { SHAPE_96X64.consumers() },
            { SHAPE_96X64.tiling.stages },
            { SHAPE_96X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 96 rows of A × 128 columns of B.
#[kernel(sm_90a, bounds(SHAPE_96X128.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_96x128(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_96X128.tiling.tile_m },
            { SHAPE_96X128.consumers() },
            { SHAPE_96X128.tiling.stages },
            { SHAPE_96X128.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 112 rows of A × 64 columns of B.
#[kernel(sm_90a, bounds(SHAPE_112X64.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_112x64(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_112X64.tiling.tile_m },
            { SHAPE_112X64.consumers() },
            { SHAPE_112X64.tiling.stages },
            { SHAPE_112X64.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}

/// Rung 12's kernel over tiles of 112 rows of A × 128 columns of B.
#[kernel(sm_90a, bounds(SHAPE_112X128.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab_112x128(m: u32, n: u32, k: u32, maps: *const u64, c: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<
            { SHAPE_112X128.tiling.tile_m },
            { SHAPE_112X128.consumers() },
            { SHAPE_112X128.tiling.stages },
            { SHAPE_112X128.tiling.tile_m as usize / 2 },
            true,
        >(m, n, k, maps.cast(), c, slice_k_tiles)
    }
}
// ANCHOR_END: rung
