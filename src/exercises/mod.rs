//! The engine behind `ptx-ladder exercise`: runs a learner's kernel on the
//! CPU emulator at several sizes, compares every element with a CPU
//! reference, and turns what the emulator saw into feedback a learner can
//! act on (which element is wrong and which thread wrote it, which threads
//! raced or missed a barrier, which access left its buffer, which accesses
//! were uncoalesced or conflicted on a bank).
//!
//! The exercises themselves (kernels, sizes, references, hints) are the
//! `exercises` crate: it depends on this engine, never the other way round,
//! so editing an exercise rebuilds only that small crate and the CLI.

pub mod gpu;
mod patterns;
pub mod picture;

use crate::emulator::{self, AlignedBuffer, Checks, Logged, Report};
use kernels_gpu::launch::{Dim3, LaunchShape};
use std::collections::HashMap;
use std::fmt;

/// The panic message of a kernel whose body still calls the exercise
/// crate's `unwritten()` marker: the exercise is not started.
pub const UNWRITTEN: &str = "exercise not written yet";

/// Floats of slack after every buffer: an access just past one buffer lands
/// in memory no buffer declares (so the bounds checker sees it), never in
/// the next buffer.
const SLACK: usize = 256;

/// Wrong elements listed in full; the rest are counted.
const LISTED: usize = 3;

/// A kernel of one of the exercises' signatures (pointers first, then
/// sizes), as the host twin `#[kernel]` generates.
#[derive(Clone, Copy, Debug)]
pub enum Kernel {
    /// `(x, out, n)`
    Array(unsafe fn(*const f32, *mut f32, u32)),
    /// `(a, b, out, n)`
    TwoArrays(unsafe fn(*const f32, *const f32, *mut f32, u32)),
    /// `(a, b, out, rows, cols)`
    Matrix(unsafe fn(*const f32, *const f32, *mut f32, u32, u32)),
    /// `(src, dst, rows, cols)`
    Transpose(unsafe fn(*const f32, *mut f32, u32, u32)),
    /// `(data, counts, n)`
    Counts(unsafe fn(*const u32, *mut u32, u32)),
    /// `(a, b, c, m, n, k)`
    Matmul(unsafe fn(*const f32, *const f32, *mut f32, u32, u32, u32)),
}

impl Kernel {
    /// Calls the kernel for one emulated thread. `inputs` are the input
    /// buffers' addresses in order, `dims` the sizes its signature takes.
    ///
    /// # Safety
    /// The buffers must be as large as the case declares.
    unsafe fn call(self, inputs: &[usize], out: usize, dims: [u32; 3]) {
        let input = |i: usize| inputs.get(i).copied().unwrap_or(0) as *const f32;
        let [d0, d1, d2] = dims;
        unsafe {
            match self {
                Kernel::Array(f) => f(input(0), out as *mut f32, d0),
                Kernel::TwoArrays(f) => f(input(0), input(1), out as *mut f32, d0),
                Kernel::Matrix(f) => f(input(0), input(1), out as *mut f32, d0, d1),
                Kernel::Transpose(f) => f(input(0), out as *mut f32, d0, d1),
                Kernel::Counts(f) => f(input(0) as *const u32, out as *mut u32, d0),
                Kernel::Matmul(f) => f(input(0), input(1), out as *mut f32, d0, d1, d2),
            }
        }
    }
}

/// One input buffer of a case, as raw 32-bit words (floats, or `u32`s).
#[derive(Clone, Debug)]
pub struct Input {
    pub name: &'static str,
    pub words: Vec<u32>,
}

impl Input {
    pub fn floats(name: &'static str, values: &[f32]) -> Input {
        Input { name, words: values.iter().map(|v| v.to_bits()).collect() }
    }
}

/// What the output must hold.
#[derive(Clone, Debug)]
pub enum Expected {
    /// Floats, each within `tolerance` (relative, and absolute below 1).
    Floats { values: Vec<f64>, tolerance: f64 },
    /// Whole numbers (`u32`), exactly.
    Counts(Vec<u32>),
}

impl Expected {
    fn len(&self) -> usize {
        match self {
            Expected::Floats { values, .. } => values.len(),
            Expected::Counts(values) => values.len(),
        }
    }
}

/// One launch of an exercise: the shape, the inputs, the output and what
/// it must hold.
#[derive(Clone, Debug)]
pub struct Case {
    /// What this size tests, e.g. "n = 1000: 4 blocks, the last one partly past the end".
    pub label: String,
    pub shape: LaunchShape,
    /// The sizes passed to the kernel (see [`Kernel`]).
    pub dims: [u32; 3],
    pub inputs: Vec<Input>,
    pub output: &'static str,
    pub expected: Expected,
    /// The output's first words before the launch: poison (a NaN that
    /// says "never written") for floats, 0 for counters and sums that
    /// the kernel adds into.
    pub zeroed: bool,
    /// The output is a matrix with this many columns: elements are named
    /// `[row][col]` in the feedback.
    pub columns: Option<u32>,
}

