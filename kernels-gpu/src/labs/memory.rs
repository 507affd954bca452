//! The memory hierarchy: how fast and how far away each place a number can
//! live is. A read kernel measures bandwidth against the size of the data it
//! keeps re-reading; one thread chasing pointers measures latency in SM
//! cycles; a dependent FMA chain gives the register baseline.

use crate::gpu;
use crate::launch::LaunchShape;
use kernels_macros::kernel;

/// Independent 128-bit loads per thread and step of [`memory_read`]: more
/// than one load in flight per warp, so a few warps per SM fill the pipe.
pub const LOADS_PER_STEP: u32 = 4;
/// Threads per block of the bandwidth kernels.
pub const THREADS: u32 = 256;
/// Blocks per SM of [`memory_read`]'s launches: 8 × 256 threads fill an
/// SM's 2048 slots.
pub const READ_BLOCKS_PER_SM: u32 = 8;

/// [`memory_read`]'s launch on a GPU of `multiprocessors` SMs:
/// [`READ_BLOCKS_PER_SM`] blocks of [`THREADS`] on each (the memory lab's
/// bandwidth sweep, and the timing's L2 flush).
pub const fn read_launch(multiprocessors: u32) -> LaunchShape {
    LaunchShape::linear(multiprocessors * READ_BLOCKS_PER_SM, THREADS, 0)
}
/// Shared tile of [`memory_shared_read`]: 2048 quads of four floats, 32 KB.
pub const TILE_QUADS: u32 = 2048;
/// 128-bit shared loads per thread and round of [`memory_shared_read`].
pub const SHARED_LOADS_PER_ROUND: u32 = 8;
/// Dependent FMAs per step of [`memory_fma_chain`].
pub const FMAS_PER_STEP: u32 = 8;

/// `(i + stride) mod quads`, for `i, stride < quads`: one compare instead
/// of an integer division. `quads` must stay below 2^31.
#[inline(always)]
pub const fn wrap_add(i: u32, stride: u32, quads: u32) -> u32 {
    let j = i + stride;
    if j >= quads { j - quads } else { j }
}

/// The value stored at float `word` of the shared tile: small integers, so
/// every sum stays exact in f32.
#[inline(always)]
pub const fn tile_value(word: u32) -> u32 {
    word & 15
}

/// The tile quad thread `t` reads in `round`, load `k`: a warp reads 32
/// neighbouring quads (512 bytes, no bank conflict), and the address moves
/// with the round so the compiler cannot hoist the loads out of the loop.
#[inline(always)]
pub const fn tile_quad(t: u32, round: u32, k: u32) -> u32 {
    (t + k * THREADS + round * 32) & (TILE_QUADS - 1)
}

/// Every thread of the grid walks the working set of `quads` 16-byte
/// quads with a grid stride, `steps` × [`LOADS_PER_STEP`] loads, wrapping
/// around at the end, so a small set is read over and over (from
/// whichever cache holds it) and a large one streams from DRAM.
/// `stride` (below `quads`) is chosen by the host so that each thread's
/// walk passes every part of the set. Each thread writes
/// the sum of what it read to `out[thread]`.
#[kernel]
pub unsafe fn memory_read(data: *const f32, quads: u32, stride: u32, steps: u32, out: *mut f32) {
    let t = gpu::global_x();
    let mut i = t % quads;
    let mut acc = [0.0f32; 4];
    for _ in 0..steps {
        for k in 0..LOADS_PER_STEP {
            let v = unsafe { gpu::load_f32x4(data.add(i as usize * 4)) };
            acc[k as usize] += (v[0] + v[1]) + (v[2] + v[3]);
            i = wrap_add(i, stride, quads);
        }
    }
    unsafe { *out.add(t as usize) = (acc[0] + acc[1]) + (acc[2] + acc[3]) };
}

