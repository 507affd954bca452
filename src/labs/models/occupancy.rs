//! Theoretical occupancy: how many warps of one kernel an SM can hold at once.
//!
//! A streaming multiprocessor hides the long wait of a memory load by
//! switching to another warp that is ready to run. It can only switch among
//! warps that are already resident, so the number of resident warps is a
//! ceiling on how much waiting it can hide. Blocks are admitted whole, and a
//! block is admitted only while every per-SM budget still has room for it:
//! thread slots, block slots, registers and shared memory. Whichever budget
//! runs out first decides the count.
//!
//! The arithmetic here follows the allocation rules NVIDIA's occupancy
//! calculator uses: registers are handed out per warp in fixed-size chunks,
//! and shared memory per block in fixed-size chunks plus a small per-block
//! reservation on newer GPUs. The rounding is what makes occupancy fall off
//! a cliff when a kernel needs just one or two more registers.

use crate::svg;
use crate::text::plural;

/// Threads in a warp on every NVIDIA GPU so far.
const WARP: u32 = 32;

/// The per-SM resource budgets of one GPU generation that decide occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arch {
    /// Marketing name used in tables, e.g. "A100".
    pub name: &'static str,
    /// (major, minor), e.g. (8, 0) for sm_80.
    pub compute_capability: (u32, u32),
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub max_threads_per_block: u32,
    /// 32-bit registers in one SM's register file.
    pub registers_per_sm: u32,
    /// Registers are given to a warp in multiples of this many.
    pub register_alloc_unit: u32,
    pub max_registers_per_thread: u32,
    /// Bytes of shared memory an SM can give to blocks, with the L1/shared
    /// split set as far towards shared memory as the hardware allows.
    pub shared_per_sm: u32,
    /// The most shared memory one block may ask for (after opting in).
    pub shared_per_block_max: u32,
    /// Bytes the system keeps for itself in every resident block (sm_80+).
    pub shared_reserved_per_block: u32,
    /// Shared memory is given to a block in multiples of this many bytes.
    pub shared_alloc_unit: u32,
}

impl Arch {
    /// The most warps one SM can hold, the denominator of occupancy.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / WARP
    }
}

const KB: u32 = 1024;

/// The GPUs the labs know. Numbers are the compute-capability limits from
/// the CUDA programming guide, with shared memory at its largest carve-out.
pub const ARCHS: &[Arch] = &[
    Arch {
        name: "T4",
        compute_capability: (7, 5),
        max_threads_per_sm: 1024,
        max_blocks_per_sm: 16,
        max_threads_per_block: 1024,
        registers_per_sm: 65536,
        register_alloc_unit: 256,
        max_registers_per_thread: 255,
        shared_per_sm: 64 * KB,
        shared_per_block_max: 64 * KB,
        shared_reserved_per_block: 0,
        shared_alloc_unit: 128,
    },
    Arch {
        name: "A100",
        compute_capability: (8, 0),
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_threads_per_block: 1024,
        registers_per_sm: 65536,
        register_alloc_unit: 256,
        max_registers_per_thread: 255,
        shared_per_sm: 164 * KB,
        shared_per_block_max: 163 * KB,
        shared_reserved_per_block: KB,
        shared_alloc_unit: 128,
    },
    Arch {
        name: "RTX A6000",
        compute_capability: (8, 6),
        max_threads_per_sm: 1536,
        max_blocks_per_sm: 16,
        max_threads_per_block: 1024,
        registers_per_sm: 65536,
        register_alloc_unit: 256,
        max_registers_per_thread: 255,
        shared_per_sm: 100 * KB,
        shared_per_block_max: 99 * KB,
        shared_reserved_per_block: KB,
        shared_alloc_unit: 128,
    },
    Arch {
        name: "L4",
        compute_capability: (8, 9),
        max_threads_per_sm: 1536,
        max_blocks_per_sm: 24,
        max_threads_per_block: 1024,
        registers_per_sm: 65536,
        register_alloc_unit: 256,
        max_registers_per_thread: 255,
        shared_per_sm: 100 * KB,
        shared_per_block_max: 99 * KB,
        shared_reserved_per_block: KB,
        shared_alloc_unit: 128,
    },
    Arch {
        name: "H100/H200",
        compute_capability: (9, 0),
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 32,
        max_threads_per_block: 1024,
        registers_per_sm: 65536,
        register_alloc_unit: 256,
        max_registers_per_thread: 255,
        shared_per_sm: 228 * KB,
        shared_per_block_max: 227 * KB,
        shared_reserved_per_block: KB,
        shared_alloc_unit: 128,
    },
];

