//! The small-M small-M kernels on the CPU emulator: split-K partial
//! products plus the ordered reduction, at shapes that cut through the
//! 1024-column blocks, the 8-row groups of B and the 8 rows of A per
//! block, checked element by element against the f64 reference with the
//! checkers on.

use kernels_gpu::bf16::r08_small_m as bf16_rung;
use kernels_gpu::bf16::r18_small_m_tensor as tensor_rung;
use kernels_gpu::gemm::small_m::{self, SmallMPlan};
use kernels_gpu::gemm::small_m_tensor;
use kernels_gpu::gemm::split_k;
use kernels_gpu::launch::{Kernel, LaunchShape};
use kernels_gpu::sgemm::r13_small_m as sgemm_rung;
use ptx_ladder::emulator::{self, AlignedBuffer, Checks};
use ptx_ladder::matmul::accuracy::Arithmetic;
use ptx_ladder::matmul::bf16::problem::Bf16Problem;
use ptx_ladder::matmul::check::{Problem, Verdict, reference, reference_rows, verdict};

type SmallMParams<E> = (u32, u32, u32, *const E, *const E, *mut f32, f32, f32, *mut f32, *mut u32, u32, u32);

/// A small-M kernel's host twin (for the emulator).
type SmallMFn<E> = unsafe fn(u32, u32, u32, *const E, *const E, *mut f32, f32, f32, *mut f32, *mut u32, u32, u32);

/// A small-M kernel's launch handle and its host twin.
type SmallMKernel<E> = (Kernel<SmallMParams<E>>, SmallMFn<E>);

/// Runs one launch on the emulator with every buffer declared; any finding
/// of the checkers fails the test.
/// `buffers` are (name, address, bytes).
fn run(name: &str, shape: LaunchShape, buffers: &[(&str, usize, usize)], body: impl Fn()) {
    let checks = buffers.iter().fold(Checks::new(name), |c, &(what, start, bytes)| c.buffer(what, start as *const u8, bytes));
    let report = unsafe { emulator::launch_checked(shape, &checks, body) }.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.is_clean(), "{name}: {report}");
}

/// What one small-M GEMM left behind besides C: the partial sums and the
/// tiles' counters.
struct Leftovers {
    partial: Vec<f32>,
    counters: Vec<u32>,
}

/// `c = alpha·a·b + beta·c` through the small-M kernel for rows of
/// `rows`, then, where the plan leaves it to a second kernel, the
/// reduction; `a` and `b` are 16-byte aligned buffers of the element type.
#[allow(clippy::too_many_arguments)]
fn small_m_gemm<E>(
    kernel: SmallMKernel<E>,
    (plan, launch): (SmallMPlan, LaunchShape),
    (m, n, k): (u32, u32, u32),
    a: (usize, usize),
    b: (usize, usize),
    alpha: f32,
    beta: f32,
    c: &mut [f32],
) -> Leftovers {
    let floats = plan.workspace(m, n) as usize;
    let mut partial = AlignedBuffer::from_slice(&vec![f32::NAN; floats]);
    let mut counters = vec![0u32; plan.tiles(m, n) as usize];
    let mut out = AlignedBuffer::from_slice(c);
    let (p, o, t) = (partial.as_mut_ptr() as usize, out.as_mut_ptr() as usize, counters.as_mut_ptr() as usize);
    let (handle, f) = kernel;
    let size = std::mem::size_of::<E>();
    let buffers = [
        ("a", a.0, a.1 * size),
        ("b", b.0, b.1 * size),
        ("c", o, 4 * c.len()),
        ("partial", p, 4 * floats),
        ("counters", t, 4 * counters.len()),
    ];
    run(handle.name(), launch, &buffers, || unsafe {
        f(m, n, k, a.0 as *const E, b.0 as *const E, o as *mut f32, alpha, beta, p as *mut f32, t as *mut u32, plan.k_chunk, plan.groups)
    });
    if !plan.adds_in_kernel() {
        let len = m * n;
        run("sum_slices", split_k::sum_launch(len, plan.splits), &[("partial", p, 4 * floats), ("c", o, 4 * len as usize)], || unsafe {
            split_k::sum_slices(len, plan.splits, p as *const f32, alpha, beta, o as *mut f32)
        });
    }
    c.copy_from_slice(out.as_slice());
    Leftovers { partial: partial.as_slice().to_vec(), counters }
}

