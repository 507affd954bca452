//! cuBLAS, loaded at run time: the baseline every rung is compared with.
//!
//! `libcublas.so` is not needed to build or to run the ladder; when it
//! cannot be found the table says so and drops the "% of cuBLAS" column.

use crate::device::Gpu;
use crate::error::{Error, Result};
use cust::memory::{DeviceBuffer, DevicePointer};
use libloading::Library;
use std::ffi::c_void;
use std::path::{Path, PathBuf};

/// `cublasHandle_t`: cuBLAS's per-thread context (library state, stream,
/// math mode).
type Handle = *mut c_void;

/// `cublasStatus_t`: 0 is success, anything else an error code.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Status(i32);

impl Status {
    /// The name cuBLAS's header gives the code, when it is a known one.
    fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "CUBLAS_STATUS_SUCCESS",
            1 => "CUBLAS_STATUS_NOT_INITIALIZED",
            3 => "CUBLAS_STATUS_ALLOC_FAILED",
            7 => "CUBLAS_STATUS_INVALID_VALUE",
            8 => "CUBLAS_STATUS_ARCH_MISMATCH",
            11 => "CUBLAS_STATUS_MAPPING_ERROR",
            13 => "CUBLAS_STATUS_EXECUTION_FAILED",
            14 => "CUBLAS_STATUS_INTERNAL_ERROR",
            15 => "CUBLAS_STATUS_NOT_SUPPORTED",
            16 => "CUBLAS_STATUS_LICENSE_ERROR",
            _ => return None,
        })
    }
}

/// `cublasOperation_t`: what a GEMM does to an operand before multiplying.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `CUBLAS_OP_N`: the matrix as stored.
    None = 0,
    /// `CUBLAS_OP_T`: its transpose.
    Transpose = 1,
}

/// `cublasMath_t`: which units cuBLAS may use for FP32 work.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathMode {
    /// `CUBLAS_DEFAULT_MATH`: plain FP32 arithmetic, no TF32 tensor cores
    /// behind an SGEMM (the fair baseline for FP32 CUDA-core rungs).
    Default = 0,
    /// `CUBLAS_TF32_TENSOR_OP_MATH`: FP32 GEMMs may round inputs to TF32 and
    /// run on tensor cores.
    Tf32TensorOp = 3,
}

/// `cublasCreate_v2(handle*)`: makes a handle on the current context.
type CreateFn = unsafe extern "C" fn(handle: *mut Handle) -> Status;
/// `cublasDestroy_v2(handle)`.
type DestroyFn = unsafe extern "C" fn(handle: Handle) -> Status;
/// `cublasSetStream_v2(handle, stream)`: the stream later calls run on.
type SetStreamFn = unsafe extern "C" fn(handle: Handle, stream: cust::sys::CUstream) -> Status;
/// `cublasSetMathMode(handle, mode)`.
type SetMathModeFn = unsafe extern "C" fn(handle: Handle, mode: MathMode) -> Status;
/// `cublasGetVersion_v2(handle, version*)`: major × 10000 + minor × 100 + patch.
type VersionFn = unsafe extern "C" fn(handle: Handle, version: *mut i32) -> Status;

/// `cublasSgemm_v2`: column-major `C = alpha * op(A) * op(B) + beta * C`
/// with op(A) m×k, op(B) k×n and C m×n. `alpha` and `beta` are host
/// pointers (the default pointer mode); `lda`, `ldb`, `ldc` are the leading
/// dimensions, the distance in elements between consecutive columns.
type SgemmFn = unsafe extern "C" fn(
    handle: Handle,
    transa: Operation,
    transb: Operation,
    m: i32,
    n: i32,
    k: i32,
    alpha: *const f32,
    a: DevicePointer<f32>,
    lda: i32,
    b: DevicePointer<f32>,
    ldb: i32,
    beta: *const f32,
    c: DevicePointer<f32>,
    ldc: i32,
) -> Status;

/// `cudaDataType`: the element type of a GEMM operand (library_types.h).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    /// `CUDA_R_32F`: fp32.
    F32 = 0,
    /// `CUDA_R_16BF`: bf16.
    Bf16 = 14,
}