/// Other spellings of each entry of [`ARCHS`], lower case with spaces,
/// dashes and underscores removed. Only names of one GPU: a die ("AD102")
/// or a generation ("Ada") also names GPUs this table does not describe,
/// which a compute capability (sm_89) states without pretending.
const ALIASES: &[(&str, (u32, u32))] = &[
    ("t4", (7, 5)),
    ("a100", (8, 0)),
    ("a6000", (8, 6)),
    ("rtxa6000", (8, 6)),
    ("l4", (8, 9)),
    ("h100", (9, 0)),
    ("h200", (9, 0)),
    ("h100/h200", (9, 0)),
];

/// The names `--arch` accepts, for help texts and errors.
pub const ACCEPTED_NAMES: &str = "T4, A100, A6000 (or RTX A6000), L4, H100, H200, \
                                  or a compute capability: sm_75, sm_80, sm_86, sm_89, sm_90 (also written 8.6 or 86)";

/// Look up a GPU by name ("a100", "T4", "RTX A6000", "NVIDIA H200") or by
/// compute capability ("sm_80", "8.0", "80"). Case and spacing are ignored.
pub fn arch_by_name(name: &str) -> Result<&'static Arch, String> {
    let key: String = name.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).flat_map(char::to_lowercase).collect();
    let key = key.strip_prefix("nvidia").unwrap_or(&key);
    let found = ALIASES
        .iter()
        .find(|(alias, _)| *alias == key)
        .map(|&(_, cc)| cc)
        .or_else(|| parse_compute_capability(key))
        .and_then(|(major, minor)| arch_for_compute_capability(major, minor));
    found.ok_or_else(|| format!("unknown GPU {name:?}; known: {ACCEPTED_NAMES}"))
}

/// Read "sm80" / "80" / "8.0" (already lower-cased, separators removed).
fn parse_compute_capability(key: &str) -> Option<(u32, u32)> {
    let digits = key.strip_prefix("sm").unwrap_or(key);
    if let Some((major, minor)) = digits.split_once('.') {
        return Some((major.parse().ok()?, minor.parse().ok()?));
    }
    if digits.len() == 2 && digits.chars().all(|c| c.is_ascii_digit()) {
        let n: u32 = digits.parse().ok()?;
        return Some((n / 10, n % 10));
    }
    None
}

/// The known GPU with exactly this compute capability, if any.
pub fn arch_for_compute_capability(major: u32, minor: u32) -> Option<&'static Arch> {
    ARCHS.iter().find(|a| a.compute_capability == (major, minor))
}

/// The four budgets that can stop another block from becoming resident.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Registers,
    SharedMemory,
    Threads,
    BlockSlots,
}

impl Limit {
    /// Which limit is named when several allow the same number of blocks.
    ///
    /// Registers and shared memory come first because they are what the
    /// kernel's code decides, so they are what a programmer can change, and
    /// a tie means they are already tight: using more of them would lower
    /// occupancy. Thread and block slots follow block size, and block slots
    /// last because they only bind for very small blocks.
    pub const TIE_ORDER: [Limit; 4] = [Limit::Registers, Limit::SharedMemory, Limit::Threads, Limit::BlockSlots];

    pub fn name(self) -> &'static str {
        match self {
            Limit::Registers => "registers",
            Limit::SharedMemory => "shared memory",
            Limit::Threads => "threads per SM",
            Limit::BlockSlots => "blocks per SM",
        }
    }
}

/// The result of [`occupancy`]: how many blocks fit, and why not more.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    pub arch: &'static str,
    pub threads_per_block: u32,
    pub registers_per_thread: u32,
    pub shared_bytes_per_block: u32,
    pub warps_per_block: u32,
    /// Registers one warp really receives after rounding up.
    pub registers_per_warp: u32,
    /// Shared memory one block really receives, reservation and rounding
    /// included.
    pub shared_per_block_allocated: u32,
    pub blocks_by_threads: u32,
    pub blocks_by_block_slots: u32,
    /// `None` when the kernel uses no registers, so they cannot limit it.
    pub blocks_by_registers: Option<u32>,
    /// `None` when a block takes no shared memory at all.
    pub blocks_by_shared: Option<u32>,
    pub blocks_per_sm: u32,
    pub active_warps: u32,
    pub max_warps: u32,
    /// active_warps / max_warps, between 0 and 1.
    pub fraction: f64,
    pub limiter: Limit,
}

