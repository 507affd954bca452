//! The memory lab on a real GPU (`--include-ignored`): the levels must be
//! ordered as the hierarchy says, and shared memory must come near its model.

use ptx_ladder::device::Gpu;
use ptx_ladder::labs::memory;

fn gpu() -> Gpu {
    Gpu::open().expect("a CUDA GPU")
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_hierarchy_is_ordered_in_bandwidth_and_latency() {
    let gpu = gpu();
    let m = memory::run(&gpu, &memory::Settings::full(1 << 30, 3), &mut |_| {}).unwrap();
    let p = &m.plateaus;
    let (l1, l2, dram) = (p.on_chip_gbps.unwrap(), p.l2_gbps.unwrap(), p.dram_gbps.unwrap());
    assert!(l1 > l2 && l2 > 1.5 * dram, "L1 {l1}, L2 {l2}, DRAM {dram} GB/s");
    let cliff = p.l2_cliff_bytes.expect("the curve falls off past L2");
    assert!(cliff > m.capacities.l2 / 8 && cliff <= 4 * m.capacities.l2, "cliff at {cliff} bytes, L2 {}", m.capacities.l2);
    let shared = m.shared_gbps / m.shared_model_gbps;
    assert!(shared > 0.6 && shared < 1.05, "shared memory at {:.0}% of the model", 100.0 * shared);
    let cycles: Vec<f64> = m.latencies.iter().map(|l| l.cycles).collect();
    // registers < shared < L2 < DRAM; the L1 hit sits below L2.
    assert!(cycles[0] < cycles[1] && cycles[1] < cycles[3] && cycles[2] < cycles[3] && cycles[3] < cycles[4], "{cycles:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_read_kernel_handles_sets_below_and_above_the_grid() {
    // 16 KB (fewer quads than threads) and a size that is no power of two.
    let points = memory::bandwidth(&gpu(), &[16 << 10, 3 << 20, (5 << 20) + 48], 2, 1 << 30, &mut |_| {}).unwrap();
    assert!(points.iter().all(|p| p.gbps > 0.0));
}
