//! Which threads of a block travel together as a warp.
//!
//! The hardware ignores the shape you give a block. It numbers the threads
//! in one line, x changing fastest, then y, then z, and cuts that line into
//! consecutive groups of 32. A 16x16 block therefore puts two whole rows in
//! each warp, and a 30x2 block puts one warp across the end of row 0 and the
//! start of row 1. Knowing the cut tells you which threads share every
//! instruction, which matters for branches and for memory addresses.
//!
//! When the thread count is not a multiple of 32 the last warp is still a
//! full warp in hardware; its missing lanes sit idle but occupy slots.

use crate::svg::{self, Anchor, Svg, TextStyle};
use crate::text::plural;

/// Block dimensions or a thread position, as (x, y, z).
pub type Dim3 = (u32, u32, u32);

const WARP: u32 = 32;
const MAX_THREADS_PER_BLOCK: u32 = 1024;
const MAX_X: u32 = 1024;
const MAX_Y: u32 = 1024;
const MAX_Z: u32 = 64;

/// Columns per panel in the pictures: one warp's width, so wide blocks
/// wrap at warp boundaries.
const PANEL_COLUMNS: u32 = 32;

/// One warp of a block: its number, the threads in lane order, and how many
/// of its 32 lanes have no thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warp {
    pub index: u32,
    /// (x, y, z) of each active lane, lane 0 first.
    pub threads: Vec<Dim3>,
    pub idle_lanes: u32,
}

/// Check a block shape against CUDA's launch limits.
fn validate(block: Dim3) -> Result<(), String> {
    let (x, y, z) = block;
    if x == 0 || y == 0 || z == 0 {
        return Err(format!("block ({x}, {y}, {z}) has a zero dimension; every dimension must be at least 1"));
    }
    for (axis, value, max) in [("x", x, MAX_X), ("y", y, MAX_Y), ("z", z, MAX_Z)] {
        if value > max {
            return Err(format!("block {axis} dimension is {value}; CUDA allows at most {max} in {axis}"));
        }
    }
    let total = u64::from(x) * u64::from(y) * u64::from(z);
    if total > u64::from(MAX_THREADS_PER_BLOCK) {
        return Err(format!("block has {total} threads; the GPU allows at most {MAX_THREADS_PER_BLOCK} per block"));
    }
    Ok(())
}

/// The position of a thread in the hardware's single line of threads:
/// z * (X * Y) + y * X + x for a block of X by Y by Z.
pub fn linear_id(block: Dim3, thread: Dim3) -> u64 {
    let (bx, by, _) = block;
    let (x, y, z) = thread;
    let (bx, by) = (u64::from(bx), u64::from(by));
    u64::from(z) * bx * by + u64::from(y) * bx + u64::from(x)
}

/// The warp a thread of a valid block belongs to.
fn warp_of(block: Dim3, thread: Dim3) -> u32 {
    u32::try_from(linear_id(block, thread) / u64::from(WARP)).unwrap_or(u32::MAX)
}

/// Split a block into warps. Errors if the shape breaks CUDA's limits
/// (a zero dimension, x or y over 1024, z over 64, over 1024 threads).
pub fn warps(block: Dim3) -> Result<Vec<Warp>, String> {
    validate(block)?;
    let (bx, by, bz) = block;
    let total = bx * by * bz;
    Ok((0..total.div_ceil(WARP))
        .map(|w| {
            let first = w * WARP;
            let last = (first + WARP).min(total);
            let threads = (first..last).map(|id| (id % bx, id / bx % by, id / (bx * by))).collect();
            Warp { index: w, threads, idle_lanes: WARP - (last - first) }
        })
        .collect())
}

/// "6" or "6-7".
fn span(lo: u32, hi: u32) -> String {
    if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") }
}

/// A box of threads: inclusive (lo, hi) ranges for z, y and x.
type Region = [(u32, u32); 3];

/// Group a warp's threads into as few boxes as possible: first runs along
/// x within a row, then rows with the same x range stacked along y, then
/// slabs with the same y and x ranges stacked along z.
fn regions(threads: &[Dim3]) -> Vec<Region> {
    let mut rows: Vec<Region> = Vec::new();
    for &(x, y, z) in threads {
        match rows.last_mut() {
            Some(r) if r[0].0 == z && r[1].0 == y && r[2].1 + 1 == x => r[2].1 = x,
            _ => rows.push([(z, z), (y, y), (x, x)]),
        }
    }
    let mut slabs: Vec<Region> = Vec::new();
    for r in rows {
        match slabs.last_mut() {
            Some(s) if s[0] == r[0] && s[2] == r[2] && s[1].1 + 1 == r[1].0 => s[1].1 = r[1].1,
            _ => slabs.push(r),
        }
    }
    let mut boxes: Vec<Region> = Vec::new();
    for s in slabs {
        match boxes.last_mut() {
            Some(b) if b[1] == s[1] && b[2] == s[2] && b[0].1 + 1 == s[0].0 => b[0].1 = s[0].1,
            _ => boxes.push(s),
        }
    }
    boxes
}

