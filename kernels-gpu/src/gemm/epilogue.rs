//! Writing results: `C = alpha * acc + beta * C`, with the BLAS rule that
//! C is not read when beta is zero.

use crate::gpu::{load, load_f32x4, store, store_f32x4};

/// One element of C at flat index `index`.
///
/// # Safety
/// `c.add(index)` must be in bounds.
#[inline(always)]
pub unsafe fn store_scalar(c: *mut f32, index: usize, alpha: f32, acc: f32, beta: f32) {
    unsafe {
        let out = c.add(index);
        let value = if beta == 0.0 { alpha * acc } else { alpha * acc + beta * load(out) };
        store(out, value);
    }
}

/// Four consecutive elements of row `row` starting at column `col`: one
/// 128-bit access when the row is 16-byte aligned (`n % 4 == 0`) and all four
/// are inside the matrix, otherwise element by element with masking.
///
/// # Safety
/// `row < m` and `c` must be an `m`×`n` row-major matrix.
#[inline(always)]
pub unsafe fn store_row4(c: *mut f32, n: u32, row: u32, col: u32, alpha: f32, acc: [f32; 4], beta: f32) {
    let base = row as usize * n as usize + col as usize;
    unsafe {
        if n % 4 == 0 && col + 4 <= n {
            let ptr = c.add(base);
            let mut out = [0.0; 4];
            let old = if beta == 0.0 { [0.0; 4] } else { load_f32x4(ptr) };
            for i in 0..4 {
                out[i] = alpha * acc[i] + beta * old[i];
            }
            store_f32x4(ptr, out);
        } else {
            for i in 0..4 {
                if col + (i as u32) < n {
                    store_scalar(c, base + i, alpha, acc[i], beta);
                }
            }
        }
    }
}