/// Shapes through every edge: M = 1 and 2..8 and past 8, N below, at and
/// past 1024 and not a multiple of 8, K = 1, 7, 8, 17, deep.
const SHAPES: &[(u32, u32, u32)] = &[
    (1, 1, 1),
    (1, 8, 7),
    (1, 1030, 17),
    (3, 1032, 40),
    (8, 16, 255),
    (9, 2056, 33),
    (13, 1000, 64),
    (1, 24, 4097),
    (17, 40, 30),
    (33, 16, 9),
    (20, 64, 1000),
    (2, 136, 300),
    // Blocks whose share of K takes several windows of A (8192, 1024 and
    // 512 rows at 1, 8 and 16 rows of A).
    (1, 16, 8200),
    (5, 40, 2100),
    // Blocks narrowed so that the kernel adds its slices (at 132 SMs).
    (1, 1032, 700),
];

fn plans((m, n, k): (u32, u32, u32), element_bytes: u32) -> [SmallMPlan; 3] {
    // K split over several blocks (as a GPU's many SMs ask for, with fewer
    // blocks to emulate), split finer (the slices too many for the last
    // block, at deep K), and one block per tile (no split of K).
    [
        SmallMPlan::new((m, n, k), element_bytes, 8, 2),
        SmallMPlan::new((m, n, k), element_bytes, 33, 4),
        SmallMPlan::new((m, n, k), element_bytes, 1, 1),
    ]
}

fn check(what: &str, shape: (u32, u32, u32), plan: SmallMPlan, v: Verdict) {
    assert!(v.passed(), "{what} at {shape:?} with {plan:?}: {}", v.describe());
}

#[test]
fn small_m_bf16_is_correct_at_odd_shapes() {
    for &(m, n, k) in SHAPES {
        let problem = Bf16Problem::random((m, n, k), (m * 7 + n + k) as u64);
        let expected = ptx_ladder::matmul::bf16::problem::reference(&problem, reference_rows(m, n, k, 1)).for_arithmetic(Arithmetic::Fp32);
        let (a, b) = (emulator::aligned_u16(&problem.a), emulator::aligned_u16(&problem.b));
        for plan in plans((m, n, k), 2) {
            let kernel = match plan.rows {
                1 => (bf16_rung::BF16_SMALL_M1, bf16_rung::bf16_small_m1 as SmallMFn<_>),
                8 => (bf16_rung::BF16_SMALL_M8, bf16_rung::bf16_small_m8 as SmallMFn<_>),
                _ => (bf16_rung::BF16_SMALL_M16, bf16_rung::bf16_small_m16 as SmallMFn<_>),
            };
            let mut c = vec![f32::from_bits(ptx_ladder::device::POISON_BITS); (m * n) as usize];
            let args = ((a.as_ptr() as usize, problem.a.len()), (b.as_ptr() as usize, problem.b.len()));
            small_m_gemm::<u16>(kernel, (plan, plan.launch(m, n)), (m, n, k), args.0, args.1, 1.0, 0.0, &mut c);
            check("small-M bf16", (m, n, k), plan, verdict(&expected, &c));
        }
    }
}

