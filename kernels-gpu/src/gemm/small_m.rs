//! GEMM at small M, the body of SGEMM rung 13 and BF16 rung 8: stream B
//! once, at the speed of memory.
//!
//! When A has a handful of rows (a model decoding one token per sequence:
//! M = 1 to 16), each element of B is used only M times. At M = 1 that is
//! two FLOPs per element of B read, far below any GPU's ridge point (the
//! FLOPs it can do per byte it can read): the kernel is a memory copy with
//! some arithmetic, and its speed limit is DRAM bandwidth. A tensor-core
//! tile of 128 rows would compute 127 rows of zeros; fp32 FMAs on the
//! CUDA cores are enough, and exact to fp32.
//!
//! What matters is then what a copy kernel needs:
//! - coalesced, wide loads: each thread owns 8 neighbouring columns and
//!   reads them from a row of B with 16-byte loads, so a warp reads 256
//!   (bf16: 512-byte) runs of one row;
//! - enough bytes in flight (Little's law: bandwidth × latency, tens of
//!   KB per SM): each thread issues the loads of 8 rows of B before it
//!   uses any of them, and reads the 8 matching values of each row of A
//!   with one 16-byte load;
//! - enough blocks: with few columns (N = 4096 is 4 blocks of 1024 columns)
//!   most SMs would idle, so K is split too (split-K): block `y` of the
//!   grid sums its own `k_chunk` rows of B into a partial C in a workspace,
//!   and [`sum_slices`](crate::gemm::split_k::sum_slices) adds the partials in a fixed order, so the same
//!   inputs give the same bits on every run.
//!
//! A row of A is read by all threads of the block at once: one broadcast
//! load per warp, served by L1 after the first.
//!
//! Rows of A beyond a block's 1, 8 or 16 go to further blocks along z,
//! each reading B again: the kernel is meant for M up to a few times 16;
//! past that the tensor-core rungs win.

use crate::gpu::{self, load_f32x4, store_f32x4};
use crate::launch::{Dim3, LaunchShape};

/// Threads per block.
pub const THREADS: u32 = 128;
/// Neighbouring columns of C (and B) per thread: one 16-byte load of bf16,
/// two of fp32.
pub const COLS: usize = 8;
/// Neighbouring rows of B (and values of each row of A) a k-lane takes
/// per step: as many as one 16-byte load holds of bf16.
pub const STEP: usize = COLS;

/// A block's share of K is a multiple of this times its k-lanes.
pub const K_GRANULE: u32 = STEP as u32;

/// An element type of A and B, as the kernel reads it: bf16 (as its bits,
/// `u16`) or fp32.
pub trait Element: Copy {
    /// `p[0..8]` as fp32; `p` is 16-byte aligned.
    ///
    /// # Safety
    /// `p..p+8` must be readable.
    unsafe fn load8(p: *const Self) -> [f32; COLS];

    /// `*p` as fp32.
    ///
    /// # Safety
    /// `p` must be readable.
    unsafe fn load1(p: *const Self) -> f32;
}

impl Element for f32 {
    #[inline(always)]
    unsafe fn load8(p: *const f32) -> [f32; COLS] {
        let (low, high) = unsafe { (load_f32x4(p), load_f32x4(p.add(4))) };
        [low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3]]
    }

    #[inline(always)]
    unsafe fn load1(p: *const f32) -> f32 {
        unsafe { gpu::load(p) }
    }
}

impl Element for u16 {
    /// Eight bf16 values in one 16-byte load (read as four 32-bit words,
    /// two values each, the first in the low half).
    #[inline(always)]
    unsafe fn load8(p: *const u16) -> [f32; COLS] {
        let words = unsafe { load_f32x4(p.cast::<f32>()) };
        let mut out = [0.0; COLS];
        // Index loops, not iterator adapters: those were not unrolled on
        // the GPU and put the arrays in local memory.
        for i in 0..4 {
            let word = words[i].to_bits();
            out[2 * i] = f32::from_bits(word << 16);
            out[2 * i + 1] = f32::from_bits(word & 0xffff_0000);
        }
        out
    }

    #[inline(always)]
    unsafe fn load1(p: *const u16) -> f32 {
        gpu::bf16_to_f32(unsafe { gpu::load(p) })
    }
}

/// Row `row` of B, columns `col..col + 8` (zeros past column `n`).
#[inline(always)]
unsafe fn b_row<E: Element>(b: *const E, n: u32, row: u32, col: u32, whole: bool) -> [f32; COLS] {
    let start = unsafe { b.add(row as usize * n as usize + col as usize) };
    if whole {
        return unsafe { E::load8(start) };
    }
    let mut out = [0.0; COLS];
    for c in 0..COLS {
        if col + (c as u32) < n {
            out[c] = unsafe { E::load1(start.add(c)) };
        }
    }
    out
}

