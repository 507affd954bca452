//! Runs the ladder on the GPU: every selected rung and cuBLAS on the same
//! device buffers, each checked against the f64 reference and then timed.

use super::check::{Problem, Reference, Verdict, gemm_flops, reference, reference_rows, verdict};
use super::cublas::Cublas;
use super::dtype::{Dtype, TF32_TOLERANCE};
use super::hopper::HopperGemm;
use super::rungs::Selection;
use crate::device::{GemmArgs, Gpu, KernelResources, Timing};
use crate::error::{Context as _, Error, Result};
use cust::memory::{AsyncCopyDestination, DeviceBuffer};
use kernels_gpu::launch::LaunchShape;

/// Largest matrix, in elements: kernels index with 32-bit integers.
pub const MAX_ELEMENTS: u64 = i32::MAX as u64;

/// How to run the ladder.
#[derive(Clone, Debug)]
pub struct Options {
    pub size: (u32, u32, u32),
    /// Timed runs per rung; None picks enough for about a second each.
    pub reps: Option<u32>,
    pub warmup: u32,
    pub seed: u64,
}

/// Refuses sizes the kernels cannot take, with the reason.
pub fn validate_size((m, n, k): (u32, u32, u32)) -> Result<()> {
    if m == 0 || n == 0 || k == 0 {
        return Err(Error::new(format!("matrix sizes must be at least 1 (got M={m}, N={n}, K={k})")));
    }
    for (name, rows, cols) in [("A (M×K)", m, k), ("B (K×N)", k, n), ("C (M×N)", m, n)] {
        if rows as u64 * cols as u64 > MAX_ELEMENTS {
            return Err(Error::new(format!(
                "{name} would have {} elements; the kernels use 32-bit indices, so at most {MAX_ELEMENTS}",
                rows as u64 * cols as u64
            )));
        }
    }
    Ok(())
}

/// A, B and C on the GPU, plus C's initial value when beta != 0.
pub struct GemmBuffers {
    size: (u32, u32, u32),
    alpha: f32,
    beta: f32,
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    c: DeviceBuffer<f32>,
    c_initial: Option<DeviceBuffer<f32>>,
}

impl GemmBuffers {
    pub fn upload(gpu: &Gpu, problem: &Problem) -> Result<GemmBuffers> {
        let (m, n, k) = (problem.m as u128, problem.n as u128, problem.k as u128);
        let copies_of_c = if problem.beta == 0.0 { 1 } else { 2 };
        gpu.ensure_fits(4 * (m * k + k * n + copies_of_c * m * n), "this GEMM")?;
        Ok(GemmBuffers {
            size: (problem.m, problem.n, problem.k),
            alpha: problem.alpha,
            beta: problem.beta,
            a: gpu.upload(&problem.a, "A")?,
            b: gpu.upload(&problem.b, "B")?,
            c: gpu.alloc(problem.m as usize * problem.n as usize, "C")?,
            c_initial: if problem.beta == 0.0 { None } else { Some(gpu.upload(&problem.c, "initial C")?) },
        })
    }

    pub fn size(&self) -> (u32, u32, u32) {
        self.size
    }

    pub fn flops(&self) -> f64 {
        gemm_flops(self.size)
    }

    /// The kernel arguments for these buffers.
    pub fn args(&self) -> GemmArgs<'_> {
        let (m, n, k) = self.size;
        GemmArgs { m, n, k, alpha: self.alpha, a: &self.a, b: &self.b, beta: self.beta, c: &self.c }
    }

    /// Puts C back in its pre-call state: poison when beta == 0 (so unwritten
    /// elements show), the initial values otherwise.
    fn reset_c(&mut self, gpu: &Gpu) -> Result<()> {
        match &self.c_initial {
            None => gpu.poison(&mut self.c),
            Some(initial) => unsafe { self.c.async_copy_from(initial, gpu.stream()) }.context("restoring C"),
        }
    }
}

