//! `ptx-ladder pitfalls`: bugs a GPU does not report, found on the CPU. Each
//! broken example and its fix run on the emulator with its checkers on;
//! the lab says what the checker found, what a GPU would have done
//! instead, and what the fix changes. No GPU is needed.

use crate::emulator::{AlignedBuffer, Checks, Report, launch_checked};
use crate::error::{Error, Result};
use crate::inputs::uniform;
use kernels_gpu::labs::pitfalls::{self as k, THREADS};
use kernels_gpu::launch::Dim3;
use kernels_gpu::launch::LaunchShape;
use std::fmt;

/// Reads of the flag after which block 0 of the busy-wait example gives up.
const MAX_SPINS: u32 = 1_000_000;

/// What the lab runs on.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Elements of the examples' arrays: not a multiple of the block size,
    /// so the last block is only partly inside the data.
    pub n: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options { n: 300 }
    }
}

/// `n` must leave a partial last block (the early-return and missing-mask
/// examples only go wrong there) and stay small (one OS thread per GPU
/// thread).
pub fn validate(n: u32) -> Result<()> {
    if !(THREADS + 1..(1 << 16)).contains(&n) || n.is_multiple_of(THREADS) {
        return Err(Error::new(format!(
            "--n must be between {} and 65535 and not a multiple of {THREADS} (the block size), so the last block is partly past the data (got {n})",
            THREADS + 1
        )));
    }
    Ok(())
}

/// The kind of bug an example is about: which checker must catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    Barrier,
    Race,
    OutOfBounds,
    /// Blocks waiting on each other: no checker, a bounded spin that gives up.
    InterBlockWait,
}

/// One run on the emulator: the checkers' report, and whether the result
/// matched the CPU's (the numbers say how).
#[derive(Clone, Debug)]
pub struct Run {
    pub kernel: &'static str,
    pub report: Report,
    pub correct: bool,
    pub result: String,
}

/// A broken example beside its fix.
#[derive(Clone, Debug)]
pub struct Case {
    pub title: &'static str,
    pub bug: Bug,
    pub broken: Run,
    pub fixed: Run,
    /// What a GPU does with the broken kernel.
    pub on_a_gpu: &'static str,
    /// What the fix changes.
    pub fix: &'static str,
}

impl Case {
    /// The broken example was caught by the checker its bug belongs to.
    pub fn caught(&self) -> bool {
        let r = &self.broken.report;
        match self.bug {
            Bug::Barrier => r.barrier_mismatches().next().is_some(),
            Bug::Race => r.races().next().is_some(),
            Bug::OutOfBounds => r.out_of_bounds().next().is_some(),
            Bug::InterBlockWait => !self.broken.correct,
        }
    }

    /// The fix ran without findings and computed the right result.
    pub fn fix_is_clean(&self) -> bool {
        self.fixed.report.is_clean() && self.fixed.correct
    }
}

fn shape(blocks: u32, shared_bytes: u32) -> LaunchShape {
    LaunchShape { grid: Dim3::new(blocks, 1, 1), block: Dim3::new(THREADS, 1, 1), shared_bytes }
}

type ArrayKernel = unsafe fn(*const f32, *mut f32, u32);

/// Runs a one-input, one-output kernel over `src` with one block per
/// `THREADS` elements and a tile of shared memory, `outputs` floats out.
fn run_array(name: &'static str, kernel: ArrayKernel, src: &[f32], outputs: usize) -> Result<(Report, Vec<f32>)> {
    let n = src.len() as u32;
    let input = AlignedBuffer::from_slice(src);
    let mut output = AlignedBuffer::from_slice(&vec![f32::NAN; outputs]);
    let checks = Checks::new(name).buffer("src", input.as_ptr(), src.len()).buffer("dst", output.as_ptr(), outputs);
    let (s, d) = (input.as_ptr() as usize, output.as_mut_ptr() as usize);
    let report = unsafe { launch_checked(shape(n.div_ceil(THREADS), THREADS * 4), &checks, || kernel(s as *const f32, d as *mut f32, n)) };
    Ok((report.map_err(Error::new)?, output.as_slice().to_vec()))
}