/// The memory-access patterns an exercise is about, checked on the
/// emulator's access log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Patterns {
    /// Every global access of a warp touches about as few 32-byte sectors
    /// as its bytes need.
    pub coalesced: bool,
    /// No shared-memory access of a warp has a bank conflict of 4 ways or more.
    pub conflict_free: bool,
}

/// What a run on a GPU is timed against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Memory-bound: timed against a device-to-device copy of as many bytes
    /// as the kernel must read and write.
    Copy,
    /// Compute-bound (the matmuls): reported in GFLOP/s, no bound.
    Flops,
}

/// A deliberately wrong kernel and the checker that must catch it.
#[derive(Clone, Copy, Debug)]
pub struct Wrong {
    pub name: &'static str,
    pub kernel: Kernel,
    /// The mistake, in a few words.
    pub mistake: &'static str,
    pub caught_as: Problem,
}

/// One exercise: the task (its file's doc comment), the learner's kernel,
/// the reference solution, the wrong variants the tests run, and the cases.
#[derive(Clone, Debug)]
pub struct Exercise {
    pub number: u32,
    pub title: &'static str,
    pub concept: &'static str,
    /// The lab that measures the concept, as a command.
    pub lab: &'static str,
    /// The file the learner edits, from the repository root.
    pub file: &'static str,
    /// That file's text as compiled.
    pub source: &'static str,
    /// The reference solution's file text.
    pub solution: &'static str,
    pub hints: &'static [&'static str],
    pub kernel: Kernel,
    pub reference: Kernel,
    /// The PTX entry names of the two (in the exercises' PTX).
    pub entry: &'static str,
    pub reference_entry: &'static str,
    pub wrong: Vec<Wrong>,
    /// The sizes checked, smallest first.
    pub cases: fn() -> Vec<Case>,
    /// One large size, checked and timed on a GPU.
    pub large: fn() -> Case,
    pub patterns: Patterns,
    pub bound: Bound,
}

impl Exercise {
    /// The task: the learner file's leading `//!` doc comment.
    pub fn task(&self) -> String {
        self.source
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.trim_start_matches("//!").strip_prefix(' ').unwrap_or(l.trim_start_matches("//!")))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Why a check failed, by the checker that saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The kernel panicked (a misaligned vector access, a trap).
    Crash,
    Barrier,
    Race,
    OutOfBounds,
    WrongValues,
    Uncoalesced,
    BankConflicts,
    /// The output changed but the emulator saw no store: the kernel wrote
    /// through a plain `*ptr`, which the checkers cannot follow.
    Unseen,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Problem::Crash => "the kernel stopped",
            Problem::Barrier => "a barrier not every thread reaches",
            Problem::Race => "a shared-memory race",
            Problem::OutOfBounds => "an access outside its buffer",
            Problem::WrongValues => "wrong values",
            Problem::Uncoalesced => "uncoalesced global accesses",
            Problem::BankConflicts => "shared-memory bank conflicts",
            Problem::Unseen => "stores the checkers cannot see",
        })
    }
}

/// The outcome of checking one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The body still calls `unwritten()`.
    NotStarted,
    /// Every case right, every checker silent: one line per case.
    Passed(Vec<String>),
    Failed {
        case: String,
        problem: Problem,
        details: String,
    },
}

impl Verdict {
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Passed(_))
    }

    /// "passes", "fails" or "not started".
    pub fn status(&self) -> &'static str {
        match self {
            Verdict::NotStarted => "not started",
            Verdict::Passed(_) => "passes",
            Verdict::Failed { .. } => "fails",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::NotStarted => f.write_str("not started: the body still calls unwritten(); replace it with your kernel"),
            Verdict::Passed(cases) => {
                f.write_str("PASSED: every element right, and the race, barrier and bounds checkers found nothing")?;
                for case in cases {
                    write!(f, "\n  ✓ {case}")?;
                }
                Ok(())
            }
            Verdict::Failed { case, problem, details } => write!(f, "FAILED at {case}: {problem}\n{details}"),
        }
    }
}

/// Runs `kernel` on every case of `exercise`; stops at the first failure.
pub fn check(exercise: &Exercise, kernel: Kernel) -> Verdict {
    let mut passed = Vec::new();
    for case in (exercise.cases)() {
        match check_case(exercise, kernel, &case) {
            Ok(summary) => passed.push(summary),
            Err(verdict) => return verdict,
        }
    }
    Verdict::Passed(passed)
}

