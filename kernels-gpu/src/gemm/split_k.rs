//! Split K: when a GEMM has fewer output tiles than the GPU has SMs (a few
//! tokens times a weight matrix, or a small C with a deep K), most SMs
//! would sit idle while each busy one walks all of K. Cutting K into
//! slices makes `tiles × slices` units of work; each unit writes its own
//! partial C, and [`sum_slices`] adds the slices in a fixed order, so the
//! result is the same bits on every run.
//!
//! Shorter sums are also more accurate: a tensor core's accumulator loses
//! bits at every add of a long K (see the book's chapter on error
//! bounds), and a slice of a few hundred values of K loses few.

use crate::gpu::{self, load_f32x4, store_f32x4};
use crate::launch::{Dim3, LaunchShape};
use kernels_macros::kernel;

/// How K is cut: `count` slices of `k_tiles` k-tiles each (the last may
/// be shorter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KSlices {
    pub count: u32,
    pub k_tiles: u32,
}

/// A slice is at least this many k-tiles: each unit fills its pipeline
/// once before its copies overlap its multiplies, so a very short slice
/// is mostly filling.
pub const MIN_SLICE_K_TILES: u32 = 4;

/// What starting a unit costs, in k-tiles of streaming: its first copies'
/// latency before the pipeline flows, and its epilogue. Measured on the
/// H200: Llama-3-8B's gate_up at M = 16 took 79 µs as 112 units of 64
/// k-tiles and 88 µs as 896 units of 8, about 1.5 µs (1.5 k-tiles of
/// 32 KB at an SM's share of DRAM) per extra unit.
pub const UNIT_START_K_TILES: u32 = 2;

/// What each round of clusters after the first costs, in bytes of weights
/// an SM would have streamed meanwhile: a cluster's blocks start together
/// and its slot frees only when all of them have added their slices, so
/// every SM's pipeline drains and fills again between rounds, with no
/// copies running ahead as a persistent block's do. Measured on the H200:
/// about 4.3 µs a round (80 tiles of 16 rows in clusters of 4 at M = 1
/// took three rounds and 29.8 µs, 2 slices in one round 20.1; Qwen2-7B's
/// qkv at M = 32, 72 tiles of 32 × 64, 17.9 µs in 3 slices and two
/// rounds, 14.4 with K whole), at the 50 GB/s of weights an SM streams in
/// those tiles.
pub const ROUND_RESTART_BYTES: u32 = 216 * 1024;

/// The most slices one cluster adds (one block per slice): the portable
/// cluster size (more needs an opt-in the driver may refuse).
pub const MOST_CLUSTER_SLICES: u32 = 8;

/// How many clusters of 1, 2, … [`MOST_CLUSTER_SLICES`] blocks of one
/// kernel fit on the GPU at once: `of(c)` for clusters of `c`. A cluster's
/// blocks must run on SMs of one group (a GPC on NVIDIA GPUs), and the
/// groups need not divide evenly: with one block per SM the H200 holds 15
/// clusters of 8, not 132 / 8 = 16, and a 16th would run after the others.
/// Clusters of 1 are plain blocks: `of(1)` is the SMs (times blocks per SM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterSlots(pub [u32; MOST_CLUSTER_SLICES as usize]);

impl ClusterSlots {
    /// As if every size packed the SMs perfectly (`multiprocessors / c`):
    /// what a GPU without clusters, or one not asked, is assumed to do.
    pub const fn packed(multiprocessors: u32) -> ClusterSlots {
        let mut slots = [0; MOST_CLUSTER_SLICES as usize];
        let mut c = 0;
        while c < slots.len() {
            slots[c] = multiprocessors / (c as u32 + 1);
            c += 1;
        }
        ClusterSlots(slots)
    }

    /// Clusters of `size` blocks that fit at once (`size` from 1 to
    /// [`MOST_CLUSTER_SLICES`]).
    pub const fn of(&self, size: u32) -> u32 {
        self.0[size as usize - 1]
    }

    /// Blocks that run at once with clusters of 1: the SMs, for a kernel of
    /// one block per SM.
    pub const fn multiprocessors(&self) -> u32 {
        self.of(1)
    }
}

/// What a cut costs the busiest SM, in bytes.
#[derive(Clone, Copy)]
struct Cost {
    k_tile_bytes: u32,
    tile_bytes: u32,
    /// Times each partial C crosses the chip: 2 through DRAM (written,
    /// then read by [`sum_slices`]), 1 within a cluster.
    passes: u32,
    /// When a tile's slices run as one cluster: how many clusters fit at
    /// once.
    cluster: Option<ClusterSlots>,
}