impl Occupancy {
    /// Blocks the given budget alone would allow (`None`: no limit).
    pub fn blocks_allowed_by(&self, limit: Limit) -> Option<u32> {
        match limit {
            Limit::Registers => self.blocks_by_registers,
            Limit::SharedMemory => self.blocks_by_shared,
            Limit::Threads => Some(self.blocks_by_threads),
            Limit::BlockSlots => Some(self.blocks_by_block_slots),
        }
    }

    /// Every budget that is exactly used up, in [`Limit::TIE_ORDER`].
    /// `limiter` is the first of these.
    pub fn binding_limits(&self) -> Vec<Limit> {
        Limit::TIE_ORDER.into_iter().filter(|&l| self.blocks_allowed_by(l) == Some(self.blocks_per_sm)).collect()
    }

    pub fn percent(&self) -> f64 {
        self.fraction * 100.0
    }

    /// The calculation written out step by step, one budget per line.
    pub fn explain(&self) -> String {
        let blocks = |n: u32| plural(n.into(), "block");
        let allowed = |b: Option<u32>| b.map_or_else(|| "no limit".to_string(), blocks);
        let mut out = format!(
            "{}: {}/block ({}), {}/thread, {} B shared/block\n",
            self.arch,
            plural(self.threads_per_block.into(), "thread"),
            plural(self.warps_per_block.into(), "warp"),
            plural(self.registers_per_thread.into(), "register"),
            self.shared_bytes_per_block
        );
        out += &format!("  registers:     {} per warp after rounding -> {}\n", self.registers_per_warp, allowed(self.blocks_by_registers));
        out += &format!(
            "  shared memory: {} B per block after reservation and rounding -> {}\n",
            self.shared_per_block_allocated,
            allowed(self.blocks_by_shared)
        );
        out += &format!("  threads:       {}\n", blocks(self.blocks_by_threads));
        out += &format!("  block slots:   {}\n", blocks(self.blocks_by_block_slots));
        let names: Vec<&str> = self.binding_limits().iter().map(|l| l.name()).collect();
        out += &format!(
            "  => {} x {} = {} of {} warps = {:.1}%, limited by {}\n",
            blocks(self.blocks_per_sm),
            plural(self.warps_per_block.into(), "warp"),
            self.active_warps,
            self.max_warps,
            self.percent(),
            names.join(" and ")
        );
        out
    }
}

/// Round `n` up to a multiple of `unit` (a unit of 0 leaves `n` alone).
fn round_up(n: u64, unit: u64) -> u64 {
    if unit == 0 { n } else { n.div_ceil(unit) * unit }
}

