//! `ptx-ladder reduce`: the sum of n floats four ways, each checked against an f64
//! reference and timed beside a device-to-device copy.

use crate::device::{Gpu, Timing, pointer};
use crate::error::{Context as _, Error, Result};
use crate::inputs::uniform;
use crate::launch_math::launch_1d;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DeviceSlice};
use kernels_gpu::labs::reduce::{REDUCE_ATOMIC, REDUCE_GLOBAL_PASS, REDUCE_SHARED_TREE, REDUCE_WARP_SHUFFLE, THREADS};
use kernels_gpu::launch::Kernel;

/// Every reduction kernel reads `count` floats at `src` and writes to `dst`.
type ReduceKernel = Kernel<(*const f32, *mut f32, u32)>;
use kernels_gpu::launch::LaunchShape;

/// A float sum depends on the order of the additions; any order lands
/// within this many units of Σ|x| of the exact sum (log2(n) rounding steps of
/// 2^-24 each, with room to spare).
pub const TOLERANCE: f64 = 1e-5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    GlobalTree,
    SharedTree,
    WarpShuffle,
    Atomic,
}

impl Method {
    pub const ALL: [Method; 4] = [Method::GlobalTree, Method::SharedTree, Method::WarpShuffle, Method::Atomic];

    pub fn name(self) -> &'static str {
        match self {
            Method::GlobalTree => "global-memory tree",
            Method::SharedTree => "shared-memory tree",
            Method::WarpShuffle => "warp shuffles",
            Method::Atomic => "one atomic per block",
        }
    }

    /// One sentence on the method and its barriers.
    pub fn explain(self) -> &'static str {
        match self {
            Method::GlobalTree => {
                "one launch per level halves the array in global memory; the launch boundary is the barrier, so no thread waits inside a kernel"
            }
            Method::SharedTree => {
                "each block halves its partial sums in shared memory; the barrier after each level sits outside the `if t < active`, because a barrier only some threads reach never opens"
            }
            Method::WarpShuffle => {
                "lanes add each other's registers with shuffles, so only the step between warps needs shared memory and one barrier, which every thread reaches"
            }
            Method::Atomic => {
                "as with shuffles, then each block adds its total straight into the result: one launch, no second pass, and no thread returns early, so the block's one barrier always opens"
            }
        }
    }
}

pub struct ReduceRow {
    pub method: Method,
    pub sum: f32,
    /// |sum - exact| / Σ|x|.
    pub error: f64,
    pub launches: u32,
    pub timing: Timing,
    /// Bytes read (4 per element) per second.
    pub gbps: f64,
}

impl ReduceRow {
    pub fn passed(&self) -> bool {
        self.sum.is_finite() && self.error <= TOLERANCE
    }
}

pub struct ReduceReport {
    pub n: u64,
    pub exact: f64,
    pub rows: Vec<ReduceRow>,
    /// Device-to-device copy of the same n floats.
    pub copy: Timing,
}

impl ReduceReport {
    /// Copy bandwidth counting bytes read and written.
    pub fn copy_gbps(&self) -> f64 {
        self.copy.billions_per_second(8.0 * self.n as f64)
    }
}

/// Blocks of the block-level kernels: enough to fill the GPU, never more
/// than the data needs.
fn blocks(gpu: &Gpu, n: u64) -> u32 {
    (n.div_ceil(THREADS as u64) as u32).clamp(1, gpu.info.multiprocessors * 8)
}

