//! `ptx-ladder sweep`: the "auto" rung against cuBLAS over the shapes a
//! model runs, with the weights read from DRAM on every run.

use super::{no_gpu, open_gpu};
use crate::Failure;
use crate::cli::{SweepArgs, SweepType};
use crate::output::{Files, check_writable, outln};
use crate::progress::tracked;
use half::bf16;
use ptx_ladder::device::{FromDram, Gpu};
use ptx_ladder::matmul::ladder::validate_size;
use ptx_ladder::matmul::small_m::SmallMElement;
use ptx_ladder::sweep::report::{self, SweepRow};
use ptx_ladder::sweep::run::{self, SweepOptions};
use ptx_ladder::sweep::suite::{self, Shape};

pub fn run(args: SweepArgs) -> Result<(), Failure> {
    let shapes = match &args.suite {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Failure::Usage(format!("--suite {}: {e}", path.display())))?;
            suite::parse(&text).map_err(|e| Failure::Usage(format!("--suite {}: {e}", path.display())))?
        }
        None => suite::builtin(),
    };
    for shape in &shapes {
        validate_size(shape.size()).map_err(|e| Failure::Usage(format!("shape {}: {e}", shape.name)))?;
    }
    if let Some(list) = &args.rungs {
        let checked = match args.dtype {
            SweepType::F32 => <f32 as SmallMElement>::ladder().select(list).map(drop),
            SweepType::Bf16 => <bf16 as SmallMElement>::ladder().select(list).map(drop),
        };
        checked.map_err(|e| Failure::Usage(e.to_string()))?;
    }
    for (flag, path) in [("--json", &args.json), ("--svg", &args.svg)] {
        if let Some(path) = path {
            check_writable(flag, path)?;
        }
    }
    let gpu = open_gpu()?.map_err(|e| no_gpu(&e))?;
    let from_dram = match (args.hot, args.back_to_back) {
        (true, _) => None,
        (false, true) => Some(FromDram::BackToBack),
        (false, false) => Some(FromDram::FlushEachRun),
    };
    let options = SweepOptions { rungs: args.rungs.clone(), from_dram, reps: args.reps, warmup: args.warmup, seed: args.seed };
    match args.dtype {
        SweepType::F32 => sweep::<f32>(&gpu, &shapes, &options, &args),
        SweepType::Bf16 => sweep::<bf16>(&gpu, &shapes, &options, &args),
    }
}

fn sweep<E: SmallMElement>(gpu: &Gpu, shapes: &[Shape], options: &SweepOptions, args: &SweepArgs) -> Result<(), Failure> {
    let plateau = tracked(|progress| {
        progress("measuring DRAM bandwidth (the memory lab's read kernel over 1 GB)");
        run::dram_plateau(gpu)
    })?;
    let rows: Vec<SweepRow> = tracked(|progress| run::run::<E>(gpu, shapes, options, progress))?;
    let dtype = E::DTYPE.name();
    let weights = match options.from_dram {
        None => "hot L2 (inputs left in L2 by the previous run)",
        Some(FromDram::FlushEachRun) => "weights read from DRAM (L2 flushed before every run)",
        Some(FromDram::BackToBack) => "weights read from DRAM (a copy of A and B per run, runs back to back)",
    };
    let title = format!("{} sweep on {}, {weights}; DRAM reads at {plateau:.0} GB/s here", E::DTYPE.ladder(), gpu.info.name);
    outln!("{}", report::table(&title, &rows, Some(plateau)).trim_end())?;
    let mut files = Files::default();
    if let Some(path) = &args.json {
        files.write(path, &format!("{}\n", report::json(&gpu.info.name, dtype, options.from_dram, &rows)))?;
    }
    if let Some(path) = &args.svg {
        files.write(path, &report::svg(&format!("{} sweep, {}", E::DTYPE.ladder(), gpu.info.name), &rows))?;
    }
    files.finish()?;
    if rows.iter().any(|r| r.cublas.as_ref().is_some_and(|m| !m.correct) || r.ours.as_ref().is_some_and(|m| !m.correct)) {
        return Err(ptx_ladder::Error::new("some results were WRONG (see the table)").into());
    }
    Ok(())
}
