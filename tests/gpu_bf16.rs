//! The BF16 ladder on a real GPU (run with `--include-ignored`): every rung
//! and cuBLAS's BF16 GEMM at sizes that are not tile multiples (K % 8 != 0
//! included), random bf16 inputs, C poisoned before each run, compared with
//! the f64 reference over the same bf16 values.

use half::bf16;
use kernels_gpu::gemm::hopper::HopperKernel;
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::bf16::ladder;
use ptx_ladder::matmul::bf16::problem::{Bf16Problem, reference};
use ptx_ladder::matmul::buffers::Buffers;
use ptx_ladder::matmul::check::{Reference, reference_rows, verdict};
use ptx_ladder::matmul::cublas::Cublas;
use ptx_ladder::matmul::ladder::measure;
use ptx_ladder::matmul::rung::RungKernel;

/// Odd shapes, and odd shapes whose K and N are multiples of 8 (so the
/// Hopper rungs, which need 16-byte rows for TMA, run on them too).
const SHAPES: &[(u32, u32, u32)] = &[
    (1, 1, 1),
    (17, 33, 9),
    (255, 257, 129),
    (1000, 1000, 1000),
    (4097, 1023, 513),
    (1, 8, 8),
    (17, 40, 24),
    (255, 264, 136),
    (4097, 1024, 520),
    (2056, 4104, 520),
    // Several tiles per cluster with fewer k-tiles than rung 7 keeps chunks.
    (2056, 4104, 136),
    // Small M and deep K, for the small-M and auto rungs.
    (1, 4096, 7),
    (16, 1032, 4104),
    (64, 64, 65536),
    // 136 tiles for 132 persistent blocks: some blocks take a tile whose
    // second 64 rows lie below M (rung 9 hands those stages back) and one
    // whose rows it computes.
    (150, 17408, 136),
    // Rung 10: 6 tiles in clusters of 8 slices, the last of 2 k-tiles, one
    // tile-row whose second warpgroup has no rows, a partial column tile;
    // and o at M = 16, 16 tiles in 6 slices (15 clusters of 8 would not fit).
    (150, 520, 4104),
    (16, 4096, 4096),
    // Rung 13's 128-row tiles: 64 tiles of 128x64 in 2 slices.
    (128, 4096, 4096),
    // Rung 14's 192-column tiles: fewer k-tiles (2) than the 3 chunks it
    // keeps for the next tile, a partial last column of tiles, several
    // tiles per cluster.
    (1040, 6152, 72),
    // Rung 15's 64x64 tiles: two tiles of rows (the second mostly below
    // M), a partial column tile, K in slices whose last is short.
    (100, 72, 30008),
];

/// Shapes for each of rung 13's and rung 17's tile shapes (the rungs
/// themselves pick one per shape): tiles whose rows or columns end past M
/// or N (a pair whose second tile lies wholly below M), slices whose last
/// is short, a single k-tile, and more tiles than clusters fit at once.
const FITTED_SHAPES: &[(u32, u32, u32)] = &[(1, 8, 8), (17, 40, 24), (65, 264, 136), (150, 520, 4104), (130, 200, 65536), (300, 8200, 520)];

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_bf16_rung_is_correct_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    let cublas = Cublas::load(&gpu).ok();
    for &shape in SHAPES {
        let problem = Bf16Problem::random(shape, shape.0 as u64 * 7 + shape.2 as u64);
        let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
        let mut buffers = Buffers::<bf16>::upload(&gpu, &problem).unwrap();
        if let Some(cublas) = &cublas {
            let (c, _) = measure(&gpu, &mut buffers, cublas, &expected, Some(1), 0).unwrap();
            let v = verdict(&expected, &c);
            assert!(v.passed(), "cuBLAS BF16 at {shape:?}: {}", v.describe());
        }
        let mut ran = 0;
        for rung in ladder().rungs {
            if rung.skip_reason(gpu.info.compute_capability, shape).is_some() {
                continue;
            }
            let expected = expected.for_arithmetic(rung.kernel.arithmetic_at(&gpu, shape));
            let gemm = rung.prepare(&gpu, &buffers).unwrap();
            let (c, _) = measure(&gpu, &mut buffers, gemm.as_ref(), &expected, Some(1), 0)
                .unwrap_or_else(|e| panic!("rung {} at {shape:?}: {e}", rung.id));
            let v = verdict(&expected, &c);
            assert!(v.passed(), "rung {} ({}) at {shape:?}: {}", rung.id, rung.kernel.name(), v.describe());
            ran += 1;
        }
        assert!(ran >= 1, "no BF16 rung ran at {shape:?}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_fitted_and_paired_tile_shape_is_correct_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    for &shape in FITTED_SHAPES {
        let problem = Bf16Problem::random(shape, shape.1 as u64 * 5 + shape.2 as u64);
        let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
        let mut buffers = Buffers::<bf16>::upload(&gpu, &problem).unwrap();
        for kernel in kernels_gpu::bf16::r13_fitted_tiles::TILES.iter().chain(&kernels_gpu::bf16::r17_swap_ab_pairs::TILES) {
            checked_run(&gpu, &mut buffers, kernel, &expected, shape);
        }
    }
}