/// A case's buffers, allocated with slack and declared to the checkers.
pub struct Launch {
    inputs: Vec<AlignedBuffer>,
    output: AlignedBuffer,
    len: usize,
}

impl Launch {
    pub fn new(case: &Case) -> Launch {
        let with_slack = |words: &[u32]| {
            let floats: Vec<f32> = words.iter().map(|&w| f32::from_bits(w)).chain(std::iter::repeat_n(f32::NAN, SLACK)).collect();
            AlignedBuffer::from_slice(&floats)
        };
        let len = case.expected.len();
        let init = if case.zeroed { 0 } else { crate::device::POISON_BITS };
        Launch { inputs: case.inputs.iter().map(|i| with_slack(&i.words)).collect(), output: with_slack(&vec![init; len]), len }
    }

    /// The output's words after the launch.
    pub fn output(&self) -> Vec<u32> {
        self.output.as_slice()[..self.len].iter().map(|v| v.to_bits()).collect()
    }

    /// Runs `kernel` over the case on the emulator, logging every access.
    pub fn run(&mut self, case: &Case, kernel: Kernel, name: &str) -> Result<(Report, Vec<Logged>), String> {
        let mut checks = Checks::new(name);
        for (input, buffer) in case.inputs.iter().zip(&self.inputs) {
            checks = checks.buffer(input.name, buffer.as_ptr(), input.words.len());
        }
        checks = checks.buffer(case.output, self.output.as_ptr(), self.len);
        let inputs: Vec<usize> = self.inputs.iter().map(|b| b.as_ptr() as usize).collect();
        let out = self.output.as_mut_ptr() as usize;
        let dims = case.dims;
        unsafe { emulator::launch_logged(case.shape, &checks, || kernel.call(&inputs, out, dims)) }
    }

    fn output_address(&self) -> usize {
        self.output.as_ptr() as usize
    }
}

fn check_case(exercise: &Exercise, kernel: Kernel, case: &Case) -> Result<String, Verdict> {
    let mut launch = Launch::new(case);
    let fail = |problem, details: String| Verdict::Failed { case: case.label.clone(), problem, details };
    let (report, log) = match launch.run(case, kernel, &format!("exercise {}", exercise.number)) {
        Ok(ran) => ran,
        Err(message) if message == UNWRITTEN => return Err(Verdict::NotStarted),
        Err(message) => return Err(fail(Problem::Crash, format!("  the kernel stopped: {message}"))),
    };
    if let Some(problem) = first_problem(&report) {
        return Err(fail(problem, findings_text(&report, problem)));
    }
    let got = launch.output();
    let wrong = wrong_elements(&case.expected, &got);
    if !wrong.is_empty() {
        return Err(fail(Problem::WrongValues, wrong_text(case, &got, &wrong, &log, launch.output_address())));
    }
    if !log.iter().any(|e| !e.shared && e.kind != emulator::AccessKind::Read) {
        let details = "  the output is right, but no store went through gpu::store or an atomic: write with unsafe { gpu::store(ptr, value) } (and read with gpu::load) instead of *ptr, so the race, bounds and coalescing checks see every access";
        return Err(fail(Problem::Unseen, details.to_string()));
    }
    if exercise.patterns.coalesced
        && let Some(text) = patterns::uncoalesced(&log, case.shape.block)
    {
        return Err(fail(Problem::Uncoalesced, text));
    }
    if exercise.patterns.conflict_free
        && let Some(text) = patterns::bank_conflicts(&log)
    {
        return Err(fail(Problem::BankConflicts, text));
    }
    Ok(format!("{}: all {} values right, no findings", case.label, got.len()))
}

/// The kind of the report's first finding.
fn first_problem(report: &Report) -> Option<Problem> {
    report.findings.first().map(|f| match f {
        emulator::Finding::Barrier(_) => Problem::Barrier,
        emulator::Finding::Race(_) => Problem::Race,
        emulator::Finding::OutOfBounds(_) => Problem::OutOfBounds,
    })
}

/// The findings, one per line, with what each means for the learner.
fn findings_text(report: &Report, problem: Problem) -> String {
    let advice = match problem {
        Problem::Barrier => {
            "Every thread of the block must reach the same sync_threads(), and every lane of a warp each shuffle: keep them out of branches that only some threads take, and do not return before them."
        }
        Problem::Race => {
            "Two threads touched the same shared word with no barrier between: put a sync_threads() between the write and the read (and between the last read and the next overwrite)."
        }
        _ => {
            "Guard every access with the size (`if i < n`): the grid is rounded up to whole blocks, so the last block has threads past the end."
        }
    };
    let mut text: Vec<String> = report.findings.iter().map(|f| format!("  - {f}")).collect();
    if report.unlisted > 0 {
        text.push(format!("  - and {} more of the same kinds", report.unlisted));
    }
    text.push(format!("  {advice}"));
    text.join("\n")
}

