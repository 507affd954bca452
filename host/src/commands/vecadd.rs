//! `host vecadd`: launch arithmetic, an exact check, and GB/s beside the
//! device-to-device copy measured in the same run.

use crate::args::Flags;
use crate::{Failure, progress};
use ptx_ladder::device::Gpu;
use ptx_ladder::vecadd;

pub fn run(mut flags: Flags) -> Result<(), Failure> {
    let n = flags.number("--n", 0, vecadd::MAX_N)?.unwrap_or(1 << 28);
    let block = flags.number("--block", 1, 1024)?.unwrap_or(256) as u32;
    let reps = flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32;
    flags.finish()?;
    // Validate before touching the GPU, so mistakes are cheap.
    let plan = vecadd::plan(n, block)?;
    println!("launch: {}", plan.explain());
    let gpu = Gpu::open()?;
    println!("device: {}", gpu.info.name);
    let report = vecadd::run(&gpu, n, block, reps, &mut progress)?;
    if n == 0 {
        return Ok(());
    }
    let m = &report.mismatches;
    if m.count > 0 {
        let (i, want, got) = m.first.unwrap_or((0, 0.0, 0.0));
        return Err(ptx_ladder::Error::new(format!(
            "WRONG: {} of {n} elements differ from a + b (first at index {i}: expected {want}, got {got})",
            m.count
        ))
        .into());
    }
    println!("check: all {n} elements equal a + b computed on the CPU");
    let (kernel, copy) = (report.kernel.as_ref().unwrap(), report.copy.as_ref().unwrap());
    let (kernel_gbps, copy_gbps) = (report.kernel_gbps().unwrap_or(0.0), report.copy_gbps().unwrap_or(0.0));
    println!(
        "vec_add:     {:>9.3} ms median of {} runs → {:>7.0} GB/s (12 bytes per element: read a, b; write c)",
        kernel.median_ms, kernel.runs, kernel_gbps
    );
    println!(
        "copy (D→D):  {:>9.3} ms median of {} runs → {:>7.0} GB/s (8 bytes per element: read, write)",
        copy.median_ms, copy.runs, copy_gbps
    );
    println!("vec_add reaches {:.1}% of the copy bandwidth measured in this run", 100.0 * kernel_gbps / copy_gbps);
    Ok(())
}
