//! The "auto" rung: which kernel a shape should run, chosen from a model
//! of the GPU rather than a table of shapes.
//!
//! Two kinds of kernel compete:
//! - the **small-M** kernel streams B once (per 1, 8 or 16 rows of A) on
//!   the CUDA cores, splitting K over blocks until every SM has work. Its
//!   time comes from its bytes over DRAM bandwidth and its FLOPs over the
//!   FP32 pipes, the shorter of the two half hidden ([`OVERLAP_LOSS`]);
//! - the **tiled** tensor-core rung (BF16 rung 7 or SGEMM rung 12 on
//!   Hopper) computes 128×256 tiles, one tile per SM at a time. Its
//!   arithmetic time is the number of waves of tiles (tiles over SMs,
//!   rounded up: a wave with one tile in it costs as much as a full one)
//!   times one tile's time, combined with its bytes' time the same way.
//!
//! The model predicts both from the shape and the GPU (SMs, peaks, DRAM
//! bandwidth) and picks the faster, saying why in the numbers that
//! decide it: the shape's FLOPs per byte against the GPU's ridge point,
//! and tiles against SMs. Its constants are measured fractions of the
//! peaks (named below), so a shape it was not tuned on is judged by the
//! same two limits.

use super::dtype::Dtype;
use kernels_gpu::gemm::small_m::SmallMPlan;

/// Fraction of the FP32 peak the small-M kernel's FMAs sustain: with 8
/// or 16 rows of A per block it did 7-11 TFLOP/s of the H200's 66.9 (each
/// FMA comes with loads of A and, for bf16, unpacking, and few warps fit
/// beside 128 accumulators per thread).
pub const SMALL_M_FMA_EFFICIENCY: f64 = 0.1;

/// Fraction of the dense BF16 tensor peak a full tile of BF16 rung 7
/// sustains (662 of 989 TFLOP/s at 4096³ on the H200).
pub const TILED_BF16_EFFICIENCY: f64 = 0.67;

/// The same for the 3xTF32 rung 12, against the dense BF16 peak (111 of
/// 989 TFLOP/s at 4096³: three TF32 products at half the BF16 rate, plus
/// the split).
pub const TILED_TF32X3_EFFICIENCY: f64 = 0.112;

/// How many times the tiled rung moves its inputs' bytes: once for BF16
/// rung 7; five times for the 3xTF32 rung 12, which reads A and B, writes
/// their big and small TF32 parts, and reads those in the GEMM.
fn input_passes(dtype: Dtype) -> f64 {
    match dtype {
        Dtype::Bf16 => 1.0,
        Dtype::F32 => 5.0,
    }
}

/// Rows × columns of C per tile of the tiled rungs.
pub const TILE: (u32, u32) = (128, 256);

/// Blocks per SM the small-M plan aims for.
pub const SMALL_M_BLOCKS_PER_SM: u32 = 8;

/// How much of the shorter of memory time and arithmetic time a kernel
/// fails to hide behind the longer: 0 is perfect overlap, 1 none. Rung 7
/// at M = 1 on Llama-3-8B's gate_up (235 MB of weights, one wave of
/// tiles whose arithmetic takes as long as the weights' bytes) read its
/// weights at 1.8 TB/s, where perfect overlap would give 4.5 TB/s.
pub const OVERLAP_LOSS: f64 = 0.5;

/// A kernel's time from its memory time and its arithmetic time.
fn combined(memory: f64, arithmetic: f64) -> f64 {
    memory.max(arithmetic) + OVERLAP_LOSS * memory.min(arithmetic)
}

/// A kernel launch costs a few microseconds that no bandwidth hides; the
/// small-M kernel has two (the partial products, then the reduction).
pub const LAUNCH_SECONDS: f64 = 2.5e-6;

/// What the model knows of the GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    pub multiprocessors: u32,
    /// FP32 FMA pipes, FLOP/s.
    pub fp32_flops: f64,
    /// Dense BF16 tensor cores, FLOP/s.
    pub tensor_flops: f64,
    /// DRAM bytes/s.
    pub dram_bytes: f64,
}

impl Machine {
    /// The H200 as this project measured it (132 SMs, 66.9 TFLOP/s FP32,
    /// 989 TFLOP/s dense BF16, about 4.5 TB/s from DRAM).
    pub const H200: Machine = Machine { multiprocessors: 132, fp32_flops: 66.9e12, tensor_flops: 989e12, dram_bytes: 4.5e12 };