impl Warp {
    /// The warp in words, e.g. "warp 3: y 6-7, x 0-15 (32 threads)".
    /// Axes along which the block has size 1 are left out.
    pub fn describe(&self, block: Dim3) -> String {
        let (_, by, bz) = block;
        let parts: Vec<String> = regions(&self.threads)
            .iter()
            .map(|[z, y, x]| {
                let mut axes = Vec::new();
                if bz > 1 {
                    axes.push(format!("z {}", span(z.0, z.1)));
                }
                if by > 1 {
                    axes.push(format!("y {}", span(y.0, y.1)));
                }
                axes.push(format!("x {}", span(x.0, x.1)));
                axes.join(", ")
            })
            .collect();
        let count = self.threads.len();
        let plural = if count == 1 { "" } else { "s" };
        let idle = match self.idle_lanes {
            0 => String::new(),
            1 => ", 1 idle lane".to_string(),
            n => format!(", {n} idle lanes"),
        };
        format!("warp {}: {} ({count} thread{plural}{idle})", self.index, parts.join("; "))
    }
}

/// One rectangle of the picture: a z slice, cut to at most
/// [`PANEL_COLUMNS`] columns.
struct Panel {
    z: u32,
    x_lo: u32,
    x_hi: u32,
    title: Option<String>,
}

fn panels(block: Dim3) -> Vec<Panel> {
    let (bx, _, bz) = block;
    let chunks = bx.div_ceil(PANEL_COLUMNS);
    let mut out = Vec::new();
    for z in 0..bz {
        for c in 0..chunks {
            let x_lo = c * PANEL_COLUMNS;
            let x_hi = (x_lo + PANEL_COLUMNS).min(bx) - 1;
            let mut parts = Vec::new();
            if bz > 1 {
                parts.push(format!("z = {z}"));
            }
            if chunks > 1 {
                parts.push(format!("x {x_lo}-{x_hi}"));
            }
            let title = if parts.is_empty() { None } else { Some(parts.join(", ")) };
            out.push(Panel { z, x_lo, x_hi, title });
        }
    }
    out
}

/// A sentence about the last warp's idle lanes, or that there are none.
fn idle_note(list: &[Warp]) -> String {
    match list.last() {
        Some(w) if w.idle_lanes > 0 => format!(
            "idle lanes: warp {} has {} (lanes {}-31); they hold a warp slot but do no work",
            w.index,
            w.idle_lanes,
            WARP - w.idle_lanes
        ),
        _ => "idle lanes: none; the thread count is a multiple of 32".to_string(),
    }
}

fn heading(block: Dim3, list: &[Warp]) -> String {
    let (bx, by, bz) = block;
    format!("block ({bx}, {by}, {bz}): {} in {}", plural((bx * by * bz).into(), "thread"), plural(list.len() as u64, "warp"))
}

/// A text picture of the block, one grid per z slice, each cell showing the
/// warp its thread belongs to, followed by each warp in words.
pub fn render(block: Dim3) -> Result<String, String> {
    let list = warps(block)?;
    let (_, by, _) = block;
    let digits = |n: u32| n.to_string().len();
    let mut out = heading(block, &list);
    out += "\neach cell is one thread and shows its warp number\n";
    let last_warp = list.len().saturating_sub(1) as u32;
    for panel in panels(block) {
        let width = digits(last_warp).max(digits(panel.x_hi)) + 1;
        let label = digits(by - 1).max(3);
        out.push('\n');
        if let Some(t) = &panel.title {
            out += &format!("{t}\n");
        }
        out += &format!("{:>label$}", "y\\x");
        for x in panel.x_lo..=panel.x_hi {
            out += &format!("{x:>width$}");
        }
        out.push('\n');
        for y in 0..by {
            out += &format!("{y:>label$}");
            for x in panel.x_lo..=panel.x_hi {
                let w = warp_of(block, (x, y, panel.z));
                out += &format!("{w:>width$}");
            }
            out.push('\n');
        }
    }
    out.push('\n');
    for w in &list {
        out += &format!("{}\n", w.describe(block));
    }
    out += &idle_note(&list);
    out.push('\n');
    Ok(out)
}

/// Label every `step`-th row or column: the smallest power of two (so
/// labels land on warp boundaries) for which a label `label_px` long fits
/// in `step` cells of `cell` pixels.
fn label_step(label_px: f64, cell: f64) -> u32 {
    let mut step = 1;
    while f64::from(step) * cell < label_px + 4.0 {
        step *= 2;
    }
    step
}

