//! `host memory`: capacities, bandwidth against working-set size, shared
//! memory against its model, and latencies by pointer chasing.

use crate::args::{Flags, UsageError};
use crate::{Failure, progress};
use ptx_ladder::device::Gpu;
use ptx_ladder::labs::memory;
use ptx_ladder::labs::models::memory::{
    Capacities, a6000_shared_to_dram, chip_by_name, shared_bandwidth_model,
};
use std::path::PathBuf;

pub struct MemoryOptions {
    pub settings: memory::Settings,
    pub json: Option<PathBuf>,
    pub svg: Option<PathBuf>,
}

pub fn memory_command(mut flags: Flags) -> Result<(), Failure> {
    let max_bytes = flags
        .number("--max-mib", 1, memory::MAX_BYTES >> 20)?
        .unwrap_or(4096)
        << 20;
    let reps = flags.number("--reps", 1, 10_000)?.unwrap_or(5) as u32;
    let quick = flags.switch("--quick")?;
    let arch = flags.value("--arch")?;
    let options = MemoryOptions {
        settings: if quick {
            memory::Settings::quick(max_bytes)
        } else {
            memory::Settings::full(max_bytes, reps)
        },
        json: flags.value("--json")?.map(PathBuf::from),
        svg: flags.value("--svg")?.map(PathBuf::from),
    };
    flags.finish()?;
    match arch {
        Some(name) => memory_model(&name),
        None => memory_lab(&Gpu::open()?, &options),
    }
}

pub fn memory_lab(gpu: &Gpu, o: &MemoryOptions) -> Result<(), Failure> {
    let m = memory::run(gpu, &o.settings, &mut progress)?;
    println!(
        "where a number can live on {} (driver; L1 size from the architecture table):",
        m.device
    );
    print!("{}", m.capacities.table());
    println!("{}", m.capacities.comparison());
    println!(
        "\nread bandwidth against working-set size (128-bit loads, every thread's sum checked):"
    );
    print!("{}", memory::bandwidth_table(&m));
    println!();
    print!("{}", memory::shared_summary(&m));
    println!(
        "\nlatency: one thread, each load waiting for the one before, timed with the SM clock (%clock64):"
    );
    print!("{}", memory::latency_table(&m));
    write(&o.json, || m.to_json())?;
    write(&o.svg, || memory::svg(&m))
}

/// The model alone, for a known GPU: no GPU needed.
fn memory_model(name: &str) -> Result<(), Failure> {
    let chip = chip_by_name(name).map_err(|e| UsageError(format!("--arch: {e}")))?;
    let caps = Capacities::of_chip(chip);
    println!(
        "where a number can live on the {} (architecture tables):",
        chip.name
    );
    print!("{}", caps.table());
    println!("{}", caps.comparison());
    let shared = shared_bandwidth_model(chip.sms, chip.sm_clock_mhz as f64) / 1e9;
    let (_, a6000) = a6000_shared_to_dram();
    println!(
        "shared memory (model): 128 B/clock x {} SMs x {} MHz = {shared:.0} GB/s = {:.1}x its {:.0} GB/s DRAM (the texts' A6000: {a6000:.1}x)",
        chip.sms,
        chip.sm_clock_mhz,
        shared / chip.dram_gbps,
        chip.dram_gbps
    );
    println!("(run without --arch on a GPU to measure bandwidths and latencies)");
    Ok(())
}

/// Writes `text()` to `path` when a path was given.
pub fn write(path: &Option<PathBuf>, text: impl FnOnce() -> String) -> Result<(), Failure> {
    if let Some(path) = path {
        std::fs::write(path, text())
            .map_err(|e| ptx_ladder::Error::new(format!("writing {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
