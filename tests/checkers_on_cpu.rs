//! The emulator's checkers: each fires on its broken kernel, names the
//! threads, addresses and barrier involved, and stays silent on the fixed
//! kernel and on the kernels of the labs. (Every ladder rung runs with the
//! checkers on in `kernels_on_cpu`, and the reduction, bank and warp
//! kernels in `labs_on_cpu`: there any finding fails the test.)

use kernels_gpu::gpu::{self, Dim3};
use kernels_gpu::labs::pitfalls::THREADS;
use kernels_gpu::labs::{banks, coalesce, divergence as branches, occupancy, reduce, warps};
use kernels_gpu::launch::LaunchShape;
use kernels_gpu::sgemm::r08_autotuned::CONFIGS;
use kernels_gpu::vecadd;
use ptx_ladder::emulator::{AlignedBuffer, Checks, Finding, Hazard, Report, launch_checked};
use ptx_ladder::inputs::uniform;
use ptx_ladder::labs::divergence::{THREADS as BRANCH_THREADS, expected as branch_expected};
use ptx_ladder::labs::models::divergence::BranchPattern;
use ptx_ladder::labs::pitfalls::{Bug, Case, Options, run, validate};
use ptx_ladder::matmul::sgemm::plain_kernels;

fn shape(blocks: u32, threads: u32, shared_bytes: u32) -> LaunchShape {
    LaunchShape { grid: Dim3::new(blocks, 1, 1), block: Dim3::new(threads, 1, 1), shared_bytes }
}

fn case<'a>(cases: &'a [Case], title: &str) -> &'a Case {
    cases.iter().find(|c| c.title == title).unwrap_or_else(|| panic!("no case {title}"))
}

#[test]
fn every_pitfall_is_caught_and_every_fix_is_clean() {
    let cases = run(&Options::default()).unwrap();
    assert_eq!(cases.len(), 6);
    for c in &cases {
        assert!(c.caught(), "not caught: {c}");
        assert!(c.fix_is_clean(), "fix not clean: {c}");
        // A broken kernel is caught by its own checker and no other.
        let r = &c.broken.report;
        let kinds = [r.barrier_mismatches().count() > 0, r.races().count() > 0, r.out_of_bounds().count() > 0];
        let expected = [c.bug == Bug::Barrier, c.bug == Bug::Race, c.bug == Bug::OutOfBounds];
        assert_eq!(kinds, expected, "{c}");
    }
    ptx_ladder::labs::pitfalls::verdict(&cases).unwrap();
}

#[test]
fn a_barrier_in_a_branch_names_who_waits_and_who_left() {
    let cases = run(&Options { n: 300 }).unwrap();
    let branch = case(&cases, "A barrier inside a divergent branch").broken.report.barrier_mismatches().next().cloned().unwrap();
    assert_eq!((branch.block, branch.warp), (Dim3::new(0, 0, 0), None));
    assert_eq!(branch.waiting.len(), 1);
    assert!(branch.waiting[0].0.starts_with("kernels-gpu/src/labs/pitfalls.rs:"), "{:?}", branch.waiting);
    assert_eq!(branch.waiting[0].1, (0..64).collect::<Vec<u32>>());
    assert_eq!(branch.exited, (64..128).collect::<Vec<u32>>());
    assert!(branch.to_string().contains("threads 0-63 wait at kernels-gpu/src/labs/pitfalls.rs:"), "{branch}");
    assert!(branch.to_string().contains("threads 64-127 already returned"), "{branch}");

    // 300 elements: the third block holds 44; its other 84 threads return.
    let early = case(&cases, "An early return before a barrier").broken.report.barrier_mismatches().next().cloned().unwrap();
    assert_eq!(early.block, Dim3::new(2, 0, 0));
    assert_eq!(early.waiting[0].1, (0..44).collect::<Vec<u32>>());
    assert_eq!(early.exited, (44..128).collect::<Vec<u32>>());
}

