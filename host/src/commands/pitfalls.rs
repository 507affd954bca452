//! `host pitfalls`: the texts' broken examples and their fixes, run on the
//! CPU emulator with its checkers on. Needs no GPU.

use crate::Failure;
use crate::args::{Flags, UsageError};
use ptx_ladder::labs::pitfalls::{self, Options};

pub fn run(mut flags: Flags) -> Result<(), Failure> {
    let n = flags
        .number("--n", 1, u32::MAX as u64)?
        .map_or(Options::default().n, |n| n as u32);
    flags.finish()?;
    pitfalls::validate(n).map_err(|e| UsageError(e.to_string()))?;
    lab(&Options { n })
}

/// Prints every case; fails unless each broken example was caught and each
/// fix was clean.
pub fn lab(options: &Options) -> Result<(), Failure> {
    let cases = pitfalls::run(options)?;
    for case in &cases {
        println!("{case}");
    }
    pitfalls::verdict(&cases)?;
    println!(
        "All {} broken examples were caught on the CPU, and every fix ran clean.",
        cases.len()
    );
    Ok(())
}
