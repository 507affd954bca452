//! The `ptx-ladder` binary as a user meets it: help in every form, usage
//! errors with exit 2, no panic on a closed or full standard output or on
//! bytes that are not UTF-8, output paths checked before any work, and
//! every lab's model on a machine without a GPU (exit 3 there). On a GPU
//! machine the same commands must succeed instead; sizes are kept small.

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_ptx-ladder");

fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(BIN).args(args).output().expect("running ptx-ladder")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Lines on stderr that are not progress messages.
fn error_lines(out: &Output) -> Vec<String> {
    stderr(out).lines().filter(|l| !l.starts_with("  … ") && !l.is_empty()).map(str::to_string).collect()
}

fn assert_no_panic(out: &Output, what: &str) {
    assert!(!stderr(out).contains("panicked"), "{what}: {}", stderr(out));
    assert_ne!(out.status.code(), Some(101), "{what}");
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-ladder-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

const COMMANDS: [&str; 12] =
    ["info", "vecadd", "matmul", "warps", "coalesce", "banks", "divergence", "reduce", "memory", "occupancy", "tour", "exercise"];

#[test]
fn every_help_form_works() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = stdout(&out);
        for command in COMMANDS {
            assert!(text.contains(command), "{args:?} lacks {command}: {text}");
        }
        assert!(text.contains("Exit codes:") && text.contains("2^28"), "{text}");
    }
    for command in COMMANDS {
        for args in [vec![command, "--help"], vec![command, "-h"], vec!["help", command]] {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).contains(&format!("Usage: ptx-ladder {command}")), "{args:?}: {}", stdout(&out));
            if args[1] == "--help" {
                assert!(stdout(&out).contains("Exit codes:"), "{args:?}");
            }
        }
    }
}

#[test]
fn help_documents_every_flag_with_defaults_and_units() {
    // Whitespace collapsed: clap wraps long help lines.
    let help = |command: &str| stdout(&run(&[command, "--help"])).split_whitespace().collect::<Vec<_>>().join(" ");
    let matmul = help("matmul");
    for flag in ["--size", "--m ", "--n ", "--k ", "--rungs", "--reps", "--warmup", "--seed", "--json", "--svg", "--tune ", "--tune-file"] {
        assert!(matmul.contains(flag), "matmul --help lacks {flag}");
    }
    assert!(matmul.contains("[default: 2026]") && matmul.contains("1,3-5,7b,10"), "{matmul}");
    for lab in ["coalesce", "banks", "divergence", "reduce", "occupancy"] {
        let text = help(lab);
        assert!(text.contains("--reps <R> Timed runs") && text.contains("[default: 20]"), "{lab}: {text}");
    }
    let occupancy = help("occupancy");
    assert!(occupancy.contains("in bytes") && occupancy.contains("sm_80") && occupancy.contains("H200"), "{occupancy}");
    assert!(help("vecadd").contains("[default: 2^28]"));
}

#[test]
fn version_is_printed() {
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).trim(), format!("ptx-ladder {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2_and_name_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "Usage: ptx-ladder <COMMAND>"),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&["matmu"], "a similar subcommand exists: 'matmul'"),
        (&["matmul", "--sise", "64"], "a similar argument exists: '--size'"),
        (&["vecadd", "--n", "-5"], "unexpected argument '-5'"),
        (&["vecadd", "--n", "five"], "expected a whole number like 4096, 1e8 or 2^28"),
        (&["vecadd", "--block", "2048"], "must be between 1 and 1024 (got 2048)"),
        (&["vecadd", "--n", "1e10"], "must be between 1 and 4294967295"),
        (&["vecadd", "--n", "0"], "must be between 1 and 4294967295 (got 0)"),
        (&["vecadd", "--bogus", "1"], "unexpected argument '--bogus'"),
        (&["matmul", "--size", "0"], "must be between 1"),
        (&["matmul", "--size", "64", "--m", "3"], "cannot be used with"),
        (&["matmul", "--m", "3"], "required arguments were not provided"),
        (&["matmul", "--rungs", "13"], "--rungs: no rung '13'"),
        (&["matmul", "--dtype", "bf16", "--rungs", "7b"], "--rungs: no rung '7b'"),
        (&["matmul", "--dtype", "fp16"], "invalid value 'fp16' for '--dtype"),
        (&["matmul", "--dtype", "bf16", "--tune"], "leave it out with --dtype bf16"),
        (&["matmul", "--dtype", "all", "--rungs", "1"], "give --dtype f32 or --dtype bf16 with it"),
        (&["matmul", "--tune=yes"], "unexpected value 'yes' for '--tune'"),
        (&["info", "--verbose"], "unexpected argument '--verbose'"),
        (&["warps", "--block", "64,32"], "1024"),
        (&["coalesce", "--strides", "0"], "stride 0 is out of range"),
        (&["occupancy", "--arch", "v100"], "unknown GPU \"v100\""),
    ];
    for (args, expected) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
        assert_no_panic(&out, &format!("{args:?}"));
    }
}

#[test]
fn numbers_take_every_spelling() {
    for n in ["4096", "1e3", "2^12", "4_096"] {
        let out = run(&["occupancy", "--arch", "a100", "--shared", n]);
        assert_eq!(out.status.code(), Some(0), "{n}: {}", stderr(&out));
        let bytes = if n == "1e3" { "1000" } else { "4096" };
        assert!(stdout(&out).contains(&format!("{bytes} bytes of shared memory")), "{n}: {}", stdout(&out));
    }
}

