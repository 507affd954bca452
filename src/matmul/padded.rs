//! BF16 shapes whose rows TMA cannot copy, run on the Hopper rungs all the
//! same: A and B are copied into buffers whose rows are whole 16 bytes,
//! and C back out of one ([`kernels_gpu::gemm::padding`]).
//!
//! A tensor map's rows must start 16 bytes apart, so a BF16 matrix needs
//! a multiple of 8 columns. With K or N one more than such a multiple
//! (4097), the Hopper rungs cannot read A or B where they lie, and the
//! rungs that can (the small-M kernel, rung 1 with 2-byte copies) run such
//! shapes at a fraction of their rate. Copying A into M rows of K' (K
//! rounded up to 8) and B into K' rows of N' costs a pass over the inputs
//! and C; the extra columns of A and rows of B are zero, so they add
//! nothing to the sums, and C's extra columns stay behind. The auto rung
//! weighs that pass against the rungs that take the shape as it is
//! ([`super::auto::padding_time`]).

use super::buffers::Buffers;
use super::element::{Args, Gemm};
use super::rung::RungKernel;
use crate::device::{Gpu, pointer};
use crate::error::{Error, Result};
use half::bf16;
use kernels_gpu::gemm::padding::{CROP_ROWS_F32, PAD_ROWS_BF16, crop_launch, pad_launch};

/// A BF16 rung's GEMM run at a padded size on copies of the inputs.
pub struct Padded {
    /// The caller's size.
    size: (u32, u32, u32),
    /// The padded A, B and C the kernel runs on.
    inner: Buffers<bf16>,
    gemm: Box<dyn Gemm<bf16>>,
}

impl Padded {
    /// `kernel` prepared at `padded` (N and K rounded up to multiples of 8,
    /// M as it is) for the GEMM on `buffers`.
    pub fn new(gpu: &Gpu, buffers: &Buffers<bf16>, kernel: &dyn RungKernel<bf16>, padded: (u32, u32, u32)) -> Result<Padded> {
        let (size, args) = (buffers.size(), buffers.args());
        let whole_rows = padded.1.is_multiple_of(8) && padded.2.is_multiple_of(8);
        if padded.0 != size.0 || padded.1 < size.1 || padded.2 < size.2 || !whole_rows {
            return Err(Error::new(format!("cannot pad {size:?} to {padded:?}")));
        }
        if args.beta != 0.0 {
            return Err(Error::new("a padded BF16 GEMM computes C = alpha·A·B; it does not read C"));
        }
        let inner = Buffers::zeroed(gpu, padded, args.alpha, args.beta)?;
        let gemm = kernel.prepare(gpu, &inner)?;
        Ok(Padded { size, inner, gemm })
    }
}

impl Gemm<bf16> for Padded {
    /// Copies A and B into the padded rows, runs the kernel there, copies
    /// C's columns back.
    fn run(&self, gpu: &Gpu, args: &Args<bf16>) -> Result<()> {
        let (m, n, k) = self.size;
        if (args.m, args.n, args.k) != self.size {
            return Err(Error::new(format!("a padded GEMM prepared for {:?} got {:?}", self.size, (args.m, args.n, args.k))));
        }
        let inner = self.inner.args();
        let (wide_n, wide_k) = (inner.n, inner.k);
        gpu.launch(&PAD_ROWS_BF16, pad_launch(m, wide_k), (pointer(args.a), m, k, pointer(inner.a), m, wide_k))?;
        gpu.launch(&PAD_ROWS_BF16, pad_launch(wide_k, wide_n), (pointer(args.b), k, n, pointer(inner.b), wide_k, wide_n))?;
        self.gemm.run(gpu, &Args { alpha: args.alpha, beta: args.beta, ..inner })?;
        gpu.launch(&CROP_ROWS_F32, crop_launch(m, n), (pointer(inner.c), wide_n, pointer(args.c), m, n))
    }
}