/// Indices of the elements that differ from the expected ones.
fn wrong_elements(expected: &Expected, got: &[u32]) -> Vec<usize> {
    match expected {
        Expected::Floats { values, tolerance } => (0..values.len())
            .filter(|&i| {
                let g = f32::from_bits(got[i]) as f64;
                let close = (g - values[i]).abs() <= tolerance * values[i].abs().max(1.0);
                // A NaN is never close: it counts as wrong.
                !close
            })
            .collect(),
        Expected::Counts(values) => (0..values.len()).filter(|&i| got[i] != values[i]).collect(),
    }
}

/// "out[257]" or "out[2][1]".
fn element(case: &Case, i: usize) -> String {
    match case.columns {
        Some(c) => format!("{}[{}][{}]", case.output, i / c as usize, i % c as usize),
        None => format!("{}[{i}]", case.output),
    }
}

/// The expected and the actual value of element `i`, in words. `written`:
/// some thread stored to it.
fn value_text(expected: &Expected, words: u32, i: usize, written: bool) -> (String, String) {
    const POISON: u32 = crate::device::POISON_BITS;
    let got = match expected {
        Expected::Floats { .. } if words == POISON && !written => "nothing (never written)".to_string(),
        Expected::Floats { .. } if words == POISON => {
            "NaN computed from memory nobody wrote (the emulator fills shared memory with this NaN)".to_string()
        }
        Expected::Floats { .. } => format!("{}", f32::from_bits(words)),
        Expected::Counts(_) if words.wrapping_sub(POISON) < 1 << 20 => format!(
            "{words} = {POISON:#x} + {}: {POISON:#x} is what the emulator fills shared memory with, so a counter was never set to 0",
            words - POISON
        ),
        Expected::Counts(_) => words.to_string(),
    };
    let expected = match expected {
        Expected::Floats { values, .. } => format!("{}", values[i] as f32),
        Expected::Counts(values) => values[i].to_string(),
    };
    (expected, got)
}

/// The first wrong elements, each with the thread that last wrote it.
fn wrong_text(case: &Case, got: &[u32], wrong: &[usize], log: &[Logged], out: usize) -> String {
    let mut writers: HashMap<usize, &Logged> = HashMap::new();
    for entry in log.iter().filter(|e| !e.shared && e.kind != emulator::AccessKind::Read) {
        for word in 0..(entry.bytes / 4) as usize {
            writers.insert(entry.address + 4 * word, entry);
        }
    }
    let mut lines = vec![format!("  {} of {} elements wrong:", wrong.len(), got.len())];
    for &i in wrong.iter().take(LISTED) {
        let writer = writers.get(&(out + 4 * i));
        let (expected, value) = value_text(&case.expected, got[i], i, writer.is_some());
        let writer = match writer {
            Some(w) => format!(", written by thread {} of block {} at {}", w.thread, block(w.block), w.site),
            None => String::new(),
        };
        lines.push(format!("  - {}: expected {expected}, got {value}{writer}", element(case, i)));
    }
    if wrong.len() > LISTED {
        lines.push(format!("  - and {} more", wrong.len() - LISTED));
    }
    lines.join("\n")
}

fn block(b: Dim3) -> String {
    format!("({}, {}, {})", b.x, b.y, b.z)
}

/// A case's launch shape in words: "4 blocks of 128 threads" or
/// "3×2 blocks of 16×16 threads".
pub fn shape_text(shape: LaunchShape) -> String {
    let dims = |d: Dim3| if d.y == 1 && d.z == 1 { d.x.to_string() } else { format!("{}×{}", d.x, d.y) };
    let blocks = if shape.grid.volume() == 1 { "1 block".to_string() } else { format!("{} blocks", dims(shape.grid)) };
    format!("{blocks} of {} threads", dims(shape.block))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_read_as_words() {
        assert_eq!(shape_text(LaunchShape::linear(4, 128, 0)), "4 blocks of 128 threads");
        let square = LaunchShape { grid: Dim3::new(3, 2, 1), block: Dim3::new(16, 16, 1), shared_bytes: 0 };
        assert_eq!(shape_text(square), "3×2 blocks of 16×16 threads");
    }

    #[test]
    fn floats_compare_within_tolerance_and_nan_is_wrong() {
        let expected = Expected::Floats { values: vec![1.0, 2.0, 3.0], tolerance: 1e-5 };
        let got = [1.0f32.to_bits(), 2.5f32.to_bits(), f32::NAN.to_bits()];
        assert_eq!(wrong_elements(&expected, &got), vec![1, 2]);
        assert_eq!(wrong_elements(&Expected::Counts(vec![3, 4]), &[3, 5]), vec![1]);
    }
}
