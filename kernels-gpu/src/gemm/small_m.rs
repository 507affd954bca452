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
//! - coalesced, wide loads: each thread owns the neighbouring columns one
//!   16-byte load holds (4 fp32, 8 bf16) and reads them from a row of B,
//!   so a warp reads a 512-byte run of one row;
//! - enough bytes in flight (Little's law: bandwidth × latency, tens of
//!   KB per SM): each thread issues the loads of 8 rows of B before it
//!   uses any of them, marked as read once (`ld.global.cs`). More is not
//!   better: with the next step's 8 also issued before it multiplied these
//!   (16 per thread, about 110 KB per SM), the one-row kernel ran 0.6-0.9
//!   µs slower at M = 1 than with 8 (`stream_in_steps`);
//! - at one row of A, A where it lies: a block reads its 8 values per
//!   step from global memory (one load for all the warp's threads, L1
//!   keeps them), so it starts on B at once, with no staging and no
//!   barrier;
//! - at 8 and 16 rows, A from shared memory: every thread uses every
//!   value of the block's slice of A, so the block copies it there once
//!   (in windows of 32 KB), row by row (fp32 by asynchronous 16-byte
//!   copies), and one broadcast load then gives 4 neighbouring values of
//!   K of a row to a whole warp.
//!   Read from global memory at each step (through L1), those loads kept
//!   the warps waiting: at 16 rows of A the FMAs ran at a sixth of the
//!   peak. Copied column by column, one value at a time, the copy's index
//!   arithmetic and the bank conflicts of the k-lanes' reads cost a sixth
//!   of the time at deep K;
//! - few registers, so that many warps fit: at 16 rows of A a thread holds
//!   16 × 4 fp32 sums (launch bounds: 4 blocks per SM), and the host plans
//!   for as many blocks as the driver says fit ([`BLOCKS_PER_SM`]);
//! - enough blocks: with few columns (N = 4096 is 8 blocks of 512 fp32
//!   columns) most SMs would idle, so K is split too (split-K): each
//!   block sums its own `k_chunk` rows of B into a partial C in a
//!   workspace, and the partials are added in a fixed order, so the same
//!   inputs give the same bits on every run;
//! - one launch where it can: a second kernel that adds the partials
//!   costs a launch and a pass over them. Where the slices are few, the
//!   tile's last block to finish adds them (`add_slices_if_last`): each
//!   block counts itself in with an atomic add after a device-wide fence,
//!   and the one that counts last reads the others' slices from L2. That
//!   comes after the last load, a tail a kernel that only reads does not
//!   have: at M = 1 the blocks are as narrow as coalescing allows (64
//!   bf16 or 32 fp32 columns, more threads along K, added up in shared
//!   memory), so that K needs few slices or none
//!   ([`SmallMPlan::new`]). At 8 or 16 rows they are narrowed only
//!   as far as the kernel then adds the slices itself: every block stages
//!   its slice of A, and narrow blocks would mostly re-read A. Where the
//!   slices stay too many for one block to read ([`last_block_adds`]:
//!   deep K with few columns),
//!   [`sum_slices`](crate::gemm::split_k::sum_slices) adds them in a
//!   second launch spread over the whole GPU.
//!
//! Rows of A beyond a block's 1, 8 or 16 go to further blocks, each
//! reading the same piece of B: launched next to each other, all but the
//! first find it in L2. Each block then does its own FMAs, so the
//! kernel is for M up to a few times 16; past that the tensor-core rungs
//! win.

use crate::gpu::{self, load_f32x4, load_f32x4_l2, load_f32x4_streaming, store_f32x4};
use crate::launch::{Dim3, LaunchShape};

/// Threads per block.
pub const THREADS: u32 = 128;
/// Neighbouring rows of B a k-lane takes per step: 8 loads of B in flight
/// per thread.
pub const STEP: usize = 8;

/// Neighbouring columns of C (and B) per thread for elements of
/// `element_bytes` each: as many as one 16-byte load holds (fp32: 4,
/// bf16: 8).
pub const fn cols_of(element_bytes: u32) -> u32 {
    16 / element_bytes
}

/// [`cols_of`] for elements of type `E`.
pub const fn cols<E>() -> usize {
    cols_of(core::mem::size_of::<E>() as u32) as usize
}

/// A block's share of K is a multiple of this times its k-lanes.
pub const K_GRANULE: u32 = STEP as u32;

/// An element type of A and B, as the kernel reads it: bf16 (as its bits,
/// `u16`) or fp32.
pub trait Element: Copy {
    /// `p[0..N]` as fp32, in 16-byte loads (`N` a multiple of what one
    /// holds, [`cols`]), marked as read once (B's elements are). `p` is
    /// 16-byte aligned.
    ///
    /// # Safety
    /// `p..p+N` must be readable global memory.
    #[inline(always)]
    unsafe fn load<const N: usize>(p: *const Self) -> [f32; N] {
        unsafe { unpack::<Self, N, true>(p) }
    }

    /// `p[0..N]` as fp32, as [`Element::load`] but kept in the caches (A's
    /// values, which every thread of a block reads).
    ///
    /// # Safety
    /// As [`Element::load`].
    #[inline(always)]
    unsafe fn load_cached<const N: usize>(p: *const Self) -> [f32; N] {
        unsafe { unpack::<Self, N, false>(p) }
    }

    /// `*p` as fp32.
    ///
    /// # Safety
    /// `p` must be readable.
    unsafe fn load1(p: *const Self) -> f32;

    /// The values of a 16-byte load, as loaded (four 32-bit words), as
    /// fp32 in `out[0..cols]` ([`cols`]).
    fn widen_into(words: [f32; 4], out: &mut [f32]);

    /// The `N` values (as many as 16 bytes hold, [`cols`]) of a 16-byte
    /// load, as loaded, as fp32.
    #[inline(always)]
    fn widen<const N: usize>(words: [f32; 4]) -> [f32; N] {
        let mut out = [0.0; N];
        Self::widen_into(words, &mut out);
        out
    }

    /// Starts copying the block's slice of A (rows `row0..row0 + ROWS`,
    /// columns `first..first + len`) to shared memory at `out` as fp32,
    /// row by row, [`a_stride`] floats apart, so that one broadcast
    /// 16-byte load gives 4 neighbouring values of K of a row to a whole
    /// warp. Rows past M are zeros. Neighbouring threads
    /// copy neighbouring 16-byte pieces of a row. The copy has landed
    /// after [`Element::wait_staged`] and a barrier.
    ///
    /// # Safety
    /// `a` is `m`×`k` with `row0 + rows_of_a <= m` and `first + len <= k`;
    /// `out` holds `ROWS - 1` rows of [`a_stride`] floats of shared
    /// memory and `len` rounded up to 8 more, 16-byte aligned.
    unsafe fn stage_a<const ROWS: usize>(a: *const Self, k: u32, rows: (u32, u32), window: (u32, u32), out: *mut f32);

