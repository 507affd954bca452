//! Accuracy at deep K, modelled on the CPU. A tensor core adds a group of
//! 16 exact bf16 products to its fp32 accumulator and rounds the result
//! toward zero ([`crate::matmul::accuracy`]): every group loses up to one
//! unit in the last place, always shrinking the sum, so the errors add up
//! instead of cancelling and grow in proportion to K. Rounding to nearest
//! errs both ways, and its errors grow like √K.
//!
//! Two cures keep the truncating groups and shorten the sum each
//! accumulator carries: split K gives each of s slices a fresh
//! accumulator (K / s terms each) and adds the slices at the end, and
//! promotion adds the tensor core's accumulator into an fp32 register,
//! rounded to nearest, every few k and starts it again from zero.
//!
//! The model computes all four on the same random bf16 inputs as the
//! sweep (`Bf16Problem::random`), and measures their error with the
//! sweep's checker ([`crate::matmul::check::verdict`]).

use super::{LogAxis, SweepRow, log_grid, timed};
use crate::matmul::bf16::problem::Bf16Problem;
use crate::matmul::check::{Problem, reference, verdict};
use crate::svg::{self, Anchor, Svg, TextStyle};
use serde::Serialize;
use std::fmt::Write as _;

/// The depths of the curves: 256 to 65536.
pub const DEPTHS: [u32; 9] = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];

/// Seed of the model's inputs.
pub const SEED: u64 = 2026;

/// Rows × columns of C the model computes at every depth.
pub const OUTPUT: (u32, u32) = (8, 32);

/// Products a tensor core sums exactly before it rounds into the
/// accumulator (one bf16 `mma` k-step).
pub const GROUP: usize = 16;

/// Slices of the split-K curve.
pub const SPLIT: u32 = 8;

/// k between promotions of the promoted curve: four 64-deep k-blocks.
pub const PROMOTE_EVERY: u32 = 256;

/// How the accumulator rounds a group's sum into itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Toward zero, as the tensor cores do.
    TowardZero,
    /// To nearest (ties to even), as fp32 adds and FMAs do.
    Nearest,
}

/// `x` in fp32, rounded as `rounding` says.
pub fn round(x: f64, rounding: Rounding) -> f32 {
    let nearest = x as f32;
    match rounding {
        Rounding::Nearest => nearest,
        // One step toward zero where nearest rounded away from it: in sign
        // and magnitude bits, one less is one unit smaller in magnitude.
        Rounding::TowardZero if (nearest as f64).abs() > x.abs() => f32::from_bits(nearest.to_bits() - 1),
        Rounding::TowardZero => nearest,
    }
}

/// C = A·B summed as a tensor core does: per element, K cut into slices
/// of `slice` k; each slice starts from zero and adds groups of
/// [`GROUP`] exact products, rounding each addition as `rounding` says;
/// the slices' results are added in fp32, rounded to nearest (split K's
/// reduction, or promotion into a CUDA-core register). `slice` = K is one
/// accumulator through all of K.
pub fn accumulate(p: &Problem, slice: usize, rounding: Rounding) -> Vec<f32> {
    let (m, n, k) = (p.m as usize, p.n as usize, p.k as usize);
    let columns: Vec<Vec<f64>> = (0..n).map(|j| (0..k).map(|q| p.b[q * n + j] as f64).collect()).collect();
    let mut c = Vec::with_capacity(m * n);
    for i in 0..m {
        let row = &p.a[i * k..][..k];
        for column in &columns {
            let mut total = 0.0f32;
            for (a_slice, b_slice) in row.chunks(slice.max(1)).zip(column.chunks(slice.max(1))) {
                let mut acc = 0.0f32;
                for (a, b) in a_slice.chunks(GROUP).zip(b_slice.chunks(GROUP)) {
                    let group: f64 = a.iter().zip(b).map(|(&x, &y)| x as f64 * y).sum();
                    acc = round(acc as f64 + group, rounding);
                }
                total = round(total as f64 + acc as f64, Rounding::Nearest);
            }
            c.push(total);
        }
    }
    c
}

/// The relative errors at one depth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub k: u32,
    /// One truncating accumulator through all of K.
    pub truncated: f64,
    /// One accumulator rounding to nearest.
    pub nearest: f64,
    /// Truncating slices of K / [`SPLIT`], added at the end.
    pub split_k: f64,
    /// Truncating accumulators of [`PROMOTE_EVERY`] k, added into fp32.
    pub promoted: f64,
}

