//! The prepared GEMMs of the sm_90a module: [`Bf16Tma`] (the BF16 ladder's
//! wgmma rungs: tensor maps over A, B and, for the kernels storing C by
//! TMA, C) and [`Tf32x3`] (the SGEMM ladder's rungs 12, 14 and 15: A, and
//! for rungs 12 and 14 B, split into big and small TF32 parts, B
//! transposed, in padded scratch buffers with tensor maps over them; rung
//! 15 reads B itself).
//!
//! Each is made once per problem, then run as often as the timing needs.

use super::accuracy::Arithmetic;
use super::buffers::Buffers;
use super::element::{Args, Gemm};
use super::rung::RungKernel;
use crate::device::hopper::{TmaElement, TmaTile, address, tensor_map};
use crate::device::{Gpu, PtxModule, pointer};
use crate::error::{Error, Result};
use cust::memory::{DeviceBuffer, DevicePointer};
use half::bf16;
use kernels_gpu::gemm::hopper::{Bf16Params, Bf16StoreParams, Entry, HopperKernel, SplitParams, Tf32x3Params, cluster, tma_store};
use kernels_gpu::gemm::split_k::{self, ClusterSlots, KSlices};
use kernels_gpu::launch::{Dim3, Kernel, LaunchShape};
use kernels_gpu::sgemm::r12_tf32x3_wgmma as tf32x3;

/// Why a BF16 Hopper rung cannot take this shape, if it cannot: TMA reads
/// rows whose pitch is a multiple of 16 bytes.
pub fn bf16_shape_limit((_, n, k): (u32, u32, u32)) -> Option<&'static str> {
    match (k % 8, n % 8) {
        (0, 0) => None,
        (_, 0) => Some("needs K % 8 == 0 (TMA rows of 16 bytes)"),
        (0, _) => Some("needs N % 8 == 0 (TMA rows of 16 bytes)"),
        _ => Some("needs K % 8 == 0 and N % 8 == 0 (TMA rows of 16 bytes)"),
    }
}

/// Why a 3xTF32 rung cannot take this shape: its split kernel's grid
/// covers K in 32-column steps of at most 65535 blocks; and a kernel that
/// reads B itself by TMA (rung 15) needs rows of whole 16 bytes.
pub fn tf32x3_shape_limit(kernel: &HopperKernel, (_, n, k): (u32, u32, u32)) -> Option<&'static str> {
    if tf32x3::padded_k(k).div_ceil(32) > 65_535 {
        return Some("needs K ≤ 2097120 (the 3xTF32 split's grid)");
    }
    (matches!(kernel.entry, Entry::Tf32x3RawB(_)) && !n.is_multiple_of(4)).then_some("needs N % 4 == 0 (TMA rows of 16 bytes)")
}

/// How many clusters of 1 to 8 blocks of the Hopper GEMMs (one block of
/// about 193 KB of shared memory per SM) this GPU runs at once, as its
/// driver says: what [`KSlices::plan_in_cluster`] cuts K by.
pub fn gemm_cluster_slots(gpu: &Gpu) -> Result<ClusterSlots> {
    cluster_slots(gpu, &kernels_gpu::bf16::r10_cluster_split_k::CLUSTER_SPLIT_K)
}

/// What the kernel's cut of K depends on: the SMs, and for a kernel that
/// adds its slices in a cluster, how many clusters of each size the driver
/// says fit at once.
fn cluster_slots(gpu: &Gpu, kernel: &HopperKernel) -> Result<ClusterSlots> {
    let packed = ClusterSlots::packed(gpu.info.multiprocessors);
    if !kernel.sums_in_cluster() {
        return Ok(packed);
    }
    gpu.cluster_slots(PtxModule::Sm90a, kernel.name(), kernel.tiling.launch(1, 1, 1, packed.multiprocessors()))
}

/// The kernel's launch shape on this GPU: a persistent grid takes one
/// block per multiprocessor. (For the table's occupancy column: where the
/// driver cannot say how many clusters fit, as if they packed the SMs;
/// running the kernel asks again and reports the error.)
fn launch_shape(gpu: &Gpu, kernel: &HopperKernel, size: (u32, u32, u32)) -> LaunchShape {
    let slots = cluster_slots(gpu, kernel).unwrap_or(ClusterSlots::packed(gpu.info.multiprocessors));
    kernel.launch(size, slots)
}

