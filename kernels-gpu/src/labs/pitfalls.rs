//! Pitfalls: bugs a GPU does not report. Each broken kernel here has a
//! fixed twin; `ptx-ladder pitfalls` runs both on the CPU emulator, whose
//! checkers name what went wrong. The broken kernels are in the PTX module
//! so their code can be read there, but the host never launches them on a
//! GPU: there they hang, or silently compute garbage.
//!
//! Memory is read and written through [`gpu::load`] and [`gpu::store`]
//! (plain `ld`/`st` on the GPU) so the emulator sees every access.

use crate::gpu::{self, load, store};
use kernels_macros::kernel;

/// Threads per block of every pitfall kernel.
pub const THREADS: u32 = 128;

pub const TREE_BARRIER_IN_BRANCH: &str = PITFALL_TREE_BARRIER_IN_BRANCH.name();
pub const TREE_MISSING_BARRIER: &str = PITFALL_TREE_MISSING_BARRIER.name();
pub const TREE_SUM: &str = PITFALL_TREE_SUM.name();
pub const REVERSE_EARLY_RETURN: &str = PITFALL_REVERSE_EARLY_RETURN.name();
pub const REVERSE_MISSING_BARRIER: &str = PITFALL_REVERSE_MISSING_BARRIER.name();
pub const REVERSE: &str = PITFALL_REVERSE.name();
pub const ADD_UNMASKED: &str = PITFALL_ADD_UNMASKED.name();
pub const ADD_MASKED: &str = PITFALL_ADD_MASKED.name();
pub const WAIT_FOR_NEXT_BLOCK: &str = PITFALL_WAIT_FOR_NEXT_BLOCK.name();
pub const SET_FLAG: &str = PITFALL_SET_FLAG.name();
pub const READ_FLAG: &str = PITFALL_READ_FLAG.name();

/// `src[i]` of this thread, or 0 past `n`.
#[inline(always)]
unsafe fn element_or_zero(src: *const f32, n: u32) -> f32 {
    let i = gpu::global_x();
    if i < n { unsafe { load(src.add(i as usize)) } } else { 0.0 }
}

/// Each thread puts its element (0 past `n`) into the block's shared tile.
#[inline(always)]
unsafe fn stage(src: *const f32, n: u32) -> *mut f32 {
    let tile = gpu::dynamic_shared::<f32>();
    unsafe { store(tile.add(gpu::thread_idx().x as usize), element_or_zero(src, n)) };
    tile
}

/// One step of the tree: `partial[t] += partial[t + active]`.
#[inline(always)]
unsafe fn add_upper_half(partial: *mut f32, t: u32, active: u32) {
    unsafe {
        let upper = load(partial.add((t + active) as usize));
        store(partial.add(t as usize), load(partial.add(t as usize)) + upper);
    }
}

/// Thread 0 writes the block's sum to `dst[blockIdx.x]`.
#[inline(always)]
unsafe fn publish_sum(partial: *const f32, dst: *mut f32) {
    if gpu::thread_idx().x == 0 {
        unsafe { store(dst.add(gpu::block_idx().x as usize), load(partial)) };
    }
}

/// BROKEN: the barrier sits inside `if t < active`, so at the first step
/// only half of the block reaches it; the other half runs on and exits.
/// Launch with `THREADS` threads and `THREADS` floats of shared memory.
#[kernel]
pub unsafe fn pitfall_tree_barrier_in_branch(src: *const f32, dst: *mut f32, n: u32) {
    let partial = unsafe { stage(src, n) };
    gpu::sync_threads();
    let t = gpu::thread_idx().x;
    let mut active = THREADS / 2;
    while active > 0 {
        if t < active {
            unsafe { add_upper_half(partial, t, active) };
            gpu::sync_threads();
        }
        active /= 2;
    }
    unsafe { publish_sum(partial, dst) };
}

/// BROKEN: no barrier between the steps of the tree, so a thread may
/// read `partial[t + active]` before its owner has added into it.
#[kernel]
pub unsafe fn pitfall_tree_missing_barrier(src: *const f32, dst: *mut f32, n: u32) {
    let partial = unsafe { stage(src, n) };
    gpu::sync_threads();
    let t = gpu::thread_idx().x;
    let mut active = THREADS / 2;
    while active > 0 {
        if t < active {
            unsafe { add_upper_half(partial, t, active) };
        }
        active /= 2;
    }
    unsafe { publish_sum(partial, dst) };
}

