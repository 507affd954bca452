//! The "auto" rung's model replayed over the recorded sweeps, without a
//! GPU: for every recorded shape, the kernel the model picks today
//! ([`auto::choose`] on the H200, [`auto::kernel_name`]) against the
//! fastest kernel measured at that shape in the same run. A change to the
//! model that picks worse kernels on shapes it was not written for shows
//! here, in CI.

use ptx_ladder::matmul::auto::{self, Hopper, Machine};
use ptx_ladder::matmul::dtype::Dtype;
use std::collections::HashMap;
use std::path::Path;

/// One recorded shape: its size and every correct kernel's median time.
struct Recorded {
    file: String,
    shape: String,
    size: (u32, u32, u32),
    micros: HashMap<String, f64>,
}

/// The rows of every `docs/sweep-h200-<dtype>*.json`.
fn records(dtype: &str) -> Vec<Recorded> {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut files: Vec<_> = std::fs::read_dir(&docs)
        .expect("docs/")
        .map(|e| e.expect("entry").file_name().into_string().expect("UTF-8 name"))
        .filter(|name| name.starts_with(&format!("sweep-h200-{dtype}")) && name.ends_with(".json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(docs.join(&file)).expect("a record");
        let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        for row in json["rows"].as_array().expect("rows") {
            let dim = |key: &str| row[key].as_u64().expect("a size") as u32;
            let mut micros = HashMap::new();
            let mut add = |kernel: &serde_json::Value| {
                if kernel["correct"].as_bool() == Some(true) {
                    let (name, time) = (kernel["kernel"].as_str().expect("a name"), kernel["micros"].as_f64().expect("a time"));
                    let best = micros.entry(name.to_string()).or_insert(time);
                    *best = time.min(*best);
                }
            };
            add(&row["ours"]);
            for other in row["others"].as_array().into_iter().flatten() {
                add(&other[1]);
            }
            let shape = row["shape"].as_str().expect("a shape").to_string();
            out.push(Recorded { file: file.clone(), shape, size: (dim("m"), dim("n"), dim("k")), micros });
        }
    }
    out
}

/// How the model's picks fare over the records of `dtype`: the rows that
/// timed the pick beside at least one other kernel, the geometric mean of best time / pick's time, and
/// the worst row.
fn replay(dtype: Dtype, records: &[Recorded]) -> (usize, f64, (f64, String)) {
    let (mut count, mut log_sum, mut worst) = (0, 0.0, (1.0, String::new()));
    for row in records {
        let on_hopper = Hopper::of(dtype, row.size, true);
        let choice = auto::choose(dtype, row.size, &Machine::H200, on_hopper);
        // A row that timed one kernel says nothing about the choice.
        if row.micros.len() < 2 {
            continue;
        }
        let Some(&picked) = row.micros.get(auto::kernel_name(dtype, &choice.pick)) else { continue };
        let best = row.micros.values().copied().fold(f64::INFINITY, f64::min);
        let ratio = best / picked;
        count += 1;
        log_sum += ratio.ln();
        if ratio < worst.0 {
            worst =
                (ratio, format!("{} {} ({}, {picked:.1} us, best {best:.1})", row.file, row.shape, auto::kernel_name(dtype, &choice.pick)));
        }
    }
    (count, (log_sum / count as f64).exp(), worst)
}

/// Replays the model of `dtype` over its records (files named
/// `sweep-h200-<name>…`) and requires at least `rows` rows that timed its
/// pick beside other kernels, a geometric mean of at least `mean` of the
/// fastest, and no row below `worst`.
fn check(dtype: Dtype, name: &str, (rows, mean, worst): (usize, f64, f64)) {
    let records = records(name);
    let (count, got, low) = replay(dtype, &records);
    println!("{name}: {count} of {} rows, {got:.4} of the fastest, worst {:.3} at {}", records.len(), low.0, low.1);
    assert!(count >= rows, "only {count} of {} recorded rows timed the model's pick", records.len());
    assert!(got >= mean, "the picks run at {got:.4} of the fastest recorded kernel");
    assert!(low.0 >= worst, "worst pick at {:.3} of the fastest: {}", low.0, low.1);
}

/// The BF16 model, over every BF16 record: with the records of 2026-12-04
/// (483 rows), 307 timed its pick beside other kernels, and there it ran
/// at 0.989 of the fastest (geometric mean); the worst, 0.76, is
/// 16 × 64 × 65537, where the padded swap-AB rung took 23.4 µs and rung
/// 18, which the model does not offer at K not a multiple of 8, 17.8.
#[test]
fn the_bf16_models_picks_stay_near_the_fastest_recorded() {
    check(Dtype::Bf16, "bf16", (280, 0.98, 0.7));
}

/// The same for the SGEMM ladder's model: 41 of 178 rows, 0.999, the
/// worst 0.971 (qkv at M = 1024, rung 12 against rung 15's B split in
/// shared memory).
#[test]
fn the_f32_models_picks_stay_near_the_fastest_recorded() {
    check(Dtype::F32, "f32", (35, 0.98, 0.9));
}
