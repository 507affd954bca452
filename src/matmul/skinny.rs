//! The small-M rung of both ladders ([`kernels_gpu::skinny`]): B streamed
//! once on the CUDA cores, K split over blocks, the partial sums added in
//! a fixed order by a second kernel; and the "auto" rung, which picks per
//! shape between it and the ladder's top tensor-core rung
//! ([`super::auto`]).

use super::auto::{self, Machine, Pick};
use super::buffers::Buffers;
use super::element::{Args, Element, Gemm};
use super::rung::{Ladder, RungKernel};
use crate::device::{Gpu, PtxModule, pointer};
use crate::error::Result;
use cust::memory::DeviceBuffer;
use half::bf16;
use kernels_gpu::launch::{Kernel, LaunchShape};
use kernels_gpu::skinny::{self as k, SkinnyPlan};

/// Parameters of the partial-product kernels for inputs of `T`.
type Params<T> = (u32, u32, u32, *const T, *const T, *mut f32, u32);

/// An element type the skinny kernels take, with its kernels by rows of A
/// per block, and the ladder's top tensor-core rung for "auto".
pub trait SkinnyElement: Element {
    fn kernel(rows: u32) -> Kernel<Params<Self::Bits>>;
    /// The rung "auto" weighs against the skinny kernel.
    fn tiled() -> &'static dyn RungKernel<Self>;
    /// The type's whole ladder.
    fn ladder() -> Ladder<Self>;
}

impl SkinnyElement for f32 {
    fn kernel(rows: u32) -> Kernel<Params<f32>> {
        match rows {
            1 => k::SKINNY_F32_M1,
            8 => k::SKINNY_F32_M8,
            _ => k::SKINNY_F32_M16,
        }
    }

    fn tiled() -> &'static dyn RungKernel<f32> {
        &kernels_gpu::hopper::tf32x3::KERNEL
    }

    /// Rung 8 at its first tile shape: the sweep is about shapes, not tuning.
    fn ladder() -> Ladder<f32> {
        super::sgemm::ladder(&kernels_gpu::matmul::r08_autotuned::CONFIGS[0].kernel)
    }
}

impl SkinnyElement for bf16 {
    fn kernel(rows: u32) -> Kernel<Params<u16>> {
        match rows {
            1 => k::SKINNY_BF16_M1,
            8 => k::SKINNY_BF16_M8,
            _ => k::SKINNY_BF16_M16,
        }
    }

    fn tiled() -> &'static dyn RungKernel<bf16> {
        &kernels_gpu::hopper::wgmma_bf16_deferred::DEFERRED
    }

    fn ladder() -> Ladder<bf16> {
        super::bf16::ladder()
    }
}

/// The plan for this GPU.
fn plan(gpu: &Gpu, size: (u32, u32, u32)) -> SkinnyPlan {
    SkinnyPlan::new(size, gpu.info.multiprocessors, auto::SKINNY_BLOCKS_PER_SM)
}

/// The skinny kernels set up for one problem: the plan and the workspace
/// of partial sums.
pub struct Skinny<E: SkinnyElement> {
    plan: SkinnyPlan,
    kernel: Kernel<Params<E::Bits>>,
    partial: DeviceBuffer<f32>,
}

impl<E: SkinnyElement> Skinny<E> {
    pub fn new(gpu: &Gpu, size: (u32, u32, u32)) -> Result<Skinny<E>> {
        let plan = plan(gpu, size);
        let floats = plan.workspace(size.0, size.1);
        gpu.ensure_fits(4 * floats as u128, "the skinny kernel's partial sums")?;
        Ok(Skinny { plan, kernel: E::kernel(plan.rows), partial: gpu.alloc(floats as usize, "the partial sums")? })
    }
}

impl<E: SkinnyElement> Gemm<E> for Skinny<E> {
    fn run(&self, gpu: &Gpu, args: &Args<E>) -> Result<()> {
        let (m, n, k) = (args.m, args.n, args.k);
        let (plan, partial) = (self.plan, pointer(&self.partial));
        gpu.launch(&self.kernel, plan.launch(m, n), (m, n, k, pointer(args.a), pointer(args.b), partial, plan.k_chunk))?;
        let sums = (m * n, plan.splits, partial, args.alpha, args.beta, pointer(args.c));
        gpu.launch(&k::SKINNY_REDUCE, SkinnyPlan::reduce_launch(m, n), sums)
    }
}

/// The skinny rung of either ladder.
pub struct SkinnyRung;

impl<E: SkinnyElement> RungKernel<E> for SkinnyRung {
    fn name(&self) -> &'static str {
        "skinny"
    }

    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    /// fp32 multiply-adds, rounded to nearest, whatever the inputs.
    fn arithmetic(&self) -> super::accuracy::Arithmetic {
        super::accuracy::Arithmetic::Fp32
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        (PtxModule::Portable, E::kernel(plan(gpu, size).rows).name())
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> LaunchShape {
        plan(gpu, (m, n, k)).launch(m, n)
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        let p = plan(gpu, size);
        Some(format!("{} rows of A per block, K in {} pieces of {}", p.rows, p.splits, p.k_chunk))
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<E>) -> Result<Box<dyn Gemm<E>>> {
        Ok(Box::new(Skinny::<E>::new(gpu, buffers.size())?))
    }
}

/// The "auto" rung: the skinny kernel or the top tensor-core rung,
/// whichever the model predicts faster for the shape.
pub struct AutoRung;

impl AutoRung {
    fn choose<E: SkinnyElement>(gpu: &Gpu, size: (u32, u32, u32)) -> auto::Choice {
        let tiled = E::tiled();
        let runs = tiled.module().runs_on(gpu.info.compute_capability) && tiled.shape_limit(size).is_none();
        auto::choose(E::DTYPE, size, &Machine::of(&gpu.info), runs)
    }

    /// The rung the choice runs.
    fn picked<E: SkinnyElement>(gpu: &Gpu, size: (u32, u32, u32)) -> (&'static dyn RungKernel<E>, auto::Choice) {
        let choice = Self::choose::<E>(gpu, size);
        let kernel: &'static dyn RungKernel<E> = match choice.pick {
            Pick::Skinny(_) => &SkinnyRung,
            Pick::Tiled => E::tiled(),
        };
        (kernel, choice)
    }
}

impl<E: SkinnyElement> RungKernel<E> for AutoRung {
    fn name(&self) -> &'static str {
        "auto"
    }

    /// The skinny kernel, its fallback, is in the portable module.
    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        Self::picked::<E>(gpu, size).0.entry(gpu, size)
    }

    fn arithmetic_at(&self, gpu: &Gpu, size: (u32, u32, u32)) -> super::accuracy::Arithmetic {
        Self::picked::<E>(gpu, size).0.arithmetic_at(gpu, size)
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape {
        Self::picked::<E>(gpu, size).0.shape(gpu, size)
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        let (kernel, choice) = Self::picked::<E>(gpu, size);
        let detail = kernel.explain(gpu, size).map_or(String::new(), |d| format!(" ({d})"));
        Some(format!("{}{detail}", choice.why))
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<E>) -> Result<Box<dyn Gemm<E>>> {
        Self::picked::<E>(gpu, buffers.size()).0.prepare(gpu, buffers)
    }
}
