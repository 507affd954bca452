//! GEMM at small M on the tensor cores, the body of BF16 rung 18: the
//! small-M kernel's stream of B ([`crate::gemm::small_m`]), multiplied by
//! `mma.sync` instead of fp32 FMAs.
//!
//! At 2 to 16 rows of A the CUDA cores cannot keep up with DRAM: each bf16
//! value of B read (2 bytes) asks for M multiply-adds, and at M = 16 that
//! is 16 FMAs and an unpacking per 2 bytes, more than an SM's FMA units do
//! in the time its share of DRAM bandwidth delivers them. One
//! `mma.sync.m16n8k16` does 16 × 8 × 16 multiply-adds for 32 lanes: the
//! same rows take a few instructions per 16-byte load, and the kernel is a
//! stream again, as at M = 1.
//!
//! The load pattern is the one-row kernel's: a warp owns 64 neighbouring
//! columns of B, each thread 8 of them (one 16-byte load per row of B) and
//! 8 neighbouring rows of K at a time; a warp's 32 threads are 8 column
//! groups × 4 runs of rows, so one load instruction of the warp reads 128
//! bytes of each of 4 rows. A block's 4 warps take 64 columns and split
//! its share of K four ways, or, where 64-column blocks would be more than
//! the SMs hold at once, 128 columns in two pairs that split K two ways
//! ([`SmallMPlan::tensor`]). The warps that split K add their sums through
//! shared memory at the end, 4 rows of C at a time: with all 16 rows at
//! once (17 KB per block) the driver gave L1 less room beside shared
//! memory, and M = 1 on Llama-3-8B's gate_up and o took 60.2 and 15.4 µs
//! on the H200, against 59.5 and 14.8 by rounds (rung 8: 58.7, 14.8).
//!
//! The loads do not match the `mma` fragments, and no shuffle or shared
//! memory is needed to make them match. A fragment of B wants, in each
//! register, two values of K of one column; a 16-byte load holds 8 columns
//! of one row of K. Two things are free to choose:
//! - which rows of K an `mma` sums over. A dot product does not care in
//!   which order its terms come, as long as A's and B's agree: the 16
//!   "k" of a fragment are taken as the rows the 4 threads of a column
//!   group hold (thread `t` of the group: rows `8t..8t+8` of the warp's 32,
//!   its first 4 in one `mma`, its last 4 in the next). A's fragment then
//!   is 4 neighbouring values of a row of A: half of one 16-byte load;
//! - which columns of C an `mma` computes. Its 8 columns are taken as the
//!   `j`-th column of each of the warp's 8 column groups, for `j` = 0..7:
//!   8 `mma`s cover the warp's 64 columns, and each thread's B register is
//!   two halves of its own loads, put together by one byte permute.
//!
//! A thread's sums then are rows `g` and `g + 8` (`g` = lane / 4) of the 16
//! columns `16t..16t+16` of the block's 64 (`t` = lane % 4), in `mma`
//! order, which is where the warps' sums are written for the block to add
//! them.
//!
//! Edges: rows of A past M, columns of B past N and rows of K past the
//! block's share are zeros; where rows of A or B are not 16-byte aligned
//! (K or N not a multiple of 8) values are loaded one by one.

use super::small_m::{Sink, SmallMPlan, add_slices_if_last, block_coordinates, last_block_adds};
use crate::gpu::{self, FragmentC, load_f32x4, load_f32x4_streaming, mma_bf16};
use crate::launch::{Dim3, LaunchShape};

/// Threads per block: 4 warps.
pub const THREADS: u32 = 128;
/// Warps per block.
const WARPS: u32 = THREADS / gpu::WARP_SIZE;
/// Rows of A per block: an `mma` tile's.
pub const ROWS: u32 = 16;
/// Columns of B per warp: 8 column groups of 8.
pub const WARP_COLUMNS: u32 = 64;
/// Rows of K a warp takes per step: 4 threads × 8 rows.
pub const WARP_STEP: u32 = 32;
/// Rows of C the warps along K add up per round through shared memory.
const ROUND_ROWS: u32 = 4;

/// Columns of B per block with `column_warps` warps side by side along N
/// (1 or 2); the block's other warps split its share of K.
pub const fn block_columns(column_warps: u32) -> u32 {
    WARP_COLUMNS * column_warps
}

/// Rows of K the block takes per step: its share of K is a multiple of
/// this ([`SmallMPlan::tensor`]).
pub const fn block_step(column_warps: u32) -> u32 {
    WARP_STEP * (WARPS / column_warps)
}

