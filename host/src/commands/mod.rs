//! One module per command.

pub mod exercise;
pub mod info;
pub mod labs;
pub mod matmul;
pub mod memory;
pub mod pitfalls;
pub mod shapes;
pub mod sweep;
pub mod vecadd;

use crate::Failure;
use ptx_ladder::device::Gpu;

/// The GPU, or (inner `Err`) the reason this machine has none; any other
/// failure to open it is an error.
pub fn open_gpu() -> Result<Result<Gpu, ptx_ladder::Error>, Failure> {
    match Gpu::open() {
        Ok(gpu) => Ok(Ok(gpu)),
        Err(e) if e.is_no_gpu() => Ok(Err(e)),
        Err(e) => Err(e.into()),
    }
}

/// The one line (and exit 3) of a command whose measurement could not run.
pub fn no_gpu(e: &ptx_ladder::Error) -> Failure {
    Failure::Runtime(ptx_ladder::Error::no_gpu(format!("the measurement needs a CUDA GPU: {e}")))
}

/// Ends a command that ran what needs no GPU: [`no_gpu`] when there was none.
pub fn needs_gpu(gpu: &Result<Gpu, ptx_ladder::Error>) -> Result<(), Failure> {
    gpu.as_ref().map(|_| ()).map_err(no_gpu)
}