impl Cost {
    /// The busiest SM's streaming (its rounds of units, each with
    /// [`UNIT_START_K_TILES`] to fill its pipeline) and its share of the
    /// partial sums.
    const fn of(self, cut: KSlices, tiles: u32, multiprocessors: u32) -> u64 {
        let units = tiles as u64 * cut.count as u64;
        let rounds = match self.cluster {
            Some(slots) => (tiles as u64).div_ceil(slots.of(cut.count) as u64),
            None => units.div_ceil(multiprocessors as u64),
        };
        let stream = rounds * (cut.k_tiles + UNIT_START_K_TILES) as u64 * self.k_tile_bytes as u64;
        let restarts = if self.cluster.is_some() { (rounds - 1) * ROUND_RESTART_BYTES as u64 } else { 0 };
        let partial = if cut.count == 1 { 0 } else { self.passes as u64 * units * self.tile_bytes as u64 / multiprocessors as u64 };
        stream + restarts + partial
    }
}

impl KSlices {
    /// K whole: one slice of all `k_tiles`.
    pub const fn whole(k_tiles: u32) -> KSlices {
        KSlices { count: 1, k_tiles }
    }

    /// The cut that finishes first by a count of bytes, for `tiles` tiles
    /// whose k-tiles each read `k_tile_bytes` from DRAM, and whose partial
    /// C is `tile_bytes` of fp32, added by [`sum_slices`]. Only a GPU that
    /// the tiles leave partly idle is worth cutting K for: with a wave or
    /// more of tiles, the partial sums' traffic costs more than evening out
    /// the last wave saves. Otherwise the count is the busiest SM's k-tiles
    /// (units are dealt out round-robin, so it has the units per SM rounded
    /// up, each with [`UNIT_START_K_TILES`] to fill its pipeline), plus its
    /// share of the partial sums (written, then read by the reduction).
    pub const fn plan(tiles: u32, k_tiles: u32, multiprocessors: u32, k_tile_bytes: u32, tile_bytes: u32) -> KSlices {
        let cost = Cost { k_tile_bytes, tile_bytes, passes: 2, cluster: None };
        KSlices::cheapest(tiles, k_tiles, multiprocessors, k_tiles / MIN_SLICE_K_TILES, cost)
    }

    /// The same, when a tile's slices are added inside a cluster of one
    /// block per slice ([`crate::gemm::hopper::cluster_sum`]): at most
    /// [`MOST_CLUSTER_SLICES`] slices, the partial sums cross the chip once
    /// (no DRAM, no second kernel), and only `slots` whole clusters run at
    /// once: a cut whose clusters do not all fit runs a second round, which
    /// starts only as the first ends ([`ROUND_RESTART_BYTES`]).
    pub const fn plan_in_cluster(tiles: u32, k_tiles: u32, slots: ClusterSlots, k_tile_bytes: u32, tile_bytes: u32) -> KSlices {
        let most = k_tiles / MIN_SLICE_K_TILES;
        let most = if most < MOST_CLUSTER_SLICES { most } else { MOST_CLUSTER_SLICES };
        let cost = Cost { k_tile_bytes, tile_bytes, passes: 1, cluster: Some(slots) };
        KSlices::cheapest(tiles, k_tiles, slots.multiprocessors(), most, cost)
    }

    /// The cut of at most `most` slices with the lowest [`Cost`].
    const fn cheapest(tiles: u32, k_tiles: u32, multiprocessors: u32, most: u32, cost: Cost) -> KSlices {
        let most = if tiles < multiprocessors && k_tiles >= 2 * MIN_SLICE_K_TILES { most } else { 1 };
        let mut best = KSlices::whole(k_tiles);
        let mut best_cost = u64::MAX;
        let mut slices = 1;
        while slices <= most {
            let per = k_tiles.div_ceil(slices);
            let cut = KSlices { count: k_tiles.div_ceil(per), k_tiles: per };
            let bytes = cost.of(cut, tiles, multiprocessors);
            if bytes < best_cost {
                best = cut;
                best_cost = bytes;
            }
            slices += 1;
        }
        best
    }

    /// Floats of the partial sums: one `m`×`n` C per slice, none when K
    /// is whole (the kernel then writes C itself).
    pub const fn workspace(&self, m: u32, n: u32) -> u64 {
        if self.count == 1 { 0 } else { self.count as u64 * m as u64 * n as u64 }
    }
}

/// The k-tiles `[begin, end)` of slice `slice` when K's `k_tiles` are cut
/// into slices of `per_slice`.
#[inline(always)]
pub const fn slice_range(slice: u32, per_slice: u32, k_tiles: u32) -> (u32, u32) {
    let begin = slice * per_slice;
    let end = begin + per_slice;
    (begin, if end < k_tiles { end } else { k_tiles })
}

/// Threads per block of [`sum_slices`].
pub const SUM_THREADS: u32 = 256;