/// Floats between rows of the sums in shared memory: the block's columns
/// and 4 of padding, so that the rows a warp writes at once fall in
/// different banks.
const fn sum_stride(column_warps: u32) -> u32 {
    block_columns(column_warps) + 4
}

/// Shared memory per block: one round's sums of every warp along K (the
/// last block's flag reuses its first word).
pub const fn shared_bytes(column_warps: u32) -> u32 {
    4 * (WARPS / column_warps) * ROUND_ROWS * sum_stride(column_warps)
}

/// Eight rows of B at this thread's 8 columns, as loaded: row `u` in
/// `words[u]`, two columns per word, the first in the low half.
type BRows = [[u32; 4]; 8];

/// Where this thread reads: its 8 columns of B (`col`) and its rows of A
/// (`g` and `g + 8` of the block's, `None` past M).
#[derive(Clone, Copy)]
struct Operands {
    a: *const u16,
    b: *const u16,
    k: u32,
    n: u32,
    col: u32,
    a_rows: [Option<u32>; 2],
}

impl Operands {
    /// Rows `kb..kb + 8` of B at the thread's columns, in 16-byte loads
    /// marked as read once; zeros past N.
    ///
    /// # Safety
    /// The rows must be rows of B, 16-byte aligned (N a multiple of 8).
    #[inline(always)]
    unsafe fn b_whole(&self, kb: u32) -> BRows {
        let mut words = [[0u32; 4]; 8];
        if self.col < self.n {
            let at = unsafe { self.b.add(kb as usize * self.n as usize + self.col as usize) };
            // Index loops: iterator adapters were not unrolled on the GPU.
            for u in 0..8 {
                words[u] = unsafe { load_f32x4_streaming(at.add(u * self.n as usize).cast::<f32>()) }.map(f32::to_bits);
            }
        }
        words
    }

    /// The same rows one value at a time, zeros past N and past `end`.
    ///
    /// # Safety
    /// `a`, `b` are `m`×`k` and `k`×`n`.
    #[inline(always)]
    unsafe fn b_values(&self, kb: u32, end: u32) -> BRows {
        let mut words = [[0u32; 4]; 8];
        for u in 0..8 {
            let row = kb + u as u32;
            for c in 0..8 {
                let col = self.col + c as u32;
                if row < end && col < self.n {
                    let bits = unsafe { gpu::load(self.b.add(row as usize * self.n as usize + col as usize)) } as u32;
                    words[u][c / 2] |= bits << (16 * (c % 2));
                }
            }
        }
        words
    }

    /// Values `kb..kb + 8` of this thread's two rows of A, in one 16-byte
    /// load each (kept in the caches); zeros past M.
    ///
    /// # Safety
    /// Rows of A 16-byte aligned (K a multiple of 8), `kb + 8 <= k`.
    #[inline(always)]
    unsafe fn a_whole(&self, kb: u32) -> [[u32; 4]; 2] {
        let mut words = [[0u32; 4]; 2];
        for i in 0..2 {
            if let Some(row) = self.a_rows[i] {
                let at = unsafe { self.a.add(row as usize * self.k as usize + kb as usize) };
                words[i] = unsafe { load_f32x4(at.cast::<f32>()) }.map(f32::to_bits);
            }
        }
        words
    }

    /// The same one value at a time, zeros past M and past `end`.
    ///
    /// # Safety
    /// As [`Operands::b_values`].
    #[inline(always)]
    unsafe fn a_values(&self, kb: u32, end: u32) -> [[u32; 4]; 2] {
        let mut words = [[0u32; 4]; 2];
        for i in 0..2 {
            if let Some(row) = self.a_rows[i] {
                for u in 0..8 {
                    if kb + (u as u32) < end {
                        let bits = unsafe { gpu::load(self.a.add(row as usize * self.k as usize + (kb + u as u32) as usize)) } as u32;
                        words[i][u / 2] |= bits << (16 * (u % 2));
                    }
                }
            }
        }
        words
    }
}

/// The bf16 values in the low halves (`high` false) or the high halves of
/// `first` and `second`, the first's in the low half: one column of two
/// neighbouring rows of B, as a B fragment register holds them.
#[inline(always)]
fn pair(first: u32, second: u32, high: bool) -> u32 {
    if high { (first >> 16) | (second & 0xffff_0000) } else { (first & 0xffff) | (second << 16) }
}

