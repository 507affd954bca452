//! `ptx-ladder matmul --dtype bf16`: the BF16 ladder. Inputs are bf16, sums and
//! C are fp32; every rung is checked against an f64 reference over the same
//! bf16 values and timed beside cuBLAS's BF16 GEMM, in the same table, JSON
//! and chart as the SGEMM ladder.
//!
//! - [`problem`]: random bf16 inputs and the reference;
//! - [`rungs`]: the rung table, including what a rung needs (GPU
//!   architecture, shape) and how it sets up its launches;
//! - [`ladder`]: device buffers, checking, timing and the report.

pub mod ladder;
pub mod problem;
pub mod rungs;
