//! Hopper support on the host: the sm_90a PTX module, loaded on first use
//! and only on a GPU of compute capability 9.0, and TMA tensor maps made by
//! the driver's `cuTensorMapEncodeTiled`.
//!
//! `cust` 0.3 binds the CUDA 11.4 driver API, which predates tensor maps, so
//! the encoder is looked up in `libcuda.so.1` at run time; a driver without
//! it (older than CUDA 12) gets one clear error.

use super::Gpu;
use crate::error::{Context as _, Error, Result};
use cust::memory::{DeviceCopy, DevicePointer};
use cust::module::Module;
use kernels_gpu::launch::LaunchShape;
use libloading::Library;
use std::ffi::c_void;
use std::sync::OnceLock;

/// The driver's opaque 128-byte `CUtensorMap`, 64-byte aligned. Kernels
/// receive a pointer to it in global memory ([`Gpu::upload_maps`]).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct TensorMap(pub [u64; 16]);

/// Element types the rungs copy with TMA (`CUtensorMapDataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaElement {
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32`.
    F32 = 7,
    /// `CU_TENSOR_MAP_DATA_TYPE_BFLOAT16`.
    Bf16 = 9,
}

impl TmaElement {
    pub const fn bytes(self) -> u64 {
        match self {
            TmaElement::F32 => 4,
            TmaElement::Bf16 => 2,
        }
    }
}

/// A row-major matrix in device memory and the box TMA copies out of it.
#[derive(Clone, Copy, Debug)]
pub struct TmaTile {
    pub element: TmaElement,
    /// Device address of element (0, 0); 16-byte aligned.
    pub address: u64,
    pub rows: u64,
    pub cols: u64,
    /// Elements from one row to the next; `pitch * element bytes` must be a
    /// multiple of 16.
    pub pitch: u64,
    pub box_rows: u32,
    /// At most 128 bytes of elements, for the 128-byte swizzle.
    pub box_cols: u32,
}

type EncodeTiledFn = unsafe extern "C" fn(
    map: *mut TensorMap,
    data_type: u32,
    rank: u32,
    address: *mut c_void,
    dims: *const u64,
    strides: *const u64,
    box_dims: *const u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> i32;

/// `CU_TENSOR_MAP_SWIZZLE_128B`: the layout wgmma's descriptors describe.
const SWIZZLE_128B: u32 = 3;
/// `CU_TENSOR_MAP_L2_PROMOTION_L2_256B`: fetch whole 256-byte L2 lines.
const L2_PROMOTION_256B: u32 = 3;

/// `CUlaunchAttribute`: an attribute id, padding to 8 bytes, and a 64-byte
/// union of values (a cluster's size is its first three words).
#[repr(C)]
struct LaunchAttribute {
    id: u32,
    pad: u32,
    value: [u32; 16],
}

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`.
const CLUSTER_DIMENSION: u32 = 4;

/// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`.
const PROGRAMMATIC_STREAM_SERIALIZATION: u32 = 6;

/// `CUlaunchConfig`.
#[repr(C)]
struct LaunchConfig {
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    stream: cust::sys::CUstream,
    attributes: *mut LaunchAttribute,
    attribute_count: u32,
}

type LaunchKernelExFn = unsafe extern "C" fn(
    config: *const LaunchConfig,
    function: cust::sys::CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> i32;

type MaxActiveClustersFn = unsafe extern "C" fn(clusters: *mut i32, function: cust::sys::CUfunction, config: *const LaunchConfig) -> i32;

/// The CUDA 12 driver entry points cust does not bind, looked up once.
struct Cuda12 {
    _library: Library,
    encode_tiled: EncodeTiledFn,
    launch_kernel_ex: LaunchKernelExFn,
    max_active_clusters: MaxActiveClustersFn,
}

fn cuda12() -> Result<&'static Cuda12> {
    static CUDA12: OnceLock<std::result::Result<Cuda12, String>> = OnceLock::new();
    let found = CUDA12.get_or_init(|| unsafe {
        let library = Library::new("libcuda.so.1").map_err(|e| format!("opening libcuda.so.1: {e}"))?;
        let missing = |name: &str| format!("the NVIDIA driver has no {name} (the Hopper rungs need a CUDA 12 or newer driver)");
        let encode_tiled = *library.get::<EncodeTiledFn>(b"cuTensorMapEncodeTiled\0").map_err(|_| missing("cuTensorMapEncodeTiled"))?;
        let launch_kernel_ex = *library.get::<LaunchKernelExFn>(b"cuLaunchKernelEx\0").map_err(|_| missing("cuLaunchKernelEx"))?;
        let max_active_clusters =
            *library.get::<MaxActiveClustersFn>(b"cuOccupancyMaxActiveClusters\0").map_err(|_| missing("cuOccupancyMaxActiveClusters"))?;
        Ok(Cuda12 { _library: library, encode_tiled, launch_kernel_ex, max_active_clusters })
    });
    found.as_ref().map_err(|e| Error::new(e.clone()))
}

