//! Every rung of the ladder on a real GPU (run with `--include-ignored`):
//! sizes that are not multiples of any tile, random inputs, C poisoned
//! before each run, compared with an f64 reference.

use kernels_gpu::sgemm::r08_autotuned::CONFIGS;
use kernels_gpu::sgemm::{GemmKernel, KERNELS};
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::buffers::Buffers;
use ptx_ladder::matmul::check::{Problem, reference, reference_rows, verdict};
use ptx_ladder::matmul::ladder::measure;
use ptx_ladder::matmul::rung::RungKernel;
use ptx_ladder::matmul::sgemm;

const SHAPES: &[(u32, u32, u32)] = &[(1, 1, 1), (17, 33, 9), (255, 257, 129), (1000, 1000, 1000), (4097, 1023, 513), (4096, 4096, 4096)];

fn check_all(gpu: &Gpu, kernels: &[&GemmKernel], shape: (u32, u32, u32), alpha: f32, beta: f32) {
    let problem = Problem::random(shape, alpha, beta, shape.0 as u64 * 7 + shape.2 as u64);
    let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
    let mut buffers = Buffers::<f32>::upload(gpu, &problem).unwrap();
    for &kernel in kernels {
        let expected = expected.for_arithmetic(RungKernel::<f32>::arithmetic(kernel));
        // reps = 0 is not allowed; the check run is what matters here.
        let (c, _) =
            measure(gpu, &mut buffers, kernel, &expected, Some(1), 0).unwrap_or_else(|e| panic!("{} at {shape:?}: {e}", kernel.name()));
        let v = verdict(&expected, &c);
        assert!(v.passed(), "{} at {shape:?} (alpha {alpha}, beta {beta}): {}", kernel.name(), v.describe());
    }
}

/// The rungs of the portable module (rung 12 is checked by `gpu_hopper`).
fn rung_kernels() -> Vec<&'static GemmKernel> {
    sgemm::plain_kernels(&CONFIGS[0].kernel).into_iter().map(|(_, kernel)| kernel).collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_rung_is_correct_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    for &shape in SHAPES {
        check_all(&gpu, &rung_kernels(), shape, 1.0, 0.0);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_rung_honours_alpha_and_beta_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    check_all(&gpu, &rung_kernels(), (255, 257, 129), 0.75, -0.5);
    check_all(&gpu, &rung_kernels(), (1000, 1000, 1000), -1.5, 2.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_other_kernel_of_the_module_is_correct_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    let rungs: Vec<&str> = rung_kernels().iter().map(|k| k.name()).collect();
    let kernels: Vec<&GemmKernel> = KERNELS.iter().filter(|k| !rungs.contains(&k.name())).collect();
    check_all(&gpu, &kernels, (255, 257, 129), 1.0, 0.0);
    check_all(&gpu, &kernels, (4097, 1023, 513), 1.0, 0.5);
}

/// The small-M rung and the "auto" rung at the shapes they are for
/// (M = 1..64, deep K) and at odd ones, with alpha and beta; run again on
/// the same workspace (the tiles' counters set back by the last run), each
/// gives the same bits.
#[test]
#[ignore = "needs a CUDA GPU"]
fn the_small_m_and_auto_rungs_are_correct_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    let ladder = sgemm::ladder(&CONFIGS[0].kernel).select("13,auto").unwrap();
    for &(shape, alpha, beta) in &[
        ((1, 1, 1), 1.0, 0.0),
        ((1, 4096, 7), 1.0, 0.0),
        // Narrowed blocks, slices added by each tile's last block.
        ((1, 4096, 4096), 1.0, 0.0),
        ((1, 28672, 4096), 0.5, 1.0),
        ((16, 4096, 4096), 1.0, 0.0),
        ((8, 1000, 8), 0.5, 2.0),
        ((16, 4104, 4097), 1.0, 0.0),
        ((17, 33, 9), -1.0, 0.5),
        ((64, 64, 65536), 1.0, 0.0),
        // Three groups of 16 rows reading the same B, k-lanes (N = 64).
        ((48, 64, 20000), 1.0, 0.0),
        ((40, 1000, 1031), 0.75, -1.0),
        ((255, 257, 129), 1.0, 0.0),
    ] {
        let problem = Problem::random(shape, alpha, beta, shape.1 as u64 + 3);
        let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
        let mut buffers = Buffers::<f32>::upload(&gpu, &problem).unwrap();
        for rung in &ladder.rungs {
            let expected = expected.for_arithmetic(rung.kernel.arithmetic_at(&gpu, shape));
            let gemm = rung.prepare(&gpu, &buffers).unwrap();
            let (c, _) = measure(&gpu, &mut buffers, gemm.as_ref(), &expected, Some(1), 0)
                .unwrap_or_else(|e| panic!("rung {} at {shape:?}: {e}", rung.id));
            let v = verdict(&expected, &c);
            assert!(v.passed(), "rung {} at {shape:?} (alpha {alpha}, beta {beta}): {}", rung.id, v.describe());
            let (again, _) = measure(&gpu, &mut buffers, gemm.as_ref(), &expected, Some(3), 0).unwrap();
            let same = c.iter().zip(&again).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "rung {} at {shape:?}: a second run gave other bits", rung.id);
        }
    }
}
