//! The SGEMM ladder: `C = alpha * A * B + beta * C`, row-major fp32, any
//! M, N, K. One file per rung; each opens with what changed from the
//! previous rung and why it is faster.
//!
//! Every kernel takes the same arguments, in this order:
//! `(m, n, k, alpha, a, b, beta, c)` with `a` M×K, `b` K×N and `c` M×N.
//! As in BLAS, `beta == 0` means C is only written, never read, so C may hold
//! anything (NaN poison included) before the call.

/// Parameters shared by every SGEMM kernel: `(m, n, k, alpha, a, b, beta, c)`.
pub type GemmParams = (u32, u32, u32, f32, *const f32, *const f32, f32, *mut f32);

/// What the host needs to launch one SGEMM kernel.
pub type GemmKernel = crate::gemm::LadderKernel<GemmParams>;

pub mod r01_naive;
pub mod r02_coalesced;
pub mod r03_shared_tiling;
pub mod r04_blocktile_1d;
pub mod r05_blocktile_2d;
pub mod r06_vectorized;
pub mod r07_bank_conflicts;
pub mod r08_autotuned;
pub mod r09_warptiling;
pub mod r10_async_pipeline;
pub mod r11_tensor_cores;
pub mod r12_tf32x3_wgmma;
pub mod r13_small_m;
pub mod r14_tf32x3_split_k;
pub mod r15_tf32x3_split_b;

/// Every SGEMM kernel in the portable PTX module: rungs 1-11 and rung 8's
/// candidates (rung 12 is in the sm_90a module, [`crate::sm90a::KERNELS`]).
pub const KERNELS: &[GemmKernel] = &{
    const RUNGS: [GemmKernel; 11] = [
        r01_naive::KERNEL,
        r02_coalesced::KERNEL,
        r03_shared_tiling::KERNEL,
        r04_blocktile_1d::KERNEL,
        r05_blocktile_2d::KERNEL,
        r06_vectorized::KERNEL,
        r07_bank_conflicts::PADDED,
        r07_bank_conflicts::SWIZZLED,
        r09_warptiling::KERNEL,
        r10_async_pipeline::KERNEL,
        r11_tensor_cores::KERNEL,
    ];
    let mut all = [RUNGS[0]; RUNGS.len() + r08_autotuned::CONFIGS.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < RUNGS.len() { RUNGS[i] } else { r08_autotuned::CONFIGS[i - RUNGS.len()].kernel };
        i += 1;
    }
    all
};
