//! The host's view of the GPU: one context, the PTX module, one stream,
//! typed launches and event timing, all through `cust`.

pub mod hopper;
mod info;
mod launch;
mod timing;

pub use info::DeviceInfo;
pub use launch::{KernelResources, Param, Params, PtxModule, pointer};
pub use timing::{FromDram, RUNS_PER_BATCH, ReadOnce, Timing, copies_to_miss_l2};

use crate::error::{Context as _, Error, Result};
use cust::context::Context;
use cust::device::Device;
use cust::error::CudaError;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DeviceCopy};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};

/// Bit pattern written into outputs before a kernel runs: a quiet NaN with a
/// recognisable payload. An element that still holds it was never written.
pub const POISON_BITS: u32 = 0x7fc0_bad0;

/// An open GPU: context, loaded kernels and the stream they run on.
pub struct Gpu {
    // Field order is drop order: module and stream go before the context.
    module: Module,
    /// The sm_90a module, loaded on first use (see [`Gpu::hopper_module`]).
    hopper: std::sync::OnceLock<std::result::Result<Module, String>>,
    stream: Stream,
    /// Set by [`Gpu::read_inputs_from_dram`].
    l2_flush: std::sync::Mutex<Option<(timing::L2Flush, FromDram)>>,
    /// The output of the kernel that holds the stream while a lone timed
    /// run is enqueued ([`Gpu::time`]), allocated on first use.
    hold: std::sync::OnceLock<DeviceBuffer<u64>>,
    _context: Context,
    pub info: DeviceInfo,
}

impl Gpu {
    /// Opens GPU 0 and loads the PTX module. Fails with one clear sentence
    /// when there is no driver, no device, or the module does not load.
    pub fn open() -> Result<Gpu> {
        cust::init(cust::CudaFlags::empty()).map_err(init_error)?;
        let count = Device::num_devices().context("counting CUDA devices")?;
        if count == 0 {
            return Err(Error::no_gpu("no CUDA-capable GPU found: the NVIDIA driver is loaded but reports no device"));
        }
        let device = Device::get_device(0).context("opening GPU 0")?;
        let context = Context::new(device).context("creating a CUDA context on GPU 0")?;
        let info = DeviceInfo::query(device)?;
        let module = Module::from_ptx(crate::PTX, &[]).map_err(|e| {
            Error::new(format!(
                "loading the kernels' PTX (built for {}) on {} (sm_{}{}) failed: {e} ({e:?}); \
                 rebuild with PTX_LADDER_ARCH set to this GPU's architecture or older",
                crate::PTX_ARCH,
                info.name,
                info.compute_capability.0,
                info.compute_capability.1
            ))
        })?;
        let stream = Stream::new(StreamFlags::NON_BLOCKING, None).context("creating a CUDA stream")?;
        Ok(Gpu {
            module,
            hopper: std::sync::OnceLock::new(),
            stream,
            l2_flush: std::sync::Mutex::new(None),
            hold: std::sync::OnceLock::new(),
            _context: context,
            info,
        })
    }

    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Waits for all work on the stream and reports any kernel fault.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().context("waiting for the GPU")
    }

    /// Allocates `len` floats, refusing up front when they cannot fit.
    pub fn alloc(&self, len: usize, what: &str) -> Result<DeviceBuffer<f32>> {
        allocate(len, what)
    }

    /// Allocates and fills a device buffer from `host` (floats, or the bit
    /// patterns of a narrower type).
    pub fn upload<T: DeviceCopy>(&self, host: &[T], what: &str) -> Result<DeviceBuffer<T>> {
        let buffer = allocate(host.len(), what)?;
        if !host.is_empty() {
            cust::memory::CopyDestination::copy_from(&mut buffer.index(..host.len()), host)
                .context(format_args!("copying {what} to the GPU"))?;
        }
        Ok(buffer)
    }

    /// A new buffer holding a copy of `buffer`, copied on the GPU.
    pub fn duplicate<T: DeviceCopy>(&self, buffer: &DeviceBuffer<T>, what: &str) -> Result<DeviceBuffer<T>> {
        let mut copy = allocate(buffer.len(), what)?;
        unsafe { copy.async_copy_from(buffer, &self.stream) }.context(format_args!("copying {what} on the GPU"))?;
        Ok(copy)
    }

    /// `len` elements (at least one) of device memory whose bytes are all
    /// zero (the zero of every element type this project uses).
    pub fn zeroed<T: DeviceCopy>(&self, len: usize, what: &str) -> Result<DeviceBuffer<T>> {
        let buffer = allocate::<T>(len, what)?;
        let bytes = buffer.len() * std::mem::size_of::<T>();
        let address = buffer.as_device_ptr().as_raw();
        driver(unsafe { cust::sys::cuMemsetD8Async(address, 0, bytes, self.stream.as_inner()) }, format_args!("zeroing {what}"))?;
        Ok(buffer)
    }

    /// Copies `buffer` back into `host` (the first `host.len()` elements).
    pub fn download(&self, buffer: &DeviceBuffer<f32>, host: &mut [f32], what: &str) -> Result<()> {
        self.synchronize()?;
        if host.is_empty() {
            return Ok(());
        }
        cust::memory::CopyDestination::copy_to(&buffer.index(..host.len()), host).context(format_args!("copying {what} back from the GPU"))
    }

    /// Fills `buffer` with [`POISON_BITS`] so unwritten outputs show up.
    pub fn poison(&self, buffer: &mut DeviceBuffer<f32>) -> Result<()> {
        self.synchronize()?;
        buffer.set_32(POISON_BITS).context("poisoning an output buffer")
    }

    /// Free and total device memory, in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        cust::memory::mem_get_info().context("reading free GPU memory")
    }

    /// Refuses, before allocating anything, a job whose buffers cannot fit
    /// in the GPU's free memory.
    pub fn ensure_fits(&self, bytes: u128, job: &str) -> Result<()> {
        let (free, total) = self.memory()?;
        if bytes > free as u128 {
            return Err(Error::new(format!(
                "{job} needs {:.2} GB of GPU memory, but {} has {:.2} GB free of {:.2} GB; choose a smaller size",
                bytes as f64 / 1e9,
                self.info.name,
                free as f64 / 1e9,
                total as f64 / 1e9
            )));
        }
        Ok(())
    }

    pub(crate) fn module(&self) -> &Module {
        &self.module
    }
}

/// `len` elements (at least one) of uninitialised device memory.
fn allocate<T: DeviceCopy>(len: usize, what: &str) -> Result<DeviceBuffer<T>> {
    let len = len.max(1);
    let megabytes = len * std::mem::size_of::<T>() / 1_000_000;
    unsafe { DeviceBuffer::uninitialized(len) }.context(format_args!("allocating {what} ({megabytes} MB)"))
}

/// Checks a raw driver call made through `cust::sys`.
pub(crate) fn driver(result: cust::sys::CUresult, doing: impl std::fmt::Display) -> Result<()> {
    if result == cust::sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(Error::new(format!("{doing}: driver error {result:?}"))) }
}

fn init_error(e: CudaError) -> Error {
    match e {
        CudaError::NoDevice => Error::no_gpu("no CUDA-capable GPU found (the NVIDIA driver reports no device)"),
        other => Error::no_gpu(format!(
            "the NVIDIA driver could not be initialised ({other}); check that an NVIDIA GPU and its driver are installed (nvidia-smi should list the GPU)"
        )),
    }
}