#[test]
fn races_name_both_threads_the_word_and_the_hazard() {
    let cases = run(&Options::default()).unwrap();
    let reverse = &case(&cases, "A tile read before everyone stored").broken.report;
    for race in reverse.races() {
        // Thread t stores word t and reads word 127 - t: the pair is
        // always (t, 127 - t), the word one of theirs.
        assert_eq!(race.first + race.second, THREADS - 1, "{race}");
        assert!(race.offset / 4 == race.first || race.offset / 4 == race.second, "{race}");
        assert!(matches!(race.hazard, Hazard::ReadAfterWrite | Hazard::WriteAfterRead), "{race}");
    }
    // Every word of the two full tiles is raced on; in the third block
    // (44 elements) only the 44 threads inside the data read a partner's.
    assert_eq!(reverse.findings.len() + reverse.unlisted, 2 * THREADS as usize + 44);
    let tree = &case(&cases, "A reduction step without its barrier").broken.report;
    assert!(tree.races().all(|r| r.offset < 4 * THREADS && r.first != r.second), "{tree}");
}

#[test]
fn out_of_bounds_accesses_are_placed_against_the_nearest_buffer() {
    let cases = run(&Options { n: 131 }).unwrap();
    let add = &case(&cases, "A missing round-up-and-mask check").broken.report;
    // Threads 131..256 each read a and b and write c past their ends.
    assert_eq!(add.findings.len() + add.unlisted, 3 * (256 - 131));
    for oob in add.out_of_bounds() {
        let (name, relation) = oob.nearest.clone().unwrap();
        assert_eq!(oob.write, name == "c", "{oob}");
        assert!(oob.thread >= 3 && oob.block == Dim3::new(1, 0, 0), "{oob}");
        assert!(relation.contains(&format!("past the end of `{name}`")), "{oob}");
    }
}

#[test]
fn threads_at_different_barriers_are_a_mismatch() {
    let report = unsafe {
        launch_checked(shape(1, 64, 0), &Checks::new("two_barriers"), || {
            // The same call on two source lines: two different barriers.
            #[allow(clippy::if_same_then_else)]
            if gpu::thread_idx().x < 40 {
                gpu::sync_threads();
            } else {
                gpu::sync_threads();
            }
        })
    }
    .unwrap();
    let mismatch = report.barrier_mismatches().next().unwrap();
    assert!(mismatch.exited.is_empty());
    let groups: Vec<&Vec<u32>> = mismatch.waiting.iter().map(|(_, threads)| threads).collect();
    assert_eq!(groups, [&(0..40).collect::<Vec<u32>>(), &(40..64).collect::<Vec<u32>>()]);
    assert_ne!(mismatch.waiting[0].0, mismatch.waiting[1].0);
    assert!(report.to_string().contains("do not wait for each other"), "{report}");
}

#[test]
fn a_shuffle_some_lanes_never_reach_is_a_mismatch() {
    let report = unsafe {
        launch_checked(shape(1, 64, 0), &Checks::new("half_warp_shuffle"), || {
            if gpu::thread_idx().x >= 48 {
                gpu::warp_sum(1.0);
            }
        })
    }
    .unwrap();
    let mismatch = report.barrier_mismatches().next().unwrap();
    assert_eq!(mismatch.warp, Some(1));
    assert_eq!(mismatch.waiting[0].1, (16..32).collect::<Vec<u32>>());
    assert_eq!(mismatch.exited, (0..16).collect::<Vec<u32>>());
}

#[test]
fn returning_after_the_last_barrier_and_ordered_accesses_are_silent() {
    let mut out = AlignedBuffer::from_slice(&[f32::NAN; 100]);
    let o = out.as_mut_ptr() as usize;
    let checks = Checks::new("exit_after_barrier").buffer("out", out.as_ptr(), 100);
    let report = unsafe {
        launch_checked(shape(1, 128, 1024), &checks, || {
            let tile = gpu::dynamic_shared::<f32>();
            let t = gpu::thread_idx().x;
            gpu::store(tile.add(t as usize), t as f32);
            gpu::sync_threads();
            // Many readers of one word, and writes of one value: no hazard.
            let first = gpu::load(tile);
            gpu::store(tile.add(200), 5.0);
            if t >= 100 {
                return;
            }
            gpu::store((o as *mut f32).add(t as usize), gpu::load(tile.add(127 - t as usize)) + first);
        })
    }
    .unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(out.as_slice(), (0..100).map(|t| 127.0 - t as f32).collect::<Vec<f32>>());
}