/// Runs `kernel` once on `buffers` (an `m`×`n`×`k` problem, `shape`),
/// checks C against `expected` for the kernel's arithmetic, and returns
/// the relative error; the test fails where the result is wrong.
fn checked_run(gpu: &Gpu, buffers: &mut Buffers<bf16>, kernel: &HopperKernel, expected: &Reference, shape: (u32, u32, u32)) -> f64 {
    let expected = expected.for_arithmetic(RungKernel::<bf16>::arithmetic(kernel));
    let gemm = RungKernel::<bf16>::prepare(kernel, gpu, buffers).unwrap();
    let (c, _) =
        measure(gpu, buffers, gemm.as_ref(), &expected, Some(1), 0).unwrap_or_else(|e| panic!("{} at {shape:?}: {e}", kernel.name()));
    let v = verdict(&expected, &c);
    assert!(v.passed(), "{} at {shape:?}: {}", kernel.name(), v.describe());
    v.relative_error
}

/// The swapped tiles of up to 64 rows move their tensor-core sums into an
/// fp32 total every 2048 values of K, so their error does not grow with K
/// the way one truncating accumulator's does: with K whole (N wide enough
/// that no kernel cuts K), the relative error at K = 16384 stays within
/// 2.5 times the error at K = 2048, where a single accumulator's is about
/// 8 times (the roundings grow with K, and so does each one's size).
#[test]
#[ignore = "needs a CUDA GPU"]
fn small_swapped_tiles_keep_deep_k_as_accurate_as_short_k() {
    use kernels_gpu::bf16::{r11_swap_ab::SWAP_AB, r13_fitted_tiles::TILES};
    let gpu = Gpu::open().expect("a CUDA GPU");
    let kernels: Vec<_> = [SWAP_AB].into_iter().chain(TILES.into_iter().filter(|t| t.tiling.tile_m() <= 64)).collect();
    assert!(kernels.len() >= 6, "rung 11, and rung 12 and 13's tiles of 16 to 64 rows");
    let errors = |shape: (u32, u32, u32)| {
        let problem = Bf16Problem::random(shape, 11);
        let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
        let mut buffers = Buffers::<bf16>::upload(&gpu, &problem).unwrap();
        kernels.iter().map(|kernel| checked_run(&gpu, &mut buffers, kernel, &expected, shape)).collect::<Vec<_>>()
    };
    let (short, deep) = (errors((16, 17408, 2048)), errors((16, 17408, 16384)));
    for ((kernel, short), deep) in kernels.iter().zip(short).zip(deep) {
        assert!(deep <= 2.5 * short, "{}: relative error {deep:.2e} at K = 16384, {short:.2e} at K = 2048", kernel.name());
    }
}

