//! `ptx-ladder matmul`: the SGEMM ladder and the BF16 ladder against cuBLAS.
//!
//! One ladder machinery serves both element types:
//! - [`element`]: what the ladder needs of an element type (inputs, the
//!   reference, the cuBLAS baseline), the GEMM arguments and [`element::Gemm`];
//! - [`buffers`]: A, B and C on the GPU;
//! - [`rung`]: a rung (its kernel, module, shape limits and set-up), a
//!   ladder's rungs and the `--rungs` selector;
//! - [`ladder`]: preparing the inputs, checking and timing, the run;
//! - [`sgemm`], [`bf16`]: the two ladders' element types and rungs;
//! - [`hopper`]: the prepared GEMMs of the sm_90a module; [`fitted`]: the
//!   BF16 rung that picks its tile shape per shape; [`padded`]: a BF16
//!   Hopper rung run on copies of A, B and C padded to whole 16-byte rows;
//! - [`check`], [`cublas`], [`report`], [`autotune`], [`cpu`]: the f64
//!   check, the baseline, the output, rung 8's search and the CPU row.

pub mod accuracy;
pub mod auto;
pub mod autotune;
pub mod bf16;
pub mod buffers;
pub mod check;
pub mod cpu;
pub mod cublas;
pub mod dtype;
pub mod element;
pub mod fitted;
pub mod hopper;
pub mod ladder;
pub mod padded;
pub mod report;
pub mod rung;
pub mod sgemm;
pub mod small_m;
