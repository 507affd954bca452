//! The small-M rung of both ladders ([`kernels_gpu::gemm::small_m`]): B streamed
//! once on the CUDA cores, K split over blocks, the partial sums added in
//! a fixed order (by the kernel's last block of each tile, or by a second
//! kernel where the slices are many); and the "auto" rung, which picks per
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
use kernels_gpu::bf16::r18_small_m_tensor as small_m_tensor_rung;
use kernels_gpu::gemm::hopper::HopperKernel;
use kernels_gpu::gemm::small_m::{self, SmallMPlan};
use kernels_gpu::gemm::small_m_tensor;
use kernels_gpu::gemm::split_k;
use kernels_gpu::launch::{Kernel, LaunchShape};

/// Parameters of the small-M kernels for inputs of `T`: the sizes, A, B,
/// C, alpha, beta, the partial sums, the tiles' counters, the plan's
/// `k_chunk` and `groups`.
type Params<T> = (u32, u32, u32, *const T, *const T, *mut f32, f32, f32, *mut f32, *mut u32, u32, u32);

/// An element type the small-M kernels take, with its kernels by rows of A
/// per block, and what "auto" needs to run the rungs its model names
/// ([`auto::tiled_kernel`], [`auto::split_kernel`], …).
pub trait SmallMElement: Element {
    fn kernel(rows: u32) -> Kernel<Params<Self::Bits>>;
    /// A Hopper GEMM of this element type's ladder as a rung.
    fn hopper(kernel: &'static HopperKernel) -> &'static dyn RungKernel<Self>;
    /// The ladder's rung with tiles fitted to the shape, if it has one
    /// ([`auto::fitted_tiles`]).
    fn fitted() -> Option<&'static dyn RungKernel<Self>>;
    /// The ladder's rung with swapped tiles in pairs sharing the weights,
    /// if it has one ([`auto::paired_tiles`]).
    fn paired() -> Option<&'static dyn RungKernel<Self>>;
    /// The ladder's small-M stream on tensor cores, if it has one
    /// ([`auto::small_m_tensor_time`]).
    fn small_m_tensor() -> Option<&'static dyn RungKernel<Self>>;
    /// The ladder's tensor-core rung of the portable module, for any shape
    /// ([`auto::portable_time`]).
    fn portable() -> &'static dyn RungKernel<Self>;
    /// The type's whole ladder.
    fn ladder() -> Ladder<Self>;
    /// `kernel` run at `padded` on copies of `buffers`' inputs whose rows
    /// are whole 16 bytes, where the model pads ([`auto::Hopper`]).
    fn padded(gpu: &Gpu, buffers: &Buffers<Self>, kernel: &dyn RungKernel<Self>, padded: (u32, u32, u32)) -> Result<Box<dyn Gemm<Self>>>;
}

impl SmallMElement for f32 {
    fn kernel(rows: u32) -> Kernel<Params<f32>> {
        kernels_gpu::sgemm::r13_small_m::for_rows(rows)
    }

    fn hopper(kernel: &'static HopperKernel) -> &'static dyn RungKernel<f32> {
        kernel
    }

    fn fitted() -> Option<&'static dyn RungKernel<f32>> {
        None
    }

    fn paired() -> Option<&'static dyn RungKernel<f32>> {
        None
    }

    fn small_m_tensor() -> Option<&'static dyn RungKernel<f32>> {
        None
    }

    /// Rung 11: 3xTF32 on `mma.sync`, as accurate as the Hopper rungs'.
    fn portable() -> &'static dyn RungKernel<f32> {
        &kernels_gpu::sgemm::r11_tensor_cores::KERNEL
    }

    /// Rung 8 at its first tile shape: the sweep is about shapes, not tuning.
    fn ladder() -> Ladder<f32> {
        super::sgemm::ladder(&kernels_gpu::sgemm::r08_autotuned::CONFIGS[0].kernel)
    }

    /// Never asked: the 3xTF32 rungs split A and B into copies of their
    /// own, so no fp32 shape is padded ([`auto::Hopper::of`]).
    fn padded(_: &Gpu, buffers: &Buffers<f32>, _: &dyn RungKernel<f32>, _: (u32, u32, u32)) -> Result<Box<dyn Gemm<f32>>> {
        Err(crate::error::Error::new(format!("the SGEMM ladder does not pad {:?}", buffers.size())))
    }
}

impl SmallMElement for bf16 {
    fn kernel(rows: u32) -> Kernel<Params<u16>> {
        kernels_gpu::bf16::r08_small_m::for_rows(rows)
    }