/// `acc[r][c] += A[row0 + r][row + u] · b[u][c]` for the [`STEP`]
/// neighbouring rows of B in `b`, in k order; A's values of each row come in one
/// (bf16) or two (fp32) 16-byte loads.
#[inline(always)]
unsafe fn multiply_add_step<E: Element, const ROWS: usize>(
    acc: &mut [[f32; COLS]; ROWS],
    a: *const E,
    (k, row0, rows_of_a): (u32, u32, u32),
    row: u32,
    b: &[[f32; COLS]; STEP],
) {
    for r in 0..ROWS {
        if (r as u32) < rows_of_a {
            let values = unsafe { E::load8(a.add((row0 + r as u32) as usize * k as usize + row as usize)) };
            for u in 0..STEP {
                for c in 0..COLS {
                    acc[r][c] = gpu::fma(values[u], b[u][c], acc[r][c]);
                }
            }
        }
    }
}

/// `acc[r][c] += A[row0 + r][row] · b[0][c]`: one row of B.
#[inline(always)]
unsafe fn multiply_add<E: Element, const ROWS: usize>(
    acc: &mut [[f32; COLS]; ROWS],
    a: *const E,
    (k, row0, rows_of_a): (u32, u32, u32),
    row: u32,
    b: &[[f32; COLS]; 1],
) {
    for r in 0..ROWS {
        if (r as u32) < rows_of_a {
            let value = unsafe { E::load1(a.add((row0 + r as u32) as usize * k as usize + row as usize)) };
            for c in 0..COLS {
                acc[r][c] = gpu::fma(value, b[0][c], acc[r][c]);
            }
        }
    }
}

/// Groups of 8 columns per block for an `n`-column B: enough to cover
/// `n`, a power of two from 8 to [`THREADS`]. The block's threads beyond
/// one per group split the block's share of K between them ("k-lanes"),
/// so a narrow B (N = 64: 8 groups, 16 k-lanes) still keeps every thread
/// streaming.
pub const fn column_groups(n: u32) -> u32 {
    let needed = n.div_ceil(COLS as u32);
    let mut groups = 8;
    while groups < needed && groups < THREADS {
        groups *= 2;
    }
    groups
}

/// Rows of C the k-lanes add up per round through shared memory.
const REDUCE_ROWS: usize = 4;

/// Shared memory for adding up the k-lanes: one round's partial rows of
/// every thread (0 when a block has no k-lanes to add).
pub const fn shared_bytes(n: u32) -> u32 {
    if column_groups(n) == THREADS { 0 } else { THREADS * (REDUCE_ROWS * COLS) as u32 * 4 }
}

/// One block's share of `C = A·B`: rows `ROWS·z..` of A, the block's
/// columns of B, rows `k_chunk·y..` of K, summed into `partial[y]`, an
/// `m`×`n` slice of the workspace.
///
/// # Safety
/// `a` is `m`×`k`, `b` is `k`×`n` (16-byte aligned), `partial` has
/// `grid.y·m·n` floats; the launch is [`SmallMPlan::launch`]'s.
#[inline(always)]
pub unsafe fn partial_product<E: Element, const ROWS: usize>(
    (m, n, k): (u32, u32, u32),
    a: *const E,
    b: *const E,
    partial: *mut f32,
    k_chunk: u32,
) {
    let groups = column_groups(n);
    let lanes = THREADS / groups;
    let thread = gpu::thread_idx().x;
    let (group, lane) = (thread % groups, thread / groups);
    let col = (gpu::block_idx().x * groups + group) * COLS as u32;
    let (split, row0) = (gpu::block_idx().y, gpu::block_idx().z * ROWS as u32);
    // The whole block leaves together, before any barrier.
    if row0 >= m {
        return;
    }
    let rows_of_a = (m - row0).min(ROWS as u32);
    // Rows of B start 16-byte aligned, and hold whole vectors, when N is a
    // multiple of 8 (then `col + 8 <= n` too, as `col` is).
    let whole = n % COLS as u32 == 0;
    let end = k.min(split * k_chunk + k_chunk);
    let mut acc = [[0.0f32; COLS]; ROWS];
    if col < n {
        let first = split * k_chunk;
        // Steps of STEP neighbouring rows of B per k-lane: every load of a
        // step is issued before any is used, and this lane's values of
        // each row of A are neighbours too, loaded like a row of B. That needs B
        // and A rows that start 16-byte aligned (N and K multiples of 8).
        let step = lanes * STEP as u32;
        let mut base = first;
        if whole && k % COLS as u32 == 0 {
            while base + step <= end {
                let row = base + lane * STEP as u32;
                let mut b_rows = [[0.0f32; COLS]; STEP];
                for u in 0..STEP {
                    b_rows[u] = unsafe { E::load8(b.add((row + u as u32) as usize * n as usize + col as usize)) };
                }
                unsafe { multiply_add_step(&mut acc, a, (k, row0, rows_of_a), row, &b_rows) };
                base += step;
            }
        }
        // What is left (the end of K, or every row when rows are not
        // aligned): one row at a time, every `lanes`-th from the lane's own.
        let mut row = base + lane;
        while row < end {
            let b_rows = [unsafe { b_row(b, n, row, col, whole) }];
            unsafe { multiply_add(&mut acc, a, (k, row0, rows_of_a), row, &b_rows) };
            row += lanes;
        }
    }
    let slice = unsafe { partial.add(split as usize * m as usize * n as usize) };
    if lanes == 1 {
        for r in 0..ROWS {
            if (r as u32) < rows_of_a && col < n {
                unsafe { store_row(slice, n, (row0 + r as u32, col), &acc[r], whole) };
            }
        }
        return;
    }
    // Add the k-lanes' sums, lane 0 first, a few rows at a time. Slot i of
    // thread t is word i·THREADS + t: a warp's writes hit 32 banks.
    let shared = gpu::dynamic_shared::<f32>();
    let rounds = ROWS.div_ceil(REDUCE_ROWS);
    for round in 0..rounds {
        for i in 0..REDUCE_ROWS * COLS {
            let r = round * REDUCE_ROWS + i / COLS;
            if r < ROWS {
                unsafe { gpu::store(shared.add(i * THREADS as usize + thread as usize), acc[r][i % COLS]) };
            }
        }
        gpu::sync_threads();
        // Every thread adds up some of the round's sums (one output each
        // per 128), lane 0's partial first: neighbouring threads take
        // neighbouring columns, so the stores coalesce.
        let per_row = (groups * COLS as u32) as usize;
        let mut out = thread as usize;
        while out < REDUCE_ROWS * per_row {
            let r = round * REDUCE_ROWS + out / per_row;
            let (owner, c) = ((out % per_row) / COLS, out % COLS);
            let column = (gpu::block_idx().x * groups) * COLS as u32 + (out % per_row) as u32;
            if r < ROWS && (r as u32) < rows_of_a && column < n {
                let slot = ((r % REDUCE_ROWS) * COLS + c) * THREADS as usize + owner;
                let mut sum = 0.0f32;
                for l in 0..lanes as usize {
                    sum += unsafe { gpu::load(shared.add(slot + l * groups as usize)) };
                }
                unsafe { gpu::store(slice.add((row0 + r as u32) as usize * n as usize + column as usize), sum) };
            }
            out += THREADS as usize;
        }
        gpu::sync_threads();
    }
}

