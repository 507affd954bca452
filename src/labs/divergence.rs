//! `ptx-ladder divergence`: the same amount of work behind three branch
//! conditions, timed, beside the model's cost.

use super::models::divergence::{BranchPattern, relative_to_uniform};
use crate::device::{Gpu, Timing, pointer};
use crate::error::{Error, Result};
use crate::inputs::rng;
use kernels_gpu::labs::divergence::{ALTERNATE_WARPS, BY_BLOCK, EVEN_ODD_LANE, kernel_for};
use kernels_gpu::launch::LaunchShape;
use rand::RngExt as _;

pub const THREADS: u32 = 256;
const BLOCKS_PER_SM: u32 = 16;

pub struct BranchRow {
    pub pattern: BranchPattern,
    /// Model: cost over the cost without divergence.
    pub predicted: f64,
    pub timing: Timing,
}

fn id(pattern: BranchPattern) -> u32 {
    match pattern {
        BranchPattern::EvenOddLane => EVEN_ODD_LANE,
        BranchPattern::AlternateWarps => ALTERNATE_WARPS,
        BranchPattern::ByBlock => BY_BLOCK,
    }
}

/// What thread `i` of block `block` computes, exactly as the kernel does.
pub fn expected(pattern: BranchPattern, block: u32, i: u32, work: u32) -> f32 {
    let mut x = (i % 1024) as f32 * 1e-3;
    if pattern.takes_then(block as u64, (i % THREADS) as u64, THREADS as u64) {
        for _ in 0..work {
            x = x.mul_add(0.999, 0.5);
        }
    } else {
        for _ in 0..work {
            x = x.mul_add(x, -0.25) * 0.5;
        }
    }
    x
}

/// Runs each pattern with `work` dependent FMAs per side; checks a random
/// sample of threads bit for bit.
pub fn run(gpu: &Gpu, work: u32, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<Vec<BranchRow>> {
    let blocks = gpu.info.multiprocessors * BLOCKS_PER_SM;
    let shape = LaunchShape::linear(blocks, THREADS, 0);
    let threads = blocks * THREADS;
    let mut out = gpu.alloc(threads as usize, "output")?;
    let mut rows = Vec::new();
    let mut rng = rng(5);
    for (i, pattern) in BranchPattern::ALL.into_iter().enumerate() {
        progress(&crate::progress::step(i, BranchPattern::ALL.len(), pattern.name()));
        let kernel = kernel_for(id(pattern));
        let args = (pointer(&out), work);
        gpu.poison(&mut out)?;
        gpu.launch(&kernel, shape, args)?;
        let mut got = vec![0.0f32; threads as usize];
        gpu.download(&out, &mut got, "output")?;
        for _ in 0..2048 {
            let i = rng.random_range(0..threads);
            let want = expected(pattern, i / THREADS, i, work);
            if want.to_bits() != got[i as usize].to_bits() {
                return Err(Error::new(format!("{}: thread {i} computed {}, expected {want}", pattern.name(), got[i as usize])));
            }
        }
        let timing = gpu.time(2, reps, || gpu.launch(&kernel, shape, args))?;
        let predicted = relative_to_uniform(pattern, THREADS, blocks, work as u64, work as u64).map_err(Error::new)?;
        rows.push(BranchRow { pattern, predicted, timing });
    }
    Ok(rows)
}

/// Measured time relative to the warp-aligned `by block` branch, beside the
/// model's prediction relative to no divergence.
pub fn table(rows: &[BranchRow]) -> String {
    let base = rows.iter().find(|r| r.pattern == BranchPattern::ByBlock).map_or(1.0, |r| r.timing.median_ms);
    let mut out = String::from("branch            condition              time ms   measured (vs by block)   model (vs no divergence)\n");
    for r in rows {
        out.push_str(&format!(
            "{:<17} {:<20} {:>9.3} {:>23.2}x {:>25.2}x\n",
            r.pattern.name(),
            r.pattern.condition(),
            r.timing.median_ms,
            r.timing.median_ms / base,
            r.predicted
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_sides_compute_different_values() {
        let then = expected(BranchPattern::EvenOddLane, 0, 2, 64);
        let other = expected(BranchPattern::EvenOddLane, 0, 3, 64);
        assert_ne!(then, other);
        assert!(then.is_finite() && other.is_finite());
    }
}
