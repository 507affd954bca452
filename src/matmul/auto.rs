//! The "auto" rung: which kernel a shape should run, chosen from a model
//! of the GPU rather than a table of shapes.
//!
//! Nine kinds of kernel compete:
//! - the **small-M** kernel streams B once (per 1, 8 or 16 rows of A) on
//!   the CUDA cores, splitting K over blocks until every SM has work. Its
//!   time comes from its bytes over DRAM bandwidth and its FLOPs over the
//!   FP32 pipes, the shorter of the two half hidden ([`OVERLAP_LOSS`]);
//! - the **tiled** tensor-core rung (BF16 rung 7 or SGEMM rung 12 on
//!   Hopper) computes 128×256 tiles, one tile per SM at a time. Its
//!   arithmetic time is the number of waves of tiles (tiles over SMs,
//!   rounded up: a wave with one tile in it costs as much as a full one)
//!   times one tile's time, combined with its bytes' time the same way,
//!   except that the hidden share grows with the share of the tiles' rows
//!   that hold rows of A: full tiles hide the shorter time wholly
//!   (`combined_tiles`);
//! - the **narrow tiles** rungs (BF16 rungs 14 and 16) are rung 7 with
//!   tiles 192 and 128 wide: more tiles of three quarters or half the
//!   work, so a last wave that 128×256 tiles fill only partly can come out
//!   fuller ([`narrow_time`]);
//! - the **split-K** tensor-core rung (BF16 rung 9, SGEMM rung 14) cuts K
//!   into slices until the tiles × slices fill the SMs
//!   ([`kernels_gpu::gemm::split_k`]): the same tiles' arithmetic spread
//!   over more SMs, plus the partial sums' bytes and a second launch to
//!   add them, and no faster than each SM's copies fill its stages, zeros
//!   included ([`split_time`]);
//! - the **split-B** rung (SGEMM rung 15) is the split-K rung reading the
//!   weights once, as they are, and splitting them into TF32 parts in
//!   shared memory: a fifth of the weights' bytes, at a slower tile rate
//!   ([`split_b_time`]);
//! - the **cluster split-K** rung (BF16 rung 10) runs each tile's slices as
//!   one cluster and adds them through distributed shared memory: no
//!   partial sums in DRAM and one launch, but at most 8 slices, rounds of
//!   the clusters that fit at once, and a swap over the SM-to-SM network;
//! - the **swap-AB** rung (BF16 rung 11) computes Cᵀ over 16-row tiles for
//!   M ≤ 16, its stages nearly all weights;
//! - the **fitted-tiles** rung (BF16 rung 13) is the same swapped GEMM
//!   with 16 to 128 rows per tile (steps of 16 from 64 up), its slices added in a cluster,
//!   offered where the 128×256 tiles are fewer than the SMs: its time is
//!   the slowest of each SM's streaming, DRAM and the wgmmas
//!   ([`fitted_time`]);
//! - the **deep-K** rung (BF16 rung 15) is the swapped GEMM with 64×64
//!   tiles and rung 11's cut of K over every SM, for deep K with few
//!   outputs ([`deep_k_time`]).
//!
//! The model predicts each from the shape and the GPU (SMs, peaks, DRAM
//! bandwidth) and picks the fastest, saying why in the numbers that
//! decide it: the shape's FLOPs per byte against the GPU's ridge point,
//! and tiles against SMs. Its constants are measured fractions of the
//! peaks (named below), so a shape it was not tuned on is judged by the
//! same two limits.

use super::dtype::Dtype;
use kernels_gpu::gemm::hopper::{Entry, HopperKernel};
use kernels_gpu::gemm::small_m::{self, SmallMPlan};
use kernels_gpu::gemm::split_k::{ClusterSlots, KSlices};
use kernels_gpu::gemm::tiling::Tiling;

/// Clusters of 1 to 8 blocks of the Hopper GEMMs that the H200 runs at
/// once, as its driver reports them (`ptx-ladder info`).
pub const H200_CLUSTERS: ClusterSlots = ClusterSlots([132, 66, 39, 30, 22, 17, 15, 15]);

/// Fraction of the FP32 peak the small-M kernel's FMAs sustain on fp32
/// inputs, fitted on the H200: with A's slice in shared memory it ran
/// Llama-3-8B's projections at M = 16 to 128 at 0.42-0.48 of the peak
/// (FMAs alone), and 0.4 predicts those times within 30%, above rather
/// than below.
pub const SMALL_M_FMA_EFFICIENCY_F32: f64 = 0.4;

/// The same on bf16 inputs at 8 and 16 rows of A: each value is unpacked
/// to fp32 before its FMAs, and at 16 rows of A a thread's 16 × 8 sums
/// leave room for 8 warps per SM. 0.1 was measured (7-11 TFLOP/s of 66.9
/// at 8 and 16 rows of A) while A still came from global memory. Not
/// re-measured since: at those M the BF16 ladder's swapped tensor-core
/// tiles are faster (M = 16 on Llama-3-8B's projections on the H200:
/// 14.5-61.6 µs against 45.3-150.7), and this rate keeps the model
/// agreeing.
pub const SMALL_M_FMA_EFFICIENCY_BF16: f64 = 0.1;

/// [`SMALL_M_FMA_EFFICIENCY_F32`] or [`SMALL_M_FMA_EFFICIENCY_BF16`].
fn small_m_fma_efficiency(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::F32 => SMALL_M_FMA_EFFICIENCY_F32,
        Dtype::Bf16 => SMALL_M_FMA_EFFICIENCY_BF16,
    }
}

/// What the small-M kernel takes at one row of A beyond its bytes at
/// DRAM's rate: the launch, its one wave of blocks waiting on their first
/// loads together, and the tiles' last blocks adding the slices. Its FMAs
/// (one per value of B, beside bf16's unpacking) hide behind the loads of
/// the other warps. Fitted on the H200 in the sweep (weights from DRAM):
/// at M = 1 on Llama-3-8B's o, qkv, gate_up and down bf16 took 14.8,
/// 18.8, 58.9 and 33.2 µs, 6.4-7.6 µs beyond their bytes, fp32 4.7-7.0;
/// other models' bf16 weights of 33-271 MB 7.2-9.0. 8 µs predicts the
/// Llama shapes above rather than below, within 8%, and picks the swapped
/// tiles where they were faster (34 MB and less).
pub const SMALL_M_ONE_ROW_SECONDS: f64 = 8e-6;

/// What BF16 rung 18 (the small-M stream on tensor cores) takes beyond its
/// bytes at DRAM's rate, at one row of A and more for each row up to 16:
/// the launch, its one wave of blocks waiting on their first loads, every
/// block's rows of A from L2 and its sums added across its warps, and the
/// tiles' last blocks adding the slices. Fitted on the H200 in the sweep
/// (weights from DRAM, 79 shapes of eight models at M = 1, 8 and 16 whose
/// blocks fit in one round): 7.2-9.0 µs beyond the bytes at M = 1,
/// 7.8-9.3 at M = 8 and 9.0-10.5 at M = 16. The model takes the top of
/// that range, as the swapped tiles' model predicts above rather than
/// below. Replayed over those 79 measurements, the top made "auto" take
/// the rung on 23 shapes and reach 97.6% of cuBLAS; the middle (7.5 µs +
/// 2 µs × M / 16) on 45, many of them where the swapped tiles or rung 8
/// were faster, and 97.3%.
pub const SMALL_M_TENSOR_SECONDS: f64 = 9e-6;

/// [`SMALL_M_TENSOR_SECONDS`]'s growth from one row of A to 16.
pub const SMALL_M_TENSOR_ROWS_SECONDS: f64 = 2e-6;

/// Fraction of the dense BF16 tensor peak a full tile of BF16 rung 7
/// sustains (662 of 989 TFLOP/s at 4096³ on the H200).
pub const TILED_BF16_EFFICIENCY: f64 = 0.67;

/// The same for the 3xTF32 rung 12, against the dense BF16 peak (111 of
/// 989 TFLOP/s at 4096³: three TF32 products at half the BF16 rate, plus
/// the split).
pub const TILED_TF32X3_EFFICIENCY: f64 = 0.112;

/// The narrow-tiles rung (BF16 rung 14, 128×192 tiles) against rung 7,
/// per FLOP of full waves: each k-tile's A is shared by 192 columns, not
/// 256, so more bytes per FLOP. Measured on the H200 in two runs where
/// both filled their waves: 8192³ 0.96-0.98, qkv at M = 8192 0.96-0.98,
/// 4096³ 0.99. Where rung 14 filled a last wave that rung 7 left mostly
/// empty (qkv at M = 1024, 1536×4096×4096, Llama-2-13B's o at M = 1024)
/// it came out at 0.88-0.95, because rung 7's half-empty wave runs faster
/// than a full one; the rounds still decide those shapes by 17-30%.
pub const NARROW_TILE_EFFICIENCY: f64 = 0.96;

/// The same for BF16 rung 16's 128×128 tiles: each k-tile's A is shared
/// by 128 columns, and each wgmma reads its slice of A for half of rung
/// 7's multiplies. Measured on the H200 where every width filled its
/// rounds: 8192³ 0.92, 4096³ 0.94, qkv at M = 8192 0.93, Llama-3-70B's o
/// at M = 4096 0.92.
pub const TILES_128_EFFICIENCY: f64 = 0.93;

/// The split-K rung against rung 7, per full tile: its body is rung 4's
/// (C stored from registers, not by TMA behind the next tile's
/// multiplies); at M = 1024 to 8192 on the H200 it ran at 94-99% of rung
/// 7's speed.
pub const SPLIT_K_TILE_EFFICIENCY: f64 = 0.96;

/// Seconds per byte for the blocks of a cluster to swap their partial
/// tiles through distributed shared memory (BF16 rung 10), per block:
/// each block sends its whole partial tile (the rows below M) to the
/// blocks that own its parts. Measured on the H200: see
/// [`cluster_split_time`].
pub const CLUSTER_EXCHANGE_SECONDS_PER_BYTE: f64 = 1.0 / 12e9;

/// Fraction of DRAM bandwidth the split-K rung's TMA copies reach when
/// the weights stream through it: 3.0 of 4.5 TB/s on Llama-3-8B's gate_up
/// at M = 16 on the H200 (four 48 KB stages in flight per SM).
pub const SPLIT_K_STREAM_EFFICIENCY: f64 = 0.66;

/// Bytes per second of stages (zeros included) one SM's TMA copies fill
/// for the split-K rung: fitted on the H200 to BF16 rung 9 at 64×64×K,
/// one 128×256 tile (three quarters zeros) in 64 or 128 slices of K:
/// 12.1, 18.5 and 27.1 µs at K = 16384, 65536 and 131072, 197 to 786 KB
/// of stages per SM, about 39 GB/s per SM above a fixed 7 µs.
pub const SPLIT_K_SM_BYTES_PER_SECOND: f64 = 39e9;

/// The same where more than half of the tiles' area holds C:
/// rung 9 took Qwen2-7B's down at M = 200 on the H200 (28 tiles of
/// 128×256 in 4 slices, 3.6 MB of stages per SM) in 57.2 µs, 70 GB/s
/// per SM, where [`SPLIT_K_SM_BYTES_PER_SECOND`] says 98.
pub const SPLIT_K_FULL_SM_BYTES_PER_SECOND: f64 = 70e9;

/// Fraction of DRAM bandwidth the swap-AB rung (BF16 rung 11) reaches on
/// the weights: 3.3 of 4.5 TB/s on Llama-3-8B's gate_up at M = 16 on the
/// H200 (twelve 18 KB stages per SM, nearly all of them weights).
pub const SWAP_AB_STREAM_EFFICIENCY: f64 = 0.74;

/// What the swap-AB rung (BF16 rung 11) takes beyond what
/// [`split_time`]'s terms give it: its persistent blocks' start, and the
/// second kernel that adds the slices waiting for the last unit. Over 28
/// shapes at M ≤ 16 on the H200 (weights from DRAM, 8-302 MB) its times
/// fit 7.7 µs + the bytes at 4.15 TB/s, and the 16-row fitted tiles' (one
/// launch, slices added in the cluster) 5.9-6.8 µs + the bytes at
/// 3.8-4.0 TB/s: below about 60 MB the fitted tiles are faster
/// (Llama-3.2-1B's o at M = 16: 9.4 µs against 8.4; Llama-3.2-3B's o 12.5
/// against 10.9), above it the two are within a few percent.
pub const SWAP_AB_FIXED_SECONDS: f64 = 2e-6;

/// Bytes per second one SM's TMA copies bring in when the tiles of
/// [the fitted-tiles rung](fitted_time) stream from L2 (A's rows are read
/// again by every tile of columns, the weights by every tile of rows):
/// fitted on the H200 to its 128×64, 128×128 and 64×64 tiles at M = 64 to
/// 256 on Llama-3-8B's projections, where it ran at 58-74 GB/s per SM.
pub const FITTED_SM_BYTES_PER_SECOND: f64 = 65e9;

/// What a clustered launch of the fitted-tiles rung costs before and after
/// its bytes flow (launch, the pipeline's first copies, the cluster's
/// barriers, the stores): the intercept of the same fit, about 5 µs.
pub const FITTED_FIXED_SECONDS: f64 = 5e-6;

/// What each round of the fitted-tiles rung's clusters after the first
/// adds: every SM's pipeline drains and fills again, and the weights stop
/// flowing meanwhile. Measured on the H200 at M = 1 on Llama-2-13B's o
/// (5120²) and phi-2's fc1 (2560×10240): 80 tiles in clusters of 4, 30 at
/// once, three rounds, took 29.8 and 29.0 µs where the model without it
/// said 21: about 4.3 µs a round.
pub const FITTED_ROUND_SECONDS: f64 = 4.3e-6;

/// What the deep-K rung (BF16 rung 15) takes beyond its bytes: two
/// launches, every SM's first copies arriving, the partial sums' second
/// kernel. Measured on the H200 at 64×64×K with weights from DRAM: 9.6,
/// 13.5 and 17.9 µs at K = 16384, 65536 and 131072, about 7 µs above the
/// bytes at [`SWAP_AB_STREAM_EFFICIENCY`] of DRAM's rate.
pub const DEEP_K_FIXED_SECONDS: f64 = 7e-6;

/// The fitted-tiles rung's wgmma rate against a full tile of rung 7
/// ([`TILED_BF16_EFFICIENCY`]): its 128×128 tiles ran Llama-3-8B's qkv at
/// M = 256 at 3.9 TFLOP/s per SM, 0.78 of rung 7's rate.
pub const FITTED_TILE_EFFICIENCY: f64 = 0.78;

/// SGEMM rung 15 (B split in shared memory) against rung 14, per full
/// tile: its consumers also split and transpose B's k-tiles, 48 KB of
/// shared-memory traffic per k-tile beside the wgmmas' own. At 4096³ on the
/// H200 it took 1307 µs where rung 14 (K whole) took 1114.
pub const SPLIT_B_TILE_EFFICIENCY: f64 = 0.85;

/// How many times the tiled rung moves its inputs' bytes: once for BF16
/// rung 7; five times for the 3xTF32 rung 12, which reads A and B, writes
/// their big and small TF32 parts, and reads those in the GEMM.
fn input_passes(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::Bf16 => 1.0,
        Dtype::F32 => 5.0,
    }
}

/// What one launch of a 3xTF32 rung's split (A's or B's values into TF32
/// big and small parts, whose bytes the model counts as passes over the
/// inputs) costs besides its bytes: its start and its last blocks' tail.
/// On the H200 rung 12 took 15.3 µs at 3136 × 64 × 27 and 17.6 at 255 ×
/// 264 × 137, shapes whose bytes and tiles take 5-8 µs.
pub const TF32X3_SPLIT_SECONDS: f64 = 4e-6;

/// The fixed costs of a Hopper rung's split launches: A's and B's for the
/// 3xTF32 rungs, A's alone where B is split in shared memory; none on
/// BF16.
fn split_launch_seconds(kernel: &HopperKernel) -> f64 {
    match kernel.entry {
        Entry::Tf32x3(_) | Entry::Tf32x3Split(_) => 2.0 * TF32X3_SPLIT_SECONDS,
        Entry::Tf32x3RawB(_) => TF32X3_SPLIT_SECONDS,
        Entry::Bf16(_) | Entry::Bf16Store(_) | Entry::Bf16Split(_) | Entry::Bf16ClusterSplit(_) => 0.0,
    }
}

