// ANCHOR: rung
//! BF16 rung 17: rung 13's swapped tiles in pairs along M that share the
//! weights.
//!
//! What changed from rung 13, and why it is faster past 128 rows of A
//! when the weights do not fit in L2: rung 13 covers M = 129 to 224 with
//! two tiles of rows (M = 200: two of 112), and each reads every box of
//! the weights it multiplies. Where the weights fit in L2 the second tile
//! of rows finds them there; where they do not, it reads them from DRAM
//! again (Llama-3-70B's o, 134 MB, at M = 129: twice the weights' time on
//! the H200). Here the two tiles of rows over the same 128 columns are one
//! cluster: each block's producer copies its own rows of A and one of a
//! stage's two boxes of the weights, multicast into both blocks, so the
//! weights cross DRAM once and L2 sends each box once per pair. Where the
//! pairs leave SMs idle, K is cut into slices added by a second kernel,
//! as rung 11's; the pairs walk their units as persistent blocks do
//! ([`crate::gemm::hopper::swap_ab`]'s `pairs_body`).

use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling, swap_ab};
use kernels_macros::kernel;

const SHAPE_64X128: HopperTiling = swap_ab::pairs_shape(swap_ab::tiling(64, 2, 9));
const SHAPE_80X128: HopperTiling = swap_ab::pairs_shape(swap_ab::tiling(80, 2, 8));
const SHAPE_96X128: HopperTiling = swap_ab::pairs_shape(swap_ab::tiling(96, 2, 8));
const SHAPE_112X128: HopperTiling = swap_ab::pairs_shape(swap_ab::tiling(112, 2, 7));

pub const PAIRS_64X128: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SWAP_AB_PAIRS_64X128), tiling: SHAPE_64X128 };
pub const PAIRS_80X128: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SWAP_AB_PAIRS_80X128), tiling: SHAPE_80X128 };
pub const PAIRS_96X128: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SWAP_AB_PAIRS_96X128), tiling: SHAPE_96X128 };
pub const PAIRS_112X128: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SWAP_AB_PAIRS_112X128), tiling: SHAPE_112X128 };

/// The tile shapes, fewest rows first.
pub const TILES: [HopperKernel; 4] = [PAIRS_64X128, PAIRS_80X128, PAIRS_96X128, PAIRS_112X128];

/// Pairs of tiles of 64 rows of A × 128 columns of the weights.
#[kernel(sm_90a, bounds(SHAPE_64X128.threads(), 1), cluster(SHAPE_64X128.cluster))]
pub unsafe fn bf16_wgmma_swap_ab_pairs_64x128(m: u32, n: u32, k: u32, maps: *const u64, out: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::pairs_body::<
            { SHAPE_64X128.tiling.tile_m },
            { SHAPE_64X128.consumers() },
            { SHAPE_64X128.tiling.stages },
            { SHAPE_64X128.tiling.tile_m as usize / 2 },
        >(m, n, k, maps.cast(), out, slice_k_tiles)
    }
}

/// Pairs of tiles of 80 rows of A × 128 columns of the weights.
#[kernel(sm_90a, bounds(SHAPE_80X128.threads(), 1), cluster(SHAPE_80X128.cluster))]
pub unsafe fn bf16_wgmma_swap_ab_pairs_80x128(m: u32, n: u32, k: u32, maps: *const u64, out: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::pairs_body::<
            { SHAPE_80X128.tiling.tile_m },
            { SHAPE_80X128.consumers() },
            { SHAPE_80X128.tiling.stages },
            { SHAPE_80X128.tiling.tile_m as usize / 2 },
        >(m, n, k, maps.cast(), out, slice_k_tiles)
    }
}

/// Pairs of tiles of 96 rows of A × 128 columns of the weights.
#[kernel(sm_90a, bounds(SHAPE_96X128.threads(), 1), cluster(SHAPE_96X128.cluster))]
pub unsafe fn bf16_wgmma_swap_ab_pairs_96x128(m: u32, n: u32, k: u32, maps: *const u64, out: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::pairs_body::<
            { SHAPE_96X128.tiling.tile_m },
            { SHAPE_96X128.consumers() },
            { SHAPE_96X128.tiling.stages },
            { SHAPE_96X128.tiling.tile_m as usize / 2 },
        >(m, n, k, maps.cast(), out, slice_k_tiles)
    }
}

/// Pairs of tiles of 112 rows of A × 128 columns of the weights.
#[kernel(sm_90a, bounds(SHAPE_112X128.threads(), 1), cluster(SHAPE_112X128.cluster))]
pub unsafe fn bf16_wgmma_swap_ab_pairs_112x128(m: u32, n: u32, k: u32, maps: *const u64, out: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::pairs_body::<
            { SHAPE_112X128.tiling.tile_m },
            { SHAPE_112X128.consumers() },
            { SHAPE_112X128.tiling.stages },
            { SHAPE_112X128.tiling.tile_m as usize / 2 },
        >(m, n, k, maps.cast(), out, slice_k_tiles)
    }
}

// ANCHOR_END: rung
