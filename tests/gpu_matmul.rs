//! Every rung of the ladder on a real GPU (run with `--include-ignored`):
//! sizes that are not multiples of any tile, random inputs, C poisoned
//! before each run, compared with an f64 reference.

use kernels_gpu::sgemm::r08_autotuned::CONFIGS;
use kernels_gpu::sgemm::{GemmKernel, KERNELS};
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::check::{Problem, reference, reference_rows, verdict};
use ptx_ladder::matmul::ladder::{GemmBuffers, measure};
use ptx_ladder::matmul::rungs;

const SHAPES: &[(u32, u32, u32)] = &[(1, 1, 1), (17, 33, 9), (255, 257, 129), (1000, 1000, 1000), (4097, 1023, 513), (4096, 4096, 4096)];

fn check_all(gpu: &Gpu, kernels: &[GemmKernel], shape: (u32, u32, u32), alpha: f32, beta: f32) {
    let problem = Problem::random(shape, alpha, beta, shape.0 as u64 * 7 + shape.2 as u64);
    let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
    let mut buffers = GemmBuffers::upload(gpu, &problem).unwrap();
    for kernel in kernels {
        // reps = 0 is not allowed; the check run is what matters here.
        let (c, _) =
            measure(gpu, &mut buffers, kernel, &expected, Some(1), 0).unwrap_or_else(|e| panic!("{} at {shape:?}: {e}", kernel.name()));
        let v = verdict(&expected, &c);
        assert!(v.passed(), "{} at {shape:?} (alpha {alpha}, beta {beta}): {}", kernel.name(), v.describe());
    }
}

fn rung_kernels() -> Vec<GemmKernel> {
    rungs::in_order(CONFIGS[0].kernel).iter().map(|r| r.kernel).collect()
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
    let kernels: Vec<GemmKernel> = KERNELS.iter().filter(|k| !rungs.contains(&k.name())).copied().collect();
    check_all(&gpu, &kernels, (255, 257, 129), 1.0, 0.0);
    check_all(&gpu, &kernels, (4097, 1023, 513), 1.0, 0.5);
}
