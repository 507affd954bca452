//! Shared-memory layouts of the k-major A and B tiles of rungs 6-10, and
//! their sizes. Rung 7 tells why the padded and swizzled layouts exist.

use super::tiling::Tiling;

/// Where each element of the two shared tiles lives. Both tiles are k-major:
/// row `k` of the A tile holds A[row0..row0+TILE_M][k0 + k] (A transposed),
/// row `k` of the B tile holds `B[k0 + k][col0..col0+TILE_N]`. A layout may pad
/// each row and may permute columns, as long as it keeps every aligned group
/// of four columns contiguous and 16-byte aligned (128-bit accesses).
pub trait SharedLayout {
    /// Floats of padding after each row; a multiple of 4.
    const ROW_PAD: u32;
    /// Physical column of logical column `col` in row `k` of the A tile.
    fn a_col(k: u32, col: u32) -> u32;
    /// Physical column of logical column `col` in row `k` of the B tile.
    fn b_col(k: u32, col: u32) -> u32;
}

/// The obvious layout: rows of exactly TILE_M (or TILE_N) floats.
pub struct Plain;

impl SharedLayout for Plain {
    const ROW_PAD: u32 = 0;
    #[inline(always)]
    fn a_col(_k: u32, col: u32) -> u32 {
        col
    }
    #[inline(always)]
    fn b_col(_k: u32, col: u32) -> u32 {
        col
    }
}

/// Shared floats of one stage's A tile in layout `L`: where its B tile
/// starts.
pub const fn a_tile_floats<L: SharedLayout>(tiling: Tiling) -> u32 {
    tiling.tile_k * (tiling.tile_m + L::ROW_PAD)
}

/// Shared floats for the two tiles of one stage in layout `L`.
pub const fn stage_floats<L: SharedLayout>(tiling: Tiling) -> u32 {
    a_tile_floats::<L>(tiling) + tiling.tile_k * (tiling.tile_n + L::ROW_PAD)
}

/// Rows padded by one 16-byte group.
pub struct Padded;

impl SharedLayout for Padded {
    const ROW_PAD: u32 = 4;
    #[inline(always)]
    fn a_col(_k: u32, col: u32) -> u32 {
        col
    }
    #[inline(always)]
    fn b_col(_k: u32, col: u32) -> u32 {
        col
    }
}

/// XOR-swizzled 16-byte groups, no padding.
pub struct Swizzled;

impl SharedLayout for Swizzled {
    const ROW_PAD: u32 = 0;
    #[inline(always)]
    fn a_col(k: u32, col: u32) -> u32 {
        (((col / 4) ^ (k % 8)) * 4) | (col % 4)
    }
    #[inline(always)]
    fn b_col(_k: u32, col: u32) -> u32 {
        (((col / 4) ^ ((col / 32) % 2)) * 4) | (col % 4)
    }
}