    /// A GPU as the driver describes it. The dense BF16 tensor peak is
    /// about 15x the FP32 peak on sm_80 (312 / 19.5 TFLOP/s on the A100) and
    /// sm_90 (989 / 66.9 on the H200); DRAM gives about 93% of what its
    /// clock and bus promise (the memory lab: 4.5 of 4.81 TB/s on the H200).
    pub fn of(info: &crate::device::DeviceInfo) -> Machine {
        let fp32_flops = info.fp32_peak_flops().unwrap_or(info.multiprocessors as f64 * 128.0 * 2.0 * info.sm_clock_khz as f64 * 1e3);
        Machine {
            multiprocessors: info.multiprocessors,
            fp32_flops,
            tensor_flops: 15.0 * fp32_flops,
            dram_bytes: 0.93 * info.dram_bandwidth(),
        }
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
    /// The ladder's top tensor-core rung.
    Tiled,
}

/// A pick, the predicted time of both candidates and the reason in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub pick: Pick,
    pub small_m_seconds: f64,
    /// None where the tiled rung cannot run (not Hopper, or a shape its
    /// TMA copies cannot take).
    pub tiled_seconds: Option<f64>,
    pub why: String,
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
    let plan = SmallMPlan::new((m, n, k), gpu.multiprocessors, SMALL_M_BLOCKS_PER_SM);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let passes = m.div_ceil(plan.rows) as f64;
    let partials = 4.0 * plan.splits as f64 * mf * nf;
    let bytes = input_bytes(dtype) * (passes * kf * nf + mf * kf) + 2.0 * partials + 4.0 * mf * nf;
    let flops = 2.0 * mf * nf * kf;
    let time = combined(bytes / gpu.dram_bytes, flops / (gpu.fp32_flops * SMALL_M_FMA_EFFICIENCY)) + 2.0 * LAUNCH_SECONDS;
    (time, plan)
}

/// The tiled rung's predicted time, and its tiles.
pub fn tiled_time(dtype: Dtype, (m, n, k): (u32, u32, u32), gpu: &Machine) -> (f64, u64) {
    let tiles = m.div_ceil(TILE.0) as u64 * n.div_ceil(TILE.1) as u64;
    let waves = tiles.div_ceil(gpu.multiprocessors as u64) as f64;
    let efficiency = match dtype {
        Dtype::Bf16 => TILED_BF16_EFFICIENCY,
        Dtype::F32 => TILED_TF32X3_EFFICIENCY,
    };
    let per_sm = gpu.tensor_flops * efficiency / gpu.multiprocessors as f64;
    let tile_seconds = 2.0 * TILE.0 as f64 * TILE.1 as f64 * k as f64 / per_sm;
    let bytes = min_bytes((m, n, k), input_passes(dtype) * input_bytes(dtype));
    (combined(bytes / gpu.dram_bytes, waves * tile_seconds) + LAUNCH_SECONDS, tiles)
}

