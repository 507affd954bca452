//! Is a GEMM result right? Random inputs, an f64 reference computed on the
//! CPU, and the norm-wise relative error `||C - Cref|| / ||Cref||`.
//!
//! For big problems the reference covers a random sample of rows (always
//! including the first and the last, where edge tiles live); every element
//! of C is still checked for NaN, which also catches elements the kernel
//! never wrote (outputs are poisoned with NaN before each run).

use crate::inputs::{rng, uniform};
use rand::RngExt as _;

/// Largest error accepted for an fp32 GEMM against the f64 reference.
pub const TOLERANCE: f64 = 1e-5;

/// Multiply-adds the f64 reference may spend; beyond that, rows are sampled.
const REFERENCE_BUDGET: u64 = 1 << 28;

/// One GEMM to run: sizes, scalars and random inputs.
pub struct Problem {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub alpha: f32,
    pub beta: f32,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    /// C before the call (read only when beta != 0).
    pub c: Vec<f32>,
}

impl Problem {
    /// Random A, B and C in [-1, 1).
    pub fn random((m, n, k): (u32, u32, u32), alpha: f32, beta: f32, seed: u64) -> Problem {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        Problem {
            m,
            n,
            k,
            alpha,
            beta,
            a: uniform(mu * ku, seed),
            b: uniform(ku * nu, seed ^ 0x0005_eedb),
            c: if beta == 0.0 { Vec::new() } else { uniform(mu * nu, seed ^ 0x0005_eedc) },
        }
    }

    /// FLOPs of the product: 2·M·N·K.
    pub fn flops(&self) -> f64 {
        gemm_flops((self.m, self.n, self.k))
    }
}

/// FLOPs of an `m`×`n`×`k` GEMM: 2·M·N·K (a multiply and an add per term).
pub fn gemm_flops((m, n, k): (u32, u32, u32)) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// The f64 reference for some rows of C.
#[derive(Clone)]
pub struct Reference {
    pub rows: Vec<u32>,
    /// `rows.len()` × n values, row by row.
    pub values: Vec<f64>,
    pub n: u32,
    /// Largest relative error a correct result may have ([`TOLERANCE`] for
    /// fp32; the BF16 ladder and reduced-precision baselines set their own).
    pub tolerance: f64,
}

/// Rows the reference covers: all of them for small problems, else a
/// random sample that always includes the first and last row.
pub fn reference_rows(m: u32, n: u32, k: u32, seed: u64) -> Vec<u32> {
    let per_row = (n as u64 * k as u64).max(1);
    let budget_rows = (REFERENCE_BUDGET / per_row).max(8);
    if budget_rows >= m as u64 {
        return (0..m).collect();
    }
    let mut rng = rng(seed);
    let mut rows: Vec<u32> = (0..budget_rows - 2).map(|_| rng.random_range(0..m)).collect();
    rows.extend([0, m - 1]);
    rows.sort_unstable();
    rows.dedup();
    rows
}

/// Computes the reference rows in f64, spread over the CPU's cores.
pub fn reference(problem: &Problem, rows: Vec<u32>) -> Reference {
    let (n, k) = (problem.n as usize, problem.k as usize);
    let mut values = vec![0.0f64; rows.len() * n];
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get()).min(rows.len().max(1));
    let chunk = rows.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        for (row_chunk, out_chunk) in rows.chunks(chunk).zip(values.chunks_mut(chunk * n)) {
            scope.spawn(move || {
                let mut acc = vec![0.0f64; n];
                for (&row, out) in row_chunk.iter().zip(out_chunk.chunks_mut(n)) {
                    acc.iter_mut().for_each(|x| *x = 0.0);
                    let a_row = &problem.a[row as usize * k..][..k];
                    for (p, &a_rp) in a_row.iter().enumerate() {
                        let b_row = &problem.b[p * n..][..n];
                        for (x, &b_pj) in acc.iter_mut().zip(b_row) {
                            *x += a_rp as f64 * b_pj as f64;
                        }
                    }
                    for (j, (o, &x)) in out.iter_mut().zip(&acc).enumerate() {
                        let old = if problem.beta == 0.0 { 0.0 } else { problem.c[row as usize * n + j] as f64 };
                        *o = problem.alpha as f64 * x + problem.beta as f64 * old;
                    }
                }
            });
        }
    });
    Reference { rows, values, n: problem.n, tolerance: TOLERANCE }
}

