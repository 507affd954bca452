//! `ptx-ladder info`: what the driver reports, and the two ceilings it
//! implies; `--svg` draws the GPU.

use crate::Failure;
use crate::cli::InfoArgs;
use crate::output::{Files, check_writable, out, outln};
use ptx_ladder::device::Gpu;
use ptx_ladder::labs::models::memory::{self, Capacities, Chip, Measured};
use ptx_ladder::labs::models::occupancy::arch_for_compute_capability;
use ptx_ladder::labs::picture::{self, ChipView};

pub fn run(args: InfoArgs) -> Result<(), Failure> {
    if let Some(path) = &args.svg {
        check_writable("--svg", path)?;
    }
    let mut files = Files::default();
    let measured = match &args.memory_json {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| Measured::from_json(&text))
                .map_err(|e| ptx_ladder::Error::new(format!("reading {}: {e}", path.display())))?,
        ),
        None => None,
    };
    if let Some(chip) = args.arch {
        // A known GPU from the architecture tables: no GPU needed.
        outln!(
            "{} (from the architecture tables, compute capability {}.{}):",
            chip.name,
            chip.compute_capability.0,
            chip.compute_capability.1
        )?;
        for (name, value) in known_gpu_rows(chip) {
            outln!("  {name:<26} {value}")?;
        }
        outln!("\nwhere a number can live:")?;
        out!("{}", Capacities::of_chip(chip).table())?;
        if let Some(path) = &args.svg {
            files.write(path, &picture::svg(&ChipView::of_chip(chip), measured.as_ref()))?;
        }
        return files.finish();
    }
    let gpu = Gpu::open().map_err(|e| match e.is_no_gpu() {
        true => ptx_ladder::Error::no_gpu(format!(
            "{e}; `ptx-ladder info --arch NAME` describes a known GPU without one ({})",
            memory::ACCEPTED_NAMES
        )),
        false => e,
    })?;
    let i = &gpu.info;
    let (free, total) = gpu.memory()?;
    outln!("GPU 0: {} (compute capability {}.{})", i.name, i.compute_capability.0, i.compute_capability.1)?;
    let rows = [
        ("multiprocessors (SMs)", i.multiprocessors.to_string()),
        ("warp size", format!("{} threads", i.warp_size)),
        ("threads per block", format!("up to {}", i.max_threads_per_block)),
        ("threads per SM", format!("up to {} ({} warps)", i.max_threads_per_multiprocessor, i.max_warps_per_multiprocessor())),
        ("blocks per SM", format!("up to {}", i.max_blocks_per_multiprocessor)),
        ("registers per SM", format!("{} × 32-bit", i.registers_per_multiprocessor)),
        ("registers per block", format!("up to {}", i.registers_per_block)),
        ("shared memory per SM", kb(i.shared_per_multiprocessor)),
        (
            "shared memory per block",
            format!(
                "{} by default, {} with opt-in ({} reserved by the system)",
                kb(i.shared_per_block),
                kb(i.shared_per_block_optin),
                kb(i.shared_reserved_per_block)
            ),
        ),
        ("L2 cache", format!("{:.1} MB", i.l2_bytes as f64 / 1048576.0)),
        ("SM clock (max)", format!("{} MHz", i.sm_clock_khz / 1000)),
        (
            "memory",
            format!(
                "{:.1} GB ({:.1} GB free), {}-bit bus at {} MHz",
                total as f64 / 1e9,
                free as f64 / 1e9,
                i.memory_bus_bits,
                i.memory_clock_khz / 1000
            ),
        ),
        (
            "FP32 peak",
            match (i.fp32_lanes_per_multiprocessor(), i.fp32_peak_flops()) {
                (Some(lanes), Some(peak)) => format!(
                    "{} SMs × {lanes} FP32 lanes × 2 FLOP (FMA) × {:.3} GHz = {:.1} TFLOP/s",
                    i.multiprocessors,
                    i.sm_clock_khz as f64 / 1e6,
                    peak / 1e12
                ),
                _ => format!(
                    "unknown: no FP32 lane count on record for compute capability {}.{}",
                    i.compute_capability.0, i.compute_capability.1
                ),
            },
        ),
        (
            "DRAM bandwidth",
            format!(
                "2 (DDR) × {} MHz × {} bit / 8 = {:.0} GB/s, from the driver's memory clock (`ptx-ladder vecadd` measures the real copy rate)",
                i.memory_clock_khz / 1000,
                i.memory_bus_bits,
                i.dram_bandwidth() / 1e9
            ),
        ),
        (
            "kernels",
            format!(
                "PTX for {}, compiled by the driver for sm_{}{} when loaded",
                ptx_ladder::PTX_ARCH,
                i.compute_capability.0,
                i.compute_capability.1
            ),
        ),
    ];
    for (name, value) in rows {
        outln!("  {name:<26} {value}")?;
    }
    if gpu.is_hopper() {
        // A cluster's blocks run on SMs of one GPC, so sizes that do not
        // divide the GPCs' SMs fit fewer clusters than SMs / size.
        let clusters = match ptx_ladder::matmul::hopper::gemm_cluster_slots(&gpu) {
            Ok(slots) => {
                let sizes: Vec<String> = (1..=slots.0.len() as u32).map(|size| format!("{} of {size}", slots.of(size))).collect();
                format!("{} (blocks of the Hopper GEMMs, one per SM)", sizes.join(", "))
            }
            Err(e) => format!("unknown: {e}"),
        };
        outln!("  {:<26} {clusters}", "clusters at once")?;
    }
    if let Some(path) = &args.svg {
        files.write(path, &picture::svg(&ChipView::of_device(i), measured.as_ref()))?;
    }
    files.finish()
}