/// FIXED: one barrier per step, outside the `if`, reached by every
/// thread. Writes the sum of the block's `THREADS` elements of `src`
/// (0 past `n`) to `dst[blockIdx.x]`.
#[kernel]
pub unsafe fn pitfall_tree_sum(src: *const f32, dst: *mut f32, n: u32) {
    let partial = unsafe { stage(src, n) };
    gpu::sync_threads();
    let t = gpu::thread_idx().x;
    let mut active = THREADS / 2;
    while active > 0 {
        if t < active {
            unsafe { add_upper_half(partial, t, active) };
        }
        gpu::sync_threads();
        active /= 2;
    }
    unsafe { publish_sum(partial, dst) };
}

/// Thread t of a block writes element `THREADS - 1 - t` of the block's
/// tile to its own place in `dst` (if inside `n`).
#[inline(always)]
unsafe fn write_reversed(tile: *const f32, dst: *mut f32, n: u32) {
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    if i < n {
        unsafe { store(dst.add(i as usize), load(tile.add((THREADS - 1 - t) as usize))) };
    }
}

/// BROKEN: threads past `n` return before the barrier the others wait
/// at (only in the last block, when `n` is not a multiple of `THREADS`).
#[kernel]
pub unsafe fn pitfall_reverse_early_return(src: *const f32, dst: *mut f32, n: u32) {
    if gpu::global_x() >= n {
        return;
    }
    let tile = unsafe { stage(src, n) };
    gpu::sync_threads();
    unsafe { write_reversed(tile, dst, n) };
}

/// BROKEN: a thread reads its partner's element of the tile without
/// waiting until the partner has stored it.
#[kernel]
pub unsafe fn pitfall_reverse_missing_barrier(src: *const f32, dst: *mut f32, n: u32) {
    let tile = unsafe { stage(src, n) };
    unsafe { write_reversed(tile, dst, n) };
}

/// FIXED: every thread stores (0 past `n`), all meet at the barrier,
/// and only the write is masked. Reverses each block's `THREADS`
/// elements: `dst[i] = tile[THREADS - 1 - t]`, 0 where that lies past `n`.
#[kernel]
pub unsafe fn pitfall_reverse(src: *const f32, dst: *mut f32, n: u32) {
    let tile = unsafe { stage(src, n) };
    gpu::sync_threads();
    unsafe { write_reversed(tile, dst, n) };
}

/// BROKEN: the grid is rounded up to whole blocks, and without the
/// `i < n` mask the extra threads read and write past the arrays.
#[kernel]
pub unsafe fn pitfall_add_unmasked(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
    let _ = n;
    let i = gpu::global_x() as usize;
    unsafe { store(c.add(i), load(a.add(i)) + load(b.add(i))) };
}

/// FIXED: `c[i] = a[i] + b[i]` only for `i < n`.
#[kernel]
pub unsafe fn pitfall_add_masked(a: *const f32, b: *const f32, c: *mut f32, n: u32) {
    let i = gpu::global_x();
    if i < n {
        let i = i as usize;
        unsafe { store(c.add(i), load(a.add(i)) + load(b.add(i))) };
    }
}

/// BROKEN (never launched on a GPU): block 0 spins until block 1 sets
/// `*flag`. Nothing promises that block 1 runs while block 0 spins,
/// or at all before block 0 ends. The spin gives up after `max_spins`
/// reads so the emulator (which runs block 0 to its end first) cannot
/// hang; `out[0]` gets the flag's last value, `out[1]` the reads made.
#[kernel]
pub unsafe fn pitfall_wait_for_next_block(flag: *mut u32, out: *mut u32, max_spins: u32) {
    if gpu::thread_idx().x != 0 {
        return;
    }
    match gpu::block_idx().x {
        0 => {
            let mut spins = 0;
            let mut seen = unsafe { flag.read_volatile() };
            while seen == 0 && spins < max_spins {
                seen = unsafe { flag.read_volatile() };
                spins += 1;
            }
            unsafe {
                out.write_volatile(seen);
                out.add(1).write_volatile(spins);
            }
        }
        1 => unsafe { flag.write_volatile(1) },
        _ => {}
    }
}

/// FIXED, first launch: sets `*flag`. The end of a launch is the only
/// point every block of it has passed.
#[kernel]
pub unsafe fn pitfall_set_flag(flag: *mut u32) {
    if gpu::global_x() == 0 {
        unsafe { store(flag, 1u32) };
    }
}

/// FIXED, second launch (same stream): reads `*flag` into `out[0]`,
/// with no waiting; the stream ran the first launch to its end.
#[kernel]
pub unsafe fn pitfall_read_flag(flag: *const u32, out: *mut u32) {
    if gpu::global_x() == 0 {
        unsafe { store(out, load(flag)) };
    }
}
