//! Typed launches: every kernel goes through [`Gpu::launch`], which takes
//! the kernel's [`Kernel`] handle (declared by `#[kernel]` in the device
//! crate) and accepts only arguments of its parameter types, in its order:
//! a `*const T` or `*mut T` parameter takes a [`DevicePointer<T>`], a value
//! parameter the value. It checks the launch shape against the device's
//! limits, raises the dynamic shared-memory cap when a kernel needs more
//! than the default 48 KB, and names the kernel in any error.

use super::Gpu;
use super::hopper::LaunchAs;
use crate::error::{Context as _, Error, Result};
use cust::function::{BlockSize, Function, FunctionAttribute, GridSize};
use cust::memory::{DeviceBuffer, DeviceCopy, DevicePointer};
use kernels_gpu::gemm::split_k::{ClusterSlots, MOST_CLUSTER_SLICES};
use kernels_gpu::launch::{Kernel, LaunchShape};
use std::ffi::c_void;

/// A kernel parameter type (as the device crate declares it) and the host
/// value passed for it.
pub trait Param {
    type Host: DeviceCopy;
}

macro_rules! value_params {
    ($($t:ty),*) => {$(impl Param for $t { type Host = $t; })*};
}
value_params!(u32, i32, u64, i64, f32, f64);

impl<T: DeviceCopy> Param for *const T {
    type Host = DevicePointer<T>;
}

impl<T: DeviceCopy> Param for *mut T {
    type Host = DevicePointer<T>;
}

/// A kernel's parameter list, as a tuple of [`Param`]s: `Host` is the tuple
/// of values a launch passes.
pub trait Params {
    type Host;
    /// Pointers to each value of `host`, in parameter order, as the driver
    /// takes them; valid while `host` is.
    fn pointers(host: &mut Self::Host) -> Vec<*mut c_void>;
}

macro_rules! tuple_params {
    ($($p:ident $i:tt),+) => {
        impl<$($p: Param),+> Params for ($($p,)+) {
            type Host = ($($p::Host,)+);
            fn pointers(host: &mut Self::Host) -> Vec<*mut c_void> {
                vec![$(&mut host.$i as *mut $p::Host as *mut c_void),+]
            }
        }
    };
}
tuple_params!(A 0);
tuple_params!(A 0, B 1);
tuple_params!(A 0, B 1, C 2);
tuple_params!(A 0, B 1, C 2, D 3);
tuple_params!(A 0, B 1, C 2, D 3, E 4);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// What the compiler gave a kernel, as the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub registers: u32,
    pub static_shared_bytes: u32,
    /// Per-thread local memory (register spills, arrays indexed at run time).
    pub local_bytes: u32,
}

/// The two PTX modules a kernel can live in. The caller says which, so
/// every lookup is made where the kernel is: a failed lookup is an API
/// error to tools such as compute-sanitizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxModule {
    /// Every kernel but the Hopper ones, for `PTX_LADDER_ARCH` (sm_80 by
    /// default): Ampere and newer.
    Portable,
    /// The Hopper-only kernels (wgmma, TMA, setmaxnreg), for `sm_90a`:
    /// exactly compute capability 9.0.
    Sm90a,
}

impl PtxModule {
    /// Whether a GPU of `capability` runs this module's kernels.
    pub fn runs_on(self, capability: (u32, u32)) -> bool {
        match self {
            PtxModule::Portable => capability >= (8, 0),
            PtxModule::Sm90a => capability == (9, 0),
        }
    }

    /// What a GPU needs to run this module's kernels, in words.
    pub fn requirement(self) -> &'static str {
        match self {
            PtxModule::Portable => "needs an Ampere or newer GPU (sm_80)",
            PtxModule::Sm90a => "needs a Hopper GPU (sm_90)",
        }
    }
}