/// `acc += A·B` over this thread's 8 rows of K (two `mma` depths of 16
/// across the warp): `a` holds its rows `g` and `g + 8` of A at those
/// rows of K, `b` its 8 columns of B. `acc[j]` is the `mma` tile whose
/// columns are the `j`-th of each of the warp's column groups.
#[inline(always)]
fn multiply_add(acc: &mut [FragmentC; 8], a: [[u32; 4]; 2], b: BRows) {
    for half in 0..2 {
        // The thread's rows 4·half..4·half+4 are the fragment's k = 2t,
        // 2t+1 (first register) and 2t+8, 2t+9 (second).
        let fragment_a = [a[0][2 * half], a[1][2 * half], a[0][2 * half + 1], a[1][2 * half + 1]];
        let rows = [b[4 * half], b[4 * half + 1], b[4 * half + 2], b[4 * half + 3]];
        for j in 0..8 {
            let (word, high) = (j / 2, j % 2 == 1);
            let fragment_b = [pair(rows[0][word], rows[1][word], high), pair(rows[2][word], rows[3][word], high)];
            acc[j] = mma_bf16(fragment_a, fragment_b, acc[j]);
        }
    }
}

/// One block's share of `C = alpha·A·B + beta·C`: rows `16r..16r+16` of
/// A, [`block_columns`] columns of B, a slice `s` of K (`k_chunk` rows),
/// summed into `partial[s]`, an `m`×`n` slice of the workspace, or into C
/// itself when K is whole; where [`last_block_adds`], the tile's last
/// block then adds the slices into C, as the small-M kernel's do.
///
/// # Safety
/// `a` is `m`×`k`, `b` is `k`×`n` (16-byte aligned), `c` is `m`×`n`,
/// `partial` has one `m`×`n` slice per slice of K, `counters` one zero per
/// tile; `k_chunk` is a multiple of [`block_step`]; the grid is tiles ×
/// slices of [`THREADS`] threads with [`shared_bytes`] of shared memory.
#[inline(always)]
pub unsafe fn gemm<const COLUMN_WARPS: u32>(
    (m, n, k): (u32, u32, u32),
    (a, b): (*const u16, *const u16),
    (c, alpha, beta): (*mut f32, f32, f32),
    (partial, counters): (*mut f32, *mut u32),
    k_chunk: u32,
) {
    let thread = gpu::thread_idx().x;
    let (warp, lane) = (thread / gpu::WARP_SIZE, thread % gpu::WARP_SIZE);
    let (column_warp, k_warp) = (warp % COLUMN_WARPS, warp / COLUMN_WARPS);
    let (g, t) = (lane / 4, lane % 4);
    let width = block_columns(COLUMN_WARPS);
    let (row_groups, column_blocks) = (m.div_ceil(ROWS), n.div_ceil(width));
    let (row_group, column_block, split) = block_coordinates(row_groups, column_blocks);
    let (row0, col0) = (row_group * ROWS, column_block * width);
    let rows_of_a = (m - row0).min(ROWS);
    let row_of_a = |r: u32| if r < rows_of_a { Some(row0 + r) } else { None };
    let warp_col = WARP_COLUMNS * column_warp;
    let operands = Operands { a, b, k, n, col: col0 + warp_col + 8 * g, a_rows: [row_of_a(g), row_of_a(g + 8)] };
    let (first, end) = (split * k_chunk, k.min(split * k_chunk + k_chunk));
    let step = block_step(COLUMN_WARPS);
    // This thread's first row of K in each block step.
    let own = WARP_STEP * k_warp + 8 * t;
    let mut acc = [[0.0f32; 4]; 8];
    let mut base = first;
    // Every warp runs every step (an `mma` needs the whole warp); a
    // thread past N or M multiplies zeros.
    if n.is_multiple_of(8) && k.is_multiple_of(8) {
        while base + step <= end {
            let (b_rows, a_rows) = unsafe { (operands.b_whole(base + own), operands.a_whole(base + own)) };
            multiply_add(&mut acc, a_rows, b_rows);
            base += step;
        }
        // The last, partial step: `end` and `own` are multiples of 8, so a
        // thread's 8 rows are all inside or all past it. (Loaded one value
        // at a time, it made Falcon-7B's o at M = 1, K = 4544, 5 µs
        // slower.)
        if base < end {
            let inside = base + own < end;
            let (b_rows, a_rows) =
                if inside { unsafe { (operands.b_whole(base + own), operands.a_whole(base + own)) } } else { ([[0; 4]; 8], [[0; 4]; 2]) };
            multiply_add(&mut acc, a_rows, b_rows);
        }
    } else {
        while base < end {
            let (b_rows, a_rows) = unsafe { (operands.b_values(base + own, end), operands.a_values(base + own, end)) };
            multiply_add(&mut acc, a_rows, b_rows);
            base += step;
        }
    }
    let splits = k.div_ceil(k_chunk);
    // With K whole the block's sums are C's.
    let sink = if splits == 1 {
        Sink { at: c, scale: Some((alpha, beta)) }
    } else {
        Sink { at: unsafe { partial.add(split as usize * m as usize * n as usize) }, scale: None }
    };
    unsafe { add_k_warps::<COLUMN_WARPS>(&acc, (k_warp, warp_col), (row0, rows_of_a), (col0, n), sink) };
    if splits > 1 && last_block_adds(splits, ROWS, width) {
        let counter = unsafe { counters.add((column_block * row_groups + row_group) as usize) };
        let tile = ((row0, rows_of_a), (col0, width.min(n - col0)));
        unsafe { add_slices_if_last((m, n), tile, (partial, splits), counter, (c, alpha, beta)) };
    }
}

