//! The element type of a ladder: fp32 throughout (the SGEMM ladder), or
//! bf16 inputs with fp32 accumulation and fp32 output (the BF16 ladder).

use crate::error::{Error, Result};

/// Which ladder `ptx-ladder matmul` runs (`--dtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F32,
    Bf16,
}

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
    }
}
