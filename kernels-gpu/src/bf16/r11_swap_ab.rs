// ANCHOR: rung
//! BF16 rung 11: few rows of A, the weights as wgmma's M (A and B swapped).
//!
//! What changed from rungs 9 and 10, and why it is faster at M ≤ 16: their
//! tiles have 128 rows of A, wgmma's M being 64 per warpgroup. With 16
//! tokens, 112 of those rows are zeros that TMA still writes into every
//! stage: a third of each 48 KB stage, so only four stages fit, 128 KB of
//! weights in flight per SM, and the weights stream at about two thirds of
//! DRAM's rate. Here the product is computed transposed, Cᵀ = Bᵀ·Aᵀ: the
//! weights' columns are wgmma's M (64 per consumer warpgroup, 128 per
//! block) and the 16 rows of A are its N (`m64n16k16`; N may be as small
//! as 8). A stage is then 16 KB of weights and 2 KB of A, and 12 of them
//! fit: 192 KB of weights in flight per SM.
//!
//! The weights' tiles are wgmma's A operand stored MN-major (each 128-byte
//! row holds 64 of their columns for one k, as TMA copies B), which wgmma
//! reads with its transpose flag; A's rows are its B operand, K-major. The
//! accumulators hold Cᵀ: each thread stores its values to C column by
//! column. K is split as in rung 9 ([`crate::gemm::split_k`]) when the
//! tiles (128 columns each) leave SMs idle.

use crate::gemm::hopper::{Entry, HopperKernel, HopperTiling, stages};
use crate::gemm::tiling::Tiling;
use kernels_macros::kernel;

/// 16 rows of A (wgmma's N) × 128 columns of B (two consumer warpgroups of
/// wgmma's M = 64), 64 values of K per stage, 12 stages. Each warp holds 16
/// columns of B × 16 rows of A; each thread 2 rows × 4 columns.
pub const TILING: Tiling = Tiling::block(16, 128, 64, 2, 4).with_warp_tile(16, 16).with_stages(12);
const _: () = TILING.check();
/// A's 16 rows (one 128-byte row of K each), then B's two 64-column boxes.
pub const STAGE_BYTES: u32 = (TILING.tile_m + TILING.tile_n) * TILING.tile_k * 2;

/// Rung 9's persistent shape (a producer warpgroup and two consumers, C
/// stored from registers) over these tiles and stages.
const SHAPE: HopperTiling = HopperTiling { tiling: TILING, stage_bytes: STAGE_BYTES, ..stages::PERSISTENT };

// Twelve stages fit in Hopper's 227 KB of shared memory per block.
const _: () = assert!(SHAPE.shared_bytes() <= 227 * 1024);

pub const SWAP_AB: HopperKernel = HopperKernel { entry: Entry::Bf16Split(BF16_WGMMA_SWAP_AB), tiling: SHAPE };

