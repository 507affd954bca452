//! Adding a tile's slices of K inside its cluster (BF16 rung 10): the
//! blocks that computed one tile's slices run together as one cluster, and
//! add their partial tiles through distributed shared memory, so the
//! partial sums never reach L2 or DRAM and no second kernel is launched.
//!
//! Each block of the cluster owns a share of the tile: `share` of the
//! accumulator quads of every consumer thread (a quad is two pairs of
//! neighbouring columns, rows 8 apart, in the wgmma register layout:
//! `pair_position` in the parent module). Once every block's multiplies
//! are done, each block sends every quad to the block that owns it, 16
//! bytes stored straight into that block's shared memory
//! (`st.shared::cluster`: a store does not wait for an answer, so the
//! sends overlap). After a second cluster barrier each block adds what it
//! received from slices 0, 1, 2, … in that order
//! (the same bits on every run) and stores its share of C.
//!
//! The quads land in the stages, which the multiplies no longer need: slot
//! (slice, quad of the share, consumer, thread), so the 32 threads of a
//! warp write and read 512 neighbouring bytes, free of bank conflicts.

use crate::gemm::split_k::MOST_CLUSTER_SLICES;

/// Bytes of shared memory the sends need at most, for `consumers`
/// warpgroups with `quads` accumulator quads per thread: `slices ·
/// quads.div_ceil(slices)` slots of 16 bytes per thread, which is below
/// `quads + slices`.
pub const fn scratch_bytes(consumers: u32, quads: u32) -> u32 {
    (quads + MOST_CLUSTER_SLICES - 1) * consumers * crate::gpu::hopper::WARPGROUP_THREADS * 16
}

#[cfg(ptx_ladder_hopper)]
pub(crate) use device::ClusterSum;

#[cfg(ptx_ladder_hopper)]
mod device {
    use crate::gemm::hopper::{Scale, pair_position, store_pair};
    use crate::gpu::hopper::{WARPGROUP_THREADS, load_shared_f32x4, store_cluster_f32x4, sync_cluster};

    /// One block's part in adding its tile's slices: where its scratch is,
    /// how many slices (blocks) the cluster has, which one it is, and the
    /// quads it owns.
    #[derive(Clone, Copy)]
    pub struct ClusterSum {
        /// Shared address of the scratch (the stages; the same in every block).
        scratch: u32,
        slices: u32,
        /// This block's slice: its rank in the cluster.
        slice: u32,
        consumers: u32,
        /// Quads per thread each block owns (the last owns fewer when
        /// `quads` is not a multiple of `slices`).
        share: u32,
    }

    impl ClusterSum {
        /// `quads` accumulator quads per consumer thread, `consumers`
        /// warpgroups, `slices` blocks in the cluster, this one `slice`.
        #[inline(always)]
        pub fn new(scratch: u32, (slices, slice): (u32, u32), consumers: u32, quads: u32) -> ClusterSum {
            ClusterSum { scratch, slices, slice, consumers, share: quads.div_ceil(slices) }
        }

        /// The slot of `slice`'s value of quad `local` of the owner's share,
        /// for consumer `consumer`'s thread `thread`.
        #[inline(always)]
        fn slot(&self, slice: u32, local: u32, consumer: u32, thread: u32) -> u32 {
            self.scratch + (((slice * self.share + local) * self.consumers + consumer) * WARPGROUP_THREADS + thread) * 16
        }

        /// For threads with nothing to send (the producer, a consumer with
        /// no rows below M): every thread of the cluster arrives at both
        /// barriers of [`ClusterSum::exchange`].
        #[inline(always)]
        pub fn stand_by(&self) {
            sync_cluster();
            sync_cluster();
        }

        /// Waits until every block of the cluster has finished multiplying
        /// (so its stages are free), sends each of this thread's quads
        /// that `wanted` (those inside C) to the block that owns it, and
        /// waits until every block's sends have landed.
        #[inline(always)]
        pub unsafe fn exchange<const N: usize>(&self, acc: &[f32; N], (consumer, thread): (u32, u32), wanted: impl Fn(u32) -> bool) {
            sync_cluster();
            // The owner and the quad's place in its share, counted along
            // rather than divided: the loop is unrolled (`acc` must be
            // indexed by constants to stay in registers).
            let (mut owner, mut local) = (0, 0);
            for quad in 0..N / 4 {
                if wanted(quad as u32) {
                    let slot = self.slot(self.slice, local, consumer, thread);
                    let values = [acc[4 * quad], acc[4 * quad + 1], acc[4 * quad + 2], acc[4 * quad + 3]];
                    unsafe { store_cluster_f32x4(slot, owner, values) };
                }
                local += 1;
                if local == self.share {
                    (owner, local) = (owner + 1, 0);
                }
            }
            sync_cluster();
        }

        /// Adds the slices of this block's share of consumer `consumer`'s
        /// thread `thread`'s `quads` quads, slice 0 first, and hands each
        /// sum to `store` with its quad's number; quads for which `inside`
        /// is false (outside C) are skipped.
        #[inline(always)]
        pub unsafe fn add(
            &self,
            quads: u32,
            (consumer, thread): (u32, u32),
            inside: impl Fn(u32) -> bool,
            mut store: impl FnMut(u32, [f32; 4]),
        ) {
            let first = self.slice * self.share;
            let mut local = 0;
            while local < self.share && first + local < quads {
                if inside(first + local) {
                    let mut sum = unsafe { load_shared_f32x4(self.slot(0, local, consumer, thread)) };
                    for slice in 1..self.slices {
                        let value = unsafe { load_shared_f32x4(self.slot(slice, local, consumer, thread)) };
                        for v in 0..4 {
                            sum[v] += value[v];
                        }
                    }
                    store(first + local, sum);
                }
                local += 1;
            }
        }

        /// [`ClusterSum::add`] for accumulators in the wgmma layout of C
        /// itself: stores the sums, scaled, into `c` (`m`×`n`; the
        /// consumer's rows start at `row0`), a pair of neighbouring columns
        /// at a time.
        #[inline(always)]
        pub unsafe fn add_and_store(
            &self,
            quads: u32,
            (consumer, thread): (u32, u32),
            scale: Scale,
            c: *mut f32,
            (m, n): (u32, u32),
            (row0, col0): (u32, u32),
        ) {
            let position = |quad: u32| {
                let (row, col) = pair_position(thread, 2 * quad);
                (row0 + row, col0 + col)
            };
            let inside = |quad: u32| {
                let (row, col) = position(quad);
                row < m && col < n
            };
            let store = |quad: u32, sum: [f32; 4]| {
                let (row, col) = position(quad);
                unsafe {
                    store_pair((sum[0], sum[1]), scale, c, (m, n), (row, col));
                    store_pair((sum[2], sum[3]), scale, c, (m, n), (row + 8, col));
                }
            };
            unsafe { self.add(quads, (consumer, thread), inside, store) };
        }
    }
}