/// The small-M kernel's plan for elements of `element_bytes` on a GPU of
/// `multiprocessors` SMs: what the model predicts and the rung runs.
pub const fn small_m_plan((m, n, k): (u32, u32, u32), element_bytes: u32, multiprocessors: u32) -> SmallMPlan {
    SmallMPlan::new((m, n, k), element_bytes, multiprocessors, small_m::BLOCKS_PER_SM)
}

/// BF16 rung 18's plan ([`SmallMPlan::tensor`]) for `multiprocessors` SMs.
pub const fn small_m_tensor_plan((m, n, k): (u32, u32, u32), multiprocessors: u32) -> SmallMPlan {
    SmallMPlan::tensor((m, n, k), multiprocessors, small_m::BLOCKS_PER_SM)
}

/// How much of the shorter of memory time and arithmetic time a kernel
/// fails to hide behind the longer: 0 is perfect overlap, 1 none. Rung 7
/// at M = 1 on Llama-3-8B's gate_up (235 MB of weights, one wave of
/// tiles whose arithmetic takes as long as the weights' bytes) read its
/// weights at 1.8 TB/s, where perfect overlap would give 4.5 TB/s.
pub const OVERLAP_LOSS: f64 = 0.5;

/// A kernel's time from its memory time and its arithmetic time.
fn combined(memory: f64, arithmetic: f64) -> f64 {
    combined_with(OVERLAP_LOSS, memory, arithmetic)
}

fn combined_with(loss: f64, memory: f64, arithmetic: f64) -> f64 {
    memory.max(arithmetic) + loss * memory.min(arithmetic)
}

/// [`combined`] for a tensor-core kernel whose tiles of `tile_m` rows
/// cover M's `m`. The loss was measured with 127 of 128 rows empty (rung
/// 7 at M = 1: [`OVERLAP_LOSS`]); it scales with the share of empty rows
/// the tiles carry. With full tiles the copies run ahead of the
/// multiplies and the longer of the two is the time: BF16 rung 9 ran
/// Phi-3-mini's gate_up at M = 256 (128 full tiles of 128×256, one per
/// SM, K whole) in 41.0 µs on the H200, where its arithmetic alone
/// predicts 41.7 and its bytes 40. Where the inputs go through passes of
/// their own before the GEMM (the 3xTF32 split), those bytes cannot hide
/// behind its multiplies, and the loss stays whole.
fn combined_tiles(dtype: Dtype, memory: f64, arithmetic: f64, (m, tile_m): (u32, u32)) -> f64 {
    if input_passes(dtype) > 1.0 {
        return combined(memory, arithmetic);
    }
    let covered = (m.div_ceil(tile_m) * tile_m) as f64;
    let empty = 1.0 - m as f64 / covered;
    let loss_per_empty_share = OVERLAP_LOSS * tile_m as f64 / (tile_m - 1) as f64;
    combined_with(loss_per_empty_share * empty, memory, arithmetic)
}

/// What the small-M kernel takes at 8 and 16 rows of A beyond its bytes,
/// its FMAs and its launches: its one wave of blocks staging A and
/// waiting on their first loads together, and the tiles' last blocks
/// adding the slices. Measured at M = 1 on the H200 while each block still
/// staged its row of A first: 5-10 µs beyond bytes, FMAs and launches on
/// Llama-3-8B's projections and other models'; 5 µs keeps the M = 16 fits
/// of the FMA rates. At one row of A: [`SMALL_M_ONE_ROW_SECONDS`]. The
/// tensor-core rungs' models were fitted with their start in their rates.
pub const SMALL_M_START_SECONDS: f64 = 5e-6;

/// A kernel launch costs a few microseconds that no bandwidth hides; the
/// small-M kernel needs a second one where its slices of K are too many
/// for each tile's last block to add.
pub const LAUNCH_SECONDS: f64 = 2.5e-6;

/// What the model knows of the GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    pub multiprocessors: u32,
    /// Clusters of 1 to 8 one-per-SM blocks that run at once.
    pub clusters: ClusterSlots,
    /// FP32 FMA pipes, FLOP/s.
    pub fp32_flops: f64,
    /// Dense BF16 tensor cores, FLOP/s.
    pub tensor_flops: f64,
    /// DRAM bytes/s.
    pub dram_bytes: f64,
    /// Bytes of L2.
    pub l2_bytes: f64,
}

impl Machine {
    /// The H200 as this project measured it (132 SMs, 66.9 TFLOP/s FP32,
    /// 989 TFLOP/s dense BF16, about 4.5 TB/s from DRAM).
    pub const H200: Machine = Machine {
        multiprocessors: 132,
        clusters: H200_CLUSTERS,
        fp32_flops: 66.9e12,
        tensor_flops: 989e12,
        dram_bytes: 4.5e12,
        l2_bytes: 60.0 * 1024.0 * 1024.0,
    };

    /// A GPU as the driver describes it. The dense BF16 tensor peak is
    /// about 15x the FP32 peak on sm_80 (312 / 19.5 TFLOP/s on the A100) and
    /// sm_90 (989 / 66.9 on the H200); DRAM gives about 93% of what its
    /// clock and bus promise (the memory lab: 4.5 of 4.81 TB/s on the H200).
    pub fn of(info: &crate::device::DeviceInfo) -> Machine {
        let fp32_flops = info.fp32_peak_flops().unwrap_or(info.multiprocessors as f64 * 128.0 * 2.0 * info.sm_clock_khz as f64 * 1e3);
        Machine {
            multiprocessors: info.multiprocessors,
            clusters: ClusterSlots::packed(info.multiprocessors),
            fp32_flops,
            tensor_flops: 15.0 * fp32_flops,
            dram_bytes: 0.93 * info.dram_bandwidth(),
            l2_bytes: info.l2_bytes as f64,
        }
    }

    /// The GPU `gpu` as [`Machine::of`] describes it, with the clusters its
    /// driver says fit at once (on Hopper; elsewhere no rung uses them).
    pub fn of_gpu(gpu: &crate::device::Gpu) -> crate::error::Result<Machine> {
        let machine = Machine::of(&gpu.info);
        if !gpu.is_hopper() {
            return Ok(machine);
        }
        Ok(Machine { clusters: super::hopper::gemm_cluster_slots(gpu)?, ..machine })
    }

    /// FLOPs per byte where tensor-core arithmetic and DRAM take equally long.
    pub fn ridge(&self) -> f64 {
        self.tensor_flops / self.dram_bytes
    }

    /// Whether a shape's minimum traffic takes longer than its FLOPs.
    pub fn memory_bound(&self, size: (u32, u32, u32), input_bytes: f64) -> bool {
        intensity(size, input_bytes) < self.ridge()
    }
}

/// The kernel the model picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    SmallM(SmallMPlan),
    /// BF16 rung 18: the small-M stream on tensor cores.
    SmallMTensor(SmallMPlan),
    /// The ladder's top tensor-core rung.
    Tiled,
    /// One of the ladder's tiled rungs with narrower tiles, by its number
    /// in [`narrow_rungs`] (BF16 rungs 14 and 16).
    NarrowTiles(usize),
    /// The ladder's split-K tensor-core rung, K cut as given.
    SplitK(KSlices),
    /// The ladder's split-K rung that adds the slices in a cluster.
    ClusterSplitK(KSlices),
    /// The ladder's split-K rung that reads B as it is and splits it into
    /// TF32 parts in shared memory, K cut as given.
    SplitB(KSlices),
    /// The ladder's rung for a few rows of A, A and B swapped, K cut as given.
    SwapAb(KSlices),
    /// The ladder's rung for deep K: small swapped tiles, K cut as given
    /// over every SM.
    DeepK(KSlices),
    /// The ladder's rung with tiles fitted to the shape: tile shape number
    /// `tile` of [`fitted_tiles`], K cut as given, the slices added in a
    /// cluster.
    FittedTiles {
        tile: usize,
        slices: KSlices,
    },
    /// The ladder's rung with swapped tiles in pairs along M that share
    /// the weights: tile shape number `tile` of [`paired_tiles`], K cut as
    /// given, the slices added by a second kernel.
    PairedTiles {
        tile: usize,
        slices: KSlices,
    },
    /// The ladder's tensor-core rung of the portable module (BF16 rung 1,
    /// SGEMM rung 11): any shape, any GPU from Ampere on.
    Portable,
}

/// A pick, the predicted time of every candidate and the reason in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub pick: Pick,
    /// The pick's predicted time, copies included.
    pub seconds: f64,
    /// The size the pick runs at, where it runs on copies of A, B and C
    /// padded to rows of whole 16 bytes ([`Hopper::TakesPadded`]).
    pub padded: Option<(u32, u32, u32)>,
    pub small_m_seconds: f64,
    /// The portable module's tensor-core rung ([`portable_time`]).
    pub portable_seconds: f64,
    /// None where the tiled rung cannot run (not Hopper, or a shape its
    /// TMA copies cannot take).
    pub tiled_seconds: Option<f64>,
    /// The fastest of the narrow-tiles rungs; None where the ladder has
    /// none, or the tiled rung cannot run.
    pub narrow_seconds: Option<f64>,
    /// None where the split-K rung cannot run (as the tiled rung).
    pub split_seconds: Option<f64>,
    /// None where the ladder has no rung adding slices in a cluster, or
    /// the tiled rung cannot run.
    pub cluster_split_seconds: Option<f64>,
    /// None where the ladder has no rung splitting B in shared memory, N is
    /// not a multiple of 4 (its TMA reads B's rows), or the tiled rung
    /// cannot run.
    pub split_b_seconds: Option<f64>,
    /// None where the ladder has no swap-AB rung, M is above its rows, or
    /// the tiled rung cannot run.
    pub swap_seconds: Option<f64>,
    /// None where the ladder has no deep-K rung, or the tiled rung cannot
    /// run.
    pub deep_k_seconds: Option<f64>,
    /// None where the ladder has no fitted-tiles rung, or the tiled rung
    /// cannot run.
    pub fitted_seconds: Option<f64>,
    /// None where the ladder has no paired tiles, M fits in one tile of
    /// rows, or the tiled rung cannot run.
    pub paired_seconds: Option<f64>,
    pub why: String,
}

/// The ladder's split-K rung: BF16 rung 9, SGEMM rung 14.
pub fn split_kernel(dtype: Dtype) -> &'static HopperKernel {
    match dtype {
        Dtype::Bf16 => &kernels_gpu::bf16::r09_split_k::SPLIT_K,
        Dtype::F32 => &kernels_gpu::sgemm::r14_tf32x3_split_k::SPLIT_K,
    }
}

/// A tiled rung with narrower tiles, and its rate per FLOP against the
/// tiled rung's where both fill their rounds.
#[derive(Clone, Copy, Debug)]
pub struct NarrowRung {
    pub kernel: HopperKernel,
    pub efficiency: f64,
}

/// The ladder's tiled rungs with narrower tiles, widest first: BF16 rungs
/// 14 (128×192, [`NARROW_TILE_EFFICIENCY`]) and 16 (128×128,
/// [`TILES_128_EFFICIENCY`]); the SGEMM ladder has none.
pub fn narrow_rungs(dtype: Dtype) -> &'static [NarrowRung] {
    match dtype {
        Dtype::Bf16 => &[
            NarrowRung { kernel: kernels_gpu::bf16::r14_narrow_tiles::NARROW_TILES, efficiency: NARROW_TILE_EFFICIENCY },
            NarrowRung { kernel: kernels_gpu::bf16::r16_tiles_128x128::TILES_128X128, efficiency: TILES_128_EFFICIENCY },
        ],
        Dtype::F32 => &[],
    }
}

/// The ladder's split-K rung that adds its slices in a cluster: BF16 rung
/// 10; the SGEMM ladder has none.
pub fn cluster_split_kernel(dtype: Dtype) -> Option<&'static HopperKernel> {
    match dtype {
        Dtype::Bf16 => Some(&kernels_gpu::bf16::r10_cluster_split_k::CLUSTER_SPLIT_K),
        Dtype::F32 => None,
    }
}

/// The ladder's split-K rung that splits B into TF32 parts in shared
/// memory: SGEMM rung 15; BF16 needs no split.
pub fn split_b_kernel(dtype: Dtype) -> Option<&'static HopperKernel> {
    match dtype {
        Dtype::Bf16 => None,
        Dtype::F32 => Some(&kernels_gpu::sgemm::r15_tf32x3_split_b::SPLIT_B),
    }
}

/// The ladder's rung for a few rows of A with A and B swapped: BF16 rung
/// 11; the SGEMM ladder has none.
pub fn swap_kernel(dtype: Dtype) -> Option<&'static HopperKernel> {
    match dtype {
        Dtype::Bf16 => Some(&kernels_gpu::bf16::r11_swap_ab::SWAP_AB),
        Dtype::F32 => None,
    }
}

/// The ladder's rung for deep K, small swapped tiles over every SM: BF16
/// rung 15; the SGEMM ladder has none.
pub fn deep_k_kernel(dtype: Dtype) -> Option<&'static HopperKernel> {
    match dtype {
        Dtype::Bf16 => Some(&kernels_gpu::bf16::r15_deep_k::DEEP_K),
        Dtype::F32 => None,
    }
}

/// The tile shapes of the ladder's fitted-tiles rung, fewest rows first:
/// BF16 rung 13 (rung 12's 16×128 and its own three); the SGEMM ladder
/// has none.
pub fn fitted_tiles(dtype: Dtype) -> &'static [HopperKernel] {
    match dtype {
        Dtype::Bf16 => &kernels_gpu::bf16::r13_fitted_tiles::TILES,
        Dtype::F32 => &[],
    }
}

/// The tile shapes of the ladder's rung with swapped tiles in pairs
/// along M, fewest rows first: BF16 rung 17; the SGEMM ladder has none.
pub fn paired_tiles(dtype: Dtype) -> &'static [HopperKernel] {
    match dtype {
        Dtype::Bf16 => &kernels_gpu::bf16::r17_swap_ab_pairs::TILES,
        Dtype::F32 => &[],
    }
}

/// Bytes per element of A and B.
pub fn input_bytes(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::F32 => 4.0,
        Dtype::Bf16 => 2.0,
    }
}

/// Bytes a GEMM moves at least: A and B read once (`input_bytes` per
/// element), C written once in fp32.
pub fn min_bytes((m, n, k): (u32, u32, u32), input_bytes: f64) -> f64 {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    input_bytes * (m * k + k * n) + 4.0 * m * n
}

/// FLOPs per byte of that minimum traffic.
pub fn intensity(size: (u32, u32, u32), input_bytes: f64) -> f64 {
    super::check::gemm_flops(size) / min_bytes(size, input_bytes)
}

/// The small-M kernel's predicted time and plan.
pub fn small_m_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine) -> (f64, SmallMPlan) {
    let plan = small_m_plan((m, n, k), input_bytes(dtype) as u32, gpu.multiprocessors);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    // The blocks of each group of rows of A read the same B side by side:
    // DRAM sends it once, L2 the other times.
    let partials = 4.0 * plan.splits as f64 * mf * nf;
    let bytes = input_bytes(dtype) * (kf * nf + mf * kf) + 2.0 * partials + 4.0 * mf * nf;
    // A second kernel adds the slices where the last blocks cannot.
    let sum_launch = if plan.adds_in_kernel() { 0.0 } else { LAUNCH_SECONDS };
    if plan.rows == 1 {
        // The kernel's own launch is in SMALL_M_ONE_ROW_SECONDS.
        return (bytes / gpu.dram_bytes + SMALL_M_ONE_ROW_SECONDS + sum_launch, plan);
    }
    let arithmetic = 2.0 * mf * nf * kf / (gpu.fp32_flops * small_m_fma_efficiency(dtype));
    let time = combined(bytes / gpu.dram_bytes, arithmetic) + SMALL_M_START_SECONDS + LAUNCH_SECONDS + sum_launch;
    (time, plan)
}

