//! Where am I? Thread, block and grid coordinates, and the indices built
//! from them.

/// A 3D extent or coordinate, as CUDA's `dim3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// Number of points in the extent.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

#[cfg(target_arch = "nvptx64")]
mod special {
    use super::Dim3;
    use core::arch::nvptx::*;

    #[inline(always)]
    pub fn thread_idx() -> Dim3 {
        unsafe { Dim3::new(_thread_idx_x(), _thread_idx_y(), _thread_idx_z()) }
    }
    #[inline(always)]
    pub fn block_idx() -> Dim3 {
        unsafe { Dim3::new(_block_idx_x(), _block_idx_y(), _block_idx_z()) }
    }
    #[inline(always)]
    pub fn block_dim() -> Dim3 {
        unsafe { Dim3::new(_block_dim_x(), _block_dim_y(), _block_dim_z()) }
    }
    #[inline(always)]
    pub fn grid_dim() -> Dim3 {
        unsafe { Dim3::new(_grid_dim_x(), _grid_dim_y(), _grid_dim_z()) }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
mod special {
    use super::Dim3;
    use crate::gpu::emulated::current;

    pub fn thread_idx() -> Dim3 {
        current().thread
    }
    pub fn block_idx() -> Dim3 {
        current().block
    }
    pub fn block_dim() -> Dim3 {
        current().block_dim
    }
    pub fn grid_dim() -> Dim3 {
        current().grid_dim
    }
}

/// This thread's coordinate inside its block (`threadIdx`).
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    special::thread_idx()
}

/// This block's coordinate inside the grid (`blockIdx`).
#[inline(always)]
pub fn block_idx() -> Dim3 {
    special::block_idx()
}

/// Threads per block in each dimension (`blockDim`).
#[inline(always)]
pub fn block_dim() -> Dim3 {
    special::block_dim()
}

/// Blocks per grid in each dimension (`gridDim`).
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    special::grid_dim()
}

/// Global x index: `blockIdx.x * blockDim.x + threadIdx.x`.
#[inline(always)]
pub fn global_x() -> u32 {
    block_idx().x * block_dim().x + thread_idx().x
}

/// Global y index: `blockIdx.y * blockDim.y + threadIdx.y`.
#[inline(always)]
pub fn global_y() -> u32 {
    block_idx().y * block_dim().y + thread_idx().y
}

/// Global z index: `blockIdx.z * blockDim.z + threadIdx.z`.
#[inline(always)]
pub fn global_z() -> u32 {
    block_idx().z * block_dim().z + thread_idx().z
}

/// Total threads in the grid along x: the stride of a grid-stride loop.
#[inline(always)]
pub fn grid_threads_x() -> u32 {
    grid_dim().x * block_dim().x
}

/// Linear thread number inside the block, x fastest, then y, then z: the
/// order in which the hardware deals threads into warps.
#[inline(always)]
pub fn thread_rank() -> u32 {
    let t = thread_idx();
    let d = block_dim();
    (t.z * d.y + t.y) * d.x + t.x
}

/// Threads in one block.
#[inline(always)]
pub fn threads_per_block() -> u32 {
    let d = block_dim();
    d.x * d.y * d.z
}

/// Which warp of its block this thread belongs to.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_rank() / crate::gpu::WARP_SIZE
}

/// This thread's lane (0..32) inside its warp.
#[inline(always)]
pub fn lane_id() -> u32 {
    thread_rank() % crate::gpu::WARP_SIZE
}