#[test]
fn the_bounds_checker_sees_every_rungs_loads_and_stores() {
    // With `a` and `c` declared one row short, every rung must be caught
    // reading that row of A and writing that row of C (and the emulator
    // must skip those accesses).
    let (m, n, k) = (64u32, 64u32, 16u32);
    let a = AlignedBuffer::from_slice(&uniform((m * k) as usize, 3));
    let b = AlignedBuffer::from_slice(&uniform((k * n) as usize, 4));
    let mut c = AlignedBuffer::from_slice(&vec![0.0; (m * n) as usize]);
    let (a_short, c_short) = (((m - 1) * k) as usize, ((m - 1) * n) as usize);
    let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, c.as_mut_ptr() as usize);
    let last_row = |start: usize, short: usize, row: u32| start + 4 * short..start + 4 * (short + row as usize);
    let (a_row, c_row) = (last_row(pa, a_short, k), last_row(pc, c_short, n));
    for (_, kernel) in plain_kernels(&CONFIGS[0].kernel) {
        // One launch with A short (reads), one with C short (writes).
        for (a_len, c_len, write, row) in [(a_short, m * n, false, &a_row), ((m * k) as usize, c_short as u32, true, &c_row)] {
            let checks = Checks::new(kernel.name())
                .buffer("a", pa as *const f32, a_len)
                .buffer("b", pb as *const f32, (k * n) as usize)
                .buffer("c", pc as *const f32, c_len as usize);
            let f = kernel.emulate;
            let report = unsafe {
                launch_checked((kernel.launch)(m, n), &checks, || f(m, n, k, 1.0, pa as *const f32, pb as *const f32, 0.0, pc as *mut f32))
            }
            .unwrap();
            assert!(!report.is_clean(), "{}: nothing found", kernel.name());
            for finding in &report.findings {
                let Finding::OutOfBounds(o) = finding else { panic!("{}: {finding}", kernel.name()) };
                assert!(o.write == write && row.contains(&o.address), "{}: {o}", kernel.name());
            }
        }
    }
}

/// Runs a kernel of two input arrays and one output over `n` elements with
/// every buffer declared; returns the report and the output.
fn run_declared(name: &str, blocks: u32, threads: u32, n: usize, kernel: impl Fn(usize, usize, usize)) -> (Report, Vec<f32>) {
    let (x, y) = (AlignedBuffer::from_slice(&uniform(n, 5)), AlignedBuffer::from_slice(&uniform(n, 6)));
    let mut out = AlignedBuffer::from_slice(&vec![f32::NAN; n]);
    let checks = Checks::new(name).buffer("x", x.as_ptr(), n).buffer("y", y.as_ptr(), n).buffer("out", out.as_ptr(), n);
    let (px, py, po) = (x.as_ptr() as usize, y.as_ptr() as usize, out.as_mut_ptr() as usize);
    let report = unsafe { launch_checked(shape(blocks, threads, 0), &checks, || kernel(px, py, po)).unwrap() };
    (report, out.as_slice().to_vec())
}

