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
//! The body is generic over the tiling so rung 10 can reuse it.

use super::epilogue::store_row4;
use super::r06_vectorized::{SharedLayout, load_tiles, shared_floats};
use super::r07_bank_conflicts::Swizzled;
use crate::gpu::{self, WARP_SIZE, load_f32x4};
use crate::launch::{LaunchShape, float_bytes, tiled_launch};
use kernels_macros::kernel;

/// A thread's results come in squares of `QUAD`×`QUAD`: one 128-bit load of
/// A and one of B per square and step of k.
pub const QUAD: usize = 4;

/// Block tile, step of k, and each warp's share of the block tile.
#[derive(Clone, Copy, Debug)]
pub struct Tiling {
    pub tile_m: u32,
    pub tile_n: u32,
    pub tile_k: u32,
    pub warp_m: u32,
    pub warp_n: u32,
}

impl Tiling {
    pub const fn threads(self) -> u32 {
        (self.tile_m / self.warp_m) * (self.tile_n / self.warp_n) * WARP_SIZE
    }

    /// Rows and columns one pass of a warp covers, with `iter_m`×`iter_n`
    /// passes per warp tile.
    const fn pass(self, iter_m: usize, iter_n: usize) -> (u32, u32) {
        (self.warp_m / iter_m as u32, self.warp_n / iter_n as u32)
    }

    /// Fails (at compile time, in a `const`) unless one pass of 4×4 squares
    /// covers exactly the 32 lanes of a warp.
    pub const fn check(self, iter_m: usize, iter_n: usize) {
        let (pass_m, pass_n) = self.pass(iter_m, iter_n);
        assert!((pass_m / QUAD as u32) * (pass_n / QUAD as u32) == WARP_SIZE, "a pass must use all 32 lanes");
        assert!(self.tile_m % self.warp_m == 0 && self.tile_n % self.warp_n == 0);
        assert!(self.tile_k % 8 == 0);
    }

    /// Shared floats for one step's A and B tiles.
    pub const fn stage_floats(self) -> u32 {
        shared_floats::<Layout>(self.tile_m, self.tile_n, self.tile_k)
    }
}

/// One thread's accumulators: `acc[mi][i][ni][j]` is row `mi*pass_m + i`,
/// column `ni*pass_n + j` of its part of the warp tile.
pub type Accumulators<const ITER_M: usize, const ITER_N: usize> = [[[[f32; QUAD]; ITER_N]; QUAD]; ITER_M];

/// Shared-memory layout of the tiles (rung 7's lesson).
pub type Layout = Swizzled;

pub const TILING: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 16, warp_m: 64, warp_n: 32 };
pub const ITER_M: usize = 2;
pub const ITER_N: usize = 2;
pub const THREADS: u32 = TILING.threads();
const _: () = TILING.check(ITER_M, ITER_N);

pub const KERNEL: super::GemmKernel = gemm_kernel!(sgemm_warptiling, launch, THREADS, 2);

pub const fn launch(m: u32, n: u32) -> LaunchShape {
    launch_for(TILING, m, n)
}

/// Launch shape of [`sgemm_warptiling_body`] for a tiling.
pub const fn launch_for(tiling: Tiling, m: u32, n: u32) -> LaunchShape {
    tiled_launch(m, n, tiling.tile_m, tiling.tile_n, tiling.threads(), float_bytes(tiling.stage_floats()))
}

/// Row and column, inside the block tile, of `thread`'s first result.
#[inline(always)]
pub fn thread_origin<const ITER_M: usize, const ITER_N: usize>(tiling: Tiling, thread: u32) -> (u32, u32) {
    let lanes_n = tiling.pass(ITER_M, ITER_N).1 / QUAD as u32;
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    let warps_n = tiling.tile_n / tiling.warp_n;
    let warp_row = (warp / warps_n) * tiling.warp_m;
    let warp_col = (warp % warps_n) * tiling.warp_n;
    (warp_row + (lane / lanes_n) * QUAD as u32, warp_col + (lane % lanes_n) * QUAD as u32)
}

