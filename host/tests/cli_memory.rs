//! `ptx-ladder memory` and `ptx-ladder info --svg` from the command line: the picture
//! of a known GPU needs no GPU; bad input is one line and the right code.

use std::process::{Command, Output};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-ladder")).args(args).output().expect("running host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn info_draws_a_known_gpu_without_one() {
    let dir = std::env::temp_dir().join(format!("ptx-ladder-cli-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("h200.svg");
    let json = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/memory-h200.json");
    let out = host(&["info", "--arch", "h200", "--svg", svg.to_str().unwrap(), "--memory-json", json]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("registers (65536 x 4 B)") && text.contains("33.0 MB"), "{text}");
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(doc.starts_with("<svg") && doc.trim_end().ends_with("</svg>"));
    assert!(doc.contains("H200: the GPU in one picture") && doc.contains("measured on NVIDIA H200"), "measurements drawn");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_memory_model_prints_without_a_gpu() {
    let out = host(&["memory", "--arch", "a6000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("21.0 MB = 2.00x all L1/shared memory (10.5 MB)"), "{text}");
    assert!(text.contains("= 19354 GB/s = 25.2x its 768 GB/s DRAM"), "{text}");
}

#[test]
fn bad_memory_and_picture_input_is_one_line() {
    let usage: &[(&[&str], &str)] = &[
        (&["info", "--arch", "voodoo2"], "unknown GPU \"voodoo2\""),
        (&["memory", "--max-mib", "0"], "'--max-mib <MIB>': must be between 1 and 16384 (got 0)"),
        (&["memory", "--quick", "yes"], "unexpected argument 'yes'"),
        (&["memory", "--arch", "voodoo2"], "unknown GPU"),
        (&["matmul", "--no-cpu", "1"], "unexpected argument '1'"),
        // Output paths are checked before any work.
        (&["info", "--arch", "a100", "--svg", "/nonexistent/dir/gpu.svg"], "/nonexistent/dir"),
    ];
    for (args, expected) in usage {
        let out = host(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected), "{args:?}: {}", stderr(&out));
    }
    let runtime: &[(&[&str], &str)] = &[
        (&["info", "--arch", "a100", "--memory-json", "/nonexistent/m.json"], "reading /nonexistent/m.json"),
        (&["info", "--arch", "a100", "--memory-json", "Cargo.toml"], "not a `ptx-ladder memory --json` file"),
    ];
    for (args, expected) in runtime {
        let out = host(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected) && stderr(&out).lines().count() == 1, "{args:?}: {}", stderr(&out));
    }
}
