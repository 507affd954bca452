//! `ptx-ladder shapes`: why a GEMM's shape decides its speed and its
//! accuracy, drawn from a sweep that was already measured (the JSON of
//! `ptx-ladder sweep --json`), so no GPU is needed.
//!
//! - [`roofline`]: each shape's FLOPs per byte against the GPU's ridge
//!   point, and the TFLOP/s ours and cuBLAS reached under the roof;
//! - [`waves`]: each shape's output tiles against the SMs, and what
//!   splitting K over more work items would fill;
//! - [`accuracy`]: the error of a tensor core's truncating accumulator as K
//!   grows, against rounding to nearest, split K and a fresh accumulator
//!   every few k, computed on the CPU.
//!
//! Every number comes from the sweep's rows and from the model the "auto"
//! rung decides with ([`crate::matmul::auto`]); [`Lesson`] gathers them,
//! and its JSON is what the book quotes.

pub mod accuracy;
pub mod roofline;
pub mod waves;

use super::report::Measured;
use crate::error::{Error, Result};
use crate::matmul::auto::Machine;
use crate::matmul::dtype::Dtype;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The sweep the lesson explains by default (from the repository root).
pub const DEFAULT_SWEEP: &str = "docs/sweep-h200-bf16.json";

/// One shape of a sweep file (the lesson reads its shape and times).
pub use super::report::SweepRow;

/// A sweep file: the GPU, the element type and the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub device: String,
    pub dtype: Dtype,
    pub rows: Vec<SweepRow>,
}

impl Sweep {
    /// Reads the JSON that `ptx-ladder sweep --json` writes; errors say
    /// what is wrong in words.
    pub fn from_json(text: &str) -> Result<Sweep> {
        #[derive(Deserialize)]
        struct File {
            device: String,
            dtype: String,
            rows: Vec<SweepRow>,
        }
        let file: File = serde_json::from_str(text).map_err(|e| Error::new(format!("not a `ptx-ladder sweep --json` file: {e}")))?;
        let dtype = Dtype::parse(&file.dtype).map_err(|_| Error::new(format!("dtype {:?} is neither f32 nor bf16", file.dtype)))?;
        if file.rows.is_empty() {
            return Err(Error::new("the sweep has no rows"));
        }
        if let Some(row) = file.rows.iter().find(|r| r.m == 0 || r.n == 0 || r.k == 0) {
            return Err(Error::new(format!("shape {:?} has a zero size", row.shape)));
        }
        Ok(Sweep { device: file.device, dtype, rows: file.rows })
    }

    /// The model's numbers for the GPU the sweep ran on: the H200's are
    /// the ones this project measured; another GPU's peaks are not in the
    /// file, so it is refused rather than drawn under the wrong roof.
    pub fn machine(&self) -> Result<Machine> {
        if self.device.contains("H200") {
            Ok(Machine::H200)
        } else {
            Err(Error::new(format!("the lesson knows the H200's peaks only; this sweep ran on {:?}", self.device)))
        }
    }
}

/// A time that can be drawn: a correct result with a positive time.
fn timed(measured: &Option<Measured>) -> Option<&Measured> {
    measured.as_ref().filter(|m| m.correct && m.micros.is_finite() && m.micros > 0.0)
}

/// The GPU's numbers as the lesson quotes them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MachineNumbers {
    pub multiprocessors: u32,
    pub tensor_tflops: f64,
    pub fp32_tflops: f64,
    pub dram_gbps: f64,
    /// FLOPs per byte where the tensor cores and DRAM take equally long.
    pub ridge: f64,
}

impl MachineNumbers {
    pub fn new(machine: &Machine) -> MachineNumbers {
        MachineNumbers {
            multiprocessors: machine.multiprocessors,
            tensor_tflops: machine.tensor_flops / 1e12,
            fp32_tflops: machine.fp32_flops / 1e12,
            dram_gbps: machine.dram_bytes / 1e9,
            ridge: machine.ridge(),
        }
    }
}

/// Everything the lesson computes from one sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lesson {
    pub device: String,
    pub dtype: &'static str,
    pub machine: MachineNumbers,
    pub roofline: Vec<roofline::Point>,
    pub waves: Vec<waves::Waves>,
    pub accuracy: accuracy::Curves,
}

