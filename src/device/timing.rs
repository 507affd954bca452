//! GPU timing with CUDA events: warm up, then time each run between two
//! events on the stream and keep the median.
//!
//! A GEMM timed over and over on the same buffers finds its inputs in L2
//! after the first run, when they fit (the H200's L2 holds 60 MB). A
//! model's weights do not stay there between layers, so
//! [`Gpu::read_inputs_from_dram`] times so that every run reads its inputs
//! from DRAM, in one of two ways ([`FromDram`]): each run alone after a
//! read of twice the size of L2 (outside the timed region), or runs back
//! to back on copies of the inputs taken in turn, as a model's layers run.

use super::Gpu;
use super::launch::pointer;
use crate::error::{Context as _, Error, Result};
use cust::event::{Event, EventFlags};
use cust::memory::{DeviceBuffer, DevicePointer};
use kernels_gpu::labs::memory;
use kernels_gpu::launch::LaunchShape;

/// Run times of one measured operation, in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub runs: usize,
}

impl Timing {
    /// `count` things (FLOPs, bytes) done per median run, in billions per
    /// second: GFLOP/s or GB/s.
    pub fn billions_per_second(&self, count: f64) -> f64 {
        count / (self.median_ms * 1e-3) / 1e9
    }

    /// Summarises run times (at least one).
    pub fn from_runs(mut runs_ms: Vec<f64>) -> Timing {
        assert!(!runs_ms.is_empty(), "a timing needs at least one run");
        runs_ms.sort_by(f64::total_cmp);
        let n = runs_ms.len();
        let median_ms = if n % 2 == 1 { runs_ms[n / 2] } else { (runs_ms[n / 2 - 1] + runs_ms[n / 2]) / 2.0 };
        Timing { median_ms, min_ms: runs_ms[0], max_ms: runs_ms[n - 1], runs: n }
    }
}

/// How a timing makes every run read its inputs from DRAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FromDram {
    /// Each run timed alone (two events around it) after a read of twice
    /// the size of L2: the run also pays for starting on an idle GPU.
    FlushEachRun,
    /// Runs timed in batches of [`RUNS_PER_BATCH`], back to back, each on
    /// its own copy of the inputs: a run pays the gap between two kernels,
    /// as a model's layers do, not the start of a lone one.
    BackToBack,
}

/// Runs timed together, back to back, with [`FromDram::BackToBack`]: enough
/// that the first run's start (the only one not overlapped with a
/// previous kernel's end) is a small part of the batch.
pub const RUNS_PER_BATCH: u32 = 8;

/// How many copies of inputs of `bytes` make each run read its copy from
/// DRAM when runs take the copies in turn: the other copies' reads between
/// two reads of one copy come to at least twice L2 (`l2_bytes`).
pub fn copies_to_miss_l2(bytes: u64, l2_bytes: u64) -> usize {
    (1 + (2 * l2_bytes).div_ceil(bytes.max(1))) as usize
}

/// Dependent FMA steps of the kernel that holds the stream before a lone
/// timed run ([`Gpu::time`]): one thread, about 35 µs at 2 GHz, longer
/// than the host takes to enqueue the start event and the run (on the
/// H200 about 10 µs for a `cublasGemmEx` call, 3-8 for a plain launch).
const HOLD_STEPS: u32 = 2048;

/// A buffer twice the size of L2: reading it evicts whatever L2 held.
///
/// Read, not written: a flush that writes (a memset) leaves L2 full of
/// dirty lines, and the timed kernel then pays for writing them back to
/// DRAM as its own reads evict them, up to the size of L2 (60 MB on the
/// H200, about 13 µs of DRAM time) on top of its own traffic. A model's
/// layers leave L2 holding weights they read, which are clean.
pub(crate) struct L2Flush {
    buffer: DeviceBuffer<f32>,
    read: ReadOnce,
}

