//! `ptx-ladder pitfalls`: the texts' broken examples and their fixes, run on
//! the CPU emulator with its checkers on. Needs no GPU.

use crate::Failure;
use crate::cli::PitfallsArgs;
use crate::output::outln;
use ptx_ladder::labs::pitfalls::{self, Options};

pub fn run(args: PitfallsArgs) -> Result<(), Failure> {
    // --n was validated by its parser (cli::pitfalls_size).
    lab(&Options { n: args.n })
}

/// Prints every case; fails unless each broken example was caught and each
/// fix was clean.
pub fn lab(options: &Options) -> Result<(), Failure> {
    super::exercise::your_turn(&[4, 5, 7], "barriers in the right places")?;
    let cases = pitfalls::run(options)?;
    for case in &cases {
        outln!("{case}")?;
    }
    pitfalls::verdict(&cases)?;
    outln!("All {} broken examples were caught on the CPU, and every fix ran clean.", cases.len())
}
