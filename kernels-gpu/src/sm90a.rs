//! The entries of the second PTX module, built for `sm_90a` (wgmma, TMA,
//! setmaxnreg): which kernels it holds and their launch bounds. The rungs
//! live in their ladders' folders ([`crate::bf16`] rungs 2-7 and 9-17,
//! [`crate::sgemm`] rungs 12, 14 and 15); this list sits above both, so neither the
//! ladders nor their building blocks import it.

use crate::LaunchBounds;
use crate::bf16::{
    r02_wgmma_tma, r03_wgmma_specialized, r04_wgmma_persistent, r05_wgmma_tma_store, r06_wgmma_cluster, r07_wgmma_deferred, r09_split_k,
    r10_cluster_split_k, r11_swap_ab, r12_swap_ab_cluster, r13_fitted_tiles, r14_narrow_tiles, r15_deep_k, r16_tiles_128x128,
    r17_swap_ab_pairs,
};
use crate::gemm::hopper::HopperKernel;
use crate::sgemm::r12_tf32x3_wgmma as tf32x3;
use crate::sgemm::r14_tf32x3_split_k;
use crate::sgemm::r15_tf32x3_split_b;

/// Every GEMM kernel of the sm_90a module.
pub const KERNELS: &[HopperKernel] = &[
    r02_wgmma_tma::PIPELINED,
    r03_wgmma_specialized::SPECIALIZED,
    r04_wgmma_persistent::PERSISTENT,
    r05_wgmma_tma_store::TMA_STORE,
    r06_wgmma_cluster::CLUSTERED,
    r07_wgmma_deferred::DEFERRED,
    r09_split_k::SPLIT_K,
    r10_cluster_split_k::CLUSTER_SPLIT_K,
    r11_swap_ab::SWAP_AB,
    r12_swap_ab_cluster::SWAP_AB_CLUSTER,
    r13_fitted_tiles::SWAP_AB_16X64,
    r13_fitted_tiles::SWAP_AB_32X64,
    r13_fitted_tiles::SWAP_AB_32X128,
    r13_fitted_tiles::SWAP_AB_64X64,
    r13_fitted_tiles::SWAP_AB_64X128,
    r13_fitted_tiles::SWAP_AB_80X64,
    r13_fitted_tiles::SWAP_AB_80X128,
    r13_fitted_tiles::SWAP_AB_96X64,
    r13_fitted_tiles::SWAP_AB_96X128,
    r13_fitted_tiles::SWAP_AB_112X64,
    r13_fitted_tiles::SWAP_AB_112X128,
    r13_fitted_tiles::SWAP_AB_128X64,
    r13_fitted_tiles::SWAP_AB_128X128,
    r13_fitted_tiles::SWAP_AB_128X192,
    r14_narrow_tiles::NARROW_TILES,
    r15_deep_k::DEEP_K,
    r16_tiles_128x128::TILES_128X128,
    r17_swap_ab_pairs::PAIRS_64X128,
    r17_swap_ab_pairs::PAIRS_80X128,
    r17_swap_ab_pairs::PAIRS_96X128,
    r17_swap_ab_pairs::PAIRS_112X128,
    tf32x3::KERNEL,
    r14_tf32x3_split_k::SPLIT_K,
    r15_tf32x3_split_b::SPLIT_B,
];

/// Launch bounds of the sm_90a module's kernels, for the builder.
pub fn launch_bounds() -> impl Iterator<Item = LaunchBounds> {
    KERNELS.iter().filter_map(|k| k.bounds())
}

/// Entry points of the sm_90a module: the GEMMs, the 3xTF32 splits, and
/// the split-K sum that starts beside the GEMMs.
pub const KERNEL_NAMES: &[&str] = &[
    r02_wgmma_tma::PIPELINED.name(),
    r03_wgmma_specialized::SPECIALIZED.name(),
    r04_wgmma_persistent::PERSISTENT.name(),
    r05_wgmma_tma_store::TMA_STORE.name(),
    r06_wgmma_cluster::CLUSTERED.name(),
    r07_wgmma_deferred::DEFERRED.name(),
    r09_split_k::SPLIT_K.name(),
    r10_cluster_split_k::CLUSTER_SPLIT_K.name(),
    r11_swap_ab::SWAP_AB.name(),
    r12_swap_ab_cluster::SWAP_AB_CLUSTER.name(),
    r13_fitted_tiles::SWAP_AB_16X64.name(),
    r13_fitted_tiles::SWAP_AB_32X64.name(),
    r13_fitted_tiles::SWAP_AB_32X128.name(),
    r13_fitted_tiles::SWAP_AB_64X64.name(),
    r13_fitted_tiles::SWAP_AB_64X128.name(),
    r13_fitted_tiles::SWAP_AB_80X64.name(),
    r13_fitted_tiles::SWAP_AB_80X128.name(),
    r13_fitted_tiles::SWAP_AB_96X64.name(),
    r13_fitted_tiles::SWAP_AB_96X128.name(),
    r13_fitted_tiles::SWAP_AB_112X64.name(),
    r13_fitted_tiles::SWAP_AB_112X128.name(),
    r13_fitted_tiles::SWAP_AB_128X64.name(),
    r13_fitted_tiles::SWAP_AB_128X128.name(),
    r13_fitted_tiles::SWAP_AB_128X192.name(),
    r14_narrow_tiles::NARROW_TILES.name(),
    r15_deep_k::DEEP_K.name(),
    r16_tiles_128x128::TILES_128X128.name(),
    r17_swap_ab_pairs::PAIRS_64X128.name(),
    r17_swap_ab_pairs::PAIRS_80X128.name(),
    r17_swap_ab_pairs::PAIRS_96X128.name(),
    r17_swap_ab_pairs::PAIRS_112X128.name(),
    tf32x3::KERNEL.name(),
    r14_tf32x3_split_k::SPLIT_K.name(),
    r15_tf32x3_split_b::SPLIT_B.name(),
    tf32x3::SGEMM_TF32X3_SPLIT_ROWS.name(),
    tf32x3::SGEMM_TF32X3_SPLIT_TRANSPOSED.name(),
    crate::gemm::split_k::SUM_SLICES_AFTER_GEMM.name(),
];
