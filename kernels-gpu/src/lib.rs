//! Every kernel of ptx-ladder, written in plain `#![no_std]` Rust.
//!
//! This crate is compiled twice:
//! - for `nvptx64-nvidia-cuda` by the workspace's `build.rs`, into one PTX
//!   module that the host loads and launches;
//! - for the host, as an ordinary rlib, so the host shares the kernels' names,
//!   tile sizes and launch shapes by construction, and so the tests can run
//!   each kernel on the CPU through the emulated helpers in [`gpu`].
//!
//! Kernels are declared with `#[kernel]` (crate `kernels-macros`): an
//! exported PTX entry on the GPU, a plain `unsafe fn` on the host, and a
//! typed [`launch::Kernel`] handle for both.
//!
//! Kernels never touch `core::arch::nvptx` directly: indices, barriers,
//! shared memory, warp shuffles and special loads all go through [`gpu`], so a
//! kernel reads like the algorithm it implements. Memory is read and written
//! with `gpu::load`/`gpu::store` rather than `*ptr`: the same PTX, but on the
//! host the emulator's race and bounds checkers see every access.
#![no_std]
#![feature(core_float_math, portable_simd)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        stdarch_nvptx,
        asm_experimental_arch,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        link_llvm_intrinsics
    )
)]
#![cfg_attr(not(target_arch = "nvptx64"), feature(thread_local))]
// `link_llvm_intrinsics` gives the warp shuffles LLVM's own (convergent)
// intrinsics instead of opaque inline assembly.
#![allow(internal_features)]
// Kernels index register arrays with loop counters on purpose: iterator
// adapters over arrays (`into_iter().enumerate()`) were not unrolled on the
// GPU and pushed arrays into local memory. The SGEMM signature
// (m, n, k, alpha, a, b, beta, c) is BLAS's, eight arguments.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]
// `x % 4 == 0` stays as written: `is_multiple_of` generates different PTX,
// and the kernels are kept byte for byte as they were measured on the H200.
#![allow(clippy::manual_is_multiple_of)]

pub mod bf16;
pub mod gemm;
pub mod gpu;
pub mod labs;
pub mod launch;
pub mod sgemm;
pub mod sm90a;
pub mod vecadd;

/// CUDA C++'s `__launch_bounds__(max_threads, min_blocks_per_sm)`: a promise
/// that the kernel never runs with more than `max_threads` threads per block,
/// and a request that ptxas keep registers low enough for
/// `min_blocks_per_sm` blocks to fit on one multiprocessor. Rust has no
/// attribute for it, so `build.rs` writes it into the PTX as `.maxntid` and
/// `.minnctapersm` directives, and, for a kernel whose blocks run in
/// clusters, `.reqnctapercluster` (CUDA C++'s `__cluster_dims__`), so an
/// ordinary launch runs them in clusters. A kernel declares them in its
/// attribute (`#[kernel(bounds(256, 2))]`) and its handle carries them
/// ([`launch::Kernel::bounds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    pub kernel: &'static str,
    pub max_threads: u32,
    pub min_blocks_per_sm: u32,
    /// Blocks per cluster (`.reqnctapercluster`); 1: no cluster.
    pub cluster: u32,
}

/// Every kernel of the portable module that declares launch bounds.
pub fn launch_bounds() -> impl Iterator<Item = LaunchBounds> {
    let sgemm = sgemm::KERNELS.iter().filter_map(|k| k.kernel.bounds());
    let small_m = sgemm::r13_small_m::KERNELS.iter().map(|k| k.bounds()).chain(bf16::r08_small_m::KERNELS.iter().map(|k| k.bounds()));
    let small_m = small_m.chain(bf16::r18_small_m_tensor::KERNELS.iter().map(|k| k.bounds()));
    sgemm.chain(bf16::KERNELS.iter().filter_map(|k| k.kernel.bounds())).chain(small_m.flatten())
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo) -> ! {
    // Built with panic=immediate-abort; any remaining panic path ends the
    // kernel with a trap, which the host sees as a launch failure.
    gpu::trap()
}