/// The same picture as SVG: one coloured cell per thread, one colour per
/// warp, a grid per z slice.
pub fn svg(block: Dim3) -> Result<String, String> {
    let list = warps(block)?;
    let (_, by, _) = block;
    let panels = panels(block);

    const MARGIN: f64 = 40.0;
    const TITLE_H: f64 = 28.0;
    // Shrink cells for very tall pictures so the file stays a sane size.
    let total_rows = panels.len() as f64 * (f64::from(by) + 2.0);
    let cell = (2400.0 / total_rows).clamp(6.0, 20.0);
    let widest = panels.iter().map(|p| p.x_hi - p.x_lo + 1).max().unwrap_or(1);
    let width = (MARGIN * 2.0 + f64::from(widest) * cell).max(520.0);
    let panel_h = |p: &Panel| f64::from(by) * cell + cell + if p.title.is_some() { TITLE_H } else { 4.0 };
    let height = 56.0 + panels.iter().map(panel_h).sum::<f64>() + 44.0;

    let mut pic = Svg::new(width, height);
    pic.text(MARGIN, 24.0, &heading(block, &list), TextStyle::new(15.0).bold());
    pic.text(MARGIN, 42.0, "each cell is a thread, coloured and numbered by warp", TextStyle::new(11.0));
    let small = TextStyle::new((cell * 0.55).min(10.0)).anchor(Anchor::Middle);
    let mut top = 56.0;
    for p in &panels {
        if let Some(t) = &p.title {
            pic.text(MARGIN, top + 20.0, t, TextStyle::new(12.0).bold());
            top += TITLE_H;
        } else {
            top += 4.0;
        }
        // Column numbers above, row numbers to the left: every column whose
        // number fits in its cell, else every 2nd, 4th, ... so none overlap.
        let every = label_step(svg::text_width(&(block.0 - 1).to_string(), small.size), cell);
        for x in p.x_lo..=p.x_hi {
            if x % every == 0 {
                let cx = MARGIN + f64::from(x - p.x_lo) * cell + cell / 2.0;
                pic.text(cx, top + cell * 0.75, &x.to_string(), small);
            }
        }
        let grid_top = top + cell;
        for y in 0..by {
            let cy = grid_top + f64::from(y) * cell;
            if y % label_step(small.size, cell) == 0 {
                pic.text(MARGIN - 4.0, cy + cell * 0.72, &y.to_string(), small.anchor(Anchor::End));
            }
            for x in p.x_lo..=p.x_hi {
                let w = warp_of(block, (x, y, p.z));
                let cx = MARGIN + f64::from(x - p.x_lo) * cell;
                pic.rect(cx, cy, cell, cell, svg::palette(w as usize), "#ffffff");
                if cell >= 14.0 {
                    pic.text(cx + cell / 2.0, cy + cell * 0.72, &w.to_string(), small);
                }
            }
        }
        top = grid_top + f64::from(by) * cell;
    }
    pic.text(MARGIN, top + 28.0, &idle_note(&list), TextStyle::new(12.0));
    Ok(pic.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_labels_never_overlap_up_to_1024_wide() {
        for cell in [6.0, 11.0, 20.0] {
            let size: f64 = (cell * 0.55f64).min(10.0);
            let width = svg::text_width("1023", size);
            let step = label_step(width, cell);
            assert!(f64::from(step) * cell >= width + 4.0, "cell {cell}: step {step}");
            assert!(step == 1 || f64::from(step / 2) * cell < width + 4.0, "cell {cell}: step {step} is not the smallest");
            assert!(step.is_power_of_two());
        }
        let doc = svg((1024, 1, 1)).expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert!(doc.contains(">1022<"), "the last panel's columns are labelled");
    }

    fn warp(block: Dim3, index: usize) -> Warp {
        warps(block).expect("valid block")[index].clone()
    }

    #[test]
    fn linearisation_is_x_fastest() {
        assert_eq!(linear_id((4, 4, 4), (1, 2, 3)), 3 * 16 + 2 * 4 + 1);
        let w = warp((16, 16, 1), 0);
        assert_eq!(w.threads[0], (0, 0, 0));
        assert_eq!(w.threads[1], (1, 0, 0));
        assert_eq!(w.threads[16], (0, 1, 0));
    }

    #[test]
    fn block_16x16_warp_3_is_rows_6_and_7() {
        let w = warp((16, 16, 1), 3);
        assert_eq!(w.threads.len(), 32);
        assert!(w.threads.iter().all(|&(_, y, _)| y == 6 || y == 7));
        assert_eq!(w.threads.first(), Some(&(0, 6, 0)));
        assert_eq!(w.threads.last(), Some(&(15, 7, 0)));
        assert_eq!(w.describe((16, 16, 1)), "warp 3: y 6-7, x 0-15 (32 threads)");
        assert_eq!(warps((16, 16, 1)).expect("valid").len(), 8);
    }

    #[test]
    fn block_8x8_warp_1_is_rows_4_to_7() {
        let w = warp((8, 8, 1), 1);
        assert_eq!(w.describe((8, 8, 1)), "warp 1: y 4-7, x 0-7 (32 threads)");
        assert!(w.threads.iter().all(|&(_, y, _)| (4..=7).contains(&y)));
    }

    #[test]
    fn block_4x4x4_has_two_warps_split_by_z() {
        let list = warps((4, 4, 4)).expect("valid");
        assert_eq!(list.len(), 2);
        assert!(list[0].threads.iter().all(|&(_, _, z)| z <= 1));
        assert_eq!(list[0].describe((4, 4, 4)), "warp 0: z 0-1, y 0-3, x 0-3 (32 threads)");
        assert_eq!(list[1].describe((4, 4, 4)), "warp 1: z 2-3, y 0-3, x 0-3 (32 threads)");
    }

    #[test]
    fn block_30x2_has_a_partial_second_warp() {
        let list = warps((30, 2, 1)).expect("valid");
        assert_eq!(list.len(), 2);
        let w = &list[1];
        assert_eq!(w.idle_lanes, 4);
        assert_eq!(w.threads.len(), 28);
        assert_eq!(w.threads.first(), Some(&(2, 1, 0)));
        assert_eq!(w.threads.last(), Some(&(29, 1, 0)));
        assert_eq!(w.describe((30, 2, 1)), "warp 1: y 1, x 2-29 (28 threads, 4 idle lanes)");
        // Warp 0 wraps from the end of row 0 into row 1.
        assert_eq!(list[0].describe((30, 2, 1)), "warp 0: y 0, x 0-29; y 1, x 0-1 (32 threads)");
    }

    #[test]
    fn one_dimensional_and_tiny_blocks() {
        assert_eq!(warp((100, 1, 1), 3).describe((100, 1, 1)), "warp 3: x 96-99 (4 threads, 28 idle lanes)");
        assert_eq!(warp((1, 1, 1), 0).describe((1, 1, 1)), "warp 0: x 0 (1 thread, 31 idle lanes)");
        assert_eq!(warp((33, 1, 1), 1).idle_lanes, 31);
        assert_eq!(warp((2, 1, 17), 0).describe((2, 1, 17)), "warp 0: z 0-15, x 0-1 (32 threads)");
    }

    #[test]
    fn limits_are_enforced() {
        assert!(warps((0, 4, 1)).expect_err("zero").contains("zero dimension"));
        assert_eq!(warps((64, 32, 1)).expect_err("too many"), "block has 2048 threads; the GPU allows at most 1024 per block");
        assert_eq!(warps((1, 1, 65)).expect_err("z"), "block z dimension is 65; CUDA allows at most 64 in z");
        assert!(warps((2000, 1, 1)).expect_err("x").contains("at most 1024 in x"));
        assert!(warps((u32::MAX, u32::MAX, 64)).is_err());
        assert!(render((0, 1, 1)).is_err());
        assert!(svg((1, 1, 100)).is_err());
        assert_eq!(warps((1024, 1, 1)).expect("max").len(), 32);
        assert_eq!(warps((1, 16, 64)).expect("max").len(), 32);
    }

    #[test]
    fn render_shows_warp_numbers_per_cell() {
        let text = render((8, 8, 1)).expect("valid");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("  4")).collect();
        assert_eq!(rows, vec!["  4 1 1 1 1 1 1 1 1"]);
        assert!(text.contains("warp 1: y 4-7, x 0-7 (32 threads)"));
        assert!(text.contains("idle lanes: none"));

        let text = render((30, 2, 1)).expect("valid");
        assert!(text.contains("warp 1 has 4 (lanes 28-31)"), "{text}");

        let text = render((4, 4, 4)).expect("valid");
        assert_eq!(text.matches("z = ").count(), 4);

        let text = render((64, 1, 1)).expect("valid");
        assert!(text.contains("x 0-31") && text.contains("x 32-63"));
    }

    #[test]
    fn svg_colours_each_warp() {
        let doc = svg((30, 2, 1)).expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert_eq!(doc.matches(&format!("fill=\"{}\"", crate::svg::palette(0))).count(), 32);
        assert_eq!(doc.matches(&format!("fill=\"{}\"", crate::svg::palette(1))).count(), 28);
        assert!(doc.contains("lanes 28-31"));
        let doc = svg((8, 4, 4)).expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert!(doc.contains("z = 3"));
        crate::svg::tests::assert_well_formed(&svg((1, 1024, 1)).expect("valid"));
    }
}
