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
        pub const EXPLORE: &[super::GemmKernel] = &[X1_U32, X2_U32, super::r05_blocktile_2d::SCALAR_B, super::r05_blocktile_2d::UNBOUNDED, X9_C8, X9_C16, $(
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
