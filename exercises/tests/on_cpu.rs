//! Every exercise on the CPU emulator: the shipped stub is "not started",
//! the reference solution passes with every checker silent, and each
//! deliberately wrong variant is caught by the checker its mistake belongs
//! to, with a message that names it.

use exercises::catalogue::{catalogue, exercise};
use ptx_ladder::exercises::{Problem, Verdict, check};

/// Words the feedback of each kind of failure must contain.
fn expected_words(problem: Problem) -> &'static [&'static str] {
    match problem {
        Problem::Crash => &["stopped"],
        Problem::Barrier => &["not reached by every", "wait", "at exercises/src/"],
        Problem::Race => &["shared-memory race", "no barrier between", "(at exercises/src/"],
        Problem::OutOfBounds => &["out-of-bounds", "past the end of", "thread"],
        Problem::WrongValues => &["elements wrong", "expected", "got"],
        Problem::Uncoalesced => &["32-byte sectors", "at exercises/src/"],
        Problem::BankConflicts => &["bank conflict", "at exercises/src/", "bank"],
        Problem::Unseen => &["gpu::store"],
    }
}

#[test]
fn there_are_at_least_fourteen_exercises_numbered_in_order() {
    let all = catalogue();
    assert!(all.len() >= 14);
    for (i, e) in all.iter().enumerate() {
        assert_eq!(e.number, i as u32 + 1);
        assert!(
            e.file.ends_with(".rs") && std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(e.file).is_file(),
            "{}",
            e.file
        );
        assert!(e.task().starts_with(&format!("# Exercise {}:", e.number)), "exercise {} task: {}", e.number, e.task());
        assert!(e.source.contains("unwritten("), "exercise {} must ship as a stub", e.number);
        assert!(!e.hints.is_empty() && e.lab.starts_with("ptx-ladder "), "exercise {}", e.number);
        assert!(!e.wrong.is_empty(), "exercise {} needs a wrong variant", e.number);
    }
    assert!(exercise(0).is_err() && exercise(all.len() as u32 + 1).is_err());
}

#[test]
fn every_stub_is_not_started() {
    for e in catalogue() {
        assert_eq!(check(&e, e.kernel), Verdict::NotStarted, "exercise {}", e.number);
    }
}

#[test]
fn every_reference_solution_passes_with_all_checkers_silent() {
    for e in catalogue() {
        let verdict = check(&e, e.reference);
        assert!(verdict.passed(), "exercise {}: {verdict}", e.number);
    }
}

#[test]
fn every_wrong_variant_is_caught_with_the_right_message() {
    for e in catalogue() {
        for wrong in &e.wrong {
            let verdict = check(&e, wrong.kernel);
            let Verdict::Failed { problem, details, .. } = &verdict else {
                panic!("exercise {}: the wrong variant `{}` ({}) was not caught: {verdict}", e.number, wrong.name, wrong.mistake);
            };
            assert_eq!(*problem, wrong.caught_as, "exercise {} `{}`: {verdict}", e.number, wrong.name);
            for word in expected_words(*problem) {
                assert!(details.contains(word), "exercise {} `{}`: no {word:?} in\n{details}", e.number, wrong.name);
            }
        }
    }
}

#[test]
fn wrong_values_name_the_element_and_the_thread_that_wrote_it() {
    let e = exercise(6).unwrap();
    let four_steps = e.wrong.iter().find(|w| w.name == "four steps").unwrap();
    let text = check(&e, four_steps.kernel).to_string();
    assert!(text.contains("out[0]: expected"), "{text}");
    assert!(text.contains("written by thread 0 of block (0, 0, 0) at exercises/src/wrong.rs:"), "{text}");
}

#[test]
fn pictures_show_the_buffers_and_the_accesses_past_the_end() {
    let e = exercise(1).unwrap();
    let case = (e.cases)().into_iter().nth(1).unwrap();
    let good = ptx_ladder::exercises::picture::draw("exercise 1", e.reference, &case).unwrap();
    assert!(good.starts_with("<svg") && good.contains("x (100 elements)") && good.contains("out (100 elements)"));
    assert!(!good.contains("stroke=\"#d62728\""), "no access outside a buffer");
    let unguarded = ptx_ladder::exercises::picture::draw("exercise 1", e.wrong[0].kernel, &case).unwrap();
    assert!(unguarded.contains("stroke=\"#d62728\""), "the accesses past the end are outlined");
}

#[test]
fn every_exercise_compiles_to_ptx() {
    // The same nvptx64 pipeline as the project's modules, into its own
    // target folder: what a GPU machine would load.
    let ptx = ptx_ladder::exercises::gpu::fresh_ptx().expect("compiling the exercises to PTX");
    for e in catalogue() {
        for entry in [e.entry, e.reference_entry] {
            assert!(ptx.contains(&format!(".entry {entry}(")), "exercise {}: no entry {entry} in the PTX", e.number);
        }
    }
}