/// Something that computes the GEMM on the buffers: a rung or cuBLAS.
pub trait Gemm {
    fn run(&self, gpu: &Gpu, args: &GemmArgs) -> Result<()>;
}

impl Gemm for kernels_gpu::sgemm::GemmKernel {
    fn run(&self, gpu: &Gpu, args: &GemmArgs) -> Result<()> {
        gpu.sgemm(self, args)
    }
}

impl Gemm for Cublas {
    fn run(&self, _gpu: &Gpu, args: &GemmArgs) -> Result<()> {
        self.sgemm((args.m, args.n, args.k), args.alpha, args.a, args.b, args.beta, args.c)
    }
}

/// The 3xTF32 wgmma rung, prepared for one size (its split buffers and
/// tensor maps).
impl Gemm for HopperGemm {
    fn run(&self, gpu: &Gpu, args: &GemmArgs) -> Result<()> {
        self.run_tf32x3(gpu, args)
    }
}

/// cuBLAS on the TF32 tensor cores: a reference row beside SGEMM.
pub struct CublasTf32<'a>(pub &'a Cublas);

impl Gemm for CublasTf32<'_> {
    fn run(&self, _gpu: &Gpu, args: &GemmArgs) -> Result<()> {
        if args.alpha != 1.0 || args.beta != 0.0 {
            return Err(Error::new("the TF32 reference row computes C = A·B only (alpha 1, beta 0)"));
        }
        self.0.sgemm_tf32((args.m, args.n, args.k), args.a, args.b, args.c)
    }
}

/// Runs `gemm` once on a reset C and returns C (for checking), then, if
/// that result is correct, times it: `warmup` untimed runs and `reps` timed
/// ones (None: enough for about a second, between 5 and 10000).
pub fn measure(
    gpu: &Gpu,
    buffers: &mut GemmBuffers,
    gemm: &dyn Gemm,
    reference: &Reference,
    reps: Option<u32>,
    warmup: u32,
) -> Result<(Vec<f32>, Option<Timing>)> {
    buffers.reset_c(gpu)?;
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

/// About a second of untimed runs, before the first row of a table is
/// timed, when rows are timed for about a second each (`reps` is None).
/// An H200 that was idle (while the CPU made the inputs and the reference)
/// runs its first second or so of GEMMs above the clock its power limit
/// then holds (1.7-1.9 GHz against about 1.5), so without this the first
/// row, the baseline, would be timed faster than the rows after it.
pub fn preheat(gpu: &Gpu, reps: Option<u32>, run: &mut dyn FnMut() -> Result<()>) -> Result<()> {
    if reps.is_none() {
        time(gpu, None, 0, run)?;
    }
    Ok(())
}

/// Times `run`: `warmup` untimed runs, then `reps` timed ones (None: enough
/// for about a second, between 5 and 10000).
pub fn time(gpu: &Gpu, reps: Option<u32>, warmup: u32, run: &mut dyn FnMut() -> Result<()>) -> Result<Timing> {
    let reps = match reps {
        Some(r) => r,
        None => {
            // The first run may include loading the kernel (cuBLAS loads
            // its kernels lazily): size the timing from the fastest of a
            // few runs after it.
            let probe = gpu.time(1, 3, &mut *run)?;
            (1000.0 / probe.min_ms.max(1e-3)).clamp(5.0, 10_000.0) as u32
        }
    };
    gpu.time(warmup, reps, run)
}

/// One line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: String,
    pub title: String,
    pub kernel: String,
    pub verdict: Verdict,
    /// None when the result was wrong (not timed).
    pub timing: Option<Timing>,
    pub gflops: Option<f64>,
    pub resources: Option<KernelResources>,
    pub dynamic_shared_bytes: u32,
    pub blocks_per_sm: Option<u32>,
    /// Resident warps over the maximum, from the driver's occupancy API.
    pub occupancy: Option<f64>,
    /// Why the rung did not run here (it needs a newer GPU or another
    /// shape); such a row is neither timed nor checked, and not a failure.
    pub skipped: Option<String>,
}

