//! What the builder produced, checked without a GPU: one self-contained PTX
//! module with an entry point for every kernel the host launches, and the
//! instructions each rung is about actually present in its body.

use kernels_gpu::sgemm::KERNELS;
use kernels_gpu::sgemm::r08_autotuned::CONFIGS;
use ptx_ladder::device::PtxModule;
use ptx_ladder::matmul::sgemm;
use ptx_ladder::{PTX, PTX_ARCH};

/// The text of one `.entry`, up to the next entry.
fn entry(name: &str) -> &'static str {
    let start = PTX.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no .entry {name} in the PTX"));
    let rest = &PTX[start + 1..];
    let end = rest.find(".entry ").map_or(PTX.len(), |e| start + 1 + e);
    &PTX[start..end]
}

/// Every `.entry` in the module.
fn entries() -> Vec<&'static str> {
    PTX.split(".entry ").skip(1).map(|rest| &rest[..rest.find('(').unwrap()]).collect()
}

#[test]
fn the_module_holds_exactly_the_kernels_the_host_knows() {
    let mut known: Vec<&str> = KERNELS.iter().map(|k| k.name()).collect();
    known.extend([kernels_gpu::vecadd::VEC_ADD.name(), kernels_gpu::vecadd::VEC_ADD_X4.name()]);
    known.extend(kernels_gpu::labs::KERNEL_NAMES);
    known.extend(kernels_gpu::bf16::KERNELS.iter().map(|k| k.name()));
    // The small-M rungs pick an entry by rows of A; "auto" runs one of
    // them or a Hopper rung.
    known.extend(kernels_gpu::sgemm::r13_small_m::KERNELS.iter().map(|k| k.name()));
    known.extend(kernels_gpu::bf16::r08_small_m::KERNELS.iter().map(|k| k.name()));
    known.extend(kernels_gpu::bf16::r18_small_m_tensor::KERNELS.iter().map(|k| k.name()));
    known.push(kernels_gpu::gemm::split_k::SUM_SLICES.name());
    // The auto rung's copies into and out of rows of whole 16 bytes.
    known.extend([kernels_gpu::gemm::padding::PAD_ROWS_BF16.name(), kernels_gpu::gemm::padding::CROP_ROWS_F32.name()]);
    for rung in sgemm::ladder(&CONFIGS[0].kernel).rungs.iter().filter(|r| r.kernel.module() == PtxModule::Portable) {
        let picks_per_shape = ["small_m", "auto"].contains(&rung.kernel.name());
        assert!(picks_per_shape || known.contains(&rung.kernel.name()), "rung {} is missing from KERNELS", rung.id);
    }
    let mut found = entries();
    found.sort_unstable();
    known.sort_unstable();
    assert_eq!(found, known);
}

#[test]
fn launch_bounds_reach_the_ptx() {
    let mut count = 0;
    for bounds in kernels_gpu::launch_bounds() {
        let body = entry(bounds.kernel);
        let directives = format!(".maxntid {}, 1, 1\n.minnctapersm {}\n{{", bounds.max_threads, bounds.min_blocks_per_sm);
        assert!(body.contains(&directives), "{} lacks {directives}", bounds.kernel);
        count += 1;
    }
    assert!(count >= 5, "only {count} kernels declare launch bounds");
    assert!(!entry("sgemm_naive").contains(".maxntid"));
    // Bounds in a handle reach the PTX only through the registry: rung
    // 18's 4 blocks per SM were once missing from it, and ptxas gave its
    // kernels 130-140 registers, so 3 blocks fit.
    let registered: Vec<&str> = kernels_gpu::launch_bounds().map(|b| b.kernel).collect();
    let handles = kernels_gpu::sgemm::r13_small_m::KERNELS
        .iter()
        .map(|k| (k.name(), k.bounds().is_some()))
        .chain(kernels_gpu::bf16::r08_small_m::KERNELS.iter().map(|k| (k.name(), k.bounds().is_some())))
        .chain(kernels_gpu::bf16::r18_small_m_tensor::KERNELS.iter().map(|k| (k.name(), k.bounds().is_some())));
    for (name, bounded) in handles {
        assert_eq!(bounded, registered.contains(&name), "{name}: declared bounds and the registry disagree");
    }
}

#[test]
fn the_small_m_tensor_rung_streams_b_into_mma_sync() {
    for k in kernels_gpu::bf16::r18_small_m_tensor::KERNELS {
        let body = entry(k.name());
        // 16 per step of 8 rows (2 depths × 8 column tiles), in each of the
        // three loops: whole steps, the last partial step, values one by one.
        assert_eq!(body.matches("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32").count(), 48, "{}", k.name());
        // B's 8 rows per step in 16-byte loads marked read-once, in the
        // whole steps and the last partial one.
        assert_eq!(body.matches("ld.global.cs.v4.b32").count(), 16, "{}", k.name());
        assert!(!body.contains(".local"), "{}: an array in local memory", k.name());
    }
}

