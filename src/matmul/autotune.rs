//! Rung 8's search: time every tile shape compiled into the PTX on this GPU
//! at this size, keep the fastest correct one, and remember it in a small
//! text file that later runs read.

use super::check::{Reference, verdict};
use super::ladder::{GemmBuffers, measure};
use crate::device::Gpu;
use crate::error::{Error, Result};
use kernels_gpu::matmul::GemmKernel;
use kernels_gpu::matmul::r08_autotuned::{CONFIGS, Config};
use std::path::Path;

/// Where `--tune` writes its result unless `--tune-file` says otherwise.
pub const DEFAULT_FILE: &str = "target/ptx-ladder-autotune.txt";

/// A tuning result as stored on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub kernel: String,
    pub device: String,
    pub size: (u32, u32, u32),
    pub gflops: f64,
}

impl Tuned {
    fn to_text(&self) -> String {
        let (m, n, k) = self.size;
        format!(
            "# written by `host matmul --tune`; read by `host matmul` for rung 8\nkernel = {}\ndevice = {}\nsize = {m}x{n}x{k}\ngflops = {:.0}\n",
            self.kernel, self.device, self.gflops
        )
    }

    fn from_text(text: &str) -> Option<Tuned> {
        let field = |key: &str| {
            text.lines()
                .filter_map(|l| l.split_once('='))
                .find(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().to_string())
        };
        let size: Vec<u32> = field("size")?.split('x').map(|v| v.parse().ok()).collect::<Option<_>>()?;
        Some(Tuned {
            kernel: field("kernel")?,
            device: field("device")?,
            size: (*size.first()?, *size.get(1)?, *size.get(2)?),
            gflops: field("gflops")?.parse().ok()?,
        })
    }
}

/// Which shape rung 8 runs, and why (for the table).
pub struct Choice {
    pub config: Config,
    pub note: String,
}

/// Reads the tuning file: its shape if it was tuned on this device, else
/// the default shape with a note saying so.
pub fn choose(path: &Path, device: &str) -> Choice {
    let default = Choice { config: CONFIGS[0], note: format!("default shape {}; run `host matmul --tune` to search", shape(&CONFIGS[0])) };
    let Ok(text) = std::fs::read_to_string(path) else { return default };
    let Some(tuned) = Tuned::from_text(&text) else {
        return Choice { note: format!("{} is unreadable; {}", path.display(), default.note), ..default };
    };
    match CONFIGS.iter().find(|c| c.kernel.name() == tuned.kernel) {
        Some(config) if tuned.device == device => {
            let (m, n, k) = tuned.size;
            Choice { config: *config, note: format!("{} tuned on this GPU at {m}x{n}x{k} ({})", shape(config), path.display()) }
        }
        Some(_) => Choice { note: format!("{} was tuned on {}, not this GPU; {}", path.display(), tuned.device, default.note), ..default },
        None => Choice { note: format!("{} names unknown kernel {}; {}", path.display(), tuned.kernel, default.note), ..default },
    }
}

/// "128x128x8, 8x8 per thread".
pub fn shape(config: &Config) -> String {
    format!("{}x{}x{}, {}x{} per thread", config.tiling.tile_m, config.tiling.tile_n, config.tiling.tile_k, config.tiling.thread_m, config.tiling.thread_n)
}

/// One candidate's outcome.
pub struct Candidate {
    pub config: Config,
    pub gflops: Option<f64>,
    pub outcome: String,
}

/// Times every candidate; writes the fastest correct one to `path`.
pub fn tune(gpu: &Gpu, buffers: &mut GemmBuffers, reference: &Reference, path: &Path, progress: &mut dyn FnMut(&str)) -> Result<Vec<Candidate>> {
    let mut results = Vec::new();
    for (i, config) in CONFIGS.iter().enumerate() {
        progress(&format!("tuning [{}/{}] {}", i + 1, CONFIGS.len(), shape(config)));
        let kernel: GemmKernel = config.kernel;
        let (check, timing) = measure(gpu, buffers, &kernel, reference, None, 2)?;
        let v = verdict(reference, &check);
        let gflops = timing.map(|t| t.billions_per_second(buffers.flops()));
        results.push(Candidate { config: *config, gflops: if v.passed() { gflops } else { None }, outcome: v.describe() });
    }
    let best = results
        .iter()
        .filter_map(|c| c.gflops.map(|g| (c, g)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or_else(|| Error::new("no tile shape produced a correct result; nothing written"))?;
    let tuned = Tuned { kernel: best.0.config.kernel.name().to_string(), device: gpu.info.name.clone(), size: buffers.size(), gflops: best.1 };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::new(format!("creating {}: {e}", dir.display())))?;
    }
    std::fs::write(path, tuned.to_text()).map_err(|e| Error::new(format!("writing {}: {e}", path.display())))?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_file_round_trips() {
        let t = Tuned { kernel: CONFIGS[3].kernel.name().into(), device: "NVIDIA H200".into(), size: (4096, 1024, 512), gflops: 41234.0 };
        assert_eq!(Tuned::from_text(&t.to_text()), Some(t));
        assert_eq!(Tuned::from_text("kernel = x\n"), None);
    }

    #[test]
    fn choice_uses_the_file_only_for_the_same_device() {
        let dir = std::env::temp_dir().join(format!("ptx-ladder-tune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tune.txt");
        assert_eq!(choose(&path, "GPU").config.kernel.name(), CONFIGS[0].kernel.name());
        assert!(choose(&path, "GPU").note.contains("run `host matmul --tune`"));

        let t = Tuned { kernel: CONFIGS[2].kernel.name().into(), device: "GPU".into(), size: (64, 64, 64), gflops: 1.0 };
        std::fs::write(&path, t.to_text()).unwrap();
        let same = choose(&path, "GPU");
        assert_eq!(same.config.kernel.name(), CONFIGS[2].kernel.name());
        assert!(same.note.contains("tuned on this GPU at 64x64x64"), "{}", same.note);
        let other = choose(&path, "Other GPU");
        assert_eq!(other.config.kernel.name(), CONFIGS[0].kernel.name());
        assert!(other.note.contains("was tuned on GPU"), "{}", other.note);

        std::fs::write(&path, "garbage").unwrap();
        assert!(choose(&path, "GPU").note.contains("unreadable"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn every_candidate_is_a_distinct_kernel_with_a_valid_shape() {
        let mut names: Vec<&str> = CONFIGS.iter().map(|c| c.kernel.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CONFIGS.len());
        for c in CONFIGS {
            assert!(c.tiling.threads() <= 1024 && c.tiling.threads() >= 32, "{}", shape(c));
            let launch = (c.kernel.launch)(1000, 1000);
            assert_eq!(launch.block.x, c.tiling.threads());
            assert!(launch.shared_bytes <= 48 * 1024, "{}", shape(c));
        }
    }
}