/// How a computed C compares with the reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// `||C - Cref|| / ||Cref||` over the reference rows.
    pub relative_error: f64,
    /// Elements of the whole C that are NaN (unwritten poison included).
    pub nan_count: usize,
    /// The bound `relative_error` must not exceed.
    pub tolerance: f64,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.nan_count == 0 && self.relative_error <= self.tolerance
    }

    /// "ok" or what failed, in words.
    pub fn describe(&self) -> String {
        if self.nan_count > 0 {
            format!("{} elements NaN or never written", self.nan_count)
        } else if self.relative_error > self.tolerance {
            format!("relative error {:.2e} > {:.0e}", self.relative_error, self.tolerance)
        } else {
            "ok".into()
        }
    }
}

/// Compares a full computed C with the reference.
pub fn verdict(reference: &Reference, c: &[f32]) -> Verdict {
    let n = reference.n as usize;
    let nan_count = c.iter().filter(|x| x.is_nan()).count();
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&row, expected) in reference.rows.iter().zip(reference.values.chunks(n.max(1))) {
        for (&got, &want) in c[row as usize * n..][..n].iter().zip(expected) {
            let d = got as f64 - want;
            diff += d * d;
            norm += want * want;
        }
    }
    let relative_error = if norm > 0.0 {
        (diff / norm).sqrt()
    } else if diff > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    Verdict {
        relative_error: if relative_error.is_nan() { f64::INFINITY } else { relative_error },
        nan_count,
        tolerance: reference.tolerance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain f32 triple loop, for checking the checker.
    fn naive_f32(p: &Problem) -> Vec<f32> {
        let (m, n, k) = (p.m as usize, p.n as usize, p.k as usize);
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0.0f32;
                for q in 0..k {
                    acc += p.a[i * k + q] * p.b[q * n + j];
                }
                let old = if p.beta == 0.0 { 0.0 } else { p.beta * p.c[i * n + j] };
                c[i * n + j] = p.alpha * acc + old;
            }
        }
        c
    }

    #[test]
    fn a_correct_fp32_product_passes() {
        let p = Problem::random((17, 33, 9), 1.5, -0.5, 1);
        let reference = reference(&p, reference_rows(p.m, p.n, p.k, 2));
        assert_eq!(reference.rows.len(), 17);
        let v = verdict(&reference, &naive_f32(&p));
        assert!(v.passed(), "{v:?}");
        assert!(v.relative_error < 1e-6);
    }

    #[test]
    fn one_wrong_element_fails() {
        let p = Problem::random((8, 8, 8), 1.0, 0.0, 3);
        let reference = reference(&p, reference_rows(8, 8, 8, 4));
        let mut c = naive_f32(&p);
        c[63] += 0.5;
        let v = verdict(&reference, &c);
        assert!(!v.passed());
        assert!(v.describe().starts_with("relative error"));
    }

    #[test]
    fn unwritten_poison_fails_even_outside_the_sample() {
        let p = Problem::random((4, 4, 4), 1.0, 0.0, 5);
        let reference = Reference { rows: vec![0], ..reference(&p, vec![0]) };
        let mut c = naive_f32(&p);
        c[15] = f32::from_bits(crate::device::POISON_BITS);
        let v = verdict(&reference, &c);
        assert_eq!(v.nan_count, 1);
        assert_eq!(v.describe(), "1 elements NaN or never written");
    }

    #[test]
    fn big_problems_sample_rows_including_the_edges() {
        let rows = reference_rows(4096, 4096, 4096, 9);
        assert!(rows.len() >= 8 && rows.len() <= 16, "{}", rows.len());
        assert_eq!((rows[0], *rows.last().unwrap()), (0, 4095));
        assert_eq!(reference_rows(100, 100, 100, 9).len(), 100);
    }

    #[test]
    fn beta_zero_does_not_read_c() {
        let p = Problem::random((3, 5, 7), 2.0, 0.0, 11);
        assert!(p.c.is_empty());
        let r = reference(&p, vec![0, 1, 2]);
        assert!(verdict(&r, &naive_f32(&p)).passed());
    }
}