#[test]
fn lab_kernels_use_what_they_demonstrate() {
    assert!(entry("reduce_warp_shuffle").contains("shfl.sync.bfly"), "shuffles");
    assert!(entry("reduce_atomic").contains("red.add.f32") || entry("reduce_atomic").contains("red.global.add.f32"));
    assert!(entry("reduce_shared_tree").contains("bar.sync"));
    assert!(entry("warp_lanes").contains("%laneid"));
    assert!(entry("occupancy_copy").contains("ld.global.v4"));
    // Both sides of the branch survive as separate loops: the lane-split
    // kernel must really run two paths.
    let branch = entry("branch_even_odd_lane");
    assert!(branch.matches("fma.rn.f32").count() >= 2 && branch.contains("mul.rn.f32"), "{branch}");
}

#[test]
fn module_is_self_contained_and_for_the_chosen_arch() {
    assert!(!PTX.contains(".extern .func"), "the PTX calls a function nothing defines");
    assert!(PTX.contains(&format!(".target {PTX_ARCH}")), "PTX not built for {PTX_ARCH}");
    // The only external symbol is the dynamic shared-memory window.
    for line in PTX.lines().filter(|l| l.contains(".extern")) {
        assert!(line.contains(".shared") && line.contains("gpu_launch_sized_workgroup_mem"), "{line}");
    }
}

#[test]
fn each_rung_uses_the_instructions_it_is_about() {
    let (fma, shared, v4_shared, v4_global) = ("fma.rn.f32", "ld.shared", "ld.shared.v4", "ld.global.v4");
    assert!(entry("vec_add_x4").contains(v4_global) && !entry("vec_add").contains(v4_global));
    for scalar_rung in ["sgemm_naive", "sgemm_coalesced"] {
        assert!(entry(scalar_rung).contains(fma) && !entry(scalar_rung).contains(shared), "{scalar_rung}");
    }
    // Rungs 3-5 tile through shared memory but move data to and from global
    // memory a float at a time; 3 and 4 read rows of the A tile with 128-bit
    // shared loads.
    for tiled in ["sgemm_shared_tiling", "sgemm_blocktile_1d", "sgemm_blocktile_2d"] {
        let body = entry(tiled);
        assert!(body.contains("bar.sync") && body.contains(shared) && !body.contains(v4_global), "{tiled}");
    }
    assert!(entry("sgemm_shared_tiling").contains(v4_shared) && entry("sgemm_blocktile_1d").contains(v4_shared));
    for vectorized in ["sgemm_vectorized", "sgemm_vectorized_padded", "sgemm_vectorized_swizzled", "sgemm_warptiling"] {
        let body = entry(vectorized);
        assert!(body.contains(v4_shared) && body.contains(v4_global) && body.contains("st.global.v4"), "{vectorized}");
    }
    let swizzled = entry("sgemm_vectorized_swizzled");
    assert!(swizzled.contains("xor.b32"), "the swizzle is an XOR");
    let async_rung = entry("sgemm_async_pipeline");
    for instruction in ["cp.async.cg.shared.global", "cp.async.ca.shared.global", "cp.async.commit_group", "cp.async.wait_group"] {
        assert!(async_rung.contains(instruction), "rung 10 lacks {instruction}");
    }
    // The inner loops are fully unrolled: one k-step of rung 9 is 64 FMAs,
    // and its 16 steps must all be straight-line code.
    assert!(entry("sgemm_warptiling").matches(fma).count() >= 64 * 16);
    // Rung 2 walks B with one wide multiply-add per step.
    assert!(entry("sgemm_coalesced").contains("mad.wide.u32"));
}

#[test]
fn rung_11_runs_on_tensor_cores_three_products_per_tile() {
    use kernels_gpu::sgemm::r11_tensor_cores::TILING;
    let body = entry("sgemm_tensor_cores");
    // Per block step, each of the 8 warps does (warp tile / 16×8) tiles ×
    // (tile_k / 8) depth steps × 3 products, all unrolled.
    let warp_tiles = (TILING.warp_m / 16) * (TILING.warp_n / 8);
    let expected = warp_tiles * (TILING.tile_k / 8) * 3;
    assert_eq!(body.matches("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32").count() as u32, expected);
    assert!(body.contains("cp.async.cg.shared.global") && body.contains("cp.async.wait_group"));
    // Fragments come from shared memory and nothing spills to local memory.
    assert!(body.contains("ld.shared") && !body.contains(".local"));
    // The split into big and small parts is integer rounding, no cvt.
    assert!(!body.contains("cvt.rna.tf32"));
}

#[test]
fn bf16_rung_1_runs_bf16_mma_fed_by_ldmatrix() {
    let body = entry("bf16_mma_sync");
    // Per warp: (64×64 warp tile / 16×8) mma tiles × (32 / 16) depth
    // steps, unrolled; one ldmatrix per 16 rows of A, one per 16 columns of B.
    assert_eq!(body.matches("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32").count(), 32 * 2);
    assert_eq!(body.matches("ldmatrix.sync.aligned.m8n8.x4.shared.b16").count(), 4 * 2, "A fragments");
    assert_eq!(body.matches("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16").count(), 4 * 2, "B fragments");
    assert!(body.contains("cp.async.cg.shared.global") && body.contains("cp.async.wait_group"));
    assert!(!body.contains(".local"), "nothing spills to local memory");
}