    /// Waits for this thread's copies of [`Element::stage_a`].
    fn wait_staged();
}

/// `p[0..N]` as fp32 in 16-byte loads ([`load16`], read once or cached),
/// each widened by [`Element::widen_into`].
///
/// # Safety
/// As [`Element::load`].
#[inline(always)]
unsafe fn unpack<E: Element, const N: usize, const READ_ONCE: bool>(p: *const E) -> [f32; N] {
    let per_load = cols::<E>();
    let mut out = [0.0; N];
    // Index loops, not iterator adapters: those were not unrolled on the
    // GPU and put the arrays in local memory.
    for j in 0..N / per_load {
        let words = unsafe { load16::<READ_ONCE>(p.add(per_load * j).cast::<f32>()) };
        E::widen_into(words, &mut out[per_load * j..]);
    }
    out
}

impl Element for f32 {
    #[inline(always)]
    fn widen_into(words: [f32; 4], out: &mut [f32]) {
        #[allow(
            clippy::manual_memcpy,
            reason = "the slice copy reorders the fp32 one-row kernel's loads of A; this loop keeps its measured PTX"
        )]
        for i in 0..4 {
            out[i] = words[i];
        }
    }

    #[inline(always)]
    unsafe fn load1(p: *const f32) -> f32 {
        unsafe { gpu::load(p) }
    }

    /// Asynchronous copies (`cp.async`) of 16 bytes, 4 values of K, or
    /// one value at a time where a row of A is not 16-byte aligned (K not
    /// a multiple of 4): no registers hold the values, so the whole
    /// window is in flight at once.
    #[inline(always)]
    unsafe fn stage_a<const ROWS: usize>(a: *const f32, k: u32, (row0, rows_of_a): (u32, u32), (first, len): (u32, u32), out: *mut f32) {
        let stride = a_stride(ROWS as u32);
        let per_row = len.div_ceil(4);
        let (mut r, mut piece) = first_piece(per_row);
        while r < ROWS as u32 {
            let kk = 4 * piece;
            let dst = unsafe { out.add((r * stride + kk) as usize) };
            // Nothing is read past M or past the window; the source only
            // has to be a valid address there.
            let valid = if r < rows_of_a { (len - kk).min(4) } else { 0 };
            let src = if valid > 0 { unsafe { a.add((row0 + r) as usize * k as usize + (first + kk) as usize) } } else { a };
            if valid == 4 && (src as usize).is_multiple_of(16) {
                unsafe { gpu::cp_async_16(dst, src, 16) };
            } else {
                for i in 0..4 {
                    let inside = i < valid;
                    unsafe {
                        gpu::cp_async_4(dst.add(i as usize), if inside { src.add(i as usize) } else { a }, if inside { 4 } else { 0 })
                    };
                }
            }
            (r, piece) = next_piece(r, piece, per_row);
        }
        gpu::cp_async_commit();
    }

    #[inline(always)]
    fn wait_staged() {
        gpu::cp_async_wait::<0>();
    }
}

/// 16 bytes at `p`, marked as read once if `READ_ONCE` (B's values, used
/// by one thread), else kept in the caches (A's, which every thread of a
/// block reads).
///
/// # Safety
/// `p..p+4` must be readable global memory, 16-byte aligned.
#[inline(always)]
unsafe fn load16<const READ_ONCE: bool>(p: *const f32) -> [f32; 4] {
    if READ_ONCE { unsafe { load_f32x4_streaming(p) } } else { unsafe { load_f32x4(p) } }
}

impl Element for u16 {
    /// Two values per word, the first in the low half.
    #[inline(always)]
    fn widen_into(words: [f32; 4], out: &mut [f32]) {
        for i in 0..4 {
            let word = words[i].to_bits();
            out[2 * i] = f32::from_bits(word << 16);
            out[2 * i + 1] = f32::from_bits(word & 0xffff_0000);
        }
    }

    #[inline(always)]
    unsafe fn load1(p: *const u16) -> f32 {
        gpu::bf16_to_f32(unsafe { gpu::load(p) })
    }

    /// Through registers, where each value is widened to fp32: an
    /// asynchronous copy cannot convert. 16-byte loads of 8 values of K,
    /// 4 of them in flight per thread before the first store (a store
    /// waits for its load), or one value at a time where a row is not
    /// 16-byte aligned (K not a multiple of 8).
    #[inline(always)]
    unsafe fn stage_a<const ROWS: usize>(a: *const u16, k: u32, (row0, rows_of_a): (u32, u32), (first, len): (u32, u32), out: *mut f32) {
        let stride = a_stride(ROWS as u32);
        let per_row = len.div_ceil(8);
        let (mut r, mut piece) = first_piece(per_row);
        while r < ROWS as u32 {
            // Index loops: iterator adapters were not unrolled on the GPU
            // and put the arrays in local memory.
            let mut values = [[0.0f32; 8]; A_LOADS_IN_FLIGHT];
            let mut places = [0u32; A_LOADS_IN_FLIGHT];
            let mut issued = 0;
            for u in 0..A_LOADS_IN_FLIGHT {
                if r < ROWS as u32 {
                    let kk = 8 * piece;
                    let valid = if r < rows_of_a { (len - kk).min(8) } else { 0 };
                    if valid > 0 {
                        let src = unsafe { a.add((row0 + r) as usize * k as usize + (first + kk) as usize) };
                        if valid == 8 && (src as usize).is_multiple_of(16) {
                            values[u] = <Self as Element>::widen::<8>(unsafe { gpu::load_f32x4(src.cast::<f32>()) });
                        } else {
                            for i in 0..8 {
                                if (i as u32) < valid {
                                    values[u][i] = unsafe { Self::load1(src.add(i)) };
                                }
                            }
                        }
                    }
                    places[u] = r * stride + kk;
                    issued = u + 1;
                    (r, piece) = next_piece(r, piece, per_row);
                }
            }
            for u in 0..A_LOADS_IN_FLIGHT {
                if u < issued {
                    let dst = unsafe { out.add(places[u] as usize) };
                    let v = values[u];
                    unsafe {
                        store_f32x4(dst, [v[0], v[1], v[2], v[3]]);
                        store_f32x4(dst.add(4), [v[4], v[5], v[6], v[7]]);
                    }
                }
            }
        }
    }

    /// The copies are done on return from [`Element::stage_a`].
    #[inline(always)]
    fn wait_staged() {}
}