impl Lesson {
    pub fn new(sweep: &Sweep) -> Result<Lesson> {
        let machine = sweep.machine()?;
        Ok(Lesson {
            device: sweep.device.clone(),
            dtype: sweep.dtype.name(),
            machine: MachineNumbers::new(&machine),
            roofline: roofline::points(sweep, &machine),
            waves: waves::of_sweep(sweep, &machine),
            accuracy: accuracy::curves(&accuracy::DEPTHS, accuracy::SEED, &sweep.rows),
        })
    }

    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The three tables, for the terminal.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let m = &self.machine;
        let _ = writeln!(
            out,
            "Roofline of the {} sweep on {}: {:.0} TFLOP/s of tensor cores over {:.0} GB/s of DRAM: ridge at {:.0} FLOP/B",
            self.dtype, self.device, m.tensor_tflops, m.dram_gbps, m.ridge
        );
        out.push_str(&roofline::table(&self.roofline));
        let _ = writeln!(out, "\nWaves of 128x256 tiles on {} SMs, and split K", m.multiprocessors);
        out.push_str(&waves::table(&self.waves));
        out.push_str("\nRelative error against K (CPU model of the accumulators, bf16 inputs)\n");
        out.push_str(&accuracy::table(&self.accuracy));
        out
    }
}

/// A logarithmic axis: whole decades (or powers of another base) from
/// `lo` to `hi`, drawn from pixel `from` to pixel `to`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LogAxis {
    base: f64,
    lo: i32,
    hi: i32,
    from: f64,
    to: f64,
}

impl LogAxis {
    /// The powers of `base` that hold every finite positive value given.
    fn around(base: f64, values: impl Iterator<Item = f64>, from: f64, to: f64) -> LogAxis {
        let (lo, hi) = values
            .filter(|v| v.is_finite() && *v > 0.0)
            .map(|v| v.log(base))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| (lo.min(e), hi.max(e)));
        let (lo, hi) = if lo.is_finite() { (lo.floor() as i32, hi.ceil() as i32) } else { (0, 1) };
        LogAxis { base, lo, hi: hi.max(lo + 1), from, to }
    }

    /// The pixel of `v` (values outside the axis land outside it).
    fn at(&self, v: f64) -> f64 {
        let t = (v.log(self.base) - self.lo as f64) / (self.hi - self.lo) as f64;
        self.from + t * (self.to - self.from)
    }

    fn powers(&self) -> impl Iterator<Item = f64> + '_ {
        (self.lo..=self.hi).map(|e| self.base.powi(e))
    }

    fn contains(&self, v: f64) -> bool {
        v.is_finite() && v > 0.0 && (self.lo as f64..=self.hi as f64).contains(&v.log(self.base))
    }
}

/// A log-log plot's frame: a light grid line and a label at every power of
/// each axis, and the two axes, for a plot `width`×`height` whose top-left
/// corner is (`left`, `top`).
fn log_grid(svg: &mut crate::svg::Svg, x: &LogAxis, y: &LogAxis, (left, top, width, height): (f64, f64, f64, f64)) {
    use crate::svg::{Anchor, TextStyle};
    for v in x.powers() {
        svg.line(x.at(v), top, x.at(v), top + height, "#e4e4e4", 1.0);
        svg.text(x.at(v), top + height + 18.0, &power_label(v), TextStyle::new(11.0).anchor(Anchor::Middle));
    }
    for v in y.powers() {
        svg.line(left, y.at(v), left + width, y.at(v), "#e4e4e4", 1.0);
        svg.text(left - 8.0, y.at(v) + 4.0, &power_label(v), TextStyle::new(11.0).anchor(Anchor::End));
    }
    svg.line(left, top + height, left + width, top + height, "#444", 1.0);
    svg.line(left, top, left, top + height, "#444", 1.0);
}

/// A tick label for a power of ten or two: plain digits up to 100000,
/// else `1e-6` style.
fn power_label(v: f64) -> String {
    if (1.0..=100_000.0).contains(&v) {
        format!("{v:.0}")
    } else if (0.001..1.0).contains(&v) {
        format!("{v}")
    } else {
        format!("{v:.0e}")
    }
}

/// Boxes of the labels placed so far, so the next one finds free room.
#[derive(Default)]
struct Placed {
    boxes: Vec<(f64, f64, f64, f64)>,
}

