//! The one tile vocabulary: what each rung's `Tiling` derives (threads,
//! shared memory, launch shape) agrees with the kernels' documented shapes.

use kernels_gpu::gemm::split_k::{
    ClusterSlots, KSlices, MIN_SLICE_K_TILES, MOST_CLUSTER_SLICES, SUM_THREADS, slice_range, sum_lanes, sum_launch,
};
use kernels_gpu::gemm::tiling::Tiling;
use kernels_gpu::launch::Dim3;
use kernels_gpu::sgemm::{r04_blocktile_1d as r04, r05_blocktile_2d as r05, r06_vectorized as r06, r08_autotuned as r08};
use kernels_gpu::sgemm::{r09_warptiling as r09, r10_async_pipeline as r10, r11_tensor_cores as r11};

#[test]
fn threads_come_from_the_thread_tiles() {
    assert_eq!(r04::THREADS, 512);
    for tiling in [r05::TILING, r06::TILING, r09::TILING, r10::TILING, r11::TILING] {
        assert_eq!(tiling.threads(), 256, "{tiling:?}");
    }
    // With warp tiles, the count by warps agrees.
    for tiling in [r09::TILING, r10::TILING, r11::TILING] {
        assert_eq!((tiling.tile_m / tiling.warp_m) * (tiling.tile_n / tiling.warp_n) * 32, tiling.threads());
    }
}

#[test]
fn launch_shapes_cover_c_with_block_tiles() {
    // Rung 10: 128×256 tiles, 4 stages of (8×128 + 8×256) floats = 48 KB.
    let shape = r10::launch(1000, 4097);
    assert_eq!((shape.grid, shape.block), (Dim3::new(17, 8, 1), Dim3::new(256, 1, 1)));
    assert_eq!(shape.shared_bytes, 4 * (8 * 128 + 8 * 256) * 4);
    // Rung 9: one stage of 16×128 + 16×128 floats.
    let shape = r09::launch(1, 17);
    assert_eq!((shape.grid, shape.shared_bytes), (Dim3::new(1, 1, 1), (16 * 128 * 2) * 4));
    // The tiling's own launch uses x for columns of C, y for rows.
    let shape = Tiling::block(64, 32, 8, 4, 4).launch(65, 33, 10);
    assert_eq!((shape.grid, shape.block, shape.shared_bytes), (Dim3::new(2, 2, 1), Dim3::new(128, 1, 1), 40));
    let shape = Tiling::block(64, 32, 8, 4, 4).with_stages(3).launch(1, 1, 10);
    assert_eq!(shape.shared_bytes, 120);
}

#[test]
fn every_autotuned_candidate_launches_its_own_tiling() {
    for config in r08::CONFIGS {
        let shape = (config.kernel.launch)(4096, 4096);
        let tiling = config.tiling;
        assert_eq!(shape.block.x, tiling.threads(), "{}", config.kernel.name());
        assert_eq!((shape.grid.x, shape.grid.y), (4096 / tiling.tile_n, 4096 / tiling.tile_m), "{}", config.kernel.name());
        assert_eq!(shape.shared_bytes, 4 * tiling.tile_k * (tiling.tile_m + tiling.tile_n), "{}", config.kernel.name());
        assert!(config.kernel.name().contains(&format!("{}x{}x{}_", tiling.tile_m, tiling.tile_n, tiling.tile_k)));
    }
}

/// B's bytes per k-tile of the BF16 rungs (64 x 256 bf16) and one tile's
/// partial C (rows x 256 fp32).
const KB: u32 = 64 * 256 * 2;
const TILE: fn(u32) -> u32 = |rows| rows * 256 * 4;

#[test]
fn few_tiles_fill_one_wave() {
    // Llama-3-8B's o projection at M = 16: 16 tiles of 128x256, K = 4096
    // in 64 k-tiles: 8 slices of 8, 128 units on 132 SMs.
    assert_eq!(KSlices::plan(16, 64, 132, KB, TILE(16)), KSlices { count: 8, k_tiles: 8 });
    // qkv at M = 128: 24 tiles, 5 slices of 13 (the last 12): 11 slices
    // would need two rounds, and the partial sums of 128 rows cost more.
    assert_eq!(KSlices::plan(24, 64, 132, KB, TILE(128)), KSlices { count: 5, k_tiles: 13 });
    // 64x64x65536: one tile, 1024 k-tiles over 128 slices of 8.
    assert_eq!(KSlices::plan(1, 1024, 132, KB, 64 * 64 * 4), KSlices { count: 128, k_tiles: 8 });
}

