//! The roofline: a GEMM cannot run faster than its arithmetic at the
//! tensor cores' peak, nor faster than its minimum traffic at DRAM's
//! bandwidth. Per byte of that traffic a shape does `intensity` FLOPs, so
//! its ceiling is `min(peak, bandwidth × intensity)`: a slope below the
//! ridge point (`peak / bandwidth`), flat above it. At M = 1 every weight
//! is read for two FLOPs, about one FLOP per byte of bf16; a square 4096³
//! does over a thousand.

use super::{LogAxis, Placed, Sweep, log_grid, timed};
use crate::matmul::auto::{Machine, input_bytes, intensity, min_bytes};
use crate::matmul::check::gemm_flops;
use crate::svg::{Anchor, Svg, TextStyle, text_width};
use crate::sweep::suite::Shape;
use serde::Serialize;
use std::fmt::Write as _;

/// One shape under the roof.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub shape: String,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// FLOPs per byte of the minimum traffic.
    pub intensity: f64,
    /// The minimum traffic: A and B read once, C written once, MB.
    pub min_mb: f64,
    /// B alone (the weights), MB.
    pub weight_mb: f64,
    /// The ceiling at this intensity, TFLOP/s.
    pub roof_tflops: f64,
    /// Whether the ceiling is DRAM's slope rather than the peak.
    pub memory_bound: bool,
    pub ours_kernel: Option<String>,
    pub ours_tflops: Option<f64>,
    pub cublas_tflops: Option<f64>,
    pub ours_percent_of_roof: Option<f64>,
    pub cublas_percent_of_roof: Option<f64>,
}

/// The ceiling at `intensity` FLOPs per byte, FLOP/s.
pub fn roof(machine: &Machine, intensity: f64) -> f64 {
    machine.tensor_flops.min(machine.dram_bytes * intensity)
}

/// Every row of the sweep under the machine's roof.
pub fn points(sweep: &Sweep, machine: &Machine) -> Vec<Point> {
    let bytes = input_bytes(sweep.dtype);
    sweep
        .rows
        .iter()
        .map(|row| {
            let size = row.size();
            let intensity = intensity(size, bytes);
            let roof = roof(machine, intensity);
            let tflops = |m| timed(m).map(|m| gemm_flops(size) / (m.micros * 1e-6) / 1e12);
            let (ours, cublas) = (tflops(&row.ours), tflops(&row.cublas));
            Point {
                shape: row.shape.clone(),
                m: row.m,
                n: row.n,
                k: row.k,
                intensity,
                min_mb: min_bytes(size, bytes) / 1e6,
                weight_mb: Shape::new(row.shape.as_str(), size).weight_bytes(bytes as u32) / 1e6,
                roof_tflops: roof / 1e12,
                memory_bound: machine.memory_bound(size, bytes),
                ours_kernel: timed(&row.ours).map(|m| m.kernel.clone()),
                ours_tflops: ours,
                cublas_tflops: cublas,
                ours_percent_of_roof: ours.map(|t| 100.0 * t * 1e12 / roof),
                cublas_percent_of_roof: cublas.map(|t| 100.0 * t * 1e12 / roof),
            }
        })
        .collect()
}

/// The points as a table.
pub fn table(points: &[Point]) -> String {
    let mut out = format!(
        "{:<16} {:>9} {:>9} {:>10} {:>11} {:>9} {:>11} {:>9}\n",
        "shape", "FLOP/B", "min MB", "roof TF/s", "ours TF/s", "of roof", "cuBLAS TF/s", "of roof"
    );
    let number = |v: Option<f64>, decimals: usize| v.map_or("-".to_string(), |v| format!("{v:.decimals$}"));
    let percent = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}%"));
    for p in points {
        let _ = writeln!(
            out,
            "{:<16} {:>9.1} {:>9.1} {:>10.1} {:>11} {:>9} {:>11} {:>9}",
            p.shape,
            p.intensity,
            p.min_mb,
            p.roof_tflops,
            number(p.ours_tflops, 1),
            percent(p.ours_percent_of_roof),
            number(p.cublas_tflops, 1),
            percent(p.cublas_percent_of_roof)
        );
    }
    out
}

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 660.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 60.0;
const PLOT_W: f64 = 640.0;
const PLOT_H: f64 = 520.0;
/// Colours: our dots, cuBLAS's rings, the roof.
pub const OURS: &str = "#1f77b4";
pub const CUBLAS: &str = "#d62728";
pub const ROOF: &str = "#333333";
const LABEL: f64 = 10.0;