impl Placed {
    fn free(&self, (x, y, w, h): (f64, f64, f64, f64)) -> bool {
        self.boxes.iter().all(|&(bx, by, bw, bh)| x + w <= bx || bx + bw <= x || y + h <= by || by + bh <= y)
    }

    /// The first of `candidates` (top-left corners of a `w`×`h` box inside
    /// `area`) that overlaps nothing placed, taken; None if all do.
    fn take(&mut self, candidates: &[(f64, f64)], (w, h): (f64, f64), area: (f64, f64, f64, f64)) -> Option<(f64, f64)> {
        let (ax, ay, aw, ah) = area;
        let &(x, y) =
            candidates.iter().find(|&&(x, y)| x >= ax && y >= ay && x + w <= ax + aw && y + h <= ay + ah && self.free((x, y, w, h)))?;
        self.boxes.push((x, y, w, h));
        Some((x, y))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The committed BF16 sweep from the H200.
    pub(crate) fn h200() -> Sweep {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sweep-h200-bf16.json")).expect("the committed sweep");
        Sweep::from_json(&text).expect("a sweep file")
    }

    /// Attribute `name` of an SVG element line, as a number.
    pub(crate) fn attribute(line: &str, name: &str) -> f64 {
        let key = format!(" {name}=\"");
        let start = line.find(&key).unwrap_or_else(|| panic!("no {name} in {line}")) + key.len();
        line[start..].split('"').next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name} in {line}"))
    }

    #[test]
    fn the_committed_sweep_reads_and_bad_files_say_why() {
        let sweep = h200();
        assert_eq!((sweep.dtype, sweep.rows.len()), (Dtype::Bf16, 23));
        assert_eq!(sweep.machine().unwrap(), Machine::H200);
        let one = |dtype: &str, device: &str, rows: &str| format!(r#"{{"device": "{device}", "dtype": "{dtype}", "rows": [{rows}]}}"#);
        let row = r#"{"shape": "s", "m": 1, "n": 2, "k": 3, "cublas": null, "ours": null}"#;
        assert!(Sweep::from_json(&one("bf16", "NVIDIA H200", row)).is_ok());
        for (text, says) in [
            ("{", "not a `ptx-ladder sweep --json` file"),
            (r#"{"device": "x"}"#, "missing field"),
            (&one("f16", "NVIDIA H200", row), "dtype \"f16\""),
            (&one("bf16", "NVIDIA H200", ""), "no rows"),
            (&one("bf16", "NVIDIA H200", &row.replace("\"k\": 3", "\"k\": 0")), "zero size"),
        ] {
            let err = Sweep::from_json(text).unwrap_err();
            assert!(err.message().contains(says), "{text}: {err}");
        }
        let a100 = Sweep::from_json(&one("bf16", "NVIDIA A100", row)).unwrap();
        assert!(a100.machine().unwrap_err().message().contains("H200's peaks only"));
    }

    #[test]
    fn log_axes_hold_whole_powers_and_map_them_evenly() {
        let axis = LogAxis::around(10.0, [0.998, 2048.0, f64::NAN, 0.0].into_iter(), 100.0, 600.0);
        assert_eq!((axis.lo, axis.hi), (-1, 4));
        for (v, pixel) in [(0.1, 100.0), (10.0, 300.0), (10_000.0, 600.0)] {
            assert!((axis.at(v) - pixel).abs() < 1e-9, "{v}: {}", axis.at(v));
        }
        assert!(axis.contains(1.0) && !axis.contains(1e5) && !axis.contains(0.0));
        assert_eq!(axis.powers().map(power_label).collect::<Vec<_>>(), ["0.1", "1", "10", "100", "1000", "10000"]);
        assert_eq!(power_label(1e-6), "1e-6");
    }

    #[test]
    fn labels_are_placed_where_nothing_else_is() {
        let mut placed = Placed::default();
        let area = (0.0, 0.0, 100.0, 100.0);
        assert_eq!(placed.take(&[(10.0, 10.0)], (20.0, 10.0), area), Some((10.0, 10.0)));
        // The same spot is taken; the next candidate is used.
        assert_eq!(placed.take(&[(15.0, 15.0), (15.0, 20.0)], (20.0, 10.0), area), Some((15.0, 20.0)));
        // Outside the area: refused.
        assert_eq!(placed.take(&[(95.0, 50.0)], (20.0, 10.0), area), None);
    }
}
