//! Building blocks of the Hopper rungs (sm_90a): wgmma reading tiles from
//! shared memory, TMA copies completing on mbarriers, and producer/consumer
//! warpgroups. The rungs themselves are in their ladders
//! ([`crate::bf16`] rungs 2-7 and 9-17, [`crate::sgemm`] rungs 12, 14 and 15).
//!
//! These kernels exist only in the second PTX module, built for `sm_90a`
//! (`--cfg ptx_ladder_hopper`); on the host this module gives their names,
//! tilings and launch shapes, so host and kernels agree by construction.
//!
//! - [`HopperTiling`], [`HopperKernel`]: a Hopper GEMM's shape and entry;
//! - `ring`: the mbarrier ring of stages between producer and consumers;
//! - [`stages`]: the BF16 rungs' stages in shared memory and their producer;
//! - `consumer`: a consumer warpgroup's k-tiles (issue, retire, finish);
//! - `tile_loop`: the whole kernel of BF16 rungs 2-4 and 9 (K split);
//! - [`tf32x3`]: the 3xTF32 GEMM of SGEMM rungs 12, 14 and 15;
//! - [`tma_store`]: a consumer's tile of C stored by TMA (rungs 5 and 6);
//! - [`cluster`]: block setup and producer of the clustered rungs (6, 7, 14 and 16);
//! - [`deferred`]: the clustered GEMM whose warps store C, half a tile late (rungs 7, 14 and 16);
//! - [`cluster_sum`]: a tile's slices of K added inside its cluster (rungs 10, 12);
//! - [`swap_ab`]: the GEMM computed as Cᵀ for few rows of A (rungs 11-13), and in pairs along M sharing the weights (rung 17).
//!
//! The modules named in plain text exist only in the sm_90a build.

pub mod cluster;
pub mod cluster_sum;
#[cfg(ptx_ladder_hopper)]
pub mod consumer;
pub mod deferred;
#[cfg(ptx_ladder_hopper)]
pub mod ring;
pub mod stages;
pub mod swap_ab;
pub mod tf32x3;
#[cfg(ptx_ladder_hopper)]
pub mod tile_loop;
pub mod tma_store;

use crate::LaunchBounds;
use crate::gemm::split_k::{ClusterSlots, KSlices};
use crate::gemm::tiling::Tiling;
use crate::launch::{Dim3, Kernel, LaunchShape};

/// The shape of one Hopper GEMM kernel: the ladder's [`Tiling`] (block
/// tile `tile_m`×`tile_n`, `tile_k`-deep stages, `stages` of them in
/// flight; each warp's 16 rows of its warpgroup's 64 as the warp tile, and
/// the wgmma accumulator layout's 2 rows × `tile_n / 4` columns per thread
/// as the thread tile), plus what is Hopper's own: whether a producer
/// warpgroup is added, whether the grid is persistent, and the bytes one
/// stage takes in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopperTiling {
    pub tiling: Tiling,
    pub specialized: bool,
    /// One block per multiprocessor, each walking many tiles, instead of
    /// one block per tile.
    pub persistent: bool,
    /// Blocks per cluster, stacked along M: they share B's tiles, each
    /// producer loading its part once for all of them (TMA multicast).
    pub cluster: u32,
    /// Bytes of shared memory one stage's tiles take.
    pub stage_bytes: u32,
    /// Bytes of shared memory between the stages and their barriers: where
    /// the epilogue stages C (rungs 5-7), or where SGEMM rung 15 writes B's
    /// TF32 parts (0: none).
    pub scratch_bytes: u32,
    /// Rows of C one TMA store writes (0: C is stored from registers).
    pub store_rows: u32,
}

/// Shared memory one block may hold on Hopper (227 KB, the opt-in limit).
pub const SHARED_BYTES_PER_BLOCK: u32 = 227 * 1024;

