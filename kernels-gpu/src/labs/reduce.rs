//! Reduction: the sum of n floats, four ways. Every kernel handles any n
//! (grid-stride loops and masked loads, never an early return), and every
//! barrier sits outside divergent code: a barrier must be reached by all
//! threads of the block, or the block waits forever.

use crate::gpu;
use kernels_macros::kernel;

/// Threads per block for the block-level kernels.
pub const THREADS: u32 = 256;

/// One level of a tree in global memory: halves `count` values,
/// `dst[i] = src[i] + src[i + half]` with `half = ceil(count / 2)` (the
/// odd one out is copied). May run in place (`dst == src`): thread i
/// only reads indices i and i + half, and only writes i.
#[kernel]
pub unsafe fn reduce_global_pass(src: *const f32, dst: *mut f32, count: u32) {
    let half = count.div_ceil(2);
    let i = gpu::global_x();
    if i < half {
        let pair = if i + half < count { unsafe { gpu::load(src.add((i + half) as usize)) } } else { 0.0 };
        let own = unsafe { gpu::load(src.add(i as usize)) };
        let out = unsafe { dst.add(i as usize) };
        unsafe { gpu::store(out, own + pair) };
    }
}

/// This thread's grid-stride share of `src[0..n]`, read four floats at a
/// time (128-bit loads keep enough bytes in flight to near the copy
/// bandwidth, as in `vec_add_x4`); the last `n % 4` go to the first threads.
/// `src` must be 16-byte aligned.
#[inline(always)]
fn thread_sum(src: *const f32, n: u32) -> f32 {
    let mut sum = 0.0f32;
    let first = gpu::global_x();
    let stride = gpu::grid_threads_x();
    let quads = n / 4;
    let mut q = first;
    while q < quads {
        let v = unsafe { gpu::load_f32x4(src.add(q as usize * 4)) };
        sum += (v[0] + v[1]) + (v[2] + v[3]);
        q += stride;
    }
    let tail = quads * 4 + first;
    if tail < n {
        sum += unsafe { gpu::load(src.add(tail as usize)) };
    }
    sum
}

/// Grid-stride sums, then a tree in shared memory: at each level the
/// lower half of the active threads adds the upper half. Writes one
/// partial sum per block to `dst[blockIdx.x]`.
#[kernel]
pub unsafe fn reduce_shared_tree(src: *const f32, dst: *mut f32, n: u32) {
    let partial = gpu::dynamic_shared::<f32>();
    let t = gpu::thread_idx().x;
    let sum = thread_sum(src, n);
    unsafe { gpu::store(partial.add(t as usize), sum) };
    gpu::sync_threads();
    let mut active = THREADS / 2;
    while active > 0 {
        if t < active {
            unsafe {
                let upper = gpu::load(partial.add((t + active) as usize));
                gpu::store(partial.add(t as usize), gpu::load(partial.add(t as usize)) + upper);
            }
        }
        // Outside the `if`: every thread of the block reaches it.
        gpu::sync_threads();
        active /= 2;
    }
    if t == 0 {
        let total = unsafe { gpu::load(partial) };
        unsafe { gpu::store(dst.add(gpu::block_idx().x as usize), total) };
    }
}

/// Sum over the block: warp shuffles, then one warp sums the warps'
/// results. Every thread gets the block's sum's contribution; only thread 0
/// holds the total.
#[inline(always)]
fn block_sum(value: f32) -> f32 {
    let warp_totals = gpu::dynamic_shared::<f32>();
    let (warp, lane) = (gpu::warp_id(), gpu::lane_id());
    let warp_total = gpu::warp_sum(value);
    if lane == 0 {
        unsafe { gpu::store(warp_totals.add(warp as usize), warp_total) };
    }
    gpu::sync_threads();
    let warps = THREADS / gpu::WARP_SIZE;
    // Every warp runs the final shuffle (so no lane skips it); only warp 0's
    // result is used.
    let mine = if lane < warps { unsafe { gpu::load(warp_totals.add(lane as usize)) } } else { 0.0 };
    gpu::warp_sum(mine)
}

/// Grid-stride sums, reduced inside each warp with shuffles (no shared
/// memory, no barrier), then across the block's 8 warps. Writes one
/// partial sum per block to `dst[blockIdx.x]`.
#[kernel]
pub unsafe fn reduce_warp_shuffle(src: *const f32, dst: *mut f32, n: u32) {
    let total = block_sum(thread_sum(src, n));
    if gpu::thread_idx().x == 0 {
        unsafe { gpu::store(dst.add(gpu::block_idx().x as usize), total) };
    }
}

/// As `reduce_warp_shuffle`, but each block adds its sum straight into
/// `*dst` with one atomic add: one launch, no second pass. `*dst` must
/// start at zero.
#[kernel]
pub unsafe fn reduce_atomic(src: *const f32, dst: *mut f32, n: u32) {
    let total = block_sum(thread_sum(src, n));
    if gpu::thread_idx().x == 0 {
        unsafe { gpu::atomic_add_f32(dst, total) };
    }
}