impl L2Flush {
    /// Allocates twice `gpu`'s L2 (at least 8 MB), filled once.
    fn new(gpu: &Gpu) -> Result<L2Flush> {
        let words = (2 * gpu.info.l2_bytes as usize).max(8 << 20) / 4;
        let mut buffer = gpu.alloc(words, "the L2 flush buffer")?;
        buffer.set_32(0).context("filling the L2 flush buffer")?;
        let read = ReadOnce::new(gpu, 4 * words as u64, "the L2 flush sums")?;
        Ok(L2Flush { buffer, read })
    }

    fn enqueue(&self, gpu: &Gpu) -> Result<()> {
        self.read.enqueue(gpu, pointer(&self.buffer))
    }
}

/// One pass of the memory lab's read kernel over a buffer's whole 16-byte
/// words, each thread walking it with a grid stride: the L2 flush, and the
/// sweep's time for reading the weights alone.
pub struct ReadOnce {
    /// Where each thread writes the sum of what it read.
    sums: DeviceBuffer<f32>,
    /// The read's launch, and its 16-byte words, threads (the grid
    /// stride) and steps per thread.
    shape: LaunchShape,
    quads: u32,
    threads: u32,
    steps: u32,
}

impl ReadOnce {
    /// The read over `bytes` (their whole 16-byte words, at least one) on
    /// `gpu`; `what` names its sums in an allocation error.
    pub fn new(gpu: &Gpu, bytes: u64, what: &str) -> Result<ReadOnce> {
        let quads = (bytes / 16) as u32;
        if quads == 0 {
            return Err(Error::new(format!("the read kernel needs at least 16 bytes (got {bytes})")));
        }
        let shape = memory::read_launch(gpu.info.multiprocessors);
        let threads = shape.grid.x * memory::THREADS;
        let sums = gpu.alloc(threads as usize, what)?;
        let steps = quads.div_ceil(threads * memory::LOADS_PER_STEP);
        Ok(ReadOnce { sums, shape, quads, threads, steps })
    }

    /// Enqueues the read of the buffer at `data` on `gpu`'s stream. The
    /// stride is the grid's, reduced below the words where there are fewer
    /// (the kernel's walk wraps once per step).
    pub fn enqueue(&self, gpu: &Gpu, data: DevicePointer<f32>) -> Result<()> {
        let args = (data, self.quads, self.threads % self.quads, self.steps, pointer(&self.sums));
        gpu.launch(&memory::MEMORY_READ, self.shape, args)
    }

    /// Every thread's sum, after a read.
    pub fn sums(&self) -> &DeviceBuffer<f32> {
        &self.sums
    }

    /// Fills the sums with NaN, so that a thread that did not write its
    /// sum shows.
    pub fn poison_sums(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.poison(&mut self.sums)
    }
}

impl Gpu {
    /// Enqueues a kernel that keeps the stream busy for a few tens of
    /// microseconds while touching no memory but its own 16 bytes, so that
    /// a start event enqueued next is reached only after the host has
    /// also enqueued the run it times. Without it the start event fires at
    /// once on an idle GPU, and the run's time includes the host's work of
    /// enqueuing it: on the H200 a 64x64x64 GEMM took 9.6 µs that way and
    /// 5.8 held, cuBLAS's 14.6 and 4.4; at 4096³ cuBLAS's 193 and 183, and
    /// the memory lab's read of 1 GB 237 and 229 (4531 and 4681 GB/s).
    fn hold_stream(&self) -> Result<()> {
        let out = match self.hold.get() {
            Some(out) => out,
            None => {
                let out = DeviceBuffer::from_slice(&[0u64; 2]).context("allocating the timing's hold result")?;
                self.hold.get_or_init(|| out)
            }
        };
        let one = LaunchShape::linear(1, 1, 0);
        self.launch(&memory::MEMORY_FMA_CHAIN, one, (0.5f32, 0.999f32, 0.001f32, HOLD_STEPS, pointer(out)))
    }

    /// From now on, [`Gpu::time`] times as `how` says (None: each run
    /// alone, with whatever the previous run left in L2). With
    /// [`FromDram::BackToBack`] the caller's work must read another copy
    /// of its inputs on each run (see [`copies_to_miss_l2`]).
    pub fn read_inputs_from_dram(&self, how: Option<FromDram>) -> Result<()> {
        let mut slot = self.l2_flush.lock().unwrap_or_else(|e| e.into_inner());
        *slot = match how {
            Some(how) => Some((L2Flush::new(self)?, how)),
            None => None,
        };
        Ok(())
    }