/// The [`Tiling`] of a wgmma kernel whose `consumers` warpgroups each
/// compute 64 rows × `tile_n` (wgmma's M is 64; each warp holds 16 rows).
pub const fn wgmma_tiling(consumers: u32, tile_n: u32, tile_k: u32, stages: u32) -> Tiling {
    let tiling = Tiling::block(64 * consumers, tile_n, tile_k, 2, tile_n / 4).with_warp_tile(16, tile_n).with_stages(stages);
    tiling.check();
    tiling
}

impl HopperTiling {
    /// Rows of C per block: 64 per consumer warpgroup (wgmma's M).
    pub const fn tile_m(&self) -> u32 {
        self.tiling.tile_m
    }

    /// Consumer warpgroups: the ones that run wgmma.
    pub const fn consumers(&self) -> u32 {
        self.tiling.threads() / crate::gpu::hopper::WARPGROUP_THREADS
    }

    /// The consumers' threads, and a producer warpgroup's when specialized.
    pub const fn threads(&self) -> u32 {
        crate::gpu::hopper::WARPGROUP_THREADS * (self.consumers() + self.specialized as u32)
    }

    /// Stages, the scratch space (the epilogue's staging of C), the stages' mbarriers (full and
    /// empty per stage), and 1024 bytes of slack to align the first tile
    /// for the 128-byte swizzle.
    pub const fn shared_bytes(&self) -> u32 {
        self.tiling.stages * (self.stage_bytes + 2 * 8) + self.scratch_bytes + crate::gpu::hopper::descriptor::ATOM_BYTES
    }

    /// The same shape with as many stages as fit in
    /// [`SHARED_BYTES_PER_BLOCK`] beside its scratch, as
    /// [`HopperTiling::shared_bytes`] counts them.
    pub const fn with_most_stages(self) -> HopperTiling {
        let one = HopperTiling { tiling: self.tiling.with_stages(1), ..self }.shared_bytes();
        let each = HopperTiling { tiling: self.tiling.with_stages(2), ..self }.shared_bytes() - one;
        HopperTiling { tiling: self.tiling.with_stages(1 + (SHARED_BYTES_PER_BLOCK - one) / each), ..self }
    }

    /// Tiles of C (`tile_m`×`tile_n` each).
    pub const fn tiles(&self, m: u32, n: u32) -> u32 {
        m.div_ceil(self.tile_m()) * n.div_ceil(self.tiling.tile_n)
    }

    /// A 1D grid: one block per unit of work (a `tile_m`×`tile_n` tile of
    /// C, times `slices` of K), or, when persistent, one per multiprocessor
    /// (fewer if there are fewer units). A cluster takes `cluster` tiles
    /// stacked along M, so the grid is a multiple of `cluster`.
    pub const fn launch(&self, m: u32, n: u32, slices: u32, multiprocessors: u32) -> LaunchShape {
        let units = m.div_ceil(self.tile_m() * self.cluster) * n.div_ceil(self.tiling.tile_n) * slices;
        let clusters = multiprocessors / self.cluster;
        let blocks = self.cluster * if self.persistent && clusters < units { clusters } else { units };
        LaunchShape { grid: Dim3::new(blocks, 1, 1), block: Dim3::new(self.threads(), 1, 1), shared_bytes: self.shared_bytes() }
    }
}

/// Parameters of the BF16 Hopper GEMMs: `(m, n, k, maps, c)`, `C = A·B`.
/// `maps` points to A's and B's tensor maps in global memory, 16 words
/// each, made over the BF16 inputs themselves (so K and N must be multiples
/// of 8: TMA reads rows of whole 16-byte units).
pub type Bf16Params = (u32, u32, u32, *const u64, *mut f32);

/// Parameters of the BF16 Hopper GEMMs that store C by TMA (rungs 5-7): `(m, n, k, maps)`, `C = A·B`. `maps` points to
/// the tensor maps of A, B and C (16 words each); C is written through its
/// map, so the kernel takes no pointer to it.
pub type Bf16StoreParams = (u32, u32, u32, *const u64);

