//! Shared-memory banks: one warp reading a 32×32 float tile in six ways.
//! The address formulas live here so the GPU kernels and the host's model
//! (`ptx_ladder::labs::models::banks`) use the very same ones.

use crate::gpu;
use crate::launch::Kernel;
use kernels_macros::kernel;

/// Access patterns, as kernel parameters.
pub const ROW: u32 = 0;
pub const COLUMN: u32 = 1;
pub const PADDED_COLUMN: u32 = 2;
pub const SWIZZLED_COLUMN: u32 = 3;
pub const STRIDE_2: u32 = 4;
pub const BROADCAST: u32 = 5;
pub const PATTERNS: [u32; 6] = [ROW, COLUMN, PADDED_COLUMN, SWIZZLED_COLUMN, STRIDE_2, BROADCAST];

/// Floats of shared memory the tile needs (32 rows of up to 33).
pub const TILE_FLOATS: u32 = 32 * 33;
/// Loads each lane makes per round: one at every row/column k in 0..32.
pub const LOADS_PER_ROUND: u32 = 32;
/// Most rounds the lab runs: each of a thread's four partial sums grows by
/// at most 8 × 1055 per round and must stay an exact integer in f32 (< 2^24).
pub const MAX_ROUNDS: u32 = 1024;
pub const THREADS: u32 = 256;

/// The word `lane` reads under `pattern` when the pattern is aimed at
/// row/column `k` (0..32).
#[inline(always)]
pub const fn word(pattern: u32, lane: u32, k: u32) -> u32 {
    match pattern {
        ROW => k * 32 + lane,
        COLUMN => lane * 32 + k,
        PADDED_COLUMN => lane * 33 + k,
        SWIZZLED_COLUMN => lane * 32 + (k ^ lane),
        STRIDE_2 => (2 * lane + 64 * k) % 1024,
        _ => k,
    }
}

/// The kernel of a pattern.
pub const fn kernel_for(pattern: u32) -> Kernel<(*mut f32, u32)> {
    match pattern {
        ROW => BANKS_ROW,
        COLUMN => BANKS_COLUMN,
        PADDED_COLUMN => BANKS_PADDED_COLUMN,
        SWIZZLED_COLUMN => BANKS_SWIZZLED_COLUMN,
        STRIDE_2 => BANKS_STRIDE_2,
        _ => BANKS_BROADCAST,
    }
}

/// Fills the tile, then every warp makes `rounds` × 32 loads with the
/// pattern, one at each row/column k. The 32 addresses are computed once
/// (the k loop unrolls), so the timed loop is loads and adds only; the
/// loads are volatile so the compiler neither hoists them out of the loop
/// nor merges neighbours into 128-bit loads.
///
/// # Safety
/// Launch with `THREADS` threads and `TILE_FLOATS` floats of shared memory;
/// `out` holds one float per thread.
#[inline(always)]
unsafe fn body<const PATTERN: u32>(out: *mut f32, rounds: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let t = gpu::thread_idx().x;
    let mut i = t;
    while i < TILE_FLOATS {
        unsafe { gpu::store(tile.add(i as usize), i as f32) };
        i += THREADS;
    }
    gpu::sync_threads();
    let lane = gpu::lane_id();
    let mut acc = [0.0f32; 4];
    for _ in 0..rounds {
        for k in 0..LOADS_PER_ROUND {
            acc[(k % 4) as usize] += unsafe { gpu::load_volatile(tile.add(word(PATTERN, lane, k) as usize)) };
        }
    }
    let total = acc[0] + acc[1] + acc[2] + acc[3];
    unsafe { gpu::store(out.add(gpu::global_x() as usize), total) };
}

macro_rules! bank_kernels {
    ($($name:ident = $pattern:expr;)*) => {$(
        /// The bank lab's kernel for one access pattern (see `body`): one
        /// 1-D block of `THREADS` threads per launch slot, `TILE_FLOATS` floats
        /// of shared memory; thread i writes its sum to `out[global i]`.
        #[kernel]
        pub unsafe fn $name(out: *mut f32, rounds: u32) {
            unsafe { body::<{ $pattern }>(out, rounds) }
        }
    )*};
}

bank_kernels! {
    banks_row = ROW;
    banks_column = COLUMN;
    banks_padded_column = PADDED_COLUMN;
    banks_swizzled_column = SWIZZLED_COLUMN;
    banks_stride_2 = STRIDE_2;
    banks_broadcast = BROADCAST;
}