/// gate_up at M = 1: 112 tiles leave 20 SMs idle, but cutting K into 8
/// slices would deal 896 short units, 7 per SM, each paying its start:
/// K stays whole. Down at M = 1 (16 tiles, K = 14336) is cut in 8.
#[test]
fn a_partial_wave_is_not_worth_many_short_units() {
    assert_eq!(KSlices::plan(112, 64, 132, KB, TILE(1)), KSlices::whole(64));
    assert_eq!(KSlices::plan(16, 224, 132, KB, TILE(1)), KSlices { count: 8, k_tiles: 28 });
}

#[test]
fn many_tiles_or_short_k_keep_k_whole() {
    assert_eq!(KSlices::plan(132, 64, 132, KB, TILE(128)), KSlices::whole(64));
    assert_eq!(KSlices::plan(1056, 64, 132, KB, TILE(128)), KSlices::whole(64));
    // qkv at M = 1024: 192 tiles, a wave and a half: K whole.
    assert_eq!(KSlices::plan(192, 64, 132, KB, TILE(128)), KSlices::whole(64));
    assert_eq!(KSlices::plan(1, 7, 132, KB, TILE(128)), KSlices::whole(7));
    assert_eq!(KSlices::plan(1, 8, 132, KB, TILE(1)), KSlices { count: 2, k_tiles: 4 });
}

/// The H200's clusters of 1 to 8 one-per-SM blocks that run at once, as
/// its driver reports them (`ptx-ladder info`).
const H200: ClusterSlots = ClusterSlots([132, 66, 39, 30, 22, 17, 15, 15]);

/// Slices added in a cluster: at most 8 (one block each), and only as many
/// clusters as fit at once count as one round.
#[test]
fn cluster_cuts_fit_the_clusters_that_run_at_once() {
    // o at M = 16: 16 tiles. 16 clusters of 8 would fit if the SMs packed
    // (132 / 8 = 16), but 15 do: 6 slices (17 clusters of 6 fit).
    assert_eq!(KSlices::plan_in_cluster(16, 64, ClusterSlots::packed(132), KB, TILE(16)), KSlices { count: 8, k_tiles: 8 });
    assert_eq!(KSlices::plan_in_cluster(16, 64, H200, KB, TILE(16)), KSlices { count: 6, k_tiles: 11 });
    // One tile and a deep K: still no more than a cluster's 8.
    assert_eq!(KSlices::plan_in_cluster(1, 1024, H200, KB, 64 * 64 * 4), KSlices { count: 8, k_tiles: 128 });
    // A wave of tiles or more: K whole, as without clusters.
    assert_eq!(KSlices::plan_in_cluster(132, 64, H200, KB, TILE(128)), KSlices::whole(64));
    // 40 tiles: clusters of 2 in one round (32 k-tiles each) beat 40
    // blocks walking all 64, and clusters of 5 in two rounds of 22 and 18
    // (13 k-tiles each, and the SMs' pipelines restarting between them).
    assert_eq!(KSlices::plan_in_cluster(40, 64, H200, KB, TILE(128)), KSlices { count: 2, k_tiles: 32 });
    // With ten times the k-tiles a restart is small beside a round: two
    // rounds of clusters of 5 or more.
    let deep = KSlices::plan_in_cluster(40, 640, H200, KB, TILE(128));
    assert!(deep.count >= 5 && 40 > H200.of(deep.count), "{deep:?}");
    for tiles in 1..140 {
        let cut = KSlices::plan_in_cluster(tiles, 64, H200, KB, TILE(128));
        assert!(cut.count <= MOST_CLUSTER_SLICES, "{tiles}: {cut:?}");
    }
}

#[test]
fn packed_slots_divide_the_sms() {
    assert_eq!(ClusterSlots::packed(132), ClusterSlots([132, 66, 44, 33, 26, 22, 18, 16]));
    assert_eq!(H200.multiprocessors(), 132);
}

/// Every k-tile is in exactly one slice, for any cut.
#[test]
fn slices_cover_k_once() {
    for k_tiles in 1..300 {
        for tiles in [1, 2, 7, 16, 24, 131, 132, 500] {
            for rows in [1, 128] {
                let plan = KSlices::plan(tiles, k_tiles, 132, KB, TILE(rows));
                assert!(plan.k_tiles >= MIN_SLICE_K_TILES || plan.count == 1, "{plan:?}");
                let mut next = 0;
                for s in 0..plan.count {
                    let (begin, end) = slice_range(s, plan.k_tiles, k_tiles);
                    assert_eq!(begin, next);
                    assert!(end > begin, "empty slice {s} of {plan:?} at {k_tiles}");
                    next = end;
                }
                assert_eq!(next, k_tiles);
            }
        }
    }
}

#[test]
fn lanes_of_the_sum_grow_with_the_slices() {
    assert_eq!([1, 4, 5, 8, 9, 100, 128, 1000].map(sum_lanes), [1, 1, 2, 2, 4, 32, 32, 32]);
    for (len, slices) in [(1, 1), (4097, 5), (4096, 128)] {
        let shape = sum_launch(len, slices);
        assert_eq!(shape.block.x * shape.block.y, SUM_THREADS);
        assert!(shape.grid.x * shape.block.x * 4 >= len);
    }
}

