// ANCHOR: rung
//! BF16 rung 18: small M on the tensor cores.
//!
//! Rung 8 streams B once and multiplies on the CUDA cores: at one row of A
//! it reads the weights as fast as a kernel that only reads, but at 16 rows
//! every 2-byte value of B asks for 16 fp32 FMAs and an unpacking, and the
//! FMAs, not DRAM, set the pace (Llama-3-8B's gate_up at M = 16: 134 µs,
//! against 58 to read its weights). Rungs 11-13 move those shapes to the
//! Hopper tensor cores with swapped tiles, which stage B through shared
//! memory in 64-row boxes. This rung keeps rung 8's stream (each thread 8
//! columns, 8 rows of K in flight, blocks of 64 columns or, where those
//! would be more than fit at once, 128, K split until every SM has
//! blocks) and hands each 16-byte load to `mma.sync`: the
//! fragments are the loads themselves, with the rows of K and the columns
//! of C in the order the loads give them
//! ([`crate::gemm::small_m_tensor`]).

use crate::gemm::small_m::{BLOCKS_PER_SM, SmallMPlan};
use crate::gemm::small_m_tensor::{THREADS, column_warps, gemm};
use crate::launch::Kernel;
use kernels_macros::kernel;

/// The entries' parameters: the small-M kernels' ([`super::r08_small_m`]),
/// so that the host launches both the same way; the last (`groups`) is
/// the plan's, which each entry knows from its width.
type Params = (u32, u32, u32, *const u16, *const u16, *mut f32, f32, f32, *mut f32, *mut u32, u32, u32);

/// 64 columns per block, its 4 warps splitting K.
#[kernel(bounds(THREADS, BLOCKS_PER_SM))]
pub unsafe fn bf16_small_m_tensor_64(
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
    _groups: u32,
) {
    unsafe { gemm::<1>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), k_chunk) }
}

/// 128 columns per block: 2 warps along N, 2 along K.
#[kernel(bounds(THREADS, BLOCKS_PER_SM))]
pub unsafe fn bf16_small_m_tensor_128(
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
    _groups: u32,
) {
    unsafe { gemm::<2>((m, n, k), (a, b), (c, alpha, beta), (partial, counters), k_chunk) }
}

/// The rung's entries, by warps side by side along N (1, 2).
pub const KERNELS: [Kernel<Params>; 2] = [BF16_SMALL_M_TENSOR_64, BF16_SMALL_M_TENSOR_128];

/// The entry for `plan`'s blocks (64 or 128 columns,
/// [`SmallMPlan::tensor`]).
pub const fn for_plan(plan: &SmallMPlan) -> Kernel<Params> {
    KERNELS[column_warps(plan) as usize - 1]
}
// ANCHOR_END: rung
