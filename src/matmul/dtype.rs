//! The element type of a ladder: fp32 throughout (the SGEMM ladder), or
//! bf16 inputs with fp32 accumulation and fp32 output (the BF16 ladder).

use crate::error::{Error, Result};

/// Which ladder `ptx-ladder matmul` runs (`--dtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F32,
    Bf16,
}

/// Largest relative error accepted from a BF16-input GEMM against the f64
/// reference over the same bf16 values.
///
/// The product of two bf16 numbers (8 significant bits each) is exact in
/// fp32, so every error comes from the fp32 additions: about 1e-6 with
/// round-to-nearest adds. Tensor cores round more coarsely when they add
/// into their accumulator (rung 11 of the SGEMM ladder measured about 2e-8
/// of the running sum per chained `mma`, always toward zero), which at
/// K/16 chained instructions reaches about 1e-5 at K = 8192. The bound
/// leaves room for that and stays far below what any bf16 rounding of the
/// sums or of C would cost (bf16's unit roundoff is 2^-9 ≈ 2e-3).
pub const BF16_TOLERANCE: f64 = 5e-5;

/// Bound for the TF32 reference row (cuBLAS on TF32 tensor cores): TF32
/// keeps 10 of fp32's 23 mantissa bits, so each input is off by up to
/// 2^-11 ≈ 5e-4 of itself; over random inputs the norm-wise error is a few
/// 1e-4.
pub const TF32_TOLERANCE: f64 = 5e-3;

impl Dtype {
    /// `--dtype` values: `f32` (or `fp32`) and `bf16`.
    pub fn parse(text: &str) -> Result<Dtype> {
        match text.to_ascii_lowercase().as_str() {
            "f32" | "fp32" => Ok(Dtype::F32),
            "bf16" => Ok(Dtype::Bf16),
            _ => Err(Error::new(format!("--dtype: '{text}' is not a ladder type (use f32 or bf16)"))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::Bf16 => "bf16",
        }
    }

    /// The ladder's name in titles.
    pub fn ladder(self) -> &'static str {
        match self {
            Dtype::F32 => "SGEMM ladder",
            Dtype::Bf16 => "BF16 ladder",
        }
    }

    /// What the numbers are, for the table's first line.
    pub fn arithmetic(self) -> &'static str {
        match self {
            Dtype::F32 => "fp32",
            Dtype::Bf16 => "bf16 inputs, fp32 accumulation and output",
        }
    }

    /// The relative error a correct result stays within.
    pub fn tolerance(self) -> f64 {
        match self {
            Dtype::F32 => super::check::TOLERANCE,
            Dtype::Bf16 => BF16_TOLERANCE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_parse_and_name_themselves() {
        assert_eq!(Dtype::parse("bf16").unwrap(), Dtype::Bf16);
        assert_eq!(Dtype::parse("FP32").unwrap(), Dtype::F32);
        for d in [Dtype::F32, Dtype::Bf16] {
            assert_eq!(Dtype::parse(d.name()).unwrap(), d);
        }
        assert!(Dtype::parse("fp16").unwrap_err().message().contains("use f32 or bf16"));
        assert!(Dtype::Bf16.tolerance() > Dtype::F32.tolerance());
    }
}