/// Fills a 32 KB shared tile, then each thread makes `rounds` ×
/// [`SHARED_LOADS_PER_ROUND`] 128-bit shared loads (see [`tile_quad`])
/// and writes their sum to `out[global thread]`. Launch with
/// [`THREADS`] threads and `TILE_QUADS * 16` bytes of shared memory.
#[kernel]
pub unsafe fn memory_shared_read(out: *mut f32, rounds: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let t = gpu::thread_idx().x;
    let mut w = t;
    while w < TILE_QUADS * 4 {
        unsafe { *tile.add(w as usize) = tile_value(w) as f32 };
        w += THREADS;
    }
    gpu::sync_threads();
    let mut acc = [0.0f32; 4];
    for round in 0..rounds {
        for k in 0..SHARED_LOADS_PER_ROUND {
            let v = unsafe { gpu::load_f32x4(tile.add(tile_quad(t, round, k) as usize * 4)) };
            acc[(k % 4) as usize] += (v[0] + v[1]) + (v[2] + v[3]);
        }
    }
    unsafe { *out.add(gpu::global_x() as usize) = (acc[0] + acc[1]) + (acc[2] + acc[3]) };
}

/// Writes a chase's result: the cycles of the timed steps, and where the
/// chase ended (so the host can check every step was taken).
///
/// # Safety
/// `out` must hold two words.
#[inline(always)]
unsafe fn finish_chase(out: *mut u64, begin: u64, end: u64, last: u64) {
    unsafe {
        *out = end - begin;
        *out.add(1) = last;
    }
}

/// One thread follows a chain of addresses (each word holds the address
/// of the next) with loads that may hit in L1: `warmup` untimed steps,
/// then `steps` timed with the SM clock. Every load waits for the one
/// before it, so the time per step is the load latency.
#[kernel]
pub unsafe fn memory_chase_l1(start: u64, warmup: u32, steps: u32, out: *mut u64) {
    let mut p = start;
    for _ in 0..warmup {
        p = unsafe { gpu::load_u64_cache_all(p as *const u64) };
    }
    let begin = gpu::clock64();
    for _ in 0..steps {
        p = unsafe { gpu::load_u64_cache_all(p as *const u64) };
    }
    let end = gpu::clock64();
    unsafe { finish_chase(out, begin, end, p) };
}

/// As [`memory_chase_l1`], with loads that skip L1 and are served by L2
/// (or DRAM, when the chain is larger than L2).
#[kernel]
pub unsafe fn memory_chase_l2(start: u64, warmup: u32, steps: u32, out: *mut u64) {
    let mut p = start;
    for _ in 0..warmup {
        p = unsafe { gpu::load_u64_cache_global(p as *const u64) };
    }
    let begin = gpu::clock64();
    for _ in 0..steps {
        p = unsafe { gpu::load_u64_cache_global(p as *const u64) };
    }
    let end = gpu::clock64();
    unsafe { finish_chase(out, begin, end, p) };
}

/// The chase in shared memory: copies `slots` successor indices from
/// `next` into the tile as byte offsets, then follows them from slot 0
/// for `steps` timed steps. Launch with one thread and `slots * 4`
/// bytes of shared memory.
#[kernel]
pub unsafe fn memory_chase_shared(next: *const u32, slots: u32, steps: u32, out: *mut u64) {
    let tile = gpu::dynamic_shared::<u32>();
    for s in 0..slots {
        unsafe { *tile.add(s as usize) = *next.add(s as usize) * 4 };
    }
    let bytes = tile.cast::<u8>();
    let mut offset = 0u32;
    let begin = gpu::clock64();
    for _ in 0..steps {
        offset = unsafe { *bytes.add(offset as usize).cast::<u32>() };
    }
    let end = gpu::clock64();
    unsafe { finish_chase(out, begin, end, (offset / 4) as u64) };
}

/// `x = x * a + b`, `steps` × [`FMAS_PER_STEP`] times, each FMA waiting
/// for the one before: the latency of a register-to-register operation.
/// Writes the cycles and the final x (as bits) to `out`.
#[kernel]
pub unsafe fn memory_fma_chain(x: f32, a: f32, b: f32, steps: u32, out: *mut u64) {
    let mut x = x;
    let begin = gpu::clock64();
    for _ in 0..steps {
        for _ in 0..FMAS_PER_STEP {
            x = gpu::fma(x, a, b);
        }
    }
    let end = gpu::clock64();
    unsafe { finish_chase(out, begin, end, x.to_bits() as u64) };
}