/// Parameters of the split-K GEMMs: `(m, n, k, maps, partial,
/// slice_k_tiles)`. Each unit of work writes slice `s`'s partial C,
/// `m`×`n` fp32 at `partial + s·m·n`, from K's k-tiles
/// `s·slice_k_tiles ..` (see [`crate::gemm::split_k`]); a second kernel adds
/// the slices. `maps` are those of the unsplit kernel of the same
/// element type.
pub type SplitParams = (u32, u32, u32, *const u64, *mut f32, u32);

/// Parameters of the 3xTF32 GEMM: `(m, n, k, alpha, maps, beta, c)`,
/// `C = alpha·A·B + beta·C` as the SGEMM ladder's. `maps` points to the
/// tensor maps of A big, A small, Bᵀ big and Bᵀ small, the padded split
/// that [`sgemm_tf32x3_split_rows`](crate::sgemm::r12_tf32x3_wgmma::SGEMM_TF32X3_SPLIT_ROWS) and [`sgemm_tf32x3_split_transposed`](crate::sgemm::r12_tf32x3_wgmma::SGEMM_TF32X3_SPLIT_TRANSPOSED)
/// make first.
pub type Tf32x3Params = (u32, u32, u32, f32, *const u64, f32, *mut f32);

/// A Hopper GEMM's typed entry point, which also says what the host
/// prepares for it.
#[derive(Clone, Copy, Debug)]
pub enum Entry {
    Bf16(Kernel<Bf16Params>),
    Bf16Store(Kernel<Bf16StoreParams>),
    Tf32x3(Kernel<Tf32x3Params>),
    /// BF16 with K split ([`SplitParams`], A's and B's maps as [`Entry::Bf16`]).
    Bf16Split(Kernel<SplitParams>),
    /// 3xTF32 with K split ([`SplitParams`], the maps as [`Entry::Tf32x3`]).
    Tf32x3Split(Kernel<SplitParams>),
    /// 3xTF32 with K split, B read as it is and split in shared memory
    /// ([`SplitParams`]; maps: A big, A small, B).
    Tf32x3RawB(Kernel<SplitParams>),
    /// BF16 with K split and the slices added in a cluster of one block
    /// per slice ([`SplitParams`], but the fifth parameter is C itself).
    Bf16ClusterSplit(Kernel<SplitParams>),
}

/// What the host needs to launch one Hopper GEMM.
#[derive(Clone, Copy, Debug)]
pub struct HopperKernel {
    pub entry: Entry,
    pub tiling: HopperTiling,
}

