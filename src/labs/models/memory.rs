//! The memory hierarchy as numbers: how much each level holds, per SM and
//! for the chip, how fast shared memory is by the banks' arithmetic, where
//! a bandwidth curve changes level, and what a latency in cycles is in
//! nanoseconds. Everything here works without a GPU.

use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
const GB: u64 = 1_000_000_000;

/// Bytes per clock one SM's shared memory delivers: 32 banks × 4 bytes.
pub const SHARED_BYTES_PER_CLOCK: f64 = 128.0;

/// One GPU as its whitepaper and datasheet describe it: enough to draw it
/// and to state its capacities without the GPU present.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chip {
    pub name: &'static str,
    pub compute_capability: (u32, u32),
    pub sms: u32,
    pub fp32_lanes_per_sm: u32,
    pub tensor_cores_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// The SM's one block of SRAM that is split between L1 and shared memory.
    pub l1_shared_per_sm: u64,
    /// The most of it that can be shared memory.
    pub shared_per_sm: u64,
    pub l2_bytes: u64,
    pub dram_bytes: u64,
    /// Boost (maximum) SM clock.
    pub sm_clock_mhz: u32,
    /// DRAM bandwidth from the datasheet.
    pub dram_gbps: f64,
}

/// The GPUs the picture and the capacity table know (the same generations
/// as the occupancy calculator, with H100 and H200 told apart).
pub const CHIPS: &[Chip] = &[
    Chip {
        name: "T4",
        compute_capability: (7, 5),
        sms: 40,
        fp32_lanes_per_sm: 64,
        tensor_cores_per_sm: 8,
        registers_per_sm: 65536,
        l1_shared_per_sm: 96 * KIB,
        shared_per_sm: 64 * KIB,
        l2_bytes: 4 * MIB,
        dram_bytes: 16 * GB,
        sm_clock_mhz: 1590,
        dram_gbps: 320.0,
    },
    Chip {
        name: "A100",
        compute_capability: (8, 0),
        sms: 108,
        fp32_lanes_per_sm: 64,
        tensor_cores_per_sm: 4,
        registers_per_sm: 65536,
        l1_shared_per_sm: 192 * KIB,
        shared_per_sm: 164 * KIB,
        l2_bytes: 40 * MIB,
        dram_bytes: 80 * GB,
        sm_clock_mhz: 1410,
        dram_gbps: 2039.0,
    },
    Chip {
        name: "RTX A6000",
        compute_capability: (8, 6),
        sms: 84,
        fp32_lanes_per_sm: 128,
        tensor_cores_per_sm: 4,
        registers_per_sm: 65536,
        l1_shared_per_sm: 128 * KIB,
        shared_per_sm: 100 * KIB,
        l2_bytes: 6 * MIB,
        dram_bytes: 48 * GB,
        sm_clock_mhz: 1800,
        dram_gbps: 768.0,
    },
    Chip {
        name: "L4",
        compute_capability: (8, 9),
        sms: 58,
        fp32_lanes_per_sm: 128,
        tensor_cores_per_sm: 4,
        registers_per_sm: 65536,
        l1_shared_per_sm: 128 * KIB,
        shared_per_sm: 100 * KIB,
        l2_bytes: 48 * MIB,
        dram_bytes: 24 * GB,
        sm_clock_mhz: 2040,
        dram_gbps: 300.0,
    },
    Chip {
        name: "H100",
        compute_capability: (9, 0),
        sms: 132,
        fp32_lanes_per_sm: 128,
        tensor_cores_per_sm: 4,
        registers_per_sm: 65536,
        l1_shared_per_sm: 256 * KIB,
        shared_per_sm: 228 * KIB,
        l2_bytes: 50 * MIB,
        dram_bytes: 80 * GB,
        sm_clock_mhz: 1980,
        dram_gbps: 3350.0,
    },
    Chip {
        name: "H200",
        compute_capability: (9, 0),
        sms: 132,
        fp32_lanes_per_sm: 128,
        tensor_cores_per_sm: 4,
        registers_per_sm: 65536,
        l1_shared_per_sm: 256 * KIB,
        shared_per_sm: 228 * KIB,
        // What the H200's driver reports (62914560 bytes).
        l2_bytes: 60 * MIB,
        dram_bytes: 141 * GB,
        sm_clock_mhz: 1980,
        dram_gbps: 4800.0,
    },
];

