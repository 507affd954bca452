//! The SGEMM ladder: fp32 throughout, against cuBLAS's SGEMM, with
//! cuBLAS on the TF32 tensor cores shown for reference.

use super::accuracy::Arithmetic;
use super::buffers::Buffers;
use super::check::{self, Problem, Reference};
use super::cublas::Cublas;
use super::dtype::Dtype;
use super::element::{Args, Element, Gemm, Inputs, Library};
use super::rung::{Ladder, Rung, RungKernel};
use super::small_m::{AutoRung, SmallMRung};
use crate::device::{Gpu, PtxModule, pointer};
use crate::error::{Error, Result};
use kernels_gpu::launch::LaunchShape;
use kernels_gpu::sgemm::{self as k, GemmKernel, KERNELS};

/// Title of the TF32 reference row (the version is on the baseline's row).
pub const TF32_TITLE: &str = "cuBLAS TF32 (reference)";

impl Element for f32 {
    type Bits = f32;
    type Problem = Problem;
    const DTYPE: Dtype = Dtype::F32;
    const ARITHMETIC: Arithmetic = Arithmetic::Fp32;
    const CUBLAS_CALL: &'static str = "cublasSgemm";

    fn random(size: (u32, u32, u32), seed: u64) -> Problem {
        Problem::random(size, 1.0, 0.0, seed)
    }

    fn inputs(p: &Problem) -> Inputs<'_, f32> {
        Inputs { size: (p.m, p.n, p.k), alpha: p.alpha, beta: p.beta, a: &p.a, b: &p.b, c: &p.c }
    }

    fn reference(problem: &Problem, rows: Vec<u32>) -> Reference {
        check::reference(problem, rows)
    }

    fn cublas(cublas: &Cublas, args: &Args<f32>) -> Result<()> {
        cublas.sgemm((args.m, args.n, args.k), args.alpha, args.a, args.b, args.beta, args.c)
    }

    fn cublas_title(version: &str) -> String {
        version.to_string()
    }

    fn references(cublas: &Cublas) -> Vec<Library<'_, f32>> {
        let tf32 = CublasTf32(cublas);
        vec![Library { title: TF32_TITLE.into(), call: "cublasGemmEx TF32", arithmetic: Some(Arithmetic::Tf32), gemm: Box::new(tf32) }]
    }
}

/// cuBLAS on the TF32 tensor cores: a reference row beside SGEMM.
pub struct CublasTf32<'a>(pub &'a Cublas);

impl Gemm<f32> for CublasTf32<'_> {
    fn run(&self, _gpu: &Gpu, args: &Args<f32>) -> Result<()> {
        if args.alpha != 1.0 || args.beta != 0.0 {
            return Err(Error::new("the TF32 reference row computes C = A·B only (alpha 1, beta 0)"));
        }
        self.0.sgemm_tf32((args.m, args.n, args.k), args.a, args.b, args.c)
    }
}

impl Gemm<f32> for GemmKernel {
    fn run(&self, gpu: &Gpu, args: &Args<f32>) -> Result<()> {
        let Args { m, n, k, alpha, a, b, beta, c } = *args;
        gpu.launch(&self.kernel, (self.launch)(m, n), (m, n, k, alpha, pointer(a), pointer(b), beta, pointer(c)))
    }
}

/// A plain SGEMM kernel of the portable module: any shape, nothing to set
/// up.
impl RungKernel<f32> for GemmKernel {
    fn name(&self) -> &'static str {
        GemmKernel::name(self)
    }

    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    /// Rung 11 splits each input into two TF32 parts for the tensor cores;
    /// every other SGEMM kernel multiplies and adds on the FP32 pipes.
    fn arithmetic(&self) -> Arithmetic {
        if self.name() == k::r11_tensor_cores::KERNEL.name() { Arithmetic::Tf32x3 } else { Arithmetic::Fp32 }
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, _: &Gpu, (m, n, _): (u32, u32, u32)) -> LaunchShape {
        (self.launch)(m, n)
    }

    fn prepare(&self, _: &Gpu, _: &Buffers<f32>) -> Result<Box<dyn Gemm<f32>>> {
        Ok(Box::new(*self))
    }
}