/// Row `row` of B, columns `col..col + COLS` (zeros past column `n`).
#[inline(always)]
unsafe fn b_row<E: Element, const COLS: usize>(b: *const E, n: u32, row: u32, col: u32, whole: bool) -> [f32; COLS] {
    let start = unsafe { b.add(row as usize * n as usize + col as usize) };
    if whole {
        return unsafe { E::load::<COLS>(start) };
    }
    let mut out = [0.0; COLS];
    for c in 0..COLS {
        if col + (c as u32) < n {
            out[c] = unsafe { E::load1(start.add(c)) };
        }
    }
    out
}

/// Floats between the rows of a block's slice of A in shared memory, for
/// `rows` rows of A: a whole window ([`a_window`], a multiple of 8), so
/// that every row starts 32-byte aligned and a step's 8 values of a row
/// are two aligned 16-byte loads.
pub const fn a_stride(rows: u32) -> u32 {
    a_window(rows)
}

/// The first piece of a `ROWS` × `per_row` slice this thread copies
/// (row, piece): piece number `thread`, counting row by row.
#[inline(always)]
fn first_piece(per_row: u32) -> (u32, u32) {
    let thread = gpu::thread_idx().x;
    (thread / per_row, thread % per_row)
}

/// The next piece of a `ROWS` × `per_row` slice a thread copies after
/// piece `piece` of row `r`: every [`THREADS`]-th, row by row, without a
/// division per piece (`per_row` is a variable).
#[inline(always)]
fn next_piece(r: u32, piece: u32, per_row: u32) -> (u32, u32) {
    let (mut r, mut piece) = (r, piece + THREADS);
    while piece >= per_row {
        piece -= per_row;
        r += 1;
    }
    (r, piece)
}

/// Loads of A each bf16 thread has in flight while it copies its block's
/// slice of A to shared memory through registers.
const A_LOADS_IN_FLIGHT: usize = 4;

/// Where a block reads its values of A, `U` neighbouring values of K of
/// row `r` at a time from `kk` (counted from the window's first value).
trait AValues {
    /// Values `kk..kk + U` of row `r`; `kk` is a multiple of 8 where `U`
    /// is a multiple of 4.
    ///
    /// # Safety
    /// `r` and `kk..kk + U` lie in the window.
    unsafe fn values<const U: usize>(&self, r: usize, kk: u32) -> [f32; U];
}

/// The block's slice of A staged in shared memory (`ROWS` rows,
/// [`a_stride`] floats apart): one broadcast 16-byte load per 4 values
/// where `U` is a multiple of 4, else one at a time. The rows' distance
/// is a constant, so each row's loads take an immediate offset from one
/// address: with it a variable, the 16 rows' addresses took registers that
/// the 16-row kernels (at most 128) did not have.
struct Staged<const ROWS: usize>(*const f32);

impl<const ROWS: usize> AValues for Staged<ROWS> {
    #[inline(always)]
    unsafe fn values<const U: usize>(&self, r: usize, kk: u32) -> [f32; U] {
        let at = self.0.wrapping_add(kk as usize).wrapping_add(r * a_stride(ROWS as u32) as usize);
        let mut out = [0.0; U];
        if U % 4 == 0 {
            for j in 0..U / 4 {
                let v = unsafe { load_f32x4(at.add(4 * j)) };
                for i in 0..4 {
                    out[4 * j + i] = v[i];
                }
            }
        } else {
            for u in 0..U {
                out[u] = unsafe { gpu::load(at.add(u)) };
            }
        }
        out
    }
}

/// One row of A read where it lies, in global memory (through L1, where
/// a warp's loads of the same values are one): at one row of A a block
/// needs no staging, so it starts on B without waiting for A to land and
/// for a barrier. `at` is the row's value at the window's start;
/// `aligned` whether it is 16-byte aligned (then so is every whole step's
/// first value: `kk` is a multiple of 8).
struct Direct<E> {
    at: *const E,
    aligned: bool,
}

impl<E: Element> AValues for Direct<E> {
    #[inline(always)]
    unsafe fn values<const U: usize>(&self, _r: usize, kk: u32) -> [f32; U] {
        let at = unsafe { self.at.add(kk as usize) };
        if U % cols::<E>() == 0 && self.aligned {
            return unsafe { E::load_cached::<U>(at) };
        }
        let mut out = [0.0; U];
        for u in 0..U {
            out[u] = unsafe { E::load1(at.add(u)) };
        }
        out
    }
}

/// `acc[r][c] += A[r][kk + u] · b[u][c]` for the `U` neighbouring rows of
/// B in `b`, A's values from `a`.
///
/// A whole step ([`STEP`] rows) is summed on its own, from its first
/// product, and only that sum goes into `acc`. Each addition into a
/// running sum rounds it, and the errors grow with the number of
/// additions; a k-lane that adds its K / lanes products one by one made
/// the one-row kernel's fp32 results up to twice as far from the exact
/// ones as cuBLAS SGEMM's on wide weights whose K is not split
/// (Phi-3-medium's gate_up, 1 × 35840 × 5120, on the H200: 6.4e-7 against
/// 3.3e-7). Summed by steps, the running sum is 8 times shorter, for one
/// more instruction per 8 products (a tree of the 8, three more, made the
/// 16-row kernel, whose FMAs are what it waits for, 15-24% slower). A
/// shorter `U` (the rows past the last whole step) is added one product
/// at a time.
#[inline(always)]
unsafe fn multiply_add<const ROWS: usize, const COLS: usize, const U: usize>(
    acc: &mut [[f32; COLS]; ROWS],
    a: &impl AValues,
    kk: u32,
    b: &[[f32; COLS]; U],
) {
    for r in 0..ROWS {
        let values = unsafe { a.values::<U>(r, kk) };
        if U == STEP {
            for c in 0..COLS {
                let mut step = values[0] * b[0][c];
                for u in 1..U {
                    step = gpu::fma(values[u], b[u][c], step);
                }
                acc[r][c] += step;
            }
        } else {
            for u in 0..U {
                for c in 0..COLS {
                    acc[r][c] = gpu::fma(values[u], b[u][c], acc[r][c]);
                }
            }
        }
    }
}

/// The most groups of `cols` columns a block takes for an `n`-column B:
/// enough to cover `n`, a power of two from 8 to [`THREADS`]. The block's
/// threads beyond one per group split the block's share of K between them
/// ("k-lanes"), so a narrow B (N = 64 of bf16: 8 groups, 16 k-lanes) still
/// keeps every thread streaming. The plan may take fewer
/// ([`SmallMPlan::new`]).
pub const fn column_groups(n: u32, cols: u32) -> u32 {
    let needed = n.div_ceil(cols);
    let mut groups = 8;
    while groups < needed && groups < THREADS {
        groups *= 2;
    }
    groups
}

