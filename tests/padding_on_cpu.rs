//! The padding copies on the CPU emulator, with the checkers on: a BF16
//! matrix into rows of whole 16 bytes (zeros in the added columns and
//! rows), and fp32 C back out of such rows, at sizes that end inside a
//! thread's 16 bytes and past one block of threads, with one thread per
//! chunk and with a small grid whose threads take several chunks.

use kernels_gpu::gemm::padding::{self, PAD_VALUES};
use kernels_gpu::launch::{Dim3, LaunchShape};
use ptx_ladder::emulator::{self, AlignedBuffer, Checks};

/// Runs one launch with every buffer declared; any finding fails the test.
fn run(name: &str, shape: LaunchShape, buffers: &[(&str, usize, usize)], body: impl Fn()) {
    let checks = buffers.iter().fold(Checks::new(name), |c, &(what, start, bytes)| c.buffer(what, start as *const u8, bytes));
    let report = unsafe { emulator::launch_checked(shape, &checks, body) }.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.is_clean(), "{name}: {report}");
}

/// Sizes (rows, cols) of the unpadded side.
const SIZES: &[(u32, u32)] = &[(1, 1), (3, 7), (2, 8), (5, 9), (17, 2049), (9, 15)];

/// A launch like the kernel's own, but of at most `blocks` blocks of 32
/// threads, so that each thread also takes several chunks.
fn with_blocks(shape: LaunchShape, blocks: u32) -> LaunchShape {
    if blocks == u32::MAX {
        shape
    } else {
        LaunchShape { grid: Dim3::new(shape.grid.x.min(blocks), 1, 1), block: Dim3::new(32, 1, 1), ..shape }
    }
}

#[test]
fn bf16_rows_are_padded_with_zeros() {
    for &(rows, cols) in SIZES {
        for (extra_rows, blocks) in [(0, u32::MAX), (3, 2)] {
            let wide_cols = cols.next_multiple_of(PAD_VALUES);
            let wide_rows = rows + extra_rows;
            let from: Vec<u16> = (0..rows * cols).map(|i| (i.wrapping_mul(2_654_435_761) >> 16) as u16 | 1).collect();
            let mut wide = AlignedBuffer::from_slice(&vec![f32::NAN; (wide_rows * wide_cols).div_ceil(2) as usize]);
            let (f, w) = (from.as_ptr() as usize, wide.as_mut_ptr() as usize);
            let shape = with_blocks(padding::pad_launch(wide_rows, wide_cols), blocks);
            let buffers = [("from", f, 2 * from.len()), ("wide", w, 2 * (wide_rows * wide_cols) as usize)];
            run("pad_rows_bf16", shape, &buffers, || unsafe {
                padding::pad_rows_bf16(f as *const u16, rows, cols, w as *mut u16, wide_rows, wide_cols)
            });
            let got = unsafe { std::slice::from_raw_parts(w as *const u16, (wide_rows * wide_cols) as usize) };
            for r in 0..wide_rows {
                for c in 0..wide_cols {
                    let expected = if r < rows && c < cols { from[(r * cols + c) as usize] } else { 0 };
                    assert_eq!(got[(r * wide_cols + c) as usize], expected, "{rows}x{cols} into {wide_rows}x{wide_cols} at ({r}, {c})");
                }
            }
        }
    }
}

#[test]
fn fp32_rows_are_cropped() {
    for &(rows, cols) in SIZES {
        for blocks in [u32::MAX, 1] {
            let wide_cols = cols.next_multiple_of(4);
            let wide = AlignedBuffer::from_slice(&(0..rows * wide_cols).map(|i| i as f32 + 0.5).collect::<Vec<_>>());
            let mut to = vec![f32::NAN; (rows * cols) as usize];
            let (w, t) = (wide.as_ptr() as usize, to.as_mut_ptr() as usize);
            let shape = with_blocks(padding::crop_launch(rows, cols), blocks);
            let buffers = [("wide", w, 4 * (rows * wide_cols) as usize), ("to", t, 4 * to.len())];
            run("crop_rows_f32", shape, &buffers, || unsafe {
                padding::crop_rows_f32(w as *const f32, wide_cols, t as *mut f32, rows, cols)
            });
            for r in 0..rows {
                for c in 0..cols {
                    assert_eq!(to[(r * cols + c) as usize], (r * wide_cols + c) as f32 + 0.5, "{rows}x{cols} at ({r}, {c})");
                }
            }
        }
    }
}
