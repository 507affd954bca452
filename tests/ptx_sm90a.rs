//! The Hopper module (sm_90a), checked without a GPU: it holds exactly the
//! Hopper kernels, for the architecture-specific target and a PTX ISA that
//! has wgmma, and each rung's body has the instructions it is about.

use kernels_gpu::sm90a::{KERNEL_NAMES, KERNELS, launch_bounds};
use ptx_ladder::{PTX, PTX_SM90A};

/// The text of one `.entry` of the sm_90a module, up to the next entry.
fn entry(name: &str) -> &'static str {
    let start = PTX_SM90A.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no .entry {name} in the sm_90a PTX"));
    let rest = &PTX_SM90A[start + 1..];
    let end = rest.find(".entry ").map_or(PTX_SM90A.len(), |e| start + 1 + e);
    &PTX_SM90A[start..end]
}

fn entries(ptx: &str) -> Vec<&str> {
    ptx.split(".entry ").skip(1).map(|rest| &rest[..rest.find('(').unwrap()]).collect()
}

#[test]
fn the_module_targets_sm_90a_with_ptx_8() {
    assert!(PTX_SM90A.contains(".target sm_90a"), "wgmma and setmaxnreg need the arch-specific target");
    assert!(PTX_SM90A.contains(".version 8.0"));
    assert!(!PTX_SM90A.contains(".extern .func"), "the module must be self-contained");
}

#[test]
fn each_module_holds_exactly_its_own_kernels() {
    let mut found = entries(PTX_SM90A);
    let mut known = KERNEL_NAMES.to_vec();
    found.sort_unstable();
    known.sort_unstable();
    assert_eq!(found, known);
    for name in KERNEL_NAMES {
        assert!(!entries(PTX).contains(name), "{name} is in the portable module too");
    }
}

#[test]
fn the_gemms_use_tma_mbarriers_and_wgmma_and_no_local_memory() {
    for kernel in KERNELS {
        let body = entry(kernel.name());
        assert!(body.contains("wgmma.mma_async.sync.aligned"), "{}: no wgmma", kernel.name());
        assert!(body.contains("wgmma.commit_group") && body.contains("wgmma.wait_group"), "{}", kernel.name());
        assert!(body.contains("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"), "{}: no TMA", kernel.name());
        assert!(body.contains("mbarrier.try_wait.parity") && body.contains("mbarrier.arrive.expect_tx"), "{}", kernel.name());
        assert!(!body.contains(".local"), "{}: local memory (an array indexed at run time, or spills)", kernel.name());
        // A producer warpgroup hands its registers to the consumers where
        // they hold large accumulator tiles (64 or more per thread, beyond
        // what the launch bounds' share leaves room for). The swapped
        // kernels (rungs 11-13) hold at most 64 and little else: they fit
        // in the share without the producer's.
        let tiling = kernel.tiling.tiling;
        let swapped = kernel.name().contains("_swap_ab");
        let moves = kernel.tiling.specialized && tiling.thread_m * tiling.thread_n >= 64 && !swapped;
        assert_eq!(body.contains("setmaxnreg.dec.sync.aligned.u32 40"), moves, "{}", kernel.name());
        assert_eq!(body.contains("setmaxnreg.inc.sync.aligned.u32 232"), moves, "{}", kernel.name());
    }
}

#[test]
fn the_wgmma_shapes_are_the_ones_the_rungs_describe() {
    let bf16 = entry("bf16_wgmma_persistent");
    // 64 values of K per stage, 16 per instruction: 4 wgmmas, B transposed
    // (K×N row-major), 128 accumulators per thread.
    assert_eq!(bf16.matches("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16").count(), 4);
    assert!(bf16.contains(", p, 1, 1, 0, 1;"), "B must be read MN-major (transpose flag 1)");
    let tf32 = entry("sgemm_tf32x3_wgmma");
    // 32 values of K per stage, 8 per instruction, three products each.
    assert_eq!(tf32.matches("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32").count(), 12);
}

/// SGEMM rung 15 splits B in shared memory: each consumer thread reads 4
/// rows of 16 bytes of B's k-tile (in the first k-tile's split and in the
/// loop's), writes 4 of Bᵀ big and 4 of Bᵀ small, fences them for the
/// async proxy and meets the other warpgroup at a named barrier; the
/// wgmmas are rung 12's.
#[test]
fn rung_15_splits_b_in_shared_memory() {
    let body = entry("sgemm_tf32x3_split_b");
    assert_eq!(body.matches("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32").count(), 12);
    assert_eq!(body.matches("ld.shared.v4.f32").count(), 8);
    assert_eq!(body.matches("st.shared.v4.f32").count(), 16);
    assert!(body.contains("fence.proxy.async.shared::cta;"));
    assert!(body.contains("barrier.sync"));
    assert!(!entry("sgemm_tf32x3_split_k").contains("st.shared.v4.f32"), "rung 14 reads B's parts as TMA wrote them");
}

