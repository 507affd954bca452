//! Is a GEMM result right? Random inputs, an f64 reference computed on the
//! CPU, and every element compared with its own error bound, derived from
//! the arithmetic that computed it and from K ([`super::accuracy`]). The
//! table shows the norm-wise relative error `||C - Cref|| / ||Cref||`.
//!
//! For big problems the reference covers a random sample of rows (always
//! including the first and the last, where edge tiles live); every element
//! of C is still checked for NaN, which also catches elements the kernel
//! never wrote (outputs are poisoned with NaN before each run).

use super::accuracy::{Arithmetic, ElementTerms};
use crate::inputs::{rng, uniform};
use rand::RngExt as _;

/// Multiply-adds the f64 reference may spend; beyond that, rows are sampled.
const REFERENCE_BUDGET: u64 = 1 << 28;

/// Elements the reference may hold (24 bytes each with their bound terms).
const REFERENCE_ELEMENTS: u64 = 1 << 23;

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
    /// Per element, what its error bound is made of.
    pub terms: Vec<ElementTerms>,
    /// The arithmetic the result is checked for ([`Reference::for_arithmetic`]).
    pub arithmetic: Arithmetic,
}

impl Reference {
    /// The same reference, checking results computed in `arithmetic`.
    pub fn for_arithmetic(&self, arithmetic: Arithmetic) -> Reference {
        Reference { arithmetic, ..self.clone() }
    }
}

/// Rows the reference covers: all of them for small problems, else a
/// random sample that always includes the first and last row.
pub fn reference_rows(m: u32, n: u32, k: u32, seed: u64) -> Vec<u32> {
    let per_row = (n as u64 * k as u64).max(1);
    let budget_rows = (REFERENCE_BUDGET / per_row).min(REFERENCE_ELEMENTS / (n as u64).max(1)).max(8);
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

/// Computes the reference rows in f64, spread over the CPU's cores, with
/// what each element's error bound needs ([`ElementTerms`]): the running sum
/// of |partial sums| and the sum of |products|, in the same pass.
pub fn reference(problem: &Problem, rows: Vec<u32>) -> Reference {
    let (n, k) = (problem.n as usize, problem.k as usize);
    let mut values = vec![0.0f64; rows.len() * n];
    let mut terms = vec![ElementTerms::default(); rows.len() * n];
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get()).min(rows.len().max(1));
    let chunk = rows.len().div_ceil(workers).max(1);
    let (alpha, beta) = (problem.alpha as f64, problem.beta as f64);
    std::thread::scope(|scope| {
        for ((row_chunk, out_chunk), terms_chunk) in rows.chunks(chunk).zip(values.chunks_mut(chunk * n)).zip(terms.chunks_mut(chunk * n)) {
            scope.spawn(move || {
                let mut acc = vec![0.0f64; n];
                let mut running = vec![0.0f64; n];
                let mut products = vec![0.0f64; n];
                for ((&row, out), out_terms) in row_chunk.iter().zip(out_chunk.chunks_mut(n)).zip(terms_chunk.chunks_mut(n)) {
                    for v in [&mut acc, &mut running, &mut products] {
                        v.iter_mut().for_each(|x| *x = 0.0);
                    }
                    let a_row = &problem.a[row as usize * k..][..k];
                    for (p, &a_rp) in a_row.iter().enumerate() {
                        let b_row = &problem.b[p * n..][..n];
                        for (((x, r), q), &b_pj) in acc.iter_mut().zip(&mut running).zip(&mut products).zip(b_row) {
                            let term = a_rp as f64 * b_pj as f64;
                            *x += term;
                            *r += x.abs();
                            *q += term.abs();
                        }
                    }
                    for (j, (o, t)) in out.iter_mut().zip(out_terms).enumerate() {
                        let old = if problem.beta == 0.0 { 0.0 } else { problem.c[row as usize * n + j] as f64 };
                        *o = alpha * acc[j] + beta * old;
                        *t = ElementTerms {
                            running: alpha.abs() * running[j] + (alpha * acc[j]).abs() + (beta * old).abs(),
                            products: alpha.abs() * products[j],
                        };
                    }
                }
            });
        }
    });
    Reference { rows, values, terms, n: problem.n, arithmetic: Arithmetic::Fp32 }
}

