//! Waves: the tiled rung gives each SM one 128×256 tile of C at a time,
//! and the tile walks all of K. A shape with T tiles on S SMs runs in
//! `ceil(T / S)` waves, and the last wave costs as much as a full one
//! however few tiles it holds. At M ≤ 128 a Llama projection has one row
//! of tiles: 16 of them for `o` and `down`, so 116 of the H200's 132 SMs
//! idle while 16 walk K alone.
//!
//! Split K cuts K into slices, each a work item of its own: T tiles × s
//! slices fill the SMs, and each walks K / s. The price is the partial
//! sums: every slice writes its M×N fp32 result, and a reduction reads
//! them back and adds them.
//!
//! Where there is a wave or more of tiles, narrower tiles (the BF16
//! ladder's 128×192, three quarters of the work each) make more of them,
//! and their last wave may come out fuller: qkv at M = 1024 has 192 tiles
//! of 128×256 in two waves (the second 45% full) or 256 of 128×192 in two
//! nearly full ones, 1.5 waves of the wider tiles' time.

use super::Sweep;
use crate::matmul::auto::{Machine, NarrowRung, narrow_rungs, split_kernel, tiled_time};
use crate::svg::{Anchor, Svg, TextStyle, text_width};
use serde::Serialize;
use std::fmt::Write as _;

/// One shape's tiles, waves and split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Waves {
    pub shape: String,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// 128×256 tiles of C (the auto model's count).
    pub tiles: u64,
    pub waves: u64,
    /// Tiles in the last wave.
    pub last_wave_tiles: u64,
    /// Tiles over the SM slots of the waves paid for, percent.
    pub busy_percent: f64,
    /// K's slices under split K (1: no split).
    pub split: u64,
    pub split_waves: u64,
    pub split_busy_percent: f64,
    /// K an SM walks in all: one tile's K per wave.
    pub depth_per_sm: u64,
    pub split_depth_per_sm: u64,
    /// What the busiest SM's walk shrinks by under split K.
    pub split_speedup: f64,
    /// Partial sums written and read back by the reduction, MB.
    pub partial_mb: f64,
    /// The same shape in the ladder's narrower tiles (BF16: 128×192);
    /// None where the ladder has none.
    pub narrow: Option<NarrowWaves>,
}

/// A shape's waves in narrower tiles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NarrowWaves {
    pub tile_n: u32,
    pub tiles: u64,
    pub waves: u64,
    pub last_wave_tiles: u64,
    /// Tiles over the SM slots of the waves paid for, percent.
    pub busy_percent: f64,
    /// Their waves in the time of the wider tiles' (each tile's work is
    /// `tile_n / 256` of one).
    pub wide_waves: f64,
}

/// `items` work items, one per SM at a time on `sms` SMs: the waves they
/// take, the items in the last, and the share of the waves' SM time they
/// fill, percent.
fn fill(items: u64, sms: u64) -> (u64, u64, f64) {
    let waves = items.div_ceil(sms);
    (waves, items - (waves - 1) * sms, 100.0 * items as f64 / (waves * sms) as f64)
}

/// One shape's waves.
pub fn of_shape(name: &str, size: (u32, u32, u32), machine: &Machine, dtype: crate::matmul::dtype::Dtype) -> Waves {
    let (m, n, k) = size;
    let sms = machine.multiprocessors as u64;
    let (_, tiles) = tiled_time(dtype, size, machine);
    let (waves, last_wave_tiles, busy_percent) = fill(tiles, sms);
    // The split-K rung's own cut (KSlices::plan), over its own tiles.
    let split_rung = split_kernel(dtype);
    let slices = split_rung.slices(size, machine.clusters);
    let split_tiles = split_rung.tiling.tiles(m, n) as u64;
    let s = slices.count as u64;
    let (split_waves, _, split_busy_percent) = fill(split_tiles * s, sms);
    let depth = waves * k as u64;
    let wide_n = crate::matmul::auto::tiled_kernel(dtype).tiling.tiling.tile_n;
    let narrow = narrow_rungs(dtype).first().map(|NarrowRung { kernel, .. }| {
        let tile_n = kernel.tiling.tiling.tile_n;
        let tiles = kernel.tiling.tiles(m, n) as u64;
        let (waves, last_wave_tiles, busy_percent) = fill(tiles, sms);
        NarrowWaves { tile_n, tiles, waves, last_wave_tiles, busy_percent, wide_waves: waves as f64 * tile_n as f64 / wide_n as f64 }
    });
    let split_depth = split_waves * (k as u64).min((slices.k_tiles * split_rung.tiling.tiling.tile_k) as u64);
    Waves {
        shape: name.to_string(),
        m,
        n,
        k,
        tiles,
        waves,
        last_wave_tiles,
        busy_percent,
        split: s,
        split_waves,
        split_busy_percent,
        depth_per_sm: depth,
        split_depth_per_sm: split_depth,
        split_speedup: depth as f64 / split_depth as f64,
        partial_mb: if s > 1 { 2.0 * 4.0 * s as f64 * m as f64 * n as f64 / 1e6 } else { 0.0 },
        narrow,
    }
}