impl Gpu {
    /// A kernel of `module` (the sm_90a module is loaded on first use).
    fn function(&self, module: PtxModule, name: &str) -> Result<Function<'_>> {
        match module {
            PtxModule::Portable => self.module().get_function(name).context(format_args!("finding kernel {name} in the PTX module")),
            PtxModule::Sm90a => {
                self.hopper_module()?.get_function(name).context(format_args!("finding kernel {name} in the sm_90a module"))
            }
        }
    }

    /// Registers, static shared memory and local memory of a kernel of the
    /// portable module.
    pub fn resources(&self, name: &str) -> Result<KernelResources> {
        self.resources_in(PtxModule::Portable, name)
    }

    /// Registers, static shared memory and local memory of a kernel.
    pub fn resources_in(&self, module: PtxModule, name: &str) -> Result<KernelResources> {
        let function = self.function(module, name)?;
        let get =
            |attribute| function.get_attribute(attribute).map(|v| v.max(0) as u32).context(format_args!("reading {attribute:?} of {name}"));
        Ok(KernelResources {
            registers: get(FunctionAttribute::NumRegisters)?,
            static_shared_bytes: get(FunctionAttribute::SharedMemorySizeBytes)?,
            local_bytes: get(FunctionAttribute::LocalSizeBytes)?,
        })
    }

    /// Blocks of this kernel of the portable module one multiprocessor can
    /// hold at this launch shape, from the driver's occupancy API.
    pub fn resident_blocks(&self, name: &str, shape: LaunchShape) -> Result<u32> {
        self.resident_blocks_in(PtxModule::Portable, name, shape)
    }

    /// Blocks of this kernel one multiprocessor can hold at this launch
    /// shape, from the driver's occupancy API.
    pub fn resident_blocks_in(&self, module: PtxModule, name: &str, shape: LaunchShape) -> Result<u32> {
        let function = self.function(module, name)?;
        self.allow_shared(&function, name, shape.shared_bytes)?;
        function
            .max_active_blocks_per_multiprocessor(BlockSize::xyz(shape.block.x, shape.block.y, shape.block.z), shape.shared_bytes as usize)
            .context(format_args!("asking the occupancy API about {name}"))
    }

    /// Launches `kernel` of the portable module on the stream with `args`,
    /// one value per parameter in the kernel's order (device pointers as
    /// [`DevicePointer`]).
    pub fn launch<P: Params>(&self, kernel: &Kernel<P>, shape: LaunchShape, args: P::Host) -> Result<()> {
        self.launch_in(PtxModule::Portable, kernel, shape, args)
    }

    /// Launches `kernel` of `module`, as [`Gpu::launch`] does.
    pub fn launch_in<P: Params>(&self, module: PtxModule, kernel: &Kernel<P>, shape: LaunchShape, args: P::Host) -> Result<()> {
        let mut args = args;
        self.launch_raw(module, kernel.name(), shape, None, &P::pointers(&mut args))
    }

    /// Launches `kernel` of the sm_90a module with programmatic stream
    /// serialization: its blocks may start while the kernel before it on
    /// the stream finishes (once that kernel's blocks all ran
    /// `griddepcontrol.launch_dependents`), so the launch overlaps it.
    /// `kernel` must run `griddepcontrol.wait` before it reads what the
    /// kernel before it wrote.
    pub fn launch_after_previous<P: Params>(&self, kernel: &Kernel<P>, shape: LaunchShape, args: P::Host) -> Result<()> {
        let mut args = args;
        self.launch_raw(PtxModule::Sm90a, kernel.name(), shape, Some(LaunchAs::AfterPrevious), &P::pointers(&mut args))
    }

    /// Launches `kernel` of `module` in clusters of `cluster` blocks along
    /// x, a size chosen at run time (the grid's x must be a multiple of it).
    pub fn launch_clustered_in<P: Params>(
        &self,
        module: PtxModule,
        kernel: &Kernel<P>,
        shape: LaunchShape,
        cluster: u32,
        args: P::Host,
    ) -> Result<()> {
        let mut args = args;
        self.launch_raw(module, kernel.name(), shape, Some(LaunchAs::Clusters(cluster)), &P::pointers(&mut args))
    }

    /// How many clusters of 1 to [`MOST_CLUSTER_SLICES`] blocks of kernel
    /// `name` in `module`, launched as `shape`, the GPU runs at once, as
    /// the driver computes them.
    pub fn cluster_slots(&self, module: PtxModule, name: &str, shape: LaunchShape) -> Result<ClusterSlots> {
        let function = self.function(module, name)?;
        self.allow_shared(&function, name, shape.shared_bytes)?;
        let mut slots = [0; MOST_CLUSTER_SLICES as usize];
        for (size, slot) in (1..).zip(slots.iter_mut()) {
            // The grid only has to be whole clusters.
            let shape = LaunchShape { grid: kernels_gpu::launch::Dim3::new(size, 1, 1), ..shape };
            *slot = super::hopper::max_active_clusters(function.to_raw(), shape, size)?;
        }
        Ok(ClusterSlots(slots))
    }

    /// Checks and launches; with `how`, in clusters or beside the kernel
    /// before it, through the driver's `cuLaunchKernelEx`.
    fn launch_raw(&self, module: PtxModule, name: &str, shape: LaunchShape, how: Option<LaunchAs>, args: &[*mut c_void]) -> Result<()> {
        self.check_shape(name, shape)?;
        if let Some(LaunchAs::Clusters(cluster)) = how
            && (cluster == 0 || !shape.grid.x.is_multiple_of(cluster))
        {
            return Err(Error::new(format!(
                "cannot launch {name}: a grid of {} blocks along x is not whole clusters of {cluster}",
                shape.grid.x
            )));
        }
        let function = self.function(module, name)?;
        self.allow_shared(&function, name, shape.shared_bytes)?;
        if let Some(how) = how {
            return unsafe { super::hopper::launch_ex(function.to_raw(), self.stream().as_inner(), shape, how, args) }
                .map_err(|e| Error::new(format!("launching {name}: {e}")));
        }
        let grid = GridSize::xyz(shape.grid.x, shape.grid.y, shape.grid.z);
        let block = BlockSize::xyz(shape.block.x, shape.block.y, shape.block.z);
        unsafe { self.stream().launch(&function, grid, block, shape.shared_bytes, args) }.context(format_args!("launching {name}"))
    }

    fn check_shape(&self, name: &str, shape: LaunchShape) -> Result<()> {
        let info = &self.info;
        let (grid, block) = (shape.grid, shape.block);
        let threads = block.volume();
        let refuse = |why: String| Err(Error::new(format!("cannot launch {name}: {why}")));
        if grid.volume() == 0 || threads == 0 {
            return refuse(format!("empty launch (grid {grid:?}, block {block:?})"));
        }
        if threads > info.max_threads_per_block as u64 {
            return refuse(format!("{threads} threads per block; {} allows at most {}", info.name, info.max_threads_per_block));
        }
        for (axis, (size, limit)) in ["x", "y", "z"].iter().zip([grid.x, grid.y, grid.z].into_iter().zip(info.max_grid)) {
            if size > limit {
                return refuse(format!("grid.{axis} = {size} blocks; the limit is {limit}"));
            }
        }
        for (axis, (size, limit)) in ["x", "y", "z"].iter().zip([block.x, block.y, block.z].into_iter().zip(info.max_block)) {
            if size > limit {
                return refuse(format!("block.{axis} = {size} threads; the limit is {limit}"));
            }
        }
        if shape.shared_bytes > info.shared_per_block_optin {
            return refuse(format!(
                "{} bytes of shared memory per block; {} allows at most {}",
                shape.shared_bytes, info.name, info.shared_per_block_optin
            ));
        }
        Ok(())
    }

    /// Kernels may use more than the default 48 KB of dynamic shared memory
    /// only after opting in, per kernel.
    fn allow_shared(&self, function: &Function, name: &str, bytes: u32) -> Result<()> {
        if bytes <= self.info.shared_per_block {
            return Ok(());
        }
        super::driver(
            unsafe {
                cust::sys::cuFuncSetAttribute(
                    function.to_raw(),
                    cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                )
            },
            format_args!("allowing {name} {bytes} bytes of shared memory"),
        )
    }
}

/// The device address of a buffer, as a kernel argument value.
pub fn pointer<T: DeviceCopy>(buffer: &DeviceBuffer<T>) -> DevicePointer<T> {
    buffer.as_device_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_pointers_follow_the_parameter_order() {
        type P = (u32, *const f32, f32);
        let mut host: <P as Params>::Host = (7, DevicePointer::from_raw(0x1000), 2.5);
        let pointers = P::pointers(&mut host);
        assert_eq!(pointers.len(), 3);
        unsafe {
            assert_eq!(*(pointers[0] as *const u32), 7);
            assert_eq!((*(pointers[1] as *const DevicePointer<f32>)).as_raw(), 0x1000);
            assert_eq!(*(pointers[2] as *const f32), 2.5);
        }
    }
}