/// BF16 rung 18's predicted time and plan, where it is a candidate: bf16,
/// at most 16 rows of A (more would each read B again), and rows of A and
/// B in whole 16-byte loads (N and K multiples of 8: one value at a time
/// it ran 2-5 times slower than its bytes, e.g. GPT-2's 768 × 50257 head
/// at M = 1 in 83 µs against rung 8's 35).
pub fn small_m_tensor_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine) -> Option<(f64, SmallMPlan)> {
    if dtype != Dtype::Bf16 || m > 16 || !n.is_multiple_of(8) || !k.is_multiple_of(8) {
        return None;
    }
    let plan = small_m_tensor_plan((m, n, k), gpu.multiprocessors);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let partials = if plan.splits == 1 { 0.0 } else { 4.0 * plan.splits as f64 * mf * nf };
    let bytes = input_bytes(dtype) * (kf * nf + mf * kf) + 2.0 * partials + 4.0 * mf * nf;
    let sum_launch = if plan.adds_in_kernel() { 0.0 } else { LAUNCH_SECONDS };
    let fixed = SMALL_M_TENSOR_SECONDS + SMALL_M_TENSOR_ROWS_SECONDS * mf / 16.0;
    Some((bytes / gpu.dram_bytes + fixed + sum_launch, plan))
}

/// Fraction of the tiled rungs' full-tile rate for `dtype`.
fn tiled_efficiency(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::Bf16 => TILED_BF16_EFFICIENCY,
        Dtype::F32 => TILED_TF32X3_EFFICIENCY,
    }
}

/// The ladder's top tensor-core rung: BF16 rung 7, SGEMM rung 12.
pub fn tiled_kernel(dtype: Dtype) -> &'static HopperKernel {
    match dtype {
        Dtype::Bf16 => &kernels_gpu::bf16::r07_wgmma_deferred::DEFERRED,
        Dtype::F32 => &kernels_gpu::sgemm::r12_tf32x3_wgmma::KERNEL,
    }
}

/// Seconds one SM takes for a `rows`×`cols` tile over `k` values of K, at
/// `efficiency` of the tiled rung's rate.
fn tile_seconds(dtype: Dtype, (rows, cols): (u32, u32), k: u32, gpu: &Machine, efficiency: f64) -> f64 {
    let per_sm = gpu.tensor_flops * tiled_efficiency(dtype) * efficiency / gpu.multiprocessors as f64;
    2.0 * rows as f64 * cols as f64 * k as f64 / per_sm
}

/// The portable module's tensor-core rung's tiles: BF16 rung 1's 128×256
/// (`mma.sync`), SGEMM rung 11's 128×128 (3xTF32 on `mma.sync`).
pub fn portable_tiling(dtype: Dtype) -> Tiling {
    match dtype {
        Dtype::Bf16 => kernels_gpu::bf16::r01_mma_sync::TILING,
        Dtype::F32 => kernels_gpu::sgemm::r11_tensor_cores::TILING,
    }
}

/// The portable tensor-core rung's rate per tile against the tiled rung's
/// ([`tile_seconds`]), where the rows of A and B are whole 16 bytes
/// (`aligned`: copied by 16-byte `cp.async`) and where they are not (4-
/// or 2-byte copies, each checked against the edges).
fn portable_efficiency(dtype: Dtype, aligned: bool) -> f64 {
    match (dtype, aligned) {
        (Dtype::Bf16, true) => PORTABLE_BF16_EFFICIENCY,
        (Dtype::Bf16, false) => PORTABLE_BF16_UNALIGNED_EFFICIENCY,
        (Dtype::F32, true) => PORTABLE_TF32X3_EFFICIENCY,
        (Dtype::F32, false) => PORTABLE_TF32X3_UNALIGNED_EFFICIENCY,
    }
}

/// BF16 rung 1's tiles against rung 7's full-tile rate: at 4096³ on the
/// H200 it took 550 µs (512 tiles, 4 rounds of one block per SM: 1.95
/// TFLOP/s per SM).
pub const PORTABLE_BF16_EFFICIENCY: f64 = 0.39;

/// BF16 rung 1's tiles where K or N is not a multiple of 8: 0.57-0.83
/// TFLOP/s per SM on the H200 over seven shapes from 32 × 4097 × 4097 to
/// 4097³ (median 0.69), a third of its aligned rate.
pub const PORTABLE_BF16_UNALIGNED_EFFICIENCY: f64 = 0.138;

/// SGEMM rung 11's tiles against rung 12's full-tile rate: at 4096³ on the
/// H200 it took 2281 µs (1024 tiles, 8 rounds: 0.47 TFLOP/s per SM).
pub const PORTABLE_TF32X3_EFFICIENCY: f64 = 0.56;

/// SGEMM rung 11's tiles where K or N is not a multiple of 4: 0.353-0.357
/// TFLOP/s per SM on the H200 over four shapes from 100 × 49153 × 3072
/// to 4097³.
pub const PORTABLE_TF32X3_UNALIGNED_EFFICIENCY: f64 = 0.42;

/// The portable tensor-core rung's predicted time: rounds of one tile per
/// SM (its registers leave room for one block), each at a fraction of the
/// tiled rung's rate ([`PORTABLE_BF16_EFFICIENCY`] and the three beside
/// it, by element type and whether rows are whole 16 bytes); at least its
/// bytes' time; one launch. It matters where the Hopper rungs cannot run
/// (a GPU before Hopper, or K or N whose rows TMA cannot copy): without it
/// a BF16 GEMM of 128 × 12289 × 4100 ran the small-M kernel in 1245 µs on
/// the H200 (rung 1: 459; cuBLAS 123), 4097³ in 10030 (2047; 1026).
pub fn portable_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine) -> f64 {
    let tiling = portable_tiling(dtype);
    let tiles = m.div_ceil(tiling.tile_m) as u64 * n.div_ceil(tiling.tile_n) as u64;
    let rounds = tiles.div_ceil(gpu.multiprocessors as u64) as f64;
    let row = |values: u32| ((values as f64 * input_bytes(dtype)) as u64).is_multiple_of(16);
    let efficiency = portable_efficiency(dtype, row(k) && row(n));
    let arithmetic = rounds * tile_seconds(dtype, (tiling.tile_m, tiling.tile_n), k, gpu, efficiency);
    let memory = min_bytes((m, n, k), input_bytes(dtype)) / gpu.dram_bytes;
    arithmetic.max(memory) + LAUNCH_SECONDS
}

/// The tiled rung's predicted time, and its tiles. A cluster of blocks stacked along M (BF16 rung 7 pairs them,
/// sharing B) takes a whole cluster's SMs even where M has fewer rows
/// than the cluster covers: at M ≤ 128 half of rung 7's blocks hold no
/// rows. Its bytes stream at the TMA copies' rate
/// ([`SPLIT_K_STREAM_EFFICIENCY`], measured on the split-K rung, which
/// copies the same way).
pub fn tiled_time(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> (f64, u64) {
    tiled_time_of(dtype, size, gpu, tiled_kernel(dtype), 1.0)
}

/// A narrow-tiles rung's predicted time and tiles: as [`tiled_time`]
/// over its own tiles (three quarters or half of rung 7's work each, so
/// more of them, in waves of their own), at its own share of rung 7's rate
/// per FLOP.
pub fn narrow_time(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine, rung: &NarrowRung) -> (f64, u64) {
    tiled_time_of(dtype, size, gpu, &rung.kernel, rung.efficiency)
}

/// A tiled kernel's time: its waves of tiles at `efficiency` of the tiled
/// rung's rate per FLOP, with its bytes.
fn tiled_time_of(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel, efficiency: f64) -> (f64, u64) {
    let (tile_m, tile_n, cluster) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n, kernel.tiling.cluster);
    let tiles = m.div_ceil(tile_m) as u64 * n.div_ceil(tile_n) as u64;
    let slots = m.div_ceil(tile_m * cluster) as u64 * cluster as u64 * n.div_ceil(tile_n) as u64;
    let waves = slots.div_ceil(gpu.multiprocessors as u64) as f64;
    let bytes = min_bytes((m, n, k), input_passes(dtype) * input_bytes(dtype));
    let arithmetic = waves * tile_seconds(dtype, (tile_m, tile_n), k, gpu, efficiency);
    let fixed = LAUNCH_SECONDS + split_launch_seconds(kernel);
    (combined_tiles(dtype, bytes / (gpu.dram_bytes * SPLIT_K_STREAM_EFFICIENCY), arithmetic, (m, tile_m)) + fixed, tiles)
}

/// The split-K rung's predicted time and cut: each SM's units (tiles ×
/// slices dealt round-robin) of one slice each; a tile of at most half
/// its rows keeps one of its two consumer warpgroups idle, so its
/// arithmetic is half a tile's. Its bytes stream at
/// [`SPLIT_K_STREAM_EFFICIENCY`] of DRAM's rate; the partial sums are
/// written beside them, then read back and added by a second launch,
/// after the multiplies (so that pass is not hidden behind them).
///
/// One more limit: each SM's TMA copies write whole stages, zeros
/// included, unit after unit, at [`SPLIT_K_SM_BYTES_PER_SECOND`] where the
/// tiles are mostly empty (a 128×256 tile over a 64×64 C), at
/// [`SPLIT_K_FULL_SM_BYTES_PER_SECOND`] where they are not.
pub fn split_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let (time, slices) = split_time_at(dtype, (m, n, k), gpu, kernel, SPLIT_K_STREAM_EFFICIENCY);
    let rate = if mostly_empty(kernel, (m, n)) { SPLIT_K_SM_BYTES_PER_SECOND } else { SPLIT_K_FULL_SM_BYTES_PER_SECOND };
    let stages = stage_seconds(kernel, slices, unit_rounds(kernel, (m, n), slices, gpu), rate);
    (time.max(stages + launches(slices) * LAUNCH_SECONDS), slices)
}

/// The time each SM's TMA copies take to fill `rounds` rounds of a
/// unit's stages, zeros included, at `rate` bytes per second: the
/// split-K rungs' limit where each SM's share of the work is mostly
/// copying (deep K, or tiles mostly below M).
fn stage_seconds(kernel: &HopperKernel, slices: KSlices, rounds: f64, rate: f64) -> f64 {
    rounds * (slices.k_tiles * kernel.tiling.stage_bytes) as f64 / rate
}

/// Whether `m`×`n` fills at most half of the tiles that cover it.
fn mostly_empty(kernel: &HopperKernel, (m, n): (u32, u32)) -> bool {
    let tile = kernel.tiling.tile_m() as u64 * kernel.tiling.tiling.tile_n as u64;
    2 * m as u64 * n as u64 <= kernel.tiling.tiles(m, n) as u64 * tile
}

/// The swap-AB rung's predicted time and cut, for M up to its 16 rows (one
/// tile of rows, so the weights stream once): as [`split_time`], its tiles
/// 16 rows × 128 columns, the weights at [`SWAP_AB_STREAM_EFFICIENCY`] of
/// DRAM's rate, and [`SWAP_AB_FIXED_SECONDS`] more.
pub fn swap_time(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let (seconds, slices) = split_time_at(dtype, size, gpu, kernel, SWAP_AB_STREAM_EFFICIENCY);
    (seconds + SWAP_AB_FIXED_SECONDS, slices)
}

fn split_time_at(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel, stream: f64) -> (f64, KSlices) {
    let inputs = input_passes(dtype) * input_bytes(dtype) * (m as f64 * k as f64 + k as f64 * n as f64);
    split_time_with(dtype, (m, n, k), gpu, kernel, (inputs, stream), 1.0)
}

/// SGEMM rung 15's predicted time and cut: as [`split_time`], but only A
/// goes through the five passes of the split; B's bytes cross DRAM once.
/// Its tiles run at [`SPLIT_B_TILE_EFFICIENCY`] of rung 14's rate.
pub fn split_b_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let (m64, n64, k64) = (m as f64, n as f64, k as f64);
    let inputs = input_bytes(dtype) * (input_passes(dtype) * m64 * k64 + k64 * n64);
    split_time_with(dtype, (m, n, k), gpu, kernel, (inputs, SPLIT_K_STREAM_EFFICIENCY), SPLIT_B_TILE_EFFICIENCY)
}

/// A split-K rung's time from the bytes its inputs move (and the fraction
/// of DRAM's rate they stream at) and its tiles' rate against rung 14's.
fn split_time_with(
    dtype: Dtype,
    (m, n, k): (u32, u32, u32),
    gpu: &Machine,
    kernel: &HopperKernel,
    (inputs, stream): (f64, f64),
    efficiency: f64,
) -> (f64, KSlices) {
    let slices = kernel.slices((m, n, k), gpu.clusters);
    // The GEMM writes C, or a partial C per slice; the second kernel then
    // reads the partials and writes C, after the multiplies.
    let c_bytes = 4.0 * m as f64 * n as f64;
    let bytes = inputs + c_bytes * slices.count as f64;
    let sum = if slices.count == 1 { 0.0 } else { c_bytes * (slices.count + 1) as f64 / (gpu.dram_bytes * stream) };
    let arithmetic = unit_rounds(kernel, (m, n), slices, gpu) * slice_seconds(dtype, m, kernel, slices, gpu) / efficiency;
    let time = combined_tiles(dtype, bytes / (gpu.dram_bytes * stream), arithmetic, (m, kernel.tiling.tile_m()))
        + sum
        + launches(slices) * LAUNCH_SECONDS
        + split_launch_seconds(kernel);
    (time, slices)
}

/// Rounds of units (one tile × one slice of K each) when the SMs take one
/// unit at a time: the units over the SMs, rounded up.
fn unit_rounds(kernel: &HopperKernel, (m, n): (u32, u32), slices: KSlices, gpu: &Machine) -> f64 {
    let units = kernel.tiling.tiles(m, n) as u64 * slices.count as u64;
    units.div_ceil(gpu.multiprocessors as u64) as f64
}

/// DRAM bytes of the partial sums where K is cut: one fp32 C per slice,
/// written, then read back by the kernel that adds them.
fn partial_bytes(slices: KSlices, (m, n): (u32, u32)) -> f64 {
    if slices.count == 1 { 0.0 } else { 2.0 * 4.0 * slices.count as f64 * m as f64 * n as f64 }
}

/// Kernel launches: the GEMM, and the partial sums' kernel where K is cut.
fn launches(slices: KSlices) -> f64 {
    if slices.count == 1 { 1.0 } else { 2.0 }
}

/// One unit's arithmetic: a tile's rows over one slice of K. A BF16 tile
/// whose rows fill at most one consumer warpgroup costs half: the other
/// only hands its stages back. The 3xTF32 GEMM runs both warpgroups
/// (SGEMM rungs 14 and 15 took as long at M = 64 as at 128 on the H200).
fn slice_seconds(dtype: Dtype, m: u32, kernel: &HopperKernel, slices: KSlices, gpu: &Machine) -> f64 {
    let (tile_m, tile_n) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n);
    let rows = if m <= tile_m / 2 && dtype == Dtype::Bf16 { tile_m / 2 } else { tile_m };
    let slice_k = slices.k_tiles * kernel.tiling.tiling.tile_k;
    tile_seconds(dtype, (rows, tile_n), slice_k, gpu, SPLIT_K_TILE_EFFICIENCY)
}

/// The cluster split-K rung's predicted time and cut: as [`split_time`],
/// but each tile's slices are one cluster, and only as many clusters as
/// fit at once ([`Machine::clusters`]) run per round; the SMs without a
/// block stream nothing, so the bytes flow at the busy SMs' share of the
/// rate; no partial sums reach DRAM and there is one launch, but every
/// block swaps its partial tile over the SM-to-SM network
/// ([`CLUSTER_EXCHANGE_SECONDS_PER_BYTE`]).
///
/// Its tiles and stages are the split-K rung's, and where they are mostly
/// empty (at most half of them over C) so is the limit of their copies
/// (`stage_seconds`), above a clustered launch's
/// [`FITTED_FIXED_SECONDS`]. On the H200 the rung's 128×256 tiles at
/// M = 1 took 13.4-20.2 µs for 295-576 KB of stages per SM (Qwen2-7B's o
/// and qkv, Phi-3-mini's o), 41 GB/s per SM above 6 µs, where their bytes
/// and multiplies alone predict 10-16 µs; the swapped 16-row tiles took
/// the same shapes in 10.8-14.3 µs. Fuller tiles fill theirs faster
/// (Qwen2-7B's down at M = 200: 3.6 MB per SM in 66.1 µs, 55 GB/s).
pub fn cluster_split_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let slices = kernel.slices((m, n, k), gpu.clusters);
    let rounds = cluster_rounds(kernel, (m, n), slices, gpu);
    let bytes = min_bytes((m, n, k), input_passes(dtype) * input_bytes(dtype));
    let arithmetic = rounds * slice_seconds(dtype, m, kernel, slices, gpu);
    let exchange = exchange_seconds(kernel, (m, n), slices, rounds);
    let time = combined_tiles(dtype, bytes / (gpu.dram_bytes * SPLIT_K_STREAM_EFFICIENCY), arithmetic, (m, kernel.tiling.tile_m()))
        + exchange
        + LAUNCH_SECONDS;
    let stages = if mostly_empty(kernel, (m, n)) {
        stage_seconds(kernel, slices, rounds, SPLIT_K_SM_BYTES_PER_SECOND) + FITTED_FIXED_SECONDS
    } else {
        0.0
    };
    (time.max(stages), slices)
}

