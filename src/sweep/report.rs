//! What a sweep measured: per shape, cuBLAS and the ladder's pick, the
//! ratio of their times, their errors, and for memory-bound shapes the
//! bandwidth reached; then the geometric mean and the worst shape.

use super::suite::Shape;
use crate::device::FromDram;
use crate::matmul::check::gemm_flops;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One timed GEMM of a sweep row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The kernel (or library call) that ran.
    pub kernel: String,
    /// Median time of one run, in microseconds.
    pub micros: f64,
    /// Norm-wise relative error against the f64 reference.
    pub relative_error: f64,
    /// Whether every element was within its error bound.
    pub correct: bool,
}

/// One shape of a sweep. Read back (by `ptx-ladder shapes`), a row needs
/// only its shape and times; the rest defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub shape: String,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// None when cuBLAS could not be loaded.
    pub cublas: Option<Measured>,
    /// The dispatcher's pick, or None if nothing ran (the reason is `why`).
    pub ours: Option<Measured>,
    /// Why the dispatcher picked what it did, in words.
    #[serde(default)]
    pub why: String,
    /// Whether the shape's minimum traffic outlasts its arithmetic.
    #[serde(default)]
    pub memory_bound: bool,
    /// Bytes of B (the weights), read once per run.
    #[serde(default)]
    pub weight_bytes: f64,
    /// Other rungs asked for, by id.
    #[serde(default)]
    pub others: Vec<(String, Measured)>,
    /// Memory-bound shapes timed with L2 flushed: µs the memory lab's read
    /// kernel takes to read the weights (B) once, timed the same way: what
    /// streaming them costs with nothing else to do, launch and ramp
    /// included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_micros: Option<f64>,
}

impl SweepRow {
    pub fn new(shape: &Shape, memory_bound: bool, weight_bytes: f64) -> SweepRow {
        SweepRow {
            shape: shape.name.clone(),
            m: shape.m,
            n: shape.n,
            k: shape.k,
            cublas: None,
            ours: None,
            why: String::new(),
            memory_bound,
            weight_bytes,
            others: Vec::new(),
            read_only_micros: None,
        }
    }

    /// (M, N, K).
    pub fn size(&self) -> (u32, u32, u32) {
        (self.m, self.n, self.k)
    }

    /// cuBLAS's time over ours, in percent: above 100 the ladder is faster.
    pub fn percent(&self) -> Option<f64> {
        match (&self.cublas, &self.ours) {
            (Some(c), Some(o)) if c.correct && o.correct && o.micros > 0.0 => Some(100.0 * c.micros / o.micros),
            _ => None,
        }
    }

    /// GB/s of the weights at our time (memory-bound shapes).
    pub fn weight_gbps(&self) -> Option<f64> {
        self.ours.as_ref().filter(|_| self.memory_bound).map(|o| self.weight_bytes / (o.micros * 1e-6) / 1e9)
    }
}

/// The geometric mean of the % of cuBLAS over the rows that have one, and
/// the worst row.
pub fn summary(rows: &[SweepRow]) -> Option<(f64, &SweepRow)> {
    let with: Vec<(&SweepRow, f64)> = rows.iter().filter_map(|r| r.percent().map(|p| (r, p))).collect();
    let (worst, _) = with.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let mean = (with.iter().map(|(_, p)| p.ln()).sum::<f64>() / with.len() as f64).exp();
    Some((mean, worst))
}

