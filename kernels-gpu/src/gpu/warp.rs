//! Warp-level data exchange: lanes read each other's registers without
//! going through shared memory.

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.shfl.sync.bfly.f32"]
    fn shfl_bfly_f32(mask: u32, value: f32, lane_mask: u32, clamp: u32) -> f32;
}

/// All 32 lanes take part.
const FULL_MASK: u32 = 0xffff_ffff;

/// Returns the value held by lane `lane_id() ^ lane_mask` (butterfly).
/// Every lane of the warp must call it together.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shuffle_xor(value: f32, lane_mask: u32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        shfl_bfly_f32(FULL_MASK, value, lane_mask, 0x1f)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = FULL_MASK;
        let lane = crate::gpu::lane_id();
        f32::from_bits(crate::gpu::emulated::shuffle(value.to_bits(), lane ^ lane_mask))
    }
}

/// Sum of `value` over the 32 lanes of the warp, returned to every lane:
/// five butterfly steps, no shared memory, no barrier.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn warp_sum(value: f32) -> f32 {
    let mut sum = value;
    let mut offset = crate::gpu::WARP_SIZE / 2;
    while offset > 0 {
        sum += shuffle_xor(sum, offset);
        offset /= 2;
    }
    sum
}