/// The names [`chip_by_name`] accepts, for help texts and errors.
pub const ACCEPTED_NAMES: &str = "T4, A100, A6000 (or RTX A6000), L4, H100, H200";

/// A chip by name ("h200", "A100", "rtx a6000", "NVIDIA L4"); case, spaces,
/// dashes and underscores are ignored. Only the chips' own names: a compute
/// capability, a die or a generation also covers GPUs with other SM counts,
/// clocks and memories, so describing them with a table entry would be wrong.
pub fn chip_by_name(name: &str) -> Result<&'static Chip, String> {
    let key = |s: &str| -> String { s.chars().filter(|c| c.is_ascii_alphanumeric()).flat_map(char::to_lowercase).collect() };
    let wanted = key(name);
    let wanted = wanted.strip_prefix("nvidia").unwrap_or(&wanted);
    CHIPS
        .iter()
        .find(|c| key(c.name) == wanted || key(c.name).strip_prefix("rtx") == Some(wanted))
        .ok_or_else(|| format!("unknown GPU {name:?}; the architecture tables know {ACCEPTED_NAMES}"))
}

/// The first known chip of a compute capability (for the L1 size, which the
/// driver does not report).
pub fn chip_for_compute_capability(cc: (u32, u32)) -> Option<&'static Chip> {
    CHIPS.iter().find(|c| c.compute_capability == cc)
}

/// How much each level holds, per SM and for the chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacities {
    pub sms: u32,
    pub register_file_per_sm: u64,
    /// L1 and shared memory together, per SM (from the architecture table).
    pub l1_shared_per_sm: Option<u64>,
    pub shared_per_sm: u64,
    pub l2: u64,
    pub dram: u64,
}

impl Capacities {
    pub fn of_chip(chip: &Chip) -> Capacities {
        Capacities {
            sms: chip.sms,
            register_file_per_sm: chip.registers_per_sm as u64 * 4,
            l1_shared_per_sm: Some(chip.l1_shared_per_sm),
            shared_per_sm: chip.shared_per_sm,
            l2: chip.l2_bytes,
            dram: chip.dram_bytes,
        }
    }

    pub fn register_file_total(&self) -> u64 {
        self.register_file_per_sm * self.sms as u64
    }

    pub fn l1_shared_total(&self) -> Option<u64> {
        self.l1_shared_per_sm.map(|b| b * self.sms as u64)
    }

    pub fn shared_total(&self) -> u64 {
        self.shared_per_sm * self.sms as u64
    }

    /// The table: per SM, for the chip, and the comparisons the texts make.
    pub fn table(&self) -> String {
        let mut out = format!("{:<28} {:>12} {:>14}\n", "level", "per SM", "whole chip");
        let mut row = |name: &str, per_sm: Option<u64>, total: Option<u64>| {
            let show = |b: Option<u64>| b.map_or("-".to_string(), bytes);
            out.push_str(&format!("{name:<28} {:>12} {:>14}\n", show(per_sm), show(total)));
        };
        row("registers (65536 x 4 B)", Some(self.register_file_per_sm), Some(self.register_file_total()));
        row("L1 + shared memory", self.l1_shared_per_sm, self.l1_shared_total());
        row("  of which shared, at most", Some(self.shared_per_sm), Some(self.shared_total()));
        row("L2 (one for the chip)", None, Some(self.l2));
        row("DRAM", None, Some(self.dram));
        out
    }

    /// The texts' point in this GPU's numbers: the register file, summed
    /// over the SMs, is as large as all L1/shared memory and comparable to L2.
    pub fn comparison(&self) -> String {
        let regs = self.register_file_total() as f64;
        let l1 = self.l1_shared_total().unwrap_or(self.shared_total()) as f64;
        format!(
            "all registers together: {} = {:.2}x all L1/shared memory ({}) and {:.2}x the L2 ({}); \
             on a CPU the registers are a rounding error beside the caches, on a GPU they are the largest fast store",
            bytes(self.register_file_total()),
            regs / l1,
            bytes(l1 as u64),
            regs / self.l2 as f64,
            bytes(self.l2)
        )
    }
}