/// `cublasComputeType_t`: the arithmetic a `cublasGemmEx` uses.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeType {
    /// `CUBLAS_COMPUTE_32F`: fp32 accumulation (tensor cores for bf16 inputs).
    F32 = 68,
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`: fp32 inputs rounded to TF32 on the
    /// tensor cores, fp32 accumulation.
    F32FastTf32 = 77,
}

/// `cublasGemmAlgo_t`: which algorithm a `cublasGemmEx` runs.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// `CUBLAS_GEMM_DEFAULT`: cuBLAS's own heuristic choice.
    Default = -1,
}

/// `cublasGemmEx`: as [`SgemmFn`] with each operand's element type, the
/// compute type and the algorithm as arguments. `alpha` and `beta` point to
/// f32 values (the scalar type of the fp32 compute types used here); the
/// operands are untyped device addresses, typed by `a_type`, `b_type`,
/// `c_type`.
type GemmExFn = unsafe extern "C" fn(
    handle: Handle,
    transa: Operation,
    transb: Operation,
    m: i32,
    n: i32,
    k: i32,
    alpha: *const f32,
    a: u64,
    a_type: DataType,
    lda: i32,
    b: u64,
    b_type: DataType,
    ldb: i32,
    beta: *const f32,
    c: u64,
    c_type: DataType,
    ldc: i32,
    compute: ComputeType,
    algorithm: Algorithm,
) -> Status;

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
            check(create(&mut handle), "cublasCreate")?;
            let gemm_ex = library.get::<GemmExFn>(b"cublasGemmEx\0").ok().map(|f| *f);
            let mut cublas = Cublas { handle, sgemm, gemm_ex, destroy, version: 0, path, _library: library };
            check(set_stream(handle, gpu.stream().as_inner()), "cublasSetStream")?;
            check(set_math(handle, MathMode::Default), "cublasSetMathMode")?;
            check(get_version(handle, &mut cublas.version), "cublasGetVersion")?;
            Ok(cublas)
        }
    }

    /// Row-major `C = alpha * A * B + beta * C` on the GPU's stream, with
    /// `a` m×k, `b` k×n and `c` m×n, all row-major and densely packed
    /// (`beta == 0` leaves C's old contents unread). cuBLAS is column-major,
    /// so it computes Cᵀ = Bᵀ·Aᵀ: the same bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn sgemm(
        &self,
        (m, n, k): (u32, u32, u32),
        alpha: f32,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        beta: f32,
        c: &DeviceBuffer<f32>,
    ) -> Result<()> {
        let (m, n, k) = (m as i32, n as i32, k as i32);
        let (a, b, c) = (a.as_device_ptr(), b.as_device_ptr(), c.as_device_ptr());
        // Column-major view of the same bytes: Cᵀ is n×m (leading
        // dimension n) = Bᵀ (n×k, ld n) · Aᵀ (k×m, ld k), none transposed.
        let none = Operation::None;
        let code = unsafe { (self.sgemm)(self.handle, none, none, n, m, k, &alpha, b, n, a, k, &beta, c, n) };
        check(code, "cublasSgemm")
    }

    /// Row-major `C = A·B` with A and B bf16 and C fp32, computed in fp32
    /// (`cublasGemmEx`, `CUBLAS_COMPUTE_32F`, default algorithm), swapped
    /// into column-major as [`Cublas::sgemm`] does.
    pub fn gemm_bf16(&self, size: (u32, u32, u32), a: &DeviceBuffer<u16>, b: &DeviceBuffer<u16>, c: &DeviceBuffer<f32>) -> Result<()> {
        let inputs = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        self.gemm_ex(size, inputs, DataType::Bf16, c, ComputeType::F32)
    }

    /// Row-major fp32 `C = A·B` on the TF32 tensor cores (inputs rounded to
    /// 10 mantissa bits, fp32 accumulation): `cublasGemmEx` with
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`. The handle's math mode stays plain
    /// fp32, so [`Cublas::sgemm`] is unaffected.
    pub fn sgemm_tf32(&self, size: (u32, u32, u32), a: &DeviceBuffer<f32>, b: &DeviceBuffer<f32>, c: &DeviceBuffer<f32>) -> Result<()> {
        let inputs = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        self.gemm_ex(size, inputs, DataType::F32, c, ComputeType::F32FastTf32)
    }

    /// `cublasGemmEx` for row-major `C = A·B` (alpha 1, beta 0), fp32 C.
    fn gemm_ex(
        &self,
        (m, n, k): (u32, u32, u32),
        (a, b): (u64, u64),
        inputs: DataType,
        c: &DeviceBuffer<f32>,
        compute: ComputeType,
    ) -> Result<()> {
        let Some(gemm_ex) = self.gemm_ex else {
            return Err(Error::new(format!("{} has no cublasGemmEx", self.path)));
        };
        let (m, n, k) = (m as i32, n as i32, k as i32);
        let (alpha, beta) = (1.0f32, 0.0f32);
        let c = c.as_device_ptr().as_raw();
        let none = Operation::None;
        // As in `sgemm`: Cᵀ = Bᵀ · Aᵀ in column-major terms.
        let code = unsafe {
            gemm_ex(
                self.handle,
                none,
                none,
                n,
                m,
                k,
                &alpha,
                b,
                inputs,
                n,
                a,
                inputs,
                k,
                &beta,
                c,
                DataType::F32,
                n,
                compute,
                Algorithm::Default,
            )
        };
        check(code, "cublasGemmEx")
    }

    /// "cuBLAS 13.0.2"-style version string.
    pub fn version_string(&self) -> String {
        Self::version_text(self.version)
    }

    /// `version` as cuBLAS encodes it (major × 10000 + minor × 100 +
    /// patch) in words: "cuBLAS 13.0.2".
    pub fn version_text(version: i32) -> String {
        format!("cuBLAS {}.{}.{}", version / 10000, (version / 100) % 100, version % 100)
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        unsafe { (self.destroy)(self.handle) };
    }
}

fn check(status: Status, call: &str) -> Result<()> {
    match status {
        Status(0) => Ok(()),
        Status(code) => Err(Error::new(format!("{call} failed with cuBLAS status {code} ({})", status.name().unwrap_or("unknown code")))),
    }
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
    use super::{Cublas, Status, check, expand};
    use std::path::Path;

    #[test]
    fn versions_read_as_major_minor_patch() {
        assert_eq!(Cublas::version_text(130_100), "cuBLAS 13.1.0");
        assert_eq!(Cublas::version_text(120_908), "cuBLAS 12.9.8");
    }

    #[test]
    fn errors_name_the_status() {
        assert!(check(Status(0), "cublasSgemm").is_ok());
        let err = check(Status(7), "cublasSgemm").unwrap_err();
        assert_eq!(err.message(), "cublasSgemm failed with cuBLAS status 7 (CUBLAS_STATUS_INVALID_VALUE)");
        assert!(check(Status(99), "x").unwrap_err().message().contains("unknown code"));
    }

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