impl HopperKernel {
    /// The `.entry` name in the sm_90a module.
    pub const fn name(&self) -> &'static str {
        match self.entry {
            Entry::Bf16(kernel) => kernel.name(),
            Entry::Bf16Store(kernel) => kernel.name(),
            Entry::Tf32x3(kernel) => kernel.name(),
            Entry::Bf16Split(kernel) | Entry::Tf32x3Split(kernel) | Entry::Tf32x3RawB(kernel) | Entry::Bf16ClusterSplit(kernel) => {
                kernel.name()
            }
        }
    }

    /// The launch bounds its `#[kernel]` attribute declares: one block per
    /// multiprocessor with all registers for it (setmaxnreg needs this cap
    /// at entry, and the non-specialized kernels need the room), and the
    /// cluster size.
    pub const fn bounds(&self) -> Option<LaunchBounds> {
        match self.entry {
            Entry::Bf16(kernel) => kernel.bounds(),
            Entry::Bf16Store(kernel) => kernel.bounds(),
            Entry::Tf32x3(kernel) => kernel.bounds(),
            Entry::Bf16Split(kernel) | Entry::Tf32x3Split(kernel) | Entry::Tf32x3RawB(kernel) | Entry::Bf16ClusterSplit(kernel) => {
                kernel.bounds()
            }
        }
    }

    /// Bytes per element of B as it reads it: 2 for bf16, 4 for each of
    /// the 3xTF32 rungs' big and small parts, 4 for rung 15's fp32.
    pub const fn input_bytes(&self) -> u32 {
        match self.entry {
            Entry::Bf16(_) | Entry::Bf16Store(_) | Entry::Bf16Split(_) | Entry::Bf16ClusterSplit(_) => 2,
            Entry::Tf32x3(_) | Entry::Tf32x3Split(_) => 8,
            Entry::Tf32x3RawB(_) => 4,
        }
    }

    /// Whether it splits K ([`Entry::Bf16Split`], [`Entry::Tf32x3Split`],
    /// [`Entry::Tf32x3RawB`], [`Entry::Bf16ClusterSplit`]).
    pub const fn splits_k(&self) -> bool {
        matches!(self.entry, Entry::Bf16Split(_) | Entry::Tf32x3Split(_) | Entry::Tf32x3RawB(_) | Entry::Bf16ClusterSplit(_))
    }

    /// Whether it adds the slices of K inside a cluster of one block per
    /// slice ([`Entry::Bf16ClusterSplit`]), launched with that cluster
    /// size, rather than by a second kernel.
    pub const fn sums_in_cluster(&self) -> bool {
        matches!(self.entry, Entry::Bf16ClusterSplit(_))
    }

    /// Whether, with K cut as `slices`, its blocks run as clusters of one
    /// block per slice, each block one unit and all of a cluster's blocks
    /// resident at once: a kernel that sums in a cluster, K in more than
    /// one slice. With K whole its cluster is one block with nothing to
    /// add.
    pub const fn runs_in_clusters(&self, slices: KSlices) -> bool {
        self.sums_in_cluster() && slices.count > 1
    }

    /// How it cuts K for an `m`×`n`×`k` problem on a GPU with `slots`
    /// ([`ClusterSlots::multiprocessors`] SMs; clusters matter only to a
    /// kernel that [sums in a cluster](HopperKernel::sums_in_cluster)):
    /// into slices when it splits K ([`KSlices::plan`],
    /// [`KSlices::plan_in_cluster`]), else whole.
    pub const fn slices(&self, (m, n, k): (u32, u32, u32), slots: ClusterSlots) -> KSlices {
        let k_tiles = k.div_ceil(self.tiling.tiling.tile_k);
        if !self.splits_k() {
            return KSlices::whole(k_tiles);
        }
        let (tile_m, tile_n, tile_k) = (self.tiling.tile_m(), self.tiling.tiling.tile_n, self.tiling.tiling.tile_k);
        let k_tile_bytes = tile_k * tile_n * self.input_bytes();
        let tile_bytes = 4 * (if m < tile_m { m } else { tile_m }) * (if n < tile_n { n } else { tile_n });
        let tiles = self.tiling.tiles(m, n);
        if self.sums_in_cluster() {
            KSlices::plan_in_cluster(tiles, k_tiles, slots, k_tile_bytes, tile_bytes)
        } else {
            KSlices::plan(tiles, k_tiles, slots.multiprocessors(), k_tile_bytes, tile_bytes)
        }
    }

    /// Its grid, block and shared memory for `size`. Where it
    /// [runs in clusters](HopperKernel::runs_in_clusters) the grid has one
    /// block per unit even for a persistent tiling; with K whole a
    /// persistent tiling keeps one block per multiprocessor.
    pub const fn launch(&self, size: (u32, u32, u32), slots: ClusterSlots) -> LaunchShape {
        let slices = self.slices(size, slots);
        let tiling = if self.runs_in_clusters(slices) { HopperTiling { persistent: false, ..self.tiling } } else { self.tiling };
        tiling.launch(size.0, size.1, slices.count, slots.multiprocessors())
    }
}

/// Where tile number `tile` of a `grid` of (rows, columns) tiles starts,
/// as (row, column) of C. Tiles go down `group_m` tile-rows before moving
/// one column right, then on to the next band of `group_m` rows: the
/// blocks running at once then share a few rows of A and a few columns of
/// B in L2, where plain row-by-row order would stream all of B for every
/// tile-row. `group_m` = 1 is plain row-major order.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub(crate) fn tile_origin(tile: u32, (rows, cols): (u32, u32), group_m: u32, (tile_m, tile_n): (u32, u32)) -> (u32, u32) {
    let per_group = group_m * cols;
    let first_row = (tile / per_group) * group_m;
    let height = (rows - first_row).min(group_m);
    let within = tile % per_group;
    ((first_row + within % height) * tile_m, (within / height) * tile_n)
}

