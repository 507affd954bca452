//! `ptx-ladder`: the command line of the project (package `host`).
//!
//! Every failure ends as one line on stderr and an exit code from
//! [`cli::EXIT_CODES`]. Nothing panics on bad input, on a closed or full
//! standard output, or on arguments that are not UTF-8.

mod cli;
mod commands;
mod output;
mod progress;

use clap::FromArgMatches as _;
use cli::{Cli, Command};
use std::ffi::OsString;
use std::process::ExitCode;

/// How a command failed.
#[derive(Debug)]
pub enum Failure {
    /// A usage mistake found after parsing (exit 2).
    Usage(String),
    /// A CUDA error, a wrong result, a file not written (exit 1), or no
    /// GPU at all (exit 3).
    Runtime(ptx_ladder::Error),
    /// Standard output was closed by its reader: stop quietly (exit 0).
    Closed,
}

impl From<ptx_ladder::Error> for Failure {
    fn from(e: ptx_ladder::Error) -> Self {
        Failure::Runtime(e)
    }
}

fn main() -> ExitCode {
    let parsed = cli::command()
        .try_get_matches_from(help_of_help(std::env::args_os().collect()))
        .and_then(|m| Cli::from_arg_matches(&m))
        .and_then(Cli::checked);
    let cli = match parsed {
        Ok(cli) => cli,
        // Help, --version and usage errors: clap prints them (help to stdout,
        // errors to stderr) and knows the exit code (0 or 2).
        Err(e) => {
            let code = e.exit_code();
            return match e.print().map_err(output::stdout_failure) {
                Ok(()) | Err(Failure::Closed) => ExitCode::from(code as u8),
                Err(failure) => report(failure),
            };
        }
    };
    match run(cli.command).and_then(|()| output::flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => report(failure),
    }
}

/// `help --help` and `help -h` as `help help`: clap's help command takes
/// no flags, but asking it for its own help is no usage mistake.
fn help_of_help(mut args: Vec<OsString>) -> Vec<OsString> {
    if args.len() == 3 && args[1] == "help" && (args[2] == "--help" || args[2] == "-h") {
        args[2] = "help".into();
    }
    args
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Info(args) => commands::info::run(args),
        Command::Vecadd(args) => commands::vecadd::run(args),
        Command::Matmul(args) => commands::matmul::run(args),
        Command::Sweep(args) => commands::sweep::run(args),
        Command::Shapes(args) => commands::shapes::run(args),
        Command::Warps(args) => commands::labs::warps_command(args),
        Command::Coalesce(args) => commands::labs::coalesce_command(args),
        Command::Banks(args) => commands::labs::banks_command(args),
        Command::Divergence(args) => commands::labs::divergence_command(args),
        Command::Reduce(args) => commands::labs::reduce_command(args),
        Command::Memory(args) => commands::memory::memory_command(args),
        Command::Occupancy(args) => commands::labs::occupancy_command(args),
        Command::Pitfalls(args) => commands::pitfalls::run(args),
        Command::Tour => commands::labs::tour_command(),
        Command::Exercise(args) => commands::exercise::run(args),
    }
}

/// Prints the failure as one line and returns its exit code.
fn report(failure: Failure) -> ExitCode {
    let _ = output::flush();
    match failure {
        Failure::Closed => ExitCode::SUCCESS,
        Failure::Usage(e) => {
            output::warn(&format!("error: {e}\n\nFor more information, try '--help'."));
            ExitCode::from(2)
        }
        Failure::Runtime(e) if e.is_no_gpu() => {
            output::warn(&format!("error: {e}"));
            ExitCode::from(3)
        }
        Failure::Runtime(e) => {
            output::warn(&format!("error: {e}"));
            ExitCode::from(1)
        }
    }
}