/// Every shape of the sweep.
pub fn of_sweep(sweep: &Sweep, machine: &Machine) -> Vec<Waves> {
    sweep.rows.iter().map(|row| of_shape(&row.shape, row.size(), machine, sweep.dtype)).collect()
}

/// The waves as a table.
pub fn table(rows: &[Waves]) -> String {
    let mut out = format!(
        "{:<16} {:>6} {:>6} {:>10} {:>6}  {:>6} {:>7} {:>6} {:>11} {:>8}  {:>12} {:>6}\n",
        "shape", "tiles", "waves", "last wave", "busy", "split", "busy", "faster", "partials MB", "K per SM", "narrow tiles", "busy"
    );
    for w in rows {
        let (narrow_tiles, narrow_busy) = match &w.narrow {
            Some(narrow) => (narrow.tiles.to_string(), format!("{:.0}%", narrow.busy_percent)),
            None => ("-".to_string(), "-".to_string()),
        };
        let _ = writeln!(
            out,
            "{:<16} {:>6} {:>6} {:>10} {:>5.0}%  {:>6} {:>6.0}% {:>5.1}x {:>11.1} {:>8}  {:>12} {:>6}",
            w.shape,
            w.tiles,
            w.waves,
            w.last_wave_tiles,
            w.busy_percent,
            w.split,
            w.split_busy_percent,
            w.split_speedup,
            w.partial_mb,
            w.split_depth_per_sm,
            narrow_tiles,
            narrow_busy
        );
    }
    out
}

const LABEL_W: f64 = 150.0;
const BAR_X: f64 = 160.0;
const BAR_W: f64 = 300.0;
const ROW_H: f64 = 50.0;
const TOP: f64 = 110.0;
/// Colours: the tiles alone, with K split, and narrower tiles.
pub const TILES: &str = "#4c78a8";
pub const SPLIT: &str = "#f58518";
pub const NARROW: &str = "#54a24b";

