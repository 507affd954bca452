//! The Hopper rungs of the sm_90a module on a real GPU (run with
//! `--include-ignored` on an H100/H200): random inputs, C poisoned, every
//! element of sampled rows compared with an f64 reference.

use half::bf16;
use kernels_gpu::hopper::{tf32x3, wgmma_bf16};
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::hopper::HopperGemm;
use ptx_ladder::inputs::uniform;

/// fp32 accumulation of K products, against f64: the bound the ladder uses.
const TOLERANCE: f64 = 1e-5;

/// `‖C − Cref‖ / ‖Cref‖` over a few rows (first, last, some between), and
/// whether any element of those rows is not finite (poison left over).
fn relative_error(a: &[f64], b: &[f64], c: &[f32], (m, n, k): (u32, u32, u32)) -> f64 {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let rows = [0, m / 3, m / 2, m - 1];
    let (mut err, mut norm) = (0.0, 0.0);
    for &i in &rows {
        for j in 0..n {
            let want: f64 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            let got = c[i * n + j] as f64;
            assert!(got.is_finite(), "C[{i}][{j}] = {got}");
            err += (got - want) * (got - want);
            norm += want * want;
        }
    }
    (err / norm.max(f64::MIN_POSITIVE)).sqrt()
}

fn poisoned_c(gpu: &Gpu, len: usize) -> cust::memory::DeviceBuffer<f32> {
    let mut c = gpu.alloc(len, "C").unwrap();
    gpu.poison(&mut c).unwrap();
    c
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn bf16_rungs_are_correct_on_hopper() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    if !gpu.is_hopper() {
        eprintln!("skipped: needs a Hopper GPU (sm_90)");
        return;
    }
    for &(m, n, k) in &[(1, 8, 8), (17, 40, 24), (255, 264, 136), (1000, 1000, 1000), (4097, 1024, 520)] {
        let a: Vec<bf16> = uniform((m * k) as usize, 1).into_iter().map(bf16::from_f32).collect();
        let b: Vec<bf16> = uniform((k * n) as usize, 2).into_iter().map(bf16::from_f32).collect();
        let a_bits: Vec<u16> = a.iter().map(|x| x.to_bits()).collect();
        let b_bits: Vec<u16> = b.iter().map(|x| x.to_bits()).collect();
        let a_dev = cust::memory::DeviceBuffer::from_slice(&a_bits).unwrap();
        let b_dev = cust::memory::DeviceBuffer::from_slice(&b_bits).unwrap();
        let a64: Vec<f64> = a.iter().map(|x| x.to_f64()).collect();
        let b64: Vec<f64> = b.iter().map(|x| x.to_f64()).collect();
        for kernel in [wgmma_bf16::PIPELINED, wgmma_bf16::SPECIALIZED, wgmma_bf16::PERSISTENT] {
            let c_dev = poisoned_c(&gpu, (m * n) as usize);
            let gemm = HopperGemm::bf16(kernel, &gpu, (m, n, k), &a_dev, &b_dev).unwrap();
            gemm.run(&gpu, None, &c_dev).unwrap();
            let mut c = vec![0.0f32; (m * n) as usize];
            gpu.download(&c_dev, &mut c, "C").unwrap();
            let err = relative_error(&a64, &b64, &c, (m, n, k));
            println!("{} {m}x{n}x{k}: rel err {err:.2e}", kernel.name());
            assert!(err < TOLERANCE, "{} at {m}x{n}x{k}: relative error {err:.2e}", kernel.name());
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tf32x3_rung_is_correct_on_hopper_at_any_shape() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    if !gpu.is_hopper() {
        eprintln!("skipped: needs a Hopper GPU (sm_90)");
        return;
    }
    for &(m, n, k) in &[(1, 1, 1), (17, 33, 9), (255, 257, 129), (1000, 1000, 1000), (4097, 1023, 513)] {
        let a = uniform((m * k) as usize, 3);
        let b = uniform((k * n) as usize, 4);
        let a_dev = gpu.upload(&a, "A").unwrap();
        let b_dev = gpu.upload(&b, "B").unwrap();
        let c_dev = poisoned_c(&gpu, (m * n) as usize);
        let gemm = HopperGemm::tf32x3(tf32x3::KERNEL, &gpu, (m, n, k)).unwrap();
        gemm.run(&gpu, Some((&a_dev, &b_dev)), &c_dev).unwrap();
        let mut c = vec![0.0f32; (m * n) as usize];
        gpu.download(&c_dev, &mut c, "C").unwrap();
        let a64: Vec<f64> = a.iter().map(|&x| x as f64).collect();
        let b64: Vec<f64> = b.iter().map(|&x| x as f64).collect();
        let err = relative_error(&a64, &b64, &c, (m, n, k));
        println!("tf32x3_wgmma {m}x{n}x{k}: rel err {err:.2e}");
        assert!(err < TOLERANCE, "tf32x3_wgmma at {m}x{n}x{k}: relative error {err:.2e}");
    }
}
