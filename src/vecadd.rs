//! `host vecadd`: the first kernel, checked element by element and timed
//! against a device-to-device copy measured in the same run.
//!
//! Vector add reads two floats and writes one per element: pure memory
//! traffic, so the right yardstick is the copy bandwidth of the same GPU,
//! not its FLOP rate.

use crate::device::{Gpu, Timing};
use crate::error::{Context as _, Error, Result};
use crate::launch_math::{Launch1d, launch_1d};
use crate::random::uniform;
use cust::memory::{AsyncCopyDestination, DeviceBuffer};

/// Largest n: the kernel indexes with 32-bit integers.
pub const MAX_N: u64 = u32::MAX as u64;

/// What one `host vecadd` run measured.
pub struct VecAddReport {
    pub launch: Launch1d,
    pub mismatches: Mismatches,
    /// None when n = 0 (nothing launched).
    pub kernel: Option<Timing>,
    pub copy: Option<Timing>,
}

impl VecAddReport {
    /// Bytes the kernel moves: read a and b, write c.
    pub fn kernel_bytes(&self) -> f64 {
        12.0 * self.launch.n as f64
    }

    /// Bytes the copy moves: read one array, write one.
    pub fn copy_bytes(&self) -> f64 {
        8.0 * self.launch.n as f64
    }

    pub fn kernel_gbps(&self) -> Option<f64> {
        self.kernel.as_ref().map(|t| self.kernel_bytes() / (t.median_ms * 1e-3) / 1e9)
    }

    pub fn copy_gbps(&self) -> Option<f64> {
        self.copy.as_ref().map(|t| self.copy_bytes() / (t.median_ms * 1e-3) / 1e9)
    }
}

/// Elements of c that differ from a + b computed on the CPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatches {
    pub count: u64,
    /// (index, expected, got) of the first one.
    pub first: Option<(usize, f32, f32)>,
}

/// Checks every element: f32 addition is exact to reproduce, so the GPU
/// must match the CPU bit for bit (poison left in c is a NaN and fails).
pub fn check(a: &[f32], b: &[f32], c: &[f32]) -> Mismatches {
    let mut out = Mismatches { count: 0, first: None };
    for (i, ((&x, &y), &z)) in a.iter().zip(b).zip(c).enumerate() {
        let want = x + y;
        if want.to_bits() != z.to_bits() {
            out.count += 1;
            out.first.get_or_insert((i, want, z));
        }
    }
    out
}

/// Validates n and the block size without touching the GPU.
pub fn plan(n: u64, block: u32) -> Result<Launch1d> {
    if n > MAX_N {
        return Err(Error::new(format!("n = {n} is too large: the kernel uses 32-bit indices, so n ≤ {MAX_N}")));
    }
    launch_1d(n, block)
}

/// Random a and b of `n` elements on the GPU, and c poisoned.
struct Buffers {
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    c: DeviceBuffer<f32>,
}

/// Runs vector add once on `n` random elements (c poisoned first) and
/// checks every element; returns the buffers for timing.
fn run_checked(gpu: &Gpu, launch: Launch1d, progress: &mut dyn FnMut(&str)) -> Result<(Mismatches, Option<Buffers>)> {
    let n = launch.n;
    if launch.threads_per_block > gpu.info.max_threads_per_block {
        return Err(Error::new(format!(
            "block size {} exceeds this GPU's {} threads per block",
            launch.threads_per_block, gpu.info.max_threads_per_block
        )));
    }
    gpu.ensure_fits(12 * n as u128, &format!("vecadd with n = {n} (three arrays of {:.2} GB)", 4.0 * n as f64 / 1e9))?;
    if n == 0 {
        return Ok((Mismatches { count: 0, first: None }, None));
    }
    progress(&format!("generating {n} random pairs"));
    let (a, b) = (uniform(n as usize, n ^ 1), uniform(n as usize, n ^ 2));
    let mut c = gpu.alloc(n as usize, "c")?;
    gpu.poison(&mut c)?;
    let buffers = Buffers { a: gpu.upload(&a, "a")?, b: gpu.upload(&b, "b")?, c };
    progress("running and checking every element");
    gpu.vec_add(launch.shape(), &buffers.a, &buffers.b, &buffers.c, n as u32)?;
    let mut c = vec![0.0f32; n as usize];
    gpu.download(&buffers.c, &mut c, "c")?;
    Ok((check(&a, &b, &c), Some(buffers)))
}

/// Runs vector add once on `n` random elements and checks every element.
pub fn check_on_gpu(gpu: &Gpu, n: u64, block: u32) -> Result<Mismatches> {
    Ok(run_checked(gpu, plan(n, block)?, &mut |_| {})?.0)
}

/// Runs, checks and times vector add on `n` random elements.
pub fn run(gpu: &Gpu, n: u64, block: u32, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<VecAddReport> {
    let launch = plan(n, block)?;
    let (mismatches, buffers) = run_checked(gpu, launch, progress)?;
    let Some(Buffers { a, b, mut c }) = buffers else {
        return Ok(VecAddReport { launch, mismatches, kernel: None, copy: None });
    };
    progress("timing the kernel and a device-to-device copy");
    let n = n as u32;
    let kernel = gpu.time(3, reps, || gpu.vec_add(launch.shape(), &a, &b, &c, n))?;
    let copy = gpu.time(3, reps, || unsafe { c.async_copy_from(&a, gpu.stream()) }.context("device-to-device copy"))?;
    Ok(VecAddReport { launch, mismatches, kernel: Some(kernel), copy: Some(copy) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_finds_every_wrong_element() {
        let (a, b) = (uniform(100, 1), uniform(100, 2));
        let mut c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(check(&a, &b, &c), Mismatches { count: 0, first: None });
        c[7] = f32::from_bits(crate::device::POISON_BITS);
        c[50] += 1e-6;
        let m = check(&a, &b, &c);
        assert_eq!(m.count, 2);
        assert_eq!(m.first.map(|f| f.0), Some(7));
    }

    #[test]
    fn plan_refuses_what_the_kernel_cannot_index() {
        assert!(plan(MAX_N, 256).is_ok());
        let err = plan(MAX_N + 1, 256).unwrap_err();
        assert!(err.message().contains("32-bit indices"), "{err}");
        assert!(plan(10, 2048).is_err());
    }
}
