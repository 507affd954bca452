//! `ptx-ladder vecadd`: the first kernel, checked element by element and timed
//! against a device-to-device copy measured in the same run.
//!
//! Vector add reads two floats and writes one per element: pure memory
//! traffic, so the right yardstick is the copy bandwidth of the same GPU,
//! not its FLOP rate.

use crate::device::pointer;
use crate::device::{Gpu, Timing};
use crate::error::{Context as _, Error, Result};
use crate::inputs::uniform;
use crate::launch_math::{Launch1d, launch_1d};
use crate::text::plural;
use cust::memory::{AsyncCopyDestination, DeviceBuffer};
use kernels_gpu::launch::Kernel;
use kernels_gpu::vecadd::{VEC_ADD, VEC_ADD_X4};

/// Both kernels take `(a, b, c, n)`.
pub type VecAddKernel = Kernel<(*const f32, *const f32, *mut f32, u32)>;

/// Largest n: the kernels index with 32-bit integers.
pub const MAX_N: u64 = u32::MAX as u64;

/// The two kernels: one element per thread, or four with 128-bit accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    OnePerThread,
    FourPerThread,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::OnePerThread, Variant::FourPerThread];

    pub fn kernel(self) -> VecAddKernel {
        match self {
            Variant::OnePerThread => VEC_ADD,
            Variant::FourPerThread => VEC_ADD_X4,
        }
    }

    pub fn elements_per_thread(self) -> u64 {
        match self {
            Variant::OnePerThread => 1,
            Variant::FourPerThread => 4,
        }
    }
}

/// The launch of one variant over `n` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub variant: Variant,
    pub elements: u64,
    pub launch: Launch1d,
}

impl Plan {
    /// The round-up arithmetic, in words.
    pub fn explain(&self) -> String {
        match self.variant.elements_per_thread() {
            1 => self.launch.explain(),
            per => format!(
                "{} at {per} per thread → ceil({} / {per}) = {}; {}",
                plural(self.elements, "element"),
                self.elements,
                plural(self.launch.n, "thread"),
                self.launch.explain().replacen(&format!("n = {}, ", self.launch.n), "", 1)
            ),
        }
    }
}

