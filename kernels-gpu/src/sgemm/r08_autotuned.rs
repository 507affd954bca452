// ANCHOR: rung
//! Rung 8: autotuned. Rung 7's swizzled kernel, instantiated for a range of
//! tile shapes; `ptx-ladder matmul --tune` times each on the actual GPU and keeps
//! the fastest.
//!
//! Which shape wins is a balance the GPU decides: bigger block tiles reuse
//! each global load more, deeper `tile_k` halves the barriers per FLOP, and
//! bigger thread tiles amortise shared loads over more FMAs, but all three
//! cost registers or shared memory, and with them resident warps. Tile
//! sizes are compile-time constants (so accumulators stay in registers), so
//! each candidate is its own kernel in the PTX module.

use super::GemmKernel;
use super::r06_vectorized::{check, launch_for, sgemm_vectorized_body};
use crate::gemm::layout::Swizzled;
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// One candidate: its tiling and its kernel.
#[derive(Clone, Copy)]
pub struct Config {
    pub tiling: Tiling,
    pub kernel: GemmKernel,
}

macro_rules! candidates {
    ($($name:ident / $handle:ident: $bm:literal x $bn:literal x $bk:literal, $tm:literal x $tn:literal, $blocks:literal blocks/SM;)*) => {
        $(
            /// Rung 7's swizzled kernel for one tile shape: `C = alpha * A * B +
            /// beta * C` for any `m`, `n`, `k`, launched with its [`Config`]'s
            /// kernel; thread t computes the thread tile at rows
            /// (t / (tile_n / thread_n))·thread_m, columns
            /// (t % (tile_n / thread_n))·thread_n of its block's tile.
            #[kernel(bounds(Tiling::block($bm, $bn, $bk, $tm, $tn).threads(), $blocks))]
            pub unsafe fn $name(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
                const _: () = check(Tiling::block($bm, $bn, $bk, $tm, $tn));
                unsafe { sgemm_vectorized_body::<Swizzled, $bm, $bn, $bk, $tm, $tn>(m, n, k, alpha, a, b, beta, c) }
            }
        )*

        /// Every candidate compiled into the PTX module; the first is the
        /// default when no tuning result exists (rung 7's shape).
        pub const CONFIGS: &[Config] = &[$(
            Config {
                tiling: Tiling::block($bm, $bn, $bk, $tm, $tn),
                kernel: GemmKernel {
                    kernel: $handle,
                    launch: |m, n| launch_for::<Swizzled>(Tiling::block($bm, $bn, $bk, $tm, $tn), m, n),
                    #[cfg(not(target_arch = "nvptx64"))]
                    emulate: $name,
                },
            }
        ),*];
    };
}

// Each line: the kernel and its handle (the name `#[kernel]` gives it), the
// tiling, and the launch bounds' blocks per SM: how many blocks'
// worth of registers ptxas must leave room for (128 registers per thread
// for the 8×8 thread tiles).
candidates! {
    sgemm_autotuned_128x128x8_8x8 / SGEMM_AUTOTUNED_128X128X8_8X8: 128 x 128 x 8, 8 x 8, 2 blocks/SM;
    sgemm_autotuned_128x128x16_8x8 / SGEMM_AUTOTUNED_128X128X16_8X8: 128 x 128 x 16, 8 x 8, 2 blocks/SM;
    sgemm_autotuned_128x128x32_8x8 / SGEMM_AUTOTUNED_128X128X32_8X8: 128 x 128 x 32, 8 x 8, 2 blocks/SM;
    sgemm_autotuned_128x64x8_8x8 / SGEMM_AUTOTUNED_128X64X8_8X8: 128 x 64 x 8, 8 x 8, 4 blocks/SM;
    sgemm_autotuned_64x128x8_8x8 / SGEMM_AUTOTUNED_64X128X8_8X8: 64 x 128 x 8, 8 x 8, 4 blocks/SM;
    sgemm_autotuned_64x128x16_8x8 / SGEMM_AUTOTUNED_64X128X16_8X8: 64 x 128 x 16, 8 x 8, 4 blocks/SM;
    sgemm_autotuned_128x64x16_8x4 / SGEMM_AUTOTUNED_128X64X16_8X4: 128 x 64 x 16, 8 x 4, 2 blocks/SM;
    sgemm_autotuned_64x64x16_4x4 / SGEMM_AUTOTUNED_64X64X16_4X4: 64 x 64 x 16, 4 x 4, 4 blocks/SM;
    sgemm_autotuned_64x64x8_8x8 / SGEMM_AUTOTUNED_64X64X8_8X8: 64 x 64 x 8, 8 x 8, 8 blocks/SM;
    sgemm_autotuned_128x256x8_8x8 / SGEMM_AUTOTUNED_128X256X8_8X8: 128 x 256 x 8, 8 x 8, 1 blocks/SM;
    sgemm_autotuned_256x128x8_8x8 / SGEMM_AUTOTUNED_256X128X8_8X8: 256 x 128 x 8, 8 x 8, 1 blocks/SM;
    sgemm_autotuned_128x128x16_8x4 / SGEMM_AUTOTUNED_128X128X16_8X4: 128 x 128 x 16, 8 x 4, 1 blocks/SM;
}
// ANCHOR_END: rung