/// "all 3 right" or "2 of 3 wrong (first: index 1, 0.25 instead of 1.5)".
fn compare(got: &[f32], expected: &[f64]) -> (bool, String) {
    // A NaN compares false, so it counts as wrong.
    let right = |i: usize| (got[i] as f64 - expected[i]).abs() <= 1e-4 * expected[i].abs().max(1.0);
    let wrong: Vec<usize> = (0..expected.len()).filter(|&i| !right(i)).collect();
    match wrong.first() {
        None => (true, format!("all {} values right", expected.len())),
        Some(&i) => (
            false,
            format!("{} of {} values wrong (first: index {i}, {} instead of {:.6})", wrong.len(), expected.len(), got[i], expected[i]),
        ),
    }
}

fn tree(name: &'static str, kernel: ArrayKernel, src: &[f32]) -> Result<Run> {
    let blocks = src.len().div_ceil(THREADS as usize);
    let (report, got) = run_array(name, kernel, src, blocks)?;
    let expected: Vec<f64> = src.chunks(THREADS as usize).map(|c| c.iter().map(|&x| x as f64).sum()).collect();
    let (correct, result) = compare(&got, &expected);
    Ok(Run { kernel: name, report, correct, result: format!("block sums: {result}") })
}

fn reverse(name: &'static str, kernel: ArrayKernel, src: &[f32]) -> Result<Run> {
    let (report, got) = run_array(name, kernel, src, src.len())?;
    let t = THREADS as usize;
    let expected: Vec<f64> = (0..src.len()).map(|i| src.get(i / t * t + t - 1 - i % t).map_or(0.0, |&x| x as f64)).collect();
    let (correct, result) = compare(&got, &expected);
    Ok(Run { kernel: name, report, correct, result: format!("reversed tiles: {result}") })
}

fn add(name: &'static str, kernel: unsafe fn(*const f32, *const f32, *mut f32, u32), n: u32) -> Result<Run> {
    let (x, y) = (uniform(n as usize, 1), uniform(n as usize, 2));
    // Two blocks of slack after each array: an access past one array then
    // lands in undeclared memory, never in the next array (where an
    // address check could not tell it from a legal access), and nearer
    // the end of its own array than the start of whatever the allocator
    // put next (the last block overruns by less than one block).
    let with_slack = |values: &[f32]| AlignedBuffer::from_slice(&[values, &[f32::NAN; 2 * THREADS as usize]].concat());
    let (a, b) = (with_slack(&x), with_slack(&y));
    let mut c = with_slack(&vec![f32::NAN; n as usize]);
    let len = n as usize;
    let checks = Checks::new(name).buffer("a", a.as_ptr(), len).buffer("b", b.as_ptr(), len).buffer("c", c.as_ptr(), len);
    let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, c.as_mut_ptr() as usize);
    let report =
        unsafe { launch_checked(shape(n.div_ceil(THREADS), 0), &checks, || kernel(pa as *const f32, pb as *const f32, pc as *mut f32, n)) };
    let expected: Vec<f64> = x.iter().zip(&y).map(|(&p, &q)| (p + q) as f64).collect();
    let (correct, result) = compare(&c.as_slice()[..len], &expected);
    let threads = n.div_ceil(THREADS) * THREADS;
    Ok(Run {
        kernel: name,
        report: report.map_err(Error::new)?,
        correct,
        result: format!("{threads} threads for {n} elements; c: {result}"),
    })
}

