//! `host vecadd`: launch arithmetic, an exact check, and GB/s beside the
//! device-to-device copy measured in the same run.

use crate::args::Flags;
use crate::{Failure, progress};
use ptx_ladder::device::Gpu;
use ptx_ladder::vecadd::{self, COPY_BYTES, KERNEL_BYTES, Variant, gbps};

pub fn run(mut flags: Flags) -> Result<(), Failure> {
    let n = flags.number("--n", 1, vecadd::MAX_N)?.unwrap_or(1 << 28);
    let block = flags.number("--block", 1, 1024)?.unwrap_or(256) as u32;
    let reps = flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32;
    flags.finish()?;
    // Validate before touching the GPU, so mistakes are cheap.
    for variant in Variant::ALL {
        println!("{}: {}", variant.kernel(), vecadd::plan(variant, n, block)?.explain());
    }
    let gpu = Gpu::open()?;
    println!("device: {}", gpu.info.name);
    let report = vecadd::run(&gpu, n, block, reps, &mut progress)?;
    for run in &report.kernels {
        if run.mismatches.count > 0 {
            let (i, want, got) = run.mismatches.first.unwrap_or((0, 0.0, 0.0));
            return Err(ptx_ladder::Error::new(format!(
                "WRONG: {} of {n} elements from {} differ from a + b (first at index {i}: expected {want}, got {got})",
                run.mismatches.count,
                run.plan.variant.kernel()
            ))
            .into());
        }
    }
    println!("check: all {n} elements equal a + b computed on the CPU, for both kernels");
    let copy_gbps = gbps(n, COPY_BYTES, &report.copy);
    for run in &report.kernels {
        let rate = gbps(n, KERNEL_BYTES, &run.timing);
        println!(
            "{:<11} {:>9.3} ms median of {} runs → {:>6.0} GB/s = {:>5.1}% of the copy (12 bytes per element: read a, b; write c)",
            run.plan.variant.kernel(),
            run.timing.median_ms,
            run.timing.runs,
            rate,
            100.0 * rate / copy_gbps
        );
    }
    println!(
        "{:<11} {:>9.3} ms median of {} runs → {:>6.0} GB/s (device-to-device copy: 8 bytes per element)",
        "copy",
        report.copy.median_ms,
        report.copy.runs,
        copy_gbps
    );
    Ok(())
}