/// A relative error the sweep measured on the GPU.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredError {
    pub shape: String,
    pub k: u32,
    pub kernel: String,
    /// cuBLAS's result rather than ours.
    pub cublas: bool,
    pub relative_error: f64,
}

/// The model's curves and the sweep's measurements beside them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curves {
    pub m: u32,
    pub n: u32,
    pub seed: u64,
    pub split: u32,
    pub promote_every: u32,
    pub points: Vec<Point>,
    pub measured: Vec<MeasuredError>,
}

/// The model at every depth of `depths`, and the correct measurements of
/// `rows`.
pub fn curves(depths: &[u32], seed: u64, rows: &[SweepRow]) -> Curves {
    let (m, n) = OUTPUT;
    let points = depths
        .iter()
        .map(|&k| {
            let p = Bf16Problem::random((m, n, k), seed).widened();
            let exact = reference(&p, (0..m).collect());
            let error = |slice: u32, rounding| verdict(&exact, &accumulate(&p, slice as usize, rounding)).relative_error;
            Point {
                k,
                truncated: error(k, Rounding::TowardZero),
                nearest: error(k, Rounding::Nearest),
                split_k: error(k.div_ceil(SPLIT), Rounding::TowardZero),
                promoted: error(PROMOTE_EVERY, Rounding::TowardZero),
            }
        })
        .collect();
    let measured = rows
        .iter()
        .flat_map(|row| {
            [(&row.ours, false), (&row.cublas, true)].into_iter().filter_map(move |(m, cublas)| timed(m).map(|m| (row, m, cublas)))
        })
        .map(|(row, m, cublas)| MeasuredError {
            shape: row.shape.clone(),
            k: row.k,
            kernel: m.kernel.clone(),
            cublas,
            relative_error: m.relative_error,
        })
        .collect();
    Curves { m, n, seed, split: SPLIT, promote_every: PROMOTE_EVERY, points, measured }
}

/// The curves as a table.
pub fn table(curves: &Curves) -> String {
    let mut out = format!(
        "{:>6}  {:>10} {:>10} {:>10} {:>10}\n",
        "K",
        "truncated",
        "nearest",
        format!("split x{}", curves.split),
        format!("fresh/{}", curves.promote_every)
    );
    for p in &curves.points {
        let _ = writeln!(out, "{:>6}  {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e}", p.k, p.truncated, p.nearest, p.split_k, p.promoted);
    }
    out
}

const WIDTH: f64 = 1040.0;
const HEIGHT: f64 = 560.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 60.0;
const PLOT_W: f64 = 560.0;
const PLOT_H: f64 = 420.0;
/// The model's lines: truncated, nearest, split K, promoted.
pub const LINES: [&str; 4] = ["#d62728", "#1f77b4", "#ff7f0e", "#2ca02c"];
/// cuBLAS's measured squares.
pub const CUBLAS: &str = "#7f0000";

