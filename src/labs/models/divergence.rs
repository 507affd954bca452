//! What an if/else costs a warp.
//!
//! The 32 lanes of a warp share one instruction stream. When they all make
//! the same choice at a branch, the warp runs only the side they chose.
//! When they disagree, the warp runs one side with the other lanes switched
//! off, then the other side with the first group switched off, so it pays
//! for both. Nothing is computed wrongly; time is simply lost.
//!
//! What matters is therefore not how many threads go each way, but whether
//! the split happens *inside* warps. A condition that alternates between
//! neighbouring threads splits every warp. A condition that changes only
//! every 32 threads, or only between blocks, splits none.
//!
//! Costs are counted in warp-instructions: a side of cost 10 run by one
//! warp counts 10, however many of its lanes are switched on.

use crate::svg;

const WARP: u64 = 32;
const MAX_THREADS_PER_BLOCK: u32 = 1024;
/// CUDA's largest grid in x.
const MAX_BLOCKS: u32 = i32::MAX as u32;

/// Cost for one warp given how many of its active lanes take each side.
fn lanes_cost(then_lanes: u64, else_lanes: u64, then_cost: u64, else_cost: u64) -> u64 {
    let then_part = if then_lanes > 0 { then_cost } else { 0 };
    let else_part = if else_lanes > 0 { else_cost } else { 0 };
    then_part.saturating_add(else_part)
}

/// Cost of one branch for one full warp: one side if the lanes agree, both
/// sides if they do not. Saturates instead of overflowing.
pub fn warp_cost(lane_takes_then: &[bool; 32], then_cost: u64, else_cost: u64) -> u64 {
    let then_lanes = lane_takes_then.iter().filter(|&&t| t).count() as u64;
    lanes_cost(then_lanes, WARP - then_lanes, then_cost, else_cost)
}

/// Branch conditions that split threads the same way in total but line up
/// with warps differently. `i` is the global thread index
/// `blockIdx.x * blockDim.x + threadIdx.x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchPattern {
    /// `if (i % 2 == 0)`: neighbours disagree, so every warp splits.
    EvenOddLane,
    /// `if ((i / 32) % 2 == 0)`: whole warps agree, alternating by warp.
    AlternateWarps,
    /// `if (blockIdx.x % 2 == 0)`: whole blocks agree.
    ByBlock,
}

impl BranchPattern {
    pub const ALL: [BranchPattern; 3] = [BranchPattern::EvenOddLane, BranchPattern::AlternateWarps, BranchPattern::ByBlock];

    pub fn name(self) -> &'static str {
        match self {
            BranchPattern::EvenOddLane => "even/odd lane",
            BranchPattern::AlternateWarps => "alternate warps",
            BranchPattern::ByBlock => "by block",
        }
    }

    /// The condition as it would appear in a CUDA kernel.
    pub fn condition(self) -> &'static str {
        match self {
            BranchPattern::EvenOddLane => "i % 2 == 0",
            BranchPattern::AlternateWarps => "(i / 32) % 2 == 0",
            BranchPattern::ByBlock => "blockIdx.x % 2 == 0",
        }
    }

    /// Whether thread `thread` of block `block` takes the `then` side.
    pub fn takes_then(self, block: u64, thread: u64, threads_per_block: u64) -> bool {
        // u128 so that no combination of arguments can overflow.
        let i = u128::from(block) * u128::from(threads_per_block) + u128::from(thread);
        match self {
            BranchPattern::EvenOddLane => i.is_multiple_of(2),
            BranchPattern::AlternateWarps => (i / u128::from(WARP)).is_multiple_of(2),
            BranchPattern::ByBlock => block.is_multiple_of(2),
        }
    }
}

/// Totals for one launch of a kernel containing the branch.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchReport {
    pub warps: u64,
    /// Warps whose active lanes did not all agree.
    pub divergent_warps: u64,
    /// Warp-instructions actually spent on the branch.
    pub cost: u64,
    /// Warp-instructions it would take if no warp were split: each warp
    /// pays the average of the two sides, weighted by its lanes' choices.
    pub uniform_cost: f64,
}

