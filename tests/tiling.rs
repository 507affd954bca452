//! The one tile vocabulary: what each rung's `Tiling` derives (threads,
//! shared memory, launch shape) agrees with the kernels' documented shapes.

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
