//! Every kernel of the ladder, run on the CPU through the emulator, at sizes
//! that are not multiples of any tile: masking, tail handling, barriers and
//! 16-byte alignment are checked here without a GPU.

use kernels_gpu::sgemm::r08_autotuned::CONFIGS;
use kernels_gpu::sgemm::{GemmKernel, KERNELS};
use ptx_ladder::emulator;
use ptx_ladder::matmul::check::{Problem, reference, reference_rows, verdict};
use ptx_ladder::matmul::rung::RungKernel;
use ptx_ladder::matmul::sgemm::plain_kernels;

/// Shapes that cut through every tile size used (8..256) in awkward places;
/// (136, 132, 40) keeps rows 16-byte aligned so the 128-bit paths run too.
const SHAPES: &[(u32, u32, u32)] = &[(1, 1, 1), (17, 33, 9), (67, 45, 37), (136, 132, 40)];

fn check(kernel: &GemmKernel, (m, n, k): (u32, u32, u32), alpha: f32, beta: f32) {
    let problem = Problem::random((m, n, k), alpha, beta, (m * 31 + n * 7 + k) as u64);
    let expected = reference(&problem, reference_rows(m, n, k, 1)).for_arithmetic(RungKernel::<f32>::arithmetic(kernel));
    let mut c = if beta == 0.0 { vec![f32::from_bits(ptx_ladder::device::POISON_BITS); (m * n) as usize] } else { problem.c.clone() };
    emulator::sgemm(kernel, (m, n, k), alpha, &problem.a, &problem.b, beta, &mut c)
        .unwrap_or_else(|e| panic!("{} at {m}x{n}x{k}: {e}", kernel.name()));
    let v = verdict(&expected, &c);
    assert!(v.passed(), "{} at {m}x{n}x{k} (alpha {alpha}, beta {beta}): {}", kernel.name(), v.describe());
}

#[test]
fn every_rung_is_correct_at_odd_sizes() {
    for (_, kernel) in plain_kernels(&CONFIGS[0].kernel) {
        for &shape in SHAPES {
            check(kernel, shape, 1.0, 0.0);
        }
    }
}

#[test]
fn every_rung_honours_alpha_and_beta() {
    for (_, kernel) in plain_kernels(&CONFIGS[0].kernel) {
        check(kernel, (67, 45, 37), 0.75, -0.5);
        check(kernel, (136, 132, 40), -1.25, 2.0);
    }
}

#[test]
fn every_other_kernel_of_the_module_is_correct() {
    let on_ladder: Vec<&str> = plain_kernels(&CONFIGS[0].kernel).iter().map(|(_, k)| k.name()).collect();
    for kernel in KERNELS.iter().filter(|k| !on_ladder.contains(&k.name())) {
        check(kernel, (67, 45, 37), 1.0, 0.0);
        check(kernel, (136, 132, 40), 1.0, 0.5);
    }
}
