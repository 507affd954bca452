//! Progress of long jobs on standard error: an `indicatif` bar for counted
//! sweeps (rungs, tile shapes, strides...) when standard error is a
//! terminal, plain lines otherwise, so logs stay readable.

use indicatif::{ProgressBar, ProgressStyle};
use ptx_ladder::progress::parse_step;
use std::io::IsTerminal as _;

/// Runs `job` with a progress reporter; the bar is gone before `job`'s
/// result is printed.
pub fn tracked<T>(job: impl FnOnce(&mut dyn FnMut(&str)) -> T) -> T {
    let mut progress = Progress { terminal: std::io::stderr().is_terminal(), bar: None };
    let result = job(&mut |message| progress.report(message));
    if let Some(bar) = progress.bar.take() {
        bar.finish_and_clear();
    }
    result
}

struct Progress {
    terminal: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    fn report(&mut self, message: &str) {
        if !self.terminal {
            crate::output::warn(&format!("  … {message}"));
            return;
        }
        match parse_step(message) {
            Some((done, total, what)) => {
                let bar = self.bar.get_or_insert_with(|| {
                    let bar = ProgressBar::new(total);
                    // The template is a constant known to be valid.
                    if let Ok(style) = ProgressStyle::with_template("  {bar:30} {pos}/{len} {elapsed:>4} {msg}") {
                        bar.set_style(style);
                    }
                    bar
                });
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(what.to_string());
            }
            // A message outside a sweep stays on screen above the bar.
            None => match &self.bar {
                Some(bar) => bar.println(format!("  … {message}")),
                None => crate::output::warn(&format!("  … {message}")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_ladder::progress::step;

    #[test]
    fn steps_move_one_bar_and_notes_leave_it_alone() {
        // As on a terminal; indicatif draws nothing when stderr is not one.
        let mut progress = Progress { terminal: true, bar: None };
        progress.report("uploading");
        assert!(progress.bar.is_none(), "a note outside a sweep makes no bar");
        progress.report(&step(2, 5, "rung 3"));
        let bar = progress.bar.clone().expect("a bar for a sweep");
        assert_eq!((bar.length(), bar.position(), bar.message()), (Some(5), 2, "rung 3".into()));
        progress.report("a note during the sweep");
        progress.report(&step(4, 5, "rung 5"));
        assert_eq!((bar.position(), bar.message()), (4, "rung 5".into()));
        progress.report(&step(0, 12, "tuning"));
        assert_eq!((bar.length(), bar.position()), (Some(12), 0));
    }
}