/// Rung 10 adds a tile's slices inside its cluster: 16-byte stores into
/// the owners' shared memory between two cluster barriers, then local
/// loads; nothing written to global memory but C.
#[test]
fn rung_10_swaps_partial_tiles_through_distributed_shared_memory() {
    let body = entry("bf16_wgmma_cluster_split_k");
    assert!(body.contains("mapa.shared::cluster.u32") && body.contains("st.shared::cluster.v4.f32"));
    assert!(body.matches("barrier.cluster.arrive;").count() >= 2, "a barrier before and after the sends");
    assert!(body.contains("ld.shared.v4.f32"));
    assert!(!body.contains(".reqnctapercluster"), "the cluster size is the slices', given at launch");
}

/// Rung 11 swaps A and B: the weights' tile is wgmma's A, read MN-major
/// (transpose flag 1), A's 16 rows its B, K-major (flag 0); 4 k-steps of
/// 16 per 64-deep stage, 8 accumulators per thread.
#[test]
fn rung_11_reads_the_weights_as_wgmmas_a() {
    let body = entry("bf16_wgmma_swap_ab");
    assert_eq!(body.matches("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16").count(), 4);
    assert!(body.contains(", p, 1, 1, 1, 0;"), "A must be read MN-major and B K-major");
}

/// Rungs 12 and 13 swap A and B as rung 11 does, with 16 to 128 rows
/// of A as wgmma's N, and add their slices in a cluster as rung 10 does.
#[test]
fn rungs_12_and_13_swap_a_and_b_and_sum_in_cluster() {
    let shapes = [
        ("bf16_wgmma_swap_ab_cluster", "m64n16k16", 4),
        ("bf16_wgmma_swap_ab_16x64", "m64n16k16", 4),
        ("bf16_wgmma_swap_ab_32x64", "m64n32k16", 4),
        ("bf16_wgmma_swap_ab_64x64", "m64n64k16", 4),
        // Two consumers, each its own 64 columns, over 32 and 64 rows.
        ("bf16_wgmma_swap_ab_32x128", "m64n32k16", 4),
        ("bf16_wgmma_swap_ab_64x128", "m64n64k16", 4),
        // Rows of A in steps of 16 between 64 and 128, one consumer or two.
        ("bf16_wgmma_swap_ab_80x64", "m64n80k16", 4),
        ("bf16_wgmma_swap_ab_80x128", "m64n80k16", 4),
        ("bf16_wgmma_swap_ab_96x64", "m64n96k16", 4),
        ("bf16_wgmma_swap_ab_96x128", "m64n96k16", 4),
        ("bf16_wgmma_swap_ab_112x64", "m64n112k16", 4),
        ("bf16_wgmma_swap_ab_112x128", "m64n112k16", 4),
        ("bf16_wgmma_swap_ab_128x64", "m64n128k16", 4),
        // Two consumer warpgroups, each its own 64 columns.
        ("bf16_wgmma_swap_ab_128x128", "m64n128k16", 4),
        // Three, each its own 64 columns.
        ("bf16_wgmma_swap_ab_128x192", "m64n128k16", 4),
    ];
    for (name, shape, count) in shapes {
        let body = entry(name);
        assert_eq!(body.matches(&format!("wgmma.mma_async.sync.aligned.{shape}.f32.bf16.bf16")).count(), count, "{name}");
        assert!(body.contains(", p, 1, 1, 1, 0;"), "{name}: A must be read MN-major and B K-major");
        assert!(body.contains("mapa.shared::cluster.u32") && body.contains("st.shared::cluster.v4.f32"), "{name}");
        assert!(body.matches("barrier.cluster.arrive;").count() >= 2, "{name}: a barrier before and after the sends");
        assert!(!body.contains(".reqnctapercluster"), "{name}: the cluster size is the slices', given at launch");
    }
    // Rung 11 writes its slices for a second kernel: no cluster.
    assert!(!entry("bf16_wgmma_swap_ab").contains("barrier.cluster"));
}

#[test]
fn each_gemm_declares_bounds_matching_its_tiling() {
    for kernel in KERNELS {
        let bounds = kernel.bounds().unwrap_or_else(|| panic!("{} declares no launch bounds", kernel.name()));
        assert_eq!(bounds.max_threads, kernel.tiling.threads(), "{}", kernel.name());
        assert_eq!(bounds.min_blocks_per_sm, 1, "{}: setmaxnreg needs one block per SM", kernel.name());
        assert_eq!(bounds.cluster, kernel.tiling.cluster, "{}", kernel.name());
    }
}

