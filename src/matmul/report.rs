//! The ladder as a table (terminal), as JSON (scripts) and as a bar chart
//! (SVG). Ratios are between numbers measured in the same run, each ladder
//! against cuBLAS at its own element type.

use super::dtype::Dtype;
use super::ladder::{Report, Row};
use std::fmt::Write as _;

/// GFLOP/s of the cuBLAS baseline, when it ran and was correct.
fn cublas_gflops(report: &Report) -> Option<f64> {
    report.cublas.as_ref().ok().and_then(|c| c.gflops)
}

fn percent_of_cublas(report: &Report, row: &Row) -> Option<f64> {
    row.gflops.zip(cublas_gflops(report)).map(|(g, b)| 100.0 * g / b)
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
    let (ladder, arithmetic) = (report.dtype.ladder(), report.dtype.arithmetic());
    let _ = writeln!(out, "{ladder} on {}: C = A·B, {m}x{k} · {k}x{n}, {arithmetic}, row-major", report.device);
    if let Some(peak) = report.fp32_peak_gflops.filter(|_| report.dtype == Dtype::F32) {
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
        if let Some(why) = &row.skipped {
            let _ = writeln!(out, "{:<4} {:<26} skipped: {why}  {}", row.id, row.title, row.kernel);
            return;
        }
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
    for row in &report.references {
        line(&mut out, row, percent_of_cublas(report, row), None);
    }
    for (row, (percent, speedup)) in report.rows.iter().zip(ratios(report)) {
        line(&mut out, row, percent, speedup);
    }
    if !report.autotune_note.is_empty() {
        let _ = writeln!(out, "rung 8: {}", report.autotune_note);
    }
    for row in report.references.iter().filter(|r| r.wrong()) {
        let _ = writeln!(out, "{} is WRONG: {}", row.title, row.verdict.describe());
    }
    for row in report.rows.iter().filter(|r| r.wrong()) {
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
         \"local_bytes\":{},\"blocks_per_sm\":{},\"occupancy\":{},\"skipped\":{}}}",
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
        row.skipped.as_deref().map_or("null".into(), json_string),
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
    let references: Vec<String> =
        report.references.iter().map(|row| json_row(row, percent_of_cublas(report, row), None)).collect();
    format!(
        "{{\"dtype\":{},\"device\":{},\"m\":{m},\"n\":{n},\"k\":{k},\"fp32_peak_gflops\":{},\"cublas\":{cublas},\"cublas_missing\":{missing},\
         \"references\":[{}],\"autotune\":{},\"rungs\":[{}]}}\n",
        json_string(report.dtype.name()),
        json_string(&report.device),
        json_number(report.fp32_peak_gflops),
        references.join(","),
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
    let title = format!("{}, {m}x{n}x{k} {}, {}", report.dtype.ladder(), report.dtype.arithmetic(), report.device);
    crate::svg::bar_chart(&title, &bars, baseline, "GFLOP/s")
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
            verdict: Verdict { relative_error: if gflops.is_some() { 1e-7 } else { 1.0 }, nan_count: 0, tolerance: 1e-5 },
            timing: gflops.map(|g| Timing { median_ms: 1000.0 / g, min_ms: 1.0, max_ms: 2.0, runs: 5 }),
            gflops,
            resources: None,
            dynamic_shared_bytes: 0,
            blocks_per_sm: None,
            occupancy: None,
            skipped: None,
        }
    }

    fn report(cublas: Option<f64>) -> Report {
        Report {
            dtype: Dtype::F32,
            references: Vec::new(),
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
    fn json_is_escaped_and_uses_null_for_missing_numbers() {
        let text = json(&report(None));
        assert!(text.starts_with("{\"dtype\":\"f32\",\"device\":\"Test \\\"GPU\\\"\""), "{text}");
        assert!(text.contains("\"cublas\":null,\"cublas_missing\":\"not installed\""));
        assert!(text.contains("\"id\":\"2\",\"title\":\"rung 2\",\"kernel\":\"sgemm_2\",\"passed\":false"));
        assert!(text.contains("\"gflops\":null"));
        assert_eq!(text.matches('{').count(), text.matches('}').count());
    }

    /// The BF16 ladder's table: its own title and arithmetic, % against
    /// its cuBLAS row, skipped rungs listed with the reason and not counted
    /// as failures; the f32 ladder's TF32 row as a reference.
    #[test]
    fn skipped_rungs_and_reference_rows() {
        let mut r = report(Some(200.0));
        r.dtype = Dtype::Bf16;
        r.autotune_note.clear();
        r.rows.retain(|row| row.id != "2");
        r.rows.push(Row::skipped(("4", "wgmma", "bf16_wgmma"), "needs a Hopper GPU (sm_90)".into(), 5e-5));
        assert!(r.all_correct());
        let text = table(&r);
        assert!(text.starts_with("BF16 ladder on Test \"GPU\": C = A·B, 64x16 · 16x32, bf16 inputs, fp32 accumulation and output"), "{text}");
        assert!(text.contains("wgmma                      skipped: needs a Hopper GPU (sm_90)  bf16_wgmma"), "{text}");
        assert!(!text.contains("rung 8:") && !text.contains("FP32 peak"), "{text}");
        assert!(json(&r).contains("\"skipped\":\"needs a Hopper GPU (sm_90)\""));
        assert!(svg(&r).contains("BF16 ladder"));

        let mut f = report(Some(200.0));
        f.references.push(row("-", Some(600.0)));
        f.references[0].title = "cuBLAS TF32 (reference)".into();
        let text = table(&f);
        assert!(text.contains("cuBLAS TF32 (reference)") && text.contains("300.0%"), "{text}");
        assert!(json(&f).contains("\"references\":[{\"id\":\"-\",\"title\":\"cuBLAS TF32 (reference)\""));
        // A wrong reference row fails the run like a wrong rung.
        f.references[0].verdict.relative_error = 1.0;
        assert!(!f.all_correct());
        assert!(table(&f).contains("cuBLAS TF32 (reference) is WRONG"));
    }
}
