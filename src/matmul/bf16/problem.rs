//! Random bf16 inputs and their f64 reference.
//!
//! The inputs are drawn like the SGEMM ladder's (uniform in [-1, 1)) and
//! rounded to the nearest bf16. The reference multiplies exactly those
//! rounded values in f64, so it measures only what the kernel adds: the
//! error of fp32 accumulation, not the rounding of the inputs.

use crate::matmul::accuracy::Arithmetic;
use crate::matmul::check::{self, Problem, Reference};
use half::bf16;

/// One BF16 GEMM `C = A·B`: sizes and the inputs' 16-bit patterns.
pub struct Bf16Problem {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a: Vec<u16>,
    pub b: Vec<u16>,
}

impl Bf16Problem {
    /// Random A (M×K) and B (K×N), rounded to bf16 (nearest, ties to even).
    pub fn random(size: (u32, u32, u32), seed: u64) -> Bf16Problem {
        let p = Problem::random(size, 1.0, 0.0, seed);
        Bf16Problem { m: p.m, n: p.n, k: p.k, a: to_bf16(&p.a), b: to_bf16(&p.b) }
    }

    /// The same product over f32 copies of the bf16 values (exact: every
    /// bf16 number is an f32 number).
    pub fn widened(&self) -> Problem {
        Problem { m: self.m, n: self.n, k: self.k, alpha: 1.0, beta: 0.0, a: widen(&self.a), b: widen(&self.b), c: Vec::new() }
    }
}

/// `values` rounded to bf16, as bit patterns.
pub fn to_bf16(values: &[f32]) -> Vec<u16> {
    values.iter().map(|&x| bf16::from_f32(x).to_bits()).collect()
}

/// bf16 bit patterns as f32 values.
pub fn widen(bits: &[u16]) -> Vec<f32> {
    bits.iter().map(|&b| bf16::from_bits(b).to_f32()).collect()
}

/// The f64 reference for `rows` of C, checking tensor-core arithmetic.
pub fn reference(problem: &Bf16Problem, rows: Vec<u32>) -> Reference {
    check::reference(&problem.widened(), rows).for_arithmetic(Arithmetic::Bf16TensorCore)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::check::{reference_rows, verdict};

    #[test]
    fn rounding_to_bf16_is_to_nearest_even() {
        let eps = 2f32.powi(-7); // bf16's spacing just above 1
        let bits = to_bf16(&[1.0, 1.0 + eps / 2.0, 1.0 + 1.5 * eps, 1.0 + 0.6 * eps, -2.5, 0.1]);
        let back = widen(&bits);
        assert_eq!(&back[..5], &[1.0, 1.0, 1.0 + 2.0 * eps, 1.0 + eps, -2.5]);
        assert!((back[5] - 0.1).abs() <= 0.1 * 2f32.powi(-9), "{}", back[5]);
        assert_eq!(bits[0], 0x3f80);
    }

    #[test]
    fn inputs_are_bf16_exactly_and_seeded() {
        let p = Bf16Problem::random((5, 7, 3), 4);
        assert_eq!((p.a.len(), p.b.len()), (15, 21));
        let widened = p.widened();
        // Widening then rounding again gives the same bits back.
        assert_eq!(to_bf16(&widened.a), p.a);
        assert!(widened.a.iter().chain(&widened.b).all(|x| (-1.0..=1.0).contains(x)));
        assert_eq!(Bf16Problem::random((5, 7, 3), 4).b, p.b);
        assert_ne!(Bf16Problem::random((5, 7, 3), 5).b, p.b);
    }

    /// fp32 accumulation of exact bf16 products passes the BF16 bound with
    /// a wide margin; rounding C to bf16 fails it.
    #[test]
    fn the_bound_tells_fp32_accumulation_from_bf16_rounding() {
        let p = Bf16Problem::random((33, 65, 257), 8);
        let w = p.widened();
        let (m, n, k) = (33, 65, 257);
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|q| w.a[i * k + q] * w.b[q * n + j]).sum();
            }
        }
        let r = reference(&p, reference_rows(33, 65, 257, 1));
        let good = verdict(&r, &c);
        assert!(good.passed() && good.relative_error < 1e-6, "{good:?}");
        let rounded = widen(&to_bf16(&c));
        let bad = verdict(&r, &rounded);
        assert!(!bad.passed() && bad.relative_error > 1e-4, "{bad:?}");
        assert!(bad.describe().contains("its error bound"), "{}", bad.describe());
    }
}