/// BLAS's epilogue, `C = alpha·acc + beta·C`; C is not read when beta is 0.
#[cfg(ptx_ladder_hopper)]
#[derive(Clone, Copy)]
pub(crate) struct Scale {
    pub(crate) alpha: f32,
    pub(crate) beta: f32,
}

#[cfg(ptx_ladder_hopper)]
impl Scale {
    /// `C = acc`.
    pub(crate) const NONE: Scale = Scale { alpha: 1.0, beta: 0.0 };

    #[inline(always)]
    pub(crate) fn apply(self, acc: f32, c: *const f32) -> f32 {
        if self.beta == 0.0 { self.alpha * acc } else { self.alpha * acc + self.beta * unsafe { c.read() } }
    }
}

/// Where pair `pair` of a warpgroup thread's accumulators lies in its
/// warpgroup's 64-row tile, in the wgmma register layout (see
/// [`crate::gpu::hopper::wgmma`]): the row, and the column of the pair's
/// first value. Pair `p` is accumulators `2p` and `2p + 1`, neighbouring
/// columns; pairs alternate between two rows 8 apart, then move 8
/// columns right.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub(crate) fn pair_position(thread: u32, pair: u32) -> (u32, u32) {
    let (warp, lane) = (thread / 32, thread % 32);
    (16 * warp + lane / 4 + 8 * (pair % 2), 8 * (pair / 2) + 2 * (lane % 4))
}

/// Writes `values`, scaled, to (`row`, `col..col + 2`) of the row-major
/// `m`×`n` matrix `c`, skipping what lies outside it: one 8-byte store
/// where `n` is even (so the pair is 8-byte aligned).
///
/// # Safety
/// `c` is an `m`×`n` matrix.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub(crate) unsafe fn store_pair(values: (f32, f32), scale: Scale, c: *mut f32, (m, n): (u32, u32), (row, col): (u32, u32)) {
    type F32x2 = core::simd::Simd<f32, 2>;
    if row < m && col < n {
        let p = unsafe { c.add(row as usize * n as usize + col as usize) };
        let v0 = scale.apply(values.0, p);
        let v1 = if col + 1 < n { scale.apply(values.1, unsafe { p.add(1) }) } else { 0.0 };
        unsafe {
            if col + 1 < n && n % 2 == 0 {
                p.cast::<F32x2>().write(F32x2::from_array([v0, v1]));
            } else {
                p.write(v0);
                if col + 1 < n {
                    p.add(1).write(v1);
                }
            }
        }
    }
}

/// Writes a warpgroup's 64×N accumulator tile (the wgmma register layout,
/// see [`pair_position`]), scaled, to rows `row0..` and columns `col0..` of
/// the row-major `m`×`n` matrix `c`, skipping what lies outside it, a pair
/// of neighbouring columns at a time ([`store_pair`]).
///
/// # Safety
/// `c` is an `m`×`n` matrix; `thread` is the thread's rank in its warpgroup.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub(crate) unsafe fn store_accumulators<const N: usize>(
    acc: &[f32; N],
    scale: Scale,
    c: *mut f32,
    (m, n): (u32, u32),
    (row0, col0): (u32, u32),
    thread: u32,
) {
    // The rows and columns of pair_position, for pair 2j + half.
    let (warp, lane) = (thread / 32, thread % 32);
    let row = row0 + 16 * warp + lane / 4;
    for j in 0..N / 4 {
        let col = col0 + 8 * j as u32 + 2 * (lane % 4);
        for half in 0..2 {
            let values = (acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
            unsafe { store_pair(values, scale, c, (m, n), (row + 8 * half as u32, col)) };
        }
    }
}
