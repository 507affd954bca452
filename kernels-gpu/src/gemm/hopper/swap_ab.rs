//! The swapped GEMM of BF16 rungs 11-13: C computed as Cᵀ = Bᵀ·Aᵀ, for
//! the shapes where A has few rows.
//!
//! wgmma's M is always 64, its N anything from 8 to 256 in steps of 8. A
//! model's activations often have fewer than 64 rows (tokens), its weights
//! thousands of columns; so the weights' columns are made wgmma's M (64
//! per consumer warpgroup) and A's rows its N (`ROWS`: 16 to 128). The
//! weights' tile is wgmma's A operand stored MN-major (each 128-byte row
//! holds 64 of their columns for one k, as TMA copies B for the other
//! rungs), which wgmma reads with its transpose flag; A's rows are its B
//! operand, K-major. A thread's accumulators then hold Cᵀ: it stores them
//! to C a column at a time.
//!
//! A stage holds `ROWS` rows of A (one 128-byte row of K each), then one
//! 64-column box of the weights per consumer; a producer warpgroup fills
//! the stages by TMA. K is split into slices ([`crate::gemm::split_k`])
//! where the tiles leave SMs idle, the slices either written as partial
//! sums for a second kernel to add (persistent blocks walking units of
//! work, as rung 9) or added inside a cluster of one block per slice
//! ([`super::cluster_sum`], as rung 10).

use super::{HopperTiling, stages};
use crate::gemm::tiling::Tiling;

/// Values of K per stage: one 128-byte swizzle row of BF16.
pub const TILE_K: u32 = 64;

/// Tiles of `rows` rows of A (wgmma's N) × `64 · consumers` columns of B
/// (wgmma's M, 64 per consumer warpgroup), `stages` stages deep. In the
/// wgmma layout a warp holds 16 of the columns for all the rows, and a
/// thread 2 columns × `rows / 4` rows.
pub const fn tiling(rows: u32, consumers: u32, stages: u32) -> Tiling {
    let tiling = Tiling::block(rows, 64 * consumers, TILE_K, rows / 4, 2).with_warp_tile(rows, 16).with_stages(stages);
    tiling.check();
    tiling
}

/// Bytes of one stage: A's rows, then the weights' boxes.
pub const fn stage_bytes(tiling: Tiling) -> u32 {
    (tiling.tile_m + tiling.tile_n) * tiling.tile_k * 2
}

/// A producer warpgroup and `consumers` consumers over these tiles, C
/// stored from registers, persistent blocks walking the units (where the
/// slices are added in a cluster, only with K whole: a cluster's blocks
/// must all be resident at once, so with several slices each block takes
/// one unit; see [`super::HopperKernel::launch`]). The stages must fit
/// Hopper's 227 KB per block.
pub const fn shape(tiling: Tiling) -> HopperTiling {
    let shape = HopperTiling { tiling, stage_bytes: stage_bytes(tiling), ..stages::PERSISTENT };
    assert!(shape.shared_bytes() <= super::SHARED_BYTES_PER_BLOCK, "the stages must fit in shared memory");
    shape
}

/// Blocks of a pair ([`pairs_shape`]): two tiles stacked along M.
pub const PAIR: u32 = 2;

