//! Everything the program writes: standard output without panics, and the
//! `--svg`/`--json`/`--tune-file` files, checked before any GPU work and
//! written independently of each other.

use crate::Failure;
use std::fs::OpenOptions;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// `print!` that returns a [`Failure`] instead of panicking when standard
/// output is closed or full.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::print(format_args!($($arg)*)) };
}

/// `println!` that returns a [`Failure`] instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::output::print(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {out, outln};

/// Writes to standard output. A reader that went away (`| head`) becomes
/// [`Failure::Closed`], which ends the program quietly; any other error
/// (a full disk) becomes one error line.
pub fn print(args: std::fmt::Arguments) -> Result<(), Failure> {
    io::stdout().lock().write_fmt(args).map_err(stdout_failure)
}

/// Flushes standard output before exiting, with the same rules as [`print()`].
pub fn flush() -> Result<(), Failure> {
    io::stdout().lock().flush().map_err(stdout_failure)
}

pub fn stdout_failure(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::Closed
    } else {
        Failure::Runtime(ptx_ladder::Error::new(format!("writing to standard output: {e}")))
    }
}

/// A line on standard error; if even that fails there is nobody to tell.
pub fn warn(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Checks, before any work, that `path` can be written: its folder exists
/// and accepts a new file, and the path is not a folder or a read-only
/// file. Nothing at `path` is created or changed.
pub fn check_writable(flag: &str, path: &Path) -> Result<(), Failure> {
    let usage = |why: String| Failure::Usage(format!("{flag} {}: {why}", path.display()));
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if path.file_name().is_none() || path.is_dir() {
        return Err(usage("is a folder, not a file".into()));
    }
    match std::fs::metadata(&folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(usage(format!("{} is not a folder", folder.display()))),
        Err(e) => return Err(usage(format!("folder {} cannot be used ({e})", folder.display()))),
    }
    if path.exists() {
        // Opening for appending changes nothing but needs write permission.
        OpenOptions::new().append(true).open(path).map_err(|e| usage(format!("cannot be written ({e})")))?;
        return Ok(());
    }
    // A probe file with a name no one else uses, removed at once.
    let probe = folder.join(format!(".ptx-ladder-write-probe-{}", std::process::id()));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| usage(format!("folder {} does not accept new files ({e})", folder.display())))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The output files of one run: each is written on its own, a failed one
/// does not stop the others, and [`Files::finish`] reports every failure.
#[derive(Default)]
pub struct Files {
    failed: Vec<String>,
}

impl Files {
    /// Writes `text` to `path` and says so on standard output.
    pub fn write(&mut self, path: &Path, text: &str) -> Result<(), Failure> {
        self.record(path, std::fs::write(path, text).map_err(|e| e.to_string()))
    }

    /// Records the outcome of writing `path` some other way.
    pub fn record(&mut self, path: &Path, outcome: Result<(), String>) -> Result<(), Failure> {
        match outcome {
            Ok(()) => outln!("wrote {}", path.display()),
            Err(e) => {
                self.failed.push(format!("{} ({e})", path.display()));
                Ok(())
            }
        }
    }

    /// One error naming every file that could not be written, if any.
    pub fn finish(self) -> Result<(), Failure> {
        if self.failed.is_empty() {
            Ok(())
        } else {
            Err(Failure::Runtime(ptx_ladder::Error::new(format!("could not write {}", self.failed.join("; ")))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ptx-ladder-output-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn usage_text(result: Result<(), Failure>) -> String {
        match result {
            Err(Failure::Usage(text)) => text,
            _ => panic!("expected a usage error"),
        }
    }

    #[test]
    fn writable_paths_pass_and_leave_nothing_behind() {
        let dir = scratch("ok");
        let file = dir.join("a.svg");
        assert!(check_writable("--svg", &file).is_ok());
        assert!(!file.exists());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the probe was removed");
        std::fs::write(&file, "keep").unwrap();
        assert!(check_writable("--svg", &file).is_ok());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn bad_paths_are_usage_errors_naming_the_flag() {
        let dir = scratch("bad");
        let text = usage_text(check_writable("--json", &dir.join("missing/out.json")));
        assert!(text.starts_with("--json ") && text.contains("cannot be used"), "{text}");
        assert!(usage_text(check_writable("--svg", &dir)).contains("is a folder"));
        std::fs::write(dir.join("file"), "").unwrap();
        assert!(usage_text(check_writable("--svg", &dir.join("file/x.svg"))).contains("not a folder"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn one_failed_file_does_not_stop_the_others() {
        let dir = scratch("files");
        let mut files = Files::default();
        files.write(&dir.join("missing/a.json"), "{}").unwrap();
        files.write(&dir.join("b.svg"), "<svg/>").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("b.svg")).unwrap(), "<svg/>");
        match files.finish() {
            Err(Failure::Runtime(e)) => assert!(e.message().contains("a.json"), "{e}"),
            _ => panic!("expected the failure to be reported"),
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