/// The picture: the four model curves on log-log axes, guides for ∝ K and
/// ∝ √K, and the sweep's measured errors as squares, one colour per kernel.
pub fn svg(title: &str, curves: &Curves) -> String {
    let errors = curves.points.iter().flat_map(|p| [p.truncated, p.nearest, p.split_k, p.promoted]);
    let all_errors = errors.chain(curves.measured.iter().map(|m| m.relative_error));
    let depths = curves.points.iter().map(|p| p.k).chain(curves.measured.iter().map(|m| m.k));
    let x = LogAxis::around(2.0, depths.map(f64::from), LEFT, LEFT + PLOT_W);
    let y = LogAxis::around(10.0, all_errors, TOP + PLOT_H, TOP);
    let mut svg = Svg::new(WIDTH, HEIGHT);
    svg.text(WIDTH / 2.0, 26.0, title, TextStyle::new(16.0).anchor(Anchor::Middle).bold());
    log_grid(&mut svg, &x, &y, (LEFT, TOP, PLOT_W, PLOT_H));
    svg.text(LEFT + PLOT_W / 2.0, TOP + PLOT_H + 42.0, "K (terms summed per element of C)", TextStyle::new(12.0).anchor(Anchor::Middle));
    svg.text(LEFT, TOP - 12.0, "relative error ||C - exact|| / ||exact||", TextStyle::new(12.0));

    // Guides through the middle points: a line ∝ K through the truncated
    // curve, one ∝ √K through the rounded one.
    if let (Some(first), Some(middle), Some(last)) =
        (curves.points.first(), curves.points.get(curves.points.len() / 2), curves.points.last())
    {
        let ratio = |k: u32| k as f64 / middle.k as f64;
        let guides = [(middle.truncated, 1.0, "∝ K"), (middle.nearest, 0.5, "∝ √K")];
        for (through, power, label) in guides {
            let (from, to) = (through * ratio(first.k).powf(power), through * ratio(last.k).powf(power));
            if y.contains(from) && y.contains(to) {
                svg.dashed_line(x.at(first.k as f64), y.at(from), x.at(last.k as f64), y.at(to), "#aaa", 1.0);
                svg.text(x.at(last.k as f64) + 6.0, y.at(to) + 4.0, label, TextStyle::new(11.0).fill("#777"));
            }
        }
    }
    let names = [
        "one truncating accumulator (tensor core)".to_string(),
        "one accumulator rounding to nearest".to_string(),
        format!("split K into {} slices, added at the end", curves.split),
        format!("fresh accumulator every {} k, promoted to fp32", curves.promote_every),
    ];
    let series: [fn(&Point) -> f64; 4] = [|p| p.truncated, |p| p.nearest, |p| p.split_k, |p| p.promoted];
    let lx = LEFT + PLOT_W + 40.0;
    svg.text(lx, TOP + 4.0, &format!("CPU model, {}×{} outputs of bf16 inputs:", curves.m, curves.n), TextStyle::new(12.0).bold());
    for (i, ((value, name), colour)) in series.iter().zip(&names).zip(LINES).enumerate() {
        let points: Vec<(f64, f64)> = curves.points.iter().map(|p| (x.at(p.k as f64), y.at(value(p)))).collect();
        svg.polyline(&points, colour, 2.0);
        for &(px, py) in &points {
            svg.circle(px, py, 2.5, colour);
        }
        let ly = TOP + 24.0 + 20.0 * i as f64;
        svg.line(lx, ly, lx + 20.0, ly, colour, 3.0);
        svg.text(lx + 26.0, ly + 4.0, name, TextStyle::new(11.0));
    }
    // Ours as filled squares, one colour per kernel; cuBLAS as larger
    // hollow squares, so a kernel with cuBLAS's error shows through.
    let mut kernels: Vec<(bool, &str)> = curves.measured.iter().map(|m| (m.cublas, m.kernel.as_str())).collect();
    kernels.sort_unstable();
    kernels.dedup();
    let top = TOP + 24.0 + 20.0 * 4.0 + 16.0;
    svg.text(lx, top, "measured on the GPU (the sweep):", TextStyle::new(12.0).bold());
    for (i, &(cublas, kernel)) in kernels.iter().enumerate() {
        let (size, fill, stroke) = if cublas { (12.0, "none", CUBLAS) } else { (8.0, svg::palette(i + 4), "#333") };
        let square = |svg: &mut Svg, (cx, cy): (f64, f64)| svg.rect(cx - size / 2.0, cy - size / 2.0, size, size, fill, stroke);
        for m in curves.measured.iter().filter(|m| (m.cublas, m.kernel.as_str()) == (cublas, kernel) && y.contains(m.relative_error)) {
            square(&mut svg, (x.at(m.k as f64), y.at(m.relative_error)));
        }
        let ly = top + 20.0 + 20.0 * i as f64;
        square(&mut svg, (lx + 10.0, ly));
        svg.text(lx + 26.0, ly + 4.0, kernel, TextStyle::new(11.0));
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::super::tests::attribute;
    use super::*;
    use crate::svg::tests::assert_well_formed;

    #[test]
    fn truncation_rounds_toward_zero_and_nearest_to_nearest() {
        let third = 1.0 / 3.0;
        // 1/3 in fp32 rounds up to nearest (0x3eaaaaab); truncated, down.
        assert_eq!(round(third, Rounding::Nearest).to_bits(), 0x3eaa_aaab);
        assert_eq!(round(third, Rounding::TowardZero).to_bits(), 0x3eaa_aaaa);
        assert_eq!(round(-third, Rounding::TowardZero), -round(third, Rounding::TowardZero));
        // Exact values stay.
        assert_eq!(round(0.5, Rounding::TowardZero), 0.5);
        assert_eq!(round(0.0, Rounding::TowardZero), 0.0);
    }

    #[test]
    fn one_slice_is_one_accumulator_and_exact_sums_stay_exact() {
        let p = Bf16Problem::random((2, 3, 100), 1).widened();
        assert_eq!(accumulate(&p, 100, Rounding::TowardZero), accumulate(&p, 1000, Rounding::TowardZero));
        // Small integers: every sum is exact, however it is rounded or cut.
        let ones = Problem { a: vec![1.0; 2 * 100], b: vec![2.0; 100 * 3], ..p };
        for slice in [7, 100] {
            assert_eq!(accumulate(&ones, slice, Rounding::TowardZero), vec![200.0; 6]);
        }
    }

    /// From K = 256 to 65536 the truncated error grows with K and the
    /// rounded one with √K (256x and 16x); split K and promotion stay
    /// well below the truncated error at depth.
    #[test]
    fn truncation_grows_with_k_and_the_cures_hold_it_down() {
        let curves = curves(&[256, 65536], SEED, &[]);
        let [shallow, deep] = [&curves.points[0], &curves.points[1]];
        let growth = |f: fn(&Point) -> f64| f(deep) / f(shallow);
        assert!(growth(|p| p.truncated) > 64.0, "{curves:?}");
        assert!(growth(|p| p.nearest) < 40.0, "{curves:?}");
        assert!(deep.nearest < deep.truncated / 10.0, "{curves:?}");
        assert!(deep.split_k < deep.truncated / 3.0, "{curves:?}");
        assert!(deep.promoted < deep.truncated / 10.0, "{curves:?}");
        assert_eq!(curves, super::curves(&[256, 65536], SEED, &[]), "the same seed, the same numbers");
    }

    #[test]
    fn the_lines_follow_the_model_and_the_squares_the_sweep() {
        let rows = super::super::tests::h200().rows;
        let curves = curves(&[256, 4096, 16384], SEED, &rows);
        assert_eq!(curves.measured.len(), 2 * rows.len());
        let doc = svg("accuracy", &curves);
        assert_well_formed(&doc);
        let line = |colour: &str| -> Vec<(f64, f64)> {
            let l = doc.lines().find(|l| l.starts_with("<polyline") && l.contains(&format!("stroke=\"{colour}\""))).unwrap();
            let points = l.split("points=\"").nth(1).and_then(|r| r.split('"').next()).unwrap();
            points.split(' ').map(|p| p.split_once(',').map(|(a, b)| (a.parse().unwrap(), b.parse().unwrap())).unwrap()).collect()
        };
        let truncated = line(LINES[0]);
        assert_eq!(truncated.len(), 3);
        // K doubles per tick: 4096 is four steps after 256, on an axis of
        // eight steps (to the sweep's deep K, 65536).
        assert!((truncated[1].0 - (LEFT + PLOT_W * 4.0 / 8.0)).abs() < 0.01, "{truncated:?}");
        // Larger errors are higher up.
        assert!(truncated[2].1 < truncated[0].1);
        // A square per measured error, plus one per kernel in the legend:
        // each of ours the sweep ran, and cuBLAS's hollow.
        let squares = |stroke: &str| doc.lines().filter(|l| l.starts_with("<rect") && l.contains(&format!("stroke=\"{stroke}\""))).count();
        let mut ours: Vec<&str> = rows.iter().filter_map(|r| r.ours.as_ref()).map(|o| o.kernel.as_str()).collect();
        ours.sort_unstable();
        ours.dedup();
        assert_eq!((squares("#333"), squares(CUBLAS)), (rows.len() + ours.len(), rows.len() + 1));
        // cuBLAS's squares are hollow and centred on their K: the deep-K
        // one at the right end of the axis.
        let hollow: Vec<(f64, f64)> = doc
            .lines()
            .filter(|l| l.starts_with("<rect") && l.contains(&format!("stroke=\"{CUBLAS}\"")))
            .map(|l| (attribute(l, "x") + attribute(l, "width") / 2.0, attribute(l, "width")))
            .collect();
        assert!(hollow.iter().all(|&(_, width)| width == 12.0));
        assert!(hollow.iter().any(|&(centre, _)| (centre - (LEFT + PLOT_W)).abs() < 0.01), "{hollow:?}");
    }
}
