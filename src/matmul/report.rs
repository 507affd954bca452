//! The ladder as a table (terminal), as JSON (scripts) and as a bar chart
//! (SVG). Ratios are between numbers measured in the same run.

use super::ladder::{Report, Row};
use std::fmt::Write as _;

/// GFLOP/s of the cuBLAS baseline, when it ran and was correct.
fn cublas_gflops(report: &Report) -> Option<f64> {
    report.cublas.as_ref().ok().and_then(|c| c.gflops)
}

/// `(percent of cuBLAS, speed-up over the previous rung)` for each row.
pub fn ratios(report: &Report) -> Vec<(Option<f64>, Option<f64>)> {
    let base = cublas_gflops(report);
    let mut previous: Option<f64> = None;
    report
        .rows
        .iter()
        .map(|row| {
            let percent = row.gflops.zip(base).map(|(g, b)| 100.0 * g / b);
            let speedup = row.gflops.zip(previous).map(|(g, p)| g / p);
            previous = row.gflops.or(previous);
            (percent, speedup)
        })
        .collect()
}

fn opt(value: Option<f64>, format: impl Fn(f64) -> String) -> String {
    value.map(format).unwrap_or_else(|| "-".into())
}

fn kib(bytes: u32) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

/// The terminal table.
pub fn table(report: &Report) -> String {
    let (m, n, k) = report.size;
    let mut out = String::new();
    let _ = writeln!(out, "SGEMM ladder on {}: C = A·B, {m}x{k} · {k}x{n}, fp32, row-major", report.device);
    if let Some(peak) = report.fp32_peak_gflops {
        let _ = writeln!(out, "FP32 peak at the reported max clock: {peak:.0} GFLOP/s");
    }
    let with_cublas = cublas_gflops(report).is_some();
    let _ = writeln!(
        out,
        "{:<4} {:<26} {:>9} {:>9} {}{:>7} {:>8} {:>9} {:>8} {:>12}  kernel",
        "rung",
        "",
        "time ms",
        "GFLOP/s",
        if with_cublas { format!("{:>9} ", "% cuBLAS") } else { String::new() },
        "× prev",
        "rel err",
        "regs",
        "smem",
        "occupancy",
    );
    let line = |out: &mut String, row: &Row, percent: Option<f64>, speedup: Option<f64>| {
        let smem = row.resources.map(|r| kib(r.static_shared_bytes + row.dynamic_shared_bytes));
        let occupancy = row.occupancy.zip(row.blocks_per_sm).map(|(o, b)| format!("{:.0}% ({b} blk)", 100.0 * o));
        let error = if row.verdict.passed() { format!("{:.1e}", row.verdict.relative_error) } else { "WRONG".into() };
        let _ = writeln!(
            out,
            "{:<4} {:<26} {:>9} {:>9} {}{:>7} {:>8} {:>9} {:>8} {:>12}  {}",
            row.id,
            row.title,
            opt(row.timing.as_ref().map(|t| t.median_ms), |v| format!("{v:.3}")),
            opt(row.gflops, |v| format!("{v:.0}")),
            if with_cublas { format!("{:>9} ", opt(percent, |v| format!("{v:.1}%"))) } else { String::new() },
            opt(speedup, |v| format!("{v:.2}x")),
            error,
            row.resources.map_or("-".into(), |r| match r.local_bytes {
                0 => r.registers.to_string(),
                spill => format!("{}+{spill}B", r.registers),
            }),
            smem.unwrap_or_else(|| "-".into()),
            occupancy.unwrap_or_else(|| "-".into()),
            row.kernel,
        );
    };
    match &report.cublas {
        Ok(row) => line(&mut out, row, with_cublas.then_some(100.0), None),
        Err(why) => {
            let _ = writeln!(out, "-    cuBLAS not found: no % column ({why})");
        }
    }
    for (row, (percent, speedup)) in report.rows.iter().zip(ratios(report)) {
        line(&mut out, row, percent, speedup);
    }
    let _ = writeln!(out, "rung 8: {}", report.autotune_note);
    for row in report.rows.iter().filter(|r| !r.verdict.passed()) {
        let _ = writeln!(out, "rung {} is WRONG: {}", row.id, row.verdict.describe());
    }
    if let Some((best, percent)) = report
        .rows
        .iter()
        .zip(ratios(report))
        .filter_map(|(r, (p, _))| p.map(|p| (r, p)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
    {
        let _ = writeln!(out, "best rung: {} {} at {percent:.1}% of cuBLAS", best.id, best.title);
    }
    out
}

/// The CPU row, in the table's columns, and the bargain: the GPU's best
/// rung and cuBLAS against all CPU cores.
pub fn cpu_lines(report: &Report, cpu: &super::cpu::CpuRow) -> String {
    let with_cublas = cublas_gflops(report).is_some();
    let percent = cublas_gflops(report).map(|b| format!("{:>9} ", format!("{:.2}%", 100.0 * cpu.gflops / b)));
    let error = if cpu.verdict.passed() { format!("{:.1e}", cpu.verdict.relative_error) } else { "WRONG".into() };
    let mut out = format!(
        "{:<4} {:<26} {:>9.3} {:>9.0} {}{:>7} {:>8} {:>9} {:>8} {:>12}  gemm crate\n",
        "cpu",
        format!("{} CPU threads", cpu.threads),
        cpu.timing.median_ms,
        cpu.gflops,
        if with_cublas { percent.unwrap_or_default() } else { String::new() },
        "-",
        error,
        "-",
        "-",
        "-",
    );
    let best = report.rows.iter().filter_map(|r| r.gflops.map(|g| (r, g))).max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((row, g)) = best {
        let _ = write!(out, "GPU / CPU: best rung ({} {}) {:.0}x", row.id, row.title, g / cpu.gflops);
        if let Some(b) = cublas_gflops(report) {
            let _ = write!(out, ", cuBLAS {:.0}x", b / cpu.gflops);
        }
        let _ = writeln!(out, " the CPU's {:.0} GFLOP/s (median of {} runs)", cpu.gflops, cpu.timing.runs);
    }
    if !cpu.verdict.passed() {
        let _ = writeln!(out, "the CPU row is WRONG: {}", cpu.verdict.describe());
    }
    out
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_number(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => "null".into(),
    }
}

fn json_row(row: &Row, percent: Option<f64>, speedup: Option<f64>) -> String {
    let t = row.timing.as_ref();
    let r = row.resources;
    format!(
        "{{\"id\":{},\"title\":{},\"kernel\":{},\"passed\":{},\"relative_error\":{},\"nan_count\":{},\
         \"median_ms\":{},\"min_ms\":{},\"max_ms\":{},\"runs\":{},\"gflops\":{},\"percent_of_cublas\":{},\
         \"speedup_over_previous\":{},\"registers\":{},\"static_shared_bytes\":{},\"dynamic_shared_bytes\":{},\
         \"local_bytes\":{},\"blocks_per_sm\":{},\"occupancy\":{}}}",
        json_string(&row.id),
        json_string(&row.title),
        json_string(&row.kernel),
        row.verdict.passed(),
        json_number(Some(row.verdict.relative_error)),
        row.verdict.nan_count,
        json_number(t.map(|t| t.median_ms)),
        json_number(t.map(|t| t.min_ms)),
        json_number(t.map(|t| t.max_ms)),
        t.map_or(0, |t| t.runs),
        json_number(row.gflops),
        json_number(percent),
        json_number(speedup),
        json_number(r.map(|r| r.registers as f64)),
        json_number(r.map(|r| r.static_shared_bytes as f64)),
        row.dynamic_shared_bytes,
        json_number(r.map(|r| r.local_bytes as f64)),
        json_number(row.blocks_per_sm.map(f64::from)),
        json_number(row.occupancy),
    )
}

/// The same rows as the table, for scripts.
pub fn json(report: &Report) -> String {
    let (m, n, k) = report.size;
    let cublas = match &report.cublas {
        Ok(row) => json_row(row, Some(100.0), None),
        Err(_) => "null".into(),
    };
    let missing = report.cublas.as_ref().err().map(|e| json_string(e)).unwrap_or_else(|| "null".into());
    let rows: Vec<String> = report.rows.iter().zip(ratios(report)).map(|(row, (p, s))| json_row(row, p, s)).collect();
    format!(
        "{{\"device\":{},\"m\":{m},\"n\":{n},\"k\":{k},\"fp32_peak_gflops\":{},\"cublas\":{cublas},\"cublas_missing\":{missing},\
         \"autotune\":{},\"rungs\":[{}]}}\n",
        json_string(&report.device),
        json_number(report.fp32_peak_gflops),
        json_string(&report.autotune_note),
        rows.join(",")
    )
}

/// The ladder as a bar chart, one bar per rung, with cuBLAS as a line.
pub fn svg(report: &Report) -> String {
    let (m, n, k) = report.size;
    let bars: Vec<(String, f64)> =
        report.rows.iter().map(|r| (format!("{} {}", r.id, r.title), r.gflops.unwrap_or(0.0))).collect();
    let baseline = cublas_gflops(report).map(|g| ("cuBLAS".to_string(), g));
    crate::svg::bar_chart(&format!("SGEMM ladder, {m}x{n}x{k} fp32, {}", report.device), &bars, baseline, "GFLOP/s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Timing;
    use crate::matmul::check::Verdict;

    fn row(id: &str, gflops: Option<f64>) -> Row {
        Row {
            id: id.into(),
            title: format!("rung {id}"),
            kernel: format!("sgemm_{id}"),
            verdict: Verdict { relative_error: if gflops.is_some() { 1e-7 } else { 1.0 }, nan_count: 0 },
            timing: gflops.map(|g| Timing { median_ms: 1000.0 / g, min_ms: 1.0, max_ms: 2.0, runs: 5 }),
            gflops,
            resources: None,
            dynamic_shared_bytes: 0,
            blocks_per_sm: None,
            occupancy: None,
        }
    }

    fn report(cublas: Option<f64>) -> Report {
        Report {
            device: "Test \"GPU\"".into(),
            size: (64, 32, 16),
            fp32_peak_gflops: Some(1000.0),
            cublas: cublas.map(|g| row("-", Some(g))).ok_or_else(|| "not installed".to_string()),
            rows: vec![row("1", Some(10.0)), row("2", None), row("3", Some(40.0))],
            autotune_note: "default".into(),
        }
    }

    #[test]
    fn ratios_are_against_cublas_and_the_last_measured_rung() {
        let r = ratios(&report(Some(200.0)));
        assert_eq!(r[0], (Some(5.0), None));
        assert_eq!(r[1], (None, None));
        assert_eq!(r[2], (Some(20.0), Some(4.0)));
        assert!(ratios(&report(None)).iter().all(|(p, _)| p.is_none()));
    }

    #[test]
    fn table_marks_wrong_rungs_and_missing_cublas() {
        let text = table(&report(None));
        assert!(text.contains("cuBLAS not found: no % column (not installed)"), "{text}");
        assert!(!text.contains("% cuBLAS"));
        assert!(text.contains("rung 2 is WRONG"), "{text}");
        let with = table(&report(Some(200.0)));
        assert!(with.contains("% cuBLAS") && with.contains("20.0%"), "{with}");
        assert!(with.contains("best rung: 3 rung 3 at 20.0% of cuBLAS"), "{with}");
    }

    #[test]
    fn the_cpu_row_gives_the_gpu_cpu_ratio() {
        let cpu = crate::matmul::cpu::CpuRow {
            threads: 16,
            verdict: Verdict { relative_error: 2e-7, nan_count: 0 },
            timing: Timing { median_ms: 1000.0, min_ms: 900.0, max_ms: 1100.0, runs: 3 },
            gflops: 2.0,
        };
        let text = cpu_lines(&report(Some(200.0)), &cpu);
        assert!(text.starts_with("cpu  16 CPU threads"), "{text}");
        assert!(text.contains("1.00%") && text.contains("2.0e-7"), "{text}");
        assert!(text.contains("GPU / CPU: best rung (3 rung 3) 20x, cuBLAS 100x the CPU's 2 GFLOP/s (median of 3 runs)"), "{text}");
        let wrong = crate::matmul::cpu::CpuRow { verdict: Verdict { relative_error: 1.0, nan_count: 0 }, ..cpu };
        assert!(cpu_lines(&report(None), &wrong).contains("the CPU row is WRONG"));
    }

    #[test]
    fn json_is_escaped_and_uses_null_for_missing_numbers() {
        let text = json(&report(None));
        assert!(text.starts_with("{\"device\":\"Test \\\"GPU\\\"\""), "{text}");
        assert!(text.contains("\"cublas\":null,\"cublas_missing\":\"not installed\""));
        assert!(text.contains("\"id\":\"2\",\"title\":\"rung 2\",\"kernel\":\"sgemm_2\",\"passed\":false"));
        assert!(text.contains("\"gflops\":null"));
        assert_eq!(text.matches('{').count(), text.matches('}').count());
    }
}