/// BF16 rung 18 at the same shapes and a few whole ones: its fragments
/// are its loads, rows of K and columns of C in the loads' order, so a
/// row or column put in the wrong place shows at every shape. (Its sums
/// reach C through the small-M kernels' stores, whose alpha and beta the
/// fp32 test covers.)
#[test]
fn small_m_tensor_is_correct_at_odd_shapes() {
    let hosts: [SmallMFn<u16>; 2] = [tensor_rung::bf16_small_m_tensor_64, tensor_rung::bf16_small_m_tensor_128];
    // Plans run by each entry: both must be.
    let mut runs = [0; 2];
    for &(m, n, k) in SHAPES.iter().chain(&[(16, 64, 128), (16, 512, 256), (32, 200, 520), (7, 72, 4104)]) {
        let problem = Bf16Problem::random((m, n, k), (m * 5 + n + 3 * k) as u64);
        let expected =
            ptx_ladder::matmul::bf16::problem::reference(&problem, reference_rows(m, n, k, 1)).for_arithmetic(Arithmetic::Bf16TensorCore);
        let (a, b) = (emulator::aligned_u16(&problem.a), emulator::aligned_u16(&problem.b));
        // K split for a GPU of 8 SMs, finer (the slices too many for the
        // last block), and one block at a time (128-column blocks past 64
        // columns, K whole).
        for (sms, blocks) in [(8, 2), (66, 4), (1, 1)] {
            let plan = SmallMPlan::tensor((m, n, k), sms, blocks);
            let entry = small_m_tensor::column_warps(&plan) as usize - 1;
            runs[entry] += 1;
            let mut c = vec![f32::from_bits(ptx_ladder::device::POISON_BITS); (m * n) as usize];
            let args = ((a.as_ptr() as usize, problem.a.len()), (b.as_ptr() as usize, problem.b.len()));
            let launch = small_m_tensor::launch(&plan, m, n);
            small_m_gemm::<u16>((tensor_rung::KERNELS[entry], hosts[entry]), (plan, launch), (m, n, k), args.0, args.1, 1.0, 0.0, &mut c);
            check("small-M tensor", (m, n, k), plan, verdict(&expected, &c));
        }
    }
    assert!(runs.iter().all(|&r| r > 0), "{runs:?}");
}

#[test]
fn small_m_f32_is_correct_at_odd_shapes_with_alpha_and_beta() {
    // (slices added by the last block, by a second kernel, narrowed
    // blocks, K whole stored straight to C)
    let mut paths = (0, 0, 0, 0);
    for &(m, n, k) in SHAPES {
        for (alpha, beta) in [(1.0, 0.0), (-0.75, 1.5)] {
            let problem = Problem::random((m, n, k), alpha, beta, (m * 5 + n + k) as u64);
            let expected = reference(&problem, reference_rows(m, n, k, 1));
            let (a, b) = (AlignedBuffer::from_slice(&problem.a), AlignedBuffer::from_slice(&problem.b));
            for plan in plans((m, n, k), 4) {
                let kernel = match plan.rows {
                    1 => (sgemm_rung::SGEMM_SMALL_M1, sgemm_rung::sgemm_small_m1 as SmallMFn<_>),
                    8 => (sgemm_rung::SGEMM_SMALL_M8, sgemm_rung::sgemm_small_m8 as SmallMFn<_>),
                    _ => (sgemm_rung::SGEMM_SMALL_M16, sgemm_rung::sgemm_small_m16 as SmallMFn<_>),
                };
                let mut c =
                    if beta == 0.0 { vec![f32::from_bits(ptx_ladder::device::POISON_BITS); (m * n) as usize] } else { problem.c.clone() };
                let args = ((a.as_ptr() as usize, problem.a.len()), (b.as_ptr() as usize, problem.b.len()));
                let left = small_m_gemm::<f32>(kernel, (plan, plan.launch(m, n)), (m, n, k), args.0, args.1, alpha, beta, &mut c);
                check("small-M f32", (m, n, k), plan, verdict(&expected, &c));
                assert!(left.counters.iter().all(|&t| t == 0), "counters not set back at {:?} with {plan:?}", (m, n, k));
                if plan.splits == 1 {
                    paths.3 += 1;
                } else if plan.adds_in_kernel() {
                    slices_added_in_order(&left.partial, plan.splits, (alpha, beta), &problem.c, &c);
                    paths.0 += 1;
                } else {
                    paths.1 += 1;
                }
                paths.2 += (plan.groups < small_m::column_groups(n, 4)) as u32;
            }
        }
    }
    assert!(
        paths.0 > 0 && paths.1 > 0 && paths.2 > 0 && paths.3 > 0,
        "both ways of adding the slices, narrowed blocks, K whole: {paths:?}"
    );
}