/// Saturating conversion for block counts, which are always small in
/// practice but come from a division by user-chosen numbers.
fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Theoretical occupancy of a kernel on one SM of `arch`.
///
/// `registers_per_thread` is what the compiler reports (`-Xptxas -v`);
/// 0 leaves registers out of the calculation. `shared_bytes_per_block` is
/// static plus dynamic shared memory. Returns an error when an input is
/// beyond what the GPU accepts, or when not even one block fits.
pub fn occupancy(arch: &Arch, threads_per_block: u32, registers_per_thread: u32, shared_bytes_per_block: u32) -> Result<Occupancy, String> {
    let name = arch.name;
    if threads_per_block == 0 {
        return Err("block has 0 threads; a block needs at least 1 thread".to_string());
    }
    if threads_per_block > arch.max_threads_per_block {
        return Err(format!("block has {threads_per_block} threads; the {name} allows at most {} per block", arch.max_threads_per_block));
    }
    if registers_per_thread > arch.max_registers_per_thread {
        return Err(format!(
            "kernel uses {registers_per_thread} registers per thread; the {name} allows at most {} per thread",
            arch.max_registers_per_thread
        ));
    }
    if shared_bytes_per_block > arch.shared_per_block_max {
        return Err(format!(
            "block uses {shared_bytes_per_block} bytes of shared memory; the {name} allows at most {} bytes ({} KB) per block",
            arch.shared_per_block_max,
            arch.shared_per_block_max / KB
        ));
    }

    // Warps are the unit of everything below: a block of 33 threads costs
    // two full warps of thread slots and registers.
    let warps_per_block = threads_per_block.div_ceil(WARP);
    let max_warps = arch.max_warps_per_sm();

    let blocks_by_threads = max_warps / warps_per_block;
    if blocks_by_threads == 0 {
        return Err(format!("block has {warps_per_block} warps; an SM of the {name} holds at most {max_warps}"));
    }
    let blocks_by_block_slots = arch.max_blocks_per_sm;
    if blocks_by_block_slots == 0 {
        return Err(format!("the {name} description allows 0 blocks per SM, so nothing can run"));
    }

    // Registers: each warp receives registers_per_thread * 32, rounded up
    // to the allocation unit; the file holds a whole number of such warps,
    // and a block needs room for all of its warps.
    let registers_per_warp = round_up(u64::from(registers_per_thread) * u64::from(WARP), u64::from(arch.register_alloc_unit));
    let blocks_by_registers = match u64::from(arch.registers_per_sm).checked_div(registers_per_warp) {
        // A kernel using no registers is not limited by them.
        None => None,
        Some(warps_fit) => {
            let blocks = to_u32(warps_fit / u64::from(warps_per_block));
            if blocks == 0 {
                return Err(format!(
                    "one block needs {} registers ({warps_per_block} warps x {registers_per_warp} after rounding \
                 {registers_per_thread} registers x 32 threads up to a multiple of {}), but an SM of the {name} \
                 has only {}; use fewer registers per thread (__launch_bounds__ or -maxrregcount) or a smaller block",
                    u64::from(warps_per_block) * registers_per_warp,
                    arch.register_alloc_unit,
                    arch.registers_per_sm
                ));
            }
            Some(blocks)
        }
    };

    // Shared memory: the block's bytes plus the per-block reservation,
    // rounded up to the allocation unit.
    let shared_allocated =
        round_up(u64::from(shared_bytes_per_block) + u64::from(arch.shared_reserved_per_block), u64::from(arch.shared_alloc_unit));
    let blocks_by_shared = match u64::from(arch.shared_per_sm).checked_div(shared_allocated) {
        // No shared memory at all (and nothing reserved): no limit.
        None => None,
        Some(blocks) => {
            let blocks = to_u32(blocks);
            if blocks == 0 {
                return Err(format!(
                    "one block needs {shared_allocated} bytes of shared memory (including {} reserved), \
                 but an SM of the {name} has only {}",
                    arch.shared_reserved_per_block, arch.shared_per_sm
                ));
            }
            Some(blocks)
        }
    };

    let blocks_per_sm = [blocks_by_registers, blocks_by_shared, Some(blocks_by_threads), Some(blocks_by_block_slots)]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(blocks_by_block_slots);

    let active_warps = blocks_per_sm * warps_per_block;
    let mut result = Occupancy {
        arch: name,
        threads_per_block,
        registers_per_thread,
        shared_bytes_per_block,
        warps_per_block,
        registers_per_warp: to_u32(registers_per_warp),
        shared_per_block_allocated: to_u32(shared_allocated),
        blocks_by_threads,
        blocks_by_block_slots,
        blocks_by_registers,
        blocks_by_shared,
        blocks_per_sm,
        active_warps,
        max_warps,
        fraction: f64::from(active_warps) / f64::from(max_warps),
        limiter: Limit::BlockSlots,
    };
    result.limiter = result.binding_limits().first().copied().unwrap_or(Limit::BlockSlots);
    Ok(result)
}

/// Occupancy for every register count from 1 to the GPU's maximum, as
/// (registers, fraction) pairs; counts at which no block fits give 0. This
/// is the curve that shows the cliffs.
pub fn register_curve(arch: &Arch, threads_per_block: u32, shared_bytes_per_block: u32) -> Result<Vec<(u32, f64)>, String> {
    // With registers left out, an error can only come from the other inputs.
    occupancy(arch, threads_per_block, 0, shared_bytes_per_block)?;
    Ok((1..=arch.max_registers_per_thread)
        .map(|r| {
            let f = occupancy(arch, threads_per_block, r, shared_bytes_per_block).map_or(0.0, |o| o.fraction);
            (r, f)
        })
        .collect())
}

