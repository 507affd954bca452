// ANCHOR: rung
//! BF16 rung 11: few rows of A, the weights as wgmma's M (A and B swapped).
//!
//! What changed from rungs 9 and 10, and why it is faster at M ≤ 16: their
//! tiles have 128 rows of A, wgmma's M being 64 per warpgroup. With 16
//! tokens, 112 of those rows are zeros that TMA still writes into every
//! stage: a third of each 48 KB stage, so only four stages fit, 128 KB of
//! weights in flight per SM, and the weights stream at about two thirds of
//! DRAM's rate. Here the product is computed transposed, Cᵀ = Bᵀ·Aᵀ: the
//! weights' columns are wgmma's M (64 per consumer warpgroup, 128 per
//! block) and the 16 rows of A are its N (`m64n16k16`; N may be as small
//! as 8). A stage is then 16 KB of weights and 2 KB of A, and 12 of them
//! fit: 192 KB of weights in flight per SM.
//!
//! The swapped GEMM is a library module ([`crate::gemm::hopper::swap_ab`]):
//! the weights' tiles are wgmma's A operand stored MN-major, read with its
//! transpose flag; A's rows are its B operand, K-major; the accumulators
//! hold Cᵀ, stored to C column by column. K is split as in rung 9
//! ([`crate::gemm::split_k`]) when the tiles (128 columns each) leave SMs
//! idle.

use crate::gemm::hopper::swap_ab;
use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// 16 rows of A (wgmma's N) × 128 columns of B (two consumer warpgroups of
/// wgmma's M = 64), 64 values of K per stage, 12 stages.
pub const TILING: Tiling = swap_ab::tiling(16, 2, 12);

/// Rung 9's persistent shape (a producer warpgroup and two consumers, C
/// stored from registers) over these tiles and stages.
const SHAPE: HopperTiling = swap_ab::shape(TILING);

pub const SWAP_AB: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SWAP_AB), tiling: SHAPE };

/// As [`super::r09_split_k::bf16_wgmma_split_k`], over tiles of 16 rows
/// of A × 128 columns of B, computed as Cᵀ.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab(m: u32, n: u32, k: u32, maps: *const u64, partial: *mut f32, slice_k_tiles: u32) {
    unsafe {
        swap_ab::body::<{ SHAPE.tiling.tile_m }, { SHAPE.consumers() }, { SHAPE.tiling.stages }, { SHAPE.tiling.tile_m as usize / 2 }, false>(
            m,
            n,
            k,
            maps.cast(),
            partial,
            slice_k_tiles,
        )
    }
}
// ANCHOR_END: rung