/// A 2D tensor map with the 128-byte swizzle; elements outside the matrix
/// read as zero.
pub fn tensor_map(tile: &TmaTile) -> Result<TensorMap> {
    let bytes = tile.element.bytes();
    if !tile.address.is_multiple_of(16) || !(tile.pitch * bytes).is_multiple_of(16) {
        return Err(Error::new(format!(
            "TMA needs 16-byte aligned rows: a row pitch of {} elements of {bytes} bytes is not a multiple of 16 bytes",
            tile.pitch
        )));
    }
    let encode = cuda12()?.encode_tiled;
    let mut map = TensorMap([0; 16]);
    let dims = [tile.cols, tile.rows];
    let strides = [tile.pitch * bytes];
    let boxes = [tile.box_cols, tile.box_rows];
    let element_strides = [1u32, 1];
    let status = unsafe {
        encode(
            &mut map,
            tile.element as u32,
            2,
            tile.address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            0,
            SWIZZLE_128B,
            L2_PROMOTION_256B,
            0,
        )
    };
    if status != 0 {
        return Err(Error::new(format!("cuTensorMapEncodeTiled refused {tile:?}: driver error {status}")));
    }
    Ok(map)
}

/// How a launch through `cuLaunchKernelEx` differs from a plain one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaunchAs {
    /// In clusters of this many blocks along x.
    Clusters(u32),
    /// With programmatic stream serialization: the kernel may start
    /// while the one before it on the stream finishes, and waits for it
    /// with `griddepcontrol.wait` before reading what it wrote.
    AfterPrevious,
}

/// Launches `function` on `stream` as `how` says (`cuLaunchKernelEx`;
/// cust binds only the plain launch). `args` are the pointers to each
/// parameter's value, as for a plain launch.
///
/// # Safety
/// `args` match the kernel's parameters and stay valid for the call.
pub(crate) unsafe fn launch_ex(
    function: cust::sys::CUfunction,
    stream: cust::sys::CUstream,
    shape: LaunchShape,
    how: LaunchAs,
    args: &[*mut c_void],
) -> Result<()> {
    let launch = cuda12()?.launch_kernel_ex;
    let mut attribute = match how {
        LaunchAs::Clusters(cluster) => cluster_attribute(cluster),
        LaunchAs::AfterPrevious => {
            let mut attribute = LaunchAttribute { id: PROGRAMMATIC_STREAM_SERIALIZATION, pad: 0, value: [0; 16] };
            attribute.value[0] = 1;
            attribute
        }
    };
    let config = launch_config(shape, stream, &mut attribute);
    let status = unsafe { launch(&config, function, args.as_ptr().cast_mut(), std::ptr::null_mut()) };
    if status != 0 {
        let what = match how {
            LaunchAs::Clusters(cluster) => format!("clusters of {cluster} blocks"),
            LaunchAs::AfterPrevious => "a launch beside the previous kernel".to_string(),
        };
        return Err(Error::new(format!("cuLaunchKernelEx refused {what}: driver error {status}")));
    }
    Ok(())
}

/// How many clusters of `cluster` blocks of `function`, launched as
/// `shape`, the GPU runs at once (`cuOccupancyMaxActiveClusters`).
pub(crate) fn max_active_clusters(function: cust::sys::CUfunction, shape: LaunchShape, cluster: u32) -> Result<u32> {
    let query = cuda12()?.max_active_clusters;
    let mut attribute = cluster_attribute(cluster);
    let config = launch_config(shape, std::ptr::null_mut(), &mut attribute);
    let mut clusters = 0i32;
    let status = unsafe { query(&mut clusters, function, &config) };
    if status != 0 {
        return Err(Error::new(format!("cuOccupancyMaxActiveClusters refused clusters of {cluster} blocks: driver error {status}")));
    }
    Ok(clusters.max(0) as u32)
}

/// The launch attribute asking for clusters of `cluster` blocks along x.
fn cluster_attribute(cluster: u32) -> LaunchAttribute {
    let mut attribute = LaunchAttribute { id: CLUSTER_DIMENSION, pad: 0, value: [0; 16] };
    attribute.value[..3].copy_from_slice(&[cluster, 1, 1]);
    attribute
}

fn launch_config(shape: LaunchShape, stream: cust::sys::CUstream, attribute: &mut LaunchAttribute) -> LaunchConfig {
    let (grid, block) = (shape.grid, shape.block);
    LaunchConfig {
        grid: [grid.x, grid.y, grid.z],
        block: [block.x, block.y, block.z],
        shared_bytes: shape.shared_bytes,
        stream,
        attributes: attribute,
        attribute_count: 1,
    }
}

/// The device address of a buffer, for a [`TmaTile`].
pub fn address<T: DeviceCopy>(pointer: DevicePointer<T>) -> u64 {
    pointer.as_raw()
}

impl Gpu {
    /// Whether this GPU runs the sm_90a module (compute capability 9.0).
    pub fn is_hopper(&self) -> bool {
        self.info.compute_capability == (9, 0)
    }

    /// The sm_90a module, loaded (and compiled by the driver) on first use.
    pub fn hopper_module(&self) -> Result<&Module> {
        if !self.is_hopper() {
            let (major, minor) = self.info.compute_capability;
            return Err(Error::new(format!("needs a Hopper GPU (sm_90); {} is sm_{major}{minor}", self.info.name)));
        }
        let loaded = self.hopper.get_or_init(|| Module::from_ptx(crate::PTX_SM90A, &[]).map_err(|e| format!("{e} ({e:?})")));
        loaded.as_ref().map_err(|e| Error::new(format!("loading the sm_90a PTX module on {}: {e}", self.info.name)))
    }

    /// Copies `maps` to the GPU, where TMA reads them: 16 words each, and
    /// 64-byte aligned as TMA needs (device allocations are 256-byte aligned).
    pub fn upload_maps(&self, maps: &[TensorMap]) -> Result<cust::memory::DeviceBuffer<u64>> {
        let words: Vec<u64> = maps.iter().flat_map(|map| map.0).collect();
        cust::memory::DeviceBuffer::from_slice(&words).context("copying tensor maps to the GPU")
    }
}