/// [`register_curve`] for several GPUs drawn as one line chart, occupancy in
/// percent against registers per thread.
pub fn register_curve_svg(archs: &[&Arch], threads_per_block: u32, shared_bytes_per_block: u32) -> Result<String, String> {
    let mut series = Vec::with_capacity(archs.len());
    for arch in archs {
        let curve = register_curve(arch, threads_per_block, shared_bytes_per_block)?;
        let points = curve.into_iter().map(|(r, f)| (f64::from(r), f * 100.0)).collect();
        series.push((arch.name.to_string(), points));
    }
    let title = format!("Occupancy vs registers ({}/block, {shared_bytes_per_block} B shared)", plural(threads_per_block.into(), "thread"));
    Ok(svg::line_chart_within(&title, "registers per thread", "occupancy %", &series, None, PERCENT))
}

/// A fixed-width table, one row per GPU: its occupancy, or "does not fit"
/// and why when not even one block can run there.
pub fn render_table(rows: &[(&str, Result<Occupancy, String>)]) -> String {
    let mut out = format!(
        "{:<12} {:>7} {:>5} {:>9} {:>9} {:>7} {:>9}  {}\n",
        "architecture", "threads", "regs", "smem (B)", "blocks/SM", "warps", "occupancy", "limited by"
    );
    for (arch, row) in rows {
        match row {
            Ok(o) => {
                out += &format!(
                    "{:<12} {:>7} {:>5} {:>9} {:>9} {:>7} {:>8.1}%  {}\n",
                    o.arch,
                    o.threads_per_block,
                    o.registers_per_thread,
                    o.shared_bytes_per_block,
                    o.blocks_per_sm,
                    format!("{}/{}", o.active_warps, o.max_warps),
                    o.percent(),
                    o.limiter.name()
                )
            }
            Err(why) => out += &format!("{arch:<12} does not fit: {why}\n"),
        }
    }
    out
}

/// Occupancy in percent, 0 where the block does not fit.
/// The y range of every occupancy chart: 0 to 100 % even when no block fits.
const PERCENT: Option<(f64, f64)> = Some((0.0, 100.0));

fn percent_or_zero(arch: &Arch, threads: u32, registers: u32, shared: u32) -> f64 {
    occupancy(arch, threads, registers, shared).map_or(0.0, |o| o.percent())
}

/// The calculator's picture, as NVIDIA's occupancy calculator draws it:
/// occupancy against registers per thread, against shared memory per block
/// and against block size, each varying one input of this kernel
/// (`threads`, `registers`, `shared`) with the others held, and this
/// kernel's value marked. One line per GPU in `archs`.
pub fn calculator_svg(archs: &[&Arch], threads: u32, registers: u32, shared: u32) -> String {
    let curves = |points: &dyn Fn(&Arch) -> Vec<(f64, f64)>| -> Vec<(String, Vec<(f64, f64)>)> {
        archs.iter().map(|arch| (arch.name.to_string(), points(arch))).collect()
    };
    let (threads_text, registers_text) = (plural(threads.into(), "thread"), plural(registers.into(), "register"));
    let kernel = format!("{threads_text}/block, {registers_text}/thread, {shared} B shared/block");
    let by_registers =
        curves(&|arch| (1..=arch.max_registers_per_thread).map(|r| (f64::from(r), percent_or_zero(arch, threads, r, shared))).collect());
    // Shared memory in steps of 512 bytes up to the largest block allowance,
    // plus this kernel's own value so the mark sits on the line.
    let kb = |bytes: u32| f64::from(bytes) / f64::from(KB);
    let by_shared = curves(&|arch| {
        let mut sizes: Vec<u32> = (0..=arch.shared_per_block_max).step_by(512).collect();
        sizes.push(shared);
        sizes.sort_unstable();
        sizes.dedup();
        sizes.into_iter().map(|b| (kb(b), percent_or_zero(arch, threads, registers, b))).collect()
    });
    let by_threads = curves(&|arch| {
        let mut sizes: Vec<u32> = (1..=arch.max_threads_per_block / WARP).map(|w| w * WARP).collect();
        sizes.push(threads);
        sizes.sort_unstable();
        sizes.dedup();
        sizes.into_iter().map(|t| (f64::from(t), percent_or_zero(arch, t, registers, shared))).collect()
    });
    svg::stack(&[
        svg::line_chart_within(
            &format!("Occupancy vs registers per thread ({threads_text}, {shared} B shared)"),
            "registers per thread",
            "occupancy %",
            &by_registers,
            Some((f64::from(registers), format!("this kernel: {registers}"))),
            PERCENT,
        ),
        svg::line_chart_within(
            &format!("Occupancy vs shared memory per block ({threads_text}, {registers_text})"),
            "shared memory per block (KB)",
            "occupancy %",
            &by_shared,
            Some((kb(shared), format!("this kernel: {shared} B"))),
            PERCENT,
        ),
        svg::line_chart_within(
            &format!("Occupancy vs block size ({registers_text}, {shared} B shared)"),
            "threads per block",
            "occupancy %",
            &by_threads,
            Some((f64::from(threads), format!("this kernel: {threads}"))),
            PERCENT,
        ),
        note(&[&format!("Marked: {kernel}."), "Where the block does not fit, the line drops to 0%."]),
    ])
}

