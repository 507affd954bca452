//! Rows of whole 16 bytes: what lets the Hopper rungs take any K and N.
//!
//! A tensor map's rows must start 16 bytes apart, so TMA cannot read a
//! BF16 matrix whose rows hold a number of values that is not a multiple
//! of 8 (K = 4097 puts row 1 at byte 8194). [`pad_rows_bf16`] copies such
//! a matrix into a wider buffer, each row rounded up to whole 16 bytes,
//! and fills the added columns (and any added rows) with zeros: zeros in
//! A's extra columns and B's extra rows add nothing to the sums, so a GEMM
//! over the padded copies computes the same C, with extra columns that
//! [`crop_rows_f32`] leaves behind when it copies C back.
//!
//! Both are plain streaming copies in which neighbouring threads take
//! neighbouring chunks, so that every warp's accesses cover whole lines:
//! 16 bytes of a padded row per chunk (one vector store, the values read
//! one by one, as the source rows may start at any 2-byte address), and
//! one value of C.

use crate::gpu::{self, store_f32x4};
use crate::launch::{Dim3, LaunchShape};
use kernels_macros::kernel;

/// Threads per block of both copies.
pub const PADDING_THREADS: u32 = 256;

/// The most blocks a copy launches: 1024 blocks of 256 threads fill 128
/// SMs of 2048 threads. Each thread takes every `blocks ×
/// PADDING_THREADS`-th chunk after its first, so that its two divisions
/// (where its first chunk lies) are paid once for many chunks: with a
/// thread per chunk, C of 4097³ took 80 µs to crop on the H200.
pub const PADDING_MAX_BLOCKS: u32 = 1024;

/// BF16 values per chunk of [`pad_rows_bf16`]: one 16-byte store.
pub const PAD_VALUES: u32 = 8;

/// Grid and block of a copy of `chunks` chunks (16 bytes of a padded row,
/// or one value of C): one thread per chunk, up to [`PADDING_MAX_BLOCKS`]
/// blocks.
const fn padding_launch(chunks: u64) -> LaunchShape {
    let blocks = chunks.div_ceil(PADDING_THREADS as u64);
    let blocks = if blocks < 1 {
        1
    } else if blocks > PADDING_MAX_BLOCKS as u64 {
        PADDING_MAX_BLOCKS
    } else {
        blocks as u32
    };
    LaunchShape { grid: Dim3::new(blocks, 1, 1), block: Dim3::new(PADDING_THREADS, 1, 1), shared_bytes: 0 }
}

/// Launch of [`pad_rows_bf16`] into `wide_rows` rows of `wide_cols`.
pub const fn pad_launch(wide_rows: u32, wide_cols: u32) -> LaunchShape {
    padding_launch(wide_rows as u64 * wide_cols.div_ceil(PAD_VALUES) as u64)
}

/// Launch of [`crop_rows_f32`] into `rows` rows of `cols`.
pub const fn crop_launch(rows: u32, cols: u32) -> LaunchShape {
    padding_launch(rows as u64 * cols as u64)
}

/// The chunks one thread takes in a matrix of `rows` rows of
/// `per_row` chunks, numbered row by row: neighbouring threads take
/// neighbouring chunks of a row (a narrow matrix, 64 columns or 8 chunks
/// a row, still keeps every thread of a block busy), and each thread
/// takes every `blocks × threads`-th chunk after its first. Yields (row,
/// chunk in the row); the position moves by adding, so a thread divides
/// only twice.
struct Chunks {
    row: u64,
    chunk: u64,
    rows: u64,
    per_row: u64,
    step_rows: u64,
    step_chunks: u64,
}

impl Chunks {
    fn of_this_thread(rows: u32, per_row: u32) -> Chunks {
        let threads = gpu::block_dim().x as u64;
        let first = gpu::block_idx().x as u64 * threads + gpu::thread_idx().x as u64;
        let step = gpu::grid_dim().x as u64 * threads;
        let per_row = per_row as u64;
        Chunks {
            row: first / per_row,
            chunk: first % per_row,
            rows: rows as u64,
            per_row,
            step_rows: step / per_row,
            step_chunks: step % per_row,
        }
    }
}

impl Iterator for Chunks {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.row >= self.rows {
            return None;
        }
        let here = (self.row, self.chunk);
        self.chunk += self.step_chunks;
        self.row += self.step_rows;
        if self.chunk >= self.per_row {
            self.chunk -= self.per_row;
            self.row += 1;
        }
        Some(here)
    }
}

/// `wide[r][c] = from[r][c]` for `r < rows`, `c < cols`, and 0 elsewhere
/// in `wide_rows` × `wide_cols`: a `rows` × `cols` matrix of BF16 bit
/// patterns (rows `cols` values apart) into a zero-padded one whose rows
/// are whole 16 bytes. `wide_cols` must be a multiple of [`PAD_VALUES`]
/// and `wide` 16-byte aligned. Shape: [`pad_launch`].
#[kernel]
pub unsafe fn pad_rows_bf16(from: *const u16, rows: u32, cols: u32, wide: *mut u16, wide_rows: u32, wide_cols: u32) {
    for (row, chunk) in Chunks::of_this_thread(wide_rows, wide_cols / PAD_VALUES) {
        let first = chunk * PAD_VALUES as u64;
        let value = |i: u64| {
            let col = first + i;
            if row < rows as u64 && col < cols as u64 { unsafe { gpu::load(from.add((row * cols as u64 + col) as usize)) } } else { 0 }
        };
        // Two BF16 values per 32-bit word, the lower address in the lower
        // half (little-endian, as the tensor cores read them).
        let words: [f32; 4] = core::array::from_fn(|w| f32::from_bits(value(2 * w as u64) as u32 | (value(2 * w as u64 + 1) as u32) << 16));
        unsafe { store_f32x4(wide.add((row * wide_cols as u64 + first) as usize).cast(), words) };
    }
}

/// `to[r][c] = wide[r][c]` for `r < rows`, `c < cols`: the first `cols`
/// columns of a `rows` × `wide_cols` fp32 matrix (C computed over padded
/// rows) into one whose rows are `cols` values apart. One value per
/// chunk: `to`'s rows may start at any 4-byte address, and a warp's 32
/// neighbouring values are then one 128-byte store (four values per
/// chunk, one 16-byte load each, left every store a quarter of a line:
/// 101 µs for C of 4097³ on the H200). Shape: [`crop_launch`].
#[kernel]
pub unsafe fn crop_rows_f32(wide: *const f32, wide_cols: u32, to: *mut f32, rows: u32, cols: u32) {
    for (row, col) in Chunks::of_this_thread(rows, cols) {
        let value = unsafe { gpu::load(wide.add((row * wide_cols as u64 + col) as usize)) };
        unsafe { gpu::store(to.add((row * cols as u64 + col) as usize), value) };
    }
}
