//! The `cp.async` pipeline of SGEMM rungs 10 and 11 and BF16 rung 1: a
//! [`CopyRing`] of stages in shared memory that copies fill
//! `stages - 1` steps ahead of the math, and [`copy_tile`], which copies an
//! fp32 tile from global memory in 16-byte pieces with the edges
//! zero-filled. (Rung 10 keeps its own tile copier: it transposes A with
//! 4-byte copies. BF16 rung 1 has its own for 2-byte elements.)

use crate::gpu::{self, cp_async_4, cp_async_16, cp_async_commit, cp_async_wait};

/// `stages` buffers of `stage_len` elements each in shared memory, filled
/// by `cp.async` copies running ahead of the math. Step `i` (of `steps`)
/// lives in stage `i % stages`. Every thread commits one group of copies
/// per step, even an empty one, so that "step `i` has landed" is "at most
/// `stages - 2` newer groups are pending" in every thread.
#[derive(Clone, Copy)]
pub struct CopyRing<T> {
    first: *mut T,
    stage_len: u32,
    stages: u32,
    steps: u32,
}

impl<T> CopyRing<T> {
    /// The ring whose first stage starts at `first`, for `steps` steps.
    pub const fn new(first: *mut T, stage_len: u32, stages: u32, steps: u32) -> Self {
        CopyRing { first, stage_len, stages, steps }
    }

    /// Where stage `s` starts.
    #[inline(always)]
    pub fn stage(&self, s: u32) -> *mut T {
        unsafe { self.first.add((s * self.stage_len) as usize) }
    }

    /// The prologue: starts the copies of the first `stages - 1` steps.
    /// `copy(s, step)` starts this thread's copies of `step` into stage `s`
    /// (at [`CopyRing::stage`]`(s)`).
    ///
    /// # Safety
    /// The ring's stages are shared memory; every thread of the block calls it.
    #[inline(always)]
    pub unsafe fn start(&self, copy: impl Fn(u32, u32)) {
        for s in 0..self.stages - 1 {
            if s < self.steps {
                copy(s, s);
            }
            cp_async_commit();
        }
    }

    /// Waits until step `step` has landed, for every thread (the barrier
    /// makes every thread's copies visible, and guarantees every warp has
    /// finished step `step - 1`, whose stage the next copies overwrite);
    /// starts the copies of step `step + stages - 1`; returns where step
    /// `step` is.
    ///
    /// # Safety
    /// As [`CopyRing::start`], for `step` = 0, 1, 2, ... in order.
    #[inline(always)]
    pub unsafe fn advance(&self, step: u32, copy: impl Fn(u32, u32)) -> *mut T {
        cp_async_wait_for(self.stages);
        gpu::sync_threads();
        let next = step + self.stages - 1;
        if next < self.steps {
            copy(next % self.stages, next);
        }
        cp_async_commit();
        self.stage(step % self.stages)
    }
}

/// Copies `cols` floats of `rows` rows, 4 at a time, from `src` (a
/// `src_rows`×`src_cols` row-major matrix, starting at (`row0`, `col0`)) to
/// `dst` (row stride `dst_stride`). Outside the matrix copies read nothing
/// and leave zeros. `interior`: the whole tile lies inside the matrix and
/// its rows are 16-byte aligned, so no copy needs a check.
///
/// # Safety
/// `dst` must hold `rows` rows of `dst_stride` floats of shared memory, and
/// `src` a `src_rows`×`src_cols` row-major matrix.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn copy_tile(
    dst: *mut f32,
    dst_stride: u32,
    (rows, cols): (u32, u32),
    src: *const f32,
    (src_rows, src_cols): (u32, u32),
    (row0, col0): (u32, u32),
    (thread, threads): (u32, u32),
    interior: bool,
) {
    let quads = cols / 4;
    for i in 0..rows * quads / threads {
        let q = thread + i * threads;
        let (r, c) = (q / quads, (q % quads) * 4);
        let d = unsafe { dst.add((r * dst_stride + c) as usize) };
        let (gr, gc) = (row0 + r, col0 + c);
        let at = |col: u32| unsafe { src.add(gr as usize * src_cols as usize + col as usize) };
        if interior {
            unsafe { cp_async_16(d, at(gc), 16) };
        } else if src_cols % 4 == 0 {
            let valid = if gr < src_rows && gc < src_cols { (src_cols - gc).min(4) } else { 0 };
            unsafe { cp_async_16(d, if valid > 0 { at(gc) } else { src }, valid * 4) };
        } else {
            // Rows are not 16-byte aligned: four 4-byte copies.
            for j in 0..4 {
                let inside = gr < src_rows && gc + j < src_cols;
                unsafe { cp_async_4(d.add(j as usize), if inside { at(gc + j) } else { src }, if inside { 4 } else { 0 }) };
            }
        }
    }
}

/// `cp.async.wait_group stages-2`: the PTX instruction takes a constant.
#[inline(always)]
pub fn cp_async_wait_for(stages: u32) {
    match stages {
        2 => cp_async_wait::<0>(),
        3 => cp_async_wait::<1>(),
        4 => cp_async_wait::<2>(),
        5 => cp_async_wait::<3>(),
        _ => unreachable!(),
    }
}
