//! Exercises on a GPU: the same kernel the emulator checked, compiled to
//! PTX from the `exercises` crate as it is now, runs at the check's sizes
//! (every element compared, as on the CPU) and at one large size, timed
//! against its natural bound.
//!
//! The exercises are not in the project's PTX modules (editing one would
//! rebuild both), so their PTX is compiled here, on demand, the way
//! `build.rs` compiles `kernels-gpu`; `PTX_LADDER_EXERCISES_PTX` names a
//! PTX file compiled before (for a GPU machine without a Rust toolchain:
//! `ptx-ladder exercise --ptx PATH` writes one).

use super::{Bound, Case, Kernel, wrong_elements};
use crate::device::{Gpu, Timing};
use crate::error::{Context as _, Error, Result};
use cust::function::{BlockSize, GridSize};
use cust::memory::{AsyncCopyDestination as _, DeviceBuffer};
use cust::module::Module;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming a prebuilt PTX file of the exercises.
pub const PTX_VARIABLE: &str = "PTX_LADDER_EXERCISES_PTX";

/// Architecture of the exercises' PTX: the project's default (`build.rs`).
const ARCH: &str = "sm_80";

/// Timed runs of the large size, and of the copy it is compared with.
const REPS: u32 = 20;

/// The exercises' PTX: the file `PTX_LADDER_EXERCISES_PTX` names, or a
/// fresh compilation of the `exercises` crate in this source tree.
pub fn ptx() -> Result<String> {
    let path = match std::env::var_os(PTX_VARIABLE) {
        Some(path) => PathBuf::from(path),
        None => compile()?,
    };
    read(&path)
}

/// The exercises' PTX, compiled now whatever `PTX_LADDER_EXERCISES_PTX` says.
pub fn fresh_ptx() -> Result<String> {
    read(&compile()?)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::new(format!("reading the exercises' PTX {}: {e}", path.display())))
}

