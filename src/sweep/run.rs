//! Runs a suite on the GPU: for every shape, cuBLAS and the "auto" rung
//! (and any other rungs asked for) on the same inputs, each checked
//! against the f64 reference and timed with the weights read from DRAM,
//! as a model's layers read them.

use super::report::{Measured, SweepRow};
use super::suite::Shape;
use crate::device::{FromDram, Gpu, ReadOnce, copies_to_miss_l2, pointer};
use crate::error::{Error, Result};
use crate::matmul::auto::Machine;
use crate::matmul::buffers::Buffers;
use crate::matmul::ladder::{self, Options, Row};
use crate::matmul::small_m::SmallMElement;
use kernels_gpu::labs::memory;

/// How to run a sweep.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// Rungs to run beside "auto" (a `--rungs` list), if any.
    pub rungs: Option<String>,
    /// How every run reads its inputs from DRAM; None: from L2 as the
    /// previous run left it.
    pub from_dram: Option<FromDram>,
    pub reps: Option<u32>,
    pub warmup: u32,
    pub seed: u64,
}

/// The memory lab's read kernel over 1 GB: what DRAM gives here, GB/s.
pub fn dram_plateau(gpu: &Gpu) -> Result<f64> {
    let set = 1u64 << 30;
    let points = crate::labs::memory::bandwidth(gpu, &[set], 5, 4 * set, &mut |_| {})?;
    Ok(points.first().map_or(0.0, |p| p.gbps))
}

/// µs the memory lab's read kernel takes over B's whole 16-byte words
/// once (every thread's sum checked), timed as the GEMMs are.
fn read_only_micros<E: SmallMElement>(gpu: &Gpu, buffers: &Buffers<E>, options: &Options) -> Result<f64> {
    let weights = buffers.weights();
    let mut read = ReadOnce::new(gpu, (weights.len() * std::mem::size_of::<E::Bits>()) as u64, "the read's sums")?;
    let data = pointer(weights).cast::<f32>();
    read.poison_sums(gpu)?;
    read.enqueue(gpu, data)?;
    let mut sums = vec![0.0f32; read.sums().len()];
    gpu.download(read.sums(), &mut sums, "the read's sums")?;
    if let Some(t) = sums.iter().position(|v| !v.is_finite()) {
        return Err(Error::new(format!("{}: thread {t} of the read of the weights summed {}", memory::MEMORY_READ, sums[t])));
    }
    let reps = options.reps.unwrap_or(30);
    Ok(gpu.time(options.warmup, reps, || read.enqueue(gpu, data))?.median_ms * 1e3)
}

fn measured(row: &Row) -> Option<Measured> {
    if row.skipped.is_some() {
        return None;
    }
    Some(Measured {
        kernel: row.kernel.clone(),
        micros: row.timing.as_ref().map_or(f64::NAN, |t| t.median_ms * 1e3),
        relative_error: row.verdict.relative_error,
        correct: row.verdict.passed(),
    })
}

/// Every shape of `shapes`, in order; `progress` hears which.
pub fn run<E: SmallMElement>(gpu: &Gpu, shapes: &[Shape], options: &SweepOptions, progress: &mut dyn FnMut(&str)) -> Result<Vec<SweepRow>> {
    let list = match &options.rungs {
        Some(extra) => format!("auto,{extra}"),
        None => "auto".to_string(),
    };
    let ladder = E::ladder().select(&list)?;
    gpu.read_inputs_from_dram(options.from_dram)?;
    let machine = Machine::of_gpu(gpu)?;
    let input_bytes = std::mem::size_of::<E::Bits>() as u32;
    let mut rows = Vec::new();
    for (i, shape) in shapes.iter().enumerate() {
        let size = shape.size();
        progress(&crate::progress::step(i, shapes.len(), &format!("{} ({}x{}x{})", shape.name, size.0, size.1, size.2)));
        let run_options = Options { size, reps: options.reps, warmup: options.warmup, seed: options.seed };
        let (mut buffers, reference) = ladder::prepare::<E>(gpu, &run_options, &mut |_| {})?;
        if options.from_dram == Some(FromDram::BackToBack) {
            buffers.copy_inputs(gpu, copies_to_miss_l2(buffers.input_bytes(), gpu.info.l2_bytes as u64))?;
        }
        let report = ladder::run(gpu, &ladder, &mut buffers, &reference, &run_options, &mut |_| {})?;
        let mut row = SweepRow::new(shape, machine.memory_bound(size, input_bytes as f64), shape.weight_bytes(input_bytes));
        // (Weights under one 16-byte word have nothing to time.)
        if row.memory_bound && options.from_dram == Some(FromDram::FlushEachRun) && row.weight_bytes >= 16.0 {
            row.read_only_micros = Some(read_only_micros(gpu, &buffers, &run_options)?);
        }
        row.cublas = report.cublas.as_ref().ok().and_then(measured);
        for r in &report.rows {
            if r.id == "auto" {
                row.ours = measured(r);
                row.why = r.note.clone().or_else(|| r.skipped.clone()).unwrap_or_default();
            } else if let Some(m) = measured(r) {
                row.others.push((r.id.clone(), m));
            }
        }
        rows.push(row);
    }
    gpu.read_inputs_from_dram(None)?;
    Ok(rows)
}
