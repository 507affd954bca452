//! Running the Hopper GEMMs of the sm_90a module: tensor maps over the
//! inputs for BF16, and for 3xTF32 the split into big and small TF32 parts
//! (B transposed) in padded scratch buffers first.
//!
//! A [`HopperGemm`] is made once per problem size (tensor maps and scratch
//! buffers), then run as often as the timing needs.

use crate::device::hopper::{TmaElement, TmaTile, address, tensor_map};
use crate::device::{GemmArgs, Gpu, pointer};
use crate::error::{Error, Result};
use cust::memory::{DeviceBuffer, DevicePointer};
use kernels_gpu::gemm::hopper::{Entry, HopperKernel, tma_store};
use kernels_gpu::launch::{Dim3, LaunchShape};
use kernels_gpu::sgemm::r12_tf32x3_wgmma as tf32x3;

/// The 3xTF32 split of A and B: rows of `pitch` floats (K rounded up to 4).
struct Split {
    pitch: u32,
    a_big: DeviceBuffer<f32>,
    a_small: DeviceBuffer<f32>,
    b_big: DeviceBuffer<f32>,
    b_small: DeviceBuffer<f32>,
}

/// One Hopper kernel ready to run at one size.
pub struct HopperGemm {
    kernel: HopperKernel,
    size: (u32, u32, u32),
    /// The tensor maps, 16 words each, where TMA reads them.
    maps: DeviceBuffer<u64>,
    split: Option<Split>,
    /// The C the BF16 kernels storing through a tensor map were prepared for.
    c: Option<DevicePointer<f32>>,
    shape: LaunchShape,
}

/// Why a BF16 Hopper rung cannot take this shape, if it cannot: TMA reads
/// rows whose pitch is a multiple of 16 bytes.
pub fn bf16_shape_problem((_, n, k): (u32, u32, u32)) -> Option<&'static str> {
    match (k % 8, n % 8) {
        (0, 0) => None,
        (_, 0) => Some("needs K % 8 == 0 (TMA rows of 16 bytes)"),
        (0, _) => Some("needs N % 8 == 0 (TMA rows of 16 bytes)"),
        _ => Some("needs K % 8 == 0 and N % 8 == 0 (TMA rows of 16 bytes)"),
    }
}

/// The kernel's launch shape on this GPU: a persistent grid takes one
/// block per multiprocessor.
fn launch_shape(gpu: &Gpu, kernel: &HopperKernel, (m, n, _): (u32, u32, u32)) -> LaunchShape {
    kernel.launch(m, n, gpu.info.multiprocessors)
}