/// Rows of C the k-lanes add up per round through shared memory.
const REDUCE_ROWS: usize = 4;

/// Shared memory for adding up the k-lanes: one round's partial rows of
/// every thread (0 when a block has no k-lanes to add). A block of fewer
/// rows than a round asks only for its own: shared memory a block does not
/// use is taken from the L1 cache that B's loads pass through.
const fn reduce_bytes(groups: u32, cols: u32, rows: u32) -> u32 {
    let rows_per_round = if rows < REDUCE_ROWS as u32 { rows } else { REDUCE_ROWS as u32 };
    if groups == THREADS { 0 } else { THREADS * rows_per_round * cols * 4 }
}

/// The most slices of K the last block of a tile adds: two rounds of
/// [`IN_FLIGHT`] loads from L2, a few microseconds at most.
pub const FEW_SLICES: u32 = 16;

/// Loads of partial sums each thread of the last block has in flight.
pub const IN_FLIGHT: usize = 8;

/// Columns of B a block keeps per row of A, at least, when the plan
/// narrows it: every block stages its whole slice of A, so with 16 rows of
/// A and 64 columns A would be a fifth of what a block reads, and at M = 16
/// the narrowed blocks measured 1.2-2.3x slower. At 32 columns per row, A
/// is at most a 33rd.
pub const COLUMNS_PER_ROW_OF_A: u32 = 32;

/// Shared memory for the flag that tells a block it is its tile's last
/// (`add_slices_if_last`).
const LAST_FLAG_BYTES: u32 = 4;

/// Bytes of partial sums the last block of a tile may read to add the
/// tile's slices: 16 loads of 16 bytes for each of its threads.
pub const LAST_BLOCK_BYTES: u32 = 32 * 1024;

/// Whether the last block of each tile adds the tile's `splits` slices
/// (`rows` × `block_columns` fp32 each) in the kernel, rather than
/// [`sum_slices`](crate::gemm::split_k::sum_slices) in a second launch:
/// when they are few and small. Host and kernel both ask this.
pub const fn last_block_adds(splits: u32, rows: u32, block_columns: u32) -> bool {
    splits <= FEW_SLICES && splits as u64 * rows as u64 * block_columns as u64 * 4 <= LAST_BLOCK_BYTES as u64
}

/// Bytes of shared memory for a block's slice of A (as fp32): a block
/// whose share of K is longer stages and streams it in windows.
pub const A_SHARED_BYTES: u32 = 32 * 1024;

/// Rows of K in a window of a block of `rows` rows of A: 8192, 1024 or
/// 512, multiples of every k-lane step (at most 16 lanes × [`STEP`]).
pub const fn a_window(rows: u32) -> u32 {
    A_SHARED_BYTES / (4 * rows)
}
const _: () = assert!(a_window(16) % (THREADS / 8 * STEP as u32) == 0);

/// This block's group of rows of A, block of columns and slice of K, from
/// its index in the one-dimensional grid of `row_groups` × `column_blocks`
/// × slices: the groups of rows vary fastest, so the blocks that read the
/// same piece of B are launched together and all but the first find it in
/// L2. (One dimension, because a grid's y and z stop at 65535, which the
/// blocks of columns of a wide B would pass.)
#[inline(always)]
pub(crate) fn block_coordinates(row_groups: u32, column_blocks: u32) -> (u32, u32, u32) {
    let block = gpu::block_idx().x;
    let rest = block / row_groups;
    (block % row_groups, rest % column_blocks, rest / column_blocks)
}

/// `acc += A·B` over rows `first..end` of K (one window, A's columns
/// `first..end` in `a`, [`a_stride`] floats per row), this thread's columns
/// `col..` of B, in steps of [`STEP`] neighbouring rows per k-lane: every
/// load of a step is issued before any is used: 16-byte loads where rows
/// of B start 16-byte aligned (`whole`: N a multiple of what a 16-byte
/// load holds), value by value elsewhere at one row of A or on fp32
/// (GPT-2's 50257 columns at M = 1 took 67 µs one row at a time on the
/// H200, 33 in steps). The rest goes one row at a time, every `lanes`-th
/// from the lane's own. At one row of A with whole rows each step's loads
/// are issued as one batch after the step before's FMAs
/// ([`stream_in_steps`]).
#[inline(always)]
unsafe fn stream<E: Element, const ROWS: usize, const COLS: usize>(
    acc: &mut [[f32; COLS]; ROWS],
    (b, n, col, whole): (*const E, u32, u32, bool),
    (first, end): (u32, u32),
    (lane, lanes): (u32, u32),
    a: &impl AValues,
) {
    let step = lanes * STEP as u32;
    let mut base = first;
    if whole && ROWS == 1 {
        let steps = (end - first) / step;
        unsafe { stream_in_steps::<E, ROWS, COLS>(acc, (b, n, col), (first, steps), (lane, lanes), a) };
        base = first + steps * step;
    } else if whole || ROWS == 1 || size_of::<E>() == 4 {
        // Where rows of B are not whole vectors, the same steps of value
        // by value loads, so that a step's loads still go out together;
        // not where each BF16 value would take a register of its own
        // beside 8 or 16 rows of sums (4 × 50257 × 768 on the H200: 132 µs
        // so, 77 one row at a time).
        while base + step <= end {
            let row = base + lane * STEP as u32;
            let mut b_rows = [[0.0f32; COLS]; STEP];
            for u in 0..STEP {
                b_rows[u] = unsafe { b_row(b, n, row + u as u32, col, whole) };
            }
            unsafe { multiply_add(acc, a, row - first, &b_rows) };
            base += step;
        }
    }
    let mut row = base + lane;
    while row < end {
        let b_rows = [unsafe { b_row(b, n, row, col, whole) }];
        unsafe { multiply_add(acc, a, row - first, &b_rows) };
        row += lanes;
    }
}

