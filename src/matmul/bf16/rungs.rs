//! The BF16 ladder's rungs, bottom to top, and what each needs.
//!
//! A rung is more than a kernel name: it says which GPUs can run it (the
//! `mma.sync` rungs are in the portable sm_80 module; wgmma/TMA rungs need
//! the sm_90a module, which only a compute capability 9.0 GPU loads), which
//! shapes it takes, and how to set up its launches for a given set of
//! buffers (a TMA rung encodes its tensor maps there, once per problem).
//! A rung that cannot run shows as "skipped" with the reason, not as a
//! failure.

use super::ladder::{Bf16Buffers, Bf16Gemm};
use crate::device::Gpu;
use crate::error::Result;
use crate::matmul::hopper::{HopperGemm, bf16_shape_problem};
use crate::matmul::rungs::matching;
use kernels_gpu::bf16::{self as k, Bf16Kernel};
use kernels_gpu::bf16::{
    r02_wgmma_tma, r03_wgmma_specialized, r04_wgmma_persistent, r05_wgmma_tma_store, r06_wgmma_cluster, r07_wgmma_deferred,
};
use kernels_gpu::gemm::hopper::HopperKernel;
use kernels_gpu::launch::LaunchShape;

/// The PTX module a rung's kernel lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// The portable module (sm_80 PTX): Ampere and newer.
    Portable,
    /// The Hopper-only module (sm_90a: wgmma, TMA, setmaxnreg): exactly
    /// compute capability 9.0.
    Hopper,
}

impl Arch {
    pub fn runs_on(self, capability: (u32, u32)) -> bool {
        match self {
            Arch::Portable => capability >= (8, 0),
            Arch::Hopper => capability == (9, 0),
        }
    }

    /// The skip reason on a GPU that cannot run it.
    pub fn requirement(self) -> &'static str {
        match self {
            Arch::Portable => "needs an Ampere or newer GPU (sm_80)",
            Arch::Hopper => "needs a Hopper GPU (sm_90)",
        }
    }
}

/// How a rung is launched.
#[derive(Clone, Copy)]
pub enum Launch {
    /// A kernel taking just `(m, n, k, a, b, c)`.
    Plain(Bf16Kernel),
    /// Set up once per problem (a TMA rung encodes its tensor maps here);
    /// the returned object then runs the GEMM as often as it is timed.
    Prepared(fn(gpu: &Gpu, buffers: &Bf16Buffers) -> Result<Box<dyn Bf16Gemm>>),
}

/// One rung of the BF16 ladder.
#[derive(Clone, Copy)]
pub struct Bf16Rung {
    pub id: &'static str,
    pub title: &'static str,
    /// Entry point, for the table's registers, shared memory and occupancy.
    pub kernel: &'static str,
    /// Launch shape for an `m`×`n` C (the occupancy columns).
    pub shape: fn(m: u32, n: u32) -> LaunchShape,
    pub arch: Arch,
    /// Why the rung cannot take this shape ("needs K % 8 == 0"), or None.
    pub shape_limit: fn(m: u32, n: u32, k: u32) -> Option<&'static str>,
    pub launch: Launch,
}

impl Bf16Rung {
    /// A rung of the portable module with the common parameters; it takes
    /// any shape.
    pub const fn portable(id: &'static str, title: &'static str, kernel: Bf16Kernel) -> Bf16Rung {
        Bf16Rung {
            id,
            title,
            kernel: kernel.name(),
            shape: kernel.launch,
            arch: Arch::Portable,
            shape_limit: |_, _, _| None,
            launch: Launch::Plain(kernel),
        }
    }

    /// A rung of the sm_90a module: BF16 through tensor maps, so K and N
    /// must be multiples of 8. `shape` gives the occupancy columns' launch
    /// shape; `prepare` encodes the tensor maps once per problem.
    pub const fn hopper(
        id: &'static str,
        title: &'static str,
        kernel: HopperKernel,
        shape: fn(m: u32, n: u32) -> LaunchShape,
        prepare: fn(gpu: &Gpu, buffers: &Bf16Buffers) -> Result<Box<dyn Bf16Gemm>>,
    ) -> Bf16Rung {
        Bf16Rung {
            id,
            title,
            kernel: kernel.name(),
            shape,
            arch: Arch::Hopper,
            shape_limit: |m, n, k| bf16_shape_problem((m, n, k)),
            launch: Launch::Prepared(prepare),
        }
    }

    /// Why this rung does not run on a GPU of `capability` at `size`.
    pub fn skip_reason(&self, capability: (u32, u32), (m, n, k): (u32, u32, u32)) -> Option<String> {
        if !self.arch.runs_on(capability) {
            return Some(self.arch.requirement().into());
        }
        (self.shape_limit)(m, n, k).map(str::to_string)
    }

    /// What runs the GEMM on `buffers`.
    pub fn launcher(&self, gpu: &Gpu, buffers: &Bf16Buffers) -> Result<Box<dyn Bf16Gemm>> {
        match self.launch {
            Launch::Plain(kernel) => Ok(Box::new(kernel)),
            Launch::Prepared(prepare) => prepare(gpu, buffers),
        }
    }
}

/// A rung of the sm_90a module for `$kernel`, a `HopperKernel` constant
/// (function pointers cannot capture it, so each rung gets its own).
macro_rules! hopper_rung {
    ($id:expr, $title:expr, $kernel:path) => {
        Bf16Rung::hopper($id, $title, $kernel, |m, n| $kernel.launch(m, n, u32::MAX), |gpu, buffers| prepare_hopper($kernel, gpu, buffers))
    };
}

