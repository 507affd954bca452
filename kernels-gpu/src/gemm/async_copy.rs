//! The `cp.async` pipeline's building blocks: copying a tile from global
//! to shared memory in 16-byte pieces with the edges zero-filled, and
//! waiting for a stage to land. Rung 11 uses both; rung 10 keeps its own
//! copier (it transposes A with 4-byte copies, and its B copy is kept in
//! the form that was measured).

use crate::gpu::{cp_async_4, cp_async_16, cp_async_wait};

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