#[test]
fn launch_bounds_cap_registers_for_setmaxnreg() {
    for bounds in launch_bounds() {
        let directives = format!(".maxntid {}, 1, 1\n.minnctapersm {}\n", bounds.max_threads, bounds.min_blocks_per_sm);
        assert!(entry(bounds.kernel).contains(&directives), "{} lacks {directives}", bounds.kernel);
    }
}

#[test]
fn rung_5_stores_c_with_tma_from_fenced_shared_memory() {
    let body = entry("bf16_wgmma_tma_store");
    assert!(body.contains("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"), "no TMA store");
    assert!(body.contains("fence.proxy.async.shared::cta"), "shared stores not fenced for the copy engine");
    assert!(body.contains("cp.async.bulk.wait_group.read 0") && body.contains("cp.async.bulk.wait_group 0"));
    assert!(!body.contains("st.global"), "C stored from registers");
    // Named barriers after `if thread == 0` must tolerate a warp that
    // reaches them at two instructions: `barrier.sync`, never `bar.sync`.
    assert!(body.contains("barrier.sync"), "no named barrier");
    assert_eq!(body.matches("bar.sync").count(), body.matches("\tbar.sync \t0;").count(), "a named bar.sync");
}

#[test]
fn rungs_6_and_7_run_in_pairs_that_share_b_by_multicast() {
    for name in ["bf16_wgmma_cluster", "bf16_wgmma_deferred"] {
        clustered(name, entry(name));
    }
}

fn clustered(name: &str, body: &str) {
    assert!(body.contains(".reqnctapercluster 2, 1, 1\n"), "{name}: no cluster shape, an ordinary launch would not form pairs");
    assert_eq!(body.matches(".multicast::cluster").count() % 2, 0);
    assert!(body.contains("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"));
    // Releases reach the peer's empty barriers through `mapa`. A
    // `.release.cluster` arrive made the kernel a third slower on the H200.
    assert!(body.contains("mapa.shared::cluster.u32") && body.contains("mbarrier.arrive.shared::cluster.b64"));
    assert!(!body.contains("arrive.release.cluster"));
    assert!(body.contains("barrier.cluster.arrive;") && body.contains("barrier.cluster.wait;"));
    assert!(!body.contains("barrier.cluster.arrive.aligned"));
}

#[test]
fn rung_7_stores_per_warp_and_half_a_tile_while_the_next_one_multiplies() {
    let body = entry("bf16_wgmma_deferred");
    // Each warp stages its own 16-row boxes: warp barriers only, no named
    // or block-wide barrier, two slots (a store may still read the other).
    assert!(body.contains("bar.warp.sync"));
    assert!(!body.contains("barrier.sync") && !body.contains("bar.sync"), "a barrier wider than a warp");
    assert!(body.contains("cp.async.bulk.wait_group.read 1;") && body.contains("fence.proxy.async.shared::cta"));
    assert!(!body.contains("st.global"), "C stored from registers");
    // The kept half: one TMA store after each of the first four k-tiles'
    // wgmmas are issued and before they are waited for.
    let overlapped = body
        .split("wgmma.commit_group.sync.aligned;")
        .skip(1)
        .filter(|after| after.split("wgmma.wait_group.sync.aligned").next().unwrap().contains("cp.async.bulk.tensor.2d.global.shared::cta"))
        .count();
    assert_eq!(overlapped, 4, "stores of the kept half while wgmmas run");
}

/// The kernels whose partial sums a second kernel adds let it start early
/// (`griddepcontrol.launch_dependents`), and that kernel waits for them
/// (`griddepcontrol.wait`) before its first load: a load before the wait
/// could read partial sums the GEMM has not written yet.
#[test]
fn the_split_k_sum_waits_for_the_gemm_before_reading() {
    for kernel in KERNELS.iter().filter(|k| k.splits_k() && !k.sums_in_cluster()) {
        assert!(entry(kernel.name()).contains("griddepcontrol.launch_dependents;"), "{}", kernel.name());
    }
    let sum = entry("sum_slices_after_gemm");
    let wait = sum.find("griddepcontrol.wait;").expect("sum_slices_after_gemm never waits");
    let first_load = sum.find("ld.global").expect("sum_slices_after_gemm reads nothing");
    assert!(wait < first_load, "a load comes before griddepcontrol.wait");
    // The kernels that need nothing after them do not ask for it.
    assert!(!entry("bf16_wgmma_deferred").contains("griddepcontrol"));
}