/// The `steps` whole steps of [`stream`] from `first` at one row of A:
/// each step's [`STEP`] loads are issued together, in a block of code of
/// their own after the step before's FMAs, and nothing else is between
/// them. Written as [`stream`]'s plain loop, the compiler spread a step's
/// loads among the FMAs that use them (to save registers), so that a
/// thread had 4 or fewer in flight at a time. Issuing the next step's
/// loads before this step's FMAs instead (two steps, 16 loads, in flight)
/// was measured slower on the H200 (weights from DRAM, M = 1 on
/// Llama-3-8B's projections, bf16): gate_up 58.7 µs against 57.8, down
/// 33.0 against 32.1, qkv 18.8 against 18.2, o 15.0 against 14.3; fp32
/// the same either way.
#[inline(always)]
unsafe fn stream_in_steps<E: Element, const ROWS: usize, const COLS: usize>(
    acc: &mut [[f32; COLS]; ROWS],
    (b, n, col): (*const E, u32, u32),
    (first, steps): (u32, u32),
    (lane, lanes): (u32, u32),
    a: &impl AValues,
) {
    if steps == 0 {
        return;
    }
    let step = lanes * STEP as u32;
    let row_of = |j: u32| first + j * step + lane * STEP as u32;
    // Index loops: iterator adapters were not unrolled on the GPU and put
    // the arrays in local memory.
    let loads = |row: u32| {
        let at = unsafe { b.add(row as usize * n as usize + col as usize) };
        let mut words = [[0.0f32; 4]; STEP];
        for u in 0..STEP {
            words[u] = unsafe { load_f32x4_streaming(at.add(u * n as usize).cast::<f32>()) };
        }
        words
    };
    let mut current = loads(row_of(0));
    let mut j = 0;
    loop {
        let mut b_rows = [[0.0f32; COLS]; STEP];
        for u in 0..STEP {
            b_rows[u] = E::widen::<COLS>(current[u]);
        }
        unsafe { multiply_add(acc, a, row_of(j) - first, &b_rows) };
        // The exit comes before the next step's loads, so that they stay a
        // block of their own, after the FMAs (a guard `j + 1 < steps` is
        // the loop's own test, and the compiler moved the loads to the top
        // of the next pass, among its FMAs).
        j += 1;
        if j == steps {
            break;
        }
        current = loads(row_of(j));
    }
}

/// One block's share of `C = alpha·A·B + beta·C`: a group of `ROWS` rows
/// of A, a block of `groups` × `COLS` columns of B, a slice `s` of K
/// (`k_chunk` rows), summed into `partial[s]`, an `m`×`n` slice of the
/// workspace; then, where [`last_block_adds`], the tile's last block adds
/// the slices into C (`add_slices_if_last`, with `counters`, one per
/// tile, zero before the launch and after it).
///
/// # Safety
/// `a` is `m`×`k`, `b` is `k`×`n` (16-byte aligned), `c` is `m`×`n`,
/// `partial` has one `m`×`n` slice per slice of K; the launch is
/// [`SmallMPlan::launch`]'s, `k_chunk` and `groups` (a power of two) its
/// plan's.
#[inline(always)]
pub unsafe fn gemm<E: Element, const ROWS: usize, const COLS: usize>(
    (m, n, k): (u32, u32, u32),
    (a, b): (*const E, *const E),
    (c, alpha, beta): (*mut f32, f32, f32),
    (partial, counters): (*mut f32, *mut u32),
    (k_chunk, groups): (u32, u32),
) {
    // `groups` is a power of two: shifts and masks, not divisions, before
    // the first load (a division by a value known only at run time is a
    // few dozen instructions).
    let shift = groups.trailing_zeros();
    let lanes = THREADS >> shift;
    let thread = gpu::thread_idx().x;
    let (group, lane) = (thread & (groups - 1), thread >> shift);
    let block_columns_shift = shift + COLS.trailing_zeros();
    let (row_groups, column_blocks) = (m.div_ceil(ROWS as u32), n.div_ceil(1 << block_columns_shift));
    let (row_group, column_block, split) = block_coordinates(row_groups, column_blocks);
    let row0 = row_group * ROWS as u32;
    let col0 = column_block * groups * COLS as u32;
    let col = col0 + group * COLS as u32;
    // The whole block leaves together, before any barrier.
    if row0 >= m {
        return;
    }
    let rows_of_a = (m - row0).min(ROWS as u32);
    // Rows of B start 16-byte aligned, and hold whole vectors, when N is a
    // multiple of COLS (then `col + COLS <= n` too, as `col` is).
    let whole = n % COLS as u32 == 0;
    let (first, end) = (split * k_chunk, k.min(split * k_chunk + k_chunk));
    // Every thread of the block reads every value of its rows of A. One
    // row is read where it lies (a warp's loads of the same values are
    // one, and L1 keeps them), so the block starts on B at once. More rows
    // come from shared memory, staged once per window of K: read from
    // global memory at each step, 16 rows kept the warps waiting on loads.
    let mut acc = [[0.0f32; COLS]; ROWS];
    if ROWS == 1 {
        let at = unsafe { a.add(row0 as usize * k as usize + first as usize) };
        let a_row = Direct { at, aligned: (at as usize).is_multiple_of(16) };
        if col < n {
            unsafe { stream::<E, ROWS, COLS>(&mut acc, (b, n, col, whole), (first, end), (lane, lanes), &a_row) };
        }
    } else {
        let shared = gpu::dynamic_shared::<f32>();
        let mut window = first;
        while window < end {
            let window_end = end.min(window + a_window(ROWS as u32));
            if window > first {
                // Everyone is done with the previous window.
                gpu::sync_threads();
            }
            unsafe { E::stage_a::<ROWS>(a, k, (row0, rows_of_a), (window, window_end - window), shared) };
            E::wait_staged();
            gpu::sync_threads();
            if col < n {
                let staged = Staged::<ROWS>(shared.cast_const());
                unsafe { stream::<E, ROWS, COLS>(&mut acc, (b, n, col, whole), (window, window_end), (lane, lanes), &staged) };
            }
            window = window_end;
        }
    }
    let splits = k.div_ceil(k_chunk);
    // With K whole the block's sums are C's: stored there at once, with no
    // pass through the workspace and no count of finished blocks.
    let sink = if splits == 1 {
        Sink { at: c, scale: Some((alpha, beta)) }
    } else {
        Sink { at: unsafe { partial.add(split as usize * m as usize * n as usize) }, scale: None }
    };
    if lanes == 1 {
        for r in 0..ROWS {
            if (r as u32) < rows_of_a && col < n {
                unsafe { store_row(sink, n, (row0 + r as u32, col), &acc[r], whole) };
            }
        }
    } else {
        unsafe { add_lanes::<ROWS, COLS>(&acc, (groups, lanes), (row0, rows_of_a), (col0, n), sink) };
    }
    let block_columns = groups * COLS as u32;
    if splits > 1 && last_block_adds(splits, ROWS as u32, block_columns) {
        let counter = unsafe { counters.add((column_block * row_groups + row_group) as usize) };
        let tile = ((row0, rows_of_a), (col0, block_columns.min(n - col0)));
        unsafe { add_slices_if_last((m, n), tile, (partial, splits), counter, (c, alpha, beta)) };
    }
}

