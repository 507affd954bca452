//! What the host needs to launch a kernel, defined next to the kernels so
//! host and device agree on it by construction: the typed [`Kernel`]
//! handles that `#[kernel]` generates, and the grid, block and shared memory
//! of a launch ([`LaunchShape`]).

use core::marker::PhantomData;

use crate::LaunchBounds;

pub use crate::gpu::Dim3;

/// The typed handle of one kernel: its entry name in the PTX module, and its
/// parameter types as the tuple `Args` (device pointers as `*const T` /
/// `*mut T`). `#[kernel]` declares one per kernel, named after it in capitals
/// (`vec_add` → `VEC_ADD`), so the name and signature cannot drift. The
/// host's `Gpu::launch` accepts only arguments of these types, in this order.
/// A kernel that declares launch bounds in its attribute
/// (`#[kernel(bounds(256, 2))]`) carries them here, for the builder.
pub struct Kernel<Args> {
    name: &'static str,
    bounds: Option<LaunchBounds>,
    // `fn(Args)`: the handle neither owns nor shares an `Args`, so it is
    // `Copy`, `Send` and `Sync` whatever the parameter types are.
    args: PhantomData<fn(Args)>,
}

impl<Args> Kernel<Args> {
    pub const fn new(name: &'static str) -> Self {
        Kernel { name, bounds: None, args: PhantomData }
    }

    /// The handle of a kernel run with at most `max_threads` threads per
    /// block, `min_blocks_per_sm` blocks per multiprocessor, and blocks in
    /// clusters of `cluster` (1: no cluster).
    pub const fn with_bounds(self, max_threads: u32, min_blocks_per_sm: u32, cluster: u32) -> Self {
        let bounds = LaunchBounds { kernel: self.name, max_threads, min_blocks_per_sm, cluster };
        Kernel { bounds: Some(bounds), ..self }
    }

    /// The launch bounds its attribute declares, if any.
    pub const fn bounds(&self) -> Option<LaunchBounds> {
        self.bounds
    }

    /// The `.entry` name in the PTX module.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<Args> Clone for Kernel<Args> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Args> Copy for Kernel<Args> {}

/// The entry name, padded as asked (`{:<11}`).
impl<Args> core::fmt::Display for Kernel<Args> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.pad(self.name)
    }
}

impl<Args> core::fmt::Debug for Kernel<Args> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Kernel({})", self.name)
    }
}

/// Grid, block and dynamic shared memory of one launch: the launch
/// configuration every kernel launch takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_bytes: u32,
}

impl LaunchShape {
    /// A one-dimensional launch of `blocks` blocks of `threads` threads.
    pub const fn linear(blocks: u32, threads: u32, shared_bytes: u32) -> Self {
        LaunchShape { grid: Dim3::new(blocks, 1, 1), block: Dim3::new(threads, 1, 1), shared_bytes }
    }
}

/// Tiles of `tile` needed to cover `extent` (the round-up every launch makes).
pub const fn tile_count(extent: u32, tile: u32) -> u32 {
    extent.div_ceil(tile)
}

/// The usual shape of a tiled GEMM launch: one block per `tile_m`×`tile_n`
/// tile of C, x over column tiles (so neighbouring blocks share rows of A).
pub const fn tiled_launch(m: u32, n: u32, tile_m: u32, tile_n: u32, threads: u32, shared_bytes: u32) -> LaunchShape {
    LaunchShape { grid: Dim3::new(tile_count(n, tile_n), tile_count(m, tile_m), 1), block: Dim3::new(threads, 1, 1), shared_bytes }
}

/// Bytes of `floats` f32 values.
pub const fn float_bytes(floats: u32) -> u32 {
    floats * core::mem::size_of::<f32>() as u32
}