/// Where K or N is not a multiple of 8, the auto rung may run a Hopper
/// rung on copies of A, B and C whose rows are whole 16 bytes: every
/// Hopper rung of the ladder, run so, is correct (zeros in the added
/// columns of A and rows of B, C's added columns left behind), at shapes
/// whose K, N or both need padding, from one element to several tiles.
#[test]
#[ignore = "needs a CUDA GPU"]
fn every_hopper_rung_is_correct_on_padded_copies() {
    use ptx_ladder::device::PtxModule;
    use ptx_ladder::matmul::auto::padded_size;
    use ptx_ladder::matmul::dtype::Dtype;
    use ptx_ladder::matmul::padded::Padded;
    let gpu = Gpu::open().expect("a CUDA GPU");
    let shapes = [(1, 1, 1), (17, 33, 9), (16, 2047, 2049), (255, 257, 129), (130, 1001, 4096), (4097, 1024, 513)];
    for shape in shapes {
        let padded = padded_size(Dtype::Bf16, shape).unwrap();
        assert_ne!(padded, shape);
        let problem = Bf16Problem::random(shape, shape.1 as u64 * 3 + shape.2 as u64);
        let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
        let mut buffers = Buffers::<bf16>::upload(&gpu, &problem).unwrap();
        let mut ran = 0;
        for rung in ladder().rungs.iter().filter(|rung| rung.kernel.module() == PtxModule::Sm90a) {
            if rung.skip_reason(gpu.info.compute_capability, padded).is_some() {
                continue;
            }
            let expected = expected.for_arithmetic(rung.kernel.arithmetic_at(&gpu, padded));
            let gemm = Padded::new(&gpu, &buffers, rung.kernel, padded).unwrap();
            let (c, _) = measure(&gpu, &mut buffers, &gemm, &expected, Some(1), 0)
                .unwrap_or_else(|e| panic!("rung {} padded at {shape:?}: {e}", rung.id));
            let v = verdict(&expected, &c);
            assert!(v.passed(), "rung {} ({}) padded at {shape:?}: {}", rung.id, rung.kernel.name(), v.describe());
            ran += 1;
        }
        assert!(ran >= 10, "only {ran} Hopper rungs ran padded at {shape:?}");
    }
}

/// Where the small-M rung cuts K, its blocks fit on the GPU at once, as
/// the driver counts them (registers and shared memory of the kernel that
/// runs): BF16's 8- and 16-row kernels hold fewer blocks per SM than the
/// model counts on, and a plan for the model's count would run a second,
/// mostly empty wave. Also fp32's, whose launch bounds promise the count.
#[test]
#[ignore = "needs a CUDA GPU"]
fn small_m_blocks_fit_in_one_wave_on_the_gpu() {
    use ptx_ladder::matmul::small_m::SmallMRung;
    let gpu = Gpu::open().expect("a CUDA GPU");
    let sms = gpu.info.multiprocessors as u64;
    let shapes = [(1, 28672, 4096), (1, 4096, 14336), (8, 4096, 4096), (16, 4096, 14336), (16, 28672, 4096), (64, 64, 65536)];
    for shape in shapes {
        let bf16_rung: &dyn RungKernel<bf16> = &SmallMRung;
        let f32_rung: &dyn RungKernel<f32> = &SmallMRung;
        for (what, (module, name), launch) in [
            ("bf16", bf16_rung.entry(&gpu, shape), bf16_rung.shape(&gpu, shape)),
            ("f32", f32_rung.entry(&gpu, shape), f32_rung.shape(&gpu, shape)),
        ] {
            let fit = gpu.resident_blocks_in(module, name, launch).unwrap() as u64;
            let blocks = launch.grid.volume();
            assert!(blocks <= fit * sms, "{what} {name} at {shape:?}: {blocks} blocks, {fit} per SM fit");
            // The plan counts on at most BLOCKS_PER_SM (more fit where the
            // kernel uses few registers and little shared memory).
            let planned = fit.min(kernels_gpu::gemm::small_m::BLOCKS_PER_SM as u64);
            assert!(2 * blocks >= planned * sms, "{what} {name} at {shape:?}: {blocks} blocks leave most of {planned} per SM empty");
        }
        // Rung 18 promises BLOCKS_PER_SM in its launch bounds, and its
        // plan fills them in one round.
        let tensor: &dyn RungKernel<bf16> = &ptx_ladder::matmul::small_m::SmallMTensorRung;
        let ((module, name), launch) = (tensor.entry(&gpu, shape), tensor.shape(&gpu, shape));
        let fit = gpu.resident_blocks_in(module, name, launch).unwrap() as u64;
        assert!(fit >= kernels_gpu::gemm::small_m::BLOCKS_PER_SM as u64, "{name} at {shape:?}: {fit} blocks per SM fit");
        assert!(launch.grid.volume() <= fit * sms, "{name} at {shape:?}: {} blocks, {fit} per SM fit", launch.grid.volume());
    }
}

