// ANCHOR: rung
//! BF16 rung 8: small M, B streamed once, K split over blocks.
//!
//! Rungs 1-7 compute 128×256 tensor-core tiles: at M = 1 (one token per
//! sequence, decoding) 127 of 128 rows are wasted, and Llama-3-8B's down
//! projection (N = 4096) has 16 tiles for 132 SMs. Reading the weights is
//! all the time there is: this rung streams B once with 16-byte loads (8
//! bf16 each), splits K over blocks until every SM has several, multiplies
//! in fp32 on the CUDA cores, and adds the partial sums in a fixed order
//! (in the same launch when the slices are few).
//! The body is shared with SGEMM rung 13 ([`crate::gemm::small_m`]); these
//! are its bf16 entries, one per rows of A per block.

use crate::gemm::small_m::{cols, gemm};
use crate::launch::Kernel;
use kernels_macros::kernel;

/// The entries' parameters.
type Params = (u32, u32, u32, *const u16, *const u16, *mut f32, f32, f32, *mut f32, *mut u32, u32, u32);

/// bf16 A and B, one row of A per block (M = 1, decoding). No launch
/// bounds: its 71 registers let 7 blocks fit, more than the 4 per SM its
/// plan counts on (the host asks the driver how many fit,
/// [`BLOCKS_PER_SM`](crate::gemm::small_m::BLOCKS_PER_SM)).
#[kernel]
pub unsafe fn bf16_small_m1(
    m: u32,
    n: u32,
    k: u32,
    a: *const u16,
    b: *const u16,
    c: *mut f32,
    alpha: f32,
    beta: f32,
    partial: *mut f32,
    counters: *mut u32,
    k_chunk: u32,
    groups: u32,
) {
    unsafe { gemm::<u16, 1, { cols::<u16>() }>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), (k_chunk, groups)) }
}

/// bf16 A and B, up to 8 rows of A per block.
#[kernel]
pub unsafe fn bf16_small_m8(
    m: u32,
    n: u32,
    k: u32,
    a: *const u16,
    b: *const u16,
    c: *mut f32,
    alpha: f32,
    beta: f32,
    partial: *mut f32,
    counters: *mut u32,
    k_chunk: u32,
    groups: u32,
) {
    unsafe { gemm::<u16, 8, { cols::<u16>() }>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), (k_chunk, groups)) }
}

/// bf16 A and B, up to 16 rows of A per block.
#[kernel]
pub unsafe fn bf16_small_m16(
    m: u32,
    n: u32,
    k: u32,
    a: *const u16,
    b: *const u16,
    c: *mut f32,
    alpha: f32,
    beta: f32,
    partial: *mut f32,
    counters: *mut u32,
    k_chunk: u32,
    groups: u32,
) {
    unsafe { gemm::<u16, 16, { cols::<u16>() }>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), (k_chunk, groups)) }
}

/// The rung's entries, by rows of A per block (1, 8, 16).
pub const KERNELS: [Kernel<Params>; 3] = [BF16_SMALL_M1, BF16_SMALL_M8, BF16_SMALL_M16];

/// The entry for a plan of `rows` rows of A per block
/// ([`crate::gemm::small_m::rows_for`]).
pub const fn for_rows(rows: u32) -> Kernel<Params> {
    match rows {
        1 => BF16_SMALL_M1,
        8 => BF16_SMALL_M8,
        _ => BF16_SMALL_M16,
    }
}
// ANCHOR_END: rung
