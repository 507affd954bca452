//! The GPU in one picture (`ptx-ladder info --svg`): the array of SMs, one SM
//! opened up, L2 and DRAM, the capacities of each level side by side on a
//! log scale, and, given `ptx-ladder memory --json`, what was measured at each.

use super::memory::capacities;
use super::models::memory::{Capacities, Chip, Measured, bytes, chip_for_compute_capability, working_set};
use crate::device::DeviceInfo;
use crate::svg::{Anchor, Svg, TextStyle};

/// What the picture needs to know about a GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipView {
    pub name: String,
    pub fp32_lanes_per_sm: u32,
    pub tensor_cores_per_sm: u32,
    pub sm_clock_mhz: f64,
    pub dram_gbps: f64,
    /// Where `dram_gbps` comes from, for its label.
    pub dram_source: &'static str,
    pub capacities: Capacities,
}

impl ChipView {
    /// From the architecture table (no GPU needed).
    pub fn of_chip(chip: &Chip) -> ChipView {
        ChipView {
            name: chip.name.to_string(),
            fp32_lanes_per_sm: chip.fp32_lanes_per_sm,
            tensor_cores_per_sm: chip.tensor_cores_per_sm,
            sm_clock_mhz: chip.sm_clock_mhz as f64,
            dram_gbps: chip.dram_gbps,
            dram_source: "datasheet",
            capacities: Capacities::of_chip(chip),
        }
    }

    /// From the driver; lanes and tensor cores from the architecture table.
    pub fn of_device(info: &DeviceInfo) -> ChipView {
        let chip = chip_for_compute_capability(info.compute_capability);
        ChipView {
            name: info.name.clone(),
            fp32_lanes_per_sm: info.fp32_lanes_per_multiprocessor().unwrap_or(128),
            tensor_cores_per_sm: chip.map_or(4, |c| c.tensor_cores_per_sm),
            sm_clock_mhz: info.sm_clock_khz as f64 / 1e3,
            dram_gbps: info.dram_bandwidth() / 1e9,
            dram_source: "memory clock x bus width",
            capacities: capacities(info),
        }
    }
}

const W: f64 = 1180.0;
const H: f64 = 810.0;
const INK: &str = "#222222";
const SM_FILL: &str = "#cfe3f1";
const LANE_FILL: &str = "#7fb77e";
const TENSOR_FILL: &str = "#f4a261";
const REG_FILL: &str = "#e9c46a";
const SHARED_FILL: &str = "#a3c4f3";
const L2_FILL: &str = "#cdb4db";
const DRAM_FILL: &str = "#f4a3a8";

fn label(svg: &mut Svg, x: f64, y: f64, text: &str, size: f64) {
    svg.text(x, y, text, TextStyle::new(size).anchor(Anchor::Middle));
}

/// The measured line for a level, if `ptx-ladder memory` measured it.
fn latency_of(m: Option<&Measured>, prefix: &str) -> Option<String> {
    m?.latencies.iter().find(|l| l.level.starts_with(prefix)).map(|l| format!("{:.0} cycles ({:.0} ns)", l.cycles, l.ns))
}

