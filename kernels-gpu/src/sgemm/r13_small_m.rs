// ANCHOR: rung
//! SGEMM rung 13: small M, B streamed once, K split over blocks.
//!
//! Rungs 1-12 compute 128-row tiles (or smaller ones at rung 1-5): at M = 1
//! all but one row of each is wasted work, and with few columns most SMs
//! have no tile at all. At small M a GEMM is bound by reading B, not by
//! arithmetic: this rung reads B once with 16-byte loads, splits K over
//! blocks until every SM has several, and adds the partial sums in a fixed
//! order, in the same launch when the slices are few (the last block of
//! each tile to finish adds them). fp32 multiply-adds are exact enough and fast enough here: no
//! 3xTF32 split to pay for. At 16 rows of A the FMAs must keep pace with
//! DRAM: the block reads its slice of A from shared memory (one broadcast
//! load per 4 values of a row), and a thread holds 16 × 4 sums, so 4 blocks fit on
//! an SM. The body is shared with BF16 rung 8 ([`crate::gemm::small_m`]);
//! these are its fp32 entries, one per rows of A per block.

use crate::gemm::small_m::{BLOCKS_PER_SM, THREADS, cols, gemm};
use crate::launch::Kernel;
use kernels_macros::kernel;

/// The entries' parameters.
type Params = (u32, u32, u32, *const f32, *const f32, *mut f32, f32, f32, *mut f32, *mut u32, u32, u32);

/// fp32 A and B, one row of A per block; registers for the 4 blocks per
/// SM its plan counts on.
#[kernel(bounds(THREADS, BLOCKS_PER_SM))]
pub unsafe fn sgemm_small_m1(
    m: u32,
    n: u32,
    k: u32,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    alpha: f32,
    beta: f32,
    partial: *mut f32,
    counters: *mut u32,
    k_chunk: u32,
    groups: u32,
) {
    unsafe { gemm::<f32, 1, { cols::<f32>() }>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), (k_chunk, groups)) }
}

/// fp32 A and B, up to 8 rows of A per block.
#[kernel]
pub unsafe fn sgemm_small_m8(
    m: u32,
    n: u32,
    k: u32,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    alpha: f32,
    beta: f32,
    partial: *mut f32,
    counters: *mut u32,
    k_chunk: u32,
    groups: u32,
) {
    unsafe { gemm::<f32, 8, { cols::<f32>() }>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), (k_chunk, groups)) }
}

/// fp32 A and B, up to 16 rows of A per block; 128 registers at most, so
/// that the 4 blocks per SM its plan counts on fit.
#[kernel(bounds(THREADS, BLOCKS_PER_SM))]
pub unsafe fn sgemm_small_m16(
    m: u32,
    n: u32,
    k: u32,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    alpha: f32,
    beta: f32,
    partial: *mut f32,
    counters: *mut u32,
    k_chunk: u32,
    groups: u32,
) {
    unsafe { gemm::<f32, 16, { cols::<f32>() }>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), (k_chunk, groups)) }
}

/// The rung's entries, by rows of A per block (1, 8, 16).
pub const KERNELS: [Kernel<Params>; 3] = [SGEMM_SMALL_M1, SGEMM_SMALL_M8, SGEMM_SMALL_M16];

/// The entry for a plan of `rows` rows of A per block
/// ([`crate::gemm::small_m::rows_for`]).
pub const fn for_rows(rows: u32) -> Kernel<Params> {
    match rows {
        1 => SGEMM_SMALL_M1,
        8 => SGEMM_SMALL_M8,
        _ => SGEMM_SMALL_M16,
    }
}
// ANCHOR_END: rung