/// Where a block's sums go: its slice of the workspace as they are
/// (`scale` none), or C itself as `alpha`·sum + `beta`·C (C not read when
/// beta is 0).
#[derive(Clone, Copy)]
pub(crate) struct Sink {
    pub(crate) at: *mut f32,
    pub(crate) scale: Option<(f32, f32)>,
}

impl Sink {
    /// Puts `sum` at element `i`.
    ///
    /// # Safety
    /// Element `i` must be writable (and readable, with a nonzero beta).
    #[inline(always)]
    pub(crate) unsafe fn put(self, i: usize, sum: f32) {
        let at = unsafe { self.at.add(i) };
        let value = match self.scale {
            None => sum,
            Some((alpha, 0.0)) => alpha * sum,
            Some((alpha, beta)) => alpha * sum + beta * unsafe { gpu::load(at) },
        };
        unsafe { gpu::store(at, value) };
    }

    /// Puts `sums` at elements `i..i + 4` in one 16-byte store.
    ///
    /// # Safety
    /// As [`Sink::put`], and element `i` 16-byte aligned.
    #[inline(always)]
    pub(crate) unsafe fn put4(self, i: usize, sums: [f32; 4]) {
        let at = unsafe { self.at.add(i) };
        let values = match self.scale {
            None => sums,
            Some((alpha, 0.0)) => [alpha * sums[0], alpha * sums[1], alpha * sums[2], alpha * sums[3]],
            Some((alpha, beta)) => {
                let old = unsafe { load_f32x4(at) };
                [
                    alpha * sums[0] + beta * old[0],
                    alpha * sums[1] + beta * old[1],
                    alpha * sums[2] + beta * old[2],
                    alpha * sums[3] + beta * old[3],
                ]
            }
        };
        unsafe { store_f32x4(at, values) };
    }
}

/// Adds the k-lanes' sums (`acc` of every thread) into `sink`, lane 0
/// first, a few rows at a time through shared memory. Slot i of thread t is
/// word i·THREADS + t: a warp's writes hit 32 banks. The same shared memory
/// held the slice of A: every thread must be done reading it before any
/// writes a sum there.
#[inline(always)]
unsafe fn add_lanes<const ROWS: usize, const COLS: usize>(
    acc: &[[f32; COLS]; ROWS],
    (groups, lanes): (u32, u32),
    (row0, rows_of_a): (u32, u32),
    (col0, n): (u32, u32),
    sink: Sink,
) {
    let thread = gpu::thread_idx().x;
    let shared = gpu::dynamic_shared::<f32>();
    gpu::sync_threads();
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
            let column = col0 + (out % per_row) as u32;
            if r < ROWS && (r as u32) < rows_of_a && column < n {
                let slot = ((r % REDUCE_ROWS) * COLS + c) * THREADS as usize + owner;
                let mut sum = 0.0f32;
                for l in 0..lanes as usize {
                    sum += unsafe { gpu::load(shared.add(slot + l * groups as usize)) };
                }
                unsafe { sink.put((row0 + r as u32) as usize * n as usize + column as usize, sum) };
            }
            out += THREADS as usize;
        }
        gpu::sync_threads();
    }
}

/// The end of a block whose tile's slices are added in the kernel: the
/// block counts itself in on the tile's counter, and the last of the
/// tile's `splits` blocks adds their slices of `partial`, in slice order,
/// into C (`alpha`·sum + `beta`·C, C not read when beta is 0) and sets the
/// counter back to zero for the next launch. The order does not depend on
/// which block comes last, so the bits do not either.
///
/// Why it is safe: every thread's slice stores come before its device-wide
/// fence, the fences before the barrier, the barrier before thread 0's
/// acquire-release add; the last block's add acquires what every earlier
/// add released, and its threads read the slices from L2 after a barrier
/// and a fence of their own.
///
/// # Safety
/// As [`gemm`]; `counter` is the tile's.
#[inline(always)]
pub(crate) unsafe fn add_slices_if_last(
    (m, n): (u32, u32),
    ((row0, rows), (col0, width)): ((u32, u32), (u32, u32)),
    (partial, splits): (*const f32, u32),
    counter: *mut u32,
    (c, alpha, beta): (*mut f32, f32, f32),
) {
    let thread = gpu::thread_idx().x;
    gpu::fence_device();
    // Also: every thread is done with shared memory, which holds the flag.
    gpu::sync_threads();
    let last = gpu::dynamic_shared::<u32>();
    if thread == 0 {
        let before = unsafe { gpu::atomic_add_acq_rel_u32(counter, 1) };
        let is_last = before + 1 == splits;
        if is_last {
            // Every block of the tile has counted: nothing else touches
            // the counter in this launch.
            unsafe { gpu::store(counter, 0) };
        }
        unsafe { gpu::store(last, is_last as u32) };
    }
    gpu::sync_threads();
    if unsafe { gpu::load(last) } == 0 {
        return;
    }
    gpu::fence_device();
    let slice_len = m as usize * n as usize;
    // 16-byte accesses when N is a multiple of 4: then so are `col0` and
    // `width`, and every slice starts 16-byte aligned.
    let whole = n.is_multiple_of(4);
    let per_row = if whole { width / 4 } else { width };
    let to_c = Sink { at: c, scale: Some((alpha, beta)) };
    let at_item = |item: u32| {
        let (r, j) = (item / per_row, item % per_row);
        (row0 + r) as usize * n as usize + col0 as usize + if whole { 4 * j as usize } else { j as usize }
    };
    let mut item = thread;
    // Two items of 4 columns at once where a thread has two or more: their
    // loads go out together, one wait on L2 for both (16 rows of BF16 rung
    // 18's 64 columns are 2 items per thread).
    while whole && item + THREADS < rows * per_row {
        let (first, second) = (at_item(item), at_item(item + THREADS));
        let sum = add_in_order(splits, |s| {
            let slice = unsafe { partial.add(s as usize * slice_len) };
            let (x, y) = unsafe { (load_f32x4_l2(slice.add(first)), load_f32x4_l2(slice.add(second))) };
            [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]]
        });
        unsafe {
            to_c.put4(first, [sum[0], sum[1], sum[2], sum[3]]);
            to_c.put4(second, [sum[4], sum[5], sum[6], sum[7]]);
        }
        item += 2 * THREADS;
    }
    while item < rows * per_row {
        let at = at_item(item);
        if whole {
            let sum = add_in_order(splits, |s| unsafe { load_f32x4_l2(partial.add(s as usize * slice_len + at)) });
            unsafe { to_c.put4(at, sum) };
        } else {
            let [sum] = add_in_order(splits, |s| [unsafe { gpu::load_l2(partial.add(s as usize * slice_len + at)) }]);
            unsafe { to_c.put(at, sum) };
        }
        item += THREADS;
    }
}

