//! `ptx-ladder exercise` without a GPU: the list, an exercise's task and
//! check, hints, the solution, and usage errors.

use std::process::{Command, Output};

fn host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-ladder")).args(args).output().expect("running host")
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_list_has_fourteen_exercises_with_their_status_and_lab() {
    let out = host(&["exercise"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The shipped files are stubs.
    assert_eq!(stdout.matches("not started").count(), 14, "{stdout}");
    assert!(stdout.contains(" 5  not started  The tree reduction") && stdout.contains("ptx-ladder reduce"), "{stdout}");
    assert!(stdout.contains("0 of 14 pass."), "{stdout}");
}

#[test]
fn an_exercise_prints_its_task_file_and_check() {
    let out = host(&["exercise", "5", "--hint", "--hint"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("Exercise 5: The tree reduction"), "{stdout}");
    assert!(stdout.contains("Edit exercises/src/e05_tree_reduction.rs"), "{stdout}");
    assert!(stdout.contains("Hint 1 of 3") && stdout.contains("Hint 2 of 3") && !stdout.contains("Hint 3 of 3"), "{stdout}");
    assert!(stdout.contains("not started: the body still calls unwritten()"), "{stdout}");
    assert!(stderr.contains("exercise 5 is not started"), "{stderr}");
}

#[test]
fn the_solution_is_printed_on_request() {
    let out = host(&["exercise", "13", "--solution"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("pub unsafe fn sol13_matmul_tiled") && stdout.contains("gpu::sync_threads();"), "{stdout}");
}

#[test]
fn numbers_outside_the_list_are_usage_errors() {
    for args in [&["exercise", "15"][..], &["exercise", "0"], &["exercise", "--hint"]] {
        let out = host(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out).1);
    }
}
