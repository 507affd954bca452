//! `ptx-ladder matmul`: the SGEMM ladder and the BF16 ladder against cuBLAS.

pub mod accuracy;
pub mod auto;
pub mod autotune;
pub mod bf16;
pub mod check;
pub mod cpu;
pub mod cublas;
pub mod dtype;
pub mod hopper;
pub mod ladder;
pub mod report;
pub mod rungs;