    fn hopper(kernel: &'static HopperKernel) -> &'static dyn RungKernel<bf16> {
        kernel
    }

    fn fitted() -> Option<&'static dyn RungKernel<bf16>> {
        Some(&super::fitted::FittedTilesRung)
    }

    fn paired() -> Option<&'static dyn RungKernel<bf16>> {
        Some(&super::fitted::PairedTilesRung)
    }

    fn small_m_tensor() -> Option<&'static dyn RungKernel<bf16>> {
        Some(&SmallMTensorRung)
    }

    /// Rung 1: `mma.sync` fed by `cp.async`.
    fn portable() -> &'static dyn RungKernel<bf16> {
        &kernels_gpu::bf16::r01_mma_sync::KERNEL
    }

    fn ladder() -> Ladder<bf16> {
        super::bf16::ladder()
    }

    fn padded(gpu: &Gpu, buffers: &Buffers<bf16>, kernel: &dyn RungKernel<bf16>, padded: (u32, u32, u32)) -> Result<Box<dyn Gemm<bf16>>> {
        Ok(Box::new(super::padded::Padded::new(gpu, buffers, kernel, padded)?))
    }
}

/// How a plan cuts K and who adds its slices, in words.
fn slices_words(plan: &SmallMPlan) -> String {
    if plan.splits == 1 {
        return "K whole, each block storing its part of C".to_string();
    }
    let summed_by = if plan.adds_in_kernel() { "added by each tile's last block" } else { "added by a second kernel" };
    format!("K in {} pieces of {}, {summed_by}", plan.splits, plan.k_chunk)
}

