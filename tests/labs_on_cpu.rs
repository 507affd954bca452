//! The lab kernels run on the CPU through the emulator: reductions for sizes
//! that are not multiples of the block (barriers and warp shuffles really
//! synchronise here), and the bank and warp kernels against the host's
//! expectations.

use kernels_gpu::labs::{banks, reduce, warps};
use kernels_gpu::launch::Dim3;
use kernels_gpu::launch::LaunchShape;
use ptx_ladder::emulator::{AlignedBuffer, launch};
use ptx_ladder::inputs::uniform;

fn shape(grid: u32, block: u32, shared_bytes: u32) -> LaunchShape {
    LaunchShape::linear(grid, block, shared_bytes)
}

type ReduceKernel = unsafe fn(*const f32, *mut f32, u32);

/// Runs a two-pass block reduction (3 blocks, then 1) on the CPU.
fn two_pass(kernel: ReduceKernel, shared: u32, input: &[f32]) -> f32 {
    let src = AlignedBuffer::from_slice(input);
    let mut partials = AlignedBuffer::from_slice(&[f32::NAN; 3]);
    let mut out = AlignedBuffer::from_slice(&[f32::NAN]);
    let (s, p, o, n) = (src.as_ptr() as usize, partials.as_mut_ptr() as usize, out.as_mut_ptr() as usize, input.len() as u32);
    unsafe {
        launch(shape(3, reduce::THREADS, shared), || kernel(s as *const f32, p as *mut f32, n)).unwrap();
        launch(shape(1, reduce::THREADS, shared), || kernel(p as *const f32, o as *mut f32, 3)).unwrap();
    }
    out.as_slice()[0]
}

fn close(got: f32, input: &[f32]) {
    let exact: f64 = input.iter().map(|&x| x as f64).sum();
    let scale: f64 = input.iter().map(|&x| x.abs() as f64).sum::<f64>().max(1.0);
    assert!(((got as f64 - exact) / scale).abs() < 1e-5, "got {got}, exact {exact}");
}

#[test]
fn every_reduction_is_correct_for_awkward_sizes() {
    for n in [1usize, 17, 255, 256, 257, 1000, 3001] {
        let input = uniform(n, n as u64);
        close(two_pass(reduce::reduce_shared_tree, reduce::THREADS * 4, &input), &input);
        close(two_pass(reduce::reduce_warp_shuffle, reduce::THREADS / 32 * 4, &input), &input);

        let src = AlignedBuffer::from_slice(&input);
        let mut sum = AlignedBuffer::from_slice(&[0.0]);
        let (s, o) = (src.as_ptr() as usize, sum.as_mut_ptr() as usize);
        unsafe { launch(shape(2, reduce::THREADS, 32), || reduce::reduce_atomic(s as *const f32, o as *mut f32, n as u32)).unwrap() };
        close(sum.as_slice()[0], &input);

        // The global tree: one pass per level, the first out of place.
        let mut scratch = AlignedBuffer::from_slice(&vec![f32::NAN; n.div_ceil(2)]);
        let (mut from, to, mut count) = (s, scratch.as_mut_ptr() as usize, n as u32);
        loop {
            let half = count.div_ceil(2);
            let c = count;
            unsafe {
                launch(shape(half.div_ceil(64), 64, 0), || reduce::reduce_global_pass(from as *const f32, to as *mut f32, c)).unwrap()
            };
            from = to;
            count = half;
            if count == 1 {
                break;
            }
        }
        close(scratch.as_slice()[0], &input);
    }
}

#[test]
fn bank_kernels_read_what_the_host_expects() {
    for pattern in banks::PATTERNS {
        let mut out = AlignedBuffer::from_slice(&vec![f32::NAN; banks::THREADS as usize]);
        let o = out.as_mut_ptr() as usize;
        let kernel: unsafe fn(*mut f32, u32) = match pattern {
            banks::ROW => banks::banks_row,
            banks::COLUMN => banks::banks_column,
            banks::PADDED_COLUMN => banks::banks_padded_column,
            banks::SWIZZLED_COLUMN => banks::banks_swizzled_column,
            banks::STRIDE_2 => banks::banks_stride_2,
            _ => banks::banks_broadcast,
        };
        unsafe { launch(shape(1, banks::THREADS, banks::TILE_FLOATS * 4), || kernel(o as *mut f32, 9)).unwrap() };
        for (t, &got) in out.as_slice().iter().enumerate() {
            assert_eq!(got, ptx_ladder::labs::banks::expected_sum(pattern, t as u32 % 32, 9), "pattern {pattern}, thread {t}");
        }
    }
}

#[test]
fn warp_lane_kernel_numbers_threads_in_linear_order() {
    let block = Dim3::new(5, 3, 2);
    let mut out = vec![u32::MAX; 30];
    let o = out.as_mut_ptr() as usize;
    let shape = LaunchShape { grid: Dim3::new(1, 1, 1), block, shared_bytes: 0 };
    unsafe { launch(shape, || warps::warp_lanes(o as *mut u32)).unwrap() };
    assert_eq!(out, (0..30).map(|r| r % 32).collect::<Vec<u32>>());
}