/// The kernel's last block of each tile adds the slices from 0.0 in slice
/// order, then scales: `c` must be those bits exactly, whichever block came
/// last.
fn slices_added_in_order(partial: &[f32], splits: u32, (alpha, beta): (f32, f32), old: &[f32], c: &[f32]) {
    let len = c.len();
    for i in 0..len {
        let sum = (0..splits as usize).fold(0.0f32, |s, j| s + partial[j * len + i]);
        let want = if beta == 0.0 { alpha * sum } else { alpha * sum + beta * old[i] };
        assert_eq!(c[i].to_bits(), want.to_bits(), "element {i} of {len}, {splits} slices");
    }
}

/// At one row of A the plan takes the narrowest blocks (8 groups) whose
/// blocks of columns fit in the places the SMs have, and cuts K into as
/// few slices as fill them: the k-lanes add up in shared memory, and the
/// slices, added after the last load, are few or none. Where even then
/// the slices are too many to add in the kernel, at most `FEW_SLICES`
/// if that still gives the SMs half their blocks, else a second kernel.
///
/// At more rows, where K would need many slices for wide blocks, the plan
/// narrows them (more k-lanes per block) until the kernel can add the
/// slices itself; not where the block's slice of A would then be a large
/// part of what it reads; and where even the narrowest blocks leave too
/// many, it keeps the widest and a second kernel adds them.
#[test]
fn plans_narrow_their_blocks_to_add_in_one_launch() {
    let slots = 132 * small_m::BLOCKS_PER_SM;
    // Llama-3-8B's gate_up, bf16 at M = 1: 448 blocks of 64 columns fit
    // in 528 places, so K stays whole.
    let gate_up = SmallMPlan::new((1, 28672, 4096), 2, 132, small_m::BLOCKS_PER_SM);
    assert_eq!((gate_up.groups, gate_up.splits), (8, 1), "{gate_up:?}");
    // Its down (N = 4096, K = 14336): 64 blocks of columns, K in 8 slices
    // that the last block of each adds.
    let down = SmallMPlan::new((1, 4096, 14336), 2, 132, small_m::BLOCKS_PER_SM);
    assert_eq!((down.groups, down.splits), (8, 8), "{down:?}");
    assert!(down.adds_in_kernel() && down.k_chunk.is_multiple_of(16 * small_m::K_GRANULE), "{down:?}");
    // fp32 o: 128 blocks of 32 columns, 4 slices.
    let o = SmallMPlan::new((1, 4096, 4096), 4, 132, small_m::BLOCKS_PER_SM);
    assert_eq!((o.groups, o.splits), (8, 4), "{o:?}");
    // 65536 columns: 1024 blocks of 64 would not fit in the 528 places,
    // 512 of 128 do.
    let wide = SmallMPlan::new((1, 65536, 4096), 2, 132, small_m::BLOCKS_PER_SM);
    assert_eq!((wide.groups, wide.splits), (16, 1), "{wide:?}");
    assert!(wide.launch(1, 65536).grid.volume() <= slots as u64);
    // Deep K, 64 columns: one block of columns, 16 slices would leave most
    // SMs idle, so K is cut for all of them and a second kernel adds.
    let deep1 = SmallMPlan::new((1, 64, 65536), 2, 132, small_m::BLOCKS_PER_SM);
    assert_eq!(deep1.groups, 8, "{deep1:?}");
    assert!(!deep1.adds_in_kernel() && deep1.splits > 256, "{deep1:?}");
    // 16 rows of A: blocks keep 512 columns (32 per row of A), so K's 64
    // slices are added by a second kernel.
    let o16 = SmallMPlan::new((16, 4096, 4096), 4, 132, 4);
    assert_eq!(o16.groups, small_m::THREADS, "{o16:?}");
    assert!(!o16.adds_in_kernel(), "{o16:?}");
    // Deep K, few columns: 128 slices even at 8 groups.
    let deep = SmallMPlan::new((64, 64, 65536), 4, 132, 4);
    assert_eq!(deep.groups, small_m::column_groups(64, 4), "{deep:?}");
    assert!(!deep.adds_in_kernel() && deep.splits > 100, "{deep:?}");
    // Enough columns: wide blocks, K whole, added in the kernel.
    let square = SmallMPlan::new((16, 4096, 4096), 4, 1, 1);
    assert_eq!((square.groups, square.splits), (small_m::THREADS, 1));
    assert!(square.adds_in_kernel());
}

