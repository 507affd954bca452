// ANCHOR: rung
//! Rung 9: warptiling. A third level of tiling between the block and the
//! thread: block tile 128×128 → eight warp tiles of 64×32 → per thread 2×2
//! squares of 4×4 results, spaced across the warp tile.
//!
//! In rung 7 a thread's 8×8 results were one contiguous square, so lanes
//! reading B hit addresses 32 bytes apart. Here, at each step of k, the 32
//! lanes of a warp read 8 consecutive 16-byte groups of A and 4 of B per
//! instruction: every shared load is one conflict-free, mostly broadcast
//! access, whatever the layout. Keeping a warp's work inside a 64×32 window
//! also gives each warp its own small working set, and `tile_k` = 16 halves
//! the barriers per FLOP. Shared tiles use rung 7's swizzled layout; launch
//! bounds keep two blocks per SM.
//!
//! The warp-tile multiply and store live in [`crate::gemm::warp_tile`], shared
//! with rung 10.

use crate::gemm::layout::{Swizzled, a_tile_floats, stage_floats};
use crate::gemm::tiles::load_tiles;
use crate::gemm::tiling::Tiling;
use crate::gemm::warp_tile::{Accumulators, QUAD, check, multiply_tile, store_accumulators, thread_origin};
use crate::gpu;
use crate::launch::LaunchShape;
use kernels_macros::kernel;

/// Shared-memory layout of the tiles (rung 7's lesson).
pub type Layout = Swizzled;

pub const TILING: Tiling = Tiling::block(128, 128, 16, 8, 8).with_warp_tile(64, 32);
pub const ITER_M: usize = 2;
pub const ITER_N: usize = 2;
pub const THREADS: u32 = TILING.threads();
const _: () = check(TILING, ITER_M, ITER_N);

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_WARPTILING,
    launch,
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_warptiling,
};

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    TILING.launch(m, n, stage_floats::<Layout>(TILING))
}

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 256 threads covers the 128×128 tile of C at row 128·y,
/// column 128·x. Warp w owns the 64×32 warp tile at rows (w / 4)·64,
/// columns (w % 4)·32; its lane l owns 2×2 squares of 4×4 results at rows
/// (l / 4)·4 + {0, 32} and columns (l % 4)·4 + {0, 16} of the warp tile.
#[kernel(bounds(THREADS, 2))]
pub unsafe fn sgemm_warptiling(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    {
        let a_tile = gpu::dynamic_shared::<f32>();
        let b_tile = unsafe { a_tile.add(a_tile_floats::<Layout>(TILING) as usize) };
        let thread = gpu::thread_idx().x;
        let row0 = gpu::block_idx().y * TILING.tile_m;
        let col0 = gpu::block_idx().x * TILING.tile_n;
        let origin = thread_origin::<ITER_M, ITER_N>(TILING, thread);

        let mut acc: Accumulators<ITER_M, ITER_N> = [[[[0.0; QUAD]; ITER_N]; QUAD]; ITER_M];
        let mut k0 = 0;
        while k0 < k {
            unsafe {
                load_tiles::<Layout>(
                    a_tile,
                    b_tile,
                    (a, b),
                    (m, n, k),
                    (row0, col0, k0),
                    (TILING.tile_m, TILING.tile_n, TILING.tile_k),
                    (thread, THREADS),
                );
            }
            gpu::sync_threads();
            unsafe { multiply_tile::<Layout, ITER_M, ITER_N>(TILING, a_tile, b_tile, origin, &mut acc) };
            gpu::sync_threads();
            k0 += TILING.tile_k;
        }
        unsafe { store_accumulators(TILING, c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
    }
}
// ANCHOR_END: rung