impl Row {
    /// A library call's row: no kernel resources to report.
    pub fn library(title: String, kernel: &str, verdict: Verdict, timing: Option<Timing>, flops: f64) -> Row {
        Row {
            id: "-".into(),
            title,
            kernel: kernel.into(),
            verdict,
            gflops: timing.as_ref().map(|t| t.billions_per_second(flops)),
            timing,
            resources: None,
            dynamic_shared_bytes: 0,
            blocks_per_sm: None,
            occupancy: None,
            skipped: None,
        }
    }

    /// A rung's row, with the resources the driver reports for its kernel
    /// at this launch shape.
    pub fn rung(
        gpu: &Gpu,
        (id, title, kernel): (&str, &str, &str),
        shape: LaunchShape,
        verdict: Verdict,
        timing: Option<Timing>,
        flops: f64,
    ) -> Result<Row> {
        let blocks = gpu.resident_blocks(kernel, shape)?;
        let warps_per_block = shape.block.volume().div_ceil(gpu.info.warp_size as u64) as f64;
        Ok(Row {
            id: id.into(),
            title: title.into(),
            kernel: kernel.into(),
            verdict,
            gflops: timing.as_ref().map(|t| t.billions_per_second(flops)),
            timing,
            resources: Some(gpu.resources(kernel)?),
            dynamic_shared_bytes: shape.shared_bytes,
            blocks_per_sm: Some(blocks),
            occupancy: Some(blocks as f64 * warps_per_block / gpu.info.max_warps_per_multiprocessor() as f64),
            skipped: None,
        })
    }

    /// A rung that cannot run here, and why.
    pub fn skipped((id, title, kernel): (&str, &str, &str), why: String, tolerance: f64) -> Row {
        Row {
            id: id.into(),
            title: title.into(),
            kernel: kernel.into(),
            verdict: Verdict { relative_error: 0.0, nan_count: 0, tolerance },
            timing: None,
            gflops: None,
            resources: None,
            dynamic_shared_bytes: 0,
            blocks_per_sm: None,
            occupancy: None,
            skipped: Some(why),
        }
    }

    /// Ran and gave a wrong result.
    pub fn wrong(&self) -> bool {
        self.skipped.is_none() && !self.verdict.passed()
    }
}

/// Everything one `ptx-ladder matmul` run measured.
pub struct Report {
    pub dtype: Dtype,
    pub device: String,
    pub size: (u32, u32, u32),
    pub fp32_peak_gflops: Option<f64>,
    /// cuBLAS at the ladder's element type: the 100% of the % column.
    pub cublas: std::result::Result<Row, String>,
    /// Other library rows shown for reference (TF32 beside SGEMM).
    pub references: Vec<Row>,
    pub rows: Vec<Row>,
    /// How rung 8 was chosen (empty for ladders without tuning).
    pub autotune_note: String,
}

impl Report {
    /// Every rung that ran, cuBLAS and the reference rows (when present)
    /// produced correct results.
    pub fn all_correct(&self) -> bool {
        !self.rows.iter().chain(&self.references).chain(self.cublas.as_ref().ok()).any(Row::wrong)
    }
}

/// Uploads random inputs and computes the reference for `options.size`.
pub fn prepare(gpu: &Gpu, options: &Options, progress: &mut dyn FnMut(&str)) -> Result<(GemmBuffers, Reference)> {
    validate_size(options.size)?;
    let (m, n, k) = options.size;
    progress(&format!("generating random {m}x{k} and {k}x{n} inputs"));
    let problem = Problem::random(options.size, 1.0, 0.0, options.seed);
    let buffers = GemmBuffers::upload(gpu, &problem)?;
    let rows = reference_rows(m, n, k, options.seed ^ 0x7e57);
    progress(&format!("computing the f64 reference for {} of {m} rows on the CPU", rows.len()));
    let reference = reference(&problem, rows);
    Ok((buffers, reference))
}

