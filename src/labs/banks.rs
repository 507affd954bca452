//! `ptx-ladder banks`: six ways for a warp to read a shared 32×32 tile, timed,
//! beside the model's conflict degree.

use super::models::banks::{Pattern, conflict_degree};
use crate::device::{Gpu, Timing, pointer};
use crate::error::{Error, Result};
use kernels_gpu::labs::banks::{LOADS_PER_ROUND, MAX_ROUNDS, THREADS, TILE_FLOATS, kernel_for, word};
use kernels_gpu::launch::LaunchShape;

pub struct PatternRow {
    pub pattern: Pattern,
    /// Conflict degree of one warp access (model).
    pub degree: u32,
    pub timing: Timing,
    /// SM cycles per warp-wide shared load, at the reported clock.
    pub cycles_per_access: f64,
}

/// Blocks per SM in the launch: enough warps to keep shared memory busy.
const BLOCKS_PER_SM: u32 = 4;

/// Runs every pattern `rounds` × 32 times per warp; checks every thread's sum.
pub fn run(gpu: &Gpu, rounds: u32, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<Vec<PatternRow>> {
    if rounds == 0 || rounds > MAX_ROUNDS {
        return Err(Error::new(format!("rounds must be 1 to {MAX_ROUNDS} (got {rounds})")));
    }
    let blocks = gpu.info.multiprocessors * BLOCKS_PER_SM;
    let shape = LaunchShape::linear(blocks, THREADS, TILE_FLOATS * 4);
    let threads = (blocks * THREADS) as usize;
    let mut out = gpu.alloc(threads, "output")?;
    let mut rows = Vec::new();
    for (i, pattern) in Pattern::ALL.into_iter().enumerate() {
        progress(&crate::progress::step(i, Pattern::ALL.len(), pattern.name()));
        let kernel = kernel_for(pattern.id());
        let args = (pointer(&out), rounds);
        gpu.poison(&mut out)?;
        gpu.launch(&kernel, shape, args)?;
        let mut got = vec![0.0f32; threads];
        gpu.download(&out, &mut got, "output")?;
        for (t, &value) in got.iter().enumerate() {
            let want = expected_sum(pattern.id(), t as u32 % 32, rounds);
            if want.to_bits() != value.to_bits() {
                return Err(Error::new(format!("{}: thread {t} read {value}, expected {want}", pattern.name())));
            }
        }
        let timing = gpu.time(2, reps, || gpu.launch(&kernel, shape, args))?;
        let accesses_per_sm = (blocks / gpu.info.multiprocessors) as f64 * (THREADS / 32) as f64 * rounds as f64 * LOADS_PER_ROUND as f64;
        let cycles = timing.median_ms * 1e-3 * gpu.info.sm_clock_khz as f64 * 1e3;
        rows.push(PatternRow {
            pattern,
            degree: conflict_degree(&pattern.addresses()),
            timing,
            cycles_per_access: cycles / accesses_per_sm,
        });
    }
    Ok(rows)
}

/// What a thread of lane `lane` sums: the tile holds its own word indices,
/// and every partial sum stays an exact integer in f32.
pub fn expected_sum(pattern: u32, lane: u32, rounds: u32) -> f32 {
    let mut acc = [0.0f32; 4];
    for _ in 0..rounds {
        for k in 0..LOADS_PER_ROUND {
            acc[(k % 4) as usize] += word(pattern, lane, k) as f32;
        }
    }
    acc[0] + acc[1] + acc[2] + acc[3]
}

/// The table: conflict degree beside measured cost.
pub fn table(rows: &[PatternRow]) -> String {
    let base = rows.iter().find(|r| r.pattern == Pattern::Row).map_or(1.0, |r| r.cycles_per_access);
    let mut out = String::from("pattern           conflict degree (model)   cycles per warp load   relative to row\n");
    for r in rows {
        out.push_str(&format!(
            "{:<17} {:>23}   {:>20.2}   {:>15.1}x\n",
            r.pattern.name(),
            format!("{}-way", r.degree),
            r.cycles_per_access,
            r.cycles_per_access / base
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_sums_are_exact_and_differ_by_pattern() {
        // The most rounds allowed keep every partial sum under 2^24.
        let row = expected_sum(kernels_gpu::labs::banks::ROW, 3, MAX_ROUNDS);
        let column = expected_sum(kernels_gpu::labs::banks::COLUMN, 3, MAX_ROUNDS);
        assert_ne!(row, column);
        assert_eq!(row, row.round());
        // Broadcast: every lane reads word k, so the sum does not depend on the lane.
        let b = kernels_gpu::labs::banks::BROADCAST;
        assert_eq!(expected_sum(b, 0, 8), expected_sum(b, 31, 8));
    }
}