/// `read(0) + read(1) + … + read(splits - 1)`, from 0.0, in that order,
/// with [`IN_FLIGHT`] reads in flight at a time.
#[inline(always)]
fn add_in_order<const W: usize>(splits: u32, read: impl Fn(u32) -> [f32; W]) -> [f32; W] {
    let mut sum = [0.0f32; W];
    let mut s = 0;
    while s + IN_FLIGHT as u32 <= splits {
        let v: [[f32; W]; IN_FLIGHT] = core::array::from_fn(|j| read(s + j as u32));
        // Index loops: an array's iterator was not unrolled on the GPU
        // and put the loads in local memory.
        for j in 0..IN_FLIGHT {
            for i in 0..W {
                sum[i] += v[j][i];
            }
        }
        s += IN_FLIGHT as u32;
    }
    while s < splits {
        let v = read(s);
        for i in 0..W {
            sum[i] += v[i];
        }
        s += 1;
    }
    sum
}

/// Puts `COLS` sums at (`row`, `col..col + COLS`) of the `n`-column
/// `sink`, skipping columns past `n`.
#[inline(always)]
unsafe fn store_row<const COLS: usize>(sink: Sink, n: u32, (row, col): (u32, u32), sums: &[f32; COLS], whole: bool) {
    let at = row as usize * n as usize + col as usize;
    // 16-byte stores need `col` and `n` multiples of 4, which `whole` (N a
    // multiple of COLS, itself 4 or 8) gives.
    if whole {
        for j in 0..COLS / 4 {
            unsafe { sink.put4(at + 4 * j, [sums[4 * j], sums[4 * j + 1], sums[4 * j + 2], sums[4 * j + 3]]) };
        }
    } else {
        for c in 0..COLS {
            if col + (c as u32) < n {
                unsafe { sink.put(at + c, sums[c]) };
            }
        }
    }
}

/// Rows of A per block for an `m`-row A: 1, 8 or 16 (which kernel runs).
pub const fn rows_for(m: u32) -> u32 {
    match m {
        1 => 1,
        2..=8 => 8,
        _ => 16,
    }
}

/// Blocks per SM the plan counts on. The fp32 kernels promise it in their
/// launch bounds (the compiler keeps their registers to what that many
/// blocks leave); the host also asks the driver how many blocks of the
/// kernel fit, and plans for those where they are fewer.
///
/// The 8- and 16-row kernels: as many as the 16-row fp32 kernel's 16 × 4
/// sums let fit; more would cut K finer and add more partial sums (on the
/// H200 at 8 per SM the fp32 kernel took 87.5 µs on Llama-3-8B's down at
/// M = 16 and 44.4 µs at 64×64×65536, at 4 per SM 80.2 and 39.6 µs).
///
/// The 1-row kernels: 4 as well (71-72 registers let 7 fit). A plan for
/// more blocks cuts K into more slices; with the 4 a C++ twin of the
/// kernel streamed Llama-3-8B's gate_up at M = 1 (448 blocks, K whole) as
/// fast as a kernel that only reads.
pub const BLOCKS_PER_SM: u32 = 4;

/// block, K per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallMPlan {
    /// Rows of A per block: 1, 8 or 16 (which kernel runs).
    pub rows: u32,
    /// Columns per thread: [`cols`] of the element type.
    pub cols: u32,
    /// Groups of `cols` columns per block (8 to [`THREADS`]); the block's
    /// other threads are k-lanes.
    pub groups: u32,
    /// Rows of K per block; a multiple of [`K_GRANULE`] times the k-lanes.
    pub k_chunk: u32,
    /// Blocks along K: the partial sums to add.
    pub splits: u32,
}

impl SmallMPlan {
    /// The plan for elements of `element_bytes` each (4 or 2): enough
    /// blocks to give each of `multiprocessors` SMs about `blocks_per_sm`
    /// of them, splitting K no finer than 8 rows of B per k-lane. Blocks
    /// cover as many columns as they can ([`column_groups`]) unless that
    /// leaves more slices of K than the kernel can add itself
    /// ([`last_block_adds`]); then the widest narrower blocks (more of them
    /// along N, so fewer along K) whose slices it can add, down to 8 groups
    /// and [`COLUMNS_PER_ROW_OF_A`]; failing that, the widest whose slices
    /// it can add when K is cut into at most [`FEW_SLICES`], if they still
    /// give the SMs half their blocks. If none, the widest blocks, and a
    /// second kernel adds the slices.
    pub const fn new((m, n, k): (u32, u32, u32), element_bytes: u32, multiprocessors: u32, blocks_per_sm: u32) -> SmallMPlan {
        let rows = rows_for(m);
        let cols = cols_of(element_bytes);
        let slots = multiprocessors * blocks_per_sm;
        if rows == 1 {
            return SmallMPlan::one_row((m, n, k), cols, slots);
        }
        let widest = SmallMPlan::with_groups((m, n, k), (rows, cols, column_groups(n, cols)), slots, u32::MAX);
        if widest.adds_in_kernel() {
            return widest;
        }
        // K cut for the SMs' full share of blocks first; then into at most
        // FEW_SLICES, if that leaves them half.
        match SmallMPlan::narrowed(widest, (m, n, k), slots, u32::MAX) {
            Some(plan) => plan,
            None => match SmallMPlan::narrowed(widest, (m, n, k), slots, FEW_SLICES) {
                Some(plan) => plan,
                None => widest,
            },
        }
    }

    /// The plan at one row of A: the narrowest blocks (8 groups: a warp
    /// reads 128 bytes of each of 4 rows of B) whose blocks of columns fit
    /// in the `slots` at once, and K cut into as few slices as fill them.
    /// The k-lanes of a block add their sums in shared memory, cheaply;
    /// slices of K are added after the last load, by the last block or a
    /// second kernel, and that tail is what a kernel that only streams B
    /// does not pay. On the H200 (CUDA C++ twin, bf16, weights from DRAM),
    /// Llama-3-8B's gate_up at M = 1 took 56.8 µs in 448 blocks of 64
    /// columns with K whole, 58.4 in 448 blocks of 256 columns and K in 4
    /// slices, and a kernel that only reads 235 MB 56.6. If the slices are
    /// more than the kernel can add itself, as [`SmallMPlan::new`] does
    /// for more rows: at most [`FEW_SLICES`] if that gives the SMs half
    /// their blocks, else a second kernel adds them.
    const fn one_row((m, n, k): (u32, u32, u32), cols: u32, slots: u32) -> SmallMPlan {
        let widest = column_groups(n, cols);
        let mut groups = 8;
        while groups < widest && n.div_ceil(groups * cols) > slots {
            groups *= 2;
        }
        SmallMPlan::added_in_one_launch((m, n, k), (1, cols, groups), slots, FEW_SLICES)
    }

