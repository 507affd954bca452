//! The concept labs on a real GPU (`--include-ignored`): every measurement
//! must land where its model says.

use ptx_ladder::device::Gpu;
use ptx_ladder::labs::models::banks::Pattern;
use ptx_ladder::labs::models::divergence::BranchPattern;
use ptx_ladder::labs::{banks, coalesce, divergence, occupancy, reduce, warps};

fn gpu() -> Gpu {
    Gpu::open().expect("a CUDA GPU")
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn strided_reads_lose_bandwidth_as_the_sector_model_says() {
    let rows = coalesce::run(&gpu(), &[1, 2, 32], 1 << 27, 10, &mut |_| {}).unwrap();
    let speed = |s: u32| rows.iter().find(|r| r.stride == s).unwrap().useful_gbps;
    assert!(speed(1) > 3.0 * speed(32), "stride 1: {} GB/s, stride 32: {} GB/s", speed(1), speed(32));
    assert!(speed(1) > 1.4 * speed(2), "stride 2 should move about twice the bytes");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn column_reads_conflict_and_padding_or_swizzling_fix_them() {
    let rows = banks::run(&gpu(), 256, 10, &mut |_| {}).unwrap();
    let cost = |p: Pattern| rows.iter().find(|r| r.pattern == p).unwrap().cycles_per_access;
    for fixed in [Pattern::PaddedColumn, Pattern::SwizzledColumn, Pattern::Row, Pattern::Broadcast] {
        assert!(cost(Pattern::Column) > 8.0 * cost(fixed), "column {} vs {:?} {}", cost(Pattern::Column), fixed, cost(fixed));
    }
    assert!(cost(Pattern::Stride2) > 1.3 * cost(Pattern::Row), "stride 2 is a 2-way conflict");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_branch_splitting_every_warp_costs_both_sides() {
    // Long enough (about half a millisecond) that launch overhead does not
    // blur the ratio.
    let rows = divergence::run(&gpu(), 8192, 10, &mut |_| {}).unwrap();
    let time = |p: BranchPattern| rows.iter().find(|r| r.pattern == p).unwrap().timing.median_ms;
    let lanes = time(BranchPattern::EvenOddLane) / time(BranchPattern::ByBlock);
    let warps = time(BranchPattern::AlternateWarps) / time(BranchPattern::ByBlock);
    assert!((1.6..2.4).contains(&lanes), "even/odd lanes took {lanes:.2}x the warp-aligned time");
    assert!((0.8..1.2).contains(&warps), "alternate warps took {warps:.2}x");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_reduction_is_correct_for_any_n() {
    let gpu = gpu();
    for n in [1u64, 17, 255, 256, 257, 1000, (1 << 20) + 3, 100_000_000] {
        let report = reduce::run(&gpu, n, 2, &mut |_| {}).unwrap();
        for row in &report.rows {
            assert!(
                row.passed(),
                "{} with n = {n}: sum {} vs exact {} (error {:.1e})",
                row.method.name(),
                row.sum,
                report.exact,
                row.error
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn calculator_agrees_with_the_driver_and_occupancy_hides_latency() {
    let gpu = gpu();
    for row in occupancy::kernels(&gpu).unwrap() {
        assert!(row.agrees(), "{}: driver {} blocks/SM, calculator {:?}", row.name, row.driver_blocks, row.model_blocks);
    }
    let rows = occupancy::latency(&gpu, 1 << 26, 10, &mut |_| {}).unwrap();
    let (low, high) = (rows.first().unwrap(), rows.last().unwrap());
    assert!(
        high.gbps > 1.3 * low.gbps,
        "{} block/SM: {} GB/s, {} blocks/SM: {} GB/s",
        low.blocks_per_sm,
        low.gbps,
        high.blocks_per_sm,
        high.gbps
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn hardware_lanes_follow_the_warp_map() {
    let gpu = gpu();
    for block in [(16, 16, 1), (8, 8, 1), (4, 4, 4), (30, 2, 1), (1024, 1, 1), (7, 3, 5)] {
        assert_eq!(warps::check(&gpu, block).unwrap(), block.0 * block.1 * block.2);
    }
}
