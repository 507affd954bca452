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

const COMMANDS: [&str; 14] = [
    "info",
    "vecadd",
    "matmul",
    "sweep",
    "warps",
    "coalesce",
    "banks",
    "divergence",
    "reduce",
    "memory",
    "occupancy",
    "tour",
    "exercise",
    "shapes",
];

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
        (&["vecadd", "--n", "2^32"], "must be between 1 and 4294967295 (got 4294967296)"),
        (&["banks", "--rounds", "1025"], "must be between 1 and 1024"),
        (&["vecadd", "--n", "0"], "must be between 1 and 4294967295 (got 0)"),
        (&["vecadd", "--bogus", "1"], "unexpected argument '--bogus'"),
        (&["matmul", "--size", "0"], "must be between 1"),
        (&["matmul", "--size", "64", "--m", "3"], "cannot be used with"),
        (&["matmul", "--m", "3"], "required arguments were not provided"),
        (&["matmul", "--rungs", "16"], "--rungs: no rung '16'"),
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

/// A rung list error names the chosen ladder's rungs and examples, none
/// of the other ladder's.
#[test]
fn rung_errors_list_the_chosen_ladders_rungs() {
    let out = run(&["matmul", "--dtype", "bf16", "--rungs", "19"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "--rungs: no rung '19' (the BF16 ladder's rungs are 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, auto;"
        ),
        "{err}"
    );
    assert!(err.contains("bf16_mma_sync") && !err.contains("7b") && !err.contains("sgemm"), "{err}");
    let out = run(&["matmul", "--rungs", "16"]);
    let err = stderr(&out);
    assert!(err.contains("(the SGEMM ladder's rungs are 1, 2, 3, 4, 5, 6, 7a, 7b, 8, 9, 10, 11, 12, 13, 14, 15, auto;"), "{err}");
    assert!(err.contains("sgemm_naive") && !err.contains("bf16"), "{err}");
}