/// SGEMM rung 15's consumers split B's 32×128 k-tile in 4×4 blocks: every
/// block once, and every quarter-warp's 16-byte reads (4 rows of K in B's
/// swizzled boxes) and writes (4 rows of Bᵀ, swizzled) on 8 different bank
/// groups, so shared memory serves each in one pass.
#[test]
fn rung_15_splits_b_without_bank_conflicts() {
    use kernels_gpu::gemm::hopper::tf32x3::{RAW_B_SHAPE, split_b_block, swizzled_chunk};
    let threads = RAW_B_SHAPE.consumers() * 128;
    let mut seen = [[false; 8]; 32];
    for t in 0..threads {
        let (columns, ks) = split_b_block(t);
        assert!(!seen[columns as usize][ks as usize], "block ({columns}, {ks}) twice");
        seen[columns as usize][ks as usize] = true;
    }
    assert!(seen.iter().flatten().all(|&s| s), "every block of the k-tile");
    for quarter in (0..threads).step_by(8) {
        let blocks: Vec<(u32, u32)> = (quarter..quarter + 8).map(split_b_block).collect();
        for r in 0..4 {
            // Row 4·ks + r of B: chunk columns % 8 of its box's 128-byte row.
            let mut reads: Vec<u32> = blocks.iter().map(|&(c, ks)| swizzled_chunk(4 * ks + r, c % 8)).collect();
            // Row 4·columns + r of Bᵀ: chunk ks.
            let mut writes: Vec<u32> = blocks.iter().map(|&(c, ks)| swizzled_chunk(4 * c + r, ks)).collect();
            for places in [&mut reads, &mut writes] {
                places.sort();
                places.dedup();
                assert_eq!(places.len(), 8, "threads {quarter}..{}: {places:?}", quarter + 8);
            }
        }
    }
}

/// Rung 13's swapped tiles add K's slices in a cluster of one block per
/// slice, all resident at once: one block per unit. With K whole they are
/// clusters of one, and the blocks walk the tiles as persistent ones,
/// copying ahead into the next tile instead of starting from empty.
#[test]
fn fitted_tiles_are_persistent_when_k_is_whole() {
    use kernels_gpu::bf16::r13_fitted_tiles::SWAP_AB_32X64 as TILES_32X64;
    // Qwen2-7B's gate_up at M = 32: 592 tiles, K whole.
    let size = (32, 37888, 3584);
    assert_eq!(TILES_32X64.slices(size, H200).count, 1);
    assert_eq!(TILES_32X64.launch(size, H200).grid, Dim3::new(132, 1, 1));
    // Fewer tiles than SMs: one block each.
    assert_eq!(TILES_32X64.launch((32, 4608, 3584), H200).grid, Dim3::new(72, 1, 1));
    // Qwen2-7B's down at M = 32: 56 tiles in 2 slices, one block per unit.
    let size = (32, 3584, 18944);
    assert_eq!(TILES_32X64.slices(size, H200).count, 2);
    assert_eq!(TILES_32X64.launch(size, H200).grid, Dim3::new(112, 1, 1));
}

/// Rungs 7, 14 and 16 are one kernel at 256, 192 and 128 columns, with as
/// many stages as fit beside the warps' store slots: four of the wider
/// tiles' stages, six of 32 KB for 128 columns, each block within the
/// 227 KB a block may hold.
#[test]
fn narrower_deferred_tiles_get_deeper_rings() {
    use kernels_gpu::bf16::{r07_wgmma_deferred::DEFERRED, r14_narrow_tiles::NARROW_TILES, r16_tiles_128x128::TILES_128X128};
    use kernels_gpu::gemm::hopper::HopperTiling;
    let widths = [DEFERRED, NARROW_TILES, TILES_128X128].map(|k| (k.tiling.tiling.tile_n, k.tiling.tiling.stages, k.tiling.stage_bytes));
    assert_eq!(widths, [(256, 4, 48 * 1024), (192, 4, 40 * 1024), (128, 6, 32 * 1024)]);
    for kernel in [DEFERRED, NARROW_TILES, TILES_128X128] {
        let shared = kernel.tiling.shared_bytes();
        assert!(shared <= 227 * 1024, "{}: {shared} bytes", kernel.name());
        // One more stage would not fit.
        let deeper = HopperTiling { tiling: kernel.tiling.tiling.with_stages(kernel.tiling.tiling.stages + 1), ..kernel.tiling };
        assert!(deeper.shared_bytes() > 227 * 1024, "{}: room for another stage", kernel.name());
    }
}