impl HopperGemm {
    /// A BF16 kernel over A (`m`×`k`) and B (`k`×`n`), row-major BF16 bits,
    /// writing C (`m`×`n`, fp32): the kernels that store C with TMA get its
    /// tensor map now, so they run only on this C.
    pub fn bf16(
        kernel: HopperKernel,
        gpu: &Gpu,
        size: (u32, u32, u32),
        a: &DeviceBuffer<u16>,
        b: &DeviceBuffer<u16>,
        c: &DeviceBuffer<f32>,
    ) -> Result<HopperGemm> {
        if !matches!(kernel.entry, Entry::Bf16(_) | Entry::Bf16Store(_)) {
            return Err(Error::new(format!("{} is not a BF16 kernel", kernel.name())));
        }
        // Loads (and JIT-compiles) the module now, outside any timing; on a
        // GPU other than Hopper this is the error to show.
        gpu.hopper_module()?;
        if let Some(why) = bf16_shape_problem(size) {
            return Err(Error::new(format!("{} {why}", kernel.name())));
        }
        let (m, n, k) = size;
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
            tensor_map(&tile(address(pointer(a)), m, k, tiling.tile_m()))?,
            tensor_map(&tile(address(pointer(b)), k, n, tiling.tiling.tile_k))?,
        ];
        let shape = launch_shape(gpu, &kernel, size);
        let mut stored_c = None;
        if let Entry::Bf16Store(_) = kernel.entry {
            let c_tile = TmaTile {
                element: TmaElement::F32,
                address: address(pointer(c)),
                rows: m as u64,
                cols: n as u64,
                pitch: n as u64,
                box_rows: kernel.tiling.store_rows,
                box_cols: tma_store::C_BOX_COLS,
            };
            maps.push(tensor_map(&c_tile)?);
            stored_c = Some(pointer(c));
        }
        Ok(HopperGemm { kernel, size, maps: gpu.upload_maps(&maps)?, split: None, c: stored_c, shape })
    }

    /// The 3xTF32 kernel at this size, with its scratch buffers.
    pub fn tf32x3(kernel: HopperKernel, gpu: &Gpu, size: (u32, u32, u32)) -> Result<HopperGemm> {
        if !matches!(kernel.entry, Entry::Tf32x3(_)) {
            return Err(Error::new(format!("{} is not a 3xTF32 kernel", kernel.name())));
        }
        gpu.hopper_module()?;
        let (m, n, k) = size;
        let pitch = tf32x3::padded_k(k);
        if pitch.div_ceil(32) > 65_535 {
            return Err(Error::new(format!("{}: K = {k} is above what its split kernel's grid covers", kernel.name())));
        }
        gpu.ensure_fits(2 * (m as u128 + n as u128) * pitch as u128 * 4, "the 3xTF32 split")?;
        let split = Split {
            pitch,
            a_big: gpu.alloc(m as usize * pitch as usize, "A's TF32 big part")?,
            a_small: gpu.alloc(m as usize * pitch as usize, "A's TF32 small part")?,
            b_big: gpu.alloc(n as usize * pitch as usize, "B's TF32 big part")?,
            b_small: gpu.alloc(n as usize * pitch as usize, "B's TF32 small part")?,
        };
        let tile = |buffer: &DeviceBuffer<f32>, rows: u32| TmaTile {
            element: TmaElement::F32,
            address: address(pointer(buffer)),
            rows: rows as u64,
            cols: pitch as u64,
            pitch: pitch as u64,
            box_rows: 128,
            box_cols: tf32x3::TILE_K,
        };
        let maps = [
            tensor_map(&tile(&split.a_big, m))?,
            tensor_map(&tile(&split.a_small, m))?,
            tensor_map(&tile(&split.b_big, n))?,
            tensor_map(&tile(&split.b_small, n))?,
        ];
        Ok(HopperGemm { kernel, size, maps: gpu.upload_maps(&maps)?, split: Some(split), c: None, shape: launch_shape(gpu, &kernel, size) })
    }

    pub fn kernel(&self) -> &HopperKernel {
        &self.kernel
    }

    /// Grid, block and shared memory of the GEMM launch.
    pub fn shape(&self) -> LaunchShape {
        self.shape
    }

    /// Enqueues `C = A·B` with a BF16 kernel, over the inputs its tensor
    /// maps were made for.
    pub fn run_bf16(&self, gpu: &Gpu, c: &DeviceBuffer<f32>) -> Result<()> {
        let (m, n, k) = self.size;
        match self.kernel.entry {
            Entry::Bf16(kernel) => gpu.launch(&kernel, self.shape, (m, n, k, pointer(&self.maps), pointer(c))),
            Entry::Bf16Store(kernel) => {
                if self.c != Some(pointer(c)) {
                    return Err(Error::new(format!("{} was prepared for another C", self.kernel.name())));
                }
                gpu.launch(&kernel, self.shape, (m, n, k, pointer(&self.maps)))
            }
            Entry::Tf32x3(_) => Err(Error::new(format!("{} is not a BF16 kernel", self.kernel.name()))),
        }
    }

    /// Enqueues `C = alpha·A·B + beta·C` with the 3xTF32 kernel: A and B
    /// are split first, on the same stream, so a timing includes the split.
    pub fn run_tf32x3(&self, gpu: &Gpu, args: &GemmArgs) -> Result<()> {
        let (m, n, k) = self.size;
        let (Entry::Tf32x3(kernel), Some(split)) = (self.kernel.entry, &self.split) else {
            return Err(Error::new(format!("{} is not a 3xTF32 kernel", self.kernel.name())));
        };
        if (args.m, args.n, args.k) != self.size {
            return Err(Error::new(format!("{} was prepared for {m}x{n}x{k}", self.kernel.name())));
        }
        self.split(gpu, split, args.a, args.b)?;
        gpu.launch(&kernel, self.shape, (m, n, k, args.alpha, pointer(&self.maps), args.beta, pointer(args.c)))
    }

    fn split(&self, gpu: &Gpu, split: &Split, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>) -> Result<()> {
        let (m, n, k) = self.size;
        let pitch = split.pitch;
        let launch = |kernel, shape, rows: u32, cols: u32, src: &DeviceBuffer<f32>, big: &DeviceBuffer<f32>, small: &DeviceBuffer<f32>| {
            gpu.launch(kernel, shape, (rows, cols, pitch, pointer(src), pointer(big), pointer(small)))
        };
        let rows_shape = LaunchShape {
            grid: Dim3::new(pitch.div_ceil(tf32x3::SPLIT_THREADS), m.min(65_535), 1),
            block: Dim3::new(tf32x3::SPLIT_THREADS, 1, 1),
            shared_bytes: 0,
        };
        launch(&tf32x3::SGEMM_TF32X3_SPLIT_ROWS, rows_shape, m, k, a, &split.a_big, &split.a_small)?;
        let transposed_shape = LaunchShape {
            grid: Dim3::new(n.div_ceil(32), pitch.div_ceil(32), 1),
            block: Dim3::new(32, 8, 1),
            shared_bytes: tf32x3::TRANSPOSE_TILE_FLOATS * 4,
        };
        launch(&tf32x3::SGEMM_TF32X3_SPLIT_TRANSPOSED, transposed_shape, k, n, b, &split.b_big, &split.b_small)
    }
}
