//! Runs a ladder on the GPU, for either element type: cuBLAS, its
//! reference rows and every selected rung on the same device buffers, each
//! checked against the f64 reference and then timed.

use super::buffers::Buffers;
use super::check::{Reference, Verdict, reference_rows, verdict};
use super::cublas::Cublas;
use super::dtype::Dtype;
use super::element::{Element, Gemm};
use super::rung::{Ladder, Rung};
use crate::device::{Gpu, KernelResources, PtxModule, Timing};
use crate::error::{Error, Result};

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

/// A GEMM's size written `N` (N×N×N) or `MxNxK` (as `1x4096x14336`),
/// whole numbers from 1, checked by [`validate_size`].
pub fn parse_size(text: &str) -> Result<(u32, u32, u32)> {
    let numbers: Option<Vec<u32>> = text.split('x').map(|part| part.trim().parse().ok().filter(|&v: &u32| v > 0)).collect();
    let size = match numbers.as_deref() {
        Some(&[n]) => (n, n, n),
        Some(&[m, n, k]) => (m, n, k),
        _ => return Err(Error::new(format!("{text:?} is not a size: want N (for N×N×N) or MxNxK, whole numbers from 1"))),
    };
    validate_size(size)?;
    Ok(size)
}

/// Runs `gemm` once on a reset C and returns C (for checking), then, if
/// that result is correct, times it: `warmup` untimed runs and `reps` timed
/// ones (None: enough for about a second, between 5 and 10000).
pub fn measure<E: Element>(
    gpu: &Gpu,
    buffers: &mut Buffers<E>,
    gemm: &dyn Gemm<E>,
    reference: &Reference,
    reps: Option<u32>,
    warmup: u32,
) -> Result<(Vec<f32>, Option<Timing>)> {
    measure_on_copies(gpu, buffers, &[gemm], reference, reps, warmup)
}

/// [`measure`] with `gemms[i]` prepared for copy `i` of the inputs (see
/// [`Buffers::copy_inputs`]; one gemm serves every copy when it takes its
/// inputs at each call): checked on the first copy, timed with the runs
/// taking the copies in turn.
pub fn measure_on_copies<E: Element>(
    gpu: &Gpu,
    buffers: &mut Buffers<E>,
    gemms: &[&dyn Gemm<E>],
    reference: &Reference,
    reps: Option<u32>,
    warmup: u32,
) -> Result<(Vec<f32>, Option<Timing>)> {
    let copies = buffers.input_copies();
    assert!(gemms.len() == 1 || gemms.len() == copies, "{} gemms for {copies} copies of the inputs", gemms.len());
    buffers.reset_c(gpu)?;
    gemms[0].run(gpu, &buffers.args_of(0))?;
    let c = buffers.download_c(gpu)?;
    if !verdict(reference, &c).passed() {
        return Ok((c, None));
    }
    let args: Vec<_> = (0..copies).map(|copy| buffers.args_of(copy)).collect();
    let mut turn = 0;
    let mut run = || {
        let copy = turn % copies;
        turn += 1;
        gemms[copy % gemms.len()].run(gpu, &args[copy])
    };
    Ok((c, Some(time(gpu, reps, warmup, &mut run)?)))
}

