//! The BF16 ladder: inputs are bf16, sums and C are fp32; every rung is
//! checked against an f64 reference over the same bf16 values and timed
//! beside cuBLAS's BF16 GEMM, in the same table, JSON and chart as the
//! SGEMM ladder.
//!
//! - [`problem`]: random bf16 inputs and the reference;
//! - [`ladder`]: the rungs, bottom to top.

pub mod problem;

use super::accuracy::Arithmetic;
use super::buffers::Buffers;
use super::check::Reference;
use super::cublas::Cublas;
use super::dtype::Dtype;
use super::element::{Args, Element, Gemm, Inputs, Library};
use super::fitted::{FittedTilesRung, PairedTilesRung};
use super::rung::{Ladder, Rung, RungKernel};
use super::small_m::{AutoRung, SmallMRung, SmallMTensorRung};
use crate::device::{Gpu, PtxModule, pointer};
use crate::error::Result;
use half::bf16;
use kernels_gpu::bf16::{self as k, Bf16Kernel};
use kernels_gpu::launch::LaunchShape;
use problem::Bf16Problem;

impl Element for bf16 {
    type Bits = u16;
    type Problem = Bf16Problem;
    const DTYPE: Dtype = Dtype::Bf16;
    const ARITHMETIC: Arithmetic = Arithmetic::Bf16TensorCore;
    const CUBLAS_CALL: &'static str = "cublasGemmEx bf16 -> f32";

    fn random(size: (u32, u32, u32), seed: u64) -> Bf16Problem {
        Bf16Problem::random(size, seed)
    }

    fn inputs(p: &Bf16Problem) -> Inputs<'_, bf16> {
        Inputs { size: (p.m, p.n, p.k), alpha: 1.0, beta: 0.0, a: &p.a, b: &p.b, c: &[] }
    }

    fn reference(problem: &Bf16Problem, rows: Vec<u32>) -> Reference {
        problem::reference(problem, rows)
    }

    fn cublas(cublas: &Cublas, args: &Args<bf16>) -> Result<()> {
        cublas.gemm_bf16((args.m, args.n, args.k), args.a, args.b, args.c)
    }

    fn cublas_title(version: &str) -> String {
        format!("{version} BF16")
    }

    fn references(_: &Cublas) -> Vec<Library<'_, bf16>> {
        Vec::new()
    }
}

/// The BF16 GEMMs compute `C = A·B`: [`Element::inputs`] sets alpha to 1
/// and beta to 0, which they do not read.
impl Gemm<bf16> for Bf16Kernel {
    fn run(&self, gpu: &Gpu, args: &Args<bf16>) -> Result<()> {
        let params = (args.m, args.n, args.k, pointer(args.a), pointer(args.b), pointer(args.c));
        gpu.launch(&self.kernel, (self.launch)(args.m, args.n), params)
    }
}

/// A BF16 kernel of the portable module: any shape, nothing to set up.
impl RungKernel<bf16> for Bf16Kernel {
    fn name(&self) -> &'static str {
        Bf16Kernel::name(self)
    }

    fn module(&self) -> PtxModule {
        PtxModule::Portable
    }

    fn shape_limit(&self, _: (u32, u32, u32)) -> Option<&'static str> {
        None
    }

    fn shape(&self, _: &Gpu, (m, n, _): (u32, u32, u32)) -> LaunchShape {
        (self.launch)(m, n)
    }

    fn prepare(&self, _: &Gpu, _: &Buffers<bf16>) -> Result<Box<dyn Gemm<bf16>>> {
        Ok(Box::new(*self))
    }
}

