//! What the ladder needs to know about an element type: how A and B are
//! stored on the GPU, how random inputs and their f64 reference are made,
//! and which cuBLAS GEMM is the baseline. C is fp32 for every type.
//!
//! The SGEMM ladder's type is `f32` (see [`super::sgemm`]), the BF16
//! ladder's `half::bf16` (see [`super::bf16`]).

use super::accuracy::Arithmetic;
use super::check::Reference;
use super::cublas::Cublas;
use super::dtype::Dtype;
use crate::device::Gpu;
use crate::error::Result;
use cust::memory::{DeviceBuffer, DeviceCopy};

/// An element type of A and B.
pub trait Element: Sized + 'static {
    /// What A and B hold on the GPU (bf16 as its 16-bit patterns).
    type Bits: DeviceCopy;
    /// Random inputs on the host, and what the reference is computed from.
    type Problem;
    const DTYPE: Dtype;
    /// The arithmetic of this type's GEMMs unless a kernel says otherwise
    /// ([`super::rung::RungKernel::arithmetic`]): it sets the error bound.
    const ARITHMETIC: Arithmetic;
    /// The baseline's cuBLAS call, for the table's kernel column.
    const CUBLAS_CALL: &'static str;

    /// Random A (M×K) and B (K×N) from `seed`, for `C = A·B`.
    fn random(size: (u32, u32, u32), seed: u64) -> Self::Problem;

    /// The problem's sizes, scalars and host arrays, to upload.
    fn inputs(problem: &Self::Problem) -> Inputs<'_, Self>;

    /// The f64 reference for `rows` of C, with this type's error bound.
    fn reference(problem: &Self::Problem, rows: Vec<u32>) -> Reference;

    /// Enqueues cuBLAS's GEMM at this type on `args`.
    fn cublas(cublas: &Cublas, args: &Args<Self>) -> Result<()>;

    /// The baseline row's title, from cuBLAS's version ("cuBLAS 13.1.0").
    fn cublas_title(version: &str) -> String;

    /// Library rows shown beside the baseline for reference.
    fn references(cublas: &Cublas) -> Vec<Library<'_, Self>>;
}

/// One GEMM's host data: `C = alpha·A·B + beta·C`.
pub struct Inputs<'a, E: Element> {
    pub size: (u32, u32, u32),
    pub alpha: f32,
    pub beta: f32,
    pub a: &'a [E::Bits],
    pub b: &'a [E::Bits],
    /// C before the call (read only when beta != 0).
    pub c: &'a [f32],
}

/// The device buffers of one GEMM, as kernel arguments:
/// `C = alpha·A·B + beta·C`.
pub struct Args<'a, E: Element> {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub alpha: f32,
    pub a: &'a DeviceBuffer<E::Bits>,
    pub b: &'a DeviceBuffer<E::Bits>,
    pub beta: f32,
    pub c: &'a DeviceBuffer<f32>,
}

/// Something that computes the GEMM on a ladder's buffers: a rung's kernel
/// (set up for them) or a library call. It only enqueues work on
/// [`Gpu::stream`], so it can be timed.
pub trait Gemm<E: Element> {
    fn run(&self, gpu: &Gpu, args: &Args<E>) -> Result<()>;
}

impl<E: Element> Gemm<E> for Cublas {
    fn run(&self, _gpu: &Gpu, args: &Args<E>) -> Result<()> {
        E::cublas(self, args)
    }
}

/// A library GEMM shown for reference beside the baseline (not a rung).
pub struct Library<'a, E: Element> {
    pub title: String,
    /// The call, for the kernel column.
    pub call: &'static str,
    /// The arithmetic its error bound follows, when not the ladder's.
    pub arithmetic: Option<Arithmetic>,
    pub gemm: Box<dyn Gemm<E> + 'a>,
}
