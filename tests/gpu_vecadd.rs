//! Vector add on a real GPU (run with `--include-ignored` where one exists):
//! random inputs, poisoned output, every element checked.

use ptx_ladder::device::Gpu;
use ptx_ladder::vecadd::check_on_gpu;

#[test]
#[ignore = "needs a CUDA GPU"]
fn vecadd_is_exact_for_awkward_sizes() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    for n in [1u64, 17, 255, 256, 257, 1000, 100_000_000] {
        for block in [256, 1024, 96] {
            let m = check_on_gpu(&gpu, n, block).unwrap();
            assert_eq!(m.count, 0, "n = {n}, block = {block}: first mismatch {:?}", m.first);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn vecadd_with_zero_elements_launches_nothing() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    assert_eq!(check_on_gpu(&gpu, 0, 256).unwrap().count, 0);
}
