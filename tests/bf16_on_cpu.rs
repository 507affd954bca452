//! Every BF16 kernel of the portable module, run on the CPU through the
//! emulator (ldmatrix and the bf16 `mma` included), at sizes that cut
//! through its tiles: edges, K and N not multiples of 8 (the element-wise
//! load path) and multiples of 8 (the `cp.async` path).

use kernels_gpu::bf16::{Bf16Kernel, KERNELS};
use ptx_ladder::emulator;
use ptx_ladder::matmul::bf16::problem::{Bf16Problem, reference};
use ptx_ladder::matmul::check::{reference_rows, verdict};

const SHAPES: &[(u32, u32, u32)] = &[(1, 1, 1), (17, 33, 9), (65, 31, 40), (129, 130, 33), (40, 136, 64), (128, 128, 96), (3, 257, 7)];

fn check(kernel: &Bf16Kernel, (m, n, k): (u32, u32, u32)) -> f64 {
    let problem = Bf16Problem::random((m, n, k), (m * 31 + n * 7 + k) as u64);
    let expected = reference(&problem, reference_rows(m, n, k, 1));
    let mut c = vec![f32::from_bits(ptx_ladder::device::POISON_BITS); (m * n) as usize];
    emulator::bf16_gemm(kernel, (m, n, k), &problem.a, &problem.b, &mut c)
        .unwrap_or_else(|e| panic!("{} at {m}x{n}x{k}: {e}", kernel.name()));
    let v = verdict(&expected, &c);
    assert!(v.passed(), "{} at {m}x{n}x{k}: {}", kernel.name(), v.describe());
    v.relative_error
}

#[test]
fn every_bf16_kernel_is_correct_at_odd_sizes() {
    for kernel in KERNELS {
        for &shape in SHAPES {
            let error = check(kernel, shape);
            // fp32 sums of exact products: far inside the bound.
            assert!(error < 1e-6, "{} at {shape:?}: {error:e}", kernel.name());
        }
    }
}