impl BranchReport {
    /// `cost / uniform_cost`: 1 means divergence cost nothing, 2 means the
    /// branch took twice as long as it had to.
    pub fn relative_to_uniform(&self) -> f64 {
        if self.uniform_cost > 0.0 { self.cost as f64 / self.uniform_cost } else { 1.0 }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Cost the branch for a whole launch of `blocks` blocks of
/// `threads_per_block` threads.
///
/// Every pattern repeats with a period of at most 64 blocks (the lane
/// patterns repeat every 64 threads, the block pattern every 2 blocks), so
/// only one period is walked and multiplied out; a launch of two billion
/// blocks costs no more to model than one of 64.
pub fn analyse(
    pattern: BranchPattern,
    threads_per_block: u32,
    blocks: u32,
    then_cost: u64,
    else_cost: u64,
) -> Result<BranchReport, String> {
    if threads_per_block == 0 || threads_per_block > MAX_THREADS_PER_BLOCK {
        return Err(format!("block has {threads_per_block} threads; a block needs 1 to {MAX_THREADS_PER_BLOCK}"));
    }
    if blocks == 0 || blocks > MAX_BLOCKS {
        return Err(format!("grid has {blocks} blocks; CUDA allows 1 to {MAX_BLOCKS} in x"));
    }
    let t = u64::from(threads_per_block);
    let period_threads = 2 * WARP;
    let thread_period = period_threads / gcd(t, period_threads);
    let period = thread_period * 2 / gcd(thread_period, 2);
    let blocks = u64::from(blocks);
    let overflow = || "the total cost does not fit in 64 bits; use smaller costs or fewer blocks".to_string();

    let mut report = BranchReport { warps: 0, divergent_warps: 0, cost: 0, uniform_cost: 0.0 };
    for b in 0..period.min(blocks) {
        // Blocks b, b + period, b + 2 * period, ... behave identically.
        let copies = (blocks - 1 - b) / period + 1;
        let (mut cost, mut divergent, mut uniform) = (0u64, 0u64, 0.0f64);
        for first in (0..t).step_by(WARP as usize) {
            let active = (t - first).min(WARP);
            let then_lanes = (first..first + active).filter(|&th| pattern.takes_then(b, th, t)).count() as u64;
            let else_lanes = active - then_lanes;
            cost = cost.checked_add(lanes_cost(then_lanes, else_lanes, then_cost, else_cost)).ok_or_else(overflow)?;
            if then_lanes > 0 && else_lanes > 0 {
                divergent += 1;
            }
            uniform += (then_lanes as f64 * then_cost as f64 + else_lanes as f64 * else_cost as f64) / active as f64;
        }
        report.warps += copies * t.div_ceil(WARP);
        report.divergent_warps += copies * divergent;
        let block_total = cost.checked_mul(copies).ok_or_else(overflow)?;
        report.cost = report.cost.checked_add(block_total).ok_or_else(overflow)?;
        report.uniform_cost += uniform * copies as f64;
    }
    Ok(report)
}

/// Total warp-instructions the branch costs over the launch.
pub fn predicted_cost(pattern: BranchPattern, threads_per_block: u32, blocks: u32, then_cost: u64, else_cost: u64) -> Result<u64, String> {
    analyse(pattern, threads_per_block, blocks, then_cost, else_cost).map(|r| r.cost)
}

/// How many times the divergence-free cost the branch takes (1.0 = none
/// lost, 2.0 = twice as long).
pub fn relative_to_uniform(
    pattern: BranchPattern,
    threads_per_block: u32,
    blocks: u32,
    then_cost: u64,
    else_cost: u64,
) -> Result<f64, String> {
    analyse(pattern, threads_per_block, blocks, then_cost, else_cost).map(|r| r.relative_to_uniform())
}

/// All three patterns side by side, as a terminal table.
pub fn render_table(threads_per_block: u32, blocks: u32, then_cost: u64, else_cost: u64) -> Result<String, String> {
    let mut out = format!(
        "{blocks} blocks x {threads_per_block} threads, then side {then_cost}, else side {else_cost}\n{:<16} {:<20} {:>8} {:>10} {:>12} {:>10}\n",
        "pattern", "condition", "warps", "divergent", "cost", "x uniform"
    );
    for p in BranchPattern::ALL {
        let r = analyse(p, threads_per_block, blocks, then_cost, else_cost)?;
        out += &format!(
            "{:<16} {:<20} {:>8} {:>10} {:>12} {:>10.2}\n",
            p.name(),
            p.condition(),
            r.warps,
            r.divergent_warps,
            r.cost,
            r.relative_to_uniform()
        );
    }
    Ok(out)
}

/// Bar chart of each pattern's cost relative to the divergence-free cost,
/// with a reference line at 1.
pub fn svg(threads_per_block: u32, blocks: u32, then_cost: u64, else_cost: u64) -> Result<String, String> {
    let mut bars = Vec::new();
    for p in BranchPattern::ALL {
        let ratio = relative_to_uniform(p, threads_per_block, blocks, then_cost, else_cost)?;
        bars.push((format!("{} ({})", p.name(), p.condition()), ratio));
    }
    let title = format!("Branch cost vs no divergence ({blocks} x {threads_per_block} threads)");
    Ok(svg::bar_chart(&title, &bars, Some(("no divergence".to_string(), 1.0)), "x uniform cost"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warp_pays_one_side_when_lanes_agree() {
        assert_eq!(warp_cost(&[true; 32], 10, 30), 10);
        assert_eq!(warp_cost(&[false; 32], 10, 30), 30);
        let mut one_off = [true; 32];
        one_off[17] = false;
        assert_eq!(warp_cost(&one_off, 10, 30), 40);
        assert_eq!(warp_cost(&[false; 32], u64::MAX, u64::MAX), u64::MAX);
        let mixed: [bool; 32] = std::array::from_fn(|i| i % 2 == 0);
        assert_eq!(warp_cost(&mixed, u64::MAX, 1), u64::MAX);
    }

    #[test]
    fn even_odd_pays_both_sides_in_every_warp() {
        // 2 blocks x 256 threads = 16 warps.
        assert_eq!(predicted_cost(BranchPattern::EvenOddLane, 256, 2, 10, 30), Ok(16 * 40));
        let r = analyse(BranchPattern::EvenOddLane, 256, 2, 10, 30).expect("valid");
        assert_eq!((r.warps, r.divergent_warps), (16, 16));
        assert_eq!(r.uniform_cost, 16.0 * 20.0);
        assert_eq!(r.relative_to_uniform(), 2.0);
    }

    #[test]
    fn warp_aligned_patterns_pay_the_average() {
        for p in [BranchPattern::AlternateWarps, BranchPattern::ByBlock] {
            assert_eq!(predicted_cost(p, 256, 2, 10, 30), Ok(16 * 20), "{p:?}");
            let r = analyse(p, 256, 2, 10, 30).expect("valid");
            assert_eq!(r.divergent_warps, 0);
            assert_eq!(r.relative_to_uniform(), 1.0);
        }
    }

    #[test]
    fn lane_alternation_is_twice_the_warp_aligned_cost() {
        let even_odd = predicted_cost(BranchPattern::EvenOddLane, 128, 1000, 7, 7).expect("valid");
        let warps = predicted_cost(BranchPattern::AlternateWarps, 128, 1000, 7, 7).expect("valid");
        let blocks = predicted_cost(BranchPattern::ByBlock, 128, 1000, 7, 7).expect("valid");
        assert_eq!(even_odd, 2 * warps);
        assert_eq!(warps, blocks);
        assert_eq!(relative_to_uniform(BranchPattern::EvenOddLane, 128, 1000, 7, 7), Ok(2.0));
    }

    #[test]
    fn misaligned_blocks_make_warp_patterns_diverge() {
        // 48-thread blocks: warp boundaries no longer match i / 32.
        let r = analyse(BranchPattern::AlternateWarps, 48, 2, 1, 1).expect("valid");
        assert_eq!(r.warps, 4);
        // Block 0: warp 0 = i 0-31 (agree), warp 1 = i 32-47 (agree).
        // Block 1: warp 0 = i 48-79 (split at 64), warp 1 = i 80-95 (agree).
        assert_eq!(r.divergent_warps, 1);
        assert_eq!(r.cost, 5);
        // A partial warp whose lanes agree is not divergent.
        let r = analyse(BranchPattern::ByBlock, 40, 3, 2, 3).expect("valid");
        assert_eq!((r.warps, r.divergent_warps, r.cost), (6, 0, 2 + 2 + 3 + 3 + 2 + 2));
    }

    #[test]
    fn periodic_shortcut_matches_walking_every_block() {
        for &t in &[1u32, 31, 48, 96, 100, 256, 1000] {
            for &blocks in &[1u32, 2, 3, 67, 130] {
                for p in BranchPattern::ALL {
                    let mut brute = 0u64;
                    for b in 0..u64::from(blocks) {
                        for first in (0..u64::from(t)).step_by(32) {
                            let lanes: Vec<bool> =
                                (first..(first + 32).min(u64::from(t))).map(|th| p.takes_then(b, th, u64::from(t))).collect();
                            let then_lanes = lanes.iter().filter(|&&x| x).count() as u64;
                            brute += lanes_cost(then_lanes, lanes.len() as u64 - then_lanes, 3, 5);
                        }
                    }
                    assert_eq!(predicted_cost(p, t, blocks, 3, 5), Ok(brute), "{p:?} t={t} blocks={blocks}");
                }
            }
        }
    }

    #[test]
    fn huge_launches_are_cheap_and_overflow_is_reported() {
        let r = analyse(BranchPattern::EvenOddLane, 1024, MAX_BLOCKS, 1, 1).expect("valid");
        assert_eq!(r.warps, u64::from(MAX_BLOCKS) * 32);
        assert!(predicted_cost(BranchPattern::EvenOddLane, 1024, MAX_BLOCKS, u64::MAX / 2, 1).expect_err("overflow").contains("64 bits"));
    }

    #[test]
    fn inputs_are_validated() {
        assert_eq!(
            predicted_cost(BranchPattern::ByBlock, 2048, 1, 1, 1).expect_err("threads"),
            "block has 2048 threads; a block needs 1 to 1024"
        );
        assert!(predicted_cost(BranchPattern::ByBlock, 0, 1, 1, 1).is_err());
        assert!(predicted_cost(BranchPattern::ByBlock, 32, 0, 1, 1).expect_err("blocks").contains("1 to 2147483647"));
        assert!(predicted_cost(BranchPattern::ByBlock, 32, u32::MAX, 1, 1).is_err());
        assert_eq!(relative_to_uniform(BranchPattern::ByBlock, 32, 1, 0, 0), Ok(1.0));
    }

    #[test]
    fn table_and_chart() {
        let text = render_table(256, 2, 10, 10).expect("valid");
        assert_eq!(text.lines().count(), 5);
        assert!(text.contains("i % 2 == 0") && text.contains("2.00") && text.contains("1.00"));
        let doc = svg(256, 2, 10, 10).expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert!(doc.contains("no divergence"));
        assert!(svg(0, 2, 1, 1).is_err());
    }
}
