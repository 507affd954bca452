//! The `host` binary's behaviour on bad input and on a machine without a
//! GPU: one clear line on stderr, the right exit code, never a panic.

use std::process::{Command, Output};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host")).args(args).output().expect("running host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn usage_errors_exit_2_and_name_the_problem() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "usage: host <command>"),
        (&["frobnicate"], "unknown command 'frobnicate'"),
        (&["vecadd", "--n", "-5"], "--n expects a whole number"),
        (&["vecadd", "--block", "2048"], "--block must be between 1 and 1024 (got 2048)"),
        (&["vecadd", "--n", "1e10"], "--n must be between 1 and 4294967295"),
        (&["vecadd", "--n", "0"], "--n must be between 1 and 4294967295 (got 0)"),
        (&["vecadd", "--bogus", "1"], "unknown flag --bogus for `host vecadd`"),
        (&["matmul", "--size", "0"], "--size must be between 1"),
        (&["matmul", "--size", "64", "--m", "3"], "either --size or --m/--n/--k"),
        (&["matmul", "--m", "3"], "--m, --n and --k go together"),
        (&["matmul", "--rungs", "12"], "--rungs: no rung '12'"),
        (&["matmul", "--tune", "yes"], "--tune takes no value"),
        (&["matmul", "--dtype", "fp16"], "--dtype: 'fp16' is not a ladder type (use f32 or bf16)"),
        (&["matmul", "--dtype", "bf16", "--rungs", "7b"], "--rungs: no rung '7b'"),
        (&["matmul", "--dtype", "bf16", "--tune"], "leave it out with --dtype bf16"),
        (&["info", "--verbose"], "unknown flag --verbose for `host info`"),
    ];
    for (args, expected) in cases {
        let out = host(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
}

#[test]
fn matrix_size_limits_are_explained() {
    let out = host(&["matmul", "--m", "65536", "--n", "65536", "--k", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("32-bit indices"), "{}", stderr(&out));
}

#[test]
fn help_lists_the_commands() {
    let out = host(&["help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for command in ["info", "vecadd", "matmul"] {
        assert!(text.contains(command), "{text}");
    }
}

/// Without a GPU the run must end in one clear line and exit 1; with one
/// (the GPU machine), the same command must succeed and check its result.
#[test]
fn vecadd_fails_cleanly_without_a_gpu_and_checks_with_one() {
    let out = host(&["vecadd", "--n", "1000", "--reps", "2"]);
    let err = stderr(&out);
    if out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("check: all 1000 elements equal a + b computed on the CPU, for both kernels"), "{text}");
    } else {
        assert_eq!(out.status.code(), Some(1), "{err}");
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("  … ")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(lines[0].starts_with("error: ") && (lines[0].contains("GPU") || lines[0].contains("driver")), "{err}");
        assert!(!err.contains("panicked"));
    }
}
