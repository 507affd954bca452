//! BF16 rung 13 on the host: of the swapped GEMM's tile shapes
//! ([`kernels_gpu::bf16::r13_fitted_tiles::TILES`]), the one that fits the
//! shape ([`auto::fitted_choice`]: the fewest rows that hold M, then the
//! columns predicted fastest), prepared and run as any other Hopper
//! kernel.

use super::auto::{self, Machine};
use super::buffers::Buffers;
use super::dtype::Dtype;
use super::element::Gemm;
use super::hopper::bf16_shape_limit;
use super::rung::RungKernel;
use crate::device::{Gpu, PtxModule};
use crate::error::Result;
use half::bf16;
use kernels_gpu::gemm::hopper::HopperKernel;
use kernels_gpu::launch::LaunchShape;

/// The fitted-tiles rung.
pub struct FittedTilesRung;

impl FittedTilesRung {
    /// The tile shape for `size` on `gpu`, and the model's reason.
    fn kernel(gpu: &Gpu, size: (u32, u32, u32)) -> (HopperKernel, String) {
        // Where the driver cannot say how many clusters fit, as if they
        // packed the SMs: the launch then reports the driver's error.
        let machine = Machine::of_gpu(gpu).unwrap_or(Machine::of(&gpu.info));
        let tiles = auto::fitted_tiles(Dtype::Bf16);
        let Some((tile, seconds, slices)) = auto::fitted_choice(Dtype::Bf16, size, &machine) else {
            return (tiles[0], String::new());
        };
        let kernel = tiles[tile];
        (kernel, format!("{}; predicted {:.0} us", auto::fitted_words(&kernel, slices), seconds * 1e6))
    }
}

impl RungKernel<bf16> for FittedTilesRung {
    fn name(&self) -> &'static str {
        "fitted_tiles"
    }

    fn module(&self) -> PtxModule {
        PtxModule::Sm90a
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        (PtxModule::Sm90a, Self::kernel(gpu, size).0.name())
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        Some(Self::kernel(gpu, size).1)
    }

    fn shape_limit(&self, size: (u32, u32, u32)) -> Option<&'static str> {
        bf16_shape_limit(size)
    }

    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape {
        RungKernel::<bf16>::shape(&Self::kernel(gpu, size).0, gpu, size)
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<bf16>) -> Result<Box<dyn Gemm<bf16>>> {
        RungKernel::<bf16>::prepare(&Self::kernel(gpu, buffers.size()).0, gpu, buffers)
    }
}