/// Accumulates one `tile_k` step from the shared tiles into `acc`.
///
/// # Safety
/// The tiles must hold a full step in layout `L`.
#[inline(always)]
pub unsafe fn multiply_tile<L: SharedLayout, const ITER_M: usize, const ITER_N: usize>(
    tiling: Tiling,
    a_tile: *const f32,
    b_tile: *const f32,
    (row, col): (u32, u32),
    acc: &mut Accumulators<ITER_M, ITER_N>,
) {
    let (pass_m, pass_n) = tiling.pass(ITER_M, ITER_N);
    let a_stride = tiling.tile_m + L::ROW_PAD;
    let b_stride = tiling.tile_n + L::ROW_PAD;
    for kk in 0..tiling.tile_k {
        let mut a_frag = [[0.0f32; QUAD]; ITER_M];
        let mut b_frag = [[0.0f32; QUAD]; ITER_N];
        for (mi, frag) in a_frag.iter_mut().enumerate() {
            let col_a = row + mi as u32 * pass_m;
            *frag = unsafe { load_f32x4(a_tile.add((kk * a_stride + L::a_col(kk, col_a)) as usize)) };
        }
        for (ni, frag) in b_frag.iter_mut().enumerate() {
            let col_b = col + ni as u32 * pass_n;
            *frag = unsafe { load_f32x4(b_tile.add((kk * b_stride + L::b_col(kk, col_b)) as usize)) };
        }
        for mi in 0..ITER_M {
            for i in 0..QUAD {
                for ni in 0..ITER_N {
                    for j in 0..QUAD {
                        acc[mi][i][ni][j] = gpu::fma(a_frag[mi][i], b_frag[ni][j], acc[mi][i][ni][j]);
                    }
                }
            }
        }
    }
}

/// Writes a thread's accumulators to C at (`row`, `col`), masked at the
/// edges.
///
/// # Safety
/// `c` must be an `m`×`n` row-major matrix.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn store_accumulators<const ITER_M: usize, const ITER_N: usize>(
    tiling: Tiling,
    c: *mut f32,
    (m, n): (u32, u32),
    (row, col): (u32, u32),
    alpha: f32,
    beta: f32,
    acc: &Accumulators<ITER_M, ITER_N>,
) {
    let (pass_m, pass_n) = tiling.pass(ITER_M, ITER_N);
    for (mi, rows) in acc.iter().enumerate() {
        for (i, quads) in rows.iter().enumerate() {
            let r = row + mi as u32 * pass_m + i as u32;
            if r < m {
                for (ni, quad) in quads.iter().enumerate() {
                    unsafe { store_row4(c, n, r, col + ni as u32 * pass_n, alpha, *quad, beta) };
                }
            }
        }
    }
}

#[kernel]
pub unsafe fn sgemm_warptiling(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    unsafe { sgemm_warptiling_body::<ITER_M, ITER_N>(TILING, m, n, k, alpha, a, b, beta, c) }
}

/// Rung 9's kernel for any tiling.
///
/// # Safety
/// Must be launched with `tiling.threads()` threads and one stage of shared
/// memory for the tiling.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn sgemm_warptiling_body<const ITER_M: usize, const ITER_N: usize>(
    tiling: Tiling,
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    a: *const f32,
    b: *const f32,
    beta: f32,
    c: *mut f32,
) {
    {
        let a_tile = gpu::dynamic_shared::<f32>();
        let b_tile = unsafe { a_tile.add((tiling.tile_k * (tiling.tile_m + Layout::ROW_PAD)) as usize) };
        let thread = gpu::thread_idx().x;
        let row0 = gpu::block_idx().y * tiling.tile_m;
        let col0 = gpu::block_idx().x * tiling.tile_n;
        let origin = thread_origin::<ITER_M, ITER_N>(tiling, thread);

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
                    (tiling.tile_m, tiling.tile_n, tiling.tile_k),
                    (thread, tiling.threads()),
                );
            }
            gpu::sync_threads();
            unsafe { multiply_tile::<Layout, ITER_M, ITER_N>(tiling, a_tile, b_tile, origin, &mut acc) };
            gpu::sync_threads();
            k0 += tiling.tile_k;
        }
        unsafe { store_accumulators(tiling, c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
    }
}
