//! The SGEMM ladder's Hopper rung (3xTF32 on wgmma, from the sm_90a module)
//! on a real GPU (run with `--include-ignored` on an H100/H200): any shape,
//! alpha and beta, random inputs, C poisoned (or holding random values when
//! beta is not 0), compared with the f64 reference. On another GPU the rung
//! must say it needs a Hopper GPU. (The BF16 ladder's Hopper rungs are
//! checked by `gpu_bf16`.)

use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::accuracy::Arithmetic;
use ptx_ladder::matmul::check::{Problem, reference, reference_rows, verdict};
use ptx_ladder::matmul::hopper::HopperGemm;
use ptx_ladder::matmul::ladder::{GemmBuffers, measure};
use ptx_ladder::matmul::rungs::hopper_in_order;

const SHAPES: &[(u32, u32, u32)] = &[(1, 1, 1), (17, 33, 9), (255, 257, 129), (1000, 1000, 1000), (4097, 1023, 513), (4096, 4096, 4096)];

fn check(gpu: &Gpu, shape: (u32, u32, u32), alpha: f32, beta: f32) {
    let problem = Problem::random(shape, alpha, beta, shape.0 as u64 * 5 + shape.1 as u64);
    let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3)).for_arithmetic(Arithmetic::Tf32x3);
    let mut buffers = GemmBuffers::upload(gpu, &problem).unwrap();
    for rung in hopper_in_order() {
        let gemm = HopperGemm::tf32x3(rung.kernel, gpu, shape).unwrap();
        let (c, _) =
            measure(gpu, &mut buffers, &gemm, &expected, Some(1), 0).unwrap_or_else(|e| panic!("rung {} at {shape:?}: {e}", rung.id));
        let v = verdict(&expected, &c);
        assert!(v.passed(), "rung {} at {shape:?} (alpha {alpha}, beta {beta}): {}", rung.id, v.describe());
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_hopper_rung_is_correct_at_any_shape() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    if !gpu.is_hopper() {
        let err = HopperGemm::tf32x3(hopper_in_order()[0].kernel, &gpu, (64, 64, 64)).map(drop).unwrap_err();
        assert!(err.to_string().contains("needs a Hopper GPU"), "{err}");
        return;
    }
    for &shape in SHAPES {
        check(&gpu, shape, 1.0, 0.0);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_hopper_rung_honours_alpha_and_beta() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    if !gpu.is_hopper() {
        return;
    }
    check(&gpu, (255, 257, 129), 0.75, -0.5);
    check(&gpu, (1000, 1000, 1000), -1.5, 2.0);
}