/// Block 0 spins on a flag block 1 sets; the emulator runs block 0 first.
fn busy_wait() -> Result<Run> {
    let (mut flag, mut out) = ([0u32], [u32::MAX; 2]);
    let (f, o) = (flag.as_mut_ptr() as usize, out.as_mut_ptr() as usize);
    let checks = Checks::new(k::WAIT_FOR_NEXT_BLOCK).buffer("flag", f as *const u32, 1).buffer("out", o as *const u32, 2);
    let report =
        unsafe { launch_checked(shape(2, 0), &checks, || k::pitfall_wait_for_next_block(f as *mut u32, o as *mut u32, MAX_SPINS)) };
    let correct = out[0] == 1;
    let result = if correct {
        format!("block 0 saw the flag after {} reads", out[1])
    } else {
        format!(
            "block 0 read the flag {} times and never saw it set: block 1 had not started (the emulator runs block 0, then block 1)",
            out[1]
        )
    };
    Ok(Run { kernel: k::WAIT_FOR_NEXT_BLOCK, report: report.map_err(Error::new)?, correct, result })
}

const TWO_LAUNCHES: &str = "pitfall_set_flag, then pitfall_read_flag";

/// The same hand-over as two launches: the first sets the flag, the second reads it.
fn two_launches() -> Result<Run> {
    let (mut flag, mut out) = ([0u32], [u32::MAX]);
    let (f, o) = (flag.as_mut_ptr() as usize, out.as_mut_ptr() as usize);
    let mut report = Report::new("");
    for (name, step) in [(k::SET_FLAG, 0), (k::READ_FLAG, 1)] {
        let checks = Checks::new(name).buffer("flag", f as *const u32, 1).buffer("out", o as *const u32, 1);
        let r = unsafe {
            launch_checked(shape(2, 0), &checks, || {
                if step == 0 { k::pitfall_set_flag(f as *mut u32) } else { k::pitfall_read_flag(f as *const u32, o as *mut u32) }
            })
        }
        .map_err(Error::new)?;
        if !r.is_clean() {
            report = r;
        }
    }
    report.kernel = TWO_LAUNCHES.to_string();
    let correct = out[0] == 1;
    let result = format!("the second launch read flag = {}", out[0]);
    Ok(Run { kernel: TWO_LAUNCHES, report, correct, result })
}

