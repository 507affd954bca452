//! The ladder as a table (terminal), as JSON (scripts) and as a bar chart
//! (SVG). Ratios are between numbers measured in the same run, each ladder
//! against cuBLAS at its own element type.

use super::dtype::Dtype;
use super::ladder::{Report, Row};
use serde::Serialize;
use std::fmt::Write as _;

/// Characters of the table's title column: every rung's and every library
/// row's title fits in it (the ladders' tests check theirs).
pub const TITLE_WIDTH: usize = 26;

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
        "{:<4} {:<TITLE_WIDTH$} {:>9} {:>9} {}{:>7} {:>8} {:>9} {:>8} {:>12}  kernel",
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
            let _ = writeln!(out, "{:<4} {:<TITLE_WIDTH$} skipped: {why}  {}", row.id, row.title, row.kernel);
            return;
        }
        let smem = row.resources.map(|r| kib(r.static_shared_bytes + row.dynamic_shared_bytes));
        let occupancy = row.occupancy.zip(row.blocks_per_sm).map(|(o, b)| format!("{:.0}% ({b} blk)", 100.0 * o));
        let error = if row.verdict.passed() { format!("{:.1e}", row.verdict.relative_error) } else { "WRONG".into() };
        let _ = writeln!(
            out,
            "{:<4} {:<TITLE_WIDTH$} {:>9} {:>9} {}{:>7} {:>8} {:>9} {:>8} {:>12}  {}",
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
    for row in report.rows.iter().filter(|r| r.skipped.is_none()) {
        if let Some(note) = &row.note {
            let _ = writeln!(out, "rung {}: {note}", row.id);
        }
    }
    for row in report.references.iter().filter(|r| r.wrong()) {
        let _ = writeln!(out, "{} is WRONG: {}", row.title, row.verdict.describe());
    }
    for row in report.rows.iter().filter(|r| r.wrong()) {
        let _ = writeln!(out, "rung {} is WRONG: {}", row.id, row.verdict.describe());
    }
    if let Some((best, percent)) =
        report.rows.iter().zip(ratios(report)).filter_map(|(r, (p, _))| p.map(|p| (r, p))).max_by(|a, b| a.1.total_cmp(&b.1))
    {
        let _ = writeln!(out, "best rung: {} {} at {percent:.1}% of cuBLAS", best.id, best.title);
    }
    out
}

/// One row of `--json`: a rung or cuBLAS. Missing numbers are `null`.
#[derive(Serialize)]
struct JsonRow<'a> {
    id: &'a str,
    title: &'a str,
    kernel: &'a str,
    passed: bool,
    relative_error: f64,
    nan_count: usize,
    median_ms: Option<f64>,
    min_ms: Option<f64>,
    max_ms: Option<f64>,
    runs: usize,
    gflops: Option<f64>,
    percent_of_cublas: Option<f64>,
    speedup_over_previous: Option<f64>,
    registers: Option<u32>,
    static_shared_bytes: Option<u32>,
    dynamic_shared_bytes: u32,
    local_bytes: Option<u32>,
    blocks_per_sm: Option<u32>,
    occupancy: Option<f64>,
    /// Why the rung did not run here (`null` when it ran).
    skipped: Option<&'a str>,
    note: Option<&'a str>,
}

