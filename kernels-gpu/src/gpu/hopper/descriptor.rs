//! Shared-memory matrix descriptors for `wgmma`, and the 128-byte swizzle.
//!
//! wgmma reads its operands from shared memory through a 64-bit descriptor
//! instead of addresses per thread. The tile is made of *swizzle atoms*: 8
//! rows of 128 bytes (1024 bytes). Inside an atom, the 16-byte chunk `c` of
//! row `r` is stored at chunk `c ^ r`: a warp reading one 16-byte column
//! of the atom then touches eight different chunks, so all 32 banks, where
//! the plain layout would hit the same four banks eight times. TMA writes
//! tiles in exactly this layout when its tensor map asks for
//! `CU_TENSOR_MAP_SWIZZLE_128B`, so the copy engine and the tensor cores
//! agree without any thread touching the data.
//!
//! Descriptor bits (PTX ISA, "Matrix Descriptor Format"):
//! - 0..14: start address >> 4 (shared window address);
//! - 16..30: leading-dimension byte offset >> 4;
//! - 32..46: stride-dimension byte offset >> 4;
//! - 49..52: base offset (0: atoms are 1024-byte aligned);
//! - 62..64: swizzle mode (1 = 128-byte).
//!
//! What the two offsets mean depends on which dimension is contiguous:
//! - *K-major* (A here, and B for TF32): each 128-byte row holds 64 bf16
//!   (or 32 f32) values along K for one row of the operand; atoms of 8 rows
//!   follow each other at the stride offset (1024 bytes). The leading offset
//!   is unused with swizzling. One k-step's slice starts 32 bytes further
//!   along the row.
//! - *MN-major* (B for BF16, K×N row-major): each 128-byte row holds 64
//!   values along N for one k; 8 k-rows make an atom, the next 8 k-rows sit
//!   at the stride offset, and the next 64 columns of N at the leading
//!   offset. wgmma is told with its transpose flag.

/// Bytes in one row of a swizzle atom.
pub const SWIZZLE_BYTES: u32 = 128;
/// Bytes in one swizzle atom (8 rows of 128 bytes); tiles start on a
/// multiple of this so the base offset is 0.
pub const ATOM_BYTES: u32 = 8 * SWIZZLE_BYTES;

/// `wgmma`'s 128-byte-swizzle descriptor of a tile starting at shared
/// address `start`, with the leading and stride byte offsets described
/// above.
pub const fn swizzled_128(start: u32, leading_bytes: u32, stride_bytes: u32) -> u64 {
    const SWIZZLE_128B: u64 = 1 << 62;
    field(start) | field(leading_bytes) << 16 | field(stride_bytes) << 32 | SWIZZLE_128B
}

/// A byte address or offset as a 14-bit descriptor field (16-byte units).
const fn field(bytes: u32) -> u64 {
    ((bytes >> 4) & 0x3fff) as u64
}

/// Where the 16-byte chunk `chunk` of row `row` of a 128-byte-swizzled tile
/// lands, as a byte offset from the tile's (1024-byte aligned) start: the
/// layout TMA writes and wgmma reads.
pub const fn swizzled_offset(row: u32, chunk: u32) -> u32 {
    row * SWIZZLE_BYTES + ((chunk ^ (row % 8)) % 8) * 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_fields_land_where_ptx_says() {
        let d = swizzled_128(0x1_2340, 8192, 1024);
        assert_eq!(d & 0x3fff, 0x1234);
        assert_eq!((d >> 16) & 0x3fff, 8192 >> 4);
        assert_eq!((d >> 32) & 0x3fff, 1024 >> 4);
        assert_eq!((d >> 49) & 0x7, 0);
        assert_eq!(d >> 62, 1);
    }

    #[test]
    fn a_column_of_chunks_touches_every_bank_group_once() {
        // Eight rows of one atom, the same logical chunk: eight different
        // 16-byte slots, so a warp's 128-bit reads spread over all banks.
        for chunk in 0..8 {
            let mut slots: [u32; 8] = core::array::from_fn(|row| swizzled_offset(row as u32, chunk) % SWIZZLE_BYTES / 16);
            slots.sort_unstable();
            assert_eq!(slots, [0, 1, 2, 3, 4, 5, 6, 7]);
        }
        assert_eq!(swizzled_offset(9, 3), 9 * 128 + (3 ^ 1) * 16);
    }
}