/// Runs every broken example and its fix on the emulator.
pub fn run(options: &Options) -> Result<Vec<Case>> {
    validate(options.n)?;
    let src = uniform(options.n as usize, 7);
    let fixed_tree = tree(k::TREE_SUM, k::pitfall_tree_sum, &src)?;
    let fixed_reverse = reverse(k::REVERSE, k::pitfall_reverse, &src)?;
    Ok(vec![
        Case {
            title: "A barrier inside a divergent branch",
            bug: Bug::Barrier,
            broken: tree(k::TREE_BARRIER_IN_BRANCH, k::pitfall_tree_barrier_in_branch, &src)?,
            fixed: fixed_tree.clone(),
            on_a_gpu: "A tree sum puts sync_threads() inside `if t < active`. Only the threads that take the branch arrive; the others skip it and return. The hardware counts arrivals: the block may wait forever, or (on GPUs that count exited threads as arrived) move on before the partial sums are written, giving a wrong sum with no error.",
            fix: "Move the barrier out of the `if`, so every thread of the block reaches it at every step, whether or not it adds.",
        },
        Case {
            title: "An early return before a barrier",
            bug: Bug::Barrier,
            broken: reverse(k::REVERSE_EARLY_RETURN, k::pitfall_reverse_early_return, &src)?,
            fixed: fixed_reverse.clone(),
            on_a_gpu: "Each block reverses its tile through shared memory, and threads past the end of the data `return` first. In the last block they never reach the barrier the others wait at: a hang, or a run that goes on with tile slots nobody wrote.",
            fix: "Do not return: threads past the end store a zero into the tile, meet the others at the barrier, and only the final write is masked with `if i < n`.",
        },
        Case {
            title: "A reduction step without its barrier",
            bug: Bug::Race,
            broken: tree(k::TREE_MISSING_BARRIER, k::pitfall_tree_missing_barrier, &src)?,
            fixed: fixed_tree,
            on_a_gpu: "Without a barrier between the steps of the tree, thread t reads partial[t + active] whether or not its owner has added into it yet. The GPU reports nothing; the sum is right or wrong depending on which warp the scheduler ran first, and may change from run to run.",
            fix: "One sync_threads() after every step (outside the `if`): a step reads only what the previous step finished writing.",
        },
        Case {
            title: "A tile read before everyone stored",
            bug: Bug::Race,
            broken: reverse(k::REVERSE_MISSING_BARRIER, k::pitfall_reverse_missing_barrier, &src)?,
            fixed: fixed_reverse,
            on_a_gpu: "Each thread stores its element into the tile and at once reads its partner's. The partner belongs to another warp, which may not have stored yet: the thread reads stale shared memory, silently.",
            fix: "A sync_threads() between the stores and the reads: nobody reads the tile before everybody has written it.",
        },
        Case {
            title: "A missing round-up-and-mask check",
            bug: Bug::OutOfBounds,
            broken: add(k::ADD_UNMASKED, k::pitfall_add_unmasked, options.n)?,
            fixed: add(k::ADD_MASKED, k::pitfall_add_masked, options.n)?,
            on_a_gpu: "The grid is rounded up to whole blocks, so the last block has threads past the end of the arrays. Without `if i < n` they read whatever lies after `a` and `b` and write after `c`: usually no error at all, sometimes a corrupted neighbouring buffer, at worst an illegal-address fault much later.",
            fix: "Round the grid up, and mask: `if i < n { c[i] = a[i] + b[i] }`.",
        },
        Case {
            title: "One block waiting for another",
            bug: Bug::InterBlockWait,
            broken: busy_wait()?,
            fixed: two_launches()?,
            on_a_gpu: "Block 0 spins until block 1 sets a flag. A GPU promises neither that all blocks of a grid are resident at once nor any order among them: if block 0 holds the SM (or the GPU is full of spinning blocks) block 1 never starts, and the spin never ends. The emulator shows the same thing deterministically: it runs blocks one after another, so block 1 starts only after block 0 has finished. This kernel is never launched on a GPU.",
            fix: "Blocks do not wait for each other inside a launch. Split the work at the dependency: one launch sets the flag, the next reads it; launches on one stream run in order, each to its end.",
        },
    ])
}

fn describe(f: &mut fmt::Formatter<'_>, label: &str, run: &Run) -> fmt::Result {
    writeln!(f, "  {label} {}: {}", run.kernel, run.result)?;
    if run.report.is_clean() {
        return writeln!(f, "    checkers: nothing found");
    }
    for finding in &run.report.findings {
        writeln!(f, "    - {finding}")?;
    }
    if run.report.unlisted > 0 {
        writeln!(f, "    - and {} more of the same kinds", run.report.unlisted)?;
    }
    Ok(())
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.title)?;
        describe(f, "broken", &self.broken)?;
        writeln!(f, "  on a GPU: {}", self.on_a_gpu)?;
        writeln!(f, "  the fix: {}", self.fix)?;
        describe(f, "fixed ", &self.fixed)?;
        let verdict = match (self.caught(), self.fix_is_clean()) {
            (true, true) => "caught; the fix is clean",
            (false, _) => "NOT caught by the emulator",
            (true, false) => "caught, but the fix is not clean",
        };
        writeln!(f, "  => {verdict}")
    }
}

/// Ok when every broken example was caught and every fix was clean.
pub fn verdict(cases: &[Case]) -> Result<()> {
    let failed: Vec<&str> = cases.iter().filter(|c| !(c.caught() && c.fix_is_clean())).map(|c| c.title).collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Error::new(format!("{} of {} pitfalls not shown as expected: {}", failed.len(), cases.len(), failed.join("; "))))
    }
}