#[test]
fn plans_fill_the_gpu_and_cover_k() {
    // Llama-3-8B's down projection at M = 1: 64 blocks of columns, K
    // split so that about 4 blocks land on each of 132 SMs.
    let plan = SmallMPlan::new((1, 4096, 14336), 2, 132, 4);
    assert_eq!(plan.rows, 1);
    assert!(plan.k_chunk.is_multiple_of(small_m::K_GRANULE));
    assert!(plan.splits * plan.k_chunk >= 14336 && (plan.splits - 1) * plan.k_chunk < 14336);
    let blocks = plan.launch(1, 4096).grid.volume();
    assert!((3 * 132..=5 * 132).contains(&blocks), "{blocks}");
    // Enough columns already: K is not split.
    assert_eq!(SmallMPlan::new((8, 1 << 20, 64), 2, 132, 4).splits, 1);
    // 100 columns: 16 groups of 8, so 8 k-lanes of 8 rows each per step.
    assert_eq!(SmallMPlan::new((9, 100, 1), 2, 132, 4), SmallMPlan { rows: 16, cols: 8, groups: 16, k_chunk: 64, splits: 1 });
    // fp32: 4 columns per thread, so 32 groups and 4 k-lanes.
    assert_eq!(SmallMPlan::new((9, 100, 1), 4, 132, 4), SmallMPlan { rows: 16, cols: 4, groups: 32, k_chunk: 32, splits: 1 });
    // A narrow B: 8 groups, 16 k-lanes, K split over every SM.
    let narrow = SmallMPlan::new((64, 64, 65536), 2, 132, 4);
    assert!(narrow.k_chunk.is_multiple_of(16 * small_m::K_GRANULE));
    assert!(narrow.launch(64, 64).grid.volume() >= 4 * 132 - 4 * 16, "{narrow:?}");
    assert_eq!(SmallMPlan::new((5, 100, 1), 2, 132, 4).rows, 8);
    // A block's slice of A is staged in windows of 32 KB: 1000 rows of K
    // per block of 16 fp32 rows take two.
    let deep = SmallMPlan::new((16, 512, 1 << 20), 4, 132, 8);
    assert!(deep.k_chunk > small_m::a_window(16), "{deep:?}");
    assert_eq!(deep.shared_bytes(), small_m::A_SHARED_BYTES);
    // One dimension of blocks: groups of rows, blocks of columns, slices.
    let tall = SmallMPlan::new((40, 1000, 4096), 4, 132, 8);
    let grid = tall.launch(40, 1000).grid;
    let column_blocks = 1000u32.div_ceil(tall.block_columns());
    assert_eq!((grid.x, grid.y, grid.z), (3 * column_blocks * tall.splits, 1, 1), "{tall:?}");
    assert_eq!(tall.tiles(40, 1000), 3 * column_blocks);
}