/// "256 KB", "33.0 MB", "141.0 GB": binary units below a gigabyte (as the
/// whitepapers give SRAM sizes), decimal above (as DRAM is sold).
pub fn bytes(b: u64) -> String {
    if b >= GB {
        format!("{:.1} GB", b as f64 / GB as f64)
    } else if b >= MIB {
        format!("{:.1} MB", b as f64 / MIB as f64)
    } else {
        format!("{} KB", b / KIB)
    }
}

/// A working-set size in binary units throughout ("16 KB", "48.0 MB",
/// "4.0 GiB"): the sweep doubles, so its sizes are powers of two.
pub fn working_set(b: u64) -> String {
    if b >= 1 << 30 { format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64) } else { bytes(b) }
}

/// Shared memory's peak by the banks' arithmetic: 128 bytes per clock per
/// SM, in bytes per second.
pub fn shared_bandwidth_model(sms: u32, clock_mhz: f64) -> f64 {
    SHARED_BYTES_PER_CLOCK * sms as f64 * clock_mhz * 1e6
}

/// Nanoseconds for `cycles` at `clock_mhz`.
pub fn cycles_to_ns(cycles: f64, clock_mhz: f64) -> f64 {
    cycles / clock_mhz * 1e3
}

/// Where a working set of `bytes` is expected to live while it is re-read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    /// Each SM keeps the whole set in its own L1.
    OnChip,
    L2,
    Dram,
    /// Around one SM's L1 size: partly either.
    L1OrL2,
    /// Within a factor of two of the L2 size: partly either.
    L2OrDram,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::OnChip => "L1 (on the SM)",
            Level::L2 => "L2",
            Level::Dram => "DRAM",
            Level::L1OrL2 => "L1 / L2",
            Level::L2OrDram => "L2 / DRAM",
        }
    }
}

/// The level a re-read working set should come from: L1 while it fits in
/// one SM's L1, L2 up to half the L2 (an H100/H200's L2 is two partitions,
/// and data in the far one is reached more slowly), DRAM beyond twice L2.
pub fn expected_level(bytes: u64, l1_per_sm: u64, l2: u64) -> Level {
    if bytes <= l1_per_sm / 2 {
        Level::OnChip
    } else if bytes > l1_per_sm && bytes <= l2 / 2 {
        Level::L2
    } else if bytes >= 2 * l2 {
        Level::Dram
    } else if bytes <= l1_per_sm {
        Level::L1OrL2
    } else {
        Level::L2OrDram
    }
}

/// One point of the bandwidth curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandwidthPoint {
    pub bytes: u64,
    pub gbps: f64,
}

/// The curve read as three plateaus and a cliff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plateaus {
    pub on_chip_gbps: Option<f64>,
    pub l2_gbps: Option<f64>,
    pub dram_gbps: Option<f64>,
    /// The smallest working set above L1 whose bandwidth is below the
    /// geometric mean of the L2 and DRAM plateaus: where L2 stops holding it.
    pub l2_cliff_bytes: Option<u64>,
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 })
}

/// Plateaus are medians of the points the model puts at each level.
pub fn plateaus(points: &[BandwidthPoint], l1_per_sm: u64, l2: u64) -> Plateaus {
    let at = |level: Level| median(points.iter().filter(|p| expected_level(p.bytes, l1_per_sm, l2) == level).map(|p| p.gbps).collect());
    let (on_chip, l2_gbps, dram) = (at(Level::OnChip), at(Level::L2), at(Level::Dram));
    let cliff = l2_gbps.zip(dram).and_then(|(high, low)| {
        let threshold = (high * low).sqrt();
        points.iter().filter(|p| p.bytes > l1_per_sm).find(|p| p.gbps < threshold).map(|p| p.bytes)
    });
    Plateaus { on_chip_gbps: on_chip, l2_gbps, dram_gbps: dram, l2_cliff_bytes: cliff }
}

