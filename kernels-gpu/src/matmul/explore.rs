//! Temporary: candidate shapes for rung 10, timed once on the GPU.
use super::r09_warptiling::Tiling;
use super::r10_double_buffered::{check, launch_for, sgemm_async_body};

macro_rules! candidates {
    ($($name:ident: $tiling:expr, $im:literal x $in:literal, $stages:literal stages, $blocks:literal;)*) => {
        $(
            kernel! {
                pub fn $name(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
                    unsafe { sgemm_async_body::<$im, $in, $stages>($tiling, m, n, k, alpha, a, b, beta, c) }
                }
            }
        )*
        $(const _: () = check($tiling, $im, $in);)*
        pub const EXPLORE: &[super::GemmKernel] = &[X1_U32, X2_U32, super::r05_blocktile_2d::SCALAR_B, super::r05_blocktile_2d::UNBOUNDED, super::r05_blocktile_2d::FAST_SCALAR_B, super::r05_blocktile_2d::FAST_VECTOR_B, X9_C8, X9_C16, $(
            gemm_kernel!($name, |m, n| launch_for($tiling, $stages, m, n), $tiling.threads(), $blocks)
        ),*];
    };
}

const A: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 16, warp_m: 64, warp_n: 32 };
const A8: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 8, warp_m: 64, warp_n: 32 };
const C8: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 8, warp_m: 64, warp_n: 64 };
const C16: Tiling = Tiling { tile_m: 128, tile_n: 128, tile_k: 16, warp_m: 64, warp_n: 64 };
const D: Tiling = Tiling { tile_m: 128, tile_n: 256, tile_k: 16, warp_m: 64, warp_n: 64 };
const D8: Tiling = Tiling { tile_m: 128, tile_n: 256, tile_k: 8, warp_m: 64, warp_n: 64 };

candidates! {
    x10_a_s3_b2: A, 2 x 2, 3 stages, 2;
    x10_a8_s4_b2: A8, 2 x 2, 4 stages, 2;
    x10_c8_s3_b2: C8, 2 x 4, 3 stages, 2;
    x10_c8_s6_b2: C8, 2 x 4, 6 stages, 2;
    x10_c16_s3_b2: C16, 2 x 4, 3 stages, 2;
    x10_c16_s4_b1: C16, 2 x 4, 4 stages, 1;
    x10_d_s3_b1: D, 2 x 4, 3 stages, 1;
    x10_d8_s4_b1: D8, 2 x 4, 4 stages, 1;
}

pub const X9_C8: super::GemmKernel =
    gemm_kernel!(x9_c8, |m, n| super::r09_warptiling::launch_for(C8, m, n), C8.threads(), 2);
pub const X9_C16: super::GemmKernel =
    gemm_kernel!(x9_c16, |m, n| super::r09_warptiling::launch_for(C16, m, n), C16.threads(), 2);
kernel! {
    pub fn x9_c8(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        unsafe { super::r09_warptiling::sgemm_warptiling_body::<2, 4>(C8, m, n, k, alpha, a, b, beta, c) }
    }
}
kernel! {
    pub fn x9_c16(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        unsafe { super::r09_warptiling::sgemm_warptiling_body::<2, 4>(C16, m, n, k, alpha, a, b, beta, c) }
    }
}

use super::epilogue::store_scalar;
use crate::gpu;

use super::epilogue::store_row4;
use super::r06_vectorized::SharedLayout;
use super::r07_bank_conflicts::Swizzled;
use super::r09_warptiling::{Accumulators, QUAD, multiply_tile, store_accumulators, thread_origin};
use crate::gpu::{cp_async_4, cp_async_16, cp_async_commit, cp_async_wait, load_f32x4};
use crate::gpu::WARP_SIZE;

fn wait<const STAGES: u32>() {
    match STAGES {
        2 => cp_async_wait::<0>(),
        3 => cp_async_wait::<1>(),
        4 => cp_async_wait::<2>(),
        _ => cp_async_wait::<0>(),
    }
}

