//! `ptx-ladder exercise N --svg`: what each thread read and wrote in one
//! small launch, as a grid of threads (rows) × elements (columns, one band
//! per buffer and one for the block's shared memory), coloured by memory
//! space and direction. Index mistakes show as shapes: a missing guard as
//! cells past a buffer's end, a swapped index as a transposed pattern.

use super::{Case, Kernel, Launch};
use crate::emulator::{AccessKind, Logged};
use crate::svg::{Anchor, Svg, TextStyle};
use std::collections::BTreeMap;

/// Rows and columns drawn at most; the rest is left out (and said so).
const MAX_ROWS: usize = 160;
const MAX_COLUMNS: usize = 160;
const CELL: f64 = 5.0;
const LEFT: f64 = 90.0;
const TOP: f64 = 64.0;
const GAP: f64 = 16.0;

/// Read, written, or both, per memory space.
const COLOURS: [(&str, &str); 5] = [
    ("global read", "#6baed6"),
    ("global write", "#e6550d"),
    ("shared read", "#a1d99b"),
    ("shared write", "#238b45"),
    ("read and written", "#756bb1"),
];

#[derive(Clone, Copy, Default)]
struct Cell {
    read: bool,
    write: bool,
}

/// One band of columns: a buffer (or shared memory) and its cells by (row, element).
struct Band {
    name: String,
    len: usize,
    shared: bool,
    cells: BTreeMap<(usize, usize), Cell>,
}

/// Runs `kernel` on `case` and draws its accesses. `Err` when the launch
/// itself failed (the check says why).
pub fn draw(title: &str, kernel: Kernel, case: &Case) -> Result<String, String> {
    let mut launch = Launch::new(case);
    let (_, log) = launch.run(case, kernel, title)?;
    let mut bands: Vec<Band> = case
        .inputs
        .iter()
        .map(|i| (i.name, i.words.len()))
        .chain([(case.output, case.expected.len())])
        .map(|(name, len)| Band { name: name.to_string(), len, shared: false, cells: BTreeMap::new() })
        .collect();
    let shared_words = case.shape.shared_bytes as usize / 4;
    if shared_words > 0 {
        bands.push(Band { name: "shared".into(), len: shared_words, shared: true, cells: BTreeMap::new() });
    }
    let starts: Vec<usize> = launch.inputs.iter().map(|b| b.as_ptr() as usize).chain([launch.output_address()]).collect();
    let threads = case.shape.block.volume() as usize;
    for entry in &log {
        let row = linear_block(entry, case) * threads + entry.thread as usize;
        let (band, element) = if entry.shared {
            (bands.len() - 1, entry.address / 4)
        } else {
            // Past a buffer's end (a missing guard) still belongs to it.
            let below = starts.iter().enumerate().filter(|&(_, &s)| entry.address >= s);
            let Some((b, _)) = below.max_by_key(|&(_, &s)| s) else { continue };
            (b, (entry.address - starts[b]) / 4)
        };
        for word in 0..(entry.bytes / 4) as usize {
            let cell = bands[band].cells.entry((row, element + word)).or_default();
            match entry.kind {
                AccessKind::Read => cell.read = true,
                _ => cell.write = true,
            }
        }
    }
    let rows = (case.shape.grid.volume() as usize * threads).min(MAX_ROWS);
    Ok(render(title, case, &bands, rows))
}

fn linear_block(entry: &Logged, case: &Case) -> usize {
    let g = case.shape.grid;
    ((entry.block.z * g.y + entry.block.y) * g.x + entry.block.x) as usize
}

fn render(title: &str, case: &Case, bands: &[Band], rows: usize) -> String {
    // Columns per band: the buffer, plus a few past its end when touched.
    let widths: Vec<usize> = bands
        .iter()
        .map(|b| {
            let touched = b.cells.keys().map(|&(_, e)| e + 1).max().unwrap_or(0);
            b.len.max(touched).min(MAX_COLUMNS)
        })
        .collect();
    let width = LEFT + widths.iter().map(|&w| w as f64 * CELL + GAP).sum::<f64>() + 20.0;
    let height = TOP + rows as f64 * CELL + 70.0;
    let mut svg = Svg::new(width.max(520.0), height);
    svg.text(10.0, 20.0, &format!("{title}: {}", case.label), TextStyle::new(13.0).bold());
    svg.text(10.0, 38.0, "rows: threads (block by block); columns: elements of each buffer", TextStyle::new(11.0));
    let threads = case.shape.block.volume() as usize;
    for row in (0..rows).step_by(threads.clamp(8, 32)) {
        let label = format!("b{} t{}", row / threads, row % threads);
        svg.text(LEFT - 6.0, TOP + row as f64 * CELL + CELL, &label, TextStyle::new(8.0).anchor(Anchor::End));
    }
    let mut x = LEFT;
    for (band, &columns) in bands.iter().zip(&widths) {
        svg.text(x, TOP - 8.0, &format!("{} ({} elements)", band.name, band.len), TextStyle::new(10.0));
        svg.rect(x, TOP, band.len.min(columns) as f64 * CELL, rows as f64 * CELL, "#f4f4f4", "#cccccc");
        for (&(row, element), cell) in &band.cells {
            if row >= rows || element >= columns {
                continue;
            }
            let colour = match (cell.read && cell.write, band.shared, cell.write) {
                (true, ..) => COLOURS[4].1,
                (false, false, false) => COLOURS[0].1,
                (false, false, true) => COLOURS[1].1,
                (false, true, false) => COLOURS[2].1,
                (false, true, true) => COLOURS[3].1,
            };
            // Outside the buffer: outlined in red.
            let stroke = if element >= band.len { "#d62728" } else { "none" };
            svg.rect(x + element as f64 * CELL, TOP + row as f64 * CELL, CELL, CELL, colour, stroke);
        }
        x += columns as f64 * CELL + GAP;
    }
    let legend_y = TOP + rows as f64 * CELL + 24.0;
    for (i, (name, colour)) in COLOURS.iter().enumerate() {
        let lx = 10.0 + i as f64 * 120.0;
        svg.rect(lx, legend_y - 9.0, 10.0, 10.0, colour, "none");
        svg.text(lx + 14.0, legend_y, name, TextStyle::new(10.0));
    }
    svg.text(10.0, legend_y + 20.0, "red outline: outside the buffer (a missing guard)", TextStyle::new(10.0));
    svg.finish()
}