/// Stores 8 sums at (`row`, `col..col + 8`) of the `n`-column `out`,
/// skipping columns past `n`.
#[inline(always)]
unsafe fn store_row(out: *mut f32, n: u32, (row, col): (u32, u32), sums: &[f32; COLS], whole: bool) {
    let at = unsafe { out.add(row as usize * n as usize + col as usize) };
    if whole {
        unsafe {
            store_f32x4(at, [sums[0], sums[1], sums[2], sums[3]]);
            store_f32x4(at.add(4), [sums[4], sums[5], sums[6], sums[7]]);
        }
    } else {
        for c in 0..COLS {
            if col + (c as u32) < n {
                unsafe { gpu::store(at.add(c), sums[c]) };
            }
        }
    }
}

/// How one small-M GEMM is cut up: rows of A per block, K per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallMPlan {
    /// Rows of A per block: 1, 8 or 16 (which kernel runs).
    pub rows: u32,
    /// Rows of K per block; a multiple of [`K_GRANULE`] times the k-lanes.
    pub k_chunk: u32,
    /// Blocks along K: the partial sums the reduction adds.
    pub splits: u32,
}

impl SmallMPlan {
    /// Enough blocks to give each of `multiprocessors` SMs about
    /// `blocks_per_sm` of them, splitting K no finer than 8 rows of B
    /// per block.
    pub const fn new((m, n, k): (u32, u32, u32), multiprocessors: u32, blocks_per_sm: u32) -> SmallMPlan {
        let rows = match m {
            1 => 1,
            2..=8 => 8,
            _ => 16,
        };
        let tiles = n.div_ceil(column_groups(n) * COLS as u32) * m.div_ceil(rows);
        let wanted = (multiprocessors * blocks_per_sm).div_ceil(tiles);
        let chunk = k.div_ceil(if wanted == 0 { 1 } else { wanted });
        let granule = K_GRANULE * (THREADS / column_groups(n));
        let k_chunk = chunk.div_ceil(granule) * granule;
        SmallMPlan { rows, k_chunk, splits: k.div_ceil(k_chunk) }
    }

    /// Grid and block of the partial-product kernel.
    pub const fn launch(&self, m: u32, n: u32) -> LaunchShape {
        let columns = column_groups(n) * COLS as u32;
        LaunchShape {
            grid: Dim3::new(n.div_ceil(columns), self.splits, m.div_ceil(self.rows)),
            block: Dim3::new(THREADS, 1, 1),
            shared_bytes: shared_bytes(n),
        }
    }

    /// Floats of the workspace: one `m`×`n` partial C per split.
    pub const fn workspace(&self, m: u32, n: u32) -> u64 {
        self.splits as u64 * m as u64 * n as u64
    }
}