/// Where the tiles alone leave SMs free, K is cut into no more blocks than
/// the SMs hold at once: a few blocks past a wave would run a second wave
/// almost alone, each streaming its slice on an SM of its own. Over M = 1
/// to 64, N up to 28672 and K up to 2^20, both element types and 4 or 8
/// blocks per SM (the old rounding up fails it: Llama-3-8B's gate_up at
/// M = 1 made 1120 blocks for 1056 places).
#[test]
fn plans_fill_at_most_one_wave_when_cutting_k() {
    let mut checked = 0;
    for blocks_per_sm in [4, 8] {
        let slots = 132 * blocks_per_sm;
        for element_bytes in [2, 4] {
            for m in [1, 2, 8, 9, 16, 17, 64] {
                for n in [1, 64, 100, 1000, 3584, 4096, 5120, 6144, 10240, 14336, 28672] {
                    for k in [1, 7, 640, 2560, 4096, 5120, 14336, 18944, 65536, 1 << 20] {
                        let plan = SmallMPlan::new((m, n, k), element_bytes, 132, blocks_per_sm);
                        let blocks = plan.launch(m, n).grid.volume();
                        if plan.splits > 1 {
                            assert!(blocks <= slots as u64, "{:?}: {blocks} blocks for {slots} places, {plan:?}", (m, n, k));
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "{checked}");
}

/// Every window of every block's slice of A fits the shared memory the
/// plan asks for: rows [`small_m::a_stride`] floats apart, the last row as
/// long as the window rounded up to 8 (a bf16 thread stores 8 values at a
/// time, zeros past K). Over shapes whose slices of K are short, long
/// (several windows) or not multiples of 8, at every size of block.
#[test]
fn plans_hold_every_window_of_a_in_their_shared_memory() {
    let mut checked = 0;
    for m in [1, 2, 8, 9, 16, 17, 64] {
        for n in [1, 7, 64, 100, 1000, 4096, 28672] {
            for k in [1, 7, 8, 17, 255, 1000, 4097, 14336, 65536, 1 << 20] {
                for (element_bytes, blocks_per_sm) in [(4, 4), (4, 8), (2, 4), (2, 8)] {
                    let plan = SmallMPlan::new((m, n, k), element_bytes, 132, blocks_per_sm);
                    if plan.rows == 1 {
                        // One row of A is read where it lies.
                        continue;
                    }
                    let stride = small_m::a_stride(plan.rows);
                    assert!(stride.is_multiple_of(8), "{plan:?}");
                    for slice in 0..plan.splits {
                        let (first, end) = (slice * plan.k_chunk, k.min((slice + 1) * plan.k_chunk));
                        let mut window = first;
                        while window < end {
                            let len = (end - window).min(small_m::a_window(plan.rows));
                            assert!(len <= stride, "{plan:?} at {:?}", (m, n, k));
                            let needed = 4 * ((plan.rows - 1) * stride + len.next_multiple_of(8));
                            assert!(needed <= plan.shared_bytes(), "{plan:?} at {:?}: {needed} bytes", (m, n, k));
                            window += len;
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// `sum_slices` on the emulator against the order it documents: lane `y`
/// adds slices `y, y + lanes, …`, then the lanes are added in order. The
/// result must be those bits exactly (the same partials give the same C
/// on every run), for lengths that are and are not multiples of 4 (the
/// 16-byte path and the element path) and slice counts that use 1, 2 and
/// 32 lanes; with beta, C is read and scaled.
#[test]
fn sum_slices_adds_in_its_documented_order() {
    for (len, slices) in [(1u32, 1u32), (7, 5), (8, 5), (4097, 3), (4096, 128), (603, 40)] {
        for (alpha, beta) in [(1.0f32, 0.0f32), (-0.5, 2.0)] {
            let partial: Vec<f32> = (0..len * slices).map(|i| ((i * 2654435761u32) >> 8) as f32 * 1e-7 - 0.4).collect();
            let old: Vec<f32> = (0..len).map(|i| i as f32 * 0.25 - 3.0).collect();
            let lanes = split_k::sum_lanes(slices);
            let expected: Vec<f32> = (0..len as usize)
                .map(|i| {
                    let lane_sums = (0..lanes)
                        .map(|l| (l..slices).step_by(lanes as usize).fold(0.0f32, |s, j| s + partial[j as usize * len as usize + i]));
                    let total = lane_sums.fold(0.0f32, |t, s| t + s);
                    if beta == 0.0 { alpha * total } else { alpha * total + beta * old[i] }
                })
                .collect();
            let mut p = AlignedBuffer::from_slice(&partial);
            let start = if beta == 0.0 { vec![f32::NAN; len as usize] } else { old.clone() };
            let mut out = AlignedBuffer::from_slice(&start);
            let (pp, o) = (p.as_mut_ptr() as usize, out.as_mut_ptr() as usize);
            let buffers = [("partial", pp, 4 * partial.len()), ("c", o, 4 * len as usize)];
            run("sum_slices", split_k::sum_launch(len, slices), &buffers, || unsafe {
                split_k::sum_slices(len, slices, pp as *const f32, alpha, beta, o as *mut f32)
            });
            let got = out.as_slice();
            for i in 0..len as usize {
                assert_eq!(got[i].to_bits(), expected[i].to_bits(), "element {i} of {len} with {slices} slices, beta {beta}");
            }
        }
    }
}

/// The one-row kernel sums each step of 8 products on its own before the
/// step goes into a k-lane's running sum, so that sum takes 8 times fewer
/// roundings. With K whole in one block (16 k-lanes of 1024 products
/// each at K = 16384), its errors against the f64 reference must be well
/// below those of one running fp32 sum down all of K (an FMA per
/// product). On these inputs the RMS error of k-lanes that add their
/// products one by one is 0.26 of the running sum's, by steps 0.11.
#[test]
fn one_row_sums_go_by_steps() {
    let (m, n, k) = (1u32, 32u32, 16384u32);
    let plan = SmallMPlan::new((m, n, k), 4, 1, 1);
    assert_eq!((plan.rows, plan.splits, plan.groups), (1, 1, 8), "one block, K whole, 16 k-lanes");
    let (mut kernel_squares, mut running_squares) = (0.0f64, 0.0f64);
    for seed in 1..=6u64 {
        let problem = Problem::random((m, n, k), 1.0, 0.0, seed);
        let (a, b) = (AlignedBuffer::from_slice(&problem.a), AlignedBuffer::from_slice(&problem.b));
        let mut c = vec![f32::from_bits(ptx_ladder::device::POISON_BITS); n as usize];
        let kernel = (sgemm_rung::SGEMM_SMALL_M1, sgemm_rung::sgemm_small_m1 as SmallMFn<_>);
        let args = ((a.as_ptr() as usize, problem.a.len()), (b.as_ptr() as usize, problem.b.len()));
        small_m_gemm::<f32>(kernel, (plan, plan.launch(m, n)), (m, n, k), args.0, args.1, 1.0, 0.0, &mut c);
        for (j, &got) in c.iter().enumerate() {
            let column = (0..k as usize).map(|i| (problem.a[i], problem.b[i * n as usize + j]));
            let exact: f64 = column.clone().map(|(x, y)| x as f64 * y as f64).sum();
            let scale: f64 = column.clone().map(|(x, y)| (x as f64 * y as f64).abs()).sum();
            let running = column.fold(0.0f32, |sum, (x, y)| x.mul_add(y, sum));
            kernel_squares += ((got as f64 - exact) / scale).powi(2);
            running_squares += ((running as f64 - exact) / scale).powi(2);
        }
    }
    let ratio = (kernel_squares / running_squares).sqrt();
    assert!(ratio < 0.2, "the kernel's RMS error is {ratio:.3} of one running sum's");
}
