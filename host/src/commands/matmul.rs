//! `ptx-ladder matmul`: the SGEMM ladder (or, with `--dtype bf16`, the BF16
//! ladder) against cuBLAS, as a table, JSON and SVG.

use super::{no_gpu, open_gpu};
use crate::Failure;
use crate::cli::{LadderType, MatmulArgs};
use crate::output::{Files, check_writable, out, outln};
use crate::progress::tracked;
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::cpu::{self, CpuRow};
use ptx_ladder::matmul::element::Element;
use ptx_ladder::matmul::rung::{self, Ladder};
use ptx_ladder::matmul::{autotune, bf16, ladder, report, sgemm};
use std::path::Path;

pub fn run(args: MatmulArgs) -> Result<(), Failure> {
    let size = match (args.size, args.m, args.n, args.k) {
        (Some(s), ..) => (s, s, s),
        (None, Some(m), Some(n), Some(k)) => (m, n, k),
        // clap makes --m, --n and --k go together.
        _ => (4096, 4096, 4096),
    };
    ladder::validate_size(size)?;
    let options = ladder::Options { size, reps: args.reps, warmup: args.warmup, seed: args.seed };
    if args.tune && args.dtype == LadderType::Bf16 {
        return Err(Failure::Usage("--tune tunes the SGEMM ladder's rung 8; leave it out with --dtype bf16".into()));
    }
    // Check the rung list and the output paths before starting the GPU
    // (rung 8's tile shape does not change the ladder's ids).
    let placeholder = &kernels_gpu::sgemm::r08_autotuned::CONFIGS[0].kernel;
    if let Some(list) = &args.rungs {
        let checked = match args.dtype {
            LadderType::F32 => sgemm::ladder(placeholder).select(list).map(drop),
            LadderType::Bf16 => bf16::ladder().select(list).map(drop),
            LadderType::All if list.trim().eq_ignore_ascii_case(rung::ALL) => Ok(()),
            LadderType::All => {
                return Err(Failure::Usage("--rungs names the rungs of one ladder; give --dtype f32 or --dtype bf16 with it".into()));
            }
        };
        checked.map_err(|e| Failure::Usage(e.to_string()))?;
    }
    for (flag, path) in [("--json", &args.json), ("--svg", &args.svg)] {
        if let Some(path) = path {
            check_writable(flag, path)?;
        }
    }
    if args.tune {
        // The default file lives in target/, which a fresh checkout lacks; a
        // folder the user named must exist, as for --svg and --json.
        if args.tune_file == Path::new(autotune::DEFAULT_FILE)
            && let Some(dir) = args.tune_file.parent()
        {
            let _ = std::fs::create_dir_all(dir);
        }
        check_writable("--tune-file", &args.tune_file)?;
    }

    let gpu = open_gpu()?.map_err(|e| no_gpu(&e))?;
    let mut files = Files::default();
    let mut reports = Vec::new();
    if args.dtype != LadderType::Bf16 {
        reports.push(sgemm_ladder(&gpu, &args, &options, &mut files)?);
    }
    if args.dtype != LadderType::F32 {
        let selected = selection(bf16::ladder(), &args)?;
        let report = tracked(|progress| -> ptx_ladder::Result<_> {
            let (mut buffers, reference) = ladder::prepare(&gpu, &options, progress)?;
            ladder::run(&gpu, &selected, &mut buffers, &reference, &options, progress)
        })?;
        reports.push((report, None));
    }
    finish(&reports, &args, files)
}

/// The rungs `--rungs` names (all of them without it).
fn selection<E: Element>(ladder: Ladder<E>, args: &MatmulArgs) -> ptx_ladder::Result<Ladder<E>> {
    match &args.rungs {
        Some(list) => ladder.select(list),
        None => Ok(ladder),
    }
}

/// The SGEMM ladder (tuning rung 8 first with `--tune`, on the same inputs
/// and reference) and the CPU row.
fn sgemm_ladder(
    gpu: &Gpu,
    args: &MatmulArgs,
    options: &ladder::Options,
    files: &mut Files,
) -> Result<(ladder::Report, Option<CpuRow>), Failure> {
    let size = options.size;
    let (mut buffers, reference) = tracked(|progress| ladder::prepare::<f32>(gpu, options, progress))?;
    let mut tuned = None;
    if args.tune {
        let (results, best) = tracked(|progress| autotune::tune(gpu, &mut buffers, &reference, progress))?;
        outln!("autotuning at {}x{}x{} on {}:", size.0, size.1, size.2, gpu.info.name)?;
        for c in &results {
            let speed = c.gflops.map_or(format!("{:>9}", "-"), |g| format!("{g:>9.0}"));
            outln!("  {:<32} {speed} GFLOP/s  {}", autotune::shape(&c.config), c.outcome)?;
        }
        files.record(&args.tune_file, autotune::save(&args.tune_file, &best).map_err(|e| e.to_string()))?;
        tuned = Some(best);
    }

    // A fresh tuning result is used even if its file could not be written.
    let choice = match &tuned {
        Some(t) => autotune::chosen(t, &args.tune_file.display().to_string()),
        None => autotune::choose(&args.tune_file, &gpu.info.name),
    };
    let all = Ladder { note: choice.note, ..sgemm::ladder(&choice.config.kernel) };
    let selected = selection(all, args)?;
    let result = tracked(|progress| ladder::run(gpu, &selected, &mut buffers, &reference, options, progress))?;
    // The same SGEMM on every CPU core: the bargain the texts open with.
    let cpu = (!args.no_cpu).then(|| tracked(|progress| cpu::run(size, args.seed, None, progress)));
    Ok((result, cpu))
}

/// Prints each ladder's table (and the CPU row, if measured), writes the
/// files asked for (both ladders in one JSON array and one picture when
/// there are two), and fails on a wrong result.
fn finish(reports: &[(ladder::Report, Option<CpuRow>)], args: &MatmulArgs, mut files: Files) -> Result<(), Failure> {
    for (i, (result, cpu)) in reports.iter().enumerate() {
        if i > 0 {
            outln!("")?;
        }
        outln!("{}", report::table(result).trim_end())?;
        if let Some(cpu) = cpu {
            out!("{}", report::cpu_lines(result, cpu))?;
        }
    }
    if let Some(path) = &args.json {
        let documents: Vec<String> = reports.iter().map(|(r, _)| report::json(r).trim_end().to_string()).collect();
        let text = if documents.len() == 1 { documents.concat() } else { format!("[{}]", documents.join(",")) };
        files.write(path, &format!("{text}\n"))?;
    }
    if let Some(path) = &args.svg {
        let pictures: Vec<String> = reports.iter().map(|(r, _)| report::svg(r)).collect();
        files.write(path, &ptx_ladder::svg::stack(&pictures))?;
    }
    files.finish()?;
    let wrong = reports.iter().any(|(r, cpu)| !r.all_correct() || cpu.as_ref().is_some_and(|c| !c.verdict.passed()));
    if wrong {
        return Err(ptx_ladder::Error::new("some results were WRONG (see the table)").into());
    }
    Ok(())
}
