//! A, B and C of one GEMM on the GPU, for every element type.

use super::check::gemm_flops;
use super::element::{Args, Element};
use crate::device::Gpu;
use crate::error::{Context as _, Result};
use cust::memory::{AsyncCopyDestination, DeviceBuffer};

/// A and B (element type `E`), C (fp32), plus C's initial value when
/// beta != 0.
pub struct Buffers<E: Element> {
    size: (u32, u32, u32),
    alpha: f32,
    beta: f32,
    a: DeviceBuffer<E::Bits>,
    b: DeviceBuffer<E::Bits>,
    c: DeviceBuffer<f32>,
    c_initial: Option<DeviceBuffer<f32>>,
}

impl<E: Element> Buffers<E> {
    /// Uploads `problem`, refusing up front when it cannot fit.
    pub fn upload(gpu: &Gpu, problem: &E::Problem) -> Result<Buffers<E>> {
        let inputs = E::inputs(problem);
        let (m, n, k) = inputs.size;
        let (mu, nu, ku) = (m as u128, n as u128, k as u128);
        let copies_of_c = if inputs.beta == 0.0 { 1 } else { 2 };
        let element = std::mem::size_of::<E::Bits>() as u128;
        gpu.ensure_fits(element * (mu * ku + ku * nu) + 4 * copies_of_c * mu * nu, "this GEMM")?;
        Ok(Buffers {
            size: inputs.size,
            alpha: inputs.alpha,
            beta: inputs.beta,
            a: gpu.upload(inputs.a, "A")?,
            b: gpu.upload(inputs.b, "B")?,
            c: gpu.alloc(m as usize * n as usize, "C")?,
            c_initial: if inputs.beta == 0.0 { None } else { Some(gpu.upload(inputs.c, "initial C")?) },
        })
    }

    pub fn size(&self) -> (u32, u32, u32) {
        self.size
    }

    pub fn flops(&self) -> f64 {
        gemm_flops(self.size)
    }

    /// The kernel arguments for these buffers.
    pub fn args(&self) -> Args<'_, E> {
        let (m, n, k) = self.size;
        Args { m, n, k, alpha: self.alpha, a: &self.a, b: &self.b, beta: self.beta, c: &self.c }
    }

    /// Puts C back in its pre-call state: poison when beta == 0 (so unwritten
    /// elements show), the initial values otherwise.
    pub fn reset_c(&mut self, gpu: &Gpu) -> Result<()> {
        match &self.c_initial {
            None => gpu.poison(&mut self.c),
            Some(initial) => unsafe { self.c.async_copy_from(initial, gpu.stream()) }.context("restoring C"),
        }
    }

    /// Copies C back to the host.
    pub fn download_c(&self, gpu: &Gpu) -> Result<Vec<f32>> {
        let (m, n, _) = self.size;
        let mut c = vec![0.0f32; m as usize * n as usize];
        gpu.download(&self.c, &mut c, "C")?;
        Ok(c)
    }
}