/// Adds the sums of the warps along K (`acc` of every thread) into `sink`,
/// the first warp's first, [`ROUND_ROWS`] rows of C at a time through shared memory. A
/// thread's sums are rows `g` and `g + 8`, columns `16t..16t+16` of its
/// warp's ([`multiply_add`]'s order): in round `q` the threads whose row
/// falls in it write it.
///
/// # Safety
/// Shared memory holds [`shared_bytes`]; every thread of the block calls
/// it.
#[inline(always)]
unsafe fn add_k_warps<const COLUMN_WARPS: u32>(
    acc: &[FragmentC; 8],
    (k_warp, warp_col): (u32, u32),
    (row0, rows_of_a): (u32, u32),
    (col0, n): (u32, u32),
    sink: Sink,
) {
    let thread = gpu::thread_idx().x;
    let (g, t) = ((thread % gpu::WARP_SIZE) / 4, thread % 4);
    let width = block_columns(COLUMN_WARPS);
    let stride = sum_stride(COLUMN_WARPS);
    let k_warps = WARPS / COLUMN_WARPS;
    let shared = gpu::dynamic_shared::<f32>();
    // Rounds past the rows of A are skipped (the same for the whole block).
    let rounds = rows_of_a.div_ceil(ROUND_ROWS);
    for round in 0..rounds {
        // Rows 4q..4q+4: the threads with g / 4 == q % 2, their row g in
        // the first two rounds, g + 8 in the last two.
        if g / ROUND_ROWS == round % 2 {
            let at = unsafe { shared.add(((k_warp * ROUND_ROWS + g % ROUND_ROWS) * stride + warp_col + 16 * t) as usize) };
            for j in 0..8 {
                // A branch, not an index: a fragment indexed by a value
                // known only at run time goes to local memory.
                let (left, right) = if round < 2 { (acc[j][0], acc[j][1]) } else { (acc[j][2], acc[j][3]) };
                unsafe {
                    gpu::store(at.add(j), left);
                    gpu::store(at.add(j + 8), right);
                }
            }
        }
        gpu::sync_threads();
        let mut out = thread;
        while out < ROUND_ROWS * width {
            let (r, col) = (out / width, out % width);
            let row = round * ROUND_ROWS + r;
            if row < rows_of_a && col0 + col < n {
                let mut sum = 0.0f32;
                for w in 0..k_warps {
                    sum += unsafe { gpu::load(shared.add(((w * ROUND_ROWS + r) * stride + col) as usize)) };
                }
                unsafe { sink.put((row0 + row) as usize * n as usize + (col0 + col) as usize, sum) };
            }
            out += THREADS;
        }
        gpu::sync_threads();
    }
}

/// Warps side by side along N in `plan`'s blocks (1 or 2): which entry
/// of BF16 rung 18 runs it.
pub const fn column_warps(plan: &SmallMPlan) -> u32 {
    plan.block_columns() / WARP_COLUMNS
}

/// Grid and block of the kernel on `plan` ([`SmallMPlan::tensor`]).
pub const fn launch(plan: &SmallMPlan, m: u32, n: u32) -> LaunchShape {
    LaunchShape {
        grid: Dim3::new(plan.tiles(m, n) * plan.splits, 1, 1),
        block: Dim3::new(THREADS, 1, 1),
        shared_bytes: shared_bytes(column_warps(plan)),
    }
}
