//! The SGEMM ladder's Hopper rung (3xTF32 on wgmma, from the sm_90a module)
//! on a real GPU (run with `--include-ignored` on an H100/H200): any shape,
//! alpha and beta, random inputs, C poisoned (or holding random values when
//! beta is not 0), compared with the f64 reference. On another GPU the rung
//! must say it needs a Hopper GPU. (The BF16 ladder's Hopper rungs are
//! checked by `gpu_bf16`.)

use kernels_gpu::sgemm::r08_autotuned::CONFIGS;
use ptx_ladder::device::{Gpu, PtxModule};
use ptx_ladder::matmul::buffers::Buffers;
use ptx_ladder::matmul::check::{Problem, reference, reference_rows, verdict};
use ptx_ladder::matmul::ladder::measure;
use ptx_ladder::matmul::rung::Rung;
use ptx_ladder::matmul::sgemm;

/// Odd shapes, and shapes whose N is a multiple of 4 (rung 15 reads B's
/// rows by TMA; at the others it must refuse): K = 1, 7, 8, 17, 255, 513,
/// 1000, 4097 and 65536 (split over slices), several slices with a partial
/// last one, a partial last tile of rows and of columns.
const SHAPES: &[(u32, u32, u32)] = &[
    (1, 1, 1),
    (17, 33, 9),
    (255, 257, 129),
    (1000, 1000, 1000),
    (4097, 1023, 513),
    (4096, 4096, 4096),
    (1, 4, 1),
    (7, 8, 7),
    (129, 4100, 8),
    (17, 36, 17),
    (255, 260, 255),
    (64, 128, 4097),
    (33, 1000, 65536),
];

/// The SGEMM ladder's rungs of the sm_90a module.
fn hopper_rungs() -> Vec<Rung<f32>> {
    sgemm::ladder(&CONFIGS[0].kernel).rungs.into_iter().filter(|r| r.kernel.module() == PtxModule::Sm90a).collect()
}

fn check(gpu: &Gpu, shape: (u32, u32, u32), alpha: f32, beta: f32) {
    let problem = Problem::random(shape, alpha, beta, shape.0 as u64 * 5 + shape.1 as u64);
    let expected = reference(&problem, reference_rows(shape.0, shape.1, shape.2, 3));
    let mut buffers = Buffers::<f32>::upload(gpu, &problem).unwrap();
    for rung in hopper_rungs() {
        if let Some(why) = rung.kernel.shape_limit(shape) {
            let err = rung.prepare(gpu, &buffers).map(drop).unwrap_err();
            assert!(err.to_string().contains(why), "rung {} at {shape:?}: {err}", rung.id);
            continue;
        }
        let expected = expected.for_arithmetic(rung.kernel.arithmetic());
        let gemm = rung.prepare(gpu, &buffers).unwrap();
        let (c, _) = measure(gpu, &mut buffers, gemm.as_ref(), &expected, Some(1), 0)
            .unwrap_or_else(|e| panic!("rung {} at {shape:?}: {e}", rung.id));
        let v = verdict(&expected, &c);
        assert!(v.passed(), "rung {} at {shape:?} (alpha {alpha}, beta {beta}): {}", rung.id, v.describe());
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_hopper_rung_is_correct_at_any_shape() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    if !gpu.is_hopper() {
        let buffers = Buffers::<f32>::upload(&gpu, &Problem::random((64, 64, 64), 1.0, 0.0, 1)).unwrap();
        let err = hopper_rungs()[0].prepare(&gpu, &buffers).map(drop).unwrap_err();
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
    check(&gpu, (255, 260, 255), 0.75, -0.5);
}