/// `--rungs all`, the documented default, can be typed for every ladder:
/// never a usage error; the run then needs a GPU (exit 3 without one).
#[test]
fn the_documented_rung_default_can_be_typed() {
    let help = stdout(&run(&["matmul", "--help"])).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("or all [default: all]"), "{help}");
    for dtype in ["f32", "bf16", "all"] {
        let args = ["matmul", "--dtype", dtype, "--rungs", "all", "--size", "64", "--reps", "1", "--warmup", "0", "--no-cpu"];
        let out = run(&args);
        assert_no_panic(&out, dtype);
        match out.status.code() {
            Some(0) => assert!(stdout(&out).contains("cuBLAS"), "{dtype}: {}", stdout(&out)),
            Some(3) => assert!(!stderr(&out).contains("--rungs"), "{dtype}: {}", stderr(&out)),
            other => panic!("--dtype {dtype} --rungs all exited with {other:?}: {}", stderr(&out)),
        }
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

/// Too large a matrix is a bad value: a usage error before any GPU work.
#[test]
fn matrix_size_limits_are_usage_errors() {
    for args in [
        &["matmul", "--m", "65536", "--n", "65536", "--k", "1"][..],
        &["matmul", "--m", "46341", "--n", "46341", "--k", "1"],
        &["matmul", "--size", "2^20"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("32-bit indices"), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    let help = stdout(&run(&["matmul", "--help"])).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("(1 to 46340,") && help.contains("at most 2^31-1"), "{help}");
}

/// A flag that cannot apply is refused, never silently ignored.
#[test]
fn memory_of_a_known_gpu_refuses_measurement_flags_and_draws_the_chip() {
    for flag in [&["--json", "m.json"][..], &["--quick"], &["--reps", "3"], &["--max-mib", "64"]] {
        let args: Vec<&str> = ["memory", "--arch", "h200"].iter().chain(flag).copied().collect();
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("cannot be used with"), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    let dir = scratch("memory-arch");
    let path = dir.join("h200.svg");
    let out = run(&["memory".as_ref(), "--arch".as_ref(), "h200".as_ref(), "--svg".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("wrote {}", path.display())), "{}", stdout(&out));
    assert!(std::fs::read_to_string(&path).expect("picture written").contains("H200: the GPU in one picture"));
    std::fs::remove_dir_all(dir).expect("cleanup");
}

/// Names that cover GPUs the tables do not describe are errors that list
/// the names known, for every command with `--arch`.
#[test]
fn gpu_names_are_known_names_only() {
    for command in ["info", "memory", "occupancy"] {
        for name in ["rtx4090", "ad102", "ad104", "voodoo2"] {
            let out = run(&[command, "--arch", name]);
            assert_eq!(out.status.code(), Some(2), "{command} {name}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains(&format!("unknown GPU \"{name}\"")) && err.contains("T4, A100, A6000 (or RTX A6000), L4, H100, H200"),
                "{err}"
            );
        }
    }
    // Occupancy limits belong to a compute capability, so that is accepted there.
    let out = run(&["occupancy", "--arch", "sm_89"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).lines().any(|l| l.starts_with("L4 ")), "{}", stdout(&out));
    for all in ["all", "ALL"] {
        let out = run(&["occupancy", "--arch", all]);
        assert_eq!(out.status.code(), Some(0), "{all}: {}", stderr(&out));
        assert!(stdout(&out).contains("T4") && stdout(&out).contains("H100/H200"), "{}", stdout(&out));
    }
}

/// `info --arch` keeps the promise of `info`'s summary: SMs, clocks, peaks,
/// registers, shared memory and L2, then the memory table.
#[test]
fn info_of_a_known_gpu_prints_the_whole_description() {
    let out = run(&["info", "--arch", "h200"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for row in [
        "multiprocessors (SMs)      132",
        "registers per SM",
        "shared memory per SM       228.0 KB",
        "L2 cache                   60.0 MB",
        "SM clock (max)             1980 MHz",
        "= 66.9 TFLOP/s",
        "DRAM                                    -       141.0 GB",
    ] {
        assert!(text.contains(row), "lacks {row}: {text}");
    }
}

/// Without a GPU, `info` says so on stderr (exit 3) and how to see a known GPU.
#[test]
fn info_without_a_gpu_points_to_arch() {
    let out = run(&["info"]);
    assert_no_panic(&out, "info");
    if out.status.code() == Some(0) {
        assert!(stdout(&out).contains("multiprocessors (SMs)"), "{}", stdout(&out));
        return;
    }
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = error_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("`ptx-ladder info --arch NAME`") && lines[0].contains("H200"), "{lines:?}");
}

#[test]
fn help_of_help_is_help() {
    for flag in ["--help", "-h"] {
        let out = run(&["help", flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
        assert!(stdout(&out).contains("Usage: ptx-ladder help"), "{flag}: {}", stdout(&out));
    }
}

/// Numbers are written the way help writes ranges, and underscores only
/// group digits.
#[test]
fn numbers_are_read_as_help_writes_them() {
    let out = run(&["vecadd", "--n", "2^32-1", "--reps", "1"]);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", stderr(&out));
    assert!(stdout(&out).contains("n = 4294967295"), "{}", stdout(&out));
    for bad in ["_1", "1_", "1__0"] {
        let out = run(&["vecadd", "--n", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(stderr(&out).contains("expected a whole number"), "{bad}: {}", stderr(&out));
    }
}

/// A count of one is followed by the singular.
#[test]
fn one_of_a_thing_is_singular() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["vecadd", "--n", "1", "--block", "1", "--reps", "1"],
            &["block = 1 thread →", "= 1 block = 1 thread;", "vec_add_x4: 1 element at"],
        ),
        (&["warps", "--block", "1"], &["1 thread in 1 warp"]),
        (
            &["occupancy", "--arch", "a100", "--threads", "1", "--registers", "1", "--shared", "1"],
            &[
                "1 thread per block, 1 register per thread, 1 byte of shared memory",
                "1 thread/block (1 warp), 1 register/thread",
                "x 1 warp =",
            ],
        ),
        (&["coalesce", "--mib", "1", "--matmul-size", "32", "--reps", "1"], &["B:   1 sector"]),
        (&["divergence", "--work", "1", "--reps", "1"], &["cost 1 dependent FMA;"]),
        (&["reduce", "--n", "1", "--reps", "1"], &["sum of 1 float "]),
    ];
    for (args, wanted) in cases {
        let out = run(args);
        assert!(matches!(out.status.code(), Some(0 | 3)), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        for phrase in *wanted {
            assert!(text.contains(phrase), "{args:?} lacks {phrase:?}: {text}");
        }
        for plural_of_one in ["1 blocks", "1 threads", "1 sectors", "1 elements", "1 warps", "1 registers", "1 bytes", "1 floats", "1 FMAs"]
        {
            assert!(!text.contains(&format!(" {plural_of_one}")), "{args:?}: {plural_of_one}: {text}");
        }
    }
}

/// `coalesce` draws and prints the strides it was given.
#[test]
fn coalesce_pictures_the_strides_asked_for() {
    let dir = scratch("coalesce");
    let path = dir.join("coalesce.svg");
    let out = run(&[
        "coalesce",
        "--mib",
        "1",
        "--matmul-size",
        "32",
        "--reps",
        "1",
        "--strides",
        "3,5",
        "--svg",
        path.to_str().expect("UTF-8 path"),
    ]);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", stderr(&out));
    let doc = std::fs::read_to_string(&path).expect("picture written");
    assert!(doc.contains("one warp, stride 3") && doc.contains("one warp, stride 5"), "strides drawn");
    assert!(!doc.contains("one warp, stride 1<") && !doc.contains("one warp, stride 32"), "only the strides asked for");
    let text = stdout(&out);
    assert!(text.contains("stride   3: 32 lanes x 4 B; 12 sectors") && text.contains("stride   5: 32 lanes x 4 B; 20 sectors"), "{text}");
    std::fs::remove_dir_all(dir).expect("cleanup");
}

/// The shared libraries the binary asks the loader for (`readelf -d`,
/// which comes with the C linker the build needs).
fn needed_libraries() -> Vec<String> {
    let out = Command::new("readelf").args(["-d", BIN]).output().expect("readelf (binutils) runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split_once('[').and_then(|(_, rest)| rest.split_once(']')).map(|(name, _)| name.to_string()))
        .collect()
}

/// README's "Without a GPU" names every library the binary needs beyond
/// the C runtime: today only the driver's libcuda.so.1.
#[test]
fn the_readme_names_every_library_the_binary_needs() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).expect("README.md");
    let section = readme.split("### Without a GPU").nth(1).and_then(|rest| rest.split("\n### ").next()).expect("a Without a GPU section");
    let c_runtime = ["libc.so", "libm.so", "libgcc_s.so", "ld-linux", "libpthread.so", "libdl.so", "librt.so"];
    let needed = needed_libraries();
    assert!(needed.iter().any(|l| l.starts_with("libc.so")), "readelf output understood: {needed:?}");
    let beyond: Vec<&String> = needed.iter().filter(|l| !c_runtime.iter().any(|c| l.starts_with(c))).collect();
    assert_eq!(beyond, ["libcuda.so.1"], "update README's Without a GPU section");
    for library in beyond {
        assert!(section.contains(&format!("`{library}`")), "README's Without a GPU section does not name {library}");
    }
}

/// The sweep checks its suite, rungs and sizes before it looks for a GPU;
/// with good flags and no GPU it ends with exit 3.
#[test]
fn sweep_checks_its_flags_before_the_gpu() {
    let dir = std::env::temp_dir().join(format!("ptx-ladder-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_suite = dir.join("bad.csv");
    std::fs::write(&bad_suite, "# one shape\n1,4096\n").unwrap();
    let huge = dir.join("huge.csv");
    std::fs::write(&huge, "65536,65536,1\n").unwrap();
    let good = dir.join("good.csv");
    std::fs::write(&good, "decode,1,4096,4096\n").unwrap();
    let bad = bad_suite.to_str().unwrap();
    for (args, says) in [
        (vec!["sweep", "--suite", bad], "suite line 2: 2 fields"),
        (vec!["sweep", "--suite", "/nonexistent/suite.csv"], "--suite /nonexistent/suite.csv"),
        (vec!["sweep", "--suite", huge.to_str().unwrap()], "would have 4294967296 elements"),
        (vec!["sweep", "--rungs", "99"], "the BF16 ladder's rungs are"),
        (vec!["sweep", "--dtype", "f32", "--rungs", "16"], "no rung '16'"),
        (vec!["sweep", "--dtype", "f16"], "invalid value 'f16'"),
        (vec!["sweep", "--hot", "--back-to-back"], "cannot be used with"),
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let out = run(&["sweep", "--suite", good.to_str().unwrap(), "--dtype", "f32", "--rungs", "13", "--reps", "2"]);
    assert_no_panic(&out, "sweep");
    match out.status.code() {
        Some(0) => assert!(stdout(&out).contains("geometric mean"), "{}", stdout(&out)),
        other => assert_eq!(other, Some(3), "{}", stderr(&out)),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