/// Lanes of [`sum_slices`] that share one group of 4 elements, each adding
/// every `lanes`-th slice: one when there are few slices, up to 32 when
/// there are hundreds (so no thread waits on hundreds of loads in a row).
pub const fn sum_lanes(slices: u32) -> u32 {
    let mut lanes = 1;
    while lanes < 32 && 4 * lanes < slices {
        lanes *= 2;
    }
    lanes
}

/// Grid, block and shared memory of [`sum_slices`] over `len` elements
/// and `slices` partial sums.
pub const fn sum_launch(len: u32, slices: u32) -> LaunchShape {
    let lanes = sum_lanes(slices);
    let width = SUM_THREADS / lanes;
    let shared_bytes = if lanes == 1 { 0 } else { SUM_THREADS * 4 * 4 };
    LaunchShape { grid: Dim3::new(len.div_ceil(4 * width), 1, 1), block: Dim3::new(width, lanes, 1), shared_bytes }
}

/// `c[i] = alpha · Σ_s partial[s·len + i] + beta · c[i]` for `i < len`;
/// C is not read when beta is 0. Shape: [`sum_launch`].
///
/// Each thread takes 4 neighbouring elements (one 16-byte load per slice
/// when `len` is a multiple of 4, so every slice starts 16-byte aligned).
/// Lane `y` of `blockDim.y` adds slices `y, y + lanes, …` in order, then
/// lane 0 adds the lanes' sums in order. The order depends only on the
/// number of slices, so the same partials give the same bits on every run,
/// whichever unit of the product finished first.
#[kernel]
pub unsafe fn sum_slices(len: u32, slices: u32, partial: *const f32, alpha: f32, beta: f32, c: *mut f32) {
    unsafe { add_slices(len, slices, partial, alpha, beta, c) }
}

/// [`sum_slices`] for the Hopper GEMMs, launched with programmatic stream
/// serialization: its blocks may start while the GEMM's last blocks still
/// run (the GEMM's blocks say so with
/// [`launch_dependents`](crate::gpu::hopper::launch_dependents)), and wait
/// for the GEMM to finish before reading its partial sums. The launch and
/// the blocks' start then overlap the GEMM instead of following it.
#[kernel(sm_90a)]
pub unsafe fn sum_slices_after_gemm(len: u32, slices: u32, partial: *const f32, alpha: f32, beta: f32, c: *mut f32) {
    crate::gpu::hopper::wait_for_prerequisite_grids();
    unsafe { add_slices(len, slices, partial, alpha, beta, c) }
}

/// The body of [`sum_slices`].
#[inline(always)]
unsafe fn add_slices(len: u32, slices: u32, partial: *const f32, alpha: f32, beta: f32, c: *mut f32) {
    let (x, lane) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (width, lanes) = (gpu::block_dim().x, gpu::block_dim().y);
    let first = (gpu::block_idx().x * width + x) * 4;
    let whole = len % 4 == 0 && first < len;
    let read = |p: *const f32| -> [f32; 4] {
        if whole {
            unsafe { load_f32x4(p) }
        } else {
            core::array::from_fn(|i| if first + (i as u32) < len { unsafe { gpu::load(p.add(i)) } } else { 0.0 })
        }
    };
    let mut sum = [0.0f32; 4];
    if first < len {
        let slice = |s: u32| read(unsafe { partial.add(s as usize * len as usize + first as usize) });
        let mut s = lane;
        // Four of the lane's slices loaded before any is added, so their
        // loads are in flight together; added in the same order as one by
        // one, so the bits do not change.
        while s + 3 * lanes < slices {
            let v: [[f32; 4]; 4] = core::array::from_fn(|j| slice(s + j as u32 * lanes));
            for vj in v {
                for i in 0..4 {
                    sum[i] += vj[i];
                }
            }
            s += 4 * lanes;
        }
        while s < slices {
            let v = slice(s);
            for i in 0..4 {
                sum[i] += v[i];
            }
            s += lanes;
        }
    }
    if lanes > 1 {
        let shared = gpu::dynamic_shared::<f32>();
        let slot = |l: u32, i: usize| (4 * (l * width + x)) as usize + i;
        for i in 0..4 {
            unsafe { gpu::store(shared.add(slot(lane, i)), sum[i]) };
        }
        gpu::sync_threads();
        if lane == 0 {
            for l in 1..lanes {
                for i in 0..4 {
                    sum[i] += unsafe { gpu::load(shared.add(slot(l, i))) };
                }
            }
        }
    }
    if lane == 0 && first < len {
        let out = unsafe { c.add(first as usize) };
        let old = if beta == 0.0 { [0.0; 4] } else { read(out) };
        let value: [f32; 4] = core::array::from_fn(|i| alpha * sum[i] + beta * old[i]);
        if whole {
            unsafe { store_f32x4(out, value) };
        } else {
            for i in 0..4 {
                if first + (i as u32) < len {
                    unsafe { gpu::store(out.add(i), value[i]) };
                }
            }
        }
    }
}
