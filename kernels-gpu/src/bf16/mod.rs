//! The BF16 ladder: `C = A·B` with A (M×K) and B (K×N) row-major bf16 and
//! C (M×N) row-major fp32, accumulated in fp32, any M, N, K. One file per
//! rung, each opening with what changed and why.
//!
//! Every kernel takes `(m, n, k, a, b, c)`: `a` and `b` point to the bf16
//! values' 16-bit patterns, `c` to fp32 output that is only written (it may
//! hold NaN poison before the call). Rungs that need more (tensor maps)
//! take extra parameters after these and are launched by their own host code.

/// Parameters of every BF16 kernel of the portable module, for its typed
/// launch handle.
pub type Bf16Params = (u32, u32, u32, *const u16, *const u16, *mut f32);

/// What the host needs to launch one BF16 kernel of the portable module.
pub type Bf16Kernel = crate::gemm::LadderKernel<Bf16Params>;

pub mod r01_mma_sync;
pub mod r02_wgmma_tma;
pub mod r03_wgmma_specialized;
pub mod r04_wgmma_persistent;
pub mod r05_wgmma_tma_store;
pub mod r06_wgmma_cluster;
pub mod r07_wgmma_deferred;
pub mod r08_small_m;
pub mod r09_split_k;
pub mod r10_cluster_split_k;
pub mod r11_swap_ab;
pub mod r12_swap_ab_cluster;
pub mod r13_fitted_tiles;
pub mod r14_narrow_tiles;
pub mod r15_deep_k;
pub mod r16_tiles_128x128;
pub mod r17_swap_ab_pairs;
pub mod r18_small_m_tensor;

/// Every BF16 kernel in the portable PTX module (rung 1; rungs 8 and 18 pick an
/// entry per shape, see their modules); rungs 2-7 and 9-17 are in
/// the sm_90a module, listed in [`crate::sm90a::KERNELS`].
pub const KERNELS: &[Bf16Kernel] = &[r01_mma_sync::KERNEL];