/// `rung`'s kernel prepared for every copy of the inputs, in order.
fn prepare_on_copies<E: Element>(gpu: &Gpu, rung: &Rung<E>, buffers: &mut Buffers<E>) -> Result<Vec<Box<dyn Gemm<E>>>> {
    let mut gemms = Vec::with_capacity(buffers.input_copies());
    for copy in 0..buffers.input_copies() {
        buffers.use_copy(copy);
        let gemm = rung.prepare(gpu, buffers);
        buffers.use_copy(0);
        gemms.push(gemm?);
    }
    Ok(gemms)
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
    /// Why the rung ran what it ran (the "auto" rung's pick), for a line
    /// under the table.
    pub note: Option<String>,
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
            note: None,
        }
    }

    /// A rung's row, with the resources the driver reports for its kernel
    /// at this launch shape.
    pub fn rung<E: Element>(
        gpu: &Gpu,
        rung: &Rung<E>,
        size: (u32, u32, u32),
        verdict: Verdict,
        timing: Option<Timing>,
        flops: f64,
    ) -> Result<Row> {
        let shape = rung.kernel.shape(gpu, size);
        let (module, kernel) = rung.kernel.entry(gpu, size);
        let blocks = gpu.resident_blocks_in(module, kernel, shape)?;
        let warps_per_block = shape.block.volume().div_ceil(gpu.info.warp_size as u64) as f64;
        Ok(Row {
            id: rung.id.into(),
            title: rung.title.into(),
            kernel: kernel.into(),
            verdict,
            gflops: timing.as_ref().map(|t| t.billions_per_second(flops)),
            timing,
            resources: Some(gpu.resources_in(module, kernel)?),
            dynamic_shared_bytes: shape.shared_bytes,
            blocks_per_sm: Some(blocks),
            occupancy: Some(blocks as f64 * warps_per_block / gpu.info.max_warps_per_multiprocessor() as f64),
            skipped: None,
            note: rung.kernel.explain(gpu, size),
        })
    }

    /// A rung that cannot run here, and why.
    pub fn skipped((id, title, kernel): (&str, &str, &str), why: String) -> Row {
        Row {
            id: id.into(),
            title: title.into(),
            kernel: kernel.into(),
            verdict: Verdict::passing(0.0),
            timing: None,
            gflops: None,
            resources: None,
            dynamic_shared_bytes: 0,
            blocks_per_sm: None,
            occupancy: None,
            skipped: Some(why),
            note: None,
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

/// Uploads random inputs of type `E` and computes the reference for
/// `options.size`.
pub fn prepare<E: Element>(gpu: &Gpu, options: &Options, progress: &mut dyn FnMut(&str)) -> Result<(Buffers<E>, Reference)> {
    validate_size(options.size)?;
    let (m, n, k) = options.size;
    progress(&format!("generating random {} {m}x{k} and {k}x{n} inputs", E::DTYPE.name()));
    let problem = E::random(options.size, options.seed);
    let buffers = Buffers::upload(gpu, &problem)?;
    let rows = reference_rows(m, n, k, options.seed ^ 0x7e57);
    progress(&format!("computing the f64 reference for {} of {m} rows on the CPU", rows.len()));
    let reference = E::reference(&problem, rows);
    Ok((buffers, reference))
}

/// Runs cuBLAS (if found), its reference rows and then every rung of
/// `ladder` on `buffers` (from [`prepare`] at `options.size`); rungs this
/// GPU or shape cannot run are listed as skipped.
pub fn run<E: Element>(
    gpu: &Gpu,
    ladder: &Ladder<E>,
    buffers: &mut Buffers<E>,
    reference: &Reference,
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Report> {
    let size = buffers.size();
    let flops = buffers.flops();
    let capability = gpu.info.compute_capability;
    let runs_here = |r: &&Rung<E>| r.skip_reason(capability, size).is_none();
    if ladder.rungs.iter().filter(runs_here).any(|r| r.kernel.module() == PtxModule::Sm90a) {
        // The driver compiles the sm_90a PTX on first use (seconds, once
        // per driver cache): do it now, not between two timed rows, where
        // the idle GPU would boost the next row's clock.
        gpu.hopper_module()?;
    }
    let (cublas, references) = libraries(gpu, buffers, reference, options, progress)?;
    let mut rows = Vec::new();
    let total = ladder.rungs.len();
    for (i, rung) in ladder.rungs.iter().enumerate() {
        let what = format!("rung {} {} ({})", rung.id, rung.title, rung.kernel.name());
        if let Some(why) = rung.skip_reason(capability, size) {
            progress(&crate::progress::step(i, total, &format!("{what}: skipped, {why}")));
            rows.push(Row::skipped((rung.id, rung.title, rung.kernel.name()), why));
            continue;
        }
        progress(&crate::progress::step(i, total, &what));
        let gemms = prepare_on_copies(gpu, rung, buffers)?;
        let gemms: Vec<&dyn Gemm<E>> = gemms.iter().map(|gemm| gemm.as_ref()).collect();
        let reference = reference.for_arithmetic(rung.kernel.arithmetic_at(gpu, size));
        let (c, timing) = measure_on_copies(gpu, buffers, &gemms, &reference, options.reps, options.warmup)?;
        rows.push(Row::rung(gpu, rung, size, verdict(&reference, &c), timing, flops)?);
    }
    Ok(Report {
        dtype: E::DTYPE,
        device: gpu.info.name.clone(),
        size,
        // The FP32 peak is a ceiling for the SGEMM ladder only.
        fp32_peak_gflops: gpu.info.fp32_peak_flops().filter(|_| E::DTYPE == Dtype::F32).map(|f| f / 1e9),
        cublas,
        references,
        rows,
        autotune_note: ladder.note.clone(),
    })
}

/// cuBLAS at `E` (the baseline) and the library rows shown beside it, or
/// why cuBLAS did not load.
fn libraries<E: Element>(
    gpu: &Gpu,
    buffers: &mut Buffers<E>,
    reference: &Reference,
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<(std::result::Result<Row, String>, Vec<Row>)> {
    let cublas = match Cublas::load(gpu) {
        Ok(cublas) => cublas,
        Err(e) => return Ok((Err(e.to_string()), Vec::new())),
    };
    let flops = buffers.flops();
    let title = E::cublas_title(&cublas.version_string());
    progress(&format!("{title} (baseline)"));
    let args = buffers.args();
    preheat(gpu, options.reps, &mut || Gemm::<E>::run(&cublas, gpu, &args))?;
    let (c, timing) = measure(gpu, buffers, &cublas, reference, options.reps, options.warmup)?;
    let baseline = Row::library(title, E::CUBLAS_CALL, verdict(reference, &c), timing, flops);
    let mut references = Vec::new();
    for library in E::references(&cublas) {
        progress(&library.title);
        let bound = library.arithmetic.map(|arithmetic| reference.for_arithmetic(arithmetic));
        let reference = bound.as_ref().unwrap_or(reference);
        let (c, timing) = measure(gpu, buffers, library.gemm.as_ref(), reference, options.reps, options.warmup)?;
        references.push(Row::library(library.title, library.call, verdict(reference, &c), timing, flops));
    }
    Ok((Ok(baseline), references))
}

#[cfg(test)]
mod tests {
    use super::{parse_size, validate_size};

    #[test]
    fn sizes_are_validated() {
        assert!(validate_size((1, 1, 1)).is_ok());
        assert!(validate_size((4097, 1023, 513)).is_ok());
        assert!(validate_size((0, 5, 5)).unwrap_err().message().contains("at least 1"));
        let err = validate_size((65536, 65536, 1)).unwrap_err();
        assert!(err.message().contains("C (M×N) would have 4294967296 elements"), "{err}");
        assert!(validate_size((46340, 46340, 46340)).is_ok());
    }

    #[test]
    fn sizes_are_read_as_n_or_m_x_n_x_k() {
        assert_eq!(parse_size("2048").unwrap(), (2048, 2048, 2048));
        assert_eq!(parse_size("1x4096x14336").unwrap(), (1, 4096, 14336));
        assert_eq!(parse_size(" 64 x 64 x 65536 ").unwrap(), (64, 64, 65536));
        for bad in ["", "0", "1x2", "1x2x3x4", "abc", "1x0x5", "-1", "4096.0"] {
            let err = parse_size(bad).unwrap_err();
            assert!(err.message().contains("want N (for N×N×N) or MxNxK"), "{bad:?}: {err}");
        }
        // Parsed, then refused for the kernels' 32-bit indices.
        assert!(parse_size("100000").unwrap_err().message().contains("32-bit indices"));
    }
}
