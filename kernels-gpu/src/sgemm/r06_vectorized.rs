// ANCHOR: rung
//! Rung 6: 128-bit accesses. Same 128×128 tile and 8×8 results per thread
//! as rung 5, but every memory access moves four floats at once.
//!
//! - Global loads and stores use `ld/st.global.v4.f32`: a quarter of the
//!   load instructions, and each warp request covers whole 32-byte sectors.
//! - The A tile is stored *transposed* (k-major) in shared memory, so the 8
//!   values of A a thread needs at one step of k sit side by side and come
//!   in two 128-bit shared loads, like the 8 values of B. Rung 5 needed 16
//!   scalar shared loads per step; this needs 4.
//!
//! The kernel body is generic over the shared-memory layout and the tile
//! sizes: rung 7 changes only the layout, rung 8 only the sizes.

use crate::gemm::epilogue::store_row4;
use crate::gemm::layout::{Plain, SharedLayout, stage_floats};
use crate::gemm::tiles::load_tiles;
use crate::gemm::tiling::Tiling;
use crate::gpu::{self, load_f32x4};
use crate::launch::LaunchShape;
use kernels_macros::kernel;

/// Fails at compile time unless `tiling` suits [`sgemm_vectorized_body`]:
/// thread tiles of whole 128-bit groups, `tile_k` a multiple of the 8-deep
/// slabs [`load_tiles`] copies, block tiles of whole warps' loads.
pub const fn check(tiling: Tiling) {
    tiling.check();
    assert!(tiling.thread_m % 4 == 0 && tiling.thread_n % 4 == 0 && tiling.tile_k % 8 == 0);
    assert!(tiling.tile_m % 32 == 0 && tiling.tile_n % 32 == 0);
}

/// Launch shape of [`sgemm_vectorized_body`] for a tiling and layout.
pub const fn launch_for<L: SharedLayout>(tiling: Tiling, m: u32, n: u32) -> LaunchShape {
    tiling.launch(m, n, stage_floats::<L>(tiling))
}

/// The kernel of rungs 6, 7 and 8: block tile `TILE_M`×`TILE_N`, steps of
/// `TILE_K`, each thread a contiguous `THREAD_M`×`THREAD_N` square of C.
/// Thread `thread` owns rows `(thread / (TILE_N / THREAD_N)) * THREAD_M`
/// and columns `(thread % (TILE_N / THREAD_N)) * THREAD_N` of the block
/// tile. The sizes are const parameters (a [`Tiling`]'s fields, not a
/// `Tiling` value) because that is the form whose PTX was measured.
///
/// # Safety
/// Must be launched with [`launch_for`] of the same tiling and layout, and
/// the tiling must pass [`check`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn sgemm_vectorized_body<
    L: SharedLayout,
    const TILE_M: u32,
    const TILE_N: u32,
    const TILE_K: u32,
    const THREAD_M: usize,
    const THREAD_N: usize,
>(
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    a: *const f32,
    b: *const f32,
    beta: f32,
    c: *mut f32,
) {
    let (tile_m, tile_n, tile_k) = (TILE_M, TILE_N, TILE_K);
    // As `Tiling::threads`, spelled out as the measured PTX had it.
    let threads = (TILE_M / THREAD_M as u32) * (TILE_N / THREAD_N as u32);
    let a_stride = tile_m + L::ROW_PAD;
    let b_stride = tile_n + L::ROW_PAD;
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((tile_k * a_stride) as usize) };

    let thread = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * tile_m;
    let col0 = gpu::block_idx().x * tile_n;
    let threads_per_row = tile_n / THREAD_N as u32;
    let tile_row = (thread / threads_per_row) * THREAD_M as u32;
    let tile_col = (thread % threads_per_row) * THREAD_N as u32;

    let mut acc = [[0.0f32; THREAD_N]; THREAD_M];
    let mut a_frag = [0.0f32; THREAD_M];
    let mut b_frag = [0.0f32; THREAD_N];
    let mut k0 = 0;
    while k0 < k {
        unsafe { load_tiles::<L>(a_tile, b_tile, (a, b), (m, n, k), (row0, col0, k0), (tile_m, tile_n, tile_k), (thread, threads)) };
        gpu::sync_threads();
        for kk in 0..tile_k {
            for i in 0..THREAD_M / 4 {
                let col = tile_row + 4 * i as u32;
                let v = unsafe { load_f32x4(a_tile.add((kk * a_stride + L::a_col(kk, col)) as usize)) };
                a_frag[4 * i..4 * i + 4].copy_from_slice(&v);
            }
            for j in 0..THREAD_N / 4 {
                let col = tile_col + 4 * j as u32;
                let v = unsafe { load_f32x4(b_tile.add((kk * b_stride + L::b_col(kk, col)) as usize)) };
                b_frag[4 * j..4 * j + 4].copy_from_slice(&v);
            }
            for r in 0..THREAD_M {
                for j in 0..THREAD_N {
                    acc[r][j] = gpu::fma(a_frag[r], b_frag[j], acc[r][j]);
                }
            }
        }
        gpu::sync_threads();
        k0 += tile_k;
    }

    for r in 0..THREAD_M {
        let row = row0 + tile_row + r as u32;
        if row < m {
            for j in 0..THREAD_N / 4 {
                let quad = [acc[r][4 * j], acc[r][4 * j + 1], acc[r][4 * j + 2], acc[r][4 * j + 3]];
                unsafe { store_row4(c, n, row, col0 + tile_col + 4 * j as u32, alpha, quad, beta) };
            }
        }
    }
}

pub const TILING: Tiling = Tiling::block(128, 128, 8, 8, 8);
const _: () = check(TILING);

pub const KERNEL: super::GemmKernel = crate::gemm::LadderKernel {
    kernel: SGEMM_VECTORIZED,
    launch: |m, n| launch_for::<Plain>(TILING, m, n),
    #[cfg(not(target_arch = "nvptx64"))]
    emulate: sgemm_vectorized,
};

/// `C = alpha * A * B + beta * C` for any `m`, `n`, `k` (A m×k, B k×n, C m×n,
/// row-major); launch with [`launch`]`(m, n)`.
///
/// Block (x, y) of 256 threads covers the 128×128 tile of C at row 128·y,
/// column 128·x; thread t computes the 8×8 square at rows (t / 16)·8,
/// columns (t % 16)·8 of the tile. Shared tiles in the [`Plain`] layout.
#[kernel(bounds(TILING.threads(), 2))]
pub unsafe fn sgemm_vectorized(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe {
        sgemm_vectorized_body::<
            Plain,
            { TILING.tile_m },
            { TILING.tile_n },
            { TILING.tile_k },
            { TILING.thread_m as usize },
            { TILING.thread_n as usize },
        >(m, n, k, alpha, a, b, beta, c)
    }
}
// ANCHOR_END: rung