/// Compiles the `exercises` crate to PTX (nvptx64, `sm_80`, the `ptx`
/// profile, panics as traps, linked by `tools/ptx-link.sh`: the same
/// steps as `build.rs`) and returns the file's path.
pub fn compile() -> Result<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sysroot = output("rustc", &["--print", "sysroot"])?;
    let host = output("rustc", &["-vV"])?.lines().find_map(|l| l.strip_prefix("host: ").map(str::to_string)).unwrap_or_default();
    let llvm_bin = Path::new(sysroot.trim()).join("lib/rustlib").join(host.trim()).join("bin");
    let flags = [
        format!("-Ctarget-cpu={ARCH}"),
        "-Zunstable-options".into(),
        "-Cpanic=immediate-abort".into(),
        format!("-Clinker={}", root.join("tools/ptx-link.sh").display()),
        "-Cllvm-args=-unroll-threshold=8000".into(),
    ];
    let target_dir = root.join("target/ptx-exercises");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .env_clear()
        .envs(
            std::env::vars()
                .filter(|(k, _)| ["PATH", "HOME", "USER", "TMPDIR", "RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN"].contains(&k.as_str())),
        )
        .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
        .env("PTX_LADDER_LLVM_BIN", &llvm_bin)
        .args(["rustc", "--lib", "--crate-type", "cdylib", "--profile", "ptx", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
        .arg("--manifest-path")
        .arg(root.join("exercises/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .status()
        .map_err(|e| Error::new(format!("running {cargo} to compile the exercises to PTX: {e}")))?;
    if !status.success() {
        return Err(Error::new("compiling the exercises to PTX failed (the errors are above)"));
    }
    Ok(target_dir.join("nvptx64-nvidia-cuda/ptx/exercises.ptx"))
}

fn output(program: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(program).args(args).output().map_err(|e| Error::new(format!("running {program}: {e}")))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The exercises' module, loaded on an open GPU.
pub struct Exercises<'g> {
    // Dropped before the GPU's context.
    module: Module,
    gpu: &'g Gpu,
}

impl<'g> Exercises<'g> {
    pub fn load(gpu: &'g Gpu, ptx: &str) -> Result<Exercises<'g>> {
        let module = Module::from_ptx(ptx, &[]).context("loading the exercises' PTX")?;
        Ok(Exercises { module, gpu })
    }

    /// Runs the kernel `entry` on `case` and returns the output's words.
    pub fn run(&self, entry: &str, kernel: Kernel, case: &Case) -> Result<Vec<u32>> {
        let launch = Launched::new(self.gpu, case)?;
        self.launch(entry, kernel, case, &launch)?;
        self.gpu.synchronize()?;
        launch.output(self.gpu)
    }

    fn launch(&self, entry: &str, kernel: Kernel, case: &Case, launched: &Launched) -> Result<()> {
        let function = self.module.get_function(entry).context(format_args!("finding {entry} in the exercises' PTX"))?;
        let mut pointers: Vec<u64> = launched.inputs.iter().chain([&launched.output]).map(|b| b.as_device_ptr().as_raw()).collect();
        let sizes = match kernel {
            Kernel::Array(_) | Kernel::TwoArrays(_) | Kernel::Counts(_) => 1,
            Kernel::Matrix(_) | Kernel::Transpose(_) => 2,
            Kernel::Matmul(_) => 3,
        };
        let mut dims = case.dims;
        let mut args: Vec<*mut c_void> = pointers.iter_mut().map(|p| p as *mut u64 as *mut c_void).collect();
        args.extend(dims[..sizes].iter_mut().map(|d| d as *mut u32 as *mut c_void));
        let (g, b) = (case.shape.grid, case.shape.block);
        unsafe {
            self.gpu.stream().launch(&function, GridSize::xyz(g.x, g.y, g.z), BlockSize::xyz(b.x, b.y, b.z), case.shape.shared_bytes, &args)
        }
        .context(format_args!("launching {entry}"))
    }

    /// Checks `entry` on every case (`Ok(None)`), or says which element
    /// of which case is wrong.
    pub fn check(&self, entry: &str, kernel: Kernel, cases: &[Case]) -> Result<Option<String>> {
        for case in cases {
            let got = self.run(entry, kernel, case)?;
            let wrong = wrong_elements(&case.expected, &got);
            if let Some(&i) = wrong.first() {
                return Ok(Some(format!(
                    "{}: {} of {} elements wrong on the GPU (first: element {i})",
                    case.label,
                    wrong.len(),
                    got.len()
                )));
            }
        }
        Ok(None)
    }

    /// Times `entry` on `case` and the case's bound.
    pub fn time(&self, entry: &str, kernel: Kernel, case: &Case, bound: Bound) -> Result<Speed> {
        let launched = Launched::new(self.gpu, case)?;
        let kernel_time = self.gpu.time(2, REPS, || self.launch(entry, kernel, case, &launched))?;
        let words: usize = case.inputs.iter().map(|i| i.words.len()).sum::<usize>() + launched.len;
        let bytes = 4.0 * words as f64;
        let copy = match bound {
            Bound::Copy => {
                // A copy of half the bytes moves as many as the kernel must (read + write).
                let (from, mut to) = (self.gpu.alloc(words.div_ceil(2), "copy source")?, self.gpu.alloc(words.div_ceil(2), "copy target")?);
                Some(self.gpu.time(2, REPS, || unsafe { to.async_copy_from(&from, self.gpu.stream()) }.context("device-to-device copy"))?)
            }
            Bound::Flops => None,
        };
        let [m, n, k] = case.dims;
        Ok(Speed { kernel: kernel_time, bytes, copy, flops: 2.0 * m as f64 * n as f64 * k as f64 })
    }
}

/// A kernel's median time and what it is compared with.
#[derive(Clone, Debug)]
pub struct Speed {
    pub kernel: Timing,
    /// Bytes the kernel must read and write at least.
    pub bytes: f64,
    /// The device-to-device copy of as many bytes, for memory-bound kernels.
    pub copy: Option<Timing>,
    /// `2 m n k`, for the matmuls.
    pub flops: f64,
}

impl Speed {
    /// The kernel's speed as a fraction of the copy's (1.0: as fast as a copy).
    pub fn ratio_to_copy(&self) -> Option<f64> {
        self.copy.as_ref().map(|c| c.median_ms / self.kernel.median_ms)
    }

    pub fn describe(&self) -> String {
        match self.ratio_to_copy() {
            Some(ratio) => format!(
                "{:.3} ms, {:.0} GB/s; a copy of as many bytes: {:.0} GB/s; ratio to the bound {ratio:.2}",
                self.kernel.median_ms,
                self.kernel.billions_per_second(self.bytes),
                self.copy.as_ref().map_or(0.0, |c| c.billions_per_second(self.bytes)),
            ),
            None => format!("{:.3} ms, {:.0} GFLOP/s", self.kernel.median_ms, self.kernel.billions_per_second(self.flops)),
        }
    }
}

/// A case's buffers on the GPU.
struct Launched {
    inputs: Vec<DeviceBuffer<f32>>,
    output: DeviceBuffer<f32>,
    len: usize,
}

impl Launched {
    fn new(gpu: &Gpu, case: &Case) -> Result<Launched> {
        let floats = |words: &[u32]| words.iter().map(|&w| f32::from_bits(w)).collect::<Vec<f32>>();
        let inputs = case.inputs.iter().map(|i| gpu.upload(&floats(&i.words), i.name)).collect::<Result<Vec<_>>>()?;
        let len = case.expected.len();
        let init = if case.zeroed { 0 } else { crate::device::POISON_BITS };
        let output = gpu.upload(&floats(&vec![init; len]), case.output)?;
        Ok(Launched { inputs, output, len })
    }

    fn output(&self, gpu: &Gpu) -> Result<Vec<u32>> {
        let mut host = vec![0f32; self.len];
        gpu.download(&self.output, &mut host, "the output")?;
        Ok(host.iter().map(|v| v.to_bits()).collect())
    }
}