/// [`shape`] for pairs of tiles stacked along M that share the weights'
/// boxes: clusters of [`PAIR`] blocks.
pub const fn pairs_shape(tiling: Tiling) -> HopperTiling {
    assert!((tiling.tile_n / 64).is_multiple_of(PAIR), "each block of a pair multicasts as many boxes");
    HopperTiling { cluster: PAIR, ..shape(tiling) }
}

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::{body, pairs_body};

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::TILE_K;
    use crate::gemm::hopper::cluster_sum::ClusterSum;
    use crate::gemm::hopper::pair_position;
    use crate::gemm::hopper::ring::{Ring, first_stage};
    use crate::gemm::split_k::slice_range;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::{ATOM_BYTES, SWIZZLE_BYTES, swizzled_128};
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::wgmma::{self, SwappedAccumulators};
    use crate::gpu::hopper::{WARPGROUP_THREADS, cluster_rank, sync_cluster};

    /// One 64-column box of the weights, `TILE_K` rows of K.
    const B_BOX_BYTES: u32 = 64 * TILE_K * 2;

    /// K-tiles (of 64 values) a tensor-core accumulator sums before its
    /// sum moves into an fp32 total. The tensor cores add into their
    /// accumulator truncating, each addition losing up to a whole spacing
    /// of the running sum, so the error grows with the number of
    /// additions into one accumulator, linearly in K; a fresh accumulator
    /// every 2048 values of K keeps that number short, and the totals are
    /// added with fp32's rounding to nearest. On the H200, Qwen2.5-14B's
    /// down at M = 16 (16 × 5120 × 13824, K whole) was 5.7 times as far
    /// from the exact result as cuBLAS's (1.5e-5 against 2.6e-6), and 1.8e-6
    /// with the promotions. Each one waits for the wgmmas in flight: that
    /// shape took 3% longer (38.9 → 40.0 µs), others with deep K at M ≤ 64
    /// 0-1.6%.
    const PROMOTE_K_TILES: u32 = 32;

    /// The most accumulators per thread for which a second set, the
    /// total, fits beside them (tiles of up to 64 rows); larger tiles run
    /// at M above 64, where K is usually split and each slice is short.
    const MOST_PROMOTED: usize = 32;

    /// Shared addresses of a stage's tiles: A's `ROWS` rows, then the
    /// weights' boxes.
    #[derive(Clone, Copy)]
    struct Stages<const ROWS: u32, const CONSUMERS: u32> {
        first: u32,
    }

    impl<const ROWS: u32, const CONSUMERS: u32> Stages<ROWS, CONSUMERS> {
        const BYTES: u32 = super::stage_bytes(super::tiling(ROWS, CONSUMERS, 1));

        fn a(self, stage: u32) -> u32 {
            self.first + stage * Self::BYTES
        }
        fn b(self, stage: u32, consumer: u32) -> u32 {
            self.a(stage) + ROWS * SWIZZLE_BYTES + consumer * B_BOX_BYTES
        }
    }

    /// One unit's `k_steps` k-tiles for warpgroup `consumer`, from the
    /// ring's k-tile `*i` on (advanced past them): its 64 columns of the
    /// weights as wgmma's A (MN-major), A's rows as wgmma's B (K-major).
    ///
    /// Tiles of up to 64 rows (`ACC` ≤ [`MOST_PROMOTED`]) promote their
    /// sums: every [`PROMOTE_K_TILES`] k-tiles the accumulators are added
    /// into a total in registers and start again from zero.
    #[inline(always)]
    unsafe fn mainloop<const ROWS: u32, const CONSUMERS: u32, const ACC: usize>(
        ring: &Ring,
        tiles: Stages<ROWS, CONSUMERS>,
        consumer: u32,
        i: &mut u32,
        k_steps: u32,
    ) -> [f32; ACC]
    where
        [f32; ACC]: SwappedAccumulators,
    {
        let leader = gpu::thread_idx().x % WARPGROUP_THREADS == 0;
        let promotes = ACC <= MOST_PROMOTED;
        let mut acc = [0.0f32; ACC];
        // The sum of the promoted accumulators (only where `promotes`).
        let mut total = [0.0f32; ACC];
        for kt in 0..k_steps {
            let s = unsafe { ring.wait_full(*i) };
            wgmma::fence();
            for kk in 0..TILE_K / 16 {
                // 16 k-rows further down the weights' box; 16 values of K
                // further along each of A's 128-byte rows.
                let b = swizzled_128(tiles.b(s, consumer) + kk * 16 * SWIZZLE_BYTES, B_BOX_BYTES, ATOM_BYTES);
                let a = swizzled_128(tiles.a(s) + kk * 32, 16, ATOM_BYTES);
                unsafe { acc.mma_a_transposed(b, a) };
            }
            wgmma::commit();
            if promotes && (kt + 1) % PROMOTE_K_TILES == 0 && kt + 1 < k_steps {
                // Every wgmma so far is done: move their sum into the
                // total (rounded to nearest) and start again from zero.
                wgmma::wait::<0>();
                wgmma::fence_operands(&mut acc);
                for v in 0..ACC {
                    total[v] += acc[v];
                    acc[v] = 0.0;
                }
            } else {
                // Keep this k-tile's wgmmas running; the previous one's are
                // done, so its stage goes back to the producer.
                wgmma::wait::<1>();
            }
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
        if promotes && k_steps > PROMOTE_K_TILES {
            for v in 0..ACC {
                total[v] += acc[v];
            }
            return total;
        }
        acc
    }

    /// Writes `values` to rows `row`, `row + 1` of column `col` of the
    /// row-major `m`×`n` matrix `c`, skipping what lies outside it: a pair
    /// of Cᵀ's neighbouring columns.
    #[inline(always)]
    unsafe fn store_column_pair(values: (f32, f32), c: *mut f32, (m, n): (u32, u32), (row, col): (u32, u32)) {
        if col < n && row < m {
            let p = unsafe { c.add(row as usize * n as usize + col as usize) };
            unsafe { p.write(values.0) };
            if row + 1 < m {
                unsafe { p.add(n as usize).write(values.1) };
            }
        }
    }

    /// Stores Cᵀ's accumulators: pair `p` (wgmma's row, column) holds rows
    /// `row0 + column`, `+ 1` of C at its column `col0 + row`.
    #[inline(always)]
    unsafe fn store<const ACC: usize>(acc: &[f32; ACC], c: *mut f32, size: (u32, u32), (row0, col0): (u32, u32), thread: u32) {
        for pair in 0..ACC / 2 {
            let (along_b, along_a) = pair_position(thread, pair as u32);
            let values = (acc[2 * pair], acc[2 * pair + 1]);
            unsafe { store_column_pair(values, c, size, (row0 + along_a, col0 + along_b)) };
        }
    }

    /// The swapped GEMM over tiles of `ROWS` rows of A × `64 · CONSUMERS`
    /// columns of B, `STAGES` deep, with `ACC` = `ROWS / 2` accumulators
    /// per thread; the parameters are [`crate::gemm::hopper::SplitParams`].
    ///
    /// Without `IN_CLUSTER`, persistent blocks walk units (tile, slice):
    /// slice `s` goes to `out + s·m·n` (C itself when K is whole). With
    /// it and K in slices, block `b` computes slice `b % slices` of tile
    /// `b / slices`, is that rank of its cluster of `slices` blocks (the
    /// launch sets the size), and the cluster adds the slices into C =
    /// `out`; with K whole, clusters of one block, the blocks walk the
    /// tiles as persistent ones do and store C.
    #[inline(always)]
    pub unsafe fn body<const ROWS: u32, const CONSUMERS: u32, const STAGES: u32, const ACC: usize, const IN_CLUSTER: bool>(
        m: u32,
        n: u32,
        k: u32,
        maps: *const TensorMap,
        out: *mut f32,
        slice_k_tiles: u32,
    ) where
        [f32; ACC]: SwappedAccumulators,
    {
        const { assert!(ACC as u32 * 2 == ROWS, "a thread holds ROWS / 2 accumulators") };
        let cols = 64 * CONSUMERS;
        let stage_bytes = Stages::<ROWS, CONSUMERS>::BYTES;
        let t = gpu::thread_idx().x;
        if t == 0 {
            unsafe { tma::prefetch_maps(maps, 2) };
            // The kernel that adds the partial sums, where one follows, may
            // start beside this one's blocks: it waits for them before
            // reading. (Clustered launches have none: a no-op there.)
            crate::gpu::hopper::launch_dependents();
        }
        let tiles = Stages::<ROWS, CONSUMERS> { first: first_stage() };
        let ring = unsafe { Ring::set_up(tiles.a(STAGES), STAGES, CONSUMERS, t) };

        let k_tiles = k.div_ceil(TILE_K);
        let slices = k_tiles.div_ceil(slice_k_tiles);
        let grid = (m.div_ceil(ROWS), n.div_ceil(cols));
        let tile_count = grid.0 * grid.1;
        // With K whole there is nothing to add: each block (a cluster of
        // one) walks tiles as a persistent block does, stores C itself and
        // skips the cluster's barriers.
        let sums_in_cluster = IN_CLUSTER && slices > 1;
        // Units (tile, slice), neighbouring tiles along the weights'
        // columns; a launch that adds slices in clusters gives each block
        // one unit, its cluster the tile's slices.
        let (first, stride) = if sums_in_cluster {
            let b = gpu::block_idx().x;
            ((b % slices) * tile_count + b / slices, tile_count * slices)
        } else {
            (gpu::block_idx().x, gpu::grid_dim().x)
        };
        let units = if sums_in_cluster { first + 1 } else { tile_count * slices };
        // A unit's tile origin (row of A, column of B), slice and k-tiles.
        let unit = |u: u32| {
            let (tile, slice) = (u % tile_count, u / tile_count);
            ((tile / grid.1 * ROWS, tile % grid.1 * cols), slice, slice_range(slice, slice_k_tiles, k_tiles))
        };
        // (Only a clustered launch asks for its rank.)
        let sum = || ClusterSum::new(tiles.a(0), (slices, cluster_rank()), CONSUMERS, ACC as u32 / 4);

        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            if t == 0 {
                let mut i = 0;
                let mut u = first;
                while u < units {
                    let ((row0, col0), _, (k_begin, k_end)) = unit(u);
                    for kt in k_begin..k_end {
                        unsafe {
                            let s = ring.acquire(i, stage_bytes);
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
            if sums_in_cluster {
                sum().stand_by();
            }
            return;
        }
        let consumer = warpgroup - 1;
        let thread = t % WARPGROUP_THREADS;
        let mut i = 0;
        let mut u = first;
        while u < units {
            let ((row0, col0), slice, (k_begin, k_end)) = unit(u);
            let col0 = col0 + 64 * consumer;
            let acc = unsafe { mainloop::<ROWS, CONSUMERS, ACC>(&ring, tiles, consumer, &mut i, k_end - k_begin) };
            if sums_in_cluster {
                // Quad q holds pairs 2q and 2q + 1: C's rows row, row + 1
                // at its columns col and col + 8.
                let inside = |quad: u32| {
                    let (col, row) = pair_position(thread, 2 * quad);
                    row0 + row < m && col0 + col < n
                };
                let put = |quad: u32, v: [f32; 4]| {
                    let (col, row) = pair_position(thread, 2 * quad);
                    let (row, col) = (row0 + row, col0 + col);
                    unsafe {
                        store_column_pair((v[0], v[1]), out, (m, n), (row, col));
                        store_column_pair((v[2], v[3]), out, (m, n), (row, col + 8));
                    }
                };
                let sum = sum();
                unsafe {
                    sum.exchange(&acc, (consumer, thread), inside);
                    sum.add(ACC as u32 / 4, (consumer, thread), inside, put);
                }
            } else {
                let c = unsafe { out.add(slice as usize * m as usize * n as usize) };
                unsafe { store(&acc, c, (m, n), (row0, col0), thread) };
            }
            u += stride;
        }
    }

    /// The swapped GEMM over pairs of tiles stacked along M (`ROWS` rows
    /// of A each, `64 · CONSUMERS` columns of the weights): the two blocks
    /// of a cluster need the same boxes of the weights, so each producer
    /// copies half of them once for both (TMA multicast), and the weights
    /// cross DRAM and L2 once per pair instead of once per tile. The ring
    /// is shared by the pair ([`Ring::clustered`]). Clusters walk the
    /// units (pair, slice of K) as persistent blocks do; slice `s` of a
    /// tile goes to `out + s·m·n` (C itself when K is whole), the
    /// parameters are [`crate::gemm::hopper::SplitParams`].
    #[inline(always)]
    pub unsafe fn pairs_body<const ROWS: u32, const CONSUMERS: u32, const STAGES: u32, const ACC: usize>(
        m: u32,
        n: u32,
        k: u32,
        maps: *const TensorMap,
        out: *mut f32,
        slice_k_tiles: u32,
    ) where
        [f32; ACC]: SwappedAccumulators,
    {
        const { assert!(ACC as u32 * 2 == ROWS, "a thread holds ROWS / 2 accumulators") };
        const { assert!(CONSUMERS.is_multiple_of(super::PAIR), "each block multicasts as many boxes") };
        let boxes_each = CONSUMERS / super::PAIR;
        let both_blocks: u16 = (1 << super::PAIR) - 1;
        let cols = 64 * CONSUMERS;
        let a_bytes = ROWS * TILE_K * 2;
        let t = gpu::thread_idx().x;
        if t == 0 {
            unsafe { tma::prefetch_maps(maps, 2) };
            // The kernel that adds the slices, where one follows, may start
            // beside this one's blocks: it waits for them before reading.
            crate::gpu::hopper::launch_dependents();
        }
        let tiles = Stages::<ROWS, CONSUMERS> { first: first_stage() };
        let ring = Ring::clustered(tiles.a(STAGES), STAGES, super::PAIR);
        if t == 0 {
            unsafe { ring.init(CONSUMERS) };
        }
        // Both blocks' barriers exist before either producer multicasts or
        // either consumer arrives remotely.
        sync_cluster();
        let rank = cluster_rank();
        let k_tiles = k.div_ceil(TILE_K);
        let slices = k_tiles.div_ceil(slice_k_tiles);
        let grid = (m.div_ceil(ROWS * super::PAIR), n.div_ceil(cols));
        let pairs = grid.0 * grid.1;
        let (first, stride) = (gpu::block_idx().x / super::PAIR, gpu::grid_dim().x / super::PAIR);
        // This block's tile of unit `u`, its slice and k-tiles: neighbouring
        // pairs along the weights' columns, then the next slice.
        let unit = |u: u32| {
            let (p, slice) = (u % pairs, u / pairs);
            let origin = ((p / grid.1 * super::PAIR + rank) * ROWS, p % grid.1 * cols);
            (origin, slice, slice_range(slice, slice_k_tiles, k_tiles))
        };
        let units = pairs * slices;
        let warpgroup = t / WARPGROUP_THREADS;
        if warpgroup == 0 {
            if t == 0 {
                let (mut i, mut u) = (0, first);
                while u < units {
                    let ((row0, col0), _, (k_begin, k_end)) = unit(u);
                    // A tile wholly below M copies no A; its stores skip it.
                    let a = if row0 < m { a_bytes } else { 0 };
                    for kt in k_begin..k_end {
                        unsafe {
                            let s = ring.acquire(i, Stages::<ROWS, CONSUMERS>::BYTES - a_bytes + a);
                            if a > 0 {
                                tma::load_2d(tiles.a(s), maps, ring.full(s), kt * TILE_K, row0);
                            }
                            for j in 0..boxes_each {
                                let b = rank * boxes_each + j;
                                tma::load_2d_multicast(tiles.b(s, b), maps.add(1), ring.full(s), col0 + 64 * b, kt * TILE_K, both_blocks);
                            }
                        }
                        i += 1;
                    }
                    u += stride;
                }
            }
        } else {
            let consumer = warpgroup - 1;
            let thread = t % WARPGROUP_THREADS;
            let (mut i, mut u) = (0, first);
            while u < units {
                let ((row0, col0), slice, (k_begin, k_end)) = unit(u);
                let acc = unsafe { mainloop::<ROWS, CONSUMERS, ACC>(&ring, tiles, consumer, &mut i, k_end - k_begin) };
                let c = unsafe { out.add(slice as usize * m as usize * n as usize) };
                unsafe { store(&acc, c, (m, n), (row0, col0 + 64 * consumer), thread) };
                u += stride;
            }
        }
        // Neither block may exit while the other can still arrive on its
        // barriers or multicast into its shared memory.
        sync_cluster();
    }
}