pub fn svg(view: &ChipView, measured: Option<&Measured>) -> String {
    let caps = &view.capacities;
    let mut svg = Svg::new(W, H);
    svg.text(W / 2.0, 30.0, &format!("{}: the GPU in one picture", view.name), TextStyle::new(20.0).anchor(Anchor::Middle).bold());
    let peak = caps.sms as f64 * view.fp32_lanes_per_sm as f64 * 2.0 * view.sm_clock_mhz / 1e6;
    svg.text(
        W / 2.0,
        52.0,
        &format!(
            "{} SMs x {} FP32 lanes x 2 FLOP x {:.2} GHz = {:.1} TFLOP/s FP32; DRAM {:.0} GB/s",
            caps.sms,
            view.fp32_lanes_per_sm,
            view.sm_clock_mhz / 1e3,
            peak,
            view.dram_gbps
        ),
        TextStyle::new(13.0).anchor(Anchor::Middle).fill("#444444"),
    );

    // The array of SMs, top left; the first one is opened up on the right.
    let (ax, ay, cols) = (30.0, 90.0, 12u32);
    let rows = caps.sms.div_ceil(cols);
    let cell = (300.0 / cols as f64).min(330.0 / rows.max(1) as f64);
    svg.text(ax, ay - 10.0, &format!("{} streaming multiprocessors (SMs)", caps.sms), TextStyle::new(13.0).bold());
    for i in 0..caps.sms {
        let (x, y) = (ax + (i % cols) as f64 * cell, ay + (i / cols) as f64 * cell);
        svg.rect(x + 1.0, y + 1.0, cell - 2.0, cell - 2.0, if i == 0 { "#1f77b4" } else { SM_FILL }, "#7a9cb8");
    }
    let array_bottom = ay + rows as f64 * cell;
    svg.text(ax, array_bottom + 18.0, "each block runs on one SM; an SM holds many blocks", TextStyle::new(11.0).fill("#555555"));

    // One SM, opened: four partitions, then L1/shared memory.
    let (sx, sy, sw) = (370.0, 78.0, 480.0);
    let part_w = (sw - 30.0) / 2.0;
    let part_h = 190.0;
    svg.rect(sx, sy, sw, 2.0 * part_h + 150.0, "#f3f8fc", "#1f77b4");
    svg.line(ax + cell, ay + 1.0, sx, sy, "#1f77b4", 1.0);
    svg.line(ax + cell, ay + cell - 1.0, sx, sy + 60.0, "#1f77b4", 1.0);
    svg.text(sx + 10.0, sy + 18.0, "one SM, opened up: four partitions", TextStyle::new(13.0).bold());
    let lanes_per_partition = view.fp32_lanes_per_sm / 4;
    let regs_per_partition = caps.register_file_per_sm / 4;
    for p in 0..4u32 {
        let px = sx + 10.0 + (p % 2) as f64 * (part_w + 10.0);
        let py = sy + 28.0 + (p / 2) as f64 * (part_h + 8.0);
        svg.rect(px, py, part_w, part_h, "#ffffff", "#8aa9c4");
        svg.rect(px + 6.0, py + 6.0, part_w - 12.0, 22.0, "#dddddd", "none");
        label(&mut svg, px + part_w / 2.0, py + 21.0, "warp scheduler: 1 instruction/clock", 11.0);
        // FP32 lanes as a grid of small cells.
        let lane_cols = 16u32;
        let lw = (part_w - 12.0) / lane_cols as f64;
        for l in 0..lanes_per_partition {
            let (x, y) = (px + 6.0 + (l % lane_cols) as f64 * lw, py + 34.0 + (l / lane_cols) as f64 * 16.0);
            svg.rect(x + 1.0, y, lw - 2.0, 13.0, LANE_FILL, "none");
        }
        let lanes_bottom = py + 34.0 + lanes_per_partition.div_ceil(lane_cols) as f64 * 16.0;
        svg.text(px + 6.0, lanes_bottom + 12.0, &format!("{lanes_per_partition} FP32 lanes"), TextStyle::new(11.0));
        let tensor = view.tensor_cores_per_sm.div_ceil(4);
        svg.rect(px + 6.0, lanes_bottom + 20.0, part_w - 12.0, 26.0, TENSOR_FILL, "none");
        label(
            &mut svg,
            px + part_w / 2.0,
            lanes_bottom + 37.0,
            &format!("{tensor} tensor core{}", if tensor == 1 { "" } else { "s" }),
            11.0,
        );
        let reg_y = lanes_bottom + 52.0;
        svg.rect(px + 6.0, reg_y, part_w - 12.0, py + part_h - 6.0 - reg_y, REG_FILL, "none");
        label(&mut svg, px + part_w / 2.0, reg_y + 18.0, &format!("register file {}", bytes(regs_per_partition)), 12.0);
        if let (0, Some(fma)) = (p, latency_of(measured, "registers")) {
            label(&mut svg, px + part_w / 2.0, reg_y + 34.0, &format!("dependent FMA: {fma}"), 10.0);
        }
    }
    let l1_y = sy + 28.0 + 2.0 * (part_h + 8.0);
    svg.rect(sx + 10.0, l1_y, sw - 20.0, 106.0, SHARED_FILL, "none");
    let l1_text = match caps.l1_shared_per_sm {
        Some(l1) => format!("L1 cache + shared memory: {} (up to {} as shared memory)", bytes(l1), bytes(caps.shared_per_sm)),
        None => format!("L1 cache + shared memory (up to {} as shared memory)", bytes(caps.shared_per_sm)),
    };
    label(&mut svg, sx + sw / 2.0, l1_y + 22.0, &l1_text, 12.0);
    label(&mut svg, sx + sw / 2.0, l1_y + 40.0, "32 banks x 4 bytes = 128 bytes per clock", 11.0);
    if let Some(m) = measured {
        label(
            &mut svg,
            sx + sw / 2.0,
            l1_y + 58.0,
            &format!("shared: {:.0} GB/s for the chip ({:.0}% of the model)", m.shared_gbps, 100.0 * m.shared_gbps / m.shared_model_gbps),
            11.0,
        );
        let lat = [("shared", latency_of(Some(m), "shared")), ("L1 hit", latency_of(Some(m), "L1"))];
        let text: Vec<String> = lat.iter().filter_map(|(n, v)| v.as_ref().map(|v| format!("{n} {v}"))).collect();
        label(&mut svg, sx + sw / 2.0, l1_y + 76.0, &format!("latency: {}", text.join(", ")), 11.0);
        if let Some(on_chip) = m.plateaus.on_chip_gbps {
            label(&mut svg, sx + sw / 2.0, l1_y + 92.0, &format!("re-read from L1: {on_chip:.0} GB/s"), 11.0);
        }
    }

    // L2 and DRAM across the bottom.
    let l2_y = l1_y + 140.0;
    svg.rect(30.0, l2_y, 820.0, 60.0, L2_FILL, "none");
    label(&mut svg, 440.0, l2_y + 22.0, &format!("L2 cache: {}, one for the whole chip (all SMs share it)", bytes(caps.l2)), 13.0);
    let l2_measured = measured.map(|m| {
        let bw = m.plateaus.l2_gbps.map_or(String::new(), |g| format!("{g:.0} GB/s"));
        let cliff = m
            .plateaus
            .l2_cliff_bytes
            .map_or(String::new(), |c| format!("; falls towards DRAM speed from a {} working set", working_set(c)));
        format!("{bw}{}{cliff}", latency_of(Some(m), "L2").map_or(String::new(), |l| format!(", {l}")))
    });
    if let Some(text) = l2_measured {
        label(&mut svg, 440.0, l2_y + 42.0, &text, 11.0);
    }
    let dram_y = l2_y + 80.0;
    svg.rect(30.0, dram_y, 820.0, 60.0, DRAM_FILL, "none");
    label(
        &mut svg,
        440.0,
        dram_y + 22.0,
        &format!("DRAM (global memory): {}, {} {:.0} GB/s", bytes(caps.dram), view.dram_source, view.dram_gbps),
        13.0,
    );
    if let Some(m) = measured {
        let bw = m.plateaus.dram_gbps.map_or(String::new(), |g| format!("{g:.0} GB/s read"));
        let lat = latency_of(Some(m), "DRAM").map_or(String::new(), |l| format!(", random access {l}"));
        label(&mut svg, 440.0, dram_y + 42.0, &format!("measured: {bw}{lat}"), 11.0);
    }
    for x in [200.0, 440.0, 680.0] {
        svg.line(x, l1_y + 106.0, x, l2_y, "#888888", 2.0);
        svg.line(x, l2_y + 60.0, x, dram_y, "#888888", 2.0);
    }

    // Capacities of the whole chip, to scale on a log axis.
    let (cx, cy, cw) = (880.0, 90.0, 270.0);
    svg.text(cx, cy - 10.0, "whole chip, to scale (log axis)", TextStyle::new(13.0).bold());
    let levels: [(&str, u64, &str); 5] = [
        ("registers", caps.register_file_total(), REG_FILL),
        ("L1 + shared", caps.l1_shared_total().unwrap_or(caps.shared_total()), SHARED_FILL),
        ("shared, at most", caps.shared_total(), SHARED_FILL),
        ("L2", caps.l2, L2_FILL),
        ("DRAM", caps.dram, DRAM_FILL),
    ];
    let (lo, hi) = (20.0f64, 40.0f64); // 1 MB .. 1 TB, as powers of two
    let scale = |b: u64| ((b.max(1) as f64).log2() - lo).max(0.0) / (hi - lo) * cw;
    for (i, (name, size, fill)) in levels.iter().enumerate() {
        let y = cy + i as f64 * 52.0;
        svg.text(cx, y + 12.0, &format!("{name}: {}", bytes(*size)), TextStyle::new(12.0));
        svg.rect(cx, y + 18.0, scale(*size), 20.0, fill, "#666666");
    }
    let axis_y = cy + levels.len() as f64 * 52.0 + 4.0;
    svg.line(cx, axis_y, cx + cw, axis_y, INK, 1.0);
    for (power, text) in [(20.0, "1 MB"), (30.0, "1 GB"), (40.0, "1 TB")] {
        let x = cx + (power - lo) / (hi - lo) * cw;
        svg.line(x, axis_y, x, axis_y + 5.0, INK, 1.0);
        svg.text(x, axis_y + 18.0, text, TextStyle::new(10.0).anchor(Anchor::Middle));
    }
    let ratio = caps.register_file_total() as f64 / caps.l1_shared_total().unwrap_or(caps.shared_total()) as f64;
    let notes = [
        format!("registers = {ratio:.2}x L1/shared"),
        format!("registers = {:.2}x L2", caps.register_file_total() as f64 / caps.l2 as f64),
        "the register file is the largest".to_string(),
        "fast store on the chip".to_string(),
    ];
    for (i, note) in notes.iter().enumerate() {
        svg.text(cx, axis_y + 42.0 + i as f64 * 16.0, note, TextStyle::new(11.0).fill("#444444"));
    }

    // The ladder of latencies, when measured.
    let ly = axis_y + 120.0;
    svg.text(cx, ly, "latency, one dependent load", TextStyle::new(13.0).bold());
    match measured {
        Some(m) => {
            let most = m.latencies.iter().map(|l| l.cycles).fold(1.0, f64::max);
            for (i, l) in m.latencies.iter().enumerate() {
                let y = ly + 14.0 + i as f64 * 34.0;
                svg.text(cx, y + 10.0, &format!("{}: {:.0} cycles, {:.0} ns", l.level, l.cycles, l.ns), TextStyle::new(11.0));
                svg.rect(cx, y + 14.0, (l.cycles / most * cw).max(1.0), 10.0, "#1f77b4", "none");
            }
            svg.text(
                cx,
                ly + 14.0 + m.latencies.len() as f64 * 34.0 + 6.0,
                &format!("(measured on {} at {:.0} MHz)", m.device, m.sm_clock_mhz),
                TextStyle::new(10.0).fill("#555555"),
            );
        }
        None => {
            svg.text(cx, ly + 20.0, "run `ptx-ladder memory --json PATH` on the GPU", TextStyle::new(11.0).fill("#555555"));
            svg.text(cx, ly + 36.0, "and pass --memory-json PATH to draw them", TextStyle::new(11.0).fill("#555555"));
        }
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::models::memory::{BandwidthPoint, CHIPS, Latency, Plateaus, chip_by_name};
    use crate::svg::tests::assert_well_formed;

    #[test]
    fn every_known_chip_draws_a_well_formed_picture() {
        for chip in CHIPS {
            let doc = svg(&ChipView::of_chip(chip), None);
            assert_well_formed(&doc);
            assert!(doc.contains(&format!("{}: the GPU in one picture", chip.name)), "{}", chip.name);
        }
    }

    #[test]
    fn the_h200_picture_has_its_parts_and_capacities() {
        let doc = svg(&ChipView::of_chip(chip_by_name("h200").unwrap()), None);
        for part in [
            "132 streaming multiprocessors",
            "one SM, opened up: four partitions",
            "warp scheduler",
            "32 FP32 lanes",
            "1 tensor core",
            "register file 64 KB",
            "L1 cache + shared memory: 256 KB (up to 228 KB as shared memory)",
            "L2 cache: 60.0 MB",
            "DRAM (global memory): 141.0 GB",
            "registers: 33.0 MB",
            "registers = 1.00x L1/shared",
            "log axis",
        ] {
            assert!(doc.contains(part), "missing {part:?}");
        }
        // One square per SM, plus the panels.
        assert!(doc.matches("<rect").count() > 132 + 4 * 32);
    }

    /// The table's number is the datasheet's; a live GPU's comes from the
    /// driver's memory clock and bus width, and the label says which.
    #[test]
    fn the_dram_label_names_its_source() {
        let chip = chip_by_name("h200").unwrap();
        assert!(svg(&ChipView::of_chip(chip), None).contains("DRAM (global memory): 141.0 GB, datasheet 4800 GB/s"));
        let live = ChipView { dram_gbps: 4813.8, dram_source: "memory clock x bus width", ..ChipView::of_chip(chip) };
        assert!(svg(&live, None).contains("141.0 GB, memory clock x bus width 4814 GB/s"));
    }

    #[test]
    fn measurements_appear_when_given() {
        let chip = chip_by_name("h200").unwrap();
        let m = Measured {
            device: "NVIDIA H200".into(),
            capacities: Capacities::of_chip(chip),
            sm_clock_mhz: 1980.0,
            bandwidth: vec![BandwidthPoint { bytes: 1 << 20, gbps: 9000.0 }],
            plateaus: Plateaus {
                on_chip_gbps: Some(20000.0),
                l2_gbps: Some(9000.0),
                dram_gbps: Some(4000.0),
                l2_cliff_bytes: Some(40 << 20),
            },
            shared_gbps: 30000.0,
            shared_model_gbps: 33454.0,
            latencies: vec![
                Latency { level: "shared memory".into(), bytes: 4096, cycles: 29.5, ns: 14.9, texts: "~30".into() },
                Latency { level: "L2 hit (ld.cg)".into(), bytes: 8 << 20, cycles: 262.0, ns: 132.3, texts: "~200".into() },
                Latency { level: "DRAM (random, ld.cg)".into(), bytes: 1 << 30, cycles: 840.0, ns: 424.2, texts: "400-800".into() },
            ],
        };
        let doc = svg(&ChipView::of_chip(chip), Some(&m));
        assert_well_formed(&doc);
        for part in [
            "shared: 30000 GB/s for the chip (90% of the model)",
            "9000 GB/s, 262 cycles (132 ns)",
            "falls towards DRAM speed from a 40.0 MB",
            "4000 GB/s read, random access 840 cycles",
            "shared 30 cycles",
        ] {
            assert!(doc.contains(part), "missing {part:?}");
        }
    }
}
