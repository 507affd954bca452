//! Rung 8's search: time every tile shape compiled into the PTX on this GPU
//! at this size, keep the fastest correct one, and remember it in a small
//! JSON file that later runs read.

use super::buffers::Buffers;
use super::check::{Reference, verdict};
use super::ladder::measure;
use crate::device::Gpu;
use crate::error::{Error, Result};
use kernels_gpu::sgemm::r08_autotuned::{CONFIGS, Config};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Where `--tune` writes its result unless `--tune-file` says otherwise.
pub const DEFAULT_FILE: &str = "target/ptx-ladder-autotune.json";

/// Marks a tuning file written by this version (JSON with these fields).
const FORMAT: &str = "ptx-ladder autotune 1";

/// A tuning result as stored on disk, as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuned {
    pub format: String,
    pub kernel: String,
    pub device: String,
    /// (M, N, K) it was tuned at.
    pub size: (u32, u32, u32),
    pub gflops: f64,
}

impl Tuned {
    pub fn new(kernel: &str, device: &str, size: (u32, u32, u32), gflops: f64) -> Tuned {
        Tuned { format: FORMAT.into(), kernel: kernel.into(), device: device.into(), size, gflops }
    }

    fn to_text(&self) -> String {
        // Serialising plain strings and numbers cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads a tuning file; an older or foreign file is refused with the
    /// reason, so the note in the table can say what to do.
    fn from_text(text: &str) -> std::result::Result<Tuned, String> {
        if text.lines().any(|l| l.trim_start().starts_with("kernel =")) {
            return Err("is in the text format of older versions".into());
        }
        let tuned: Tuned = serde_json::from_str(text).map_err(|e| format!("is not a tuning file ({e})"))?;
        if tuned.format != FORMAT {
            return Err(format!("has format {:?}, expected {FORMAT:?}", tuned.format));
        }
        Ok(tuned)
    }
}

/// Writes `tuned` to `path`, creating its folder.
pub fn save(path: &Path, tuned: &Tuned) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::new(format!("creating {}: {e}", dir.display())))?;
    }
    std::fs::write(path, tuned.to_text()).map_err(|e| Error::new(format!("writing {}: {e}", path.display())))
}

/// Which shape rung 8 runs, and why (for the table).
pub struct Choice {
    pub config: &'static Config,
    pub note: String,
}

/// Reads the tuning file: its shape if it was tuned on this device, else
/// the default shape with a note saying so.
pub fn choose(path: &Path, device: &str) -> Choice {
    let default =
        Choice { config: &CONFIGS[0], note: format!("default shape {}; run `ptx-ladder matmul --tune` to search", shape(&CONFIGS[0])) };
    let Ok(text) = std::fs::read_to_string(path) else { return default };
    let tuned = match Tuned::from_text(&text) {
        Ok(tuned) => tuned,
        Err(why) => {
            return Choice {
                note: format!("{} {why}, so it is ignored (`--tune` rewrites it); {}", path.display(), default.note),
                ..default
            };
        }
    };
    match CONFIGS.iter().find(|c| c.kernel.name() == tuned.kernel) {
        Some(_) if tuned.device == device => chosen(&tuned, &path.display().to_string()),
        Some(_) => Choice { note: format!("{} was tuned on {}, not this GPU; {}", path.display(), tuned.device, default.note), ..default },
        None => Choice { note: format!("{} names unknown kernel {}; {}", path.display(), tuned.kernel, default.note), ..default },
    }
}

/// The shape `tuned` names (which must be one of [`CONFIGS`], else the
/// default), with a note naming where it came from.
pub fn chosen(tuned: &Tuned, source: &str) -> Choice {
    let config = CONFIGS.iter().find(|c| c.kernel.name() == tuned.kernel).unwrap_or(&CONFIGS[0]);
    let (m, n, k) = tuned.size;
    Choice { config, note: format!("{} tuned on this GPU at {m}x{n}x{k} ({source})", shape(config)) }
}

/// "128x128x8, 8x8 per thread".
pub fn shape(config: &Config) -> String {
    format!(
        "{}x{}x{}, {}x{} per thread",
        config.tiling.tile_m, config.tiling.tile_n, config.tiling.tile_k, config.tiling.thread_m, config.tiling.thread_n
    )
}

/// One candidate's outcome.
pub struct Candidate {
    pub config: Config,
    pub gflops: Option<f64>,
    pub outcome: String,
}

/// Times every candidate on the ladder's buffers and reference and returns
/// them with the fastest correct one (which the caller saves with [`save`]).
pub fn tune(
    gpu: &Gpu,
    buffers: &mut Buffers<f32>,
    reference: &Reference,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<Candidate>, Tuned)> {
    let mut results = Vec::new();
    for (i, config) in CONFIGS.iter().enumerate() {
        progress(&crate::progress::step(i, CONFIGS.len(), &format!("tuning {}", shape(config))));
        let (check, timing) = measure(gpu, buffers, &config.kernel, reference, None, 2)?;
        let v = verdict(reference, &check);
        let gflops = timing.map(|t| t.billions_per_second(buffers.flops()));
        results.push(Candidate { config: *config, gflops: if v.passed() { gflops } else { None }, outcome: v.describe() });
    }
    let best = results
        .iter()
        .filter_map(|c| c.gflops.map(|g| (c, g)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or_else(|| Error::new("no tile shape produced a correct result; nothing written"))?;
    let tuned = Tuned::new(best.0.config.kernel.name(), &gpu.info.name, buffers.size(), best.1);
    Ok((results, tuned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_file_round_trips() {
        let t = Tuned::new(CONFIGS[3].kernel.name(), "NVIDIA H200", (4096, 1024, 512), 41234.0);
        assert_eq!(Tuned::from_text(&t.to_text()), Ok(t.clone()));
        let old = "kernel = x\ndevice = y\nsize = 1x2x3\ngflops = 4\n";
        assert!(Tuned::from_text(old).unwrap_err().contains("older versions"));
        assert!(Tuned::from_text("{}").unwrap_err().contains("not a tuning file"));
        let other = t.to_text().replace(FORMAT, "something else 9");
        assert!(Tuned::from_text(&other).unwrap_err().contains("has format"));
    }

    #[test]
    fn choice_uses_the_file_only_for_the_same_device() {
        let dir = std::env::temp_dir().join(format!("ptx-ladder-tune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tune.json");
        assert_eq!(choose(&path, "GPU").config.kernel.name(), CONFIGS[0].kernel.name());
        assert!(choose(&path, "GPU").note.contains("run `ptx-ladder matmul --tune`"));

        let t = Tuned::new(CONFIGS[2].kernel.name(), "GPU", (64, 64, 64), 1.0);
        save(&path, &t).unwrap();
        let same = choose(&path, "GPU");
        assert_eq!(same.config.kernel.name(), CONFIGS[2].kernel.name());
        assert!(same.note.contains("tuned on this GPU at 64x64x64"), "{}", same.note);
        let other = choose(&path, "Other GPU");
        assert_eq!(other.config.kernel.name(), CONFIGS[0].kernel.name());
        assert!(other.note.contains("was tuned on GPU"), "{}", other.note);

        std::fs::write(&path, "garbage").unwrap();
        let garbage = choose(&path, "GPU");
        assert_eq!(garbage.config.kernel.name(), CONFIGS[0].kernel.name());
        assert!(garbage.note.contains("is not a tuning file"), "{}", garbage.note);
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