/// Every rung, bottom to top. Rung 8 runs whichever tile shape tuning
/// chose (`autotuned`); every other SGEMM kernel of the module can be
/// named in full in `--rungs` (rung 8's candidates, for example).
pub fn ladder(autotuned: &'static GemmKernel) -> Ladder<f32> {
    let rung = |id, title, kernel: &'static dyn RungKernel<f32>| Rung { id, title, kernel };
    let rungs = vec![
        rung("1", "naive", &k::r01_naive::KERNEL),
        rung("2", "coalesced", &k::r02_coalesced::KERNEL),
        rung("3", "shared-memory tiles", &k::r03_shared_tiling::KERNEL),
        rung("4", "1D register blocking", &k::r04_blocktile_1d::KERNEL),
        rung("5", "2D register blocking", &k::r05_blocktile_2d::KERNEL),
        rung("6", "128-bit accesses", &k::r06_vectorized::KERNEL),
        rung("7a", "bank conflicts: padded", &k::r07_bank_conflicts::PADDED),
        rung("7b", "bank conflicts: swizzled", &k::r07_bank_conflicts::SWIZZLED),
        rung("8", "autotuned", autotuned),
        rung("9", "warptiling", &k::r09_warptiling::KERNEL),
        rung("10", "async copies, 4 stages", &k::r10_async_pipeline::KERNEL),
        rung("11", "tensor cores, 3xTF32", &k::r11_tensor_cores::KERNEL),
        rung("12", "3xTF32 on wgmma + TMA", &kernels_gpu::sgemm::r12_tf32x3_wgmma::KERNEL),
        rung("13", "small M: stream B, split K", &SmallMRung),
        rung("14", "few tiles: 3xTF32 split K", &kernels_gpu::sgemm::r14_tf32x3_split_k::SPLIT_K),
        rung("15", "B split in shared memory", &kernels_gpu::sgemm::r15_tf32x3_split_b::SPLIT_B),
        rung("auto", "auto: picked per shape", &AutoRung),
    ];
    let on_ladder: Vec<&str> = rungs.iter().map(|r| r.kernel.name()).collect();
    let others = KERNELS.iter().filter(|k| !on_ladder.contains(&k.name())).map(|k| k as &'static dyn RungKernel<f32>).collect();
    Ladder { rungs, others, note: String::new() }
}

/// The rungs that run one plain kernel of the portable module, as (id,
/// kernel): what the CPU emulator and the PTX checks go through.
pub fn plain_kernels(autotuned: &'static GemmKernel) -> Vec<(&'static str, &'static GemmKernel)> {
    let ladder = ladder(autotuned);
    let kernel = |name: &str| KERNELS.iter().find(|k| k.name() == name);
    ladder.rungs.iter().filter_map(|r| kernel(r.kernel.name()).map(|k| (r.id, k))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::report::TITLE_WIDTH;
    use k::r08_autotuned::CONFIGS;

    #[test]
    fn titles_fit_the_tables_column() {
        for rung in ladder(&CONFIGS[0].kernel).rungs {
            assert!(rung.title.chars().count() <= TITLE_WIDTH, "{:?} is too long", rung.title);
        }
        for library in [f32::cublas_title(&Cublas::version_text(99_99_99)), TF32_TITLE.into()] {
            assert!(library.chars().count() <= TITLE_WIDTH, "{library:?} is too long");
        }
    }

    #[test]
    fn ladder_has_every_rung_once_with_distinct_kernels() {
        let all = ladder(&CONFIGS[0].kernel);
        assert_eq!(all.rungs.len(), 17);
        let mut names: Vec<&str> = all.rungs.iter().map(|r| r.kernel.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 17);
        // Rungs 12, 14 and 15 are the sm_90a module's.
        let hopper: Vec<&str> = all.rungs.iter().filter(|r| r.kernel.module() == PtxModule::Sm90a).map(|r| r.id).collect();
        assert_eq!(hopper, ["12", "14", "15"]);
        // Every rung of the portable module but the small-M and auto rungs
        // is a plain kernel of KERNELS.
        let plain: Vec<&str> = plain_kernels(&CONFIGS[0].kernel).iter().map(|(id, _)| *id).collect();
        let portable: Vec<&str> = all.rungs.iter().filter(|r| r.kernel.module() == PtxModule::Portable).map(|r| r.id).collect();
        assert_eq!(plain, portable[..portable.len() - 2]);
        assert_eq!(portable[portable.len() - 2..], ["13", "auto"]);
        // Every kernel of the module is a rung or can be named.
        assert_eq!(all.others.len() + 12, KERNELS.len());
    }

    fn ids(list: &str) -> Vec<&'static str> {
        ladder(&CONFIGS[0].kernel).select(list).unwrap().rungs.iter().map(|r| r.id).collect()
    }

    #[test]
    fn selections() {
        assert_eq!(ids("1"), ["1"]);
        assert_eq!(ids("7"), ["7a", "7b"]);
        assert_eq!(ids("10,3-5,7B"), ["3", "4", "5", "7b", "10"]);
        assert_eq!(ids("1-10").len(), 11);
        assert_eq!(ids("11-12"), ["11", "12"]);
        assert_eq!(ids("sgemm_tf32x3_wgmma"), ["12"]);
        assert_eq!(ids("all").len(), 17);
        assert_eq!(ids("auto,13"), ["13", "auto"]);
    }

    #[test]
    fn any_kernel_of_the_module_can_be_named() {
        let candidate = CONFIGS[3].kernel.name();
        let picked = ladder(&CONFIGS[0].kernel).select(&format!("2,{candidate},sgemm_naive")).unwrap();
        let names: Vec<&str> = picked.rungs.iter().map(|r| r.kernel.name()).collect();
        assert_eq!(names, ["sgemm_naive", "sgemm_coalesced", candidate]);
    }

    #[test]
    fn bad_selections_say_what_exists() {
        for bad in ["16", "x", "5-3", "", "7c"] {
            let err = ladder(&CONFIGS[0].kernel).select(bad).err().expect(bad);
            assert!(err.message().starts_with("--rungs:"), "{err}");
            assert!(
                err.message().contains("the SGEMM ladder's rungs are 1, 2, 3, 4, 5, 6, 7a, 7b, 8, 9, 10, 11, 12, 13, 14, 15, auto;"),
                "{err}"
            );
            assert!(err.message().contains("lists like 1,8,auto") && err.message().contains("like sgemm_naive"), "{err}");
        }
    }
}