/// Every rung, bottom to top.
pub fn ladder() -> Vec<Bf16Rung> {
    vec![
        Bf16Rung::portable("1", "mma.sync + ldmatrix", k::r01_mma_sync::KERNEL),
        hopper_rung!("2", "wgmma, TMA, mbarrier ring", r02_wgmma_tma::PIPELINED),
        hopper_rung!("3", "warp specialization", r03_wgmma_specialized::SPECIALIZED),
        hopper_rung!("4", "persistent, grouped tiles", r04_wgmma_persistent::PERSISTENT),
        hopper_rung!("5", "epilogue by TMA stores", r05_wgmma_tma_store::TMA_STORE),
        hopper_rung!("6", "clusters of 2, multicast B", r06_wgmma_cluster::CLUSTERED),
        hopper_rung!("7", "half epilogue behind wgmma", r07_wgmma_deferred::DEFERRED),
    ]
}

/// Tensor maps over this problem's inputs for a Hopper rung.
fn prepare_hopper(kernel: HopperKernel, gpu: &Gpu, buffers: &Bf16Buffers) -> Result<Box<dyn Bf16Gemm>> {
    let args = buffers.args();
    Ok(Box::new(HopperGemm::bf16(kernel, gpu, (args.m, args.n, args.k), args.a, args.b, args.c)?))
}

impl Bf16Gemm for HopperGemm {
    fn run(&self, gpu: &Gpu, args: &super::ladder::Bf16Args) -> Result<()> {
        self.run_bf16(gpu, args.c)
    }
}

/// Rungs named by `list` (ids, numbers, ranges like 1-3, or kernel names),
/// in ladder order.
pub fn select(all: &[Bf16Rung], list: &str) -> Result<Vec<Bf16Rung>> {
    let ids: Vec<&str> = all.iter().map(|r| r.id).collect();
    let mut chosen = vec![false; all.len()];
    for item in list.split(',').map(str::trim) {
        if let Some(i) = all.iter().position(|r| r.kernel == item) {
            chosen[i] = true;
            continue;
        }
        for i in matching(&ids, item, " and kernel names")? {
            chosen[i] = true;
        }
    }
    Ok(all.iter().zip(chosen).filter_map(|(r, c)| c.then_some(*r)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: (u32, u32) = (9, 0);
    const A100: (u32, u32) = (8, 0);

    /// A stand-in for a TMA rung: sm_90a only, rows of 16-byte multiples.
    fn hopper_rung() -> Bf16Rung {
        Bf16Rung {
            id: "3",
            title: "wgmma + TMA",
            kernel: "bf16_test_tma",
            arch: Arch::Hopper,
            shape_limit: |_, n, k| (k % 8 != 0 || n % 8 != 0).then_some("needs K % 8 == 0 and N % 8 == 0"),
            ..ladder()[0]
        }
    }

    #[test]
    fn rungs_say_why_they_are_skipped() {
        let rung1 = ladder()[0];
        assert_eq!(rung1.skip_reason(H200, (17, 33, 9)), None);
        assert_eq!(rung1.skip_reason(A100, (1, 1, 1)), None);
        assert_eq!(rung1.skip_reason((7, 5), (1, 1, 1)).as_deref(), Some("needs an Ampere or newer GPU (sm_80)"));
        let tma = hopper_rung();
        assert_eq!(tma.skip_reason(H200, (4096, 4096, 4096)), None);
        assert_eq!(tma.skip_reason(A100, (4096, 4096, 4096)).as_deref(), Some("needs a Hopper GPU (sm_90)"));
        // sm_90a code does not run on later architectures either.
        assert_eq!(tma.skip_reason((10, 0), (4096, 4096, 4096)).as_deref(), Some("needs a Hopper GPU (sm_90)"));
        assert_eq!(tma.skip_reason(H200, (4097, 1024, 513)).as_deref(), Some("needs K % 8 == 0 and N % 8 == 0"));
    }

    #[test]
    fn every_portable_kernel_is_a_rung_once() {
        let all = ladder();
        let mut names: Vec<&str> = all.iter().map(|r| r.kernel).collect();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for kernel in k::KERNELS {
            assert!(names.contains(&kernel.name()), "{} is not on the ladder", kernel.name());
        }
    }

    #[test]
    fn titles_fit_the_tables_column() {
        for rung in ladder() {
            assert!(rung.title.chars().count() <= crate::matmul::report::TITLE_WIDTH, "{:?} is too long", rung.title);
        }
    }

    #[test]
    fn selections_by_id_range_and_name() {
        let all = ladder();
        let ids = |list: &str| select(&all, list).unwrap().iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids("1"), ["1"]);
        assert_eq!(ids("3,1"), ["1", "3"]);
        assert_eq!(ids("1-3"), ["1", "2", "3"]);
        assert_eq!(ids("bf16_mma_sync"), ["1"]);
        assert_eq!(ids("bf16_wgmma_persistent,2"), ["2", "4"]);
        let err = select(&all, "8").err().unwrap();
        assert!(err.message().starts_with("--rungs: no rung '8' (rungs are 1, 2, 3, 4, 5, 6, 7;"), "{err}");
    }
}
