//! The tensor-memory accelerator: one thread asks for a whole 2D tile, the
//! copy engine fetches it (zero-filling whatever lies outside the matrix),
//! writes it to shared memory in the swizzled layout its tensor map names,
//! and reports the bytes to an mbarrier.

/// The driver's 128-byte `CUtensorMap`, made on the host by
/// `cuTensorMapEncodeTiled`. Kernels receive a pointer to it in global
/// memory.
#[repr(C, align(64))]
pub struct TensorMap(pub [u64; 16]);

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`:
/// copies the box of `map` whose first element is at column `x`, row `y`
/// into shared memory at `dst`, and reports its bytes to `bar`.
///
/// # Safety
/// `map` points to a valid tensor map in global memory, `dst` is a shared
/// address aligned as the swizzle needs (1024 bytes for 128-byte swizzle)
/// with room for the box, and `bar` is an mbarrier expecting these bytes.
#[inline(always)]
pub unsafe fn load_2d(dst: u32, map: *const TensorMap, bar: u32, x: u32, y: u32) {
    unsafe {
        core::arch::asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
            d = in(reg32) dst,
            m = in(reg64) map,
            x = in(reg32) x,
            y = in(reg32) y,
            b = in(reg32) bar,
        )
    }
}

/// `fence.mbarrier_init.release.cluster`: makes freshly initialised
/// mbarriers visible to the async proxy (the copy engine) before any copy
/// is issued against them.
#[inline(always)]
pub fn fence_barrier_init() {
    unsafe { core::arch::asm!("fence.mbarrier_init.release.cluster;") }
}