/// Rounds of tiles when each tile's slices of K run as one cluster and
/// only as many clusters as fit ([`Machine::clusters`]) run at once.
fn cluster_rounds(kernel: &HopperKernel, (m, n): (u32, u32), slices: KSlices, gpu: &Machine) -> f64 {
    (kernel.tiling.tiles(m, n) as u64).div_ceil(gpu.clusters.of(slices.count) as u64) as f64
}

/// Time the blocks of a cluster spend swapping their partial tiles over
/// the SM-to-SM network ([`CLUSTER_EXCHANGE_SECONDS_PER_BYTE`]), once per
/// round; none where K is whole.
fn exchange_seconds(kernel: &HopperKernel, (m, n): (u32, u32), slices: KSlices, rounds: f64) -> f64 {
    let tile_bytes = 4.0 * m.min(kernel.tiling.tile_m()) as f64 * n.min(kernel.tiling.tiling.tile_n) as f64;
    if slices.count == 1 { 0.0 } else { rounds * tile_bytes * CLUSTER_EXCHANGE_SECONDS_PER_BYTE }
}

/// The deep-K rung's predicted time and cut: persistent blocks walk its
/// units (tiles × slices of K, as many slices as fill the SMs), so it
/// runs in rounds of one unit per SM. The slowest of the swapped GEMM's
/// limits (`swapped_limit`), its DRAM bytes the inputs and the partial
/// sums (written, then read by the second kernel); then
/// [`DEEP_K_FIXED_SECONDS`] for the two launches, the pipeline's first
/// copies and the sum.
pub fn deep_k_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let slices = kernel.slices((m, n, k), gpu.clusters);
    let rounds = unit_rounds(kernel, (m, n), slices, gpu);
    let dram_bytes = min_bytes((m, n, k), input_bytes(dtype)) + partial_bytes(slices, (m, n));
    (swapped_limit(dtype, gpu, kernel, (slices, rounds), dram_bytes) + DEEP_K_FIXED_SECONDS, slices)
}

/// The slowest of a swapped GEMM's three limits over `rounds` rounds of
/// units (one tile × one slice each) per SM: each SM streaming its units'
/// tiles, all of a tile's rows even those below M (TMA fills them with
/// zeros), at [`FITTED_SM_BYTES_PER_SECOND`]; `dram_bytes` crossing DRAM
/// at [`SWAP_AB_STREAM_EFFICIENCY`] of its rate; the wgmmas at
/// [`FITTED_TILE_EFFICIENCY`] of rung 7's rate. The fitted-tiles and
/// deep-K rungs' models add their own fixed costs to it.
fn swapped_limit(dtype: Dtype, gpu: &Machine, kernel: &HopperKernel, (slices, rounds): (KSlices, f64), dram_bytes: f64) -> f64 {
    let (tile_m, tile_n) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n);
    let slice_k = slices.k_tiles * kernel.tiling.tiling.tile_k;
    let streaming = rounds * unit_bytes(dtype, kernel, slices) / FITTED_SM_BYTES_PER_SECOND;
    let dram = dram_bytes / (gpu.dram_bytes * SWAP_AB_STREAM_EFFICIENCY);
    let arithmetic = rounds * tile_seconds(dtype, (tile_m, tile_n), slice_k, gpu, FITTED_TILE_EFFICIENCY);
    streaming.max(dram).max(arithmetic)
}

/// Bytes a swapped kernel's block streams into its stages for one unit:
/// its tile's rows of A (all of them, even those below M) and columns of
/// the weights, over its slice of K.
fn unit_bytes(dtype: Dtype, kernel: &HopperKernel, slices: KSlices) -> f64 {
    let (tile_m, tile_n) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n);
    let slice_k = (slices.k_tiles * kernel.tiling.tiling.tile_k) as f64;
    input_bytes(dtype) * (tile_m + tile_n) as f64 * slice_k
}

/// One tile shape of the fitted-tiles rung: its predicted time and cut.
/// Each tile's slices run as one cluster, as many clusters at once as fit
/// ([`Machine::clusters`]), so the rounds are the tiles over those. Three
/// limits, the slowest wins (`swapped_limit`):
/// - each SM streams a unit's tiles (all of a tile's rows, even those
///   below M: TMA still fills them with zeros) at
///   [`FITTED_SM_BYTES_PER_SECOND`], round after round;
/// - the weights, A and C cross DRAM once at [`SWAP_AB_STREAM_EFFICIENCY`]
///   of its rate, the weights once more for every further tile of rows
///   where they do not fit in L2 ([`weight_rereads`]);
/// - the wgmmas run at [`FITTED_TILE_EFFICIENCY`] of rung 7's rate.
///
/// With K in slices, each round of clusters after the first starts when
/// the last cluster of the round before has added its slices, every SM's
/// pipeline empty: [`FITTED_ROUND_SECONDS`] each. With K whole the blocks
/// are persistent and copy ahead into their next tile: no restarts, but
/// where the tiles are a few more than the SMs the last round is a tail
/// that only some SMs stream (`last_round_limit`; Phi-3-mini's qkv at
/// M = 8: 144 tiles of 16×64 took 25.1 µs on the H200, where the bytes
/// at DRAM's rate said 22). Then the partial tiles' swap
/// ([`CLUSTER_EXCHANGE_SECONDS_PER_BYTE`]) and [`FITTED_FIXED_SECONDS`].
pub fn fitted_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let slices = kernel.slices((m, n, k), gpu.clusters);
    let rounds = cluster_rounds(kernel, (m, n), slices, gpu);
    let bytes = min_bytes((m, n, k), input_bytes(dtype)) + weight_rereads(dtype, (m, n, k), kernel.tiling.tile_m(), gpu);
    let exchange = exchange_seconds(kernel, (m, n), slices, rounds);
    // Rounds of clusters each start from empty; K whole, persistent
    // blocks copy ahead into their next tile.
    let restarts = if kernel.runs_in_clusters(slices) { (rounds - 1.0) * FITTED_ROUND_SECONDS } else { 0.0 };
    let limit = swapped_limit(dtype, gpu, kernel, (slices, rounds), bytes);
    let limit = limit.max(last_round_limit(dtype, gpu, kernel, (m, n), slices, bytes));
    (limit + restarts + exchange + FITTED_FIXED_SECONDS, slices)
}

/// With K whole and between one and two rounds of tiles, a second round
/// that only some SMs stream: the first round's share of the bytes at
/// DRAM's rate ([`SWAP_AB_STREAM_EFFICIENCY`]), then one tile at one SM's
/// ([`FITTED_SM_BYTES_PER_SECOND`]). With more rounds the persistent
/// blocks' last tiles are a smaller share, and the bytes set the time
/// (Qwen2-7B's gate_up at M = 32: 592 tiles of 32×64, 77.0 µs).
fn last_round_limit(dtype: Dtype, gpu: &Machine, kernel: &HopperKernel, (m, n): (u32, u32), slices: KSlices, bytes: f64) -> f64 {
    let tiles = kernel.tiling.tiles(m, n) as u64;
    let at_once = gpu.multiprocessors as u64;
    if slices.count != 1 || tiles <= at_once || tiles >= 2 * at_once {
        return 0.0;
    }
    let first = at_once as f64 / tiles as f64;
    first * bytes / (gpu.dram_bytes * SWAP_AB_STREAM_EFFICIENCY) + unit_bytes(dtype, kernel, slices) / FITTED_SM_BYTES_PER_SECOND
}

/// Predicted times closer than this are a tie for [`fitted_choice`]: the
/// model's limits are each a maximum, and within a microsecond its error
/// is larger than the difference.
pub const FITTED_TIE_SECONDS: f64 = 1e-6;

/// The fitted-tiles rung's tile shape for one shape: the number in
/// [`fitted_tiles`], its predicted time ([`fitted_time`]) and cut; None
/// where the ladder has none. The rules, in order:
///
/// - as few tiles of rows as hold M (one up to the most rows a tile has),
///   and in them the fewest rows that do. Rows below M are zeros that TMA
///   still writes into every stage, in place of weights, and that the
///   tensor cores multiply: on the H200 at M = 1, 64-row tiles ran o and
///   down 11% slower than 16-row ones, and at M = 64, 128-row tiles 28%
///   slower than 64-row ones; at M = 200 two tiles of 112 rows ran
///   Qwen2-7B's o 18% faster than two of 128;
/// - then the least predicted time ([`fitted_time`]): where the wider
///   tiles need K in more slices, their exchange costs more than the
///   narrower ones' extra reads of A (Llama-3-8B's qkv at M = 64, 96 SMs
///   either way: 64×64 with K whole 19.3 µs, 64×128 in 2 slices 20.8);
///   and a tile that keeps fewer SMs busy but needs no slices can win
///   (Llama-2-7B's qkv at M = 128, N = 12288: 96 tiles of 128×128 with K
///   whole, predicted 39 µs, took 31.3 where 64 tiles of 128×192 in 2
///   slices, 128 SMs busy, predicted 46, took 33.6);
/// - within [`FITTED_TIE_SECONDS`] of it, two consumers or fewer: three
///   lose a tie whatever else (128×192 ran Llama-3-8B's qkv at M = 128 in
///   23.8 µs where 128×128, as busy, took 20.6; at N = 5120, busier with
///   K in 4 slices, Llama-3.2-3B's qkv in 19.4 µs where 128×128 in 2 took
///   17.0);
/// - then the columns that keep the SMs busiest: the units (tiles ×
///   slices) over the SMs' rounds (as many clusters as fit per round). At
///   N = 4096, 64 columns make 64 tiles in 2 slices (128 of 132 SMs)
///   where 128 columns make 32 in 3 (96), and ran o and down at M ≤ 16
///   3-5% faster, at M = 128 6%;
/// - then the fewest bytes each SM streams (its units' rows of A and
///   columns of the weights, over its rounds): where DRAM sets the time
///   either way, an SM that reads less keeps up with it (Llama-3-8B's
///   gate_up at M = 64, K whole, 85% busy either way: 64×128 65.2 µs,
///   64×64 72.1; qkv at M ≤ 16, 96 SMs either way: 16×128 in 2 slices 2-6%
///   faster than 16×64 with K whole). Then the list's order.
pub fn fitted_choice(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> Option<(usize, f64, KSlices)> {
    let tiles = fitted_tiles(dtype);
    let most = tiles.iter().map(|t| t.tiling.tile_m()).max()?;
    // As few tiles of rows as hold M, and in them as few rows as do.
    let row_tiles = size.0.div_ceil(most);
    let rows = tiles.iter().map(|t| t.tiling.tile_m()).filter(|&r| r * row_tiles >= size.0).min()?;
    let busy = |kernel: &HopperKernel| {
        let slices = kernel.slices(size, gpu.clusters).count as u64;
        let tiles = kernel.tiling.tiles(size.0, size.1) as u64;
        let rounds = tiles.div_ceil(gpu.clusters.of(slices as u32) as u64);
        (tiles * slices) as f64 / (rounds * gpu.multiprocessors as u64) as f64
    };
    let candidates: Vec<FittedCandidate> = tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| t.tiling.tile_m() == rows)
        .map(|(tile, kernel)| {
            let (seconds, slices) = fitted_time(dtype, size, gpu, kernel);
            let three_consumers = kernel.tiling.consumers() > 2;
            let streamed = cluster_rounds(kernel, (size.0, size.1), slices, gpu) * unit_bytes(dtype, kernel, slices);
            FittedCandidate { tile, seconds, slices, busy: busy(kernel), three_consumers, streamed }
        })
        .collect();
    let fastest = candidates.iter().map(|c| c.seconds).min_by(f64::total_cmp)?;
    // Of the tied, two consumers or fewer, then the busiest, then the
    // fewest bytes, then the first (`min_by` keeps the first of equals).
    let tied = candidates.into_iter().filter(|c| c.seconds <= fastest + FITTED_TIE_SECONDS);
    let chosen = tied
        .min_by(|a, b| a.three_consumers.cmp(&b.three_consumers).then(b.busy.total_cmp(&a.busy)).then(a.streamed.total_cmp(&b.streamed)))?;
    Some((chosen.tile, chosen.seconds, chosen.slices))
}

/// Weights larger than this share of L2 cross DRAM once for every group
/// of blocks that reads them apart from the others ([`weight_rereads`]).
/// Where they fit with room to spare, the groups of blocks that read the
/// same bytes run close enough together for the later ones to find them
/// in L2. Measured on the H200 (60 MB of L2): two tiles of rows of the
/// swapped GEMM read 50 and 73 MB of weights once (Llama-3-8B's and
/// Qwen2.5-14B's qkv at M = 200: 28.3 and 34.4 µs unpaired, 29.6 and
/// 35.5 in pairs that share them), 117 MB and more once each
/// (Llama-3-70B's o, 134 MB, at M = 129: 58.6 µs unpaired, twice the
/// weights at 4.6 TB/s; 44.0 in pairs).
pub const WEIGHTS_REREAD_OVER_L2: f64 = 1.5;

/// DRAM bytes beyond [`min_bytes`] when groups of blocks each `rows` rows
/// of A tall (tiles of rows, or pairs of them) read all the weights
/// without sharing their copies: none where the weights fit in
/// [`WEIGHTS_REREAD_OVER_L2`] times L2, else the weights once more for
/// each group after the first.
pub fn weight_rereads(dtype: Dtype, (m, n, k): (u32, u32, u32), rows: u32, gpu: &Machine) -> f64 {
    let weights = input_bytes(dtype) * k as f64 * n as f64;
    if weights <= WEIGHTS_REREAD_OVER_L2 * gpu.l2_bytes {
        return 0.0;
    }
    (m.div_ceil(rows) - 1) as f64 * weights
}

/// The paired tiles' wgmma rate against a full tile of rung 7
/// ([`TILED_BF16_EFFICIENCY`]), fitted on the H200 where the multiplies
/// set the time (one tile per SM, K whole): 112 rows × 128 columns ran
/// Llama-3-70B's o at M = 200 (K = 8192) in 53.0 µs and Llama-3-8B's qkv
/// (K = 4096) in 29.6, 128 rows Llama-3-70B's o at M = 256 in 55.2 and
/// Llama-3-8B's qkv in 30.5: 0.89-1.0 of rung 7's rate.
pub const PAIRED_TILE_EFFICIENCY: f64 = 0.95;

/// Fraction of DRAM bandwidth the paired tiles reach on the weights: 141
/// MB in 37 µs beyond a launch (Llama-3-70B's o at M = 152, 80-row tiles)
/// on the H200, 0.85 of its 4.5 TB/s.
pub const PAIRED_STREAM_EFFICIENCY: f64 = 0.85;

/// A tile shape of the paired-tiles rung: its predicted time and cut. Each
/// block of a pair streams its own rows of A but only half of the
/// weights' boxes from L2 (its partner's half arrives by multicast), so
/// the slowest of:
/// - each SM streaming its units' rows of A and half their columns of the
///   weights at [`FITTED_SM_BYTES_PER_SECOND`];
/// - the weights, A, C and the slices' partial sums crossing DRAM at
///   [`PAIRED_STREAM_EFFICIENCY`] of its rate, the weights once per pair
///   of tiles of rows where they do not fit in L2 ([`weight_rereads`]);
/// - the wgmmas at [`PAIRED_TILE_EFFICIENCY`] of rung 7's rate;
///
/// then what a clustered launch costs beyond its bytes
/// ([`FITTED_FIXED_SECONDS`]: the launch, the pipeline's first copies, the
/// stores), and a second launch where a kernel adds the slices.
pub fn paired_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine, kernel: &HopperKernel) -> (f64, KSlices) {
    let slices = kernel.slices((m, n, k), gpu.clusters);
    let rounds = unit_rounds(kernel, (m, n), slices, gpu);
    let (tile_m, tile_n, pair) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n, kernel.tiling.cluster);
    let slice_k = slices.k_tiles * kernel.tiling.tiling.tile_k;
    let dram_bytes =
        min_bytes((m, n, k), input_bytes(dtype)) + weight_rereads(dtype, (m, n, k), tile_m * pair, gpu) + partial_bytes(slices, (m, n));
    let streaming = rounds * input_bytes(dtype) * (tile_m + tile_n / pair) as f64 * slice_k as f64 / FITTED_SM_BYTES_PER_SECOND;
    let dram = dram_bytes / (gpu.dram_bytes * PAIRED_STREAM_EFFICIENCY);
    let arithmetic = rounds * tile_seconds(dtype, (tile_m, tile_n), slice_k, gpu, PAIRED_TILE_EFFICIENCY);
    let sum_launch = if slices.count > 1 { LAUNCH_SECONDS } else { 0.0 };
    (streaming.max(dram).max(arithmetic) + FITTED_FIXED_SECONDS + sum_launch, slices)
}