#[test]
fn bytes_that_are_not_utf8_are_a_usage_error() {
    let bad = OsStr::from_bytes(b"\xff\xfe");
    for args in
        [vec![bad], vec![OsStr::new("matmul"), OsStr::new("--rungs"), bad], vec![OsStr::new("occupancy"), OsStr::new("--arch"), bad]]
    {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_no_panic(&out, "non-UTF-8");
    }
}

/// The reader goes away before the program writes: `ptx-ladder ... | head -0`.
#[test]
fn a_closed_stdout_ends_quietly() {
    for args in [&["help"][..], &["--help"], &["occupancy"], &["warps", "--block", "1024"], &["tour"]] {
        let mut child = Command::new(BIN).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        assert_no_panic(&out, &format!("{args:?}"));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(error_lines(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_full_stdout_is_one_error_line() {
    for args in [&["--help"][..], &["occupancy"], &["warps"], &["tour"]] {
        let full = File::options().write(true).open("/dev/full").expect("/dev/full");
        let out = Command::new(BIN).args(args).stdout(full).output().expect("run");
        assert_no_panic(&out, &format!("{args:?}"));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let lines = error_lines(&out);
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert!(lines[0].starts_with("error: writing to standard output:"), "{lines:?}");
    }
}

#[test]
fn output_paths_are_checked_before_any_work() {
    let dir = scratch("paths");
    let missing = dir.join("no/such/folder/out.svg");
    let cases: Vec<Vec<String>> = vec![
        vec!["matmul".into(), "--svg".into(), missing.display().to_string()],
        vec!["matmul".into(), "--json".into(), dir.display().to_string()],
        vec!["matmul".into(), "--tune".into(), "--tune-file".into(), dir.display().to_string()],
        vec!["matmul".into(), "--tune".into(), "--tune-file".into(), missing.with_extension("json").display().to_string()],
        vec!["reduce".into(), "--svg".into(), missing.display().to_string()],
        vec!["occupancy".into(), "--svg".into(), missing.display().to_string()],
        vec!["warps".into(), "--svg".into(), missing.display().to_string()],
    ];
    for args in cases {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&args[args.len() - 2]) && !err.contains("GPU"), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "{args:?}: work started: {}", stdout(&out));
    }
    assert!(!dir.join("no").exists(), "no folder was created");
    std::fs::remove_dir_all(dir).expect("cleanup");
}

/// Each lab prints its model; without a GPU it then says, in one line on
/// stderr, that the measurement needs one (exit 3); with one it measures.
#[test]
fn every_lab_prints_its_model_with_or_without_a_gpu() {
    let labs: &[(&[&str], &str)] = &[
        (&["warps", "--block", "30,2"], "60 threads in 2 warps"),
        (&["coalesce", "--mib", "8", "--matmul-size", "64", "--reps", "1"], "32-byte sectors"),
        (&["banks", "--rounds", "1", "--reps", "1"], "32 banks"),
        (&["divergence", "--work", "16", "--reps", "1"], "dependent FMAs"),
        (&["reduce", "--n", "1000", "--reps", "1"], "warp shuffles"),
        (&["occupancy", "--live", "--floats", "2^20", "--reps", "1"], "calculator:"),
        (&["vecadd", "--n", "1000", "--reps", "2"], "vec_add: n = 1000"),
    ];
    for (args, model) in labs {
        let out = run(args);
        assert_no_panic(&out, &format!("{args:?}"));
        assert!(stdout(&out).contains(model), "{args:?}: {}", stdout(&out));
        match out.status.code() {
            Some(0) => {}
            Some(3) => {
                let lines = error_lines(&out);
                assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
                assert!(lines[0].starts_with("error: the measurement needs a CUDA GPU: "), "{lines:?}");
            }
            other => panic!("{args:?} exited with {other:?}: {}", stderr(&out)),
        }
    }
}

#[test]
fn the_tour_runs_every_part_that_needs_no_gpu() {
    let out = run(&["tour"]);
    assert_no_panic(&out, "tour");
    if out.status.code() == Some(0) {
        return; // a GPU machine: the tour measured everything
    }
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    for part in [
        "1. Warps",
        "2. The memory hierarchy",
        "3. Coalescing",
        "4. Shared-memory banks",
        "5. Divergence",
        "6. Reduction",
        "7. Occupancy",
        "Your turn",
        "End of the tour",
    ] {
        assert!(text.contains(part), "tour lacks {part}");
    }
    assert!(text.contains("H100/H200") && text.contains("conflict degree"), "{text}");
    assert_eq!(error_lines(&out).len(), 1, "{}", stderr(&out));
}

#[test]
fn occupancy_without_live_draws_the_calculator() {
    let dir = scratch("occupancy");
    let path = dir.join("occupancy.svg");
    let out = run(&["occupancy".as_ref(), "--svg".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("wrote {}", path.display())));
    let doc = std::fs::read_to_string(&path).expect("picture written");
    for title in ["vs registers per thread", "vs shared memory per block", "vs block size", "this kernel: 64"] {
        assert!(doc.contains(title), "{title}");
    }
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_block_that_fits_nowhere_is_a_row_not_an_abort() {
    let out = run(&["occupancy", "--threads", "1024", "--shared", "70000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.starts_with("T4") && l.contains("does not fit: ")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("A100") && l.contains('%')), "{text}");
}

#[test]
fn lab_pictures_are_written_without_a_gpu() {
    let dir = scratch("pictures");
    let path = dir.join("warps.svg");
    let out = run(&["warps".as_ref(), "--block".as_ref(), "30,2".as_ref(), "--svg".as_ref(), path.as_os_str()]);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&path).expect("picture").starts_with("<svg"));
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn matrix_size_limits_are_explained() {
    let out = run(&["matmul", "--m", "65536", "--n", "65536", "--k", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("32-bit indices"), "{}", stderr(&out));
}
