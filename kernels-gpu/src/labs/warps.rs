//! Warp formation: which lane of which warp each thread of a block becomes.

use crate::gpu;

pub const WARP_LANES: &str = "warp_lanes";

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

kernel! {
    /// `out[rank] = lane` for every thread of one block, where rank is the
    /// thread's linear number (x fastest) and lane what the hardware says.
    pub fn warp_lanes(out: *mut u32) {
        let lane = hardware_lane();
        unsafe { gpu::store(out.add(gpu::thread_rank() as usize), lane) };
    }
}