/// The axes for these points: whole decades around the data, the ridge
/// and the roof where the x axis starts.
fn axes(points: &[Point], machine: &Machine) -> (LogAxis, LogAxis) {
    let x = LogAxis::around(10.0, points.iter().map(|p| p.intensity).chain([machine.ridge()]), LEFT, LEFT + PLOT_W);
    let lowest_roof = roof(machine, 10f64.powi(x.lo)) / 1e12;
    let reached = points.iter().flat_map(|p| [p.ours_tflops, p.cublas_tflops]).flatten();
    let y = LogAxis::around(10.0, reached.chain([lowest_roof, machine.tensor_flops / 1e12]), TOP + PLOT_H, TOP);
    (x, y)
}

/// The picture: the roof, the ridge, the FP32 pipes' ceiling, and per
/// shape our dot and cuBLAS's ring, joined, labelled with the shape.
pub fn svg(title: &str, points: &[Point], machine: &Machine) -> String {
    let (x, y) = axes(points, machine);
    let mut svg = Svg::new(WIDTH, HEIGHT);
    svg.text(WIDTH / 2.0, 26.0, title, TextStyle::new(16.0).anchor(Anchor::Middle).bold());
    log_grid(&mut svg, &x, &y, (LEFT, TOP, PLOT_W, PLOT_H));
    let x_label = "FLOPs per byte of the minimum traffic (A and B read once, C written once)";
    svg.text(LEFT + PLOT_W / 2.0, TOP + PLOT_H + 42.0, x_label, TextStyle::new(12.0).anchor(Anchor::Middle));
    svg.text(LEFT, TOP - 12.0, "TFLOP/s reached", TextStyle::new(12.0).anchor(Anchor::Middle));

    // The roof, and the FP32 pipes' ceiling where CUDA-core kernels stop.
    let (x_lo, x_hi) = (10f64.powi(x.lo), 10f64.powi(x.hi));
    let (peak, ridge) = (machine.tensor_flops / 1e12, machine.ridge());
    let corners = [(x_lo, roof(machine, x_lo) / 1e12), (ridge, peak), (x_hi, peak)];
    svg.polyline(&corners.map(|(i, t)| (x.at(i), y.at(t))), ROOF, 2.5);
    let fp32 = machine.fp32_flops / 1e12;
    let fp32_from = machine.fp32_flops / machine.dram_bytes;
    svg.dashed_line(x.at(fp32_from), y.at(fp32), x.at(x_hi), y.at(fp32), "#888", 1.5);
    svg.text(
        x.at(x_hi) - 4.0,
        y.at(fp32) - 6.0,
        &format!("FP32 pipes {fp32:.1} TFLOP/s"),
        TextStyle::new(11.0).anchor(Anchor::End).fill("#666"),
    );
    svg.text(
        x.at(x_hi) - 4.0,
        y.at(peak) - 6.0,
        &format!("tensor peak {peak:.0} TFLOP/s"),
        TextStyle::new(11.0).anchor(Anchor::End).fill(ROOF),
    );
    let slope_at = 10f64.powi(x.lo + 1);
    let dram = format!("DRAM {:.1} TB/s × FLOP/B", machine.dram_bytes / 1e12);
    svg.text(x.at(slope_at) + 8.0, y.at(roof(machine, slope_at) / 1e12) - 8.0, &dram, TextStyle::new(11.0).fill(ROOF));
    svg.dashed_line(x.at(ridge), TOP, x.at(ridge), TOP + PLOT_H, "#555", 1.0);
    svg.text(x.at(ridge) + 4.0, TOP + 12.0, &format!("ridge {ridge:.0} FLOP/B"), TextStyle::new(11.0).fill("#555"));

    // Dots first, their boxes taken, so no label covers a dot.
    let mut placed = Placed::default();
    let spots: Vec<(f64, Option<f64>, Option<f64>)> =
        points.iter().map(|p| (x.at(p.intensity), p.ours_tflops.map(|t| y.at(t)), p.cublas_tflops.map(|t| y.at(t)))).collect();
    for &(px, ours, cublas) in &spots {
        if let (Some(a), Some(b)) = (ours, cublas) {
            svg.line(px, a, px, b, "#999", 1.0);
        }
        if let Some(b) = cublas {
            svg.ring(px, b, 4.0, CUBLAS);
            placed.boxes.push((px - 5.0, b - 5.0, 10.0, 10.0));
        }
        if let Some(a) = ours {
            svg.circle(px, a, 4.0, OURS);
            placed.boxes.push((px - 5.0, a - 5.0, 10.0, 10.0));
        }
    }
    let area = (LEFT + 2.0, TOP + 16.0, PLOT_W - 4.0, PLOT_H - 18.0);
    for (p, &(px, ours, cublas)) in points.iter().zip(&spots) {
        let Some(py) = ours.or(cublas) else { continue };
        let size = (text_width(&p.shape, LABEL), LABEL + 2.0);
        let mut candidates = Vec::new();
        for step in 0..12 {
            for dy in if step == 0 { vec![0.0] } else { vec![-12.0 * step as f64, 12.0 * step as f64] } {
                let top = py + dy - size.1 / 2.0;
                candidates.extend([(px + 8.0, top), (px - 8.0 - size.0, top)]);
            }
        }
        if let Some((lx, ly)) = placed.take(&candidates, size, area) {
            let left = lx < px;
            let baseline = ly + size.1 - 3.0;
            if (ly + size.1 / 2.0 - py).abs() > 1.0 {
                let end = if left { lx + size.0 } else { lx };
                svg.line(px, py, end, ly + size.1 / 2.0, "#bbb", 0.8);
            }
            svg.text(lx, baseline, &p.shape, TextStyle::new(LABEL).fill("#333"));
        }
    }

    // The legend.
    let lx = LEFT + PLOT_W + 24.0;
    svg.circle(lx + 6.0, TOP + 20.0, 4.0, OURS);
    svg.text(lx + 18.0, TOP + 24.0, "ours (the auto rung)", TextStyle::new(12.0));
    svg.ring(lx + 6.0, TOP + 42.0, 4.0, CUBLAS);
    svg.text(lx + 18.0, TOP + 46.0, "cuBLAS", TextStyle::new(12.0));
    svg.line(lx, TOP + 64.0, lx + 12.0, TOP + 64.0, ROOF, 2.5);
    svg.text(lx + 18.0, TOP + 68.0, "roof: min(peak, DRAM × FLOP/B)", TextStyle::new(12.0));
    let notes = [
        "Left of the ridge a shape waits",
        "for its bytes: M = 1 does about",
        "one FLOP per byte of weights.",
        "Right of it the tensor cores set",
        "the pace, if enough tiles keep",
        "every SM busy.",
    ];
    for (i, line) in notes.iter().enumerate() {
        svg.text(lx, TOP + 100.0 + 16.0 * i as f64, line, TextStyle::new(11.0).fill("#555"));
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{attribute, h200};
    use super::*;
    use crate::svg::tests::assert_well_formed;

    fn h200_points() -> Vec<Point> {
        points(&h200(), &Machine::H200)
    }

    #[test]
    fn decode_is_one_flop_per_byte_and_squares_reach_the_peak() {
        let points = h200_points();
        let gate_up = points.iter().find(|p| p.shape == "gate_up M=1").unwrap();
        // 4096 x 28672 bf16 weights: 235 MB, read for 2 FLOPs each.
        assert!((gate_up.weight_mb - 234.9).abs() < 0.1, "{gate_up:?}");
        assert!((gate_up.intensity - 1.0).abs() < 0.01 && gate_up.memory_bound);
        assert!((gate_up.roof_tflops - 4.5).abs() < 0.05);
        // The measured time, as FLOPs per second.
        let row = h200().rows.into_iter().find(|r| r.shape == "gate_up M=1").unwrap();
        let measured = 2.0 * 28672.0 * 4096.0 / (row.ours.unwrap().micros * 1e-6) / 1e12;
        assert!((gate_up.ours_tflops.unwrap() - measured).abs() < 1e-9, "{gate_up:?}");
        let square = points.iter().find(|p| p.shape == "square 8192").unwrap();
        assert!(!square.memory_bound && (square.intensity - 2048.0).abs() < 1.0);
        assert!((square.roof_tflops - 989.0).abs() < 1e-9);
    }

    /// Every shape's dot sits at its intensity and TFLOP/s on the log axes,
    /// and its ring at cuBLAS's.
    #[test]
    fn the_dots_follow_the_data() {
        let points = h200_points();
        let doc = svg("roofline", &points, &Machine::H200);
        assert_well_formed(&doc);
        let (x, y) = axes(&points, &Machine::H200);
        assert_eq!((x.lo, x.hi, y.lo, y.hi), (-1, 4, -1, 3));
        let circles = |colour: &str, filled: bool| -> Vec<(f64, f64)> {
            let fill = if filled { format!("fill=\"{colour}\"") } else { format!("stroke=\"{colour}\"") };
            doc.lines()
                .filter(|l| l.starts_with("<circle") && l.contains(&fill))
                .map(|l| (attribute(l, "cx"), attribute(l, "cy")))
                .collect()
        };
        // One legend entry each beside the shapes' own.
        let (ours, rings) = (circles(OURS, true), circles(CUBLAS, false));
        assert_eq!((ours.len(), rings.len()), (points.len() + 1, points.len() + 1));
        for (p, (&(ox, oy), &(cx, cy))) in points.iter().zip(ours.iter().zip(&rings)) {
            assert!((ox - x.at(p.intensity)).abs() < 0.01 && (cx - ox).abs() < 0.01, "{}", p.shape);
            assert!((oy - y.at(p.ours_tflops.unwrap())).abs() < 0.01, "{}", p.shape);
            assert!((cy - y.at(p.cublas_tflops.unwrap())).abs() < 0.01, "{}", p.shape);
        }
        // Higher TFLOP/s is higher on the page: the squares above M = 1.
        assert!(ours[21].1 < ours[0].1);
        // Every shape is labelled.
        for p in &points {
            assert!(doc.contains(&format!(">{}</text>", p.shape)), "{} unlabelled", p.shape);
        }
    }

    #[test]
    fn the_roof_bends_at_the_ridge() {
        let points = h200_points();
        let doc = svg("roofline", &points, &Machine::H200);
        let (x, y) = axes(&points, &Machine::H200);
        let roof_line = doc.lines().find(|l| l.starts_with("<polyline") && l.contains(&format!("stroke=\"{ROOF}\""))).unwrap();
        let corners: Vec<(f64, f64)> = roof_line
            .split("points=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap()
            .split(' ')
            .map(|p| p.split_once(',').map(|(a, b)| (a.parse().unwrap(), b.parse().unwrap())).unwrap())
            .collect();
        assert_eq!(corners.len(), 3);
        let h200 = Machine::H200;
        assert!((corners[1].0 - x.at(h200.ridge())).abs() < 0.01 && (corners[1].1 - y.at(989.0)).abs() < 0.01);
        // 4.5 TB/s at 0.1 FLOP/B is 0.45 TFLOP/s; flat after the ridge.
        assert!((corners[0].0 - x.at(0.1)).abs() < 0.01 && (corners[0].1 - y.at(0.45)).abs() < 0.01);
        assert_eq!(corners[2].1, corners[1].1);
        // One decade of intensity is one decade of TFLOP/s on the slope.
        let per_decade = |axis: &LogAxis| (axis.at(10.0) - axis.at(1.0)).abs();
        let slope = (corners[0].1 - corners[1].1) / (corners[1].0 - corners[0].0);
        assert!((slope - per_decade(&y) / per_decade(&x)).abs() < 1e-3, "{slope}");
        assert!(doc.contains("ridge 220 FLOP/B"));
    }
}