/// A kernel that splits K, set up for one problem: how K was cut, and
/// where the slices are added.
struct SplitK {
    kernel: Kernel<SplitParams>,
    size: (u32, u32, u32),
    shape: LaunchShape,
    slices: KSlices,
    /// One `m`×`n` C per slice, added by a second kernel; one float when
    /// the kernel writes C itself (K whole and C not scaled, or the slices
    /// added in a cluster).
    sums: DeviceBuffer<f32>,
    /// Whether a cluster of one block per slice adds the slices
    /// ([`HopperKernel::sums_in_cluster`]).
    in_cluster: bool,
}

impl SplitK {
    /// `scaled`: whether C may be scaled (`alpha`, `beta`), in which case
    /// even a whole K goes through the workspace and the sum.
    fn new(gpu: &Gpu, kernel: &HopperKernel, entry: Kernel<SplitParams>, size: (u32, u32, u32), scaled: bool) -> Result<SplitK> {
        let slots = cluster_slots(gpu, kernel)?;
        let slices = kernel.slices(size, slots);
        let in_cluster = kernel.sums_in_cluster();
        let floats = match (in_cluster, scaled) {
            (true, _) => 0,
            (false, true) => slices.count as u64 * size.0 as u64 * size.1 as u64,
            (false, false) => slices.workspace(size.0, size.1),
        };
        gpu.ensure_fits(4 * floats as u128, "the split-K partial sums")?;
        let sums = gpu.alloc(floats.max(1) as usize, "the split-K partial sums")?;
        Ok(SplitK { kernel: entry, size, shape: kernel.launch(size, slots), slices, sums, in_cluster })
    }

    /// Runs the kernel with `(partial, slice_k_tiles)` appended to
    /// `(m, n, k, maps)`, then adds the slices into C as `alpha·sum +
    /// beta·C`. With K whole and nothing to scale, the kernel writes C; so
    /// does a kernel that adds the slices in a cluster (which does not
    /// scale).
    fn run(&self, gpu: &Gpu, maps: DevicePointer<u64>, (alpha, beta): (f32, f32), c: DevicePointer<f32>) -> Result<()> {
        let (m, n, k) = self.size;
        let args = (m, n, k, maps, c, self.slices.k_tiles);
        if self.in_cluster {
            if (alpha, beta) != (1.0, 0.0) {
                return Err(Error::new(format!("{} does not scale C (alpha = 1, beta = 0 only)", self.kernel.name())));
            }
            return gpu.launch_clustered_in(PtxModule::Sm90a, &self.kernel, self.shape, self.slices.count, args);
        }
        let direct = self.slices.count == 1 && alpha == 1.0 && beta == 0.0;
        let out = if direct { c } else { pointer(&self.sums) };
        gpu.launch_in(PtxModule::Sm90a, &self.kernel, self.shape, (m, n, k, maps, out, self.slices.k_tiles))?;
        if direct {
            return Ok(());
        }
        let sums = (m * n, self.slices.count, pointer(&self.sums), alpha, beta, c);
        gpu.launch_after_previous(&split_k::SUM_SLICES_AFTER_GEMM, split_k::sum_launch(m * n, self.slices.count), sums)
    }
}

/// How a BF16 Hopper kernel writes C.
enum Store {
    /// Through its own stores, to the C passed at launch.
    Direct(Kernel<Bf16Params>),
    /// By TMA, through a tensor map over this C (made when prepared).
    Tma(Kernel<Bf16StoreParams>, DevicePointer<f32>),
    /// Partial sums per slice of K, then added into C.
    Split(SplitK),
}

/// A BF16 wgmma kernel ready to run on one set of buffers.
pub struct Bf16Tma {
    name: &'static str,
    size: (u32, u32, u32),
    /// The inputs the tensor maps were made for.
    inputs: (DevicePointer<u16>, DevicePointer<u16>),
    /// The tensor maps, 16 words each, where TMA reads them.
    maps: DeviceBuffer<u64>,
    store: Store,
    shape: LaunchShape,
}

