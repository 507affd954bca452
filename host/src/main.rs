//! `host`: the ptx-ladder command line.
//!
//! Every failure ends as one line on stderr and a non-zero exit code:
//! 2 for a usage mistake, 1 for anything else (no GPU, a CUDA error, a wrong
//! result). Nothing panics on bad input.

mod args;
mod commands;

use args::{Flags, UsageError};
use std::process::ExitCode;

const USAGE: &str = "\
usage: host <command> [flags]

commands:
  info                           the GPU: SMs, warps, registers, shared memory, L2, clocks, peaks
  vecadd  [--n N] [--block B] [--reps R]
                                 c = a + b on N floats (default 2^28, block 256), checked on the
                                 CPU and timed against a device-to-device copy
  matmul  [--size N | --m M --n N --k K] [--rungs LIST] [--reps R] [--warmup W]
          [--json PATH] [--svg PATH] [--tune] [--tune-file PATH]
                                 the SGEMM ladder, every rung checked and timed against cuBLAS
                                 (default 4096x4096x4096, all rungs; LIST like 1,3-5,7b,10)

concept labs (model beside measurement; --svg PATH writes the picture):
  warps     [--block X,Y,Z]      which threads form each warp, checked on the GPU when there is one
  coalesce  [--strides LIST] [--mib M] [--matmul-size N]
                                 a warp reading floats at growing strides: 32-byte sectors per request
  banks     [--rounds R]         a 32x32 shared tile read by rows, columns, padded, swizzled, stride 2, broadcast
  divergence [--work W]          branches on i % 2, (i / 32) % 2 and the block index
  reduce    [--n N]              sum of n floats: global tree, shared tree, warp shuffles, atomics
  occupancy [--arch A] [--threads T] [--registers R] [--shared B] [--live] [--floats F]
                                 the occupancy calculator; --live checks it against the driver and
                                 measures a copy's bandwidth as occupancy drops
  pitfalls  [--n N]              bugs a GPU does not report (divergent barriers, races, missing masks,
                                 blocks waiting on each other), caught on the CPU emulator; no GPU needed
  tour                           all labs in teaching order, with short explanations
  help                           this text

numbers may be written 4096, 268_435_456, 1e8 or 2^28.";

/// How a command failed.
pub enum Failure {
    Usage(UsageError),
    Runtime(ptx_ladder::Error),
}

impl From<UsageError> for Failure {
    fn from(e: UsageError) -> Self {
        Failure::Usage(e)
    }
}

impl From<ptx_ladder::Error> for Failure {
    fn from(e: ptx_ladder::Error) -> Self {
        Failure::Runtime(e)
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = argv.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let outcome = Flags::parse(command, &argv[1..]).map_err(Failure::from).and_then(|flags| match command.as_str() {
        "info" => commands::info::run(flags),
        "vecadd" => commands::vecadd::run(flags),
        "matmul" => commands::matmul::run(flags),
        "coalesce" => commands::labs::coalesce_command(flags),
        "banks" => commands::labs::banks_command(flags),
        "divergence" => commands::labs::divergence_command(flags),
        "reduce" => commands::labs::reduce_command(flags),
        "occupancy" => commands::labs::occupancy_command(flags),
        "warps" => commands::labs::warps_command(flags),
        "pitfalls" => commands::pitfalls::run(flags),
        "tour" => commands::labs::tour_command(flags),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(Failure::Usage(UsageError(format!("unknown command '{other}'")))),
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            eprintln!("error: {e}\n(run `host help` for the commands and their flags)");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Progress lines for long runs, on stderr so stdout stays clean.
pub fn progress(message: &str) {
    eprintln!("  … {message}");
}