/// The table: one line per shape, then the summary.
pub fn table(title: &str, rows: &[SweepRow], dram_plateau_gbps: Option<f64>) -> String {
    let mut out = format!("{title}\n");
    let _ = writeln!(
        out,
        "{:<16} {:>6} {:>6} {:>6}  {:>9} {:>9} {:>8}  {:>8} {:>8}  {:<30} picked because",
        "shape", "M", "N", "K", "cuBLAS us", "ours us", "% cuBLAS", "err cuB", "err ours", "kernel"
    );
    let time =
        |m: &Option<Measured>| m.as_ref().map_or("-".into(), |m| if m.correct { format!("{:.1}", m.micros) } else { "WRONG".into() });
    let error = |m: &Option<Measured>| m.as_ref().map_or("-".into(), |m| format!("{:.1e}", m.relative_error));
    for r in rows {
        let percent = r.percent().map_or("-".into(), |p| format!("{p:.1}%"));
        let kernel = r.ours.as_ref().map_or("-", |o| o.kernel.as_str());
        let mut why = r.why.clone();
        if let Some(gbps) = r.weight_gbps() {
            let of = dram_plateau_gbps.map_or(String::new(), |p| format!(", {:.0}% of DRAM", 100.0 * gbps / p));
            let _ = write!(why, "; weights at {gbps:.0} GB/s{of}");
            if let Some(micros) = r.read_only_micros {
                let of = dram_plateau_gbps.map_or(String::new(), |p| format!(", {:.0}%", 100.0 * r.weight_bytes / (micros * 1e3) / p));
                let _ = write!(why, " (reading them alone: {micros:.1} us{of})");
            }
        }
        let _ = writeln!(
            out,
            "{:<16} {:>6} {:>6} {:>6}  {:>9} {:>9} {:>8}  {:>8} {:>8}  {:<30} {why}",
            r.shape,
            r.m,
            r.n,
            r.k,
            time(&r.cublas),
            time(&r.ours),
            percent,
            error(&r.cublas),
            error(&r.ours),
            kernel
        );
        for (id, other) in &r.others {
            let of = r
                .cublas
                .as_ref()
                .filter(|c| c.correct && other.correct)
                .map_or(String::new(), |c| format!(", {:.1}% of cuBLAS", 100.0 * c.micros / other.micros));
            let _ = writeln!(out, "{:<16} rung {id} ({}): {}{of}", "", other.kernel, time(&Some(other.clone())));
        }
    }
    match summary(rows) {
        Some((mean, worst)) => {
            let _ = writeln!(
                out,
                "geometric mean {mean:.1}% of cuBLAS over {} shapes; worst {} at {:.1}%",
                rows.iter().filter(|r| r.percent().is_some()).count(),
                worst.shape,
                worst.percent().unwrap_or(0.0)
            );
        }
        None => out.push_str("no shape has both cuBLAS and the ladder timed\n"),
    }
    let _ = writeln!(out, "(GFLOP/s = 2·M·N·K / time; % of cuBLAS = cuBLAS time / our time)");
    let best = rows
        .iter()
        .filter_map(|r| r.ours.as_ref().filter(|o| o.correct).map(|o| gemm_flops((r.m, r.n, r.k)) / (o.micros * 1e-6) / 1e9))
        .fold(0.0, f64::max);
    if best > 0.0 {
        let _ = writeln!(out, "fastest shape: {best:.0} GFLOP/s");
    }
    out
}

/// The rows as JSON, with the summary.
pub fn json(device: &str, dtype: &str, from_dram: Option<FromDram>, rows: &[SweepRow]) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        device: &'a str,
        dtype: &'a str,
        /// Whether every timed run read the weights from DRAM.
        weights_from_dram: bool,
        /// Runs timed back to back, each on its own copy of the inputs
        /// (else each alone, after L2 was emptied).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        back_to_back: bool,
        geometric_mean_percent: Option<f64>,
        worst_shape: Option<&'a str>,
        rows: &'a [SweepRow],
    }
    let s = summary(rows);
    let document = Document {
        device,
        dtype,
        weights_from_dram: from_dram.is_some(),
        back_to_back: from_dram == Some(FromDram::BackToBack),
        geometric_mean_percent: s.map(|(mean, _)| mean),
        worst_shape: s.map(|(_, worst)| worst.shape.as_str()),
        rows,
    };
    serde_json::to_string_pretty(&document).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The picture: one bar per shape, its % of cuBLAS, a line at 100%.
