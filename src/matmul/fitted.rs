//! BF16 rungs 13 and 17 on the host: of the swapped GEMM's tile shapes
//! ([`kernels_gpu::bf16::r13_fitted_tiles::TILES`]), the one that fits the
//! shape ([`auto::fitted_choice`]: the fewest rows that hold M, then the
//! columns predicted fastest); of its pairs sharing the weights
//! ([`kernels_gpu::bf16::r17_swap_ab_pairs::TILES`]), the fewest rows
//! whose pairs hold M ([`auto::paired_choice`]); each prepared and run as
//! any other Hopper kernel.

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

/// The paired-tiles rung.
pub struct PairedTilesRung;

/// Where the driver cannot say how many clusters fit, as if they packed
/// the SMs: the launch then reports the driver's error.
fn machine(gpu: &Gpu) -> Machine {
    Machine::of_gpu(gpu).unwrap_or(Machine::of(&gpu.info))
}

/// A rung that runs one of several tile shapes, chosen per shape.
trait TileChoice: Sync {
    /// The rung's name in tables.
    const NAME: &'static str;
    /// The tile shape for `size` on `gpu`, and the model's reason.
    fn kernel(gpu: &Gpu, size: (u32, u32, u32)) -> (HopperKernel, String);
}

impl TileChoice for FittedTilesRung {
    const NAME: &'static str = "fitted_tiles";

    fn kernel(gpu: &Gpu, size: (u32, u32, u32)) -> (HopperKernel, String) {
        let tiles = auto::fitted_tiles(Dtype::Bf16);
        let Some((tile, seconds, slices)) = auto::fitted_choice(Dtype::Bf16, size, &machine(gpu)) else {
            return (tiles[0], String::new());
        };
        let kernel = tiles[tile];
        (kernel, format!("{}; predicted {:.0} us", auto::fitted_words(&kernel, slices), seconds * 1e6))
    }
}

impl TileChoice for PairedTilesRung {
    const NAME: &'static str = "paired_tiles";

    /// Where M fits in one tile of rows (no pair to share with), the
    /// pairs of the fewest rows.
    fn kernel(gpu: &Gpu, size: (u32, u32, u32)) -> (HopperKernel, String) {
        let tiles = auto::paired_tiles(Dtype::Bf16);
        let Some((tile, seconds, slices)) = auto::paired_choice(Dtype::Bf16, size, &machine(gpu)) else {
            return (tiles[0], String::new());
        };
        let kernel = tiles[tile];
        (kernel, format!("{}; predicted {:.0} us", auto::paired_words(&kernel, slices), seconds * 1e6))
    }
}

impl<T: TileChoice> RungKernel<bf16> for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn module(&self) -> PtxModule {
        PtxModule::Sm90a
    }

    fn entry(&self, gpu: &Gpu, size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        (PtxModule::Sm90a, T::kernel(gpu, size).0.name())
    }

    fn explain(&self, gpu: &Gpu, size: (u32, u32, u32)) -> Option<String> {
        Some(T::kernel(gpu, size).1)
    }

    fn shape_limit(&self, size: (u32, u32, u32)) -> Option<&'static str> {
        bf16_shape_limit(size)
    }

    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape {
        RungKernel::<bf16>::shape(&T::kernel(gpu, size).0, gpu, size)
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<bf16>) -> Result<Box<dyn Gemm<bf16>>> {
        RungKernel::<bf16>::prepare(&T::kernel(gpu, buffers.size()).0, gpu, buffers)
    }
}
