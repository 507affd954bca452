//! The block setup and producer of the clustered BF16 rungs (6, 7, 14 and
//! 16): two blocks of a cluster compute two tiles of C stacked along M and
//! share B's tiles, each producer multicasting its share of B's boxes into
//! both blocks; the stage ring is shared across the pair
//! (`ring::Ring::clustered`).

/// Blocks per cluster, stacked along M.
pub const CLUSTER: u32 = 2;

/// Shorter boxes of A for a tile that ends below M: the producer copies
/// the tile's rows with the first of these at least as tall as they are
/// (or the whole tile's box where none is), from tensor maps 3, 4 and 5
/// (after A's, B's and C's), which the host makes with boxes this tall.
pub const A_SHORT_BOXES: [u32; 3] = [16, 32, 64];

/// The number of the first of those tensor maps among the kernel's maps.
pub const A_SHORT_MAPS: usize = 3;

/// Tensor maps of a clustered rung: A, B, C and A in shorter boxes.
pub const MAPS: u32 = A_SHORT_MAPS as u32 + A_SHORT_BOXES.len() as u32;

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::ClusterBlock;

#[cfg(ptx_ladder_hopper)]
mod device {
    use super::{A_SHORT_BOXES, A_SHORT_MAPS, CLUSTER};
    use crate::gemm::hopper::ring::Ring;
    use crate::gemm::hopper::stages::{A_TILE_BYTES, B_BOX_BYTES, Stages, TILING};
    use crate::gemm::hopper::tile_origin;
    use crate::gpu;
    use crate::gpu::hopper::descriptor::ATOM_BYTES;
    use crate::gpu::hopper::tma::{self, TensorMap};
    use crate::gpu::hopper::{cluster_rank, shared_address, sync_cluster};

    const TILE_M: u32 = TILING.tile_m;
    const TILE_K: u32 = TILING.tile_k;
    const CONSUMERS: u32 = TILE_M / 64;
    const EVERY_BLOCK: u16 = (1 << CLUSTER) - 1;
    // Whole 8-row atoms of the 128-byte swizzle, so that a shorter box's
    // rows land where the whole tile's would.
    const _: () = {
        let mut i = 0;
        while i < A_SHORT_BOXES.len() {
            assert!(A_SHORT_BOXES[i].is_multiple_of(8) && A_SHORT_BOXES[i] < TILE_M);
            i += 1;
        }
    };

    /// What a block of a clustered rung sets up before its warpgroups part:
    /// the `STAGES` stages (of tiles `N` columns wide), the staging area after them,
    /// the ring shared with the other block, and the walk of the cluster
    /// over pairs of tiles.
    pub struct ClusterBlock<const N: u32, const STAGES: u32> {
        pub tiles: Stages<N>,
        /// First byte after the stages: the epilogue's staging.
        pub staging: u32,
        pub ring: Ring,
        pub k_tiles: u32,
        /// Rows of A (M).
        rows: u32,
        rank: u32,
        /// Pairs of tiles (TILE_M·CLUSTER rows × TILE_N columns) along M and N.
        grid: (u32, u32),
        /// Pairs per band of the walk (see [`super::tile_origin`]).
        band: u32,
    }

    impl<const N: u32, const STAGES: u32> ClusterBlock<N, STAGES> {
        /// B's 64-column boxes per stage.
        const B_BOXES: u32 = N / 64;
        /// The most boxes one producer loads and multicasts: the first
        /// producers take this many, the last what is left (192 columns:
        /// 2 and 1).
        const B_BOXES_EACH: u32 = Self::B_BOXES.div_ceil(CLUSTER);

        /// Has thread 0 prefetch the kernel's `map_count` tensor maps at
        /// `maps`, lays out shared memory (`staging_bytes` of staging), has
        /// thread 0 set up the ring, and waits until both blocks have done so.
        #[inline(always)]
        pub unsafe fn new(
            (m, n, k): (u32, u32, u32),
            (maps, map_count): (*const TensorMap, u32),
            staging_bytes: u32,
            band: u32,
        ) -> ClusterBlock<N, STAGES> {
            if gpu::thread_idx().x == 0 {
                unsafe { tma::prefetch_maps(maps, map_count) };
            }
            let base = shared_address(gpu::dynamic_shared::<u8>());
            let tiles = Stages { first: base.next_multiple_of(ATOM_BYTES) };
            let staging = tiles.a(STAGES);
            let ring = Ring::clustered(staging + staging_bytes, STAGES, CLUSTER);
            if gpu::thread_idx().x == 0 {
                unsafe { ring.init(CONSUMERS) };
            }
            // Both blocks' barriers exist before either producer multicasts or
            // either consumer arrives remotely.
            sync_cluster();
            let grid = (m.div_ceil(TILE_M * CLUSTER), n.div_ceil(N));
            ClusterBlock { tiles, staging, ring, k_tiles: k.div_ceil(TILE_K), rows: m, rank: cluster_rank(), grid, band }
        }

