// ANCHOR: rung
//! SGEMM rung 15: B split in shared memory: the weights are read once, as
//! they are.
//!
//! What changed from rung 14, and why it is faster: rungs 12 and 14 split B
//! into TF32 big and small parts, transposed, by a kernel of their own
//! before the GEMM. For a weight matrix that is one read of B, two writes
//! of the same size and two reads again: five times B's bytes through DRAM,
//! where the GEMM needs one. On a model's shapes at a few hundred tokens
//! the weights are most of the bytes, so that pass took as long as the
//! GEMM. Here each stage holds B's fp32 k-tile as TMA copies it from B
//! itself, and the two consumer warpgroups split and transpose it in
//! shared memory (16 values per thread, bank-conflict free) into a buffer
//! of Bᵀ big and small, one k-tile ahead, while the tensor cores work on
//! the buffer before ([`crate::gemm::hopper::tf32x3`]). A, a few hundred
//! rows, is still split by rung 12's kernel: it is small, and splitting it
//! again for every column tile would cost more than it saves.
//!
//! The cost is shared memory and its bandwidth: 64 KB for the two buffers
//! (a stage is 48 KB instead of 64) and 48 KB of shared-memory traffic per
//! k-tile. K is cut as rung 14 cuts it ([`crate::gemm::split_k`]), whole
//! when the tiles fill the GPU. TMA reads B's rows directly, so N must be
//! a multiple of 4 (16-byte rows); rungs 12 and 14 take any N.

use crate::gemm::hopper::tf32x3::RAW_B_SHAPE;
use crate::gemm::hopper::{Entry, HopperKernel};
use kernels_macros::kernel;

pub const SPLIT_B: HopperKernel = HopperKernel { entry: Entry::Tf32x3RawB(SGEMM_TF32X3_SPLIT_B), tiling: RAW_B_SHAPE };

/// Rung 14's units (one tile × one slice of `slice_k_tiles` k-tiles; block
/// `b` is slice `b / tiles` of tile `b % tiles`, storing its partial `A·B`
/// at `partial + slice·m·n`), with B's TF32 parts made in shared memory.
/// The maps: A big, A small (rung 12's split of A), and B itself (boxes of
/// 32×32 fp32).
#[kernel(sm_90a, bounds(RAW_B_SHAPE.threads(), 1))]
pub unsafe fn sgemm_tf32x3_split_b(m: u32, n: u32, k: u32, maps: *const u64, partial: *mut f32, slice_k_tiles: u32) {
    unsafe {
        crate::gemm::hopper::tf32x3::body::<true, true>(m, n, k, crate::gemm::hopper::Scale::NONE, maps.cast(), partial, slice_k_tiles)
    }
}
// ANCHOR_END: rung