/// The picture: per shape, the share of the SMs' time its tiles fill in
/// the waves it pays for, the same with K split, and with narrower tiles
/// where the ladder has them.
pub fn svg(title: &str, rows: &[Waves], machine: &Machine) -> String {
    let sms = machine.multiprocessors;
    let lines: Vec<[String; 3]> = rows.iter().map(|w| describe(w, sms)).collect();
    let longest = lines.iter().flatten().map(|line| text_width(line, 11.0)).fold(0.0, f64::max);
    let width = (BAR_X + BAR_W + 12.0 + longest + 16.0).max(text_width(title, 16.0) * 1.1 + 40.0);
    let bottom = TOP + rows.len() as f64 * ROW_H;
    let mut svg = Svg::new(width, bottom + 50.0);
    svg.text(width / 2.0, 26.0, title, TextStyle::new(16.0).anchor(Anchor::Middle).bold());
    svg.rect(BAR_X, 44.0, 14.0, 10.0, TILES, "none");
    let tiles_key = format!("128×256 tiles of C, one per SM at a time: their share of the {sms} SMs' time in the waves paid for");
    svg.text(BAR_X + 20.0, 53.0, &tiles_key, TextStyle::new(12.0));
    svg.rect(BAR_X, 62.0, 14.0, 10.0, SPLIT, "none");
    let split_key =
        "K split into slices by the split-K rung's plan: as many as fill the idle SMs, weighed against partial sums".to_string();
    svg.text(BAR_X + 20.0, 71.0, &split_key, TextStyle::new(12.0));
    if let Some(narrow) = rows.iter().find_map(|w| w.narrow.as_ref()) {
        svg.rect(BAR_X, 80.0, 14.0, 10.0, NARROW, "none");
        let narrow_key =
            format!("K whole, tiles 128×{} (three quarters the work each): more tiles, perhaps a fuller last wave", narrow.tile_n);
        svg.text(BAR_X + 20.0, 89.0, &narrow_key, TextStyle::new(12.0));
    }
    for (i, (w, [first, second, third])) in rows.iter().zip(&lines).enumerate() {
        let y = TOP + i as f64 * ROW_H;
        svg.text(LABEL_W, y + 20.0, &w.shape, TextStyle::new(12.0).anchor(Anchor::End));
        svg.rect(BAR_X, y + 4.0, BAR_W, 37.0, "#f0f0f0", "none");
        svg.rect(BAR_X, y + 4.0, BAR_W * w.busy_percent / 100.0, 13.0, TILES, "none");
        svg.rect(BAR_X, y + 19.0, BAR_W * w.split_busy_percent / 100.0, 9.0, SPLIT, "none");
        if let Some(narrow) = &w.narrow {
            svg.rect(BAR_X, y + 30.0, BAR_W * narrow.busy_percent / 100.0, 9.0, NARROW, "none");
        }
        svg.text(BAR_X + BAR_W + 12.0, y + 14.0, first, TextStyle::new(11.0));
        svg.text(BAR_X + BAR_W + 12.0, y + 27.0, second, TextStyle::new(11.0).fill("#8a4b00"));
        svg.text(BAR_X + BAR_W + 12.0, y + 40.0, third, TextStyle::new(11.0).fill("#2f6b2a"));
    }
    for percent in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let x = BAR_X + BAR_W * percent / 100.0;
        svg.line(x, bottom + 2.0, x, bottom + 7.0, "#444", 1.0);
        svg.text(x, bottom + 20.0, &format!("{percent:.0}%"), TextStyle::new(11.0).anchor(Anchor::Middle));
    }
    svg.line(BAR_X, bottom + 2.0, BAR_X + BAR_W, bottom + 2.0, "#444", 1.0);
    svg.text(BAR_X + BAR_W / 2.0, bottom + 40.0, "SM time busy", TextStyle::new(12.0).anchor(Anchor::Middle));
    svg.finish()
}

/// The lines beside a shape's bars (the third empty without narrower tiles).
fn describe(w: &Waves, sms: u32) -> [String; 3] {
    let tiles = if w.tiles == 1 { "1 tile".to_string() } else { format!("{} tiles", w.tiles) };
    let first = if w.waves == 1 {
        format!("{tiles}: 1 wave, {} of {sms} SMs busy; each walks all of K = {}", w.last_wave_tiles, w.k)
    } else {
        format!("{tiles}: {} waves, the last with {} of {sms} SMs; the busiest SM walks {} × K", w.waves, w.last_wave_tiles, w.waves)
    };
    let second = if w.split > 1 {
        format!(
            "split K ×{}: {} items, {:.0}% busy, {} of K per SM ({:.1}x less), +{:.1} MB of partial sums",
            w.split,
            w.tiles * w.split,
            w.split_busy_percent,
            w.split_depth_per_sm,
            w.split_speedup,
            w.partial_mb
        )
    } else {
        "no split: the tiles already fill a wave".to_string()
    };
    let third = match &w.narrow {
        Some(n) => format!(
            "128×{}: {} tile{} in {} wave{}, the last with {} of {sms} SMs: {:.2} waves of 128×256 time",
            n.tile_n,
            n.tiles,
            if n.tiles == 1 { "" } else { "s" },
            n.waves,
            if n.waves == 1 { "" } else { "s" },
            n.last_wave_tiles,
            n.wide_waves
        ),
        None => String::new(),
    };
    [first, second, third]
}

#[cfg(test)]
mod tests {
    use super::super::tests::{attribute, h200};
    use super::*;
    use crate::matmul::dtype::Dtype;
    use crate::svg::tests::assert_well_formed;

    fn waves(size: (u32, u32, u32)) -> Waves {
        of_shape("s", size, &Machine::H200, Dtype::Bf16)
    }