/// The paired-tiles rung's tile shape for one shape: the number in
/// [`paired_tiles`], its predicted time ([`paired_time`]) and cut; None
/// where the ladder has none or M fits in one tile of rows of the fitted
/// tiles (a pair's second block would hold no rows). As [`fitted_choice`]:
/// as few pairs as hold M, and in them the fewest rows that do (M = 129:
/// a pair of 80-row tiles; M = 300: two pairs of 80).
pub fn paired_choice(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> Option<(usize, f64, KSlices)> {
    let tiles = paired_tiles(dtype);
    let most = tiles.iter().map(|t| t.tiling.tile_m()).max()?;
    if size.0 <= fitted_tiles(dtype).iter().map(|t| t.tiling.tile_m()).max()? {
        return None;
    }
    // Blocks per pair: the kernels' cluster.
    let pair = tiles[0].tiling.cluster;
    let pairs = size.0.div_ceil(pair * most);
    let (tile, kernel) =
        tiles.iter().enumerate().filter(|(_, t)| pair * pairs * t.tiling.tile_m() >= size.0).min_by_key(|(_, t)| t.tiling.tile_m())?;
    let (seconds, slices) = paired_time(dtype, size, gpu, kernel);
    Some((tile, seconds, slices))
}

/// [`paired_choice`] where the pairs have something to share, and where
/// the model's times for them and their rivals can be compared:
/// - weights that unpaired tiles of rows would each read from DRAM
///   ([`weight_rereads`]). Where the weights stay in L2, the unpaired
///   tiles read them once too, and the pairs, each block waiting for its
///   partner's half of every stage, were as fast or slower on the H200
///   (Llama-3-8B's qkv at M = 200: 29.6 µs in pairs, 28.3 unpaired, 27.1
///   on rung 16);
/// - one round of units, or tiles of at most [`PAIRED_STREAMING_ROWS`]
///   rows whose last round is at least half full. Pairs of 80 and 96 rows
///   stream the weights at DRAM's pace over any number of rounds
///   (Gemma-2-27B's down at M = 144, 72 tiles with K in slices over
///   several rounds: 114.1 µs in pairs, 153.8 on rung 9); pairs of 112
///   rows are held back by their multiplies, where rung 9's wider tiles do
///   more per byte (Qwen2-7B's down at M = 200, 56 tiles in 7 slices over
///   3 rounds: 64.6 µs in pairs, 57.1 on rung 9), and a last round of a
///   fifth of the SMs leaves most of them idle (Qwen2.5-72B's qkv at
///   M = 160, 160 tiles: 75.2 µs in pairs, 65.6 on rung 14's one round).
///   In both the rivals' models are the more pessimistic, so the pairs
///   are not offered there.
fn paired_candidate(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> Option<(usize, f64, KSlices)> {
    let (tile, seconds, slices) = paired_choice(dtype, size, gpu)?;
    let kernel = &paired_tiles(dtype)[tile];
    let rereads = weight_rereads(dtype, size, kernel.tiling.tile_m(), gpu);
    let rounds = unit_rounds(kernel, (size.0, size.1), slices, gpu);
    let per_round = gpu.multiprocessors as f64;
    let last_round = kernel.tiling.tiles(size.0, size.1) as f64 * slices.count as f64 - (rounds - 1.0) * per_round;
    let streams = kernel.tiling.tile_m() <= PAIRED_STREAMING_ROWS && 2.0 * last_round >= per_round;
    (rereads > 0.0 && (rounds <= 1.0 || streams)).then_some((tile, seconds, slices))
}

/// The most rows of A per tile for which the pairs stream the weights at
/// DRAM's pace: on the H200, 0.31-0.32 µs per k-tile of 80 and 96 rows
/// (Llama-3-70B's o at M = 152 and 176, 3.3-3.6 TB/s), 0.41-0.48 of 112
/// and 128 rows, where the multiplies set the time.
pub const PAIRED_STREAMING_ROWS: u32 = 96;

/// A tile shape of the paired-tiles rung and its cut of K, in words.
pub fn paired_words(kernel: &HopperKernel, slices: KSlices) -> String {
    let tiling = kernel.tiling;
    format!(
        "pairs of tiles of {} rows x {} columns sharing the weights, {}",
        tiling.tile_m(),
        tiling.tiling.tile_n,
        cut_words(slices, tiling.tiling.tile_k, false)
    )
}

/// One of the equally busy tile shapes [`fitted_choice`] weighs.
struct FittedCandidate {
    /// Its number in [`fitted_tiles`].
    tile: usize,
    seconds: f64,
    slices: KSlices,
    /// Units (tiles × slices) over the SMs' places in its rounds.
    busy: f64,
    three_consumers: bool,
    /// Bytes each SM streams: a unit's ([`unit_bytes`]) for each of its
    /// rounds.
    streamed: f64,
}

/// How a rung cuts K, in words: "K whole", "K in 4 slices of 1024", and
/// "… added in clusters of 4" where a cluster of one block per slice adds
/// them (`tile_k`: the values of K per k-tile).
pub fn cut_words(slices: KSlices, tile_k: u32, in_cluster: bool) -> String {
    match (slices.count, in_cluster) {
        (1, _) => "K whole".to_string(),
        (count, false) => format!("K in {count} slices of {}", slices.k_tiles * tile_k),
        (count, true) => format!("K in {count} slices of {} added in clusters of {count}", slices.k_tiles * tile_k),
    }
}

/// A tile shape of the fitted-tiles rung and its cut of K, in words.
pub fn fitted_words(kernel: &HopperKernel, slices: KSlices) -> String {
    let tiling = kernel.tiling;
    format!("tiles of {} rows x {} columns, {}", tiling.tile_m(), tiling.tiling.tile_n, cut_words(slices, tiling.tiling.tile_k, true))
}

/// What the Hopper rungs make of a shape, as [`Hopper::of`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hopper {
    /// They take it as it is.
    Takes,
    /// They take it with N and K padded to this size (see
    /// [`super::padded`]): TMA needs rows of whole 16 bytes.
    TakesPadded((u32, u32, u32)),
    /// Not a Hopper GPU, or a shape they cannot take even padded.
    Cannot,
}

impl Hopper {
    /// On a Hopper GPU (`on_hopper`) or not, what its rungs make of `size`.
    pub fn of(dtype: Dtype, size: (u32, u32, u32), on_hopper: bool) -> Hopper {
        let takes = |size| match dtype {
            Dtype::Bf16 => super::hopper::bf16_shape_limit(size).is_none(),
            Dtype::F32 => super::hopper::tf32x3_shape_limit(tiled_kernel(dtype), size).is_none(),
        };
        match padded_size(dtype, size) {
            _ if !on_hopper => Hopper::Cannot,
            _ if takes(size) => Hopper::Takes,
            Some(padded) if takes(padded) => Hopper::TakesPadded(padded),
            _ => Hopper::Cannot,
        }
    }
}

/// `size` with N and K rounded up to rows of whole 16 bytes (8 BF16 or 4
/// fp32 values), M as it is; None where that passes `u32::MAX`.
pub fn padded_size(dtype: Dtype, (m, n, k): (u32, u32, u32)) -> Option<(u32, u32, u32)> {
    let values = (16.0 / input_bytes(dtype)) as u32;
    Some((m, n.checked_next_multiple_of(values)?, k.checked_next_multiple_of(values)?))
}

/// The padding copies of A and B ([`kernels_gpu::gemm::padding`]), bytes
/// read plus bytes written per second, on the H200: B of 128 × 12289 ×
/// 4100 (202 MB both ways) took 49.4 µs, of 1024 × 50257 × 768 (154 MB)
/// 39.4, of 4097³ (67 MB) 18.6 (Nsight, caches flushed).
pub const PADDING_BYTES_PER_SECOND: f64 = 4.0e12;

/// The same for C's copy back out of its padded rows, one value per
/// thread: 4097³ (134 MB both ways) 45.4 µs, 1024 × 50257 (412 MB) 139.9.
pub const CROP_BYTES_PER_SECOND: f64 = 3.0e12;

/// One copy's launch and start, on top of its bytes: A of 128 × 12289 ×
/// 4100 (2 MB) took 3.5 µs, of 16 × 2047 × 2049 2.9.
pub const PADDING_COPY_SECONDS: f64 = 3e-6;

/// The copies a padded run adds ([`super::padded`]): A and B read and
/// written into rows of the padded width, C's columns read back and
/// written, each copy with its start; the copies' rates scale with the
/// GPU's DRAM bandwidth.
pub fn padding_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine) -> f64 {
    let inputs = 2.0 * input_bytes(dtype) * (m as f64 * k as f64 + k as f64 * n as f64);
    let output = 2.0 * 4.0 * m as f64 * n as f64;
    let scale = gpu.dram_bytes / Machine::H200.dram_bytes;
    inputs / (PADDING_BYTES_PER_SECOND * scale) + output / (CROP_BYTES_PER_SECOND * scale) + 3.0 * PADDING_COPY_SECONDS
}

/// Picks the kernel for one shape, given what the Hopper rungs make of it
/// ([`Hopper::of`]). Where they take it only padded, the faster of the
/// rungs that take it as it is and the Hopper rungs' pick at the padded
/// size plus the copies ([`padding_time`]).
pub fn choose(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine, hopper: Hopper) -> Choice {
    match hopper {
        Hopper::Takes => choose_on_hopper(dtype, size, gpu),
        Hopper::Cannot => choose_as_is(dtype, size, gpu, "no Hopper rung takes this shape here".to_string()),
        Hopper::TakesPadded(padded) => {
            let copies = padding_time(dtype, size, gpu);
            let on_hopper = choose_on_hopper(dtype, padded, gpu);
            let (_, n, k) = size;
            let widened = format!("N {n} -> {}, K {k} -> {}", padded.1, padded.2);
            let as_is = choose_as_is(
                dtype,
                size,
                gpu,
                format!("padded to rows of whole 16 bytes ({widened}): {:.0}", (on_hopper.seconds + copies) * 1e6),
            );
            if as_is.seconds <= on_hopper.seconds + copies {
                return as_is;
            }
            let why = format!(
                "{}; with A, B and C copied into rows of whole 16 bytes ({widened}, copies {:.0} us; as they are: small-M {:.0}, mma.sync tiles {:.0})",
                on_hopper.why,
                copies * 1e6,
                as_is.small_m_seconds * 1e6,
                as_is.portable_seconds * 1e6
            );
            Choice {
                seconds: on_hopper.seconds + copies,
                padded: Some(padded),
                small_m_seconds: as_is.small_m_seconds,
                portable_seconds: as_is.portable_seconds,
                why,
                ..on_hopper
            }
        }
    }
}

/// The small-M kernel or the portable module's tensor-core rung, the rungs
/// that take any shape on any GPU: where no Hopper rung runs, or beside
/// them padded (`note`: why not the Hopper rungs).
fn choose_as_is(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine, note: String) -> Choice {
    let [small_m, portable] = any_shape_candidates(dtype, size, gpu);
    let (small_m_seconds, portable_seconds) = (small_m.1, portable.1);
    let (pick, seconds, predicted, chosen) = fastest(dtype, vec![small_m, portable]);
    let why = format!("{}; predicted us: {predicted}: {chosen} ({note})", roofline_words(dtype, size, gpu));
    any_shape_choice((pick, seconds), (small_m_seconds, portable_seconds), why)
}

/// A choice whose candidates were only the rungs that take any shape on
/// any GPU (`small_m_seconds`, `portable_seconds`); [`choose_on_hopper`]
/// fills in the Hopper rungs' times over it.
fn any_shape_choice((pick, seconds): (Pick, f64), (small_m_seconds, portable_seconds): (f64, f64), why: String) -> Choice {
    Choice {
        pick,
        seconds,
        padded: None,
        small_m_seconds,
        portable_seconds,
        tiled_seconds: None,
        narrow_seconds: None,
        split_seconds: None,
        cluster_split_seconds: None,
        split_b_seconds: None,
        swap_seconds: None,
        deep_k_seconds: None,
        fitted_seconds: None,
        paired_seconds: None,
        why,
    }
}

