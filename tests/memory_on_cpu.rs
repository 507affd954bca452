//! The memory lab's kernels on the CPU emulator: the read kernel's walk and
//! sums, the shared-memory read, the visiting order of every pointer chase,
//! and the FMA chain, each against the host's replay.

use kernels_gpu::labs::memory::{self as kernels, TILE_QUADS};
use kernels_gpu::launch::Dim3;
use kernels_gpu::launch::LaunchShape;
use ptx_ladder::emulator::{AlignedBuffer, launch};
use ptx_ladder::labs::memory::{address_chain, chase_end, expected_fma_chain, expected_read_sum, expected_shared_sum};
use ptx_ladder::labs::models::memory::random_cycle;

fn shape(grid: u32, block: u32, shared_bytes: u32) -> LaunchShape {
    LaunchShape { grid: Dim3::new(grid, 1, 1), block: Dim3::new(block, 1, 1), shared_bytes }
}

#[test]
fn the_read_kernel_walks_and_wraps_the_working_set() {
    // Every float distinct (mod 7 keeps sums exact): a wrong index shows.
    let (blocks, threads) = (2u32, 64u32);
    let total = blocks * threads;
    for quads in [32u32, 100, 128, 1000] {
        let data: Vec<f32> = (0..quads * 4).map(|w| (w % 7) as f32).collect();
        let quad_sum = |q: u32| (0..4).map(|c| ((4 * q + c) % 7) as f32).sum::<f32>();
        let input = AlignedBuffer::from_slice(&data);
        let mut out = AlignedBuffer::from_slice(&vec![f32::NAN; total as usize]);
        let (src, dst, steps) = (input.as_ptr() as usize, out.as_mut_ptr() as usize, 5u32);
        let stride = ptx_ladder::labs::memory::read_stride(total, quads);
        unsafe {
            launch(shape(blocks, threads, 0), || kernels::memory_read(src as *const f32, quads, stride, steps, dst as *mut f32)).unwrap()
        };
        for (t, &got) in out.as_slice().iter().enumerate() {
            let want = expected_read_sum(t as u32, total, quads, steps, quad_sum);
            assert_eq!(got, want, "thread {t}, {quads} quads");
        }
    }
}

#[test]
fn each_thread_walks_over_the_whole_working_set() {
    // 8 threads over 32 quads: 8 steps of 4 loads take each thread to every
    // quad once, so every SM would see the whole set (not a fixed corner).
    for t in 0..8 {
        let mut counts = [0u32; 32];
        expected_read_sum(t, 8, 32, 8, |q| {
            counts[q as usize] += 1;
            0.0
        });
        assert!(counts.iter().all(|&c| c == 1), "thread {t}: {counts:?}");
    }
}

#[test]
fn the_shared_read_sums_what_the_model_says() {
    let threads = kernels::THREADS;
    let mut out = AlignedBuffer::from_slice(&vec![f32::NAN; threads as usize]);
    let dst = out.as_mut_ptr() as usize;
    unsafe { launch(shape(1, threads, TILE_QUADS * 16), || kernels::memory_shared_read(dst as *mut f32, 3)).unwrap() };
    for (t, &got) in out.as_slice().iter().enumerate() {
        assert_eq!(got, expected_shared_sum(t as u32, 3), "thread {t}");
    }
}

/// Runs a global chase over host memory laid out as on the GPU.
fn global_chase(kernel: unsafe fn(u64, u32, u32, *mut u64), set_bytes: u64, warmup: u32, steps: u32) -> (u64, u64) {
    let mut chain = vec![0u64; (set_bytes / 8) as usize];
    let base = chain.as_mut_ptr() as u64;
    let (words, next) = address_chain(base, set_bytes, 42);
    chain.copy_from_slice(&words);
    let mut out = [0u64; 2];
    let o = out.as_mut_ptr() as usize;
    unsafe { launch(shape(1, 1, 0), || kernel(base, warmup, steps, o as *mut u64)).unwrap() };
    let want = base + chase_end(&next, warmup as u64 + steps as u64) as u64 * 128;
    assert_eq!(out[1], want, "the chase ended at the wrong slot");
    (out[0], out[1])
}

#[test]
fn global_chases_follow_the_random_cycle() {
    for (warmup, steps) in [(0, 1), (3, 10), (32, 1000)] {
        let (ticks, _) = global_chase(kernels::memory_chase_l1, 32 * 128, warmup, steps);
        assert!(ticks >= 1, "the emulated clock moves forward");
        global_chase(kernels::memory_chase_l2, 100 * 128, warmup, steps);
    }
}

#[test]
fn a_chain_visits_every_slot_before_repeating() {
    let set = 64 * 128;
    let (words, next) = address_chain(0, set, 1);
    let mut slot = 0u64;
    let mut seen = [false; 64];
    for _ in 0..64 {
        assert!(!seen[slot as usize]);
        seen[slot as usize] = true;
        slot = words[(slot * 16) as usize] / 128;
    }
    assert_eq!(slot, 0);
    assert_eq!(chase_end(&next, 64), 0);
    assert_eq!(chase_end(&next, 1), next[0]);
}

#[test]
fn the_shared_chase_follows_the_cycle() {
    for (slots, steps) in [(1u32, 5u32), (64, 200), (1024, 3000)] {
        let next = random_cycle(slots as usize, 11);
        let mut out = [0u64; 2];
        let (n, o) = (next.as_ptr() as usize, out.as_mut_ptr() as usize);
        unsafe { launch(shape(1, 1, slots * 4), || kernels::memory_chase_shared(n as *const u32, slots, steps, o as *mut u64)).unwrap() };
        assert_eq!(out[1], chase_end(&next, steps as u64) as u64, "{slots} slots, {steps} steps");
    }
}

#[test]
fn the_fma_chain_rounds_as_the_cpu_does() {
    let mut out = [0u64; 2];
    let o = out.as_mut_ptr() as usize;
    unsafe { launch(shape(1, 1, 0), || kernels::memory_fma_chain(0.5, 0.999, 0.001, 1000, o as *mut u64)).unwrap() };
    let want = expected_fma_chain(0.5, 0.999, 0.001, 1000);
    assert_eq!(out[1] as u32, want.to_bits());
    assert_ne!(want, 0.5, "the chain did something");
}