impl Bf16Tma {
    /// `kernel` over `buffers`: A (M×K) and B (K×N) row-major bf16 bits, C
    /// (M×N, fp32).
    pub fn new(kernel: HopperKernel, gpu: &Gpu, buffers: &Buffers<bf16>) -> Result<Bf16Tma> {
        let args = buffers.args();
        let (m, n, k) = (args.m, args.n, args.k);
        let store = match kernel.entry {
            Entry::Bf16(entry) => Store::Direct(entry),
            Entry::Bf16Store(entry) => Store::Tma(entry, pointer(args.c)),
            Entry::Bf16Split(entry) | Entry::Bf16ClusterSplit(entry) => Store::Split(SplitK::new(gpu, &kernel, entry, (m, n, k), false)?),
            Entry::Tf32x3(_) | Entry::Tf32x3Split(_) | Entry::Tf32x3RawB(_) => {
                return Err(Error::new(format!("{} is not a BF16 kernel", kernel.name())));
            }
        };
        // Loads (and JIT-compiles) the module now, outside any timing; on a
        // GPU other than Hopper this is the error to show.
        gpu.hopper_module()?;
        if let Some(why) = bf16_shape_limit((m, n, k)) {
            return Err(Error::new(format!("{} {why}", kernel.name())));
        }
        let tiling = kernel.tiling;
        let tile = |address, rows: u32, cols: u32, box_rows| TmaTile {
            element: TmaElement::Bf16,
            address,
            rows: rows as u64,
            cols: cols as u64,
            pitch: cols as u64,
            box_rows,
            box_cols: 64,
        };
        let mut maps = vec![
            tensor_map(&tile(address(pointer(args.a)), m, k, tiling.tile_m()))?,
            tensor_map(&tile(address(pointer(args.b)), k, n, tiling.tiling.tile_k))?,
        ];
        if let Store::Tma(_, c) = &store {
            maps.push(tensor_map(&TmaTile {
                element: TmaElement::F32,
                address: address(*c),
                rows: m as u64,
                cols: n as u64,
                pitch: n as u64,
                box_rows: tiling.store_rows,
                box_cols: tma_store::C_BOX_COLS,
            })?);
            // The clustered rungs copy a tile that ends below M with a
            // shorter box (`kernels_gpu::gemm::hopper::cluster::A_SHORT_BOXES`).
            if tiling.cluster > 1 {
                for rows in cluster::A_SHORT_BOXES {
                    maps.push(tensor_map(&tile(address(pointer(args.a)), m, k, rows))?);
                }
            }
        }
        Ok(Bf16Tma {
            name: kernel.name(),
            size: (m, n, k),
            inputs: (pointer(args.a), pointer(args.b)),
            maps: gpu.upload_maps(&maps)?,
            store,
            shape: launch_shape(gpu, &kernel, (m, n, k)),
        })
    }
}

impl Gemm<bf16> for Bf16Tma {
    /// Enqueues `C = A·B` over the inputs its tensor maps were made for.
    fn run(&self, gpu: &Gpu, args: &Args<bf16>) -> Result<()> {
        let (m, n, k) = self.size;
        if (args.m, args.n, args.k) != self.size || (pointer(args.a), pointer(args.b)) != self.inputs {
            return Err(Error::new(format!("{} was prepared for other inputs", self.name)));
        }
        match &self.store {
            Store::Direct(kernel) => gpu.launch_in(PtxModule::Sm90a, kernel, self.shape, (m, n, k, pointer(&self.maps), pointer(args.c))),
            Store::Split(split) => split.run(gpu, pointer(&self.maps), (1.0, 0.0), pointer(args.c)),
            Store::Tma(kernel, c) => {
                if *c != pointer(args.c) {
                    return Err(Error::new(format!("{} was prepared for another C", self.name)));
                }
                gpu.launch_in(PtxModule::Sm90a, kernel, self.shape, (m, n, k, pointer(&self.maps)))
            }
        }
    }
}

impl RungKernel<bf16> for HopperKernel {
    fn name(&self) -> &'static str {
        HopperKernel::name(self)
    }

    fn module(&self) -> PtxModule {
        PtxModule::Sm90a
    }

    fn shape_limit(&self, size: (u32, u32, u32)) -> Option<&'static str> {
        bf16_shape_limit(size)
    }

    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape {
        launch_shape(gpu, self, size)
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<bf16>) -> Result<Box<dyn Gemm<bf16>>> {
        Ok(Box::new(Bf16Tma::new(*self, gpu, buffers)?))
    }
}

/// The 3xTF32 split of A: rows of `pitch` floats (K rounded up to 4); and
/// where the GEMM reads B.
struct Split {
    pitch: u32,
    a_big: DeviceBuffer<f32>,
    a_small: DeviceBuffer<f32>,
    b: BSource,
}

/// Where a 3xTF32 GEMM reads B.
enum BSource {
    /// Bᵀ's big and small TF32 parts, split before every run (rungs 12 and 14).
    Parts(DeviceBuffer<f32>, DeviceBuffer<f32>),
    /// B itself, through the tensor map made over it (rung 15, which splits
    /// B in shared memory).
    Itself(DevicePointer<f32>),
}