/// Enqueues `method` on `src[0..n]`; the sum ends in `result[0]`. Returns
/// the number of launches.
fn enqueue(
    gpu: &Gpu,
    method: Method,
    src: &DeviceBuffer<f32>,
    scratch: &DeviceBuffer<f32>,
    result: &mut DeviceBuffer<f32>,
    n: u32,
) -> Result<u32> {
    let block_shape = |grid: u32, shared: u32| LaunchShape::linear(grid, THREADS, shared);
    let launch = |kernel: &ReduceKernel, shape: LaunchShape, from: &DeviceBuffer<f32>, to: &DeviceBuffer<f32>, count: u32| {
        gpu.launch(kernel, shape, (pointer(from), pointer(to), count))
    };
    match method {
        Method::GlobalTree => {
            // Level one reads the input, later levels halve the scratch in place.
            let mut count = n;
            let mut from = src;
            let mut launches = 0;
            loop {
                let half = count.div_ceil(2);
                let shape = launch_1d(half as u64, THREADS)?.shape();
                launch(&REDUCE_GLOBAL_PASS, shape, from, scratch, count)?;
                launches += 1;
                from = scratch;
                count = half;
                if count == 1 {
                    break;
                }
            }
            unsafe { result.async_copy_from(&scratch.index(..1), gpu.stream()) }.context("copying the sum")?;
            Ok(launches)
        }
        Method::SharedTree | Method::WarpShuffle => {
            let (name, shared) =
                if method == Method::SharedTree { (&REDUCE_SHARED_TREE, THREADS * 4) } else { (&REDUCE_WARP_SHUFFLE, THREADS / 32 * 4) };
            let grid = blocks(gpu, n as u64);
            launch(name, block_shape(grid, shared), src, scratch, n)?;
            launch(name, block_shape(1, shared), scratch, result, grid)?;
            Ok(2)
        }
        Method::Atomic => {
            unsafe { DeviceSlice::set_32_async(result, 0f32.to_bits(), gpu.stream()) }.context("zeroing the sum")?;
            launch(&REDUCE_ATOMIC, block_shape(blocks(gpu, n as u64), THREADS / 32 * 4), src, result, n)?;
            Ok(1)
        }
    }
}

/// Sums `n` random floats with every method and times each.
pub fn run(gpu: &Gpu, n: u64, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<ReduceReport> {
    if n == 0 || n > u32::MAX as u64 {
        return Err(Error::new(format!("n = {n}: the reduction lab takes 1 to {} elements", u32::MAX)));
    }
    gpu.ensure_fits(4 * n as u128 * 2 + 4 * n.div_ceil(2) as u128, "the reduction lab")?;
    progress(&format!("generating {n} random floats and their exact sum"));
    let input = uniform(n as usize, 99);
    let exact: f64 = input.iter().map(|&x| x as f64).sum();
    let magnitude: f64 = input.iter().map(|&x| x.abs() as f64).sum();
    let src = gpu.upload(&input, "input")?;
    let scratch = gpu.alloc(n.div_ceil(2) as usize, "scratch")?;
    let mut result = gpu.alloc(1, "sum")?;
    let mut rows = Vec::new();
    for (i, method) in Method::ALL.into_iter().enumerate() {
        progress(&crate::progress::step(i, Method::ALL.len(), method.name()));
        gpu.poison(&mut result)?;
        let launches = enqueue(gpu, method, &src, &scratch, &mut result, n as u32)?;
        let mut sum = [0.0f32];
        gpu.download(&result, &mut sum, "sum")?;
        let timing = gpu.time(2, reps, || enqueue(gpu, method, &src, &scratch, &mut result, n as u32).map(|_| ()))?;
        rows.push(ReduceRow {
            method,
            sum: sum[0],
            error: ((sum[0] as f64 - exact) / magnitude.max(f64::MIN_POSITIVE)).abs(),
            launches,
            gbps: timing.billions_per_second(4.0 * n as f64),
            timing,
        });
    }
    progress("device-to-device copy of the same data");
    let mut copy_target = gpu.alloc(n as usize, "copy")?;
    let copy = gpu.time(2, reps, || unsafe { copy_target.async_copy_from(&src, gpu.stream()) }.context("device-to-device copy"))?;
    Ok(ReduceReport { n, exact, rows, copy })
}

/// The table: result, error, launches, GB/s beside the copy.
pub fn table(report: &ReduceReport) -> String {
    let copy = report.copy_gbps();
    let mut out = format!("sum of {}, exact (f64) {:.6}\n", crate::text::plural(report.n, "float"), report.exact);
    out.push_str("method                  sum            error/Σ|x|  launches   time ms    GB/s read  vs copy\n");
    for r in &report.rows {
        out.push_str(&format!(
            "{:<22} {:>14.4} {:>12.1e} {:>9} {:>9.3} {:>12.0} {:>7.1}%{}\n",
            r.method.name(),
            r.sum,
            r.error,
            r.launches,
            r.timing.median_ms,
            r.gbps,
            100.0 * r.gbps / copy,
            if r.passed() { "" } else { "  WRONG" }
        ));
    }
    out.push_str(&format!(
        "{:<22} {:>14} {:>12} {:>9} {:>9.3} {:>12.0}  (reads + writes)\n",
        "copy (D→D)", "-", "-", "-", report.copy.median_ms, copy
    ));
    out
}