        /// The pairs this cluster computes, in order: `pair` from the first
        /// up to (not including) [`ClusterBlock::pairs`].
        pub fn first_and_stride(&self) -> (u32, u32) {
            (gpu::block_idx().x / CLUSTER, gpu::grid_dim().x / CLUSTER)
        }

        pub fn pairs(&self) -> u32 {
            self.grid.0 * self.grid.1
        }

        /// Where this block's tile of pair number `pair` starts in C.
        #[inline(always)]
        pub fn origin(&self, pair: u32) -> (u32, u32) {
            let (row0, col0) = tile_origin(pair, self.grid, self.band, (TILE_M * CLUSTER, N));
            (row0 + TILE_M * self.rank, col0)
        }

        /// The producer thread's whole work: every k-tile of every pair, in
        /// the ring's order.
        #[inline(always)]
        pub unsafe fn produce_all(&self, maps: *const TensorMap) {
            let (first, stride) = self.first_and_stride();
            let (mut i, mut pair) = (0, first);
            while pair < self.pairs() {
                let origin = self.origin(pair);
                let a_box = unsafe { self.a_box(maps, origin.0) };
                for kt in 0..self.k_tiles {
                    unsafe { self.produce(maps, a_box, i, kt, origin) };
                    i += 1;
                }
                pair += stride;
            }
        }

        /// How the producer copies A for the tile whose rows start at
        /// `row0`: the tensor map and the rows of its box (0: no copy).
        ///
        /// A copies only about the rows that lie above M. TMA fills a
        /// box's rows below M with zeros, at a fraction of the rate it
        /// copies data, and the other block of the pair waits for the
        /// slower one at every k-tile of B they share: on the H200
        /// Llama-3-8B's down on rung 16 took 81.2 µs at M = 512, 110 at
        /// M = 392 (8 rows of 128 in the last tile), 111.6 at M = 384
        /// (none). So a tile that lies wholly below M copies no A, and one
        /// that ends below M copies its rows with one shorter box
        /// ([`A_SHORT_BOXES`]) where one is tall enough: one copy per
        /// stage (several 16-row boxes per stage were slower than the
        /// zeros: 84 rows in six, 24.7 → 35.7 µs on Qwen2-7B's o at
        /// M = 340). Its consumers multiply whatever the rest of the stage
        /// holds; those rows of C are never stored (the C map ends at M).
        #[inline(always)]
        unsafe fn a_box(&self, maps: *const TensorMap, row0: u32) -> (*const TensorMap, u32) {
            let rows = if row0 < self.rows { (self.rows - row0).min(TILE_M) } else { 0 };
            if rows == 0 || rows == TILE_M {
                return (maps, rows);
            }
            let mut short = 0;
            while short < A_SHORT_BOXES.len() {
                if A_SHORT_BOXES[short] >= rows {
                    return (unsafe { maps.add(A_SHORT_MAPS + short) }, A_SHORT_BOXES[short]);
                }
                short += 1;
            }
            (maps, TILE_M)
        }

        /// The producer's work for k-tile `kt`: this block's A tile (with
        /// the map and rows of [`ClusterBlock::a_box`]), and its share of
        /// B's boxes for every block of the cluster.
        #[inline(always)]
        unsafe fn produce(
            &self,
            maps: *const TensorMap,
            (a_map, a_rows): (*const TensorMap, u32),
            i: u32,
            kt: u32,
            (row0, col0): (u32, u32),
        ) {
            let (ring, tiles) = (&self.ring, self.tiles);
            unsafe {
                let s = ring.acquire(i, Stages::<N>::BYTES - A_TILE_BYTES + a_rows * TILE_K * 2);
                if a_rows > 0 {
                    tma::load_2d(tiles.a(s), a_map, ring.full(s), kt * TILE_K, row0);
                }
                for j in 0..Self::B_BOXES_EACH {
                    let b = self.rank * Self::B_BOXES_EACH + j;
                    // Only where the boxes do not share out evenly.
                    if Self::B_BOXES % CLUSTER != 0 && b >= Self::B_BOXES {
                        break;
                    }
                    tma::load_2d_multicast(
                        tiles.b(s) + b * B_BOX_BYTES,
                        maps.add(1),
                        ring.full(s),
                        col0 + 64 * b,
                        kt * TILE_K,
                        EVERY_BLOCK,
                    );
                }
            }
        }
    }
}