/// The 3xTF32 GEMM proper: over whole tiles (rung 12) or slices of K
/// (rungs 14 and 15).
enum Tf32x3Gemm {
    Whole(Kernel<Tf32x3Params>, LaunchShape),
    Split(SplitK),
}

/// The 3xTF32 wgmma kernel ready to run on one set of buffers, with its
/// scratch buffers and the tensor maps over them.
pub struct Tf32x3 {
    gemm: Tf32x3Gemm,
    name: &'static str,
    size: (u32, u32, u32),
    split: Split,
    maps: DeviceBuffer<u64>,
}

impl Tf32x3 {
    /// `kernel` (a 3xTF32 entry) over `buffers`.
    pub fn new(kernel: HopperKernel, gpu: &Gpu, buffers: &Buffers<f32>) -> Result<Tf32x3> {
        let args = buffers.args();
        let size = (args.m, args.n, args.k);
        let (gemm, splits_b) = match kernel.entry {
            Entry::Tf32x3(entry) => (Tf32x3Gemm::Whole(entry, launch_shape(gpu, &kernel, size)), true),
            Entry::Tf32x3Split(entry) => (Tf32x3Gemm::Split(SplitK::new(gpu, &kernel, entry, size, true)?), true),
            Entry::Tf32x3RawB(entry) => (Tf32x3Gemm::Split(SplitK::new(gpu, &kernel, entry, size, true)?), false),
            _ => return Err(Error::new(format!("{} is not a 3xTF32 kernel", kernel.name()))),
        };
        gpu.hopper_module()?;
        if let Some(why) = tf32x3_shape_limit(&kernel, size) {
            return Err(Error::new(format!("{} {why}", kernel.name())));
        }
        let (m, n, k) = size;
        let pitch = tf32x3::padded_k(k);
        let split_rows = m as u128 + if splits_b { n as u128 } else { 0 };
        gpu.ensure_fits(2 * split_rows * pitch as u128 * 4, "the 3xTF32 split")?;
        let parts = |rows: u32, what: &str| -> Result<(DeviceBuffer<f32>, DeviceBuffer<f32>)> {
            let len = rows as usize * pitch as usize;
            Ok((gpu.alloc(len, &format!("{what}'s TF32 big part"))?, gpu.alloc(len, &format!("{what}'s TF32 small part"))?))
        };
        let (a_big, a_small) = parts(m, "A")?;
        let b = if splits_b {
            let (big, small) = parts(n, "B")?;
            BSource::Parts(big, small)
        } else {
            BSource::Itself(pointer(args.b))
        };
        let split = Split { pitch, a_big, a_small, b };
        let tile = |buffer: &DeviceBuffer<f32>, rows: u32| TmaTile {
            element: TmaElement::F32,
            address: address(pointer(buffer)),
            rows: rows as u64,
            cols: pitch as u64,
            pitch: pitch as u64,
            box_rows: 128,
            box_cols: tf32x3::TILE_K,
        };
        let mut maps = vec![tensor_map(&tile(&split.a_big, m))?, tensor_map(&tile(&split.a_small, m))?];
        match &split.b {
            BSource::Parts(big, small) => {
                maps.push(tensor_map(&tile(big, n))?);
                maps.push(tensor_map(&tile(small, n))?);
            }
            // B itself: rows of K, boxes of one k-tile × 32 columns.
            BSource::Itself(b) => maps.push(tensor_map(&TmaTile {
                element: TmaElement::F32,
                address: address(*b),
                rows: k as u64,
                cols: n as u64,
                pitch: n as u64,
                box_rows: tf32x3::TILE_K,
                box_cols: 32,
            })?),
        }
        Ok(Tf32x3 { gemm, name: kernel.name(), size, split, maps: gpu.upload_maps(&maps)? })
    }