/// Every rung, bottom to top: `mma.sync` in the portable module, then the
/// wgmma rungs of the sm_90a module (prepared in [`super::hopper`]).
pub fn ladder() -> Ladder<bf16> {
    let rung = |id, title, kernel: &'static dyn RungKernel<bf16>| Rung { id, title, kernel };
    let rungs = vec![
        rung("1", "mma.sync + ldmatrix", &k::r01_mma_sync::KERNEL),
        rung("2", "wgmma, TMA, mbarrier ring", &k::r02_wgmma_tma::PIPELINED),
        rung("3", "warp specialization", &k::r03_wgmma_specialized::SPECIALIZED),
        rung("4", "persistent, grouped tiles", &k::r04_wgmma_persistent::PERSISTENT),
        rung("5", "epilogue by TMA stores", &k::r05_wgmma_tma_store::TMA_STORE),
        rung("6", "clusters of 2, multicast B", &k::r06_wgmma_cluster::CLUSTERED),
        rung("7", "half epilogue behind wgmma", &k::r07_wgmma_deferred::DEFERRED),
        rung("8", "small M: stream B, split K", &SmallMRung),
        rung("9", "few tiles: split K", &k::r09_split_k::SPLIT_K),
        rung("10", "split K, summed in cluster", &k::r10_cluster_split_k::CLUSTER_SPLIT_K),
        rung("11", "few rows: A and B swapped", &k::r11_swap_ab::SWAP_AB),
        rung("12", "swapped, summed in cluster", &k::r12_swap_ab_cluster::SWAP_AB_CLUSTER),
        rung("13", "tiles fitted to the shape", &FittedTilesRung),
        rung("14", "128x192 tiles: full waves", &k::r14_narrow_tiles::NARROW_TILES),
        rung("15", "deep K: 64x64, all SMs", &k::r15_deep_k::DEEP_K),
        rung("16", "128x128: fuller last round", &k::r16_tiles_128x128::TILES_128X128),
        rung("17", "swapped pairs share B", &PairedTilesRung),
        rung("18", "small M on tensor cores", &SmallMTensorRung),
        rung("auto", "auto: picked per shape", &AutoRung),
    ];
    // Rungs 13's and 17's tile shapes (rung 13's first is rung 12's), each
    // by its name.
    let others = k::r13_fitted_tiles::TILES[1..]
        .iter()
        .chain(k::r17_swap_ab_pairs::TILES.iter())
        .map(|t| t as &'static dyn RungKernel<bf16>)
        .collect();
    Ladder { rungs, others, note: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::report::TITLE_WIDTH;

    #[test]
    fn every_kernel_is_a_rung_once() {
        let all = ladder();
        let mut names: Vec<&str> = all.rungs.iter().map(|r| r.kernel.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.rungs.len());
        // Rung 13 runs one of its tile shapes (the first is rung 12's).
        names.extend(k::r13_fitted_tiles::TILES[1..].iter().chain(&k::r17_swap_ab_pairs::TILES).map(|t| t.name()));
        // The module's BF16 kernels: those that read 2-byte inputs.
        let hopper = kernels_gpu::sm90a::KERNELS.iter().filter(|h| h.input_bytes() == 2);
        for name in k::KERNELS.iter().map(|k| k.name()).chain(hopper.map(|h| h.name())) {
            assert!(names.contains(&name), "{name} is not on the ladder");
        }
    }

    #[test]
    fn titles_fit_the_tables_column() {
        for rung in ladder().rungs {
            assert!(rung.title.chars().count() <= TITLE_WIDTH, "{:?} is too long", rung.title);
        }
        let baseline = bf16::cublas_title(&Cublas::version_text(99_99_99));
        assert!(baseline.chars().count() <= TITLE_WIDTH, "{baseline:?} is too long");
    }

    #[test]
    fn selections_by_id_range_and_name() {
        let ids = |list: &str| ladder().select(list).unwrap().rungs.iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids("1"), ["1"]);
        assert_eq!(ids("3,1"), ["1", "3"]);
        assert_eq!(ids("1-3"), ["1", "2", "3"]);
        assert_eq!(ids("bf16_mma_sync"), ["1"]);
        assert_eq!(ids("bf16_wgmma_persistent,2"), ["2", "4"]);
        assert_eq!(ids("all").len(), 19);
        assert_eq!(ids("auto"), ["auto"]);
    }

    /// The error lists this ladder's rungs and examples, none of the
    /// SGEMM ladder's.
    #[test]
    fn bad_selections_list_the_bf16_rungs() {
        let err = ladder().select("19").err().unwrap();
        assert_eq!(
            err.message(),
            "--rungs: no rung '19' (the BF16 ladder's rungs are 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, auto; ranges like 1-4, lists like 1,10,auto, \
             kernel names (like bf16_mma_sync) and all work)"
        );
    }
}
