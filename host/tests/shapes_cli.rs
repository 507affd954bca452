//! `ptx-ladder shapes` runs without a GPU: it draws the committed pictures
//! from the committed sweep byte for byte (so they cannot drift from the
//! data or the code), and refuses missing or wrong files with exit 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-ladder")).args(args).current_dir(ROOT).output().expect("running ptx-ladder")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-ladder-shapes-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The committed files and the flags that write them.
const OUTPUTS: [(&str, &str); 4] = [
    ("--roofline", "docs/shapes-roofline-h200.svg"),
    ("--waves", "docs/shapes-waves-h200.svg"),
    ("--accuracy", "docs/shapes-accuracy.svg"),
    ("--json", "docs/shapes-h200.json"),
];

#[test]
fn the_committed_pictures_are_what_the_committed_sweep_draws() {
    let dir = scratch("regenerate");
    let written: Vec<PathBuf> = OUTPUTS.iter().map(|(_, file)| dir.join(Path::new(file).file_name().unwrap())).collect();
    let mut args = vec!["shapes"];
    for ((flag, _), path) in OUTPUTS.iter().zip(&written) {
        args.extend([*flag, path.to_str().unwrap()]);
    }
    // The default --from is the committed BF16 sweep.
    let out = host(&args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("ridge at 220 FLOP/B") && stdout.contains("down M=128"), "{stdout}");
    for ((_, committed), path) in OUTPUTS.iter().zip(&written) {
        let fresh = std::fs::read_to_string(path).expect("written");
        let old = std::fs::read_to_string(Path::new(ROOT).join(committed)).expect("committed");
        assert!(
            fresh == old,
            "{committed} differs from what `ptx-ladder shapes` draws now: regenerate it (see `ptx-ladder shapes --help`)"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_and_wrong_files_are_usage_errors() {
    let dir = scratch("errors");
    let not_json = dir.join("not.json");
    std::fs::write(&not_json, "M,N,K\n1,2,3\n").unwrap();
    let a100 = dir.join("a100.json");
    let row = r#"{"shape": "o M=1", "m": 1, "n": 4096, "k": 4096, "cublas": null, "ours": null}"#;
    std::fs::write(&a100, format!(r#"{{"device": "NVIDIA A100", "dtype": "bf16", "rows": [{row}]}}"#)).unwrap();
    let memory = Path::new(ROOT).join("docs/memory-h200.json");
    for (args, says) in [
        (vec!["shapes", "--from", "/nonexistent/sweep.json"], "--from /nonexistent/sweep.json: No such file"),
        (vec!["shapes", "--from", not_json.to_str().unwrap()], "not a `ptx-ladder sweep --json` file"),
        (vec!["shapes", "--from", memory.to_str().unwrap()], "not a `ptx-ladder sweep --json` file"),
        (vec!["shapes", "--from", a100.to_str().unwrap()], "the lesson knows the H200's peaks only"),
        (vec!["shapes", "--waves", "/nonexistent/folder/waves.svg"], "--waves /nonexistent/folder/waves.svg"),
        (vec!["shapes", "--roofline"], "a value is required"),
    ] {
        let out = host(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_names_the_default_sweep_and_the_pictures() {
    let out = host(&["shapes", "--help"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for says in ["Usage: ptx-ladder shapes", "[default: docs/sweep-h200-bf16.json]", "--roofline", "--waves", "--accuracy", "Exit codes:"] {
        assert!(stdout.contains(says), "{says}: {stdout}");
    }
    // Listed among the commands.
    let out = host(&["--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("shapes"));
}
