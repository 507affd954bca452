//! Warp formation: which lane of which warp each thread of a block becomes.

use crate::gpu;
use kernels_macros::kernel;

/// The hardware's lane number of the calling thread (`%laneid`).
#[inline(always)]
fn hardware_lane() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let lane: u32;
        unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane) };
        lane
    }
    #[cfg(not(target_arch = "nvptx64"))]
    gpu::lane_id()
}

/// `out[rank] = lane` for every thread of one block, where rank is the
/// thread's linear number (x fastest) and lane what the hardware says.
#[kernel]
pub unsafe fn warp_lanes(out: *mut u32) {
    let lane = hardware_lane();
    unsafe { gpu::store(out.add(gpu::thread_rank() as usize), lane) };
}
