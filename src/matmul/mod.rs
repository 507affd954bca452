//! `host matmul`: the SGEMM ladder against cuBLAS.

pub mod autotune;
pub mod check;
pub mod cpu;
pub mod cublas;
pub mod ladder;
pub mod report;
pub mod rungs;