/// Picks the kernel for one shape. `tiled_runs` says whether the tiled
/// rung can take this shape on this GPU.
pub fn choose(dtype: Dtype, size: (u32, u32, u32), gpu: &Machine, tiled_runs: bool) -> Choice {
    let n = size.1;
    let (small_m_seconds, plan) = small_m_time(dtype, size, gpu);
    let intensity = intensity(size, input_bytes(dtype));
    let bound = if gpu.memory_bound(size, input_bytes(dtype)) { "memory-bound" } else { "compute-bound" };
    let roofline = format!("{intensity:.0} FLOP/B vs ridge {:.0}: {bound}", gpu.ridge());
    let small_m_why = format!(
        "small-M kernel, {} K-splits x {} column blocks",
        plan.splits,
        n.div_ceil(8 * kernels_gpu::gemm::small_m::column_groups(n))
    );
    if !tiled_runs {
        return Choice {
            pick: Pick::SmallM(plan),
            small_m_seconds,
            tiled_seconds: None,
            why: format!("{roofline}; {small_m_why} (no tensor-core rung here)"),
        };
    }
    let (tiled_seconds, tiles) = tiled_time(dtype, size, gpu);
    let busy = 100.0 * tiles.min(gpu.multiprocessors as u64) as f64 / gpu.multiprocessors as f64;
    let waves = format!("{tiles} tiles on {} SMs ({busy:.0}% busy)", gpu.multiprocessors);
    let (pick, chosen) =
        if small_m_seconds < tiled_seconds { (Pick::SmallM(plan), small_m_why) } else { (Pick::Tiled, "tensor-core tiles".to_string()) };
    let why =
        format!("{roofline}; {waves}; predicted small-M {:.0} us, tiled {:.0} us: {chosen}", small_m_seconds * 1e6, tiled_seconds * 1e6);
    Choice { pick, small_m_seconds, tiled_seconds: Some(tiled_seconds), why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(dtype: Dtype, size: (u32, u32, u32)) -> Pick {
        choose(dtype, size, &Machine::H200, true).pick
    }

    #[test]
    fn decode_streams_and_squares_tile() {
        for (k, n) in [(4096, 6144), (4096, 4096), (4096, 28672), (14336, 4096)] {
            assert!(matches!(pick(Dtype::Bf16, (1, n, k)), Pick::SmallM(p) if p.rows == 1), "M = 1, {k}x{n}");
            assert!(matches!(pick(Dtype::F32, (1, n, k)), Pick::SmallM(_)), "fp32 M = 1, {k}x{n}");
            assert_eq!(pick(Dtype::Bf16, (8192, n, k)), Pick::Tiled, "M = 8192, {k}x{n}");
        }
        assert_eq!(pick(Dtype::Bf16, (4096, 4096, 4096)), Pick::Tiled);
        assert_eq!(pick(Dtype::F32, (8192, 8192, 8192)), Pick::Tiled);
    }

    /// Few tiles and deep K: one 128x256 tile walks 65536 k alone, while
    /// the small-M kernel splits K over every SM.
    #[test]
    fn deep_k_with_one_tile_splits_k() {
        let choice = choose(Dtype::Bf16, (64, 64, 65536), &Machine::H200, true);
        assert!(matches!(choice.pick, Pick::SmallM(p) if p.splits > 100), "{choice:?}");
        assert!(choice.why.contains("1 tiles on 132 SMs (1% busy)"), "{}", choice.why);
    }

    #[test]
    fn reasons_carry_the_numbers_that_decide() {
        let choice = choose(Dtype::Bf16, (1, 4096, 14336), &Machine::H200, true);
        assert!(choice.why.starts_with("1 FLOP/B vs ridge 220: memory-bound"), "{}", choice.why);
        // 117 MB of weights and 8 MB of partial sums (K in 256 pieces) at
        // 4.5 TB/s (28 us), half of 17.6 us of FMAs, two launches.
        assert!((choice.small_m_seconds * 1e6 - 41.7).abs() < 0.1, "{}", choice.small_m_seconds);
        let elsewhere = choose(Dtype::Bf16, (4096, 4096, 4096), &Machine::H200, false);
        assert!(matches!(elsewhere.pick, Pick::SmallM(_)) && elsewhere.why.ends_with("(no tensor-core rung here)"));
    }

    /// At M = 16 and 128 the small-M kernel's FMAs, not its bytes, set its
    /// time: the tensor-core tiles win even with most SMs idle.
    #[test]
    fn medium_m_goes_to_the_tensor_cores() {
        assert_eq!(pick(Dtype::Bf16, (16, 6144, 4096)), Pick::Tiled);
        assert_eq!(pick(Dtype::F32, (128, 6144, 4096)), Pick::Tiled);
        assert!(matches!(pick(Dtype::F32, (16, 6144, 4096)), Pick::SmallM(p) if p.rows == 16));
        // Rung 12 splits all 470 MB of gate_up's fp32 weights on every run.
        assert!(matches!(pick(Dtype::F32, (16, 28672, 4096)), Pick::SmallM(_)));
    }

    #[test]
    fn a_wave_with_one_tile_costs_a_whole_wave() {
        let h200 = Machine::H200;
        let (full, tiles) = tiled_time(Dtype::Bf16, (128 * 12, 256 * 11, 4096), &h200);
        assert_eq!(tiles, 132);
        let (one_more, _) = tiled_time(Dtype::Bf16, (128 * 12 + 1, 256 * 11, 4096), &h200);
        assert!(one_more > 1.9 * (full - LAUNCH_SECONDS), "{full} {one_more}");
    }
}