    /// The plan with these blocks (`rows`, `cols`, `groups`), K cut into as
    /// few slices as fill the `slots`; if the kernel cannot add those
    /// slices itself, at most `few` of them where the kernel then can and
    /// they give the SMs half their blocks, else the first plan (a second
    /// kernel adds its slices).
    const fn added_in_one_launch((m, n, k): (u32, u32, u32), shape: (u32, u32, u32), slots: u32, few: u32) -> SmallMPlan {
        let plan = SmallMPlan::with_groups((m, n, k), shape, slots, u32::MAX);
        if plan.adds_in_kernel() {
            return plan;
        }
        let fewer = SmallMPlan::with_groups((m, n, k), shape, slots, few);
        if fewer.adds_with_half_the_slots((m, n), slots) { fewer } else { plan }
    }

    /// The plan of the tensor-core kernel ([`crate::gemm::small_m_tensor`]):
    /// 16 rows of A per block and 64 bf16 columns (8 groups of 8), or 128
    /// where 64-column blocks would be more than the `multiprocessors` ×
    /// `blocks_per_sm` slots hold at once (a second round of blocks, each
    /// streaming its slice alone on an SM, as at one row of A); K cut into
    /// as few slices as fill the slots. If the slices are more than the
    /// kernel can add itself, at most as many as it can if that gives the
    /// SMs half their blocks, else a second kernel adds them.
    pub const fn tensor((m, n, k): (u32, u32, u32), multiprocessors: u32, blocks_per_sm: u32) -> SmallMPlan {
        let slots = multiprocessors * blocks_per_sm;
        let groups = if m.div_ceil(16) * n.div_ceil(64) <= slots { 8 } else { 16 };
        // As many slices as the last block of a tile adds itself.
        let most = LAST_BLOCK_BYTES / (4 * 16 * 8 * groups);
        SmallMPlan::added_in_one_launch((m, n, k), (16, 8, groups), slots, most)
    }

    /// The widest plan narrower than `widest` (down to 8 groups and
    /// [`COLUMNS_PER_ROW_OF_A`]) whose slices of K, at most `max_splits`,
    /// the kernel adds itself, with blocks for at least half the `slots`.
    const fn narrowed(widest: SmallMPlan, (m, n, k): (u32, u32, u32), slots: u32, max_splits: u32) -> Option<SmallMPlan> {
        let (rows, cols) = (widest.rows, widest.cols);
        let mut groups = widest.groups;
        while groups > 8 && (groups / 2) * cols >= COLUMNS_PER_ROW_OF_A * rows {
            groups /= 2;
            let plan = SmallMPlan::with_groups((m, n, k), (rows, cols, groups), slots, max_splits);
            if plan.adds_with_half_the_slots((m, n), slots) {
                return Some(plan);
            }
        }
        None
    }

    /// The plan with `groups` groups of columns per block, K split until
    /// there are as many blocks as `slots` hold at once, or fewer, into at
    /// most `max_splits` slices. Rounding the slices up instead would leave
    /// a few blocks for a second wave, each then streaming its slice alone
    /// on an SM: on the H200 at M = 1 on Llama-3-8B's gate_up (bf16), 1120
    /// blocks took 74 µs on 1056 slots, and 64 µs on 792 (when the kernel's
    /// registers let only 6 blocks fit), whose second wave is fuller.
    const fn with_groups((m, n, k): (u32, u32, u32), (rows, cols, groups): (u32, u32, u32), slots: u32, max_splits: u32) -> SmallMPlan {
        let tiles = n.div_ceil(groups * cols) * m.div_ceil(rows);
        let wanted = slots / tiles;
        let wanted = if wanted > max_splits {
            max_splits
        } else if wanted == 0 {
            1
        } else {
            wanted
        };
        let chunk = k.div_ceil(wanted);
        let granule = K_GRANULE * (THREADS / groups);
        let k_chunk = chunk.div_ceil(granule) * granule;
        SmallMPlan { rows, cols, groups, k_chunk, splits: k.div_ceil(k_chunk) }
    }

    /// Columns of B per block.
    pub const fn block_columns(&self) -> u32 {
        self.groups * self.cols
    }

    /// Whether the kernel adds the slices of K itself; otherwise
    /// [`sum_slices`](crate::gemm::split_k::sum_slices) must, after it.
    pub const fn adds_in_kernel(&self) -> bool {
        last_block_adds(self.splits, self.rows, self.block_columns())
    }

    /// Whether the kernel adds the slices itself ([`Self::adds_in_kernel`])
    /// with blocks for at least half the `slots`: the test a narrowed plan
    /// or one cut into at most [`FEW_SLICES`] must pass.
    const fn adds_with_half_the_slots(&self, (m, n): (u32, u32), slots: u32) -> bool {
        self.adds_in_kernel() && 2 * self.tiles(m, n) * self.splits >= slots
    }

    /// Tiles of C (groups of rows × blocks of columns): the counters the
    /// kernel needs.
    pub const fn tiles(&self, m: u32, n: u32) -> u32 {
        m.div_ceil(self.rows) * n.div_ceil(self.block_columns())
    }

    /// Shared memory per block: a window of the slice of A (none at one
    /// row of A), then the k-lanes' sums, then the last block's flag.
    pub const fn shared_bytes(&self) -> u32 {
        // Rows a window apart ([`a_stride`]); the last as long as the
        // block's share of K, if shorter. One row of A is not staged.
        let window = a_window(self.rows);
        let a = if self.rows == 1 {
            0
        } else {
            4 * ((self.rows - 1) * a_stride(self.rows) + if self.k_chunk < window { self.k_chunk } else { window })
        };
        let reduce = reduce_bytes(self.groups, self.cols, self.rows);
        // At least the last block's flag (`add_slices_if_last`).
        let most = if a > reduce { a } else { reduce };
        if most > LAST_FLAG_BYTES { most } else { LAST_FLAG_BYTES }
    }

    /// Grid and block of the kernel.
    pub const fn launch(&self, m: u32, n: u32) -> LaunchShape {
        LaunchShape {
            grid: Dim3::new(self.tiles(m, n) * self.splits, 1, 1),
            block: Dim3::new(THREADS, 1, 1),
            shared_bytes: self.shared_bytes(),
        }
    }

    /// Floats of the workspace: one `m`×`n` partial C per split.
    pub const fn workspace(&self, m: u32, n: u32) -> u64 {
        self.splits as u64 * m as u64 * n as u64
    }
}