/// Where a result is furthest outside (or closest to) its bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    pub row: u32,
    pub col: u32,
    pub got: f64,
    pub want: f64,
    /// The element's bound on `|got - want|`.
    pub bound: f64,
}

impl Worst {
    /// `|got - want|` over the bound: at most 1 for a correct element.
    pub fn ratio(&self) -> f64 {
        let error = (self.got - self.want).abs();
        if error.is_nan() { f64::INFINITY } else { error / self.bound }
    }
}

/// How a computed C compares with the reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// `||C - Cref|| / ||Cref||` over the reference rows: the error column.
    pub relative_error: f64,
    /// Elements of the whole C that are NaN (unwritten poison included).
    pub nan_count: usize,
    /// The reference element with the largest error relative to its own
    /// bound (None when no element was compared).
    pub worst: Option<Worst>,
}

impl Verdict {
    /// A verdict that passed with this error (for tables made without a GPU).
    pub fn passing(relative_error: f64) -> Verdict {
        Verdict { relative_error, nan_count: 0, worst: None }
    }

    /// A verdict that failed with this error (for tests of the tables).
    #[cfg(test)]
    pub(crate) fn failing(relative_error: f64) -> Verdict {
        let worst = Worst { row: 0, col: 0, got: 1.0, want: 0.0, bound: 1e-6 };
        Verdict { relative_error, nan_count: 0, worst: Some(worst) }
    }

    /// The largest error over bound among the reference elements.
    pub fn worst_ratio(&self) -> f64 {
        self.worst.map_or(0.0, |w| w.ratio())
    }

    pub fn passed(&self) -> bool {
        self.nan_count == 0 && self.worst_ratio() <= 1.0
    }

    /// "ok" or what failed, in words.
    pub fn describe(&self) -> String {
        let plural = if self.nan_count == 1 { "element" } else { "elements" };
        match self.worst {
            _ if self.nan_count > 0 => format!("{} {plural} NaN or never written", self.nan_count),
            Some(w) if w.ratio() > 1.0 => format!(
                "C[{}][{}] = {:.6e}, expected {:.6e}: off by {:.2e}, {:.1}x its error bound {:.2e} (relative error {:.2e})",
                w.row,
                w.col,
                w.got,
                w.want,
                (w.got - w.want).abs(),
                w.ratio(),
                w.bound,
                self.relative_error
            ),
            _ => "ok".into(),
        }
    }
}