    /// Splits A and B into the scratch buffers.
    fn split(&self, gpu: &Gpu, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>) -> Result<()> {
        let (m, n, k) = self.size;
        let split = &self.split;
        let pitch = split.pitch;
        let launch = |kernel, shape, rows: u32, cols: u32, src: &DeviceBuffer<f32>, big: &DeviceBuffer<f32>, small: &DeviceBuffer<f32>| {
            gpu.launch_in(PtxModule::Sm90a, kernel, shape, (rows, cols, pitch, pointer(src), pointer(big), pointer(small)))
        };
        let rows_shape = LaunchShape {
            grid: Dim3::new(pitch.div_ceil(tf32x3::SPLIT_THREADS), m.min(65_535), 1),
            block: Dim3::new(tf32x3::SPLIT_THREADS, 1, 1),
            shared_bytes: 0,
        };
        launch(&tf32x3::SGEMM_TF32X3_SPLIT_ROWS, rows_shape, m, k, a, &split.a_big, &split.a_small)?;
        let BSource::Parts(b_big, b_small) = &split.b else {
            return Ok(());
        };
        let transposed_shape = LaunchShape {
            grid: Dim3::new(n.div_ceil(32), pitch.div_ceil(32), 1),
            block: Dim3::new(32, 8, 1),
            shared_bytes: tf32x3::TRANSPOSE_TILE_FLOATS * 4,
        };
        launch(&tf32x3::SGEMM_TF32X3_SPLIT_TRANSPOSED, transposed_shape, k, n, b, b_big, b_small)
    }
}

impl Gemm<f32> for Tf32x3 {
    /// Enqueues `C = alpha·A·B + beta·C`: A and B are split first, on the
    /// same stream, so a timing includes the split.
    fn run(&self, gpu: &Gpu, args: &Args<f32>) -> Result<()> {
        let (m, n, k) = self.size;
        if (args.m, args.n, args.k) != self.size {
            return Err(Error::new(format!("{} was prepared for {m}x{n}x{k}", self.name)));
        }
        if let BSource::Itself(b) = self.split.b
            && pointer(args.b) != b
        {
            return Err(Error::new(format!("{} was prepared for another B", self.name)));
        }
        self.split(gpu, args.a, args.b)?;
        match &self.gemm {
            Tf32x3Gemm::Whole(kernel, shape) => {
                let values = (m, n, k, args.alpha, pointer(&self.maps), args.beta, pointer(args.c));
                gpu.launch_in(PtxModule::Sm90a, kernel, *shape, values)
            }
            Tf32x3Gemm::Split(split) => split.run(gpu, pointer(&self.maps), (args.alpha, args.beta), pointer(args.c)),
        }
    }
}

impl RungKernel<f32> for HopperKernel {
    fn name(&self) -> &'static str {
        HopperKernel::name(self)
    }

    fn module(&self) -> PtxModule {
        PtxModule::Sm90a
    }

    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::Tf32x3
    }

    fn shape_limit(&self, size: (u32, u32, u32)) -> Option<&'static str> {
        tf32x3_shape_limit(self, size)
    }

    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape {
        launch_shape(gpu, self, size)
    }

    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<f32>) -> Result<Box<dyn Gemm<f32>>> {
        Ok(Box::new(Tf32x3::new(*self, gpu, buffers)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tma_rows_must_be_16_byte_multiples() {
        assert_eq!(bf16_shape_limit((4097, 1024, 520)), None);
        assert_eq!(bf16_shape_limit((8, 8, 9)), Some("needs K % 8 == 0 (TMA rows of 16 bytes)"));
        assert_eq!(bf16_shape_limit((8, 9, 8)), Some("needs N % 8 == 0 (TMA rows of 16 bytes)"));
        assert!(bf16_shape_limit((8, 9, 9)).is_some_and(|why| why.contains("K % 8 == 0 and N % 8 == 0")));
    }

    #[test]
    fn the_split_grid_bounds_k() {
        let rung12 = &kernels_gpu::sgemm::r12_tf32x3_wgmma::KERNEL;
        assert_eq!(tf32x3_shape_limit(rung12, (1, 1, 1)), None);
        assert_eq!(tf32x3_shape_limit(rung12, (1, 1, 2_097_120)), None);
        assert!(tf32x3_shape_limit(rung12, (1, 1, 2_097_121)).is_some());
    }

    #[test]
    fn reading_b_by_tma_needs_16_byte_rows() {
        let rung15 = &kernels_gpu::sgemm::r15_tf32x3_split_b::SPLIT_B;
        assert_eq!(tf32x3_shape_limit(rung15, (7, 4, 9)), None);
        assert_eq!(tf32x3_shape_limit(rung15, (7, 6, 9)), Some("needs N % 4 == 0 (TMA rows of 16 bytes)"));
        assert_eq!(tf32x3_shape_limit(&kernels_gpu::sgemm::r14_tf32x3_split_k::SPLIT_K, (7, 6, 9)), None);
    }
}
