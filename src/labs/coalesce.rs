//! `ptx-ladder coalesce`: one warp request at a time, lanes `stride` floats apart,
//! measured against the 32-byte-sector model.

use super::models::coalesce::{efficiency, sectors, strided_addresses};
use crate::device::{Gpu, Timing, pointer};
use crate::error::{Error, Result};
use crate::inputs::uniform;
use crate::launch_math::launch_1d;
use kernels_gpu::labs::coalesce::{READS_PER_THREAD, STRIDED_READ};

/// One stride's outcome.
pub struct StrideRow {
    pub stride: u32,
    /// 32-byte sectors one warp request touches (model).
    pub sectors: u32,
    /// Bytes used over bytes moved (model).
    pub efficiency: f64,
    pub timing: Timing,
    /// Bytes the kernel used, per second.
    pub useful_gbps: f64,
    /// Stride 1's measured rate times this stride's efficiency.
    pub predicted_gbps: f64,
}

/// Checks the strides before touching the GPU: each must leave at least one
/// warp of threads in an array of `floats`.
pub fn validate(strides: &[u32], floats: u64) -> Result<()> {
    if strides.is_empty() {
        return Err(Error::new("--strides needs at least one stride"));
    }
    for &s in strides {
        if s == 0 || floats / (s as u64 * READS_PER_THREAD as u64) < 32 {
            return Err(Error::new(format!(
                "stride {s} is out of range: it must be at least 1 and leave a warp of threads in the array (at most {})",
                floats / (32 * READS_PER_THREAD as u64)
            )));
        }
    }
    Ok(())
}

/// Reads an array of `floats` random floats at each stride, checks every
/// thread's sum exactly, and times each.
pub fn run(gpu: &Gpu, strides: &[u32], floats: u64, reps: u32, progress: &mut dyn FnMut(&str)) -> Result<Vec<StrideRow>> {
    validate(strides, floats)?;
    gpu.ensure_fits(4 * floats as u128 * 2, "the coalescing lab")?;
    progress(&format!("uploading {:.0} MB of random floats", floats as f64 * 4.0 / 1e6));
    let input = uniform(floats as usize, 77);
    let d_input = gpu.upload(&input, "input")?;
    let mut d_output = gpu.alloc(floats as usize / READS_PER_THREAD as usize, "output")?;
    let mut rows: Vec<StrideRow> = Vec::new();
    for (i, &stride) in strides.iter().enumerate() {
        progress(&crate::progress::step(i, strides.len(), &format!("stride {stride}")));
        let threads = (floats / (stride as u64 * READS_PER_THREAD as u64)) as u32;
        let shape = launch_1d(threads as u64, 256)?.shape();
        let args = (pointer(&d_input), pointer(&d_output), threads, stride);
        gpu.poison(&mut d_output)?;
        gpu.launch(&STRIDED_READ, shape, args)?;
        let mut out = vec![0.0f32; threads as usize];
        gpu.download(&d_output, &mut out, "output")?;
        for (t, &got) in out.iter().enumerate() {
            let mut want = 0.0f32;
            for j in 0..READS_PER_THREAD as usize {
                want += input[(t + j * threads as usize) * stride as usize];
            }
            if want.to_bits() != got.to_bits() {
                return Err(Error::new(format!("stride {stride}: thread {t} summed {got}, expected {want}")));
            }
        }
        let timing = gpu.time(2, reps, || gpu.launch(&STRIDED_READ, shape, args))?;
        let useful = threads as f64 * READS_PER_THREAD as f64 * 4.0;
        let useful_gbps = timing.billions_per_second(useful);
        let base = rows.first().map_or(useful_gbps / efficiency(stride), |r| r.useful_gbps / r.efficiency);
        rows.push(StrideRow {
            stride,
            sectors: sectors(&strided_addresses(stride), 4),
            efficiency: efficiency(stride),
            timing,
            useful_gbps,
            predicted_gbps: base * efficiency(stride),
        });
    }
    Ok(rows)
}

/// The table: model beside measurement.
pub fn table(rows: &[StrideRow]) -> String {
    let mut out = String::from("stride  sectors/request  bytes used   predicted GB/s   measured GB/s   measured/predicted\n");
    for r in rows {
        out.push_str(&format!(
            "{:>6}  {:>15}  {:>9.1}%  {:>15.0}  {:>14.0}  {:>19.2}\n",
            r.stride,
            r.sectors,
            100.0 * r.efficiency,
            r.predicted_gbps,
            r.useful_gbps,
            r.useful_gbps / r.predicted_gbps
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::validate;

    #[test]
    fn strides_must_leave_a_warp_of_work() {
        assert!(validate(&[1, 2, 32], 1 << 20).is_ok());
        assert!(validate(&[0], 1 << 20).unwrap_err().message().contains("out of range"));
        assert!(validate(&[1 << 20], 1 << 20).is_err());
        assert!(validate(&[], 1 << 20).is_err());
    }
}
