//! `host matmul`: the SGEMM ladder against cuBLAS, as a table, JSON and SVG.

use crate::args::{Flags, UsageError};
use crate::{Failure, progress};
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::{autotune, ladder, report, rungs};
use std::path::PathBuf;

pub fn run(mut flags: Flags) -> Result<(), Failure> {
    let max = u32::MAX as u64;
    let size = flags.number("--size", 1, max)?;
    let (m, n, k) = (flags.number("--m", 1, max)?, flags.number("--n", 1, max)?, flags.number("--k", 1, max)?);
    let rung_list = flags.value("--rungs")?;
    let reps = flags.number("--reps", 1, 100_000)?.map(|r| r as u32);
    let warmup = flags.number("--warmup", 0, 1000)?.unwrap_or(3) as u32;
    let json = flags.value("--json")?.map(PathBuf::from);
    let svg = flags.value("--svg")?.map(PathBuf::from);
    let tune = flags.switch("--tune")?;
    let tune_file = PathBuf::from(flags.value("--tune-file")?.unwrap_or_else(|| autotune::DEFAULT_FILE.into()));
    let seed = flags.number("--seed", 0, u64::MAX)?.unwrap_or(2026);
    let no_cpu = flags.switch("--no-cpu")?;
    flags.finish()?;

    let size = match (size, m, n, k) {
        (Some(s), None, None, None) => (s as u32, s as u32, s as u32),
        (None, None, None, None) => (4096, 4096, 4096),
        (None, Some(m), Some(n), Some(k)) => (m as u32, n as u32, k as u32),
        (Some(_), ..) => return Err(UsageError("give either --size or --m/--n/--k, not both".into()).into()),
        _ => return Err(UsageError("--m, --n and --k go together: give all three".into()).into()),
    };
    ladder::validate_size(size)?;
    let options = ladder::Options { size, reps, warmup, seed };
    // Check the rung list before starting the GPU.
    let placeholder = rungs::ladder(kernels_gpu::matmul::r08_autotuned::CONFIGS[0].kernel);
    if let Some(list) = &rung_list {
        rungs::select(&placeholder, list).map_err(|e| UsageError(e.to_string()))?;
    }

    let gpu = Gpu::open()?;
    if tune {
        let (mut buffers, reference) = ladder::prepare(&gpu, &options, &mut progress)?;
        let results = autotune::tune(&gpu, &mut buffers, &reference, &tune_file, &mut progress)?;
        println!("autotuning at {}x{}x{} on {}:", size.0, size.1, size.2, gpu.info.name);
        for c in &results {
            let speed = c.gflops.map_or(format!("{:>9}", "-"), |g| format!("{g:>9.0}"));
            println!("  {:<32} {speed} GFLOP/s  {}", autotune::shape(&c.config), c.outcome);
        }
        println!("wrote {}", tune_file.display());
    }

    let choice = autotune::choose(&tune_file, &gpu.info.name);
    let all = rungs::ladder(choice.config.kernel);
    let selected = match &rung_list {
        Some(list) => rungs::select(&all, list)?,
        None => all,
    };
    let result = ladder::run(&gpu, &selected, &options, choice.note, &mut progress)?;
    print!("{}", report::table(&result));
    let cpu = (!no_cpu).then(|| ptx_ladder::matmul::cpu::run(size, seed, None, &mut progress));
    if let Some(cpu) = &cpu {
        print!("{}", report::cpu_lines(&result, cpu));
    }
    if let Some(path) = json {
        write(&path, &report::json(&result))?;
    }
    if let Some(path) = svg {
        write(&path, &report::svg(&result))?;
    }
    if !result.all_correct() || cpu.is_some_and(|c| !c.verdict.passed()) {
        return Err(ptx_ladder::Error::new("some results were WRONG (see the table)").into());
    }
    Ok(())
}

fn write(path: &PathBuf, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text).map_err(|e| ptx_ladder::Error::new(format!("writing {}: {e}", path.display())))?;
    println!("wrote {}", path.display());
    Ok(())
}