/// Compares a full computed C with the reference: every element against its
/// own bound, and the norm-wise relative error for the table.
pub fn verdict(reference: &Reference, c: &[f32]) -> Verdict {
    let n = reference.n as usize;
    let nan_count = c.iter().filter(|x| x.is_nan()).count();
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    let mut worst: Option<Worst> = None;
    let rows = reference.values.chunks(n.max(1)).zip(reference.terms.chunks(n.max(1)));
    for (&row, (expected, terms)) in reference.rows.iter().zip(rows) {
        for (col, ((&got, &want), &t)) in c[row as usize * n..][..n].iter().zip(expected).zip(terms).enumerate() {
            let d = got as f64 - want;
            diff += d * d;
            norm += want * want;
            let here = Worst { row, col: col as u32, got: got as f64, want, bound: reference.arithmetic.bound(t) };
            if worst.is_none_or(|w| here.ratio() > w.ratio()) {
                worst = Some(here);
            }
        }
    }
    let relative_error = if norm > 0.0 {
        (diff / norm).sqrt()
    } else if diff > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    Verdict { relative_error: if relative_error.is_nan() { f64::INFINITY } else { relative_error }, nan_count, worst }
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
                    acc = p.a[i * k + q].mul_add(p.b[q * n + j], acc);
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
        assert!(v.describe().starts_with("C[7][7] = "), "{}", v.describe());
    }

    #[test]
    fn unwritten_poison_fails_even_outside_the_sample() {
        let p = Problem::random((4, 4, 4), 1.0, 0.0, 5);
        let reference = Reference { rows: vec![0], ..reference(&p, vec![0]) };
        let mut c = naive_f32(&p);
        c[15] = f32::from_bits(crate::device::POISON_BITS);
        let v = verdict(&reference, &c);
        assert_eq!(v.nan_count, 1);
        assert_eq!(v.describe(), "1 element NaN or never written");
    }

    #[test]
    fn big_problems_sample_rows_including_the_edges() {
        let rows = reference_rows(4096, 4096, 4096, 9);
        assert!(rows.len() >= 8 && rows.len() <= 16, "{}", rows.len());
        assert_eq!((rows[0], *rows.last().unwrap()), (0, 4095));
        assert_eq!(reference_rows(100, 100, 100, 9).len(), 100);
    }

    /// A tensor core's sum, modelled: each group of 16 exact products is
    /// added to the fp32 accumulator and the result truncated toward zero.
    fn truncated_groups_of_16(p: &Problem) -> Vec<f32> {
        let (m, n, k) = (p.m as usize, p.n as usize, p.k as usize);
        let truncate = |x: f64| {
            let y = x as f32;
            if (y as f64).abs() > x.abs() { f32::from_bits(y.to_bits() - 1) } else { y }
        };
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0.0f32;
                for group in (0..k).step_by(16) {
                    let sum: f64 = (group..k.min(group + 16)).map(|q| p.a[i * k + q] as f64 * p.b[q * n + j] as f64).sum();
                    acc = truncate(acc as f64 + sum);
                }
                c[i * n + j] = acc;
            }
        }
        c
    }

    /// The K of the odd-shape tests, up to the deep-K case.
    const DEPTHS: [u32; 8] = [1, 7, 8, 17, 255, 1000, 4097, 65536];

    /// Correct arithmetic passes at every depth; a result missing one
    /// 16-deep k-tile, one row or one column fails at every depth.
    #[test]
    fn the_bound_grows_with_k_yet_catches_missing_work() {
        for k in DEPTHS {
            let (m, n) = (8, 16);
            let p = Problem::random((m, n, k), 1.0, 0.0, k as u64);
            let fp32 = reference(&p, reference_rows(m, n, k, 1));
            let good = naive_f32(&p);
            let v = verdict(&fp32, &good);
            assert!(v.passed(), "fp32 at K = {k}: {}", v.describe());

            let bf16 = crate::matmul::bf16::problem::Bf16Problem::random((m, n, k), k as u64).widened();
            let tensor = reference(&bf16, reference_rows(m, n, k, 1)).for_arithmetic(Arithmetic::Bf16TensorCore);
            let v = verdict(&tensor, &truncated_groups_of_16(&bf16));
            assert!(v.passed(), "truncated sums at K = {k}: {}", v.describe());

            let tile = 16.min(k);
            let first = (k / 2) / tile * tile;
            let skipped = Problem {
                a: (0..m * k).map(|i| if (first..first + tile).contains(&(i % k)) { 0.0 } else { p.a[i as usize] }).collect(),
                ..Problem::random((m, n, k), 1.0, 0.0, k as u64)
            };
            let v = verdict(&fp32, &naive_f32(&skipped));
            assert!(!v.passed(), "a missing k-tile passed at K = {k}: {v:?}");

            let mut no_row = good.clone();
            no_row[3 * n as usize..4 * n as usize].fill(0.0);
            assert!(!verdict(&fp32, &no_row).passed(), "a missing row passed at K = {k}");
            let mut no_column = good.clone();
            no_column.iter_mut().skip(5).step_by(n as usize).for_each(|x| *x = 0.0);
            assert!(!verdict(&fp32, &no_column).passed(), "a missing column passed at K = {k}");
        }
    }

    #[test]
    fn beta_zero_does_not_read_c() {
        let p = Problem::random((3, 5, 7), 2.0, 0.0, 11);
        assert!(p.c.is_empty());
        let r = reference(&p, vec![0, 1, 2]);
        assert!(verdict(&r, &naive_f32(&p)).passed());
    }
}
