//! Typed launches: every kernel goes through [`Gpu::launch`], which takes
//! the kernel's [`Kernel`] handle (declared by `#[kernel]` in the device
//! crate) and accepts only arguments of its parameter types, in its order:
//! a `*const T` or `*mut T` parameter takes a [`DevicePointer<T>`], a value
//! parameter the value. It checks the launch shape against the device's
//! limits, raises the dynamic shared-memory cap when a kernel needs more
//! than the default 48 KB, and names the kernel in any error.

use super::Gpu;
use crate::error::{Context as _, Error, Result};
use cust::function::{BlockSize, Function, FunctionAttribute, GridSize};
use cust::memory::{DeviceBuffer, DeviceCopy, DevicePointer};
use kernels_gpu::launch::{Kernel, LaunchShape};
use kernels_gpu::sgemm::GemmKernel;
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

/// What the compiler gave a kernel, as the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelResources {
    pub registers: u32,
    pub static_shared_bytes: u32,
    /// Per-thread local memory (register spills, arrays indexed at run time).
    pub local_bytes: u32,
}

/// Arguments of every SGEMM rung: `C = alpha * A * B + beta * C`.
#[derive(Clone, Copy)]
pub struct GemmArgs<'a> {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub alpha: f32,
    pub a: &'a DeviceBuffer<f32>,
    pub b: &'a DeviceBuffer<f32>,
    pub beta: f32,
    pub c: &'a DeviceBuffer<f32>,
}

impl Gpu {
    /// A kernel of the portable module, or of the sm_90a one for the Hopper
    /// kernels (asked for where it is, so no failed lookup is made: tools
    /// such as compute-sanitizer report those as API errors).
    pub(crate) fn function(&self, name: &str) -> Result<Function<'_>> {
        if kernels_gpu::gemm::hopper::is_hopper_kernel(name) {
            return self.hopper_module()?.get_function(name).context(format_args!("finding kernel {name} in the sm_90a module"));
        }
        self.module().get_function(name).context(format_args!("finding kernel {name} in the PTX module"))
    }

    /// Registers, static shared memory and local memory of a kernel.
    pub fn resources(&self, name: &str) -> Result<KernelResources> {
        let function = self.function(name)?;
        let get =
            |attribute| function.get_attribute(attribute).map(|v| v.max(0) as u32).context(format_args!("reading {attribute:?} of {name}"));
        Ok(KernelResources {
            registers: get(FunctionAttribute::NumRegisters)?,
            static_shared_bytes: get(FunctionAttribute::SharedMemorySizeBytes)?,
            local_bytes: get(FunctionAttribute::LocalSizeBytes)?,
        })
    }

    /// Blocks of this kernel one multiprocessor can hold at this launch
    /// shape, from the driver's occupancy API.
    pub fn resident_blocks(&self, name: &str, shape: LaunchShape) -> Result<u32> {
        let function = self.function(name)?;
        self.allow_shared(&function, name, shape.shared_bytes)?;
        function
            .max_active_blocks_per_multiprocessor(BlockSize::xyz(shape.block.x, shape.block.y, shape.block.z), shape.shared_bytes as usize)
            .context(format_args!("asking the occupancy API about {name}"))
    }

    /// Launches `kernel` on the stream with `args`, one value per parameter
    /// in the kernel's order (device pointers as [`DevicePointer`]).
    pub fn launch<P: Params>(&self, kernel: &Kernel<P>, shape: LaunchShape, args: P::Host) -> Result<()> {
        let mut args = args;
        self.launch_raw(kernel.name(), shape, &P::pointers(&mut args))
    }

    fn launch_raw(&self, name: &str, shape: LaunchShape, args: &[*mut c_void]) -> Result<()> {
        self.check_shape(name, shape)?;
        let function = self.function(name)?;
        self.allow_shared(&function, name, shape.shared_bytes)?;
        let grid = GridSize::xyz(shape.grid.x, shape.grid.y, shape.grid.z);
        let block = BlockSize::xyz(shape.block.x, shape.block.y, shape.block.z);
        unsafe { self.stream().launch(&function, grid, block, shape.shared_bytes, args) }.context(format_args!("launching {name}"))
    }

    /// `C = alpha * A * B + beta * C` with one rung of the ladder.
    pub fn sgemm(&self, kernel: &GemmKernel, args: &GemmArgs) -> Result<()> {
        let GemmArgs { m, n, k, alpha, a, b, beta, c } = *args;
        let values = (m, n, k, alpha, pointer(a), pointer(b), beta, pointer(c));
        self.launch(&kernel.kernel, (kernel.launch)(m, n), values)
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
