//! `ptx-ladder pitfalls` runs without a GPU: every broken example caught, every
//! fix clean, exit 0; sizes that hide the bugs are usage errors.

use std::process::{Command, Output};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-ladder")).args(args).output().expect("running host")
}

#[test]
fn the_pitfalls_lab_runs_without_a_gpu() {
    let out = host(&["pitfalls", "--n", "200"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("All 6 broken examples were caught on the CPU, and every fix ran clean."), "{stdout}");
    assert_eq!(stdout.matches("=> caught; the fix is clean").count(), 6, "{stdout}");
    assert!(stdout.contains("threads 0-63 wait at kernels-gpu/src/labs/pitfalls.rs:"), "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn sizes_that_hide_the_bugs_are_refused() {
    for n in ["256", "64", "1e6", "65536"] {
        let out = host(&["pitfalls", "--n", n]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{n}: {stderr}");
        assert!(stderr.contains("--n must be between 129 and 65535 and not a multiple of 128"), "{n}: {stderr}");
    }
}