/// The slots `0..n` in a random order (`rand`'s Fisher-Yates shuffle), linked into one
/// cycle: `next[i]` is the slot after `i`, and following it from any slot
/// visits all `n` before coming back, in an order no prefetcher can guess.
pub fn random_cycle(n: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(&mut crate::inputs::rng(seed));
    let mut next = vec![0u32; n];
    for i in 0..n {
        next[order[i] as usize] = order[(i + 1) % n];
    }
    next
}

/// One latency measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub level: String,
    /// The working set chased, in bytes (0 for registers).
    pub bytes: u64,
    pub cycles: f64,
    pub ns: f64,
    /// What the texts quote for this level, in cycles.
    pub texts: String,
}

/// Everything `ptx-ladder memory` measured, as written to its JSON and read back
/// by `ptx-ladder info --svg --memory-json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub device: String,
    pub capacities: Capacities,
    /// The SM clock the chases ran at (cycles over event time), MHz.
    pub sm_clock_mhz: f64,
    pub bandwidth: Vec<BandwidthPoint>,
    pub plateaus: Plateaus,
    pub shared_gbps: f64,
    pub shared_model_gbps: f64,
    pub latencies: Vec<Latency>,
}

impl Measured {
    /// Reads `ptx-ladder memory --json` output.
    pub fn from_json(text: &str) -> Result<Measured, String> {
        serde_json::from_str(text).map_err(|e| format!("not a `ptx-ladder memory --json` file: {e}"))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data always serialises")
    }
}