/// Runs cuBLAS (if found) and then every rung in `rungs`.
pub fn run(gpu: &Gpu, rungs: &Selection, options: &Options, autotune_note: String, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    let (mut buffers, reference) = prepare(gpu, options, progress)?;
    let flops = buffers.flops();

    if gpu.is_hopper() && !rungs.hopper.is_empty() {
        // The driver compiles the sm_90a PTX on first use (seconds, once
        // per driver cache): do it now, not between two timed rows, where
        // the idle GPU would boost the next row's clock.
        gpu.hopper_module()?;
    }
    progress("cuBLAS SGEMM (baseline)");
    let mut references = Vec::new();
    let cublas = match Cublas::load(gpu) {
        Ok(cublas) => {
            let args = buffers.args();
            preheat(gpu, options.reps, &mut || cublas.run(gpu, &args))?;
            let (c, timing) = measure(gpu, &mut buffers, &cublas, &reference, options.reps, options.warmup)?;
            let row = Row::library(cublas.version_string(), "cublasSgemm", verdict(&reference, &c), timing, flops);
            progress("cuBLAS TF32 (reference row)");
            let loose = Reference { tolerance: TF32_TOLERANCE, ..reference.clone() };
            let tf32 = CublasTf32(&cublas);
            let (c, timing) = measure(gpu, &mut buffers, &tf32, &loose, options.reps, options.warmup)?;
            let title = format!("{} TF32 (reference)", cublas.version_string());
            references.push(Row::library(title, "cublasGemmEx TF32", verdict(&loose, &c), timing, flops));
            Ok(row)
        }
        Err(e) => Err(e.to_string()),
    };

    let mut rows = Vec::new();
    let (m, n, k) = options.size;
    for (i, rung) in rungs.portable.iter().enumerate() {
        progress(&crate::progress::step(i, rungs.len(), &format!("rung {} {} ({})", rung.id, rung.title, rung.kernel.name())));
        let (c, timing) = measure(gpu, &mut buffers, &rung.kernel, &reference, options.reps, options.warmup)?;
        let shape = (rung.kernel.launch)(m, n);
        let names = (rung.id, rung.title, rung.kernel.name());
        rows.push(Row::rung(gpu, names, shape, verdict(&reference, &c), timing, flops)?);
    }
    for (i, rung) in rungs.hopper.iter().enumerate() {
        let names = (rung.id, rung.title, rung.kernel.name());
        if !gpu.is_hopper() {
            rows.push(Row::skipped(names, "needs a Hopper GPU (sm_90)".into(), reference.tolerance));
            continue;
        }
        let step = rungs.portable.len() + i;
        progress(&crate::progress::step(step, rungs.len(), &format!("rung {} {} ({})", rung.id, rung.title, rung.kernel.name())));
        let gemm = HopperGemm::tf32x3(rung.kernel, gpu, (m, n, k))?;
        let (c, timing) = measure(gpu, &mut buffers, &gemm, &reference, options.reps, options.warmup)?;
        rows.push(Row::rung(gpu, names, gemm.shape(), verdict(&reference, &c), timing, flops)?);
    }
    Ok(Report {
        dtype: Dtype::F32,
        device: gpu.info.name.clone(),
        size: options.size,
        fp32_peak_gflops: gpu.info.fp32_peak_flops().map(|f| f / 1e9),
        cublas,
        references,
        rows,
        autotune_note,
    })
}

#[cfg(test)]
mod tests {
    use super::validate_size;

    #[test]
    fn sizes_are_validated() {
        assert!(validate_size((1, 1, 1)).is_ok());
        assert!(validate_size((4097, 1023, 513)).is_ok());
        assert!(validate_size((0, 5, 5)).unwrap_err().message().contains("at least 1"));
        let err = validate_size((65536, 65536, 1)).unwrap_err();
        assert!(err.message().contains("C (M×N) would have 4294967296 elements"), "{err}");
        assert!(validate_size((46340, 46340, 46340)).is_ok());
    }
}