/// The sweep's `--back-to-back` timing gives every run its own copy of A
/// and B, and prepares each rung once per copy (the TMA rungs' tensor maps
/// hold the address of the B they read): on every copy, every rung is
/// correct, and the copies are distinct buffers.
#[test]
#[ignore = "needs a CUDA GPU"]
fn every_rung_is_correct_on_every_copy_of_the_inputs() {
    use ptx_ladder::device::pointer;
    let gpu = Gpu::open().expect("a CUDA GPU");
    let shape = (17, 264, 1031);
    let problem = Bf16Problem::random(shape, 17);
    let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
    let mut buffers = Buffers::<bf16>::upload(&gpu, &problem).unwrap();
    buffers.copy_inputs(&gpu, 3).unwrap();
    assert_eq!(buffers.input_copies(), 3);
    let bs: Vec<_> = (0..3).map(|copy| pointer(buffers.args_of(copy).b)).collect();
    assert!(bs[0] != bs[1] && bs[1] != bs[2] && bs[0] != bs[2], "{bs:?}");
    for rung in ladder().rungs {
        if rung.skip_reason(gpu.info.compute_capability, shape).is_some() {
            continue;
        }
        let expected = expected.for_arithmetic(rung.kernel.arithmetic_at(&gpu, shape));
        for copy in 0..3 {
            buffers.use_copy(copy);
            let gemm = rung.prepare(&gpu, &buffers).unwrap();
            buffers.reset_c(&gpu).unwrap();
            gemm.run(&gpu, &buffers.args()).unwrap_or_else(|e| panic!("rung {} on copy {copy}: {e}", rung.id));
            let v = verdict(&expected, &buffers.download_c(&gpu).unwrap());
            assert!(v.passed(), "rung {} ({}) on copy {copy}: {}", rung.id, rung.kernel.name(), v.describe());
        }
        buffers.use_copy(0);
    }
}

/// The names the model gives its picks ([`auto::kernel_name`], which
/// `tests/model_replay.rs` looks up in the records) are the entries the
/// auto rung runs on this GPU, in both ladders: the built-in suite and
/// shapes for rung 18's two widths and for padded copies.
#[test]
#[ignore = "needs a CUDA GPU"]
fn the_models_kernel_names_are_what_auto_runs() {
    use ptx_ladder::matmul::auto::{self, Hopper, Machine};
    use ptx_ladder::matmul::dtype::Dtype;
    use ptx_ladder::matmul::small_m::AutoRung;
    let gpu = Gpu::open().expect("a CUDA GPU");
    let machine = Machine::of_gpu(&gpu).unwrap_or(Machine::of(&gpu.info));
    let mut shapes: Vec<(u32, u32, u32)> = ptx_ladder::sweep::suite::builtin().iter().map(|s| s.size()).collect();
    shapes.extend([(8, 28672, 4096), (16, 49152, 3072), (3, 4104, 4096), (16, 64, 65537), (13, 1000, 4100)]);
    for size in shapes {
        let bf16_rung: &dyn RungKernel<bf16> = &AutoRung;
        let f32_rung: &dyn RungKernel<f32> = &AutoRung;
        for (dtype, (_, name)) in [(Dtype::Bf16, bf16_rung.entry(&gpu, size)), (Dtype::F32, f32_rung.entry(&gpu, size))] {
            let choice = auto::choose(dtype, size, &machine, Hopper::of(dtype, size, true));
            assert_eq!(name, auto::kernel_name(dtype, &choice.pick), "{dtype:?} at {size:?}: {}", choice.why);
        }
    }
}
