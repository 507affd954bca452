//! Vector add on a real GPU (run with `--include-ignored` where one exists):
//! random inputs, poisoned output, every element checked, both kernels.

use ptx_ladder::device::Gpu;
use ptx_ladder::vecadd::check_on_gpu;

#[test]
#[ignore = "needs a CUDA GPU"]
fn vecadd_is_exact_for_awkward_sizes() {
    let gpu = Gpu::open().expect("a CUDA GPU");
    for n in [1u64, 17, 255, 256, 257, 1000, 100_000_000] {
        for block in [256, 1024, 96] {
            let results = check_on_gpu(&gpu, n, block).unwrap();
            assert_eq!(results.len(), 2);
            for (variant, m) in results {
                assert_eq!(m.count, 0, "{variant:?}, n = {n}, block = {block}: first mismatch {:?}", m.first);
            }
        }
    }
}
