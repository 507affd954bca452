//! Kernels of the concept labs (`ptx-ladder coalesce`, `banks`, `divergence`,
//! `reduce`, `occupancy`, `warps`, `memory`, `pitfalls`): small experiments, each isolating one
//! rule of the hardware.

pub mod banks;
pub mod coalesce;
pub mod divergence;
pub mod memory;
pub mod occupancy;
pub mod pitfalls;
pub mod reduce;
pub mod warps;

/// Every lab kernel's entry point in the PTX module.
pub const KERNEL_NAMES: &[&str] = &[
    coalesce::STRIDED_READ.name(),
    banks::kernel_for(banks::ROW).name(),
    banks::kernel_for(banks::COLUMN).name(),
    banks::kernel_for(banks::PADDED_COLUMN).name(),
    banks::kernel_for(banks::SWIZZLED_COLUMN).name(),
    banks::kernel_for(banks::STRIDE_2).name(),
    banks::kernel_for(banks::BROADCAST).name(),
    divergence::kernel_for(divergence::EVEN_ODD_LANE).name(),
    divergence::kernel_for(divergence::ALTERNATE_WARPS).name(),
    divergence::kernel_for(divergence::BY_BLOCK).name(),
    reduce::REDUCE_GLOBAL_PASS.name(),
    reduce::REDUCE_SHARED_TREE.name(),
    reduce::REDUCE_WARP_SHUFFLE.name(),
    reduce::REDUCE_ATOMIC.name(),
    occupancy::OCCUPANCY_COPY.name(),
    warps::WARP_LANES.name(),
    memory::MEMORY_READ.name(),
    memory::MEMORY_SHARED_READ.name(),
    memory::MEMORY_CHASE_L1.name(),
    memory::MEMORY_CHASE_L2.name(),
    memory::MEMORY_CHASE_SHARED.name(),
    memory::MEMORY_FMA_CHAIN.name(),
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