#[test]
fn the_other_lab_kernels_are_silent_at_odd_sizes() {
    let n = 1001usize;
    let (x, y) = (uniform(n, 5), uniform(n, 6));
    let sum: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    for (name, kernel) in
        [(vecadd::VEC_ADD.name(), vecadd::vec_add as unsafe fn(_, _, _, _)), (vecadd::VEC_ADD_X4.name(), vecadd::vec_add_x4)]
    {
        let threads = if name == vecadd::VEC_ADD.name() { n } else { n.div_ceil(4) };
        let (report, out) = run_declared(name, threads.div_ceil(64) as u32, 64, n, |a, b, c| unsafe {
            kernel(a as *const f32, b as *const f32, c as *mut f32, n as u32)
        });
        assert!(report.is_clean(), "{report}");
        assert_eq!(out, sum, "{name}");
    }

    let quads = n / 4;
    let (report, out) = run_declared(occupancy::OCCUPANCY_COPY.name(), 3, occupancy::THREADS, n, |src, _, dst| unsafe {
        occupancy::occupancy_copy(src as *const f32, dst as *mut f32, quads as u32)
    });
    assert!(report.is_clean(), "{report}");
    assert_eq!(out[..quads * 4], x[..quads * 4]);

    // 125 threads x 8 reads at stride 1 cover all 1000 of 1001 inputs.
    let (report, out) = run_declared(coalesce::STRIDED_READ.name(), 2, 64, n, |src, _, dst| unsafe {
        coalesce::strided_read(src as *const f32, dst as *mut f32, 125, 1)
    });
    assert!(report.is_clean(), "{report}");
    let expected = (0..125).map(|t| (0..8).map(|j| x[t + j * 125]).sum::<f32>());
    for (t, want) in expected.enumerate() {
        assert!((out[t] - want).abs() < 1e-5, "strided_read thread {t}: {} vs {want}", out[t]);
    }

    type BranchKernel = unsafe fn(*mut f32, u32);
    let kernels: [(BranchPattern, BranchKernel); 3] = [
        (BranchPattern::EvenOddLane, branches::branch_even_odd_lane),
        (BranchPattern::AlternateWarps, branches::branch_alternate_warps),
        (BranchPattern::ByBlock, branches::branch_by_block),
    ];
    for (pattern, kernel) in kernels {
        let blocks = 3;
        let len = (blocks * BRANCH_THREADS) as usize;
        let (report, out) = run_declared("branch", blocks, BRANCH_THREADS, len, |_, _, dst| unsafe { kernel(dst as *mut f32, 7) });
        assert!(report.is_clean(), "{report}");
        for (i, &got) in out.iter().enumerate() {
            assert_eq!(got, branch_expected(pattern, i as u32 / BRANCH_THREADS, i as u32, 7), "{pattern:?} thread {i}");
        }
    }
}

#[test]
fn the_reduction_bank_and_warp_kernels_are_silent_with_buffers_declared() {
    let n = 1001usize;
    let input = uniform(n, 8);
    let exact: f64 = input.iter().map(|&x| x as f64).sum();
    let src = AlignedBuffer::from_slice(&input);
    let s = src.as_ptr() as usize;
    type Reduce = unsafe fn(*const f32, *mut f32, u32);
    let block_kernels: [(&str, Reduce, u32, usize); 4] = [
        (reduce::REDUCE_SHARED_TREE.name(), reduce::reduce_shared_tree, reduce::THREADS * 4, 3),
        (reduce::REDUCE_WARP_SHUFFLE.name(), reduce::reduce_warp_shuffle, 32, 3),
        (reduce::REDUCE_ATOMIC.name(), reduce::reduce_atomic, 32, 1),
        (reduce::REDUCE_GLOBAL_PASS.name(), reduce::reduce_global_pass, 0, n.div_ceil(2)),
    ];
    for (name, kernel, shared, outputs) in block_kernels {
        let mut dst = AlignedBuffer::from_slice(&vec![0.0; outputs]);
        let d = dst.as_mut_ptr() as usize;
        let checks = Checks::new(name).buffer("src", src.as_ptr(), n).buffer("dst", dst.as_ptr(), outputs);
        let blocks = if name == reduce::REDUCE_GLOBAL_PASS.name() { outputs.div_ceil(64) as u32 } else { 3 };
        let threads = if name == reduce::REDUCE_GLOBAL_PASS.name() { 64 } else { reduce::THREADS };
        let report =
            unsafe { launch_checked(shape(blocks, threads, shared), &checks, || kernel(s as *const f32, d as *mut f32, n as u32)) }
                .unwrap();
        assert!(report.is_clean(), "{report}");
        let got: f64 = dst.as_slice().iter().map(|&x| x as f64).sum();
        assert!((got - exact).abs() < 1e-3, "{name}: {got} vs {exact}");
    }

    let mut out = AlignedBuffer::from_slice(&[f32::NAN; banks::THREADS as usize]);
    let o = out.as_mut_ptr() as usize;
    let checks = Checks::new("banks_swizzled_column").buffer("out", out.as_ptr(), banks::THREADS as usize);
    let report = unsafe {
        launch_checked(shape(1, banks::THREADS, banks::TILE_FLOATS * 4), &checks, || banks::banks_swizzled_column(o as *mut f32, 3))
    }
    .unwrap();
    assert!(report.is_clean(), "{report}");
    assert!(out.as_slice().iter().all(|x| x.is_finite()));

    let mut lanes = vec![u32::MAX; 45];
    let l = lanes.as_mut_ptr() as usize;
    let checks = Checks::new(warps::WARP_LANES.name()).buffer("out", l as *const u32, 45);
    let block = LaunchShape { grid: Dim3::new(1, 1, 1), block: Dim3::new(15, 3, 1), shared_bytes: 0 };
    let report = unsafe { launch_checked(block, &checks, || warps::warp_lanes(l as *mut u32)) }.unwrap();
    assert!(report.is_clean(), "{report}");
    assert_eq!(lanes, (0..45).map(|r| r % 32).collect::<Vec<u32>>());
}

