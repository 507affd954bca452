//! cuBLAS, loaded at run time: the baseline every rung is compared with.
//!
//! `libcublas.so` is not needed to build or to run the ladder; when it
//! cannot be found the table says so and drops the "% of cuBLAS" column.

use crate::device::Gpu;
use crate::error::{Error, Result};
use cust::memory::DeviceBuffer;
use libloading::Library;
use std::ffi::c_void;
use std::path::{Path, PathBuf};

type Handle = *mut c_void;
type CreateFn = unsafe extern "C" fn(*mut Handle) -> i32;
type DestroyFn = unsafe extern "C" fn(Handle) -> i32;
type SetStreamFn = unsafe extern "C" fn(Handle, *mut c_void) -> i32;
type SetMathModeFn = unsafe extern "C" fn(Handle, i32) -> i32;
type VersionFn = unsafe extern "C" fn(Handle, *mut i32) -> i32;
#[allow(clippy::type_complexity)]
type SgemmFn = unsafe extern "C" fn(
    Handle,
    i32,
    i32,
    i32,
    i32,
    i32,
    *const f32,
    u64,
    i32,
    u64,
    i32,
    *const f32,
    u64,
    i32,
) -> i32;

/// `cublasGemmEx`: like Sgemm with the element types, the compute type and
/// the algorithm as arguments (scalars point to f32 for the fp32 compute
/// types used here).
#[allow(clippy::type_complexity)]
type GemmExFn = unsafe extern "C" fn(
    Handle,
    i32,
    i32,
    i32,
    i32,
    i32,
    *const f32,
    u64,
    i32,
    i32,
    u64,
    i32,
    i32,
    *const f32,
    u64,
    i32,
    i32,
    i32,
    i32,
) -> i32;

const CUBLAS_OP_N: i32 = 0;
/// `cudaDataType` values (library_types.h).
const CUDA_R_32F: i32 = 0;
const CUDA_R_16BF: i32 = 14;
/// `cublasComputeType_t`: fp32 arithmetic, and fp32 with TF32 tensor cores.
const CUBLAS_COMPUTE_32F: i32 = 68;
const CUBLAS_COMPUTE_32F_FAST_TF32: i32 = 77;
/// `cublasGemmAlgo_t`: cuBLAS's own heuristic choice.
const CUBLAS_GEMM_DEFAULT: i32 = -1;
/// Plain FP32 arithmetic: no TF32 tensor cores behind an SGEMM.
const CUBLAS_DEFAULT_MATH: i32 = 0;

/// Folders searched for `libcublas.so*`, after the dynamic loader's own
/// search; `*` matches any one folder name.
const SEARCH: &[&str] = &[
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/targets/x86_64-linux/lib",
    "/usr/local/cuda-*/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/opt/*/.venv/lib/python3*/site-packages/nvidia/cublas/lib",
    "/opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib",
    "/usr/local/lib/python3*/dist-packages/nvidia/cublas/lib",
    "/usr/local/lib/python3*/dist-packages/nvidia/cu13/lib",
];

/// An open cuBLAS handle bound to the GPU's stream.
pub struct Cublas {
    handle: Handle,
    sgemm: SgemmFn,
    /// Missing only from very old cuBLAS versions.
    gemm_ex: Option<GemmExFn>,
    destroy: DestroyFn,
    pub version: i32,
    pub path: String,
    _library: Library,
}

impl Cublas {
    /// Finds and opens cuBLAS (`PTX_LADDER_CUBLAS` names a file to use).
    pub fn load(gpu: &Gpu) -> Result<Cublas> {
        let mut tried = Vec::new();
        for candidate in candidates() {
            let library = match unsafe { Library::new(&candidate) } {
                Ok(library) => library,
                Err(_) => {
                    tried.push(candidate.display().to_string());
                    continue;
                }
            };
            return Self::open(gpu, library, candidate.display().to_string());
        }
        Err(Error::new(format!("cuBLAS not found (tried {})", tried.join(", "))))
    }