/// As [`super::r09_split_k::bf16_wgmma_split_k`], over tiles of 16 rows
/// of A × 128 columns of B, computed as Cᵀ.
#[kernel(sm_90a, bounds(SHAPE.threads(), 1))]
pub unsafe fn bf16_wgmma_swap_ab(m: u32, n: u32, k: u32, maps: *const u64, partial: *mut f32, slice_k_tiles: u32) {
    unsafe { device::body(m, n, k, maps.cast(), partial, slice_k_tiles) }
}
// ANCHOR_END: rung

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::{STAGE_BYTES, TILING};
    use crate::gemm::hopper::pair_position;
    use crate::gemm::hopper::ring::{Ring, first_stage};
    use crate::gemm::split_k::slice_range;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, SWIZZLE_BYTES, swizzled_128};
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{WARPGROUP_THREADS, wgmma};

    const ROWS: u32 = TILING.tile_m;
    const COLS: u32 = TILING.tile_n;
    const TILE_K: u32 = TILING.tile_k;
    const STAGES: u32 = TILING.stages;
    const CONSUMERS: u32 = COLS / 64;
    /// One 64-column box of B (64 rows of K).
    const B_BOX_BYTES: u32 = 64 * TILE_K * 2;

    /// Shared addresses of a stage's tiles: A's rows, then B's boxes.
    #[derive(Clone, Copy)]
    struct Stages {
        first: u32,
    }

    impl Stages {
        fn a(self, stage: u32) -> u32 {
            self.first + stage * STAGE_BYTES
        }
        fn b(self, stage: u32, consumer: u32) -> u32 {
            self.a(stage) + ROWS * SWIZZLE_BYTES + consumer * B_BOX_BYTES
        }
    }

    /// One unit's k-tiles for warpgroup `consumer`: its 64 columns of B as
    /// wgmma's A (MN-major), A's 16 rows as wgmma's B (K-major).
    #[inline(always)]
    unsafe fn mainloop(ring: &Ring, tiles: Stages, consumer: u32, i: &mut u32, k_steps: u32) -> [f32; 8] {
        let leader = gpu::thread_idx().x % WARPGROUP_THREADS == 0;
        let mut acc = [0.0f32; 8];
        for kt in 0..k_steps {
            let s = unsafe { ring.wait_full(*i) };
            wgmma::fence();
            for kk in 0..TILE_K / 16 {
                // 16 k-rows further down B's box; 16 values of K further
                // along each of A's 128-byte rows.
                let b = swizzled_128(tiles.b(s, consumer) + kk * 16 * SWIZZLE_BYTES, B_BOX_BYTES, ATOM_BYTES);
                let a = swizzled_128(tiles.a(s) + kk * 32, 16, ATOM_BYTES);
                unsafe { wgmma::mma_bf16_m64n16k16_a_transposed(&mut acc, b, a, true) };
            }
            wgmma::commit();
            wgmma::wait::<1>();
            if kt > 0 && leader {
                unsafe { ring.release(*i - 1) };
            }
            *i += 1;
        }
        wgmma::wait::<0>();
        wgmma::fence_operands(&mut acc);
        if k_steps > 0 && leader {
            unsafe { ring.release(*i - 1) };
        }
        acc
    }

    /// Stores Cᵀ's accumulators: pair `p` holds rows `row`, `row + 1` of C
    /// (wgmma's columns) at column `col` of C (wgmma's row).
    #[inline(always)]
    unsafe fn store(acc: &[f32; 8], out: *mut f32, (m, n): (u32, u32), (row0, col0): (u32, u32), thread: u32) {
        for pair in 0..4 {
            let (along_b, along_a) = pair_position(thread, pair as u32);
            let (col, row) = (col0 + along_b, row0 + along_a);
            if col < n {
                for r in 0..2 {
                    if row + (r as u32) < m {
                        unsafe { out.add((row as usize + r) * n as usize + col as usize).write(acc[2 * pair + r]) };
                    }
                }
            }
        }
    }

    #[inline(always)]
    pub unsafe fn body(m: u32, n: u32, k: u32, maps: *const TensorMap, c: *mut f32, slice_k_tiles: u32) {
        let t = gpu::thread_idx().x;
        let tiles = Stages { first: first_stage() };
        let ring = unsafe { Ring::set_up(tiles.a(STAGES), STAGES, CONSUMERS, t) };

        let k_tiles = k.div_ceil(TILE_K);
        let grid = (m.div_ceil(ROWS), n.div_ceil(COLS));
        let tile_count = grid.0 * grid.1;
        let units = tile_count * k_tiles.div_ceil(slice_k_tiles);
        let (first, stride) = (gpu::block_idx().x, gpu::grid_dim().x);
        // A unit's tile origin (row of A, column of B), slice and k-tiles;
        // neighbouring units take neighbouring columns of B.
        let unit = |u: u32| {
            let (tile, slice) = (u % tile_count, u / tile_count);
            ((tile / grid.1 * ROWS, tile % grid.1 * COLS), slice, slice_range(slice, slice_k_tiles, k_tiles))
        };
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            if t == 0 {
                let mut i = 0;
                let mut u = first;
                while u < units {
                    let ((row0, col0), _, (k_begin, k_end)) = unit(u);
                    for kt in k_begin..k_end {
                        unsafe {
                            let s = ring.acquire(i, STAGE_BYTES);
                            tma::load_2d(tiles.a(s), maps, ring.full(s), kt * TILE_K, row0);
                            for box_ in 0..CONSUMERS {
                                tma::load_2d(tiles.b(s, box_), maps.add(1), ring.full(s), col0 + 64 * box_, kt * TILE_K);
                            }
                        }
                        i += 1;
                    }
                    u += stride;
                }
            }
            return;
        }
        let consumer = warpgroup - 1;
        let thread = t % WARPGROUP_THREADS;
        let mut i = 0;
        let mut u = first;
        while u < units {
            let ((row0, col0), slice, (k_begin, k_end)) = unit(u);
            let acc = unsafe { mainloop(&ring, tiles, consumer, &mut i, k_end - k_begin) };
            let out = unsafe { c.add(slice as usize * m as usize * n as usize) };
            unsafe { store(&acc, out, (m, n), (row0, col0 + 64 * consumer), thread) };
            u += stride;
        }
    }
}