/// V1: lanes along k (8 per row), swizzled k-major A tile, interior path unmasked.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copies_v1(t: Tiling, stage: *mut f32, (a, b): (*const f32, *const f32), (m, n, k): (u32, u32, u32), (row0, col0, k0): (u32, u32, u32), thread: u32, interior: bool) {
    let threads = t.threads();
    let a_tile = stage;
    let b_tile = unsafe { stage.add((t.tile_k * t.tile_m) as usize) };
    for i in 0..t.tile_m * t.tile_k / threads {
        let e = thread + i * threads;
        let kk = (e % 8) + (e / (8 * t.tile_m)) * 8;
        let row = (e / 8) % t.tile_m;
        let dst = unsafe { a_tile.add((kk * t.tile_m + Swizzled::a_col(kk, row)) as usize) };
        let (gr, gk) = (row0 + row, k0 + kk);
        if interior {
            unsafe { cp_async_4(dst, a.add(gr as usize * k as usize + gk as usize), 4) };
        } else {
            let inside = gr < m && gk < k;
            let src = if inside { unsafe { a.add(gr as usize * k as usize + gk as usize) } } else { a };
            unsafe { cp_async_4(dst, src, if inside { 4 } else { 0 }) };
        }
    }
    copies_b::<Swizzled>(t, b_tile, b, (n, k), (col0, k0), thread, interior);
}