/// The candidates that take any shape on any GPU, with their predicted
/// times and reasons: the small-M kernel and the portable module's
/// tensor-core rung.
fn any_shape_candidates(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> [(Pick, f64, String); 2] {
    let (small_m_seconds, plan) = small_m_time(dtype, size, gpu);
    let portable_seconds = portable_time(dtype, size, gpu);
    [(Pick::SmallM(plan), small_m_seconds, small_m_words(size, plan)), (Pick::Portable, portable_seconds, portable_words(dtype))]
}

/// The shape's FLOPs per byte against the GPU's ridge, in words.
fn roofline_words(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> String {
    let intensity = intensity(size, input_bytes(dtype));
    let bound = if gpu.memory_bound(size, input_bytes(dtype)) { "memory-bound" } else { "compute-bound" };
    format!("{intensity:.0} FLOP/B vs ridge {:.0}: {bound}", gpu.ridge())
}

/// The small-M kernel's plan, in words.
fn small_m_words((_, n, _): (u32, u32, u32), plan: SmallMPlan) -> String {
    format!("small-M kernel, {} K-splits x {} column blocks", plan.splits, n.div_ceil(plan.block_columns()))
}

/// BF16 rung 18's plan, in words.
fn small_m_tensor_words((_, n, _): (u32, u32, u32), plan: SmallMPlan) -> String {
    format!("small-M stream on tensor cores, {} K-splits x {} column blocks", plan.splits, n.div_ceil(plan.block_columns()))
}

/// The portable tensor-core rung's tiles, in words.
fn portable_words(dtype: Dtype) -> String {
    let portable = portable_tiling(dtype);
    format!("tensor-core tiles of {}x{} (mma.sync)", portable.tile_m, portable.tile_n)
}

/// [`choose`] where the Hopper rungs take the shape as it is.
fn choose_on_hopper(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine) -> Choice {
    // The portable tiles are slower than the Hopper rungs wherever those
    // take the shape as they were built for it, but not where SGEMM's
    // split of B cannot run (N not a multiple of 4) and its other rungs
    // split B in passes through DRAM: 100 × 49153 × 3072 took 845 µs on
    // rung 11, 2997 on the small-M kernel, and rung 12 was predicted as
    // slow.
    let [small_m, portable] = any_shape_candidates(dtype, size, gpu);
    let (small_m_seconds, portable_seconds) = (small_m.1, portable.1);
    let (tiled_seconds, tiles) = tiled_time(dtype, size, gpu);
    let kernel = split_kernel(dtype);
    let (split_seconds, slices) = split_time(dtype, size, gpu, kernel);
    let busy = 100.0 * tiles.min(gpu.multiprocessors as u64) as f64 / gpu.multiprocessors as f64;
    let tiled = tiled_kernel(dtype);
    let (tile_m, tile_n) = (tiled.tiling.tile_m(), tiled.tiling.tiling.tile_n);
    // Few tiles: how many SMs they keep busy; a wave or more: how full the
    // last round is, which narrower tiles may fill better.
    let waves = if tiles < gpu.multiprocessors as u64 {
        format!("{tiles} tiles on {} SMs ({busy:.0}% busy)", gpu.multiprocessors)
    } else {
        format!("{tile_m}x{tile_n}: {}", rounds_words(tiles, tiled.tiling.cluster, gpu))
    };
    let mut candidates = vec![small_m, (Pick::Tiled, tiled_seconds, "tensor-core tiles".to_string())];
    let narrow_seconds = narrow_rungs(dtype)
        .iter()
        .enumerate()
        .map(|(number, rung)| {
            let (seconds, narrow_tiles) = narrow_time(dtype, size, gpu, rung);
            let kernel = &rung.kernel;
            let (tile_m, tile_n) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n);
            let why = format!("tensor-core tiles of {tile_m}x{tile_n}, {}", rounds_words(narrow_tiles, kernel.tiling.cluster, gpu));
            candidates.push((Pick::NarrowTiles(number), seconds, why));
            seconds
        })
        .min_by(f64::total_cmp);
    let split_why = match slices.count {
        1 => "tensor-core tiles of the split-K rung, K whole".to_string(),
        _ => format!("tensor-core tiles, {}", cut_words(slices, kernel.tiling.tiling.tile_k, false)),
    };
    candidates.push((Pick::SplitK(slices), split_seconds, split_why));
    let cluster_split_seconds = cluster_split_kernel(dtype).map(|kernel| {
        let (seconds, slices) = cluster_split_time(dtype, size, gpu, kernel);
        let why = format!("tensor-core tiles, {}", cut_words(slices, kernel.tiling.tiling.tile_k, true));
        candidates.push((Pick::ClusterSplitK(slices), seconds, why));
        seconds
    });
    let split_b_seconds = split_b_kernel(dtype).filter(|kernel| super::hopper::tf32x3_shape_limit(kernel, size).is_none()).map(|kernel| {
        let (seconds, slices) = split_b_time(dtype, size, gpu, kernel);
        let why = format!("tensor-core tiles, B split in shared memory, {}", cut_words(slices, kernel.tiling.tiling.tile_k, false));
        candidates.push((Pick::SplitB(slices), seconds, why));
        seconds
    });
    let swap_seconds = swap_kernel(dtype).filter(|kernel| size.0 <= kernel.tiling.tile_m()).map(|kernel| {
        let (seconds, slices) = swap_time(dtype, size, gpu, kernel);
        let cut = cut_words(slices, kernel.tiling.tiling.tile_k, false);
        candidates.push((Pick::SwapAb(slices), seconds, format!("weights as wgmma's M (A and B swapped), {cut}")));
        seconds
    });
    if let Some((seconds, plan)) = small_m_tensor_time(dtype, size, gpu) {
        candidates.push((Pick::SmallMTensor(plan), seconds, small_m_tensor_words(size, plan)));
    }
    let deep_k_seconds = deep_k_kernel(dtype).map(|kernel| {
        let (seconds, slices) = deep_k_time(dtype, size, gpu, kernel);
        let (tile_m, tile_n) = (kernel.tiling.tile_m(), kernel.tiling.tiling.tile_n);
        let cut = cut_words(slices, kernel.tiling.tiling.tile_k, false);
        candidates.push((Pick::DeepK(slices), seconds, format!("A and B swapped, tiles of {tile_m} rows x {tile_n} columns, {cut}")));
        seconds
    });
    // Like splitting K, the fitted tiles are for shapes whose 128×256 tiles
    // leave SMs idle, or where A fits in one row of them, so that the
    // weights stream once either way (Qwen2-7B's gate_up at M = 32: 148
    // tiles, a wave, each three quarters empty; Gemma-7B's gate_up at
    // M = 128: 192 tiles in two rounds, 95.6 µs with split-K's tiles, 88.0
    // with 128×128 swapped ones); with more rows the tiled rung's bigger
    // tiles do more work per byte.
    let fitted_fits = tiles < gpu.multiprocessors as u64 || size.0 <= tile_m;
    let fitted_seconds = fitted_choice(dtype, size, gpu).filter(|_| fitted_fits).map(|(tile, seconds, slices)| {
        let why = format!("A and B swapped, {}", fitted_words(&fitted_tiles(dtype)[tile], slices));
        candidates.push((Pick::FittedTiles { tile, slices }, seconds, why));
        seconds
    });
    let paired_seconds = paired_candidate(dtype, size, gpu).filter(|_| fitted_fits).map(|(tile, seconds, slices)| {
        let why = format!("A and B swapped, {}", paired_words(&paired_tiles(dtype)[tile], slices));
        candidates.push((Pick::PairedTiles { tile, slices }, seconds, why));
        seconds
    });
    candidates.push(portable);
    let (pick, seconds, predicted, chosen) = fastest(dtype, candidates);
    let why = format!("{}; {waves}; predicted us: {predicted}: {chosen}", roofline_words(dtype, size, gpu));
    Choice {
        tiled_seconds: Some(tiled_seconds),
        narrow_seconds,
        split_seconds: Some(split_seconds),
        cluster_split_seconds,
        split_b_seconds,
        swap_seconds,
        deep_k_seconds,
        fitted_seconds,
        paired_seconds,
        ..any_shape_choice((pick, seconds), (small_m_seconds, portable_seconds), why)
    }
}

/// The fastest of `candidates` (pick, predicted seconds, reason; the first
/// of equals) and its predicted seconds, every candidate's predicted time
/// in words ("small-M 34, tiled 213"), and the fastest's reason.
fn fastest(dtype: Dtype, candidates: Vec<(Pick, f64, String)>) -> (Pick, f64, String, String) {
    let predicted: Vec<String> =
        candidates.iter().map(|(pick, seconds, _)| format!("{} {:.0}", short_name(dtype, pick), seconds * 1e6)).collect();
    let (pick, seconds, chosen) = candidates.into_iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("candidates");
    (pick, seconds, predicted.join(", "), chosen)
}

/// How `tiles` tiles in clusters of `cluster` fill the SMs, round by
/// round: "256 tiles in 2 rounds, the last 94% full", or "110 tiles in 1
/// round, 83% full".
fn rounds_words(tiles: u64, cluster: u32, gpu: &Machine) -> String {
    let per_round = (gpu.multiprocessors / cluster * cluster) as u64;
    let rounds = tiles.div_ceil(per_round).max(1);
    let last = tiles - (rounds - 1) * per_round;
    let full = 100.0 * last as f64 / per_round as f64;
    match rounds {
        1 => format!("{tiles} tiles in 1 round, {full:.0}% full"),
        _ => format!("{tiles} tiles in {rounds} rounds, the last {full:.0}% full"),
    }
}

/// The `.entry` that `pick` runs for `dtype` on the model's plan: what a
/// sweep records as the kernel. On a GPU where fewer of the small-M
/// kernels' blocks fit than the plan counts on, the host re-plans, and the
/// 1-, 8- or 16-row (or 64- or 128-column) entry may differ.
pub fn kernel_name(dtype: Dtype, pick: &Pick) -> &'static str {
    let small_m = |rows: u32| match dtype {
        Dtype::Bf16 => kernels_gpu::bf16::r08_small_m::for_rows(rows).name(),
        Dtype::F32 => kernels_gpu::sgemm::r13_small_m::for_rows(rows).name(),
    };
    // The model offers a rung only where the ladder has it.
    let hopper = |kernel: Option<&'static HopperKernel>| kernel.unwrap_or(split_kernel(dtype)).name();
    match pick {
        Pick::SmallM(plan) => small_m(plan.rows),
        Pick::SmallMTensor(plan) => kernels_gpu::bf16::r18_small_m_tensor::for_plan(plan).name(),
        Pick::Tiled => tiled_kernel(dtype).name(),
        Pick::NarrowTiles(number) => narrow_rungs(dtype).get(*number).map_or(tiled_kernel(dtype), |rung| &rung.kernel).name(),
        Pick::SplitK(_) => split_kernel(dtype).name(),
        Pick::ClusterSplitK(_) => hopper(cluster_split_kernel(dtype)),
        Pick::SplitB(_) => hopper(split_b_kernel(dtype)),
        Pick::SwapAb(_) => hopper(swap_kernel(dtype)),
        Pick::DeepK(_) => hopper(deep_k_kernel(dtype)),
        Pick::FittedTiles { tile, .. } => hopper(fitted_tiles(dtype).get(*tile)),
        Pick::PairedTiles { tile, .. } => hopper(paired_tiles(dtype).get(*tile)),
        Pick::Portable => match dtype {
            Dtype::Bf16 => kernels_gpu::bf16::r01_mma_sync::KERNEL.name(),
            Dtype::F32 => kernels_gpu::sgemm::r11_tensor_cores::KERNEL.name(),
        },
    }
}