/// The texts' worked example: the RTX A6000's shared memory against its
/// DRAM (19.4 TB/s against 768 GB/s, a factor of about 25).
pub fn a6000_shared_to_dram() -> (f64, f64) {
    let a6000 = chip_by_name("a6000").expect("the A6000 is on record");
    let shared = shared_bandwidth_model(a6000.sms, a6000.sm_clock_mhz as f64) / 1e9;
    (shared, shared / a6000.dram_gbps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_a6000_numbers_of_the_texts() {
        let caps = Capacities::of_chip(chip_by_name("RTX A6000").unwrap());
        // 84 SMs × 256 KB = 21 MB of registers; 84 × 128 KB = 10.5 MB of L1/shared; 6 MB of L2.
        assert_eq!(caps.register_file_total(), 21 * MIB);
        assert_eq!(caps.l1_shared_total(), Some(21 * MIB / 2));
        assert_eq!(caps.l2, 6 * MIB);
        let (shared, ratio) = a6000_shared_to_dram();
        assert!((shared - 19353.6).abs() < 0.1, "{shared}");
        assert!((ratio - 25.2).abs() < 0.05, "{ratio}");
    }

    #[test]
    fn on_an_h200_registers_match_l1_and_compare_with_l2() {
        let caps = Capacities::of_chip(chip_by_name("h200").unwrap());
        assert_eq!(caps.register_file_total(), 33 * MIB);
        assert_eq!(caps.l1_shared_total(), Some(33 * MIB));
        let text = caps.comparison();
        assert!(text.contains("33.0 MB = 1.00x all L1/shared memory (33.0 MB) and 0.55x the L2 (60.0 MB)"), "{text}");
        let table = caps.table();
        assert!(table.contains("registers (65536 x 4 B)") && table.contains("256 KB") && table.contains("141.0 GB"), "{table}");
        assert_eq!(
            (working_set(4 << 30), working_set(48 * MIB), working_set(16 * KIB)),
            ("4.0 GiB".into(), "48.0 MB".into(), "16 KB".into())
        );
    }

    #[test]
    fn chips_are_found_by_their_own_names_only() {
        assert_eq!(chip_by_name("NVIDIA H200").unwrap().dram_bytes, 141 * GB);
        assert_eq!(chip_by_name("a6000").unwrap().sms, 84);
        assert_eq!(chip_by_name("RTX A6000").unwrap().sms, 84);
        for chip in CHIPS {
            assert_eq!(chip_by_name(chip.name).unwrap(), chip);
            assert!(ACCEPTED_NAMES.contains(chip.name), "{}", chip.name);
        }
        // Other GPUs of a known generation are not the table's chip.
        for other in ["rtx4090", "ad102", "ad104", "sm_80", "sm_90", "hopper", "voodoo2"] {
            let e = chip_by_name(other).unwrap_err();
            assert!(e.contains("unknown GPU") && e.contains(ACCEPTED_NAMES), "{e}");
        }
    }

    #[test]
    fn shared_bandwidth_is_banks_times_sms_times_clock() {
        // H200: 128 B × 132 SMs × 1.98 GHz = 33.45 TB/s.
        assert!((shared_bandwidth_model(132, 1980.0) / 1e12 - 33.454).abs() < 1e-3);
    }

    #[test]
    fn cycles_become_nanoseconds_at_the_clock() {
        assert_eq!(cycles_to_ns(1980.0, 1980.0), 1000.0);
        assert!((cycles_to_ns(30.0, 1500.0) - 20.0).abs() < 1e-12);
    }

    #[test]
    fn working_sets_are_placed_by_size() {
        let (l1, l2) = (256 * KIB, 60 * MIB);
        assert_eq!(expected_level(16 * KIB, l1, l2), Level::OnChip);
        assert_eq!(expected_level(200 * KIB, l1, l2), Level::L1OrL2);
        assert_eq!(expected_level(8 * MIB, l1, l2), Level::L2);
        assert_eq!(expected_level(40 * MIB, l1, l2), Level::L2OrDram);
        assert_eq!(expected_level(4 * GB, l1, l2), Level::Dram);
    }

    #[test]
    fn plateaus_and_the_cliff_are_read_off_the_curve() {
        let (l1, l2) = (256 * KIB, 60 * MIB);
        let curve = [
            (16 * KIB, 20000.0),
            (64 * KIB, 21000.0),
            (MIB, 9000.0),
            (8 * MIB, 10000.0),
            (24 * MIB, 9500.0),
            (40 * MIB, 3500.0),
            (256 * MIB, 3900.0),
            (1024 * MIB, 4000.0),
        ];
        let points: Vec<BandwidthPoint> = curve.iter().map(|&(bytes, gbps)| BandwidthPoint { bytes, gbps }).collect();
        let p = plateaus(&points, l1, l2);
        assert_eq!(p.on_chip_gbps, Some(20500.0));
        assert_eq!(p.l2_gbps, Some(9500.0));
        assert_eq!(p.dram_gbps, Some(3950.0));
        assert_eq!(p.l2_cliff_bytes, Some(40 * MIB));
        assert_eq!(plateaus(&points[..2], l1, l2).l2_cliff_bytes, None);
    }

    #[test]
    fn a_random_cycle_visits_every_slot_once() {
        for n in [1usize, 2, 3, 17, 1000] {
            let next = random_cycle(n, n as u64);
            let mut seen = vec![false; n];
            let mut slot = 0usize;
            for _ in 0..n {
                assert!(!seen[slot], "slot {slot} visited twice (n = {n})");
                seen[slot] = true;
                slot = next[slot] as usize;
            }
            assert_eq!(slot, 0, "the chase returns to its start after n steps");
        }
        // Not the identity walk: neighbours rarely follow each other.
        let next = random_cycle(1000, 7);
        assert!(next.iter().enumerate().filter(|&(i, &j)| j as usize == i + 1).count() < 10);
    }

    #[test]
    fn measurements_survive_a_json_round_trip() {
        let m = Measured {
            device: "GPU \"x\"".into(),
            capacities: Capacities::of_chip(&CHIPS[0]),
            sm_clock_mhz: 1500.0,
            bandwidth: vec![BandwidthPoint { bytes: 16384, gbps: 1.5 }],
            plateaus: Plateaus { on_chip_gbps: Some(1.5), l2_gbps: None, dram_gbps: None, l2_cliff_bytes: None },
            shared_gbps: 2.0,
            shared_model_gbps: 3.0,
            latencies: vec![Latency { level: "L2".into(), bytes: 1 << 20, cycles: 250.0, ns: 166.7, texts: "~200".into() }],
        };
        assert_eq!(Measured::from_json(&m.to_json()).unwrap(), m);
        assert!(Measured::from_json("{").unwrap_err().contains("not a `ptx-ladder memory --json` file"));
    }
}
