//! `ptx-ladder occupancy`: the calculator checked against the driver for the
//! project's own kernels, and a latency-hiding experiment.

use super::models::occupancy::{Arch, arch_for_compute_capability, occupancy};
use crate::device::{Gpu, Timing, pointer};
use crate::error::{Error, Result};
use crate::inputs::uniform;
use kernels_gpu::labs::occupancy::{OCCUPANCY_COPY, THREADS};
use kernels_gpu::launch::LaunchShape;
use kernels_gpu::sgemm::KERNELS;

/// The calculator's architecture for this GPU.
pub fn arch_of(gpu: &Gpu) -> Result<&'static Arch> {
    let (major, minor) = gpu.info.compute_capability;
    arch_for_compute_capability(major, minor)
        .ok_or_else(|| Error::new(format!("the calculator has no table for compute capability {major}.{minor}")))
}

/// One kernel: what the driver reports beside what the calculator predicts.
pub struct KernelRow {
    pub name: &'static str,
    pub threads: u32,
    pub registers: u32,
    pub shared_bytes: u32,
    pub driver_blocks: u32,
    pub model_blocks: std::result::Result<u32, String>,
}

impl KernelRow {
    pub fn agrees(&self) -> bool {
        self.model_blocks.as_ref().is_ok_and(|&b| b == self.driver_blocks)
    }
}

/// Every SGEMM kernel at a 4096×4096 launch, plus the vector adds.
pub fn kernels(gpu: &Gpu) -> Result<Vec<KernelRow>> {
    let arch = arch_of(gpu)?;
    let mut launches: Vec<(&'static str, LaunchShape)> = KERNELS.iter().map(|k| (k.name(), (k.launch)(4096, 4096))).collect();
    let block = |threads| LaunchShape::linear(1, threads, 0);
    launches.push((kernels_gpu::vecadd::VEC_ADD.name(), block(256)));
    launches.push((kernels_gpu::vecadd::VEC_ADD_X4.name(), block(256)));
    launches.push((OCCUPANCY_COPY.name(), block(THREADS)));
    launches
        .into_iter()
        .map(|(name, shape)| {
            let resources = gpu.resources(name)?;
            let threads = shape.block.volume() as u32;
            let shared = resources.static_shared_bytes + shape.shared_bytes;
            Ok(KernelRow {
                name,
                threads,
                registers: resources.registers,
                shared_bytes: shared,
                driver_blocks: gpu.resident_blocks(name, shape)?,
                model_blocks: occupancy(arch, threads, resources.registers, shared).map(|o| o.blocks_per_sm),
            })
        })
        .collect()
}

pub fn kernels_table(rows: &[KernelRow]) -> String {
    let mut out = String::from("kernel                              threads  regs  smem (B)  blocks/SM: driver  calculator\n");
    for r in rows {
        let model = match &r.model_blocks {
            Ok(b) => b.to_string(),
            Err(e) => format!("error: {e}"),
        };
        out.push_str(&format!(
            "{:<35} {:>7} {:>5} {:>9} {:>18}  {:>10}{}\n",
            r.name,
            r.threads,
            r.registers,
            r.shared_bytes,
            r.driver_blocks,
            model,
            if r.agrees() { "" } else { "  DIFFERENT" }
        ));
    }
    out
}

/// One point of the latency-hiding experiment.
pub struct LatencyRow {
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    pub shared_reserved: u32,
    pub timing: Timing,
    pub gbps: f64,
}

/// Dynamic shared memory that lets at most `blocks` blocks share an SM.
pub fn reservation(gpu: &Gpu, blocks: u32) -> u32 {
    let per_block = gpu.info.shared_per_multiprocessor / blocks;
    (per_block.saturating_sub(gpu.info.shared_reserved_per_block) & !127).min(gpu.info.shared_per_block_optin)
}

/// Copies `floats` floats with 1..=8 blocks of 256 threads per SM, held
/// there by reserving shared memory; checks the copy and times each.
pub fn latency(gpu: &Gpu, floats: u64, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<Vec<LatencyRow>> {
    if floats == 0 || !floats.is_multiple_of(4) || floats / 4 > u32::MAX as u64 {
        return Err(Error::new(format!("the copy needs a multiple of 4 floats, at most {} (got {floats})", 4 * u32::MAX as u64)));
    }
    gpu.ensure_fits(8 * floats as u128, "the latency experiment")?;
    let input = uniform(floats as usize, 4242);
    let src = gpu.upload(&input, "source")?;
    let mut dst = gpu.alloc(floats as usize, "destination")?;
    let max_blocks = gpu.info.max_threads_per_multiprocessor / THREADS;
    let mut rows = Vec::new();
    for blocks in 1..=max_blocks {
        let shared = reservation(gpu, blocks);
        let shape = LaunchShape::linear(gpu.info.multiprocessors * blocks, THREADS, shared);
        let resident = gpu.resident_blocks(OCCUPANCY_COPY.name(), shape)?;
        if resident != blocks {
            return Err(Error::new(format!("reserving {shared} B should leave {blocks} blocks per SM, the driver says {resident}")));
        }
        progress(&crate::progress::step(
            blocks as usize - 1,
            max_blocks as usize,
            &format!("{blocks} block(s) per SM ({shared} B of shared memory reserved each)"),
        ));
        let args = (pointer(&src), pointer(&dst), (floats / 4) as u32);
        gpu.poison(&mut dst)?;
        gpu.launch(&OCCUPANCY_COPY, shape, args)?;
        let mut copied = vec![0.0f32; floats as usize];
        gpu.download(&dst, &mut copied, "copy")?;
        if let Some(i) = copied.iter().zip(&input).position(|(a, b)| a.to_bits() != b.to_bits()) {
            return Err(Error::new(format!("copy with {blocks} blocks/SM differs at element {i}")));
        }
        let timing = gpu.time(2, reps, || gpu.launch(&OCCUPANCY_COPY, shape, args))?;
        rows.push(LatencyRow {
            blocks_per_sm: blocks,
            occupancy: (blocks * THREADS / 32) as f64 / gpu.info.max_warps_per_multiprocessor() as f64,
            shared_reserved: shared,
            gbps: timing.billions_per_second(8.0 * floats as f64),
            timing,
        });
    }
    Ok(rows)
}

pub fn latency_table(rows: &[LatencyRow]) -> String {
    let best = rows.iter().map(|r| r.gbps).fold(0.0, f64::max);
    let mut out = String::from("blocks/SM  warps/SM  occupancy  shared reserved   time ms      GB/s   of best\n");
    for r in rows {
        out.push_str(&format!(
            "{:>9} {:>9} {:>9.1}% {:>14} B {:>9.3} {:>9.0} {:>8.1}%\n",
            r.blocks_per_sm,
            r.blocks_per_sm * THREADS / 32,
            100.0 * r.occupancy,
            r.shared_reserved,
            r.timing.median_ms,
            r.gbps,
            100.0 * r.gbps / best
        ));
    }
    out
}

/// GB/s against occupancy, as a line chart.
pub fn latency_svg(rows: &[LatencyRow], device: &str) -> String {
    let points = rows.iter().map(|r| (100.0 * r.occupancy, r.gbps)).collect();
    crate::svg::line_chart(
        &format!("Latency hiding: copy bandwidth vs occupancy ({device})"),
        "occupancy (% of max warps per SM)",
        "GB/s (read + write)",
        &[("copy, 256-thread blocks".to_string(), points)],
    )
}
