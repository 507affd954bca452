//! `ptx-ladder vecadd`: launch arithmetic, an exact check, and GB/s beside
//! the device-to-device copy measured in the same run.

use super::{no_gpu, open_gpu};
use crate::Failure;
use crate::cli::VecaddArgs;
use crate::output::outln;
use crate::progress::tracked;
use ptx_ladder::text::plural;
use ptx_ladder::vecadd::{self, COPY_BYTES, KERNEL_BYTES, Variant, gbps};

pub fn run(args: VecaddArgs) -> Result<(), Failure> {
    let (n, block, reps) = (args.n, args.block, args.reps.reps);
    // The launch plans need no GPU: print them first, so mistakes are cheap.
    for variant in Variant::ALL {
        outln!("{}: {}", variant.kernel(), vecadd::plan(variant, n, block)?.explain())?;
    }
    super::exercise::your_turn(&[1], "the guard that rounding the grid up needs")?;
    let gpu = open_gpu()?.map_err(|e| no_gpu(&e))?;
    outln!("device: {}", gpu.info.name)?;
    let report = tracked(|progress| vecadd::run(&gpu, n, block, reps, progress))?;
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
    outln!("check: every element of c (n = {n}) equals a + b computed on the CPU, for both kernels")?;
    let copy_gbps = gbps(n, COPY_BYTES, &report.copy);
    for run in &report.kernels {
        let rate = gbps(n, KERNEL_BYTES, &run.timing);
        outln!(
            "{:<11} {:>9.3} ms median of {} → {:>6.0} GB/s = {:>5.1}% of the copy (12 bytes per element: read a, b; write c)",
            run.plan.variant.kernel(),
            run.timing.median_ms,
            plural(run.timing.runs as u64, "run"),
            rate,
            100.0 * rate / copy_gbps
        )?;
    }
    outln!(
        "{:<11} {:>9.3} ms median of {} → {:>6.0} GB/s (device-to-device copy: 8 bytes per element)",
        "copy",
        report.copy.median_ms,
        plural(report.copy.runs as u64, "run"),
        copy_gbps
    )?;
    Ok(())
}
