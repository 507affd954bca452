//! A, B and C of one GEMM on the GPU, for every element type.

use super::check::gemm_flops;
use super::element::{Args, Element};
use crate::device::Gpu;
use crate::error::{Context as _, Result};
use cust::memory::{AsyncCopyDestination, DeviceBuffer};

/// One copy of A and B.
type Inputs<E> = (DeviceBuffer<<E as Element>::Bits>, DeviceBuffer<<E as Element>::Bits>);

/// A and B (element type `E`), C (fp32), plus C's initial value when
/// beta != 0; and, for timing with inputs read from DRAM, more copies of
/// A and B that runs take in turn (see [`Buffers::copy_inputs`]).
pub struct Buffers<E: Element> {
    size: (u32, u32, u32),
    alpha: f32,
    beta: f32,
    a: DeviceBuffer<E::Bits>,
    b: DeviceBuffer<E::Bits>,
    c: DeviceBuffer<f32>,
    c_initial: Option<DeviceBuffer<f32>>,
    /// Copies 1.. of A and B (copy 0 is `a`, `b`).
    more_inputs: Vec<Inputs<E>>,
    /// The copy [`Buffers::args`] hands out.
    current: usize,
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
            more_inputs: Vec::new(),
            current: 0,
        })
    }

    /// A (M×K), B (K×N) and C of `size`, zeroed on the GPU, for a GEMM
    /// `C = alpha·A·B + beta·C` whose inputs are copied in at each run (see
    /// [`super::padded`]); refuses up front when they cannot fit.
    pub fn zeroed(gpu: &Gpu, size: (u32, u32, u32), alpha: f32, beta: f32) -> Result<Buffers<E>> {
        let (m, n, k) = size;
        let (mu, nu, ku) = (m as u128, n as u128, k as u128);
        let element = std::mem::size_of::<E::Bits>() as u128;
        gpu.ensure_fits(element * (mu * ku + ku * nu) + 4 * mu * nu, "this GEMM's padded copies")?;
        let (m, n, k) = (m as usize, n as usize, k as usize);
        Ok(Buffers {
            size,
            alpha,
            beta,
            a: gpu.zeroed(m * k, "padded A")?,
            b: gpu.zeroed(k * n, "padded B")?,
            c: gpu.zeroed(m * n, "padded C")?,
            c_initial: None,
            more_inputs: Vec::new(),
            current: 0,
        })
    }

    /// B (the weights), copy 0.
    pub fn weights(&self) -> &DeviceBuffer<E::Bits> {
        &self.b
    }

    /// Bytes of A and B, one copy.
    pub fn input_bytes(&self) -> u64 {
        let (m, n, k) = self.size;
        std::mem::size_of::<E::Bits>() as u64 * k as u64 * (m as u64 + n as u64)
    }

    /// Makes `copies` copies of A and B in all (at least 1), copying the
    /// first on the GPU, so that runs can read them in turn; refuses up
    /// front when they cannot fit.
    pub fn copy_inputs(&mut self, gpu: &Gpu, copies: usize) -> Result<()> {
        let more = copies.max(1) - 1;
        gpu.ensure_fits(more.saturating_sub(self.more_inputs.len()) as u128 * self.input_bytes() as u128, "the copies of A and B")?;
        self.more_inputs.truncate(more);
        while self.more_inputs.len() < more {
            self.more_inputs.push((gpu.duplicate(&self.a, "a copy of A")?, gpu.duplicate(&self.b, "a copy of B")?));
        }
        self.current = 0;
        gpu.synchronize()
    }

    /// How many copies of A and B there are.
    pub fn input_copies(&self) -> usize {
        1 + self.more_inputs.len()
    }

    /// From now on [`Buffers::args`] hands out copy `copy` of A and B
    /// (from 0, below [`Buffers::input_copies`]).
    pub fn use_copy(&mut self, copy: usize) {
        assert!(copy < self.input_copies(), "copy {copy} of {}", self.input_copies());
        self.current = copy;
    }

    pub fn size(&self) -> (u32, u32, u32) {
        self.size
    }

    pub fn flops(&self) -> f64 {
        gemm_flops(self.size)
    }

    /// The kernel arguments for these buffers, with the copy of A and B
    /// last chosen by [`Buffers::use_copy`] (the first, unless chosen).
    pub fn args(&self) -> Args<'_, E> {
        self.args_of(self.current)
    }

    /// The kernel arguments with copy `copy` of A and B.
    pub fn args_of(&self, copy: usize) -> Args<'_, E> {
        let (m, n, k) = self.size;
        let (a, b) = match copy {
            0 => (&self.a, &self.b),
            more => {
                let (a, b) = &self.more_inputs[more - 1];
                (a, b)
            }
        };
        Args { m, n, k, alpha: self.alpha, a, b, beta: self.beta, c: &self.c }
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