/// A candidate's name in the reason.
fn short_name(dtype: Dtype, pick: &Pick) -> String {
    let name = match pick {
        // The widths tell the narrow rungs apart: "192-wide tiles".
        Pick::NarrowTiles(number) => return format!("{}-wide tiles", narrow_rungs(dtype)[*number].kernel.tiling.tiling.tile_n),
        Pick::SmallM(_) => "small-M",
        Pick::SmallMTensor(_) => "tensor small-M",
        Pick::Tiled => "tiled",
        Pick::SplitK(_) => "split-K",
        Pick::ClusterSplitK(_) => "cluster split-K",
        Pick::SplitB(_) => "split-B",
        Pick::SwapAb(_) => "swap-AB",
        Pick::DeepK(_) => "deep-K",
        Pick::FittedTiles { .. } => "fitted tiles",
        Pick::PairedTiles { .. } => "paired tiles",
        Pick::Portable => "mma.sync tiles",
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(dtype: Dtype, size: (u32, u32, u32)) -> Pick {
        choose(dtype, size, &Machine::H200, Hopper::Takes).pick
    }

    /// The number in [`fitted_tiles`] of BF16's tiles of `rows` rows of A
    /// × `columns` of B, so that the tests name a tile shape, not where it
    /// sits in the list.
    fn tile(rows: u32, columns: u32) -> usize {
        let tiles = fitted_tiles(Dtype::Bf16);
        tiles.iter().position(|t| (t.tiling.tile_m(), t.tiling.tiling.tile_n) == (rows, columns)).expect("a fitted tile shape")
    }

    /// Full tiles hide the shorter of bytes and multiplies; tiles of
    /// mostly empty rows do not. Phi-3-mini's gate_up at M = 256: two full
    /// tile-rows of rung 7, 64 pairs on 128 SMs, one round (39.4 µs on
    /// the H200, where rung 13's 128-row swapped tiles took 60).
    #[test]
    fn full_tiles_overlap_their_bytes() {
        let (memory, arithmetic) = (40e-6, 41.7e-6);
        assert_eq!(combined_tiles(Dtype::Bf16, memory, arithmetic, (256, 128)), arithmetic);
        // One row in 128: the loss measured at M = 1, whole.
        assert!((combined_tiles(Dtype::Bf16, memory, arithmetic, (1, 128)) - combined(memory, arithmetic)).abs() < 1e-12);
        // 200 rows in two tiles of 128: 56 empty, about a fifth of the loss.
        let partly = combined_tiles(Dtype::Bf16, memory, arithmetic, (200, 128));
        assert!(partly > arithmetic + 4e-6 && partly < arithmetic + 5e-6, "{partly}");
        // The 3xTF32 split's passes run before the GEMM: the loss stays.
        assert_eq!(combined_tiles(Dtype::F32, memory, arithmetic, (256, 128)), combined(memory, arithmetic));
        assert_eq!(pick(Dtype::Bf16, (256, 16384, 3072)), Pick::Tiled);
    }

    #[test]
    fn decode_streams_and_squares_tile() {
        for (k, n) in [(4096, 6144), (4096, 4096), (4096, 28672), (14336, 4096)] {
            assert!(matches!(pick(Dtype::F32, (1, n, k)), Pick::SmallM(_)), "fp32 M = 1, {k}x{n}");
            assert_eq!(pick(Dtype::Bf16, (8192, n, k)), Pick::Tiled, "M = 8192, {k}x{n}");
        }
        // BF16 at M = 1: where the weights are few (34 MB), 16-row
        // swapped tiles, which start streaming sooner; from 50 MB up, the
        // small-M kernel, which streams them faster (on the H200 at 50 MB
        // 18.8 µs against the tiles' 19.2, at 34 MB 14.8 against 14.5).
        let swapped = match pick(Dtype::Bf16, (1, 4096, 4096)) {
            Pick::SwapAb(_) => true,
            Pick::FittedTiles { tile, .. } => fitted_tiles(Dtype::Bf16)[tile].tiling.tile_m() == 16,
            _ => false,
        };
        assert!(swapped, "M = 1, 4096x4096");
        for (k, n) in [(4096, 6144), (4096, 28672), (14336, 4096)] {
            assert!(matches!(pick(Dtype::Bf16, (1, n, k)), Pick::SmallM(_)), "M = 1, {k}x{n}");
        }
        assert_eq!(pick(Dtype::Bf16, (4096, 4096, 4096)), Pick::Tiled);
        assert_eq!(pick(Dtype::F32, (8192, 8192, 8192)), Pick::Tiled);
    }

    /// Few tiles and deep K: one 128x256 tile would walk 65536 k alone.
    /// The split-K rung deals its slices to every SM, but three quarters of
    /// its stages are zeros; the deep-K rung's 64x64 tiles carry only the
    /// data, all of a slice in flight at once.
    #[test]
    fn deep_k_with_one_tile_splits_k_over_small_tiles() {
        let choice = choose(Dtype::Bf16, (64, 64, 65536), &Machine::H200, Hopper::Takes);
        assert!(matches!(choice.pick, Pick::DeepK(s) if s.count > 100), "{choice:?}");
        assert!(choice.why.contains("1 tiles on 132 SMs (1% busy)"), "{}", choice.why);
        assert!(choice.why.ends_with("tiles of 64 rows x 64 columns, K in 128 slices of 512"), "{}", choice.why);
        // Mostly zeros, the split-K rung's stages take longer than its bytes.
        let (seconds, _) = split_time(Dtype::Bf16, (64, 64, 65536), &Machine::H200, split_kernel(Dtype::Bf16));
        assert!(seconds > choice.deep_k_seconds.unwrap() + 1e-6, "{seconds}");
        // The SGEMM ladder has no such rung.
        assert!(choose(Dtype::F32, (64, 64, 65536), &Machine::H200, Hopper::Takes).deep_k_seconds.is_none());
    }

    #[test]
    fn reasons_carry_the_numbers_that_decide() {
        // At M = 16 the swapped 16-row tiles waste nothing, and their
        // stages hold eight times as many weights as A; the fitted tiles'
        // 224 tiles of 16x128 with K whole are the same persistent walk,
        // charged a clustered launch's fixed costs (FITTED_FIXED_SECONDS).
        // Rung 18 streams the weights as rung 8 does at one row, in 448
        // blocks of 64 columns with K whole: 235 MB at 4.5 TB/s (52.6 us)
        // and 9 + 2 us (SMALL_M_TENSOR_SECONDS). Measured on the H200:
        // 60.1 us, the swap-AB rung 62.1.
        let choice = choose(Dtype::Bf16, (16, 28672, 4096), &Machine::H200, Hopper::Takes);
        let plan = SmallMPlan { rows: 16, cols: 8, groups: 8, k_chunk: 4096, splits: 1 };
        assert_eq!(choice.pick, Pick::SmallMTensor(plan), "{}", choice.why);
        assert!(choice.why.ends_with("small-M stream on tensor cores, 1 K-splits x 448 column blocks"), "{}", choice.why);
        assert!(choice.why.contains("swap-AB 76, tensor small-M 64, deep-K 78, fitted tiles 76"), "{}", choice.why);
        assert!(choose(Dtype::Bf16, (17, 28672, 4096), &Machine::H200, Hopper::Takes).swap_seconds.is_none());
        let choice = choose(Dtype::Bf16, (1, 4096, 14336), &Machine::H200, Hopper::Takes);
        assert!(choice.why.starts_with("1 FLOP/B vs ridge 220: memory-bound"), "{}", choice.why);
        // 117 MB of weights and 0.3 MB of partial sums written and read (K
        // in 8 pieces, 64 blocks of 64 columns) at 4.5 TB/s (26 us), and
        // 8 us to start one row of A's kernel and add its slices.
        assert!((choice.small_m_seconds * 1e6 - 34.2).abs() < 0.1, "{}", choice.small_m_seconds);
        let elsewhere = choose(Dtype::Bf16, (4096, 4096, 4096), &Machine::H200, Hopper::Cannot);
        assert_eq!(elsewhere.pick, Pick::Portable, "{}", elsewhere.why);
        assert!(
            elsewhere.why.ends_with("tensor-core tiles of 128x256 (mma.sync) (no Hopper rung takes this shape here)"),
            "{}",
            elsewhere.why
        );
    }

    /// Where no Hopper rung runs (a GPU before Hopper, or rows of K or N
    /// that are not whole 16 bytes for TMA), the portable module's
    /// tensor-core rung: its model gives the H200's measured times within
    /// 20% (BF16 rung 1: 550 µs at 4096³, 2047 at 4097³, 649 at
    /// 1024 × 4097 × 4096, 459 at 128 × 12289 × 4100; SGEMM rung 11: 2281
    /// at 4096³, 3395 at 4097³). It takes the shapes the small-M kernel
    /// would compute on the CUDA cores at many rows (128 × 12289 × 4100:
    /// 1245 µs on the small-M kernel, 459 on rung 1); at 32 rows the small-M
    /// kernel stays (32 × 4097 × 4097: 135 µs against rung 1's 387), and at
    /// M = 1.
    #[test]
    fn odd_shapes_keep_the_tensor_cores() {
        for (dtype, size, measured) in [
            (Dtype::Bf16, (4096, 4096, 4096), 550e-6),
            (Dtype::Bf16, (4097, 4097, 4097), 2047e-6),
            (Dtype::Bf16, (1024, 4097, 4096), 649e-6),
            (Dtype::Bf16, (128, 12289, 4100), 459e-6),
            (Dtype::F32, (4096, 4096, 4096), 2281e-6),
            (Dtype::F32, (4097, 4097, 4097), 3395e-6),
        ] {
            let predicted = portable_time(dtype, size, &Machine::H200);
            assert!((predicted / measured - 1.0).abs() < 0.2, "{dtype:?} {size:?}: {predicted}");
        }
        assert_eq!(choose(Dtype::Bf16, (128, 12289, 4100), &Machine::H200, Hopper::Cannot).pick, Pick::Portable);
        assert!(matches!(choose(Dtype::Bf16, (32, 4097, 4097), &Machine::H200, Hopper::Cannot).pick, Pick::SmallM(_)));
        assert_eq!(choose(Dtype::Bf16, (1000, 1000, 1031), &Machine::H200, Hopper::Cannot).pick, Pick::Portable);
        for dtype in [Dtype::Bf16, Dtype::F32] {
            assert!(matches!(choose(dtype, (1, 4097, 4097), &Machine::H200, Hopper::Cannot).pick, Pick::SmallM(_)));
        }
        // On Hopper too, where SGEMM's split of B cannot take N: 845 µs on
        // rung 11 at 100 × 49153 × 3072, 2997 on the small-M kernel.
        assert_eq!(choose(Dtype::F32, (100, 49153, 3072), &Machine::H200, Hopper::Takes).pick, Pick::Portable);
        assert!(!matches!(choose(Dtype::F32, (100, 49152, 3072), &Machine::H200, Hopper::Takes).pick, Pick::Portable));
    }

    /// The Hopper rungs take a BF16 shape whose K or N is not a multiple of
    /// 8 only padded, and nothing where the GPU is not Hopper; no fp32
    /// shape is padded (the 3xTF32 rungs copy A and B into parts of their
    /// own). Padded, 4097³ ran in 397 µs on the H200 (rung 1 as it is:
    /// 2089); at M = 1 the copies would double B's bytes, and the small-M
    /// kernel reads B as it is.
    #[test]
    fn odd_rows_are_padded_for_the_hopper_rungs() {
        assert_eq!(Hopper::of(Dtype::Bf16, (4097, 4097, 4097), true), Hopper::TakesPadded((4097, 4104, 4104)));
        assert_eq!(Hopper::of(Dtype::Bf16, (5, 4096, 4097), true), Hopper::TakesPadded((5, 4096, 4104)));
        assert_eq!(Hopper::of(Dtype::Bf16, (4097, 4096, 4096), true), Hopper::Takes);
        assert_eq!(Hopper::of(Dtype::Bf16, (4097, 4097, 4097), false), Hopper::Cannot);
        assert_eq!(Hopper::of(Dtype::Bf16, (1, u32::MAX, 8), true), Hopper::Cannot);
        assert_eq!(Hopper::of(Dtype::F32, (4097, 4097, 4097), true), Hopper::Takes);
        assert_eq!(Hopper::of(Dtype::F32, (1, 1, 3_000_001), true), Hopper::Cannot);
        let on_h200 = |size| choose(Dtype::Bf16, size, &Machine::H200, Hopper::of(Dtype::Bf16, size, true));
        let cube = on_h200((4097, 4097, 4097));
        assert_eq!(cube.padded, Some((4097, 4104, 4104)), "{}", cube.why);
        assert!(matches!(cube.pick, Pick::Tiled | Pick::NarrowTiles(_)), "{}", cube.why);
        assert!(cube.why.contains("copied into rows of whole 16 bytes (N 4097 -> 4104, K 4097 -> 4104"), "{}", cube.why);
        assert!(cube.seconds > padding_time(Dtype::Bf16, (4097, 4097, 4097), &Machine::H200));
        let decode = on_h200((1, 50257, 768));
        assert!(matches!(decode.pick, Pick::SmallM(_)) && decode.padded.is_none(), "{}", decode.why);
        assert!(decode.why.contains("(padded to rows of whole 16 bytes (N 50257 -> 50264, K 768 -> 768): "), "{}", decode.why);
    }

    /// At M = 16 and 128 the small-M kernel's FMAs, not its bytes, set its
    /// time: the tensor cores win, K split where the tiles are few.
    #[test]
    fn medium_m_goes_to_the_tensor_cores() {
        // One tile of 16 rows: the weights as wgmma's M, 48 tiles of 128
        // columns in 2 slices added in clusters of 2.
        assert_eq!(
            pick(Dtype::Bf16, (16, 6144, 4096)),
            Pick::FittedTiles { tile: tile(16, 128), slices: KSlices { count: 2, k_tiles: 32 } }
        );
        // N = 4096: 64 tiles of 16x64 in 2 slices keep 128 SMs busy, 32 of
        // 16x128 in 3 slices 96.
        assert_eq!(
            pick(Dtype::Bf16, (16, 4096, 4096)),
            Pick::FittedTiles { tile: tile(16, 64), slices: KSlices { count: 2, k_tiles: 32 } }
        );
        // 32 rows: 32-row tiles, 96 of them with K whole.
        assert_eq!(pick(Dtype::Bf16, (32, 6144, 4096)), Pick::FittedTiles { tile: tile(32, 64), slices: KSlices::whole(64) });
        // 128 rows, N = 4096: 64 tiles of 128x64 in 2 slices (the weights
        // read once), where rung 9 would cut 16 tiles of 128x256 into 8.
        assert_eq!(
            pick(Dtype::Bf16, (128, 4096, 14336)),
            Pick::FittedTiles { tile: tile(128, 64), slices: KSlices { count: 2, k_tiles: 112 } }
        );
        let split = split_time(Dtype::Bf16, (128, 4096, 14336), &Machine::H200, split_kernel(Dtype::Bf16)).1;
        assert_eq!(split, KSlices { count: 8, k_tiles: 28 });
        // fp32 at 128 rows: rung 15, which reads the weights once instead of
        // splitting them in a pass of their own; rung 14 where N is not a
        // multiple of 4 (rung 15's TMA reads B's rows).
        assert_eq!(pick(Dtype::F32, (128, 6144, 4096)), Pick::SplitB(KSlices { count: 5, k_tiles: 26 }));
        assert!(matches!(pick(Dtype::F32, (128, 6146, 4096)), Pick::SplitK(_)));
        assert!(matches!(pick(Dtype::F32, (16, 6144, 4096)), Pick::SmallM(p) if p.rows == 16));
        // Rung 12 splits all 470 MB of gate_up's fp32 weights on every run.
        assert!(matches!(pick(Dtype::F32, (16, 28672, 4096)), Pick::SmallM(_)));
    }

    /// gate_up at M = 128: 112 tiles, but rung 7's blocks come in pairs
    /// along M, and at M ≤ 128 one of each pair has no rows: 224 blocks,
    /// two waves. The split-K rung's single blocks fit one wave, K whole;
    /// the 128x128 fitted tiles do too, predicted faster still.
    #[test]
    fn pairs_of_blocks_with_one_tile_of_rows_lose_to_single_blocks() {
        let choice = choose(Dtype::Bf16, (128, 28672, 4096), &Machine::H200, Hopper::Takes);
        assert_eq!(choice.pick, Pick::FittedTiles { tile: tile(128, 128), slices: KSlices::whole(64) }, "{}", choice.why);
        assert!(choice.why.contains("112 tiles on 132 SMs (85% busy)"), "{}", choice.why);
        assert!(choice.tiled_seconds.unwrap() > 1.2 * choice.split_seconds.unwrap(), "{choice:?}");
    }

    /// o at M = 32: 16 tiles. Clusters of 8 would need 16 at once, and the
    /// H200 runs 15 (a cluster's SMs share a GPC): the 16th would take a
    /// second round. Clusters of 6 (17 fit) take one.
    #[test]
    fn clusters_that_do_not_fit_cost_a_round() {
        let size = (32, 4096, 4096);
        let kernel = cluster_split_kernel(Dtype::Bf16).unwrap();
        assert_eq!(cluster_split_time(Dtype::Bf16, size, &Machine::H200, kernel).1, KSlices { count: 6, k_tiles: 11 });
        let packed = Machine { clusters: ClusterSlots::packed(132), ..Machine::H200 };
        assert_eq!(cluster_split_time(Dtype::Bf16, size, &packed, kernel).1, KSlices { count: 8, k_tiles: 8 });
        // The SGEMM ladder has no such rung: never picked there.
        assert!(choose(Dtype::F32, size, &Machine::H200, Hopper::Takes).cluster_split_seconds.is_none());
    }

    /// Phi-3-mini's o at M = 1 and 8 (3072²): rung 10's 128×256 tiles are
    /// nearly all zeros in rows, and their stages' copies, not the bytes of
    /// the weights, set their time (13.3-13.4 µs on the H200); the swapped
    /// 16-row tiles (10.8-10.9 µs) win. At M = 200 the tiles are full and
    /// that limit is not the one that binds.
    #[test]
    fn mostly_empty_cluster_tiles_pay_for_their_stages() {
        let kernel = cluster_split_kernel(Dtype::Bf16).unwrap();
        for m in [1, 8] {
            let size = (m, 3072, 3072);
            assert!(matches!(pick(Dtype::Bf16, size), Pick::FittedTiles { tile: t, .. } if t == tile(16, 128)), "M = {m}");
            let (seconds, slices) = cluster_split_time(Dtype::Bf16, size, &Machine::H200, kernel);
            let rounds = cluster_rounds(kernel, (m, 3072), slices, &Machine::H200);
            assert_eq!(seconds, stage_seconds(kernel, slices, rounds, SPLIT_K_SM_BYTES_PER_SECOND) + FITTED_FIXED_SECONDS, "M = {m}");
        }
        let full = (200, 3584, 18944);
        let (seconds, slices) = cluster_split_time(Dtype::Bf16, full, &Machine::H200, kernel);
        let rounds = cluster_rounds(kernel, (200, 3584), slices, &Machine::H200);
        assert!(!mostly_empty(kernel, (200, 3584)) && seconds < stage_seconds(kernel, slices, rounds, SPLIT_K_SM_BYTES_PER_SECOND));
        assert!(mostly_empty(kernel, (64, 64)) && mostly_empty(kernel, (128, 128)) && !mostly_empty(kernel, (129, 256)));
    }

    /// Rung 9's copies fill mostly empty tiles' stages at 39 GB/s per SM
    /// and full ones' at 70: at Llama-3-8B's down at M = 240 (full tiles)
    /// the slower rate would say 76 µs where it took 48.7 on the H200, and
    /// rung 13's 128×128 tiles (55.4) would be picked over it; at
    /// 64×64×65536 (an eighth of a tile) the slower rate is the limit.
    #[test]
    fn full_split_tiles_fill_their_stages_faster() {
        let kernel = split_kernel(Dtype::Bf16);
        let full = (240, 4096, 14336);
        assert!(matches!(pick(Dtype::Bf16, full), Pick::SplitK(_)));
        let (seconds, slices) = split_time(Dtype::Bf16, full, &Machine::H200, kernel);
        let rounds = unit_rounds(kernel, (240, 4096), slices, &Machine::H200);
        assert!(seconds >= stage_seconds(kernel, slices, rounds, SPLIT_K_FULL_SM_BYTES_PER_SECOND));
        assert!(seconds < stage_seconds(kernel, slices, rounds, SPLIT_K_SM_BYTES_PER_SECOND));
        let empty = (64, 64, 65536);
        let (seconds, slices) = split_time(Dtype::Bf16, empty, &Machine::H200, kernel);
        let rounds = unit_rounds(kernel, (64, 64), slices, &Machine::H200);
        let stages = stage_seconds(kernel, slices, rounds, SPLIT_K_SM_BYTES_PER_SECOND);
        assert_eq!(seconds, stages + launches(slices) * LAUNCH_SECONDS);
    }

    /// The split-K rung's second kernel reads the partial sums and writes C
    /// after the multiplies, where they cannot hide it. Llama-3-8B's down
    /// at M = 512 (64 tiles of 128×256 in 2 slices, 25 MB for the sum) took
    /// 86.9 µs on the H200 with rung 9 and 81.9 with rung 16's 128×128
    /// tiles (K whole, one round); counted under the multiplies, the sum
    /// made rung 9 the pick.
    #[test]
    fn the_partial_sums_follow_the_multiplies() {
        let size = (512, 4096, 14336);
        assert!(matches!(pick(Dtype::Bf16, size), Pick::NarrowTiles(1)));
        assert_eq!(split_time(Dtype::Bf16, size, &Machine::H200, split_kernel(Dtype::Bf16)).1.count, 2);
    }

    /// Each round of clusters after the first restarts every SM's
    /// pipeline. At M = 1 on Llama-2-13B's o (5120²) and phi-2's fc1, 80
    /// tiles in clusters of 4 took three rounds and 29.8 and 29.0 µs on the
    /// H200, where the bytes said 21; the cut now counts the restarts and
    /// keeps those tiles in one round (2 slices and K whole: 20.1 and 19.9
    /// µs). At Qwen2-7B's qkv at M = 32 (72 tiles of 32 × 64), K whole
    /// (14.3 µs) against 3 slices in two rounds (17.9). With K whole the
    /// blocks are persistent and copy ahead into their next tile: no
    /// restarts; Qwen2-7B's gate_up at M = 32 (592 tiles, 77.0 µs) is its
    /// bytes' time. Phi-3-mini's qkv at M = 8: rung 12's 72
    /// tiles in clusters of 3 take two rounds (22.5 µs), the swap-AB rung's
    /// persistent blocks none (21.4).
    #[test]
    fn rounds_of_clusters_cost_a_restart_each() {
        for size in [(1, 5120, 5120), (1, 10240, 2560), (32, 4608, 3584)] {
            let (tile, _, slices) = fitted_choice(Dtype::Bf16, size, &Machine::H200).unwrap();
            let kernel = fitted_tiles(Dtype::Bf16)[tile];
            let rounds = kernel.tiling.tiles(size.0, size.1).div_ceil(Machine::H200.clusters.of(slices.count));
            assert_eq!(rounds, 1, "{size:?}: {slices:?}");
        }
        // The 32x64 tiles at Qwen2-7B's qkv, M = 32: 72 tiles with K whole
        // in one round, not 3 slices in two rounds of clusters.
        let kernel = fitted_tiles(Dtype::Bf16)[tile(32, 64)];
        assert_eq!(fitted_time(Dtype::Bf16, (32, 4608, 3584), &Machine::H200, &kernel).1, KSlices::whole(56));
        let size = (32, 37888, 3584);
        let (seconds, slices) = fitted_time(Dtype::Bf16, size, &Machine::H200, &kernel);
        assert_eq!((slices.count, cluster_rounds(&kernel, (32, 37888), slices, &Machine::H200)), (1, 5.0));
        let dram = min_bytes(size, 2.0) / (Machine::H200.dram_bytes * SWAP_AB_STREAM_EFFICIENCY);
        assert_eq!(seconds, dram + FITTED_FIXED_SECONDS);
        // Nor 144 tiles of 16x64 with K whole, whose second round is a
        // tail of 12 SMs (25.1 us, `last_round_limit`).
        assert!(!matches!(pick(Dtype::Bf16, (8, 9216, 3072)), Pick::FittedTiles { .. }));
    }

    /// Where 128x256 tiles leave most of a last round empty, 128x192 tiles
    /// fill it; where the rounds are full, the wider tiles do more work
    /// per byte and win.
    #[test]
    fn narrow_tiles_fill_a_last_round() {
        let narrow = |size: (u32, u32, u32)| pick(Dtype::Bf16, size) == Pick::NarrowTiles(0);
        // Llama-3-8B's qkv at M = 1024: 192 tiles in 2 rounds (the last 45%
        // full) against 256 in 2 (94%); measured 90.2 against 71.3 us.
        assert!(narrow((1024, 6144, 4096)));
        // Llama-2-13B's o and down at M = 1024, and 1536x4096x4096.
        assert!(narrow((1024, 5120, 5120)) && narrow((1024, 5120, 13824)) && narrow((1536, 4096, 4096)));
        // Full rounds either way: 4096^3 (4 rounds against 6 of three
        // quarters), 8192^3 (16 against 21), qkv at M = 2048 and 8192,
        // gate_up at M = 1024.
        for size in [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 6144, 4096), (8192, 6144, 4096), (1024, 28672, 4096)] {
            assert_eq!(pick(Dtype::Bf16, size), Pick::Tiled, "{size:?}");
        }
        let choice = choose(Dtype::Bf16, (1024, 6144, 4096), &Machine::H200, Hopper::Takes);
        assert!(choice.why.contains("128x256: 192 tiles in 2 rounds, the last 45% full"), "{}", choice.why);
        assert!(choice.why.ends_with("tensor-core tiles of 128x192, 256 tiles in 2 rounds, the last 94% full"), "{}", choice.why);
        assert!(choose(Dtype::F32, (1024, 6144, 4096), &Machine::H200, Hopper::Takes).narrow_seconds.is_none());
    }

    /// Where 192 columns still leave a last round mostly empty, 128x128
    /// tiles fill it; where 256 or 192 fill theirs, those win.
    #[test]
    fn tiles_128_wide_where_wider_ones_leave_a_round_empty() {
        let tiles_128 = |size: (u32, u32, u32)| pick(Dtype::Bf16, size) == Pick::NarrowTiles(1);
        // Llama-3-70B's qkv at M = 1024: 320 tiles of 128x256 in 3 rounds
        // (the last 42% full), 432 of 128x192 in 4 (27%), 640 of 128x128
        // in 5 (85%); measured 253.3, 259.3 and 230.5 us.
        assert!(tiles_128((1024, 10240, 8192)));
        // M = 512, o: 64 tiles of 128x256 and 88 of 128x192 leave half the
        // SMs idle, 128 of 128x128 fill one round (45.8, 36.7, 28.2 us).
        assert!(tiles_128((512, 4096, 4096)) && tiles_128((512, 3584, 3584)));
        // Full rounds of the wider tiles: squares, qkv at M = 1024 (256 of
        // 128x192 in 2 rounds, 94%), gate_up.
        for size in [(4096, 4096, 4096), (8192, 8192, 8192), (1024, 6144, 4096), (1024, 28672, 4096), (8192, 6144, 4096)] {
            assert!(!tiles_128(size), "{size:?}");
        }
        let choice = choose(Dtype::Bf16, (1024, 10240, 8192), &Machine::H200, Hopper::Takes);
        assert!(choice.why.ends_with("tensor-core tiles of 128x128, 640 tiles in 5 rounds, the last 85% full"), "{}", choice.why);
        assert!(choice.why.contains("192-wide tiles") && choice.why.contains("128-wide tiles"), "{}", choice.why);
    }

    #[test]
    fn a_wave_with_one_tile_costs_a_whole_wave() {
        let h200 = Machine::H200;
        let (full, tiles) = tiled_time(Dtype::Bf16, (128 * 12, 256 * 11, 4096), &h200);
        assert_eq!(tiles, 132);
        let (one_more, _) = tiled_time(Dtype::Bf16, (128 * 12 + 1, 256 * 11, 4096), &h200);
        assert!(one_more > 1.8 * (full - LAUNCH_SECONDS), "{full} {one_more}");
    }

    /// The fitted tiles' rows are the fewest that hold M in as few tiles
    /// of rows as can; their columns are the model's choice.
    #[test]
    fn fitted_tiles_hold_m_with_the_fewest_rows() {
        let rows = |m: u32| {
            let (tile, _, _) = fitted_choice(Dtype::Bf16, (m, 4096, 4096), &Machine::H200).unwrap();
            fitted_tiles(Dtype::Bf16)[tile].tiling.tile_m()
        };
        assert_eq!(
            [rows(1), rows(16), rows(17), rows(32), rows(33), rows(64), rows(65), rows(96), rows(97), rows(128)],
            [16, 16, 32, 32, 64, 64, 80, 96, 112, 128]
        );
        // Beyond 128 rows, the rows split evenly between the tiles of rows.
        assert_eq!([rows(129), rows(176), rows(200), rows(256), rows(257), rows(1000)], [80, 96, 112, 128, 96, 128]);
        // At M = 128 with N = 4096, 32 tiles of 128x128 in 3 slices keep
        // 96 SMs busy, 64 of 128x64 in 2 slices 128 (measured on the H200:
        // 20.7 against 19.3 us). With N = 6144 both keep 96 busy, and the
        // 128x128 tiles' fewer bytes of A win (24.9 against 27.3 us).
        let columns = |n: u32| {
            let (tile, _, _) = fitted_choice(Dtype::Bf16, (128, n, 4096), &Machine::H200).unwrap();
            fitted_tiles(Dtype::Bf16)[tile].tiling.tiling.tile_n
        };
        assert_eq!([columns(4096), columns(6144)], [64, 128]);
        // At M = 256, qkv: 64 tiles of 128x192 in 2 slices keep 128 SMs
        // busy (97%), 96 of 128x128 in one round 96; at N = 5120 and
        // M = 128, 27 tiles of 128x192 in 4 slices 108, 40 of 128x128 in 2
        // slices 80 (5 would need two rounds: 22 clusters of 5 fit). The
        // model's times tie, and two consumers win the tie: on the H200,
        // 29.5 against 28.4 us at M = 256 (where auto takes rung 16), 20.1
        // against 22.0 at Mistral-NeMo's o (N = 5120, M = 128).
        let wide = |(m, n): (u32, u32)| {
            let (tile, _, _) = fitted_choice(Dtype::Bf16, (m, n, 4096), &Machine::H200).unwrap();
            fitted_tiles(Dtype::Bf16)[tile].tiling.tiling.tile_n
        };
        assert_eq!([wide((256, 6144)), wide((128, 5120))], [128, 128]);
        // At M = 1 the same for 16 rows: N = 4096 gets 64 columns, N = 6144
        // and gate_up's 28672 get 128.
        let narrow = |n: u32| {
            let (tile, _, _) = fitted_choice(Dtype::Bf16, (1, n, 4096), &Machine::H200).unwrap();
            fitted_tiles(Dtype::Bf16)[tile].tiling.tiling.tile_n
        };
        assert_eq!([narrow(4096), narrow(6144), narrow(28672)], [64, 128, 128]);
        assert!(fitted_choice(Dtype::F32, (128, 4096, 4096), &Machine::H200).is_none());
    }

    /// The pairs' rows: as few pairs as hold M, and in them the fewest rows
    /// that do; none where one tile of rows of the fitted tiles holds M.
    #[test]
    fn paired_tiles_hold_m_with_the_fewest_rows() {
        let rows = |m: u32| {
            paired_choice(Dtype::Bf16, (m, 8192, 8192), &Machine::H200).map(|(tile, _, _)| paired_tiles(Dtype::Bf16)[tile].tiling.tile_m())
        };
        assert_eq!([rows(1), rows(128)], [None, None]);
        assert_eq!(
            [rows(129), rows(160), rows(161), rows(192), rows(193), rows(224)],
            [Some(80), Some(80), Some(96), Some(96), Some(112), Some(112)]
        );
        // Two pairs: four tiles of rows.
        assert_eq!([rows(225), rows(300), rows(448)], [Some(64), Some(80), Some(112)]);
        assert!(paired_choice(Dtype::F32, (200, 8192, 8192), &Machine::H200).is_none());
    }

    /// Two tiles of rows that do not share their copies each read the
    /// weights from DRAM where the weights do not fit in L2; in pairs they
    /// read them once. Llama-3-70B's o (134 MB) at M = 129 to 200 and
    /// Llama-3-8B's down (117 MB) at M = 129 on the H200: 39.6-53.0 µs in
    /// pairs, 52.3-58.9 as picked before (unpaired fitted tiles, rung 16).
    #[test]
    fn weights_beyond_l2_go_to_pairs() {
        for size in [(129, 8192, 8192), (152, 8192, 8192), (176, 8192, 8192), (200, 8192, 8192), (129, 4096, 14336), (200, 8192, 28672)] {
            let choice = choose(Dtype::Bf16, size, &Machine::H200, Hopper::Takes);
            assert!(matches!(choice.pick, Pick::PairedTiles { .. }), "{size:?}: {}", choice.why);
        }
        // Unpaired 80-row tiles pay for the second read from the second
        // tile of rows on (M = 81); with weights that fit in L2 they do not.
        let fitted = |size| fitted_time(Dtype::Bf16, size, &Machine::H200, &fitted_tiles(Dtype::Bf16)[tile(80, 128)]).0;
        assert!(fitted((81, 8192, 8192)) > 1.5 * fitted((80, 8192, 8192)));
        assert!(fitted((81, 4096, 4096)) < 1.2 * fitted((80, 4096, 4096)));
    }

    /// No pairs where the unpaired tiles read the weights once too (they
    /// fit in L2), where M fits in one tile of rows, or where the pairs
    /// need more than one round and are either held back by their
    /// multiplies (112 rows) or leave the last round mostly empty.
    #[test]
    fn pairs_only_for_weights_beyond_l2_that_they_stream() {
        let paired = |size| matches!(pick(Dtype::Bf16, size), Pick::PairedTiles { .. });
        // Llama-3-8B's qkv (50 MB) at M = 200; its down at M = 128.
        assert!(!paired((200, 6144, 4096)));
        assert!(!paired((128, 4096, 14336)));
        // Qwen2-7B's down at M = 200: 112-row tiles, 3 rounds.
        assert!(!paired((200, 3584, 18944)));
        // Qwen2.5-72B's qkv at M = 160: 160 tiles, the second round 28.
        assert!(!paired((160, 10240, 8192)));
        // Over several rounds at 80 rows: Llama-3-70B's o at M = 300 (two
        // pairs of rows, 256 tiles), Mixtral's w1 at M = 150 (224 tiles),
        // Gemma-2-27B's down at M = 144 (K in slices).
        assert!(paired((300, 8192, 8192)));
        assert!(paired((150, 14336, 4096)));
        assert!(paired((144, 4608, 36864)));
    }

    /// Tiles twice as wide read each row of A for twice the weights: taken
    /// where they keep the SMs as busy with K as little cut, and where
    /// DRAM sets the time either way.
    #[test]
    fn wider_tiles_where_they_stream_less() {
        // Phi-3-mini's qkv at M = 64: 72 tiles of 64x128 in one round with
        // K whole, 144 of 64x64 in a round and a tenth (on the H200 20.1
        // against 27.8 us).
        assert_eq!(pick(Dtype::Bf16, (64, 9216, 3072)), Pick::FittedTiles { tile: tile(64, 128), slices: KSlices::whole(48) });
        // Gate_up at M = 32 and 64: K whole and 85% busy either way, DRAM
        // the limit; the wider tiles read a sixth (M = 32) and a quarter
        // (M = 64) less per SM (64.0 against 69.3 us at M = 32, 65.2
        // against 72.1 at M = 64).
        assert_eq!(pick(Dtype::Bf16, (32, 28672, 4096)), Pick::FittedTiles { tile: tile(32, 128), slices: KSlices::whole(64) });
        assert_eq!(pick(Dtype::Bf16, (64, 28672, 4096)), Pick::FittedTiles { tile: tile(64, 128), slices: KSlices::whole(64) });
        // Llama-3-8B's qkv at M = 64: 96 SMs either way, but 64x128 needs
        // K in 2 slices (20.8 us, against 19.3 for 64x64 with K whole).
        assert_eq!(pick(Dtype::Bf16, (64, 6144, 4096)), Pick::FittedTiles { tile: tile(64, 64), slices: KSlices::whole(64) });
    }

    /// The fitted tile is the fastest predicted, and only among those
    /// within a microsecond of it two consumers, then the busiest. At Llama-2-7B's qkv at
    /// M = 128 (N = 12288) 96 tiles of 128x128 with K whole (predicted 39
    /// µs) took 31.3 on the H200, where 64 of 128x192 in 2 slices (128 SMs
    /// busy, predicted 46) took 33.6 and rung 14's 128x192 tiles 37.6. At
    /// Llama-3-8B's down at M = 128 the three tie, and the busier 64
    /// columns win (128 SMs against 96).
    #[test]
    fn fitted_tiles_rank_by_time_then_busy() {
        assert_eq!(pick(Dtype::Bf16, (128, 12288, 4096)), Pick::FittedTiles { tile: tile(128, 128), slices: KSlices::whole(64) });
        let Pick::FittedTiles { tile: chosen, .. } = pick(Dtype::Bf16, (128, 4096, 14336)) else { panic!("not the fitted tiles") };
        assert_eq!(chosen, tile(128, 64));
        // Three consumers lose a tie even to fewer busy SMs: Llama-3.2-3B's
        // qkv at M = 128, 128x192 in 4 slices (108 SMs) 19.4 us, 128x128 in
        // 2 (80 SMs) 17.0.
        let Pick::FittedTiles { tile: chosen, .. } = pick(Dtype::Bf16, (128, 5120, 3072)) else { panic!("not the fitted tiles") };
        assert_eq!(chosen, tile(128, 128));
    }

    /// The swap-AB rung's second launch and persistent start
    /// ([`SWAP_AB_FIXED_SECONDS`]) and rung 18's fixed costs
    /// ([`SMALL_M_TENSOR_SECONDS`]): below about 60 MB of weights at M ≤ 16
    /// the fitted tiles' one clustered launch wins (Llama-3.2-1B's o at
    /// M = 16: 9.4 µs against 8.4 on the H200, rung 18 10.2); at
    /// Llama-3-8B's gate_up (235 MB) the fixed costs are a sixth, and the
    /// stream with the fewest bytes in flight per SM's share wins.
    #[test]
    fn small_weights_take_one_launch() {
        assert!(matches!(pick(Dtype::Bf16, (16, 2048, 2048)), Pick::FittedTiles { .. }));
        assert!(matches!(pick(Dtype::Bf16, (16, 28672, 4096)), Pick::SmallMTensor(_)));
    }

    /// With a wave or more of 128x256 tiles the fitted tiles are not
    /// offered: the tiled rung does more work per byte; unless A fits in
    /// one row of those tiles, so that the weights stream once either way
    /// (Qwen2-7B's gate_up at M = 32: 148 tiles, a quarter full; on the
    /// H200 the 32-row tiles took it in 77.0 µs, the deep-K rung 84.2;
    /// Gemma-7B's gate_up at M = 128, 192 tiles: split-K's 95.6 µs, the
    /// 128x128 swapped tiles' 88.0).
    #[test]
    fn fitted_tiles_are_for_few_tiles() {
        assert!(choose(Dtype::Bf16, (1024, 6144, 4096), &Machine::H200, Hopper::Takes).fitted_seconds.is_none());
        assert!(choose(Dtype::Bf16, (128, 6144, 4096), &Machine::H200, Hopper::Takes).fitted_seconds.is_some());
        assert!(choose(Dtype::Bf16, (129, 37888, 3584), &Machine::H200, Hopper::Takes).fitted_seconds.is_none());
        let choice = choose(Dtype::Bf16, (128, 49152, 3072), &Machine::H200, Hopper::Takes);
        assert_eq!(choice.pick, Pick::FittedTiles { tile: tile(128, 128), slices: KSlices::whole(48) }, "{}", choice.why);
        let choice = choose(Dtype::Bf16, (32, 37888, 3584), &Machine::H200, Hopper::Takes);
        assert_eq!(choice.pick, Pick::FittedTiles { tile: tile(32, 64), slices: KSlices::whole(56) }, "{}", choice.why);
    }
}