/// The plan for this GPU: the model's ([`auto::small_m_plan`]), unless
/// fewer of the kernel's blocks fit on an SM than it counts on
/// ([`small_m::BLOCKS_PER_SM`]). The driver's occupancy API knows the
/// kernel's registers and shared memory; a plan for more blocks than fit
/// would leave a second, mostly empty wave, so K is then cut for the
/// blocks that do (BF16's 8- and 16-row kernels, 136 and 255 registers on
/// the H200, fit 3 and 2).
fn plan<E: SmallMElement>(gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> SmallMPlan {
    let bytes = std::mem::size_of::<E::Bits>() as u32;
    let plan_for = |blocks| SmallMPlan::new((m, n, k), bytes, gpu.info.multiprocessors, blocks);
    plan_for_the_blocks_that_fit(gpu, plan_for, |plan| (E::kernel(plan.rows).name(), plan.launch(m, n)))
}

/// BF16 rung 18's plan for this GPU: the model's
/// ([`auto::small_m_tensor_plan`]), or one for fewer blocks per SM where
/// fewer fit, as [`plan`] does.
fn tensor_plan(gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> SmallMPlan {
    let plan_for = |blocks| SmallMPlan::tensor((m, n, k), gpu.info.multiprocessors, blocks);
    plan_for_the_blocks_that_fit(gpu, plan_for, |plan| (small_m_tensor_rung::for_plan(plan).name(), small_m_tensor::launch(plan, m, n)))
}

/// `plan_for(blocks per SM)` for the [`small_m::BLOCKS_PER_SM`] the model
/// counts on, or for as many as fit where the driver says fewer of the
/// planned kernel's blocks (`entry`: its name and launch) fit. Where the
/// driver cannot say, the launch itself will report the kernel's trouble;
/// the model's plan stands.
fn plan_for_the_blocks_that_fit(
    gpu: &Gpu,
    plan_for: impl Fn(u32) -> SmallMPlan,
    entry: impl Fn(&SmallMPlan) -> (&'static str, LaunchShape),
) -> SmallMPlan {
    let planned = plan_for(small_m::BLOCKS_PER_SM);
    let (name, launch) = entry(&planned);
    match gpu.resident_blocks(name, launch) {
        Ok(fit) if fit > 0 && fit < small_m::BLOCKS_PER_SM => plan_for(fit),
        _ => planned,
    }
}

/// The small-M kernels set up for one problem: the plan, the workspace
/// of partial sums, and one counter per tile (zero between launches: the
/// kernel's last block of each tile sets its counter back).
pub struct SmallM<E: SmallMElement> {
    plan: SmallMPlan,
    kernel: Kernel<Params<E::Bits>>,
    launch: LaunchShape,
    partial: DeviceBuffer<f32>,
    counters: DeviceBuffer<u32>,
}

impl<E: SmallMElement> SmallM<E> {
    pub fn new(gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> Result<SmallM<E>> {
        let plan = plan::<E>(gpu, (m, n, k));
        SmallM::with(gpu, (m, n), (plan, E::kernel(plan.rows), plan.launch(m, n)))
    }

    /// `kernel` launched as `launch` on `plan`, with the plan's workspace
    /// and counters.
    fn with(
        gpu: &Gpu,
        (m, n): (u32, u32),
        (plan, kernel, launch): (SmallMPlan, Kernel<Params<E::Bits>>, LaunchShape),
    ) -> Result<SmallM<E>> {
        let floats = plan.workspace(m, n);
        gpu.ensure_fits(4 * floats as u128, "the small-M kernel's partial sums")?;
        let partial = gpu.alloc(floats as usize, "the partial sums")?;
        let counters = gpu.upload(&vec![0u32; plan.tiles(m, n) as usize], "the small-M kernel's tile counters")?;
        Ok(SmallM { plan, kernel, launch, partial, counters })
    }
}

impl SmallM<bf16> {
    /// BF16 rung 18's kernel on its plan (the model's, [`auto::small_m_tensor_plan`],
    /// for as many blocks per SM as fit).
    pub fn tensor(gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> Result<SmallM<bf16>> {
        let plan = tensor_plan(gpu, (m, n, k));
        SmallM::with(gpu, (m, n), (plan, small_m_tensor_rung::for_plan(&plan), small_m_tensor::launch(&plan, m, n)))
    }
}

impl<E: SmallMElement> Gemm<E> for SmallM<E> {
    fn run(&self, gpu: &Gpu, args: &Args<E>) -> Result<()> {
        let (m, n, k) = (args.m, args.n, args.k);
        let (plan, partial, c) = (self.plan, pointer(&self.partial), pointer(args.c));
        let params = (
            m,
            n,
            k,
            pointer(args.a),
            pointer(args.b),
            c,
            args.alpha,
            args.beta,
            partial,
            pointer(&self.counters),
            plan.k_chunk,
            plan.groups,
        );
        gpu.launch(&self.kernel, self.launch, params)?;
        if plan.adds_in_kernel() {
            return Ok(());
        }
        let sums = (m * n, plan.splits, partial, args.alpha, args.beta, c);
        gpu.launch(&split_k::SUM_SLICES, split_k::sum_launch(m * n, plan.splits), sums)
    }
}

/// The small-M rung of either ladder.
pub struct SmallMRung;

impl<E: SmallMElement> RungKernel<E> for SmallMRung {
    fn name(&self) -> &'static str {
        "small_m"
    }

    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    /// fp32 multiply-adds, rounded to nearest, whatever the inputs.
    fn arithmetic(&self) -> super::accuracy::Arithmetic {
        super::accuracy::Arithmetic::Fp32
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        (PtxModule::Portable, E::kernel(plan::<E>(gpu, size).rows).name())
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> LaunchShape {
        plan::<E>(gpu, (m, n, k)).launch(m, n)
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        let p = plan::<E>(gpu, size);
        let k = slices_words(&p);
        Some(format!("{} rows of A per block, {k}", p.rows))
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<E>) -> Result<Box<dyn Gemm<E>>> {
        Ok(Box::new(SmallM::<E>::new(gpu, buffers.size())?))
    }
}

/// BF16 rung 18: the small-M stream on the tensor cores.
pub struct SmallMTensorRung;

impl RungKernel<bf16> for SmallMTensorRung {
    fn name(&self) -> &'static str {
        "small_m_tensor"
    }

    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        (PtxModule::Portable, small_m_tensor_rung::for_plan(&tensor_plan(gpu, size)).name())
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, gpu: &Gpu, (m, n, k): (u32, u32, u32)) -> LaunchShape {
        small_m_tensor::launch(&tensor_plan(gpu, (m, n, k)), m, n)
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        let p = tensor_plan(gpu, size);
        let k = slices_words(&p);
        Some(format!("16 rows of A and {} columns per block, {k}", p.block_columns()))
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<bf16>) -> Result<Box<dyn Gemm<bf16>>> {
        Ok(Box::new(SmallM::tensor(gpu, buffers.size())?))
    }
}

/// The "auto" rung: the small-M kernel or one of the tensor-core rungs,
/// whichever the model predicts faster for the shape; where the Hopper
/// rungs cannot run, the small-M kernel or the portable module's
/// tensor-core rung.
pub struct AutoRung;

impl AutoRung {
    fn choose<E: SmallMElement>(gpu: &Gpu, size: (u32, u32, u32)) -> auto::Choice {
        let on_hopper = E::hopper(auto::tiled_kernel(E::DTYPE)).module().runs_on(gpu.info.compute_capability);
        // Where the driver cannot say how many clusters fit, as if they
        // packed the SMs: a cluster rung picked then reports the driver's
        // error when it runs.
        let machine = Machine::of_gpu(gpu).unwrap_or(Machine::of(&gpu.info));
        auto::choose(E::DTYPE, size, &machine, auto::Hopper::of(E::DTYPE, size, on_hopper))
    }

    /// The rung the choice runs, the choice, and the size the rung runs
    /// at (padded, where the choice says so).
    fn picked<E: SmallMElement>(gpu: &Gpu, size: (u32, u32, u32)) -> (&'static dyn RungKernel<E>, auto::Choice, (u32, u32, u32)) {
        let choice = Self::choose::<E>(gpu, size);
        let kernel: &'static dyn RungKernel<E> = match choice.pick {
            Pick::SmallM(_) => &SmallMRung,
            // The model offers it only for bf16.
            Pick::SmallMTensor(_) => E::small_m_tensor().unwrap_or(&SmallMRung),
            Pick::Tiled => E::hopper(auto::tiled_kernel(E::DTYPE)),
            Pick::NarrowTiles(number) => {
                E::hopper(auto::narrow_rungs(E::DTYPE).get(number).map_or(auto::tiled_kernel(E::DTYPE), |rung| &rung.kernel))
            }
            Pick::SplitK(_) => E::hopper(auto::split_kernel(E::DTYPE)),
            // The model offers these only where the ladder has them.
            Pick::ClusterSplitK(_) => E::hopper(auto::cluster_split_kernel(E::DTYPE).unwrap_or(auto::split_kernel(E::DTYPE))),
            Pick::SplitB(_) => E::hopper(auto::split_b_kernel(E::DTYPE).unwrap_or(auto::split_kernel(E::DTYPE))),
            Pick::SwapAb(_) => E::hopper(auto::swap_kernel(E::DTYPE).unwrap_or(auto::split_kernel(E::DTYPE))),
            Pick::DeepK(_) => E::hopper(auto::deep_k_kernel(E::DTYPE).unwrap_or(auto::split_kernel(E::DTYPE))),
            Pick::FittedTiles { .. } => E::fitted().unwrap_or(E::hopper(auto::split_kernel(E::DTYPE))),
            Pick::PairedTiles { .. } => E::paired().unwrap_or(E::hopper(auto::split_kernel(E::DTYPE))),
            Pick::Portable => E::portable(),
        };
        let runs_at = choice.padded.unwrap_or(size);
        (kernel, choice, runs_at)
    }
}

impl<E: SmallMElement> RungKernel<E> for AutoRung {
    fn name(&self) -> &'static str {
        "auto"
    }

    /// The small-M kernel, its fallback, is in the portable module.
    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        let (kernel, _, runs_at) = Self::picked::<E>(gpu, size);
        kernel.entry(gpu, runs_at)
    }

    fn arithmetic_at(&self, gpu: &Gpu, size: (u32, u32, u32)) -> super::accuracy::Arithmetic {
        let (kernel, _, runs_at) = Self::picked::<E>(gpu, size);
        kernel.arithmetic_at(gpu, runs_at)
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape {
        let (kernel, _, runs_at) = Self::picked::<E>(gpu, size);
        kernel.shape(gpu, runs_at)
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        let (kernel, choice, runs_at) = Self::picked::<E>(gpu, size);
        let detail = kernel.explain(gpu, runs_at).map_or(String::new(), |d| format!(" ({d})"));
        Some(format!("{}{detail}", choice.why))
    }

    /// The picked rung on the buffers; where the choice pads, on padded
    /// copies of them ([`super::padded`]).
    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<E>) -> Result<Box<dyn Gemm<E>>> {
        let (kernel, choice, runs_at) = Self::picked::<E>(gpu, buffers.size());
        match choice.padded {
            None => kernel.prepare(gpu, buffers),
            Some(_) => E::padded(gpu, buffers, kernel, runs_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "auto" runs the fitted-tiles rung where its model has tile shapes
    /// for the element type, and only there.
    #[test]
    fn the_fitted_rung_exists_where_the_model_has_tiles() {
        assert!(<bf16 as SmallMElement>::fitted().is_some() && !auto::fitted_tiles(bf16::DTYPE).is_empty());
        assert!(<f32 as SmallMElement>::fitted().is_none() && auto::fitted_tiles(f32::DTYPE).is_empty());
        assert!(<bf16 as SmallMElement>::paired().is_some() && !auto::paired_tiles(bf16::DTYPE).is_empty());
        assert!(<f32 as SmallMElement>::paired().is_none() && auto::paired_tiles(f32::DTYPE).is_empty());
    }
}