/// Validates n and the block size without touching the GPU.
pub fn plan(variant: Variant, n: u64, block: u32) -> Result<Plan> {
    if n > MAX_N {
        return Err(Error::new(format!("n = {n} is too large: the kernels use 32-bit indices, so n ≤ {MAX_N}")));
    }
    let launch = launch_1d(n.div_ceil(variant.elements_per_thread()), block)?;
    Ok(Plan { variant, elements: n, launch })
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

/// Random inputs and a poisoned output on the GPU, with host copies of the
/// inputs for checking.
struct Arrays {
    host_a: Vec<f32>,
    host_b: Vec<f32>,
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    c: DeviceBuffer<f32>,
}

impl Arrays {
    fn new(gpu: &Gpu, n: u64, block: u32) -> Result<Arrays> {
        if block > gpu.info.max_threads_per_block {
            return Err(Error::new(format!("block size {block} exceeds this GPU's {} threads per block", gpu.info.max_threads_per_block)));
        }
        gpu.ensure_fits(12 * n as u128, &format!("vecadd with n = {n} (three arrays of {:.2} GB)", 4.0 * n as f64 / 1e9))?;
        let (host_a, host_b) = (uniform(n as usize, n ^ 1), uniform(n as usize, n ^ 2));
        let (a, b) = (gpu.upload(&host_a, "a")?, gpu.upload(&host_b, "b")?);
        let c = gpu.alloc(n as usize, "c")?;
        Ok(Arrays { host_a, host_b, a, b, c })
    }

    /// Poisons c, runs the plan once, checks every element.
    fn run_and_check(&mut self, gpu: &Gpu, plan: &Plan) -> Result<Mismatches> {
        let n = plan.elements as usize;
        gpu.poison(&mut self.c)?;
        gpu.launch(&plan.variant.kernel(), plan.launch.shape(), (pointer(&self.a), pointer(&self.b), pointer(&self.c), n as u32))?;
        let mut c = vec![0.0f32; n];
        gpu.download(&self.c, &mut c, "c")?;
        Ok(check(&self.host_a, &self.host_b, &c))
    }
}

/// Runs both kernels once on `n` random elements and checks every element.
pub fn check_on_gpu(gpu: &Gpu, n: u64, block: u32) -> Result<Vec<(Variant, Mismatches)>> {
    let plans = Variant::ALL.map(|v| plan(v, n, block));
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut arrays = Arrays::new(gpu, n, block)?;
    plans.into_iter().map(|p| p.and_then(|p| Ok((p.variant, arrays.run_and_check(gpu, &p)?)))).collect()
}

/// One kernel's result in a `ptx-ladder vecadd` run.
pub struct KernelRun {
    pub plan: Plan,
    pub mismatches: Mismatches,
    pub timing: Timing,
}

/// What one `ptx-ladder vecadd` run measured.
pub struct VecAddReport {
    pub n: u64,
    pub kernels: Vec<KernelRun>,
    /// The device-to-device copy of n floats.
    pub copy: Timing,
}

/// GB/s for `bytes_per_element` over `n` elements in `timing`.
pub fn gbps(n: u64, bytes_per_element: f64, timing: &Timing) -> f64 {
    timing.billions_per_second(n as f64 * bytes_per_element)
}

/// Bytes vector add moves per element: read a and b, write c.
pub const KERNEL_BYTES: f64 = 12.0;
/// Bytes a copy moves per element: read one, write one.
pub const COPY_BYTES: f64 = 8.0;

/// Runs, checks and times both kernels on `n` (≥ 1) random elements, and a
/// device-to-device copy of the same size.
pub fn run(gpu: &Gpu, n: u64, block: u32, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<VecAddReport> {
    let plans = Variant::ALL.map(|v| plan(v, n, block)).into_iter().collect::<Result<Vec<_>>>()?;
    if n == 0 {
        return Err(Error::new("n = 0: nothing to run"));
    }
    progress(&format!("generating {n} random pairs"));
    let mut arrays = Arrays::new(gpu, n, block)?;
    let mut kernels = Vec::new();
    for plan in plans {
        progress(&format!("{}: running, checking every element, timing", plan.variant.kernel()));
        let mismatches = arrays.run_and_check(gpu, &plan)?;
        let Arrays { a, b, c, .. } = &arrays;
        let args = (pointer(a), pointer(b), pointer(c), n as u32);
        let timing = gpu.time(3, reps, || gpu.launch(&plan.variant.kernel(), plan.launch.shape(), args))?;
        kernels.push(KernelRun { plan, mismatches, timing });
    }
    progress("timing a device-to-device copy of the same size");
    let Arrays { a, c, .. } = &mut arrays;
    let copy = gpu.time(3, reps, || unsafe { c.async_copy_from(&*a, gpu.stream()) }.context("device-to-device copy"))?;
    Ok(VecAddReport { n, kernels, copy })
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
    fn plan_refuses_what_the_kernels_cannot_index() {
        assert!(plan(Variant::OnePerThread, MAX_N, 256).is_ok());
        let err = plan(Variant::OnePerThread, MAX_N + 1, 256).unwrap_err();
        assert!(err.message().contains("32-bit indices"), "{err}");
        assert!(plan(Variant::FourPerThread, 10, 2048).is_err());
    }

    #[test]
    fn four_per_thread_launches_a_quarter_of_the_threads() {
        let p = plan(Variant::FourPerThread, 1001, 128).unwrap();
        assert_eq!((p.launch.n, p.launch.blocks), (251, 2));
        let text = p.explain();
        assert!(text.starts_with("1001 elements at 4 per thread → ceil(1001 / 4) = 251 threads; block = 128 threads → grid"), "{text}");
        assert!(text.contains("ceil(251 / 128) = 2 blocks = 256 threads"), "{text}");
    }
}