#[test]
fn a_cp_async_copy_must_be_waited_for_before_others_read_it() {
    let src = AlignedBuffer::from_slice(&[1.0, 2.0, 3.0, 4.0]);
    let s = src.as_ptr() as usize;
    for wait in [false, true] {
        let checks = Checks::new("copy_then_read").buffer("src", src.as_ptr(), 4);
        let report = unsafe {
            launch_checked(shape(1, 64, 16), &checks, || {
                let tile = gpu::dynamic_shared::<f32>();
                if gpu::thread_idx().x == 0 {
                    gpu::cp_async_16(tile, s as *const f32, 16);
                    gpu::cp_async_commit();
                    if wait {
                        gpu::cp_async_wait::<0>();
                    }
                }
                gpu::sync_threads();
                assert_eq!(gpu::load(tile.add(2)), 3.0);
            })
        }
        .unwrap();
        if wait {
            assert!(report.is_clean(), "{report}");
        } else {
            let race = report.races().next().unwrap_or_else(|| panic!("{report}"));
            assert_eq!((race.hazard, race.offset, race.first), (Hazard::UnwaitedCopy, 8, 0), "{race}");
            assert!(race.to_string().contains("a barrier does not wait for copies"), "{race}");
        }
    }
}

#[test]
fn sizes_without_a_partial_block_are_refused() {
    assert!(validate(300).is_ok());
    for bad in [0, 128, 256, 1 << 17] {
        assert!(validate(bad).is_err(), "{bad}");
    }
}

#[test]
fn lanes_may_meet_at_a_shuffle_from_different_lines() {
    // Legal since Volta: a warp's lanes take part in one exchange from two
    // call sites. The emulator names the sites but still releases the warp.
    let report = unsafe {
        launch_checked(shape(1, 32, 0), &Checks::new("split shuffle"), || {
            // Even lanes send their number from one line, odd lanes 100 more from another.
            let lane = gpu::lane_id();
            let even = lane.is_multiple_of(2);
            let other = if even { gpu::shuffle_xor(lane as f32, 1) } else { gpu::shuffle_xor(lane as f32 + 100.0, 1) };
            let expected = if even { (lane ^ 1) as f32 + 100.0 } else { (lane ^ 1) as f32 };
            assert_eq!(other, expected);
        })
    }
    .unwrap();
    assert!(report.is_clean(), "{report}");
}

#[test]
fn the_access_log_numbers_each_thread_s_accesses_and_names_their_lines() {
    use ptx_ladder::emulator::{AccessKind, launch_logged};
    let src = AlignedBuffer::from_slice(&[1.0, 2.0, 3.0, 4.0]);
    let s = src.as_ptr() as usize;
    let checks = Checks::new("log").buffer("src", src.as_ptr(), 4);
    let (report, log) = unsafe {
        launch_logged(shape(2, 2, 8), &checks, || {
            let tile = gpu::dynamic_shared::<f32>();
            let t = gpu::thread_idx().x as usize;
            gpu::store(tile.add(t), gpu::load((s as *const f32).add(gpu::global_x() as usize)));
        })
    }
    .unwrap();
    assert!(report.is_clean(), "{report}");
    // Two blocks of two threads, each a global read (first) then a shared write.
    assert_eq!(log.len(), 8);
    for entry in &log {
        let first = entry.seq == 0;
        assert_eq!((entry.shared, entry.kind == AccessKind::Read), (!first, first), "{entry:?}");
        assert_eq!(entry.site.file(), file!(), "{entry:?}");
        if entry.shared {
            assert_eq!(entry.address, 4 * entry.thread as usize);
        } else {
            assert_eq!(entry.address, s + 4 * (2 * entry.block.x + entry.thread) as usize);
        }
    }
}
