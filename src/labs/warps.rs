//! `ptx-ladder warps`: the model's warp map of a block, confirmed by asking the
//! hardware which lane each thread became.

use crate::device::{Gpu, pointer};
use crate::error::{Context as _, Error, Result};
use cust::memory::{CopyDestination, DeviceBuffer};
use kernels_gpu::labs::warps::WARP_LANES;
use kernels_gpu::launch::Dim3;
use kernels_gpu::launch::LaunchShape;

/// Launches one block of shape `block` and checks that every thread's
/// hardware lane is its linear rank (x fastest, then y, then z) mod 32,
/// which is the rule the model's warp map follows. Returns the threads
/// checked.
pub fn check(gpu: &Gpu, (x, y, z): (u32, u32, u32)) -> Result<u32> {
    let threads = x * y * z;
    let shape = LaunchShape { grid: Dim3::new(1, 1, 1), block: Dim3::new(x, y, z), shared_bytes: 0 };
    let lanes = DeviceBuffer::<u32>::from_slice(&vec![u32::MAX; threads as usize]).context("allocating lane numbers")?;
    gpu.launch(&WARP_LANES, shape, (pointer(&lanes),))?;
    gpu.synchronize()?;
    let mut got = vec![0u32; threads as usize];
    lanes.copy_to(&mut got[..]).context("copying lane numbers back")?;
    for (rank, &lane) in got.iter().enumerate() {
        if lane != rank as u32 % 32 {
            return Err(Error::new(format!("thread {rank} of the block ran as lane {lane}, not {}", rank % 32)));
        }
    }
    Ok(threads)
}