pub fn svg(title: &str, rows: &[SweepRow]) -> String {
    use crate::svg::{Bar, Reference, bar_chart_annotated};
    let bars: Vec<Bar> = rows
        .iter()
        .map(|r| Bar {
            label: r.shape.clone(),
            value: r.percent().unwrap_or(0.0),
            note: Some(match (r.percent(), &r.ours) {
                (Some(_), Some(o)) => o.kernel.clone(),
                (None, Some(o)) if !o.correct => "WRONG".into(),
                _ => "not timed".into(),
            }),
        })
        .collect();
    let summary = summary(rows).map_or(String::new(), |(mean, worst)| {
        format!(" (geomean {mean:.0}%, worst {} {:.0}%)", worst.shape, worst.percent().unwrap_or(0.0))
    });
    let references = [Reference { label: "cuBLAS".into(), value: 100.0, colour: "#d62728" }];
    bar_chart_annotated(&format!("{title}{summary}"), &bars, &references, "% of cuBLAS")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, cublas_us: f64, ours_us: f64) -> SweepRow {
        let measured = |kernel: &str, micros| Measured { kernel: kernel.into(), micros, relative_error: 1e-6, correct: true };
        SweepRow {
            cublas: Some(measured("cublas", cublas_us)),
            ours: Some(measured("bf16_small_m1", ours_us)),
            why: "memory-bound".into(),
            ..SweepRow::new(&Shape::new(name, (1, 4096, 14336)), true, 2.0 * 4096.0 * 14336.0)
        }
    }

    #[test]
    fn the_summary_is_a_geometric_mean_with_the_worst_shape() {
        let rows = [row("a", 10.0, 5.0), row("b", 10.0, 20.0), row("c", 10.0, 10.0)];
        let (mean, worst) = summary(&rows).unwrap();
        // 200%, 50%, 100%: the geometric mean is 100%.
        assert!((mean - 100.0).abs() < 1e-9, "{mean}");
        assert_eq!(worst.shape, "b");
        let mut wrong = row("d", 10.0, 1.0);
        wrong.ours.as_mut().unwrap().correct = false;
        assert_eq!(wrong.percent(), None);
        assert!(summary(&[wrong]).is_none());
    }

    #[test]
    fn memory_bound_rows_show_their_bandwidth() {
        let r = row("down M=1", 30.0, 29.36);
        let gbps = r.weight_gbps().unwrap();
        assert!((gbps - 4000.0).abs() < 1.0, "{gbps}");
        let text = table("BF16 sweep", &[r], Some(4500.0));
        assert!(text.contains("weights at 4000 GB/s, 89% of DRAM"), "{text}");
        assert!(!text.contains("reading them alone"), "{text}");
        assert!(text.contains("geometric mean 102.2% of cuBLAS over 1 shapes; worst down M=1 at 102.2%"), "{text}");
        // With the read-only kernel's time: the weights at 4500 GB/s, all of DRAM.
        let read = SweepRow { read_only_micros: Some(26.1), ..row("down M=1", 30.0, 29.36) };
        let text = table("BF16 sweep", std::slice::from_ref(&read), Some(4500.0));
        assert!(text.contains("weights at 4000 GB/s, 89% of DRAM (reading them alone: 26.1 us, 100%)"), "{text}");
        let j: serde_json::Value = serde_json::from_str(&json("H200", "bf16", Some(FromDram::FlushEachRun), &[read])).unwrap();
        assert_eq!(j["rows"][0]["read_only_micros"], 26.1);
    }

    #[test]
    fn json_and_svg_carry_every_row() {
        let rows = [row("a", 10.0, 5.0), row("b", 10.0, 20.0)];
        let j: serde_json::Value = serde_json::from_str(&json("H200", "bf16", Some(FromDram::FlushEachRun), &rows)).unwrap();
        assert_eq!(j["rows"].as_array().unwrap().len(), 2);
        assert_eq!(j["worst_shape"], "b");
        assert_eq!(j["weights_from_dram"], true);
        assert!(j.get("back_to_back").is_none(), "the records' format stays as it was");
        let back_to_back: serde_json::Value = serde_json::from_str(&json("H200", "bf16", Some(FromDram::BackToBack), &rows)).unwrap();
        assert_eq!((&back_to_back["weights_from_dram"], &back_to_back["back_to_back"]), (&true.into(), &true.into()));
        let hot: serde_json::Value = serde_json::from_str(&json("H200", "bf16", None, &rows)).unwrap();
        assert_eq!(hot["weights_from_dram"], false);
        let picture = svg("BF16 sweep", &rows);
        assert!(picture.contains("geomean 100%, worst b 50%"), "{picture}");
        assert!(picture.starts_with("<svg"));
    }
}
