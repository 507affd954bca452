//! The CPU row of the matmul table: the same SGEMM (row-major,
//! `C = alpha·A·B + beta·C`, fp32) on every CPU core, through the `gemm`
//! crate, checked against the same f64 reference and timed the same way
//! (warm-up, then the median of several runs).
//!
//! `gemm` is the matrix-multiply engine of the `faer` linear-algebra
//! library: hand-vectorised kernels for AVX2/FMA and AVX-512 picked at run
//! time, cache blocking, and rayon threads. It stays close to vendor BLAS
//! in pure Rust, with nothing to install.

use super::check::{Problem, Reference, Verdict, reference, reference_rows, verdict};
use crate::device::Timing;
use std::time::Instant;

/// What the CPU row measured.
#[derive(Clone, Debug)]
pub struct CpuRow {
    pub threads: usize,
    pub verdict: Verdict,
    pub timing: Timing,
    pub gflops: f64,
}

/// `c = alpha·a·b + beta·c` for row-major `a` (m×k), `b` (k×n), `c` (m×n),
/// on `threads` threads.
pub fn sgemm((m, n, k): (u32, u32, u32), alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32], threads: usize) {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n, "matrices smaller than their sizes");
    let parallelism = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    // gemm computes dst = alpha_g·dst + beta_g·lhs·rhs, reading dst only
    // when told to: BLAS's beta is its alpha and BLAS's alpha its beta.
    // Row-major: a row step of the row length, a column step of 1.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            beta != 0.0,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            beta,
            alpha,
            false,
            false,
            false,
            parallelism,
        )
    }
}

/// Runs the CPU SGEMM on the same random problem the ladder uses (same
/// seed, so the same A and B), checks it against the f64 reference rows,
/// and times it: one warm-up, then `reps` runs (None: enough for about ten
/// seconds, between 1 and 10).
pub fn run(size: (u32, u32, u32), seed: u64, reps: Option<u32>, progress: &mut dyn FnMut(&str)) -> CpuRow {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let problem = Problem::random(size, 1.0, 0.0, seed);
    progress(&format!("CPU SGEMM on {threads} threads (gemm crate)"));
    let (checked, once) = checked_run(&problem, threads, seed);
    let reps = reps.unwrap_or_else(|| (10.0 / once.max(1e-3)).clamp(1.0, 10.0) as u32);
    let mut c = vec![0.0f32; size.0 as usize * size.1 as usize];
    let mut runs = Vec::new();
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        sgemm(size, problem.alpha, &problem.a, &problem.b, problem.beta, &mut c, threads);
        runs.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let timing = Timing::from_runs(runs);
    CpuRow { threads, verdict: checked, gflops: timing.billions_per_second(problem.flops()), timing }
}

/// The checked run (which is also the warm-up): C poisoned with NaN, then
/// compared with the f64 reference. Returns the verdict and its seconds.
fn checked_run(problem: &Problem, threads: usize, seed: u64) -> (Verdict, f64) {
    let (m, n, k) = (problem.m, problem.n, problem.k);
    let mut c = vec![f32::NAN; m as usize * n as usize];
    let start = Instant::now();
    sgemm((m, n, k), problem.alpha, &problem.a, &problem.b, problem.beta, &mut c, threads);
    let seconds = start.elapsed().as_secs_f64();
    let reference: Reference = reference(problem, reference_rows(m, n, k, seed ^ 0x7e57));
    (verdict(&reference, &c), seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_sgemm_matches_the_reference_with_alpha_and_beta() {
        for (size, alpha, beta) in [((1, 1, 1), 1.0, 0.0), ((17, 33, 9), 1.5, 0.0), ((255, 257, 129), 0.5, -2.0), ((64, 3, 100), 1.0, 1.0)]
        {
            let problem = Problem::random(size, alpha, beta, 9);
            let reference = reference(&problem, (0..size.0).collect());
            for threads in [1, 2] {
                let mut c = if beta == 0.0 { vec![f32::NAN; (size.0 * size.1) as usize] } else { problem.c.clone() };
                sgemm(size, alpha, &problem.a, &problem.b, beta, &mut c, threads);
                let v = verdict(&reference, &c);
                assert!(v.passed(), "{size:?} alpha {alpha} beta {beta} on {threads} threads: {}", v.describe());
            }
        }
    }

    #[test]
    fn the_row_is_checked_and_timed() {
        let row = run((40, 30, 20), 5, Some(2), &mut |_| {});
        assert!(row.verdict.passed(), "{}", row.verdict.describe());
        assert_eq!(row.timing.runs, 2);
        assert!(row.gflops > 0.0 && row.threads >= 1);
    }
}