    #[test]
    fn few_tiles_leave_sms_idle_until_k_is_split() {
        // down at M = 128: one row of 16 tiles on 132 SMs.
        let down = waves((128, 4096, 14336));
        assert_eq!((down.tiles, down.waves, down.last_wave_tiles), (16, 1, 16));
        assert!((down.busy_percent - 100.0 * 16.0 / 132.0).abs() < 1e-9);
        // Eight slices of 1792: 128 items, each SM walks an eighth of K;
        // 8 slices of 128 x 4096 fp32, written and read: 33.6 MB.
        assert_eq!((down.split, down.split_waves, down.split_depth_per_sm), (8, 1, 1792));
        assert!((down.split_speedup - 8.0).abs() < 1e-9 && (down.partial_mb - 33.55).abs() < 0.01, "{down:?}");
        // One tile of 64 x 64 x 65536: 128 slices of 512.
        let deep = waves((64, 64, 65536));
        assert_eq!((deep.tiles, deep.split, deep.split_depth_per_sm), (1, 128, 512));
        // A shallow K is not cut below the minimum slice of 4 k-tiles.
        assert_eq!(waves((16, 256, 512)).split, 2);
    }

    #[test]
    fn a_last_wave_with_few_tiles_costs_a_whole_wave() {
        // gate_up at M = 8192: 64 x 112 tiles, 54 full waves and 40 more.
        let gate_up = waves((8192, 28672, 4096));
        assert_eq!((gate_up.tiles, gate_up.waves, gate_up.last_wave_tiles, gate_up.split), (7168, 55, 40, 1));
        assert!((gate_up.busy_percent - 98.7).abs() < 0.1);
        // qkv at M = 1024: 192 tiles, a second wave 60 tiles full.
        let qkv = waves((1024, 6144, 4096));
        assert_eq!((qkv.waves, qkv.last_wave_tiles, qkv.split), (2, 60, 1));
        assert_eq!((qkv.partial_mb, qkv.split_speedup), (0.0, 1.0));
        // In 128x192 tiles: 256, two waves, the second 124 full: 1.5 waves
        // of 128x256 time against 2.
        let narrow = qkv.narrow.unwrap();
        assert_eq!((narrow.tiles, narrow.waves, narrow.last_wave_tiles, narrow.wide_waves), (256, 2, 124, 1.5));
        // o at M = 1024 fills one wave with 128 tiles of 128x256; 128x192
        // needs two (176 tiles).
        let o = waves((1024, 4096, 4096)).narrow.unwrap();
        assert_eq!((o.tiles, o.waves, o.wide_waves), (176, 2, 1.5));
        assert!(of_shape("s", (1024, 6144, 4096), &Machine::H200, Dtype::F32).narrow.is_none());
    }

    /// Each bar is as long as its busy share, on both rows.
    #[test]
    fn the_bars_follow_the_busy_shares() {
        let rows = of_sweep(&h200(), &Machine::H200);
        let doc = svg("waves", &rows, &Machine::H200);
        assert_well_formed(&doc);
        let widths = |colour: &str| -> Vec<f64> {
            doc.lines()
                .filter(|l| l.starts_with("<rect") && l.contains(&format!("fill=\"{colour}\"")))
                .map(|l| attribute(l, "width"))
                .collect()
        };
        // The first of each colour is the key.
        let (tiles, split, narrow) = (widths(TILES), widths(SPLIT), widths(NARROW));
        assert_eq!((tiles.len(), split.len(), narrow.len()), (rows.len() + 1, rows.len() + 1, rows.len() + 1));
        for (w, ((&t, &s), &n)) in rows.iter().zip(tiles[1..].iter().zip(&split[1..]).zip(&narrow[1..])) {
            assert!((t - BAR_W * w.busy_percent / 100.0).abs() < 0.01, "{}", w.shape);
            assert!((s - BAR_W * w.split_busy_percent / 100.0).abs() < 0.01, "{}", w.shape);
            assert!((n - BAR_W * w.narrow.as_ref().unwrap().busy_percent / 100.0).abs() < 0.01, "{}", w.shape);
        }
        assert!(doc.contains("16 tiles: 1 wave, 16 of 132 SMs busy; each walks all of K = 14336"), "{doc}");
        assert!(doc.contains("7168 tiles: 55 waves, the last with 40 of 132 SMs; the busiest SM walks 55 × K"), "{doc}");
        assert!(doc.contains("split K ×8: 128 items, 97% busy, 1792 of K per SM (8.0x less), +33.6 MB of partial sums"));
        assert!(doc.contains("128×192: 256 tiles in 2 waves, the last with 124 of 132 SMs: 1.50 waves of 128×256 time"), "{doc}");
    }
}