    /// Runs `work` `warmup` times untimed, then `reps` times, and returns
    /// the median run: each run between two events, or (back to back)
    /// each batch's time over its runs. The GPU is kept busy while each
    /// timed run is enqueued (by the L2 flush, or a short kernel of its own),
    /// so the events time the GPU's work, not the host's. `work` must only
    /// enqueue GPU work on [`Gpu::stream`].
    pub fn time(&self, warmup: u32, reps: u32, mut work: impl FnMut() -> Result<()>) -> Result<Timing> {
        let flush = self.l2_flush.lock().unwrap_or_else(|e| e.into_inner());
        let how = flush.as_ref().map(|&(_, how)| how);
        let batch = if how == Some(FromDram::BackToBack) { RUNS_PER_BATCH } else { 1 };
        let empty_l2 = || flush.as_ref().map_or(Ok(()), |(f, _)| f.enqueue(self));
        for _ in 0..warmup {
            if how == Some(FromDram::FlushEachRun) {
                empty_l2()?;
            }
            work()?;
        }
        self.synchronize()?;
        let start = Event::new(EventFlags::DEFAULT).context("creating a CUDA event")?;
        let stop = Event::new(EventFlags::DEFAULT).context("creating a CUDA event")?;
        let samples = reps.max(1).div_ceil(batch);
        let mut runs = Vec::with_capacity(samples as usize);
        for _ in 0..samples {
            // Back to back, this also keeps the GPU busy while the batch
            // is enqueued, so no run waits for the CPU; without a flush a
            // lone run is held back the same way.
            if flush.is_none() {
                self.hold_stream()?;
            }
            empty_l2()?;
            start.record(self.stream()).context("recording a CUDA event")?;
            for _ in 0..batch {
                work()?;
            }
            stop.record(self.stream()).context("recording a CUDA event")?;
            stop.synchronize().context("waiting for the timed GPU work")?;
            runs.push(stop.elapsed_time_f32(&start).context("reading a CUDA event")? as f64 / batch as f64);
        }
        Ok(Timing::from_runs(runs))
    }
}

#[cfg(test)]
mod tests {
    use super::Timing;

    #[test]
    fn median_of_odd_and_even_counts() {
        let odd = Timing::from_runs(vec![3.0, 1.0, 2.0]);
        assert_eq!((odd.median_ms, odd.min_ms, odd.max_ms, odd.runs), (2.0, 1.0, 3.0, 3));
        let even = Timing::from_runs(vec![4.0, 1.0, 2.0, 3.0]);
        assert_eq!(even.median_ms, 2.5);
    }

    #[test]
    fn rates_are_per_median_run() {
        let t = Timing::from_runs(vec![2.0, 4.0, 1000.0]);
        assert_eq!(t.billions_per_second(8e9), 2000.0);
    }

    #[test]
    fn copies_cover_twice_l2() {
        let l2 = 60 << 20;
        // Weights larger than twice L2: one other copy is enough.
        assert_eq!(super::copies_to_miss_l2(235_000_000, l2), 2);
        // o at M = 1 (33.5 MB): four others read 134 MB >= 126 MB.
        assert_eq!(super::copies_to_miss_l2(33_554_432, l2), 5);
        for bytes in [1u64, 1000, 33_554_432, 117_440_512, 1 << 30] {
            let copies = super::copies_to_miss_l2(bytes, l2) as u64;
            assert!((copies - 1) * bytes >= 2 * l2, "{bytes} bytes: {copies} copies");
            assert!(copies == 2 || (copies - 2) * bytes < 2 * l2, "{bytes} bytes: {copies} copies is more than needed");
        }
    }

    #[test]
    fn an_outlier_does_not_move_the_median() {
        let t = Timing::from_runs(vec![1.0, 1.0, 1.0, 1.0, 900.0]);
        assert_eq!(t.median_ms, 1.0);
        assert_eq!(t.max_ms, 900.0);
    }
}