/// The CPU row, in the table's columns, and the bargain: the GPU's best
/// rung and cuBLAS against all CPU cores.
pub fn cpu_lines(report: &Report, cpu: &super::cpu::CpuRow) -> String {
    let with_cublas = cublas_gflops(report).is_some();
    let percent = cublas_gflops(report).map(|b| format!("{:>9} ", format!("{:.2}%", 100.0 * cpu.gflops / b)));
    let error = if cpu.verdict.passed() { format!("{:.1e}", cpu.verdict.relative_error) } else { "WRONG".into() };
    let mut out = format!(
        "{:<4} {:<TITLE_WIDTH$} {:>9.3} {:>9.0} {}{:>7} {:>8} {:>9} {:>8} {:>12}  gemm crate\n",
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

impl<'a> JsonRow<'a> {
    fn new(row: &'a Row, percent: Option<f64>, speedup: Option<f64>) -> Self {
        let t = row.timing.as_ref();
        let r = row.resources;
        JsonRow {
            id: &row.id,
            title: &row.title,
            kernel: &row.kernel,
            passed: row.verdict.passed(),
            relative_error: row.verdict.relative_error,
            nan_count: row.verdict.nan_count,
            median_ms: t.map(|t| t.median_ms),
            min_ms: t.map(|t| t.min_ms),
            max_ms: t.map(|t| t.max_ms),
            runs: t.map_or(0, |t| t.runs),
            gflops: row.gflops,
            percent_of_cublas: percent,
            speedup_over_previous: speedup,
            registers: r.map(|r| r.registers),
            static_shared_bytes: r.map(|r| r.static_shared_bytes),
            dynamic_shared_bytes: row.dynamic_shared_bytes,
            local_bytes: r.map(|r| r.local_bytes),
            blocks_per_sm: row.blocks_per_sm,
            occupancy: row.occupancy,
            skipped: row.skipped.as_deref(),
            note: row.note.as_deref(),
        }
    }
}

/// The whole `--json` document.
#[derive(Serialize)]
struct JsonReport<'a> {
    dtype: &'a str,
    device: &'a str,
    m: u32,
    n: u32,
    k: u32,
    fp32_peak_gflops: Option<f64>,
    cublas: Option<JsonRow<'a>>,
    cublas_missing: Option<&'a str>,
    /// Library rows shown for reference (TF32 beside SGEMM).
    references: Vec<JsonRow<'a>>,
    autotune: &'a str,
    rungs: Vec<JsonRow<'a>>,
}

/// The same rows as the table, for scripts (one line of JSON; numbers
/// that were not measured, or are not finite, are `null`).
pub fn json(report: &Report) -> String {
    let (m, n, k) = report.size;
    let document = JsonReport {
        dtype: report.dtype.name(),
        device: &report.device,
        m,
        n,
        k,
        fp32_peak_gflops: report.fp32_peak_gflops,
        cublas: report.cublas.as_ref().ok().map(|row| JsonRow::new(row, Some(100.0), None)),
        cublas_missing: report.cublas.as_ref().err().map(String::as_str),
        references: report.references.iter().map(|row| JsonRow::new(row, percent_of_cublas(report, row), None)).collect(),
        autotune: &report.autotune_note,
        rungs: report.rows.iter().zip(ratios(report)).map(|(row, (p, s))| JsonRow::new(row, p, s)).collect(),
    };
    // Serialising plain structs of strings and numbers cannot fail.
    let mut text = serde_json::to_string(&document).unwrap_or_default();
    text.push('\n');
    text
}

/// The ladder as a bar chart: one bar per rung with its GFLOP/s and % of
/// cuBLAS, cuBLAS and the FP32 peak as reference lines.
pub fn svg(report: &Report) -> String {
    use crate::svg::{Bar, Reference, bar_chart_annotated};
    let (m, n, k) = report.size;
    let bars: Vec<Bar> = report
        .rows
        .iter()
        .zip(ratios(report))
        .map(|(r, (percent, _))| Bar {
            label: format!("{} {}", r.id, r.title),
            value: r.gflops.unwrap_or(0.0),
            note: match (r.verdict.passed(), percent) {
                (false, _) => Some("WRONG".into()),
                (true, Some(p)) => Some(format!("{p:.1}% of cuBLAS")),
                (true, None) => None,
            },
        })
        .collect();
    let mut references = Vec::new();
    if let Some(g) = cublas_gflops(report) {
        references.push(Reference { label: "cuBLAS".into(), value: g, colour: "#d62728" });
    }
    if let Some(peak) = report.fp32_peak_gflops.filter(|_| report.dtype == Dtype::F32) {
        references.push(Reference { label: "FP32 peak".into(), value: peak, colour: "#555555" });
    }
    let title = format!("{}, {m}x{n}x{k} {}, {}", report.dtype.ladder(), report.dtype.arithmetic(), report.device);
    bar_chart_annotated(&title, &bars, &references, "GFLOP/s")
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
            verdict: if gflops.is_some() { Verdict::passing(1e-7) } else { Verdict::failing(1.0) },
            timing: gflops.map(|g| Timing { median_ms: 1000.0 / g, min_ms: 1.0, max_ms: 2.0, runs: 5 }),
            gflops,
            resources: None,
            dynamic_shared_bytes: 0,
            blocks_per_sm: None,
            occupancy: None,
            skipped: None,
            note: None,
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
        approx::assert_relative_eq!(r[0].0.expect("percent"), 5.0);
        assert_eq!(r[0].1, None);
        assert_eq!(r[1], (None, None));
        approx::assert_relative_eq!(r[2].0.expect("percent"), 20.0);
        approx::assert_relative_eq!(r[2].1.expect("speed-up"), 4.0);
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
            verdict: Verdict::passing(2e-7),
            timing: Timing { median_ms: 1000.0, min_ms: 900.0, max_ms: 1100.0, runs: 3 },
            gflops: 2.0,
        };
        let text = cpu_lines(&report(Some(200.0)), &cpu);
        assert!(text.starts_with("cpu  16 CPU threads"), "{text}");
        assert!(text.contains("1.00%") && text.contains("2.0e-7"), "{text}");
        assert!(text.contains("GPU / CPU: best rung (3 rung 3) 20x, cuBLAS 100x the CPU's 2 GFLOP/s (median of 3 runs)"), "{text}");
        let wrong = crate::matmul::cpu::CpuRow { verdict: Verdict::failing(1.0), ..cpu };
        assert!(cpu_lines(&report(None), &wrong).contains("the CPU row is WRONG"));
    }

    #[test]
    fn json_has_every_row_and_uses_null_for_missing_numbers() {
        let text = json(&report(None));
        let doc: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(doc["device"], "Test \"GPU\"");
        assert!(doc["cublas"].is_null());
        assert_eq!(doc["cublas_missing"], "not installed");
        let rungs = doc["rungs"].as_array().expect("rungs");
        assert_eq!(rungs.len(), 3);
        assert_eq!(rungs[1]["id"], "2");
        assert_eq!(rungs[1]["passed"], false);
        assert!(rungs[1]["gflops"].is_null() && rungs[1]["median_ms"].is_null());
        assert_eq!(rungs[2]["speedup_over_previous"], 4.0);
        let with = json(&report(Some(200.0)));
        let doc: serde_json::Value = serde_json::from_str(&with).expect("valid JSON");
        assert_eq!(doc["cublas"]["percent_of_cublas"], 100.0);
        assert_eq!(doc["rungs"][2]["percent_of_cublas"], 20.0);
        assert!(doc["cublas_missing"].is_null());
    }

    #[test]
    fn chart_shows_percent_of_cublas_and_the_peak() {
        let doc = svg(&report(Some(200.0)));
        crate::svg::tests::assert_well_formed(&doc);
        assert!(doc.contains("10 GFLOP/s · 5.0% of cuBLAS") && doc.contains("40 GFLOP/s · 20.0% of cuBLAS"), "{doc}");
        assert!(doc.contains("0 GFLOP/s · WRONG"), "{doc}");
        assert!(doc.contains("cuBLAS (200 GFLOP/s)") && doc.contains("FP32 peak (1000 GFLOP/s)"), "{doc}");
        assert_eq!(doc.matches("stroke-dasharray").count(), 2);
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
        r.rows.push(Row::skipped(("4", "wgmma", "bf16_wgmma"), "needs a Hopper GPU (sm_90)".into()));
        assert!(r.all_correct());
        let text = table(&r);
        assert!(
            text.starts_with("BF16 ladder on Test \"GPU\": C = A·B, 64x16 · 16x32, bf16 inputs, fp32 accumulation and output"),
            "{text}"
        );
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
        f.references[0].verdict = Verdict::failing(1.0);
        assert!(!f.all_correct());
        assert!(table(&f).contains("cuBLAS TF32 (reference) is WRONG"));
    }
}