/// Lines of text as a picture of its own, for the foot of a stack, as
/// wide as its longest line needs.
fn note(lines: &[&str]) -> String {
    let longest = lines.iter().map(|l| svg::text_width(l, 12.0)).fold(0.0, f64::max);
    let mut picture = svg::Svg::new((longest + 32.0).max(760.0), 12.0 + 18.0 * lines.len() as f64);
    for (i, line) in lines.iter().enumerate() {
        picture.text(16.0, 20.0 + 18.0 * i as f64, line, svg::TextStyle::new(12.0));
    }
    picture.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arch(name: &str) -> &'static Arch {
        arch_by_name(name).expect("known arch")
    }

    fn occ(name: &str, threads: u32, regs: u32, smem: u32) -> Occupancy {
        occupancy(arch(name), threads, regs, smem).expect("valid launch")
    }

    fn err(name: &str, threads: u32, regs: u32, smem: u32) -> String {
        occupancy(arch(name), threads, regs, smem).expect_err("should be rejected")
    }

    #[test]
    fn a100_worked_example_is_register_limited_at_half() {
        let o = occ("a100", 256, 64, 8 * 1024);
        assert_eq!(o.blocks_per_sm, 4);
        assert_eq!(o.active_warps, 32);
        assert_eq!(o.max_warps, 64);
        assert_eq!(o.fraction, 0.5);
        assert_eq!(o.limiter, Limit::Registers);
        assert_eq!(o.blocks_by_registers, Some(4));
        assert_eq!(o.blocks_by_shared, Some(18)); // (8192 + 1024) B per block
        assert_eq!(o.blocks_by_threads, 8);
        assert_eq!(o.blocks_by_block_slots, 32);
    }

    #[test]
    fn a100_at_32_registers_is_full() {
        let o = occ("a100", 256, 32, 8 * 1024);
        assert_eq!(o.blocks_per_sm, 8);
        assert_eq!(o.fraction, 1.0);
        // Registers and threads both allow exactly 8: the tie goes to registers.
        assert_eq!(o.binding_limits(), vec![Limit::Registers, Limit::Threads]);
        assert_eq!(o.limiter, Limit::Registers);
    }

    #[test]
    fn a100_register_cliff_between_31_and_33() {
        let o31 = occ("a100", 512, 31, 0);
        assert_eq!((o31.blocks_per_sm, o31.fraction), (4, 1.0));
        let o33 = occ("a100", 512, 33, 0);
        assert_eq!((o33.blocks_per_sm, o33.fraction), (3, 0.75));
        assert_eq!(o33.registers_per_warp, 1280); // 33 * 32 = 1056, rounded up to 5 * 256
        assert_eq!(o33.limiter, Limit::Registers);
    }

    #[test]
    fn rtx_a6000_tiled_matmul_example() {
        let o = occ("a6000", 32 * 32, 37, 2 * 32 * 32 * 4);
        assert_eq!(o.blocks_per_sm, 1);
        assert_eq!((o.active_warps, o.max_warps), (32, 48));
        assert_eq!(format!("{:.0}", o.percent()), "67");
        assert_eq!(o.limiter, Limit::Registers);
        assert_eq!(o.blocks_by_threads, 1); // 48 warps hold one 32-warp block
    }

    #[test]
    fn shared_memory_limited() {
        // 48 KB + 1 KB reserved per block: 164 KB holds 3 of them.
        let o = occ("a100", 128, 32, 48 * 1024);
        assert_eq!(o.blocks_by_shared, Some(3));
        assert_eq!(o.blocks_per_sm, 3);
        assert_eq!(o.limiter, Limit::SharedMemory);
        assert_eq!(o.active_warps, 12);
        // Rounding to 128 bytes: 1000 + 1024 -> 2048 allocated.
        assert_eq!(occ("a100", 128, 32, 1000).shared_per_block_allocated, 2048);
        // The T4 reserves nothing, so 32 KB blocks fit exactly twice.
        assert_eq!(occ("t4", 128, 32, 32 * 1024).blocks_by_shared, Some(2));
    }

    #[test]
    fn block_slot_limited() {
        // 32-thread blocks: threads would allow 64, slots allow 32.
        let o = occ("a100", 32, 16, 0);
        assert_eq!(o.blocks_by_threads, 64);
        assert_eq!(o.blocks_per_sm, 32);
        assert_eq!(o.limiter, Limit::BlockSlots);
        assert_eq!(o.fraction, 0.5);
    }

    #[test]
    fn thread_limited() {
        let o = occ("t4", 1024, 32, 0);
        assert_eq!(o.blocks_per_sm, 1);
        assert_eq!(o.blocks_by_registers, Some(2));
        assert_eq!(o.limiter, Limit::Threads);
        assert_eq!(o.fraction, 1.0);
    }

    #[test]
    fn zero_registers_and_zero_shared_do_not_limit() {
        let o = occ("t4", 256, 0, 0);
        assert_eq!(o.blocks_by_registers, None);
        assert_eq!(o.blocks_by_shared, None);
        assert_eq!(o.limiter, Limit::Threads);
        // sm_80 still reserves 1 KB for every block.
        assert_eq!(occ("a100", 256, 0, 0).blocks_by_shared, Some(164));
    }

    #[test]
    fn partial_warps_count_as_whole_warps() {
        let o = occ("a100", 33, 32, 0);
        assert_eq!(o.warps_per_block, 2);
        assert_eq!(o.blocks_by_threads, 32);
    }

    #[test]
    fn validation_errors_name_the_limit() {
        assert!(err("a100", 0, 32, 0).contains("at least 1 thread"));
        assert_eq!(err("a100", 2048, 32, 0), "block has 2048 threads; the A100 allows at most 1024 per block");
        assert_eq!(err("a100", 256, 256, 0), "kernel uses 256 registers per thread; the A100 allows at most 255 per thread");
        let e = err("a100", 256, 32, 200 * 1024);
        assert!(e.contains("at most 166912 bytes (163 KB) per block"), "{e}");
        let e = err("t4", 256, 32, 65 * 1024);
        assert!(e.contains("65536"), "{e}");
    }

    #[test]
    fn one_block_that_does_not_fit_is_an_error() {
        // 1024 threads at 255 registers: 32 warps x 8192 registers.
        let e = err("a100", 1024, 255, 0);
        assert!(e.contains("262144 registers"), "{e}");
        assert!(e.contains("only 65536"), "{e}");
        // 1024 threads at 64 registers still fits exactly once.
        assert_eq!(occ("a100", 1024, 64, 0).blocks_per_sm, 1);
        assert!(err("a100", 1024, 65, 0).contains("registers"));
    }

    #[test]
    fn errors_for_resources_a_custom_gpu_cannot_hold() {
        let tiny = Arch { max_threads_per_sm: 512, shared_per_sm: 4096, ..ARCHS[1] };
        let e = occupancy(&tiny, 1024, 32, 0).expect_err("too many warps");
        assert!(e.contains("holds at most 16"), "{e}");
        let e = occupancy(&tiny, 256, 32, 8192).expect_err("too much smem");
        assert!(e.contains("has only 4096"), "{e}");
        let no_slots = Arch { max_blocks_per_sm: 0, ..ARCHS[1] };
        assert!(occupancy(&no_slots, 32, 32, 0).expect_err("no slots").contains("0 blocks per SM"));
    }

    #[test]
    fn names_and_compute_capabilities() {
        assert_eq!(arch("A100").compute_capability, (8, 0));
        assert_eq!(arch("t4").name, "T4");
        assert_eq!(arch("a6000").name, "RTX A6000");
        assert_eq!(arch("RTX A6000").name, "RTX A6000");
        assert_eq!(arch("sm_89").name, "L4");
        assert_eq!(arch("h100").name, "H100/H200");
        assert_eq!(arch("NVIDIA H200").name, "H100/H200");
        assert_eq!(arch("sm_86").name, "RTX A6000");
        assert_eq!(arch("8.9").name, "L4");
        assert!(arch_by_name("v100").expect_err("unknown").contains("known: T4, A100"));
        for other_gpu in ["rtx4090", "ad102", "ad104", "ga102", "hopper", "all"] {
            assert!(arch_by_name(other_gpu).expect_err(other_gpu).contains("sm_89"), "{other_gpu}");
        }
        assert!(arch_by_name("").is_err());
        assert_eq!(arch_for_compute_capability(9, 0).map(|a| a.name), Some("H100/H200"));
        assert_eq!(arch_for_compute_capability(7, 0), None);
    }

    #[test]
    fn table_and_explanation() {
        let rows = [("A100", Ok(occ("a100", 256, 64, 8192))), ("RTX A6000", Ok(occ("a6000", 1024, 37, 8192)))];
        let table = render_table(&rows);
        assert_eq!(table.lines().count(), 3);
        assert!(table.contains("A100") && table.contains("32/64") && table.contains("50.0%"));
        assert!(table.contains("32/48") && table.contains("66.7%") && table.contains("registers"));
        let text = occ("a100", 256, 32, 8192).explain();
        assert!(text.contains("limited by registers and threads per SM"), "{text}");
        assert!(text.contains("1024 per warp after rounding -> 8 blocks"), "{text}");
    }

    #[test]
    fn a_block_that_does_not_fit_is_a_row_not_an_abort() {
        // 1024 threads: fine on an A100, but a T4 SM holds only 1024 threads
        // and 64 KB of shared memory, so 40 KB per block leaves no room there.
        let rows: Vec<_> = [arch("t4"), arch("a100")].iter().map(|a| (a.name, occupancy(a, 1024, 32, 70_000))).collect();
        let table = render_table(&rows);
        let t4 = table.lines().find(|l| l.starts_with("T4")).expect("T4 row");
        assert!(t4.contains("does not fit: block uses 70000 bytes of shared memory"), "{table}");
        assert!(table.lines().any(|l| l.starts_with("A100") && l.contains("%")), "{table}");
    }

    #[test]
    fn the_calculator_picture_marks_this_kernel_on_three_curves() {
        let doc = calculator_svg(&[arch("a100"), arch("t4")], 256, 64, 8192);
        crate::svg::tests::assert_well_formed(&doc);
        for title in ["vs registers per thread", "vs shared memory per block", "vs block size"] {
            assert!(doc.contains(title), "{title}");
        }
        assert!(doc.contains("this kernel: 64") && doc.contains("this kernel: 8192 B") && doc.contains("this kernel: 256"));
        // One ring per GPU on each of the three curves.
        assert_eq!(doc.matches("fill=\"none\" stroke=").count() - doc.matches("<polyline").count(), 6);
        // A kernel that fits nowhere still draws (at 0%), on a 0-100 % axis.
        let nowhere = calculator_svg(&[arch("t4")], 1024, 255, 60_000);
        crate::svg::tests::assert_well_formed(&nowhere);
        assert_eq!(nowhere.matches("text-anchor=\"end\" fill=\"#222\">100</text>").count(), 3, "every chart's y axis reaches 100 %");
    }

    #[test]
    fn gpus_with_the_same_curve_share_its_legend_entry() {
        // The RTX A6000 and the L4 (both 1536 threads and 100 KB per SM)
        // agree on registers; their block-slot limits (16 and 24) differ
        // for small blocks when shared memory does not limit first.
        let doc = calculator_svg(&[arch("a6000"), arch("l4")], 256, 64, 0);
        assert!(doc.contains(">RTX A6000 = L4<"), "registers chart merges them");
        assert!(doc.contains(">RTX A6000<") && doc.contains(">L4<"), "the block-size chart tells them apart");
    }

    #[test]
    fn the_footnote_is_as_wide_as_its_text() {
        let long = "x".repeat(200);
        let doc = note(&[&long, "short"]);
        let width: f64 = doc.split("width=\"").nth(1).and_then(|w| w.split('"').next()).and_then(|w| w.parse().ok()).unwrap_or(0.0);
        assert!(width >= crate::svg::text_width(&long, 12.0) + 16.0, "{doc}");
        assert!(doc.contains(">short<"));
    }

    #[test]
    fn register_curve_shows_the_cliff() {
        let curve = register_curve(arch("a100"), 512, 0).expect("valid");
        assert_eq!(curve.len(), 255);
        assert_eq!(curve[30], (31, 1.0));
        assert_eq!(curve[32], (33, 0.75));
        assert_eq!(curve[254].1, 0.0); // 512 threads x 255 registers cannot fit
        assert!(register_curve(arch("a100"), 2048, 0).is_err());
        let doc = register_curve_svg(&[arch("a100"), arch("t4")], 256, 0).expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert!(doc.contains("A100") && doc.contains("T4"));
    }
}