fn kb(bytes: impl Into<u64>) -> String {
    format!("{:.1} KB", bytes.into() as f64 / 1024.0)
}

/// The rows `info` prints for a GPU, from the architecture tables (the
/// memory model's chips and the occupancy calculator's limits) instead of
/// the driver.
fn known_gpu_rows(chip: &Chip) -> Vec<(&'static str, String)> {
    let (major, minor) = chip.compute_capability;
    let mut rows = vec![("multiprocessors (SMs)", chip.sms.to_string()), ("warp size", "32 threads".to_string())];
    if let Some(a) = arch_for_compute_capability(major, minor) {
        rows.extend([
            ("threads per block", format!("up to {}", a.max_threads_per_block)),
            ("threads per SM", format!("up to {} ({} warps)", a.max_threads_per_sm, a.max_warps_per_sm())),
            ("blocks per SM", format!("up to {}", a.max_blocks_per_sm)),
            ("registers per SM", format!("{} × 32-bit", chip.registers_per_sm)),
            ("registers per thread", format!("up to {}", a.max_registers_per_thread)),
            ("shared memory per SM", format!("{} (of {} shared with L1)", kb(chip.shared_per_sm), kb(chip.l1_shared_per_sm))),
            (
                "shared memory per block",
                format!(
                    "48.0 KB by default, {} with opt-in ({} reserved by the system)",
                    kb(a.shared_per_block_max),
                    kb(a.shared_reserved_per_block)
                ),
            ),
        ]);
    }
    let peak = chip.sms as f64 * chip.fp32_lanes_per_sm as f64 * 2.0 * chip.sm_clock_mhz as f64 / 1e6;
    rows.extend([
        ("L2 cache", format!("{:.1} MB", chip.l2_bytes as f64 / 1048576.0)),
        ("SM clock (max)", format!("{} MHz", chip.sm_clock_mhz)),
        ("memory", format!("{:.1} GB, {:.0} GB/s (datasheet)", chip.dram_bytes as f64 / 1e9, chip.dram_gbps)),
        (
            "FP32 peak",
            format!(
                "{} SMs × {} FP32 lanes × 2 FLOP (FMA) × {:.3} GHz = {peak:.1} TFLOP/s",
                chip.sms,
                chip.fp32_lanes_per_sm,
                chip.sm_clock_mhz as f64 / 1e3
            ),
        ),
        ("tensor cores", format!("{} per SM, {} in all", chip.tensor_cores_per_sm, chip.tensor_cores_per_sm * chip.sms)),
    ]);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_ladder::labs::models::memory::CHIPS;

    #[test]
    fn every_known_gpu_has_every_row() {
        for chip in CHIPS {
            let rows = known_gpu_rows(chip);
            let names: Vec<&str> = rows.iter().map(|(name, _)| *name).collect();
            for wanted in [
                "multiprocessors (SMs)",
                "threads per SM",
                "registers per SM",
                "shared memory per block",
                "L2 cache",
                "SM clock (max)",
                "FP32 peak",
            ] {
                assert!(names.contains(&wanted), "{}: no {wanted} in {names:?}", chip.name);
            }
        }
        let h200 = known_gpu_rows(memory::chip_by_name("H200").unwrap());
        let value = |name: &str| h200.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).unwrap_or_default();
        assert_eq!(value("multiprocessors (SMs)"), "132");
        assert_eq!(value("L2 cache"), "60.0 MB");
        // 132 × 128 × 2 × 1.98 GHz.
        assert!(value("FP32 peak").ends_with("= 66.9 TFLOP/s"), "{}", value("FP32 peak"));
        assert_eq!(value("shared memory per block"), "48.0 KB by default, 227.0 KB with opt-in (1.0 KB reserved by the system)");
    }
}
