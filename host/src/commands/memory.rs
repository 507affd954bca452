//! `ptx-ladder memory`: capacities, bandwidth against working-set size,
//! shared memory against its model, and latencies by pointer chasing.

use super::labs::{lab_command, write_svg};
use crate::Failure;
use crate::cli::MemoryArgs;
use crate::output::{Files, check_writable, out, outln};
use crate::progress::tracked;
use ptx_ladder::device::Gpu;
use ptx_ladder::labs::memory;
use ptx_ladder::labs::models::memory::{Capacities, Chip, a6000_shared_to_dram, chip_by_name, shared_bandwidth_model};
use ptx_ladder::labs::picture::{self, ChipView};

pub fn memory_command(args: MemoryArgs) -> Result<(), Failure> {
    if let Some(path) = &args.json {
        check_writable("--json", path)?;
    }
    if let Some(chip) = args.arch {
        // The model has no measurements to save as JSON (clap refuses
        // --json with --arch); its picture is the chip drawn to scale.
        super::labs::check_svg(&args.svg.svg)?;
        model(chip)?;
        let mut files = Files::default();
        write_svg(&mut files, &args.svg.svg, || Ok(picture::svg(&ChipView::of_chip(chip), None)))?;
        return files.finish();
    }
    lab_command(&args.svg.svg.clone(), |gpu, files| memory_lab(gpu, &args, files))
}

/// The lab: on a GPU, the measurements; without one, the H200's model.
pub fn memory_lab(gpu: Option<&Gpu>, args: &MemoryArgs, files: &mut Files) -> Result<(), Failure> {
    super::exercise::your_turn(&[12], "a halo staged once in shared memory")?;
    let Some(gpu) = gpu else {
        // The model needs no GPU; the H200 is the machine the numbers in the
        // README come from.
        return model(chip_by_name("H200").map_err(ptx_ladder::Error::new)?);
    };
    let max_bytes = args.max_mib << 20;
    let settings = if args.quick { memory::Settings::quick(max_bytes) } else { memory::Settings::full(max_bytes, args.reps) };
    let m = tracked(|progress| memory::run(gpu, &settings, progress))?;
    outln!("where a number can live on {} (driver; L1 size from the architecture table):", m.device)?;
    out!("{}", m.capacities.table())?;
    outln!("{}", m.capacities.comparison())?;
    outln!("\nread bandwidth against working-set size (128-bit loads, every thread's sum checked):")?;
    out!("{}", memory::bandwidth_table(&m))?;
    outln!("")?;
    out!("{}", memory::shared_summary(&m))?;
    outln!("\nlatency: one thread, each load waiting for the one before, timed with the SM clock (%clock64):")?;
    out!("{}", memory::latency_table(&m))?;
    if let Some(path) = &args.json {
        files.write(path, &m.to_json())?;
    }
    write_svg(files, &args.svg.svg, || Ok(memory::svg(&m)))
}

/// The model alone, for a known GPU: no GPU needed.
fn model(chip: &Chip) -> Result<(), Failure> {
    let caps = Capacities::of_chip(chip);
    outln!("where a number can live on the {} (architecture tables):", chip.name)?;
    out!("{}", caps.table())?;
    outln!("{}", caps.comparison())?;
    let shared = shared_bandwidth_model(chip.sms, chip.sm_clock_mhz as f64) / 1e9;
    let (_, a6000) = a6000_shared_to_dram();
    outln!(
        "shared memory (model): 128 B/clock x {} SMs x {} MHz = {shared:.0} GB/s = {:.1}x its {:.0} GB/s DRAM (the texts' A6000: {a6000:.1}x)",
        chip.sms,
        chip.sm_clock_mhz,
        shared / chip.dram_gbps,
        chip.dram_gbps
    )
}
