//! Device helpers: everything a kernel needs from the hardware, in one place.
//!
//! On the GPU each helper is one PTX instruction or special register. On the
//! host the same functions read the state of the simulated thread that the
//! CPU emulator (`ptx_ladder::emulator`) set up, so kernels run unchanged in
//! tests without a GPU.

mod clock;
mod index;
mod memory;
mod sync;
mod tensor;
mod warp;

pub mod hopper;

#[cfg(not(target_arch = "nvptx64"))]
pub mod emulated;

pub use clock::*;
pub use index::*;
pub use memory::*;
pub use sync::*;
pub use tensor::*;
pub use warp::*;

/// Threads per warp on every NVIDIA GPU so far.
pub const WARP_SIZE: u32 = 32;

/// `a * b + c` with one rounding (`fma.rn.f32`). Written out because Rust
/// never fuses a separate multiply and add on its own.
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::f32::math::mul_add(a, b, c)
}

/// Stops the kernel; the launch then fails with an "illegal instruction"
/// style error on the host.
#[inline(always)]
pub fn trap() -> ! {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::nvptx::trap()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("kernel trapped")
}
