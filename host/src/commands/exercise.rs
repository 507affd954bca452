//! `ptx-ladder exercise [N]`: the list of exercises with each one's status,
//! or exercise N's task, hints, solution or check on the CPU emulator.
//! Needs no GPU.

use crate::Failure;
use crate::cli::ExerciseArgs;
use crate::output::{Files, check_writable, outln};
use exercises::catalogue::{catalogue, exercise};
use ptx_ladder::exercises::gpu::{self, Exercises};
use ptx_ladder::exercises::{Exercise, Verdict, check, picture};

pub fn run(args: ExerciseArgs) -> Result<(), Failure> {
    if let Some(path) = &args.ptx {
        return write_ptx(path);
    }
    let Some(number) = args.number else { return list() };
    let exercise = exercise(number).map_err(Failure::Usage)?;
    if let Some(path) = &args.svg {
        check_writable("--svg", path)?;
    }
    if args.solution {
        outln!("Reference solution of exercise {number} ({}):\n", exercise.title)?;
        return outln!("{}", exercise.solution.trim_end());
    }
    describe(&exercise, args.hint)?;
    let verdict = check(&exercise, exercise.kernel);
    outln!("Checking on the CPU emulator (every element, races, barriers, bounds):\n{verdict}")?;
    if let Some(path) = &args.svg {
        draw(&exercise, &verdict, path)?;
    }
    match verdict {
        Verdict::Passed(_) => {
            on_gpu(&exercise)?;
            outln!("\nExercise {number} done. Its concept is measured on a GPU by `{}`.", exercise.lab)
        }
        Verdict::NotStarted => Err(not_yet(number, "is not started")),
        Verdict::Failed { .. } => Err(not_yet(number, "does not pass yet")),
    }
}

fn not_yet(number: u32, what: &str) -> Failure {
    let help = "--hint gives a hint (repeat it for more), --svg PATH draws what each thread touched";
    Failure::Runtime(ptx_ladder::Error::new(format!("exercise {number} {what}; {help}")))
}

/// The title, concept, lab, task, file and the hints asked for.
fn describe(exercise: &Exercise, hints: u8) -> Result<(), Failure> {
    let number = exercise.number;
    outln!("Exercise {number}: {}\nConcept: {}\nMeasured on a GPU by: {}\n", exercise.title, exercise.concept, exercise.lab)?;
    outln!("{}\n", exercise.task())?;
    outln!("Edit {} (replace the body that calls unwritten()), then run this again:", exercise.file)?;
    outln!("  cargo run --release -p host -- exercise {number}\n")?;
    let shown = (hints as usize).min(exercise.hints.len());
    for (i, hint) in exercise.hints[..shown].iter().enumerate() {
        outln!("Hint {} of {}: {hint}", i + 1, exercise.hints.len())?;
    }
    if hints as usize > exercise.hints.len() {
        outln!("(no more hints: --solution prints the reference solution)")?;
    }
    if shown > 0 {
        outln!("")?;
    }
    Ok(())
}

/// Draws the learner's kernel on a small case.
fn draw(exercise: &Exercise, verdict: &Verdict, path: &std::path::Path) -> Result<(), Failure> {
    if *verdict == Verdict::NotStarted {
        return outln!("(nothing to draw yet: the kernel is not written)");
    }
    let cases = (exercise.cases)();
    // The second size: big enough to show a pattern, small enough to read.
    let Some(case) = cases.get(1).or(cases.first()) else { return Ok(()) };
    let title = format!("exercise {}", exercise.number);
    let mut files = Files::default();
    match picture::draw(&title, exercise.kernel, case) {
        Ok(svg) => files.write(path, &svg)?,
        Err(e) => outln!("(no picture: the launch failed: {e})")?,
    }
    files.finish()
}

/// Every exercise with its status, from a check of each.
fn list() -> Result<(), Failure> {
    let all = catalogue();
    outln!("Kernel exercises: write each kernel, checked on the CPU emulator (no GPU needed).")?;
    outln!("Run `ptx-ladder exercise N` for exercise N's task and check.\n")?;
    outln!("{:>3}  {:<12} {:<44} {}", "#", "status", "exercise", "lab that measures it")?;
    let mut done = 0;
    for e in &all {
        let verdict = check(e, e.kernel);
        done += usize::from(verdict.passed());
        outln!("{:>3}  {:<12} {:<44} {}", e.number, verdict.status(), e.title, e.lab)?;
    }
    outln!("\n{done} of {} pass. The files are in exercises/src/.", all.len())
}

/// A lab's pointer to the exercises that practise its concept.
pub fn your_turn(numbers: &[u32], what: &str) -> Result<(), Failure> {
    let numbers: Vec<String> = numbers.iter().map(u32::to_string).collect();
    outln!("(your turn, {what}: ptx-ladder exercise {})", numbers.join(", "))
}

/// Where there is a GPU: the same kernel there, checked at the same sizes,
/// then checked and timed at a large size against its bound.
fn on_gpu(exercise: &Exercise) -> Result<(), Failure> {
    let gpu = match super::open_gpu()? {
        Ok(gpu) => gpu,
        Err(e) => return outln!("\n(no GPU run: {e})"),
    };
    outln!("\nOn {}: compiling the exercises to PTX …", gpu.info.name)?;
    let ptx = gpu::ptx()?;
    let module = Exercises::load(&gpu, &ptx)?;
    let mut cases = (exercise.cases)();
    let large = (exercise.large)();
    cases.push(large.clone());
    if let Some(wrong) = module.check(exercise.entry, exercise.kernel, &cases)? {
        return Err(Failure::Runtime(ptx_ladder::Error::new(format!("on the GPU, {wrong}"))));
    }
    let speed = module.time(exercise.entry, exercise.kernel, &large, exercise.bound)?;
    outln!("checked on the GPU at every size; {}: {}", large.label, speed.describe())
}

/// `--ptx PATH`: the exercises' PTX, compiled now.
fn write_ptx(path: &std::path::Path) -> Result<(), Failure> {
    check_writable("--ptx", path)?;
    let ptx = gpu::fresh_ptx()?;
    let mut files = Files::default();
    files.write(path, &ptx)?;
    files.finish()
}
