//! How far a correct GEMM may be from the exact result: a bound for every
//! element, derived from the arithmetic that computed it.
//!
//! A fixed bound on the relative error cannot serve every K. Each of the K
//! additions into an accumulator rounds, so the error grows with K, and a
//! bound loose enough for K = 65536 would let a kernel that skips a whole
//! k-tile pass at K = 64. The bound here follows the running error bound
//! for a sum computed term by term: if `s_k` is the partial sum after `k`
//! terms, and every addition rounds its result `s_k` by at most `u·|s_k|`,
//! then the computed sum is off by at most `u·Σ_k |s_k|`. The reference
//! computes `Σ_k |s_k|` exactly (in f64, in the same pass as the product),
//! so the bound grows with K and with the size of the numbers, and is tight
//! enough that a missing k-tile, row or column still fails at any K.
//!
//! What `u` is depends on the arithmetic ([`Arithmetic`]):
//! - fp32 rounds to nearest: `u = 2^-24` per addition, and as much again
//!   per product unless multiply and add are fused (FMA);
//! - a tensor core's fp32 accumulator truncates (rounds toward zero) when
//!   it adds a group of products: up to one unit in the last place,
//!   `u = 2^-23`, and the error always has the same sign, so it grows
//!   linearly in K rather than as √K;
//! - TF32 and 3xTF32 also round the inputs: a product term with a relative
//!   error of its own, `Σ_k |a_k·b_k|` times that error.
//!
//! The bound is rigorous for an accumulator that adds the terms in k order.
//! A kernel that sums K in pieces (split-K; the small-M kernel's steps of 8
//! products; the swapped tiles' totals of fresh tensor-core accumulators)
//! or as a tree rounds smaller partial sums, so for inputs without
//! engineered cancellation (the ladder's are random) the in-order bound
//! covers it too. A factor [`MARGIN`] of 2 covers the final
//! scaling by alpha and beta and the few roundings outside the k loop.

/// Unit roundoff of fp32 with round-to-nearest: half the spacing above 1.
pub const FP32_ROUND: f64 = 1.0 / (1u64 << 24) as f64;

/// A truncating fp32 adder's worst error: a whole spacing.
pub const FP32_TRUNCATE: f64 = 1.0 / (1u64 << 23) as f64;

/// Slack over the running bound (see the module documentation).
pub const MARGIN: f64 = 2.0;

/// The arithmetic a GEMM computes in, as far as its rounding goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    /// fp32 inputs, fp32 multiply-adds rounded to nearest, fused or not
    /// (the FP32-pipe rungs, cuBLAS SGEMM, the CPU row).
    Fp32,
    /// bf16 inputs (their products are exact in fp32) summed by a tensor
    /// core's truncating fp32 accumulator (every BF16 rung, cuBLAS BF16).
    Bf16TensorCore,
    /// fp32 inputs split into two TF32 parts, three TF32 products per term
    /// on tensor cores (rungs 11 and 12).
    Tf32x3,
    /// fp32 inputs rounded to TF32 (10 mantissa bits) on tensor cores
    /// (cuBLAS's TF32 reference row).
    Tf32,
}

impl Arithmetic {
    /// Largest relative rounding of one addition into the accumulator, per
    /// term of the k loop.
    pub fn sum_unit(self) -> f64 {
        match self {
            Arithmetic::Fp32 => FP32_ROUND,
            Arithmetic::Bf16TensorCore | Arithmetic::Tf32 => FP32_TRUNCATE,
            // Three products, so three additions, per term.
            Arithmetic::Tf32x3 => 3.0 * FP32_TRUNCATE,
        }
    }

    /// Largest relative error of one product term before it is added.
    pub fn product_unit(self) -> f64 {
        match self {
            // Rounded once unless fused into an FMA.
            Arithmetic::Fp32 => FP32_ROUND,
            // bf16 × bf16 (8 significant bits each) fits fp32's 24 bits.
            Arithmetic::Bf16TensorCore => 0.0,
            // Each input rounded to TF32 (11 significant bits, error
            // 2^-11 of itself): the product is off by about 2^-10.
            Arithmetic::Tf32 => 1.0 / 1024.0,
            // The big parts carry 11 bits, the small parts the next 11
            // (rounded at 2^-22), and small × small is dropped (2^-22):
            // three errors of about 2^-22 each, under 2^-20.
            Arithmetic::Tf32x3 => 1.0 / (1u64 << 20) as f64,
        }
    }

    /// The bound for one element from its reference terms: `running` is
    /// `Σ_k |s_k|` (plus the final scaling, see [`ElementTerms`]),
    /// `products` is `Σ_k |a_k·b_k|`.
    pub fn bound(self, terms: ElementTerms) -> f64 {
        MARGIN * (self.sum_unit() * terms.running + self.product_unit() * terms.products) + f64::MIN_POSITIVE
    }

    /// In words, for the table's notes.
    pub fn describe(self) -> &'static str {
        match self {
            Arithmetic::Fp32 => "fp32 multiply-adds, rounded to nearest",
            Arithmetic::Bf16TensorCore => "exact bf16 products, truncating fp32 tensor-core sums",
            Arithmetic::Tf32x3 => "3xTF32 products, truncating fp32 tensor-core sums",
            Arithmetic::Tf32 => "TF32-rounded inputs, truncating fp32 tensor-core sums",
        }
    }
}

/// What the reference records per element to bound its error, already
/// scaled by |alpha|.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ElementTerms {
    /// `|alpha|·Σ_k |s_k| + |alpha·s_K| + |beta·c|`: the running bound of
    /// the k loop plus the roundings of the scaling and the final add.
    pub running: f64,
    /// `|alpha|·Σ_k |a_k·b_k|`.
    pub products: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_order_the_arithmetics() {
        assert!(Arithmetic::Fp32.sum_unit() < Arithmetic::Bf16TensorCore.sum_unit());
        assert!(Arithmetic::Tf32x3.product_unit() < Arithmetic::Tf32.product_unit());
        assert_eq!(Arithmetic::Bf16TensorCore.product_unit(), 0.0);
        let terms = ElementTerms { running: 100.0, products: 10.0 };
        assert!(Arithmetic::Tf32.bound(terms) > Arithmetic::Tf32x3.bound(terms));
        assert!(Arithmetic::Tf32x3.bound(terms) > Arithmetic::Fp32.bound(terms));
        // Never zero, so an exact zero result passes and a wrong one fails.
        assert!(Arithmetic::Fp32.bound(ElementTerms::default()) > 0.0);
    }
}
