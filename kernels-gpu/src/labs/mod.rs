//! Kernels of the concept labs (`host coalesce`, `banks`, `divergence`,
//! `reduce`, `occupancy`, `warps`, `pitfalls`): small experiments, each isolating one
//! rule of the hardware.

pub mod banks;
pub mod coalesce;
pub mod divergence;
pub mod occupancy;
pub mod pitfalls;
pub mod reduce;
pub mod warps;

/// Every lab kernel's entry point in the PTX module.
pub const KERNEL_NAMES: &[&str] = &[
    coalesce::STRIDED_READ,
    banks::kernel_name(banks::ROW),
    banks::kernel_name(banks::COLUMN),
    banks::kernel_name(banks::PADDED_COLUMN),
    banks::kernel_name(banks::SWIZZLED_COLUMN),
    banks::kernel_name(banks::STRIDE_2),
    banks::kernel_name(banks::BROADCAST),
    divergence::kernel_name(divergence::EVEN_ODD_LANE),
    divergence::kernel_name(divergence::ALTERNATE_WARPS),
    divergence::kernel_name(divergence::BY_BLOCK),
    reduce::GLOBAL_PASS,
    reduce::SHARED_TREE,
    reduce::WARP_SHUFFLE,
    reduce::ATOMIC,
    occupancy::OCCUPANCY_COPY,
    warps::WARP_LANES,
    pitfalls::TREE_BARRIER_IN_BRANCH,
    pitfalls::TREE_MISSING_BARRIER,
    pitfalls::TREE_SUM,
    pitfalls::REVERSE_EARLY_RETURN,
    pitfalls::REVERSE_MISSING_BARRIER,
    pitfalls::REVERSE,
    pitfalls::ADD_UNMASKED,
    pitfalls::ADD_MASKED,
    pitfalls::WAIT_FOR_NEXT_BLOCK,
    pitfalls::SET_FLAG,
    pitfalls::READ_FLAG,
];
