//! Every exercise's reference solution on a GPU: checked at the CPU check's
//! sizes and at a large one, and timed there against its bound (a copy of
//! as many bytes for the memory-bound ones). Run with `--include-ignored`
//! on a machine with a CUDA GPU; the exercises' PTX is compiled from this
//! tree, or read from `PTX_LADDER_EXERCISES_PTX`.

use exercises::catalogue::catalogue;
use ptx_ladder::device::Gpu;
use ptx_ladder::exercises::Bound;
use ptx_ladder::exercises::gpu::{Exercises, ptx};

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_reference_solution_passes_on_the_gpu_and_is_timed() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    let ptx = ptx().expect("the exercises' PTX");
    let module = Exercises::load(&gpu, &ptx).expect("loading the exercises' PTX");
    for e in catalogue() {
        let mut cases = (e.cases)();
        let large = (e.large)();
        cases.push(large.clone());
        let wrong = module.check(e.reference_entry, e.reference, &cases).expect("running on the GPU");
        assert_eq!(wrong, None, "exercise {}: {}", e.number, e.reference_entry);
        let speed = module.time(e.reference_entry, e.reference, &large, e.bound).expect("timing");
        println!("exercise {:>2} {:<34} {}: {}", e.number, e.reference_entry, large.label, speed.describe());
        assert_eq!(speed.ratio_to_copy().is_some(), e.bound == Bound::Copy, "exercise {}", e.number);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_stubs_fail_on_the_gpu() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    let module = Exercises::load(&gpu, &ptx().expect("the exercises' PTX")).expect("loading the exercises' PTX");
    for e in catalogue() {
        let wrong = module.check(e.entry, e.kernel, &(e.cases)()).expect("running on the GPU");
        assert!(wrong.is_some(), "exercise {}: the stub left nothing to catch", e.number);
    }
}
