//! Runs the BF16 ladder on the GPU: cuBLAS's BF16 GEMM and every selected
//! rung on the same device buffers, each checked and then timed.

use super::problem::{Bf16Problem, reference};
use super::rungs::{Arch, Bf16Rung};
use crate::device::{Gpu, Timing, pointer};
use crate::error::{Context as _, Result};
use crate::matmul::check::{Reference, gemm_flops, reference_rows, verdict};
use crate::matmul::cublas::Cublas;
use crate::matmul::dtype::Dtype;
use crate::matmul::ladder::{Options, Report, Row, preheat, time, validate_size};
use cust::memory::DeviceBuffer;
use kernels_gpu::bf16::Bf16Kernel;

/// The buffers of one BF16 GEMM, as kernel arguments.
pub struct Bf16Args<'a> {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a: &'a DeviceBuffer<u16>,
    pub b: &'a DeviceBuffer<u16>,
    pub c: &'a DeviceBuffer<f32>,
}

/// Something that computes `C = A·B` on BF16 buffers: a rung's launcher or
/// cuBLAS. It only enqueues work on [`Gpu::stream`], so it can be timed.
pub trait Bf16Gemm {
    fn run(&self, gpu: &Gpu, args: &Bf16Args) -> Result<()>;
}

impl Bf16Gemm for Bf16Kernel {
    fn run(&self, gpu: &Gpu, args: &Bf16Args) -> Result<()> {
        let params = (args.m, args.n, args.k, pointer(args.a), pointer(args.b), pointer(args.c));
        gpu.launch(&self.kernel, (self.launch)(args.m, args.n), params)
    }
}

impl Bf16Gemm for Cublas {
    fn run(&self, _gpu: &Gpu, args: &Bf16Args) -> Result<()> {
        self.gemm_bf16((args.m, args.n, args.k), args.a, args.b, args.c)
    }
}

/// A and B (bf16) and C (fp32) on the GPU.
pub struct Bf16Buffers {
    size: (u32, u32, u32),
    a: DeviceBuffer<u16>,
    b: DeviceBuffer<u16>,
    c: DeviceBuffer<f32>,
}

impl Bf16Buffers {
    pub fn upload(gpu: &Gpu, problem: &Bf16Problem) -> Result<Bf16Buffers> {
        let (m, n, k) = (problem.m as u128, problem.n as u128, problem.k as u128);
        gpu.ensure_fits(2 * (m * k + k * n) + 4 * m * n, "this BF16 GEMM")?;
        Ok(Bf16Buffers {
            size: (problem.m, problem.n, problem.k),
            a: DeviceBuffer::from_slice(&problem.a).context("copying A to the GPU")?,
            b: DeviceBuffer::from_slice(&problem.b).context("copying B to the GPU")?,
            c: gpu.alloc(problem.m as usize * problem.n as usize, "C")?,
        })
    }

    pub fn size(&self) -> (u32, u32, u32) {
        self.size
    }

    pub fn flops(&self) -> f64 {
        gemm_flops(self.size)
    }

    pub fn args(&self) -> Bf16Args<'_> {
        let (m, n, k) = self.size;
        Bf16Args { m, n, k, a: &self.a, b: &self.b, c: &self.c }
    }
}

/// Runs `gemm` once on a NaN-poisoned C and returns C, then, if that result
/// is correct, times it (as the SGEMM ladder's `measure` does).
pub fn measure(
    gpu: &Gpu,
    buffers: &mut Bf16Buffers,
    gemm: &dyn Bf16Gemm,
    reference: &Reference,
    reps: Option<u32>,
    warmup: u32,
) -> Result<(Vec<f32>, Option<Timing>)> {
    gpu.poison(&mut buffers.c)?;
    gemm.run(gpu, &buffers.args())?;
    let (m, n, _) = buffers.size;
    let mut c = vec![0.0f32; m as usize * n as usize];
    gpu.download(&buffers.c, &mut c, "C")?;
    if !verdict(reference, &c).passed() {
        return Ok((c, None));
    }
    let args = buffers.args();
    Ok((c, Some(time(gpu, reps, warmup, &mut || gemm.run(gpu, &args))?)))
}

/// Uploads random bf16 inputs and computes the reference for `options.size`.
pub fn prepare(gpu: &Gpu, options: &Options, progress: &mut dyn FnMut(&str)) -> Result<(Bf16Buffers, Reference)> {
    validate_size(options.size)?;
    let (m, n, k) = options.size;
    progress(&format!("generating random bf16 {m}x{k} and {k}x{n} inputs"));
    let problem = Bf16Problem::random(options.size, options.seed);
    let buffers = Bf16Buffers::upload(gpu, &problem)?;
    let rows = reference_rows(m, n, k, options.seed ^ 0x7e57);
    progress(&format!("computing the f64 reference for {} of {m} rows on the CPU", rows.len()));
    Ok((buffers, reference(&problem, rows)))
}

/// Runs cuBLAS's BF16 GEMM (if found) and then every rung in `rungs`; rungs
/// this GPU or shape cannot run are listed as skipped.
pub fn run(gpu: &Gpu, rungs: &[Bf16Rung], options: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    let (mut buffers, reference) = prepare(gpu, options, progress)?;
    let flops = buffers.flops();
    if gpu.is_hopper() && rungs.iter().any(|r| r.arch == Arch::Hopper) {
        // Compiled now rather than between two timed rows (see the SGEMM ladder).
        gpu.hopper_module()?;
    }
    progress("cuBLAS BF16 GEMM (baseline)");
    let cublas = match Cublas::load(gpu) {
        Ok(cublas) => {
            let args = buffers.args();
            preheat(gpu, options.reps, &mut || cublas.run(gpu, &args))?;
            let (c, timing) = measure(gpu, &mut buffers, &cublas, &reference, options.reps, options.warmup)?;
            let title = format!("{} BF16", cublas.version_string());
            Ok(Row::library(title, "cublasGemmEx bf16 -> f32", verdict(&reference, &c), timing, flops))
        }
        Err(e) => Err(e.to_string()),
    };
    let (m, n, _) = options.size;
    let mut rows = Vec::new();
    for (i, rung) in rungs.iter().enumerate() {
        let names = (rung.id, rung.title, rung.kernel);
        if let Some(why) = rung.skip_reason(gpu.info.compute_capability, options.size) {
            progress(&format!("[{}/{}] rung {} {}: skipped, {why}", i + 1, rungs.len(), rung.id, rung.title));
            rows.push(Row::skipped(names, why, reference.tolerance));
            continue;
        }
        progress(&format!("[{}/{}] rung {} {} ({})", i + 1, rungs.len(), rung.id, rung.title, rung.kernel));
        let gemm = rung.launcher(gpu, &buffers)?;
        let (c, timing) = measure(gpu, &mut buffers, gemm.as_ref(), &reference, options.reps, options.warmup)?;
        rows.push(Row::rung(gpu, names, (rung.shape)(m, n), verdict(&reference, &c), timing, flops)?);
    }
    Ok(Report {
        dtype: Dtype::Bf16,
        device: gpu.info.name.clone(),
        size: options.size,
        fp32_peak_gflops: None,
        cublas,
        references: Vec::new(),
        rows,
        autotune_note: String::new(),
    })
}
