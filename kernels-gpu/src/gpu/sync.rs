//! Block-wide barrier and the block's dynamic shared memory.

/// `__syncthreads()`: every thread of the block waits here until all have
/// arrived, and their earlier shared-memory writes are visible to all.
/// Every thread must reach the same barrier: never call it from a branch
/// that only part of the block takes, or after some threads returned.
/// (On the host the emulator learns the call site, to name the barrier.)
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn sync_threads() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::nvptx::_syncthreads()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    crate::gpu::emulated::barrier()
}

/// Alignment of the dynamic shared-memory window: 16 bytes, so that 128-bit
/// loads and `cp.async` copies of 16 bytes may target it.
#[repr(C, align(16))]
struct SharedAlign([u8; 16]);

/// The block's dynamic shared memory, sized by the launch (the "shared
/// bytes" argument of the host's launch wrapper). The pointer is 16-byte
/// aligned; the kernel is responsible for staying inside the launched size.
#[inline(always)]
pub fn dynamic_shared<T>() -> *mut T {
    #[cfg(target_arch = "nvptx64")]
    {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<SharedAlign>().cast()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = core::mem::size_of::<SharedAlign>();
        crate::gpu::emulated::current().shared.cast()
    }
}