#[inline(always)]
fn copies_b<L: SharedLayout>(t: Tiling, b_tile: *mut f32, b: *const f32, (n, k): (u32, u32), (col0, k0): (u32, u32), thread: u32, interior: bool) {
    let threads = t.threads();
    for i in 0..t.tile_k * t.tile_n / 4 / threads {
        let q = thread + i * threads;
        let r = q / (t.tile_n / 4);
        let col = (q % (t.tile_n / 4)) * 4;
        let (gr, gc) = (k0 + r, col0 + col);
        let dst = unsafe { b_tile.add((r * t.tile_n + L::b_col(r, col)) as usize) };
        if interior {
            unsafe { cp_async_16(dst, b.add(gr as usize * n as usize + gc as usize), 16) };
        } else if n % 4 == 0 {
            let valid = if gr < k && gc < n { (n - gc).min(4) } else { 0 };
            let src = if valid > 0 { unsafe { b.add(gr as usize * n as usize + gc as usize) } } else { b };
            unsafe { cp_async_16(dst, src, valid * 4) };
        } else {
            for j in 0..4 {
                let inside = gr < k && gc + j < n;
                let src = if inside { unsafe { b.add(gr as usize * n as usize + (gc + j) as usize) } } else { b };
                unsafe { cp_async_4(dst.add(j as usize), src, if inside { 4 } else { 0 }) };
            }
        }
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body_v1<const ITER_M: usize, const ITER_N: usize, const STAGES: u32>(t: Tiling, m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let shared = gpu::dynamic_shared::<f32>();
    let stage_floats = t.tile_k * (t.tile_m + t.tile_n);
    let stage = |s: u32| unsafe { shared.add((s * stage_floats) as usize) };
    let thread = gpu::thread_idx().x;
    let row0 = gpu::block_idx().y * t.tile_m;
    let col0 = gpu::block_idx().x * t.tile_n;
    let origin = thread_origin::<ITER_M, ITER_N>(t, thread);
    let steps = k.div_ceil(t.tile_k);
    let full = row0 + t.tile_m <= m && col0 + t.tile_n <= n && n % 4 == 0;
    let copy = |s: u32, step: u32| {
        let k0 = step * t.tile_k;
        unsafe { copies_v1(t, stage(s), (a, b), (m, n, k), (row0, col0, k0), thread, full && k0 + t.tile_k <= k) }
    };
    for s in 0..STAGES - 1 {
        if s < steps {
            copy(s, s);
        }
        cp_async_commit();
    }
    let mut acc: Accumulators<ITER_M, ITER_N> = [[[[0.0; QUAD]; ITER_N]; QUAD]; ITER_M];
    for step in 0..steps {
        wait::<STAGES>();
        gpu::sync_threads();
        let next = step + STAGES - 1;
        if next < steps {
            copy(next % STAGES, next);
        }
        cp_async_commit();
        let cur = stage(step % STAGES);
        unsafe { multiply_tile::<Swizzled, ITER_M, ITER_N>(t, cur, cur.add((t.tile_k * t.tile_m) as usize), origin, &mut acc) };
    }
    unsafe { store_accumulators(t, c, (m, n), (row0 + origin.0, col0 + origin.1), alpha, beta, &acc) };
}

/// V2: A row-major in shared memory (rows padded by 4 floats), 16-byte copies;
/// a thread's rows are 8 apart so a warp's 128-bit A reads hit 8 consecutive rows.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body_v2<const ITER_M: usize, const ITER_N: usize, const STAGES: u32>(t: Tiling, m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
    let a_stride = t.tile_k + 4;
    let stage_floats = t.tile_m * a_stride + t.tile_k * t.tile_n;
    let shared = gpu::dynamic_shared::<f32>();
    let stage = |s: u32| unsafe { shared.add((s * stage_floats) as usize) };
    let thread = gpu::thread_idx().x;
    let threads = t.threads();
    let row0 = gpu::block_idx().y * t.tile_m;
    let col0 = gpu::block_idx().x * t.tile_n;
    let (pass_m, pass_n) = (t.warp_m / ITER_M as u32, t.warp_n / ITER_N as u32);
    let lanes_n = pass_n / QUAD as u32;
    let lanes_m = pass_m / QUAD as u32;
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    let warps_n = t.tile_n / t.warp_n;
    let row_base = (warp / warps_n) * t.warp_m + lane / lanes_n;
    let col_base = (warp % warps_n) * t.warp_n + (lane % lanes_n) * QUAD as u32;
    let row_of = |mi: usize, i: usize| row_base + mi as u32 * pass_m + i as u32 * lanes_m;
    let steps = k.div_ceil(t.tile_k);
    let full = row0 + t.tile_m <= m && col0 + t.tile_n <= n && n % 4 == 0 && k % 4 == 0;
    let copy = |s: u32, step: u32| {
        let k0 = step * t.tile_k;
        let interior = full && k0 + t.tile_k <= k;
        let a_tile = stage(s);
        let b_tile = unsafe { a_tile.add((t.tile_m * a_stride) as usize) };
        for i in 0..t.tile_m * t.tile_k / 4 / threads {
            let q = thread + i * threads;
            let row = q / (t.tile_k / 4);
            let kc = (q % (t.tile_k / 4)) * 4;
            let dst = unsafe { a_tile.add((row * a_stride + kc) as usize) };
            let (gr, gk) = (row0 + row, k0 + kc);
            let src = unsafe { a.add(gr as usize * k as usize + gk as usize) };
            if interior {
                unsafe { cp_async_16(dst, src, 16) };
            } else if k % 4 == 0 {
                let valid = if gr < m && gk < k { (k - gk).min(4) } else { 0 };
                unsafe { cp_async_16(dst, if valid > 0 { src } else { a }, valid * 4) };
            } else {
                for j in 0..4 {
                    let inside = gr < m && gk + j < k;
                    unsafe { cp_async_4(dst.add(j as usize), if inside { src.add(j as usize) } else { a }, if inside { 4 } else { 0 }) };
                }
            }
        }
        copies_b::<super::r06_vectorized::Plain>(t, b_tile, b, (n, k), (col0, k0), thread, interior);
    };
    for s in 0..STAGES - 1 {
        if s < steps {
            copy(s, s);
        }
        cp_async_commit();
    }
    let mut acc: Accumulators<ITER_M, ITER_N> = [[[[0.0; QUAD]; ITER_N]; QUAD]; ITER_M];
    for step in 0..steps {
        wait::<STAGES>();
        gpu::sync_threads();
        let next = step + STAGES - 1;
        if next < steps {
            copy(next % STAGES, next);
        }
        cp_async_commit();
        let a_tile = stage(step % STAGES);
        let b_tile = unsafe { a_tile.add((t.tile_m * a_stride) as usize) };
        for kc in (0..t.tile_k).step_by(4) {
            let mut a_chunk = [[[0.0f32; 4]; QUAD]; ITER_M];
            for mi in 0..ITER_M {
                for i in 0..QUAD {
                    a_chunk[mi][i] = unsafe { load_f32x4(a_tile.add((row_of(mi, i) * a_stride + kc) as usize)) };
                }
            }
            for kq in 0..4 {
                let mut b_frag = [[0.0f32; QUAD]; ITER_N];
                for ni in 0..ITER_N {
                    b_frag[ni] = unsafe { load_f32x4(b_tile.add(((kc + kq as u32) * t.tile_n + col_base + ni as u32 * pass_n) as usize)) };
                }
                for mi in 0..ITER_M {
                    for i in 0..QUAD {
                        for ni in 0..ITER_N {
                            for j in 0..QUAD {
                                acc[mi][i][ni][j] = gpu::fma(a_chunk[mi][i][kq], b_frag[ni][j], acc[mi][i][ni][j]);
                            }
                        }
                    }
                }
            }
        }
    }
    for mi in 0..ITER_M {
        for i in 0..QUAD {
            let r = row0 + row_of(mi, i);
            if r < m {
                for ni in 0..ITER_N {
                    unsafe { store_row4(c, n, r, col0 + col_base + ni as u32 * pass_n, alpha, acc[mi][i][ni], beta) };
                }
            }
        }
    }
}

const fn launch_v1(t: Tiling, stages: u32, m: u32, n: u32) -> super::LaunchShape {
    super::tiled_launch(m, n, t.tile_m, t.tile_n, t.threads(), super::float_bytes(stages * t.tile_k * (t.tile_m + t.tile_n)))
}
const fn launch_v2(t: Tiling, stages: u32, m: u32, n: u32) -> super::LaunchShape {
    super::tiled_launch(m, n, t.tile_m, t.tile_n, t.threads(), super::float_bytes(stages * (t.tile_m * (t.tile_k + 4) + t.tile_k * t.tile_n)))
}

macro_rules! variants {
    ($($name:ident: $body:ident, $launch:ident, $tiling:expr, $im:literal x $in:literal, $stages:literal stages, $blocks:literal;)*) => {
        $(
            kernel! {
                pub fn $name(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
                    unsafe { $body::<$im, $in, $stages>($tiling, m, n, k, alpha, a, b, beta, c) }
                }
            }
        )*
        pub const VARIANTS: &[super::GemmKernel] = &[$(
            gemm_kernel!($name, |m, n| $launch($tiling, $stages, m, n), $tiling.threads(), $blocks)
        ),*];
    };
}

variants! {
    v1_a_s3: body_v1, launch_v1, A, 2 x 2, 3 stages, 2;
    v1_c8_s4: body_v1, launch_v1, C8, 2 x 4, 4 stages, 2;
    v1_c16_s3: body_v1, launch_v1, C16, 2 x 4, 3 stages, 2;
    v1_d8_s4: body_v1, launch_v1, D8, 2 x 4, 4 stages, 1;
    v2_a_s3: body_v2, launch_v2, A, 2 x 2, 3 stages, 2;
    v2_c8_s4: body_v2, launch_v2, C8, 2 x 4, 4 stages, 2;
    v2_c16_s3: body_v2, launch_v2, C16, 2 x 4, 3 stages, 2;
    v2_c16_s4: body_v2, launch_v2, C16, 2 x 4, 4 stages, 2;
    v2_d8_s4: body_v2, launch_v2, D8, 2 x 4, 4 stages, 1;
}

pub const X1_U32: super::GemmKernel = gemm_kernel!(x1_u32, super::r01_naive::launch);
pub const X2_U32: super::GemmKernel = gemm_kernel!(x2_u32, super::r02_coalesced::launch);

kernel! {
    pub fn x1_u32(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        let row = gpu::global_x();
        let col = gpu::global_y();
        if row < m && col < n {
            let mut acc = 0.0f32;
            for i in 0..k {
                unsafe { acc = gpu::fma(*a.add((row * k + i) as usize), *b.add((i * n + col) as usize), acc) };
            }
            unsafe { store_scalar(c, (row * n + col) as usize, alpha, acc, beta) };
        }
    }
}

kernel! {
    pub fn x2_u32(m: u32, n: u32, k: u32, alpha: f32, a: *const f32, b: *const f32, beta: f32, c: *mut f32) {
        let t = gpu::thread_idx().x;
        let row = gpu::block_idx().x * 32 + t / 32;
        let col = gpu::block_idx().y * 32 + t % 32;
        if row < m && col < n {
            let mut acc = 0.0f32;
            for i in 0..k {
                unsafe { acc = gpu::fma(*a.add((row * k + i) as usize), *b.add((i * n + col) as usize), acc) };
            }
            unsafe { store_scalar(c, (row * n + col) as usize, alpha, acc, beta) };
        }
    }
}