    fn open(gpu: &Gpu, library: Library, path: String) -> Result<Cublas> {
        unsafe {
            let symbol_error = |e: libloading::Error| Error::new(format!("{path} is not a usable cuBLAS: {e}"));
            let create = *library.get::<CreateFn>(b"cublasCreate_v2\0").map_err(symbol_error)?;
            let destroy = *library.get::<DestroyFn>(b"cublasDestroy_v2\0").map_err(symbol_error)?;
            let set_stream = *library.get::<SetStreamFn>(b"cublasSetStream_v2\0").map_err(symbol_error)?;
            let set_math = *library.get::<SetMathModeFn>(b"cublasSetMathMode\0").map_err(symbol_error)?;
            let get_version = *library.get::<VersionFn>(b"cublasGetVersion_v2\0").map_err(symbol_error)?;
            let sgemm = *library.get::<SgemmFn>(b"cublasSgemm_v2\0").map_err(symbol_error)?;
            let mut handle: Handle = std::ptr::null_mut();
            status(create(&mut handle), "cublasCreate")?;
            let gemm_ex = library.get::<GemmExFn>(b"cublasGemmEx\0").ok().map(|f| *f);
            let mut cublas = Cublas { handle, sgemm, gemm_ex, destroy, version: 0, path, _library: library };
            status(set_stream(handle, gpu.stream().as_inner() as *mut c_void), "cublasSetStream")?;
            status(set_math(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode")?;
            status(get_version(handle, &mut cublas.version), "cublasGetVersion")?;
            Ok(cublas)
        }
    }

    /// Row-major `C = alpha * A * B + beta * C` (A: m×k, B: k×n). cuBLAS is
    /// column-major, so it computes Cᵀ = Bᵀ·Aᵀ: the same bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm(&self, (m, n, k): (u32, u32, u32), alpha: f32, a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, beta: f32, c: &DeviceBuffer<f32>) -> Result<()> {
        let (m, n, k) = (m as i32, n as i32, k as i32);
        let ptr = |buffer: &DeviceBuffer<f32>| buffer.as_device_ptr().as_raw();
        let code = unsafe {
            (self.sgemm)(self.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, ptr(b), n, ptr(a), k, &beta, ptr(c), n)
        };
        status(code, "cublasSgemm")
    }

    /// Row-major `C = A·B` with A and B bf16 and C fp32, computed in fp32
    /// (`cublasGemmEx`, `CUBLAS_COMPUTE_32F`, default algorithm), swapped
    /// into column-major as [`Cublas::sgemm`] does.
    pub fn gemm_bf16(&self, size: (u32, u32, u32), a: &DeviceBuffer<u16>, b: &DeviceBuffer<u16>, c: &DeviceBuffer<f32>) -> Result<()> {
        let inputs = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        self.gemm_ex(size, inputs, CUDA_R_16BF, c, CUBLAS_COMPUTE_32F)
    }

    /// Row-major fp32 `C = A·B` on the TF32 tensor cores (inputs rounded to
    /// 10 mantissa bits, fp32 accumulation): `cublasGemmEx` with
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`. The handle's math mode stays plain
    /// fp32, so [`Cublas::sgemm`] is unaffected.
    pub fn sgemm_tf32(&self, size: (u32, u32, u32), a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, c: &DeviceBuffer<f32>) -> Result<()> {
        let inputs = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        self.gemm_ex(size, inputs, CUDA_R_32F, c, CUBLAS_COMPUTE_32F_FAST_TF32)
    }

    /// `cublasGemmEx` for row-major `C = A·B` (alpha 1, beta 0), fp32 C.
    fn gemm_ex(&self, (m, n, k): (u32, u32, u32), (a, b): (u64, u64), input_type: i32, c: &DeviceBuffer<f32>, compute: i32) -> Result<()> {
        let Some(gemm_ex) = self.gemm_ex else {
            return Err(Error::new(format!("{} has no cublasGemmEx", self.path)));
        };
        let (m, n, k) = (m as i32, n as i32, k as i32);
        let (alpha, beta) = (1.0f32, 0.0f32);
        let c = c.as_device_ptr().as_raw();
        let code = unsafe {
            gemm_ex(
                self.handle,
                CUBLAS_OP_N,
                CUBLAS_OP_N,
                n,
                m,
                k,
                &alpha,
                b,
                input_type,
                n,
                a,
                input_type,
                k,
                &beta,
                c,
                CUDA_R_32F,
                n,
                compute,
                CUBLAS_GEMM_DEFAULT,
            )
        };
        status(code, "cublasGemmEx")
    }

    /// "cuBLAS 13.0.2"-style version string.
    pub fn version_string(&self) -> String {
        let v = self.version;
        format!("cuBLAS {}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        unsafe { (self.destroy)(self.handle) };
    }
}

fn status(code: i32, call: &str) -> Result<()> {
    if code == 0 { Ok(()) } else { Err(Error::new(format!("{call} failed with cuBLAS status {code}"))) }
}

/// Where to look, in order.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(path) = std::env::var("PTX_LADDER_CUBLAS") {
        out.push(PathBuf::from(path));
    }
    out.extend(["libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"].map(PathBuf::from));
    for pattern in SEARCH {
        for dir in expand(Path::new(pattern)) {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().and_then(|f| f.to_str()).is_some_and(|f| f.starts_with("libcublas.so")))
                .collect();
            found.sort();
            out.extend(found.into_iter().rev());
        }
    }
    out
}

/// Expands `*` in folder names (one level each).
fn expand(pattern: &Path) -> Vec<PathBuf> {
    let mut paths = vec![PathBuf::from("/")];
    for part in pattern.components().skip(1) {
        let part = part.as_os_str().to_string_lossy();
        let mut next = Vec::new();
        for base in &paths {
            if let Some((prefix, suffix)) = part.split_once('*') {
                let Ok(entries) = std::fs::read_dir(base) else { continue };
                for entry in entries.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name.starts_with(prefix) && name.ends_with(suffix) && name.len() >= prefix.len() + suffix.len() {
                        next.push(base.join(name));
                    }
                }
            } else {
                next.push(base.join(part.as_ref()));
            }
        }
        paths = next;
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::expand;
    use std::path::Path;

    #[test]
    fn glob_expands_one_folder_level() {
        let root = std::env::temp_dir().join(format!("ptx-ladder-glob-{}", std::process::id()));
        for dir in ["python3.11/lib", "python3.12/lib", "other/lib"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let mut found = expand(&root.join("python3*/lib"));
        found.sort();
        assert_eq!(found, [root.join("python3.11/lib"), root.join("python3.12/lib")]);
        assert!(expand(Path::new("/definitely-not-here-*/x")).is_empty());
        std::fs::remove_dir_all(root).unwrap();
    }
}
