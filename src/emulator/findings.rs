//! What the emulator's checkers report: bugs a GPU does not report itself
//! (it hangs, or computes garbage), each as a typed finding whose text a
//! learner can act on.

use kernels_gpu::launch::Dim3;
use std::fmt;
use std::panic::Location;

/// Findings of one kind listed in full; more are only counted.
const LISTED_PER_KIND: usize = 5;

/// One bug found in one launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    Barrier(BarrierMismatch),
    Race(Race),
    OutOfBounds(OutOfBounds),
}

/// A barrier (or a warp-wide exchange) that not every thread reaches: some
/// wait at it while others returned, or wait at another barrier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierMismatch {
    pub block: Dim3,
    /// `Some(w)`: the lanes of warp `w` at a shuffle or `mma` (lane
    /// numbers); `None`: the threads of the block at `sync_threads`.
    pub warp: Option<u32>,
    /// The threads waiting, grouped by the barrier's source location.
    pub waiting: Vec<(String, Vec<u32>)>,
    /// The threads that had already returned from the kernel.
    pub exited: Vec<u32>,
}

/// The three orders in which two unsynchronised accesses to one address
/// can go wrong (compute-sanitizer racecheck's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// A thread read what another wrote: it may as well have read the old value.
    ReadAfterWrite,
    /// A thread overwrote what another read: the reader may see the new value.
    WriteAfterRead,
    /// Two threads wrote different values: which one stays is luck.
    WriteAfterWrite,
    /// Shared memory read while a `cp.async` copy into it was still in
    /// flight (its thread had not waited for it; a barrier does not).
    UnwaitedCopy,
}

/// Two threads of a block touching the same shared-memory word, at least
/// one writing, with no barrier between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    pub block: Dim3,
    pub hazard: Hazard,
    /// Byte offset of the word in the block's shared memory.
    pub offset: u32,
    /// The thread whose access the emulator saw first, and the other.
    pub first: u32,
    pub second: u32,
    /// The source lines of the two accesses (none for a `cp.async` copy).
    pub first_at: Option<&'static Location<'static>>,
    pub second_at: Option<&'static Location<'static>>,
}

/// A load or store through the device helpers outside every buffer the
/// launch declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    pub block: Dim3,
    pub thread: u32,
    pub write: bool,
    pub address: usize,
    pub bytes: u32,
    /// The closest buffer's name, and where the access lies from it.
    pub nearest: Option<(String, String)>,
}

/// Everything the checkers found in one launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub kernel: String,
    /// At most a few of each kind, in the order found.
    pub findings: Vec<Finding>,
    /// Findings beyond those listed.
    pub unlisted: usize,
}

impl Report {
    pub fn new(kernel: &str) -> Report {
        Report { kernel: kernel.to_string(), findings: Vec::new(), unlisted: 0 }
    }

    /// Adds a finding, or only counts it once a few of its kind are listed.
    pub(super) fn add(&mut self, finding: Finding) {
        let same_kind = self.findings.iter().filter(|f| std::mem::discriminant(*f) == std::mem::discriminant(&finding)).count();
        if same_kind < LISTED_PER_KIND {
            self.findings.push(finding);
        } else {
            self.unlisted += 1;
        }
    }

    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    pub fn barrier_mismatches(&self) -> impl Iterator<Item = &BarrierMismatch> {
        self.findings.iter().filter_map(|f| if let Finding::Barrier(b) = f { Some(b) } else { None })
    }

    pub fn races(&self) -> impl Iterator<Item = &Race> {
        self.findings.iter().filter_map(|f| if let Finding::Race(r) = f { Some(r) } else { None })
    }

    pub fn out_of_bounds(&self) -> impl Iterator<Item = &OutOfBounds> {
        self.findings.iter().filter_map(|f| if let Finding::OutOfBounds(o) = f { Some(o) } else { None })
    }
}

/// Thread numbers as ranges: `0-63, 65, 70-127`.
pub(super) fn ranges(threads: &[u32]) -> String {
    let mut sorted = threads.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        while i + 1 < sorted.len() && sorted[i + 1] == sorted[i] + 1 {
            i += 1;
        }
        parts.push(if sorted[i] == start { start.to_string() } else { format!("{start}-{}", sorted[i]) });
        i += 1;
    }
    parts.join(", ")
}

fn threads(list: &[u32], noun: &str) -> String {
    let plural = if list.len() == 1 { "" } else { "s" };
    format!("{noun}{plural} {}", ranges(list))
}

fn block(b: Dim3) -> String {
    format!("block ({}, {}, {})", b.x, b.y, b.z)
}

impl fmt::Display for BarrierMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = match self.warp {
            Some(w) => {
                write!(f, "warp shuffle or mma not reached by every lane of warp {w} of {}: ", block(self.block))?;
                "lane"
            }
            None => {
                write!(f, "barrier (sync_threads) not reached by every thread of {}: ", block(self.block))?;
                "thread"
            }
        };
        let mut parts: Vec<String> = self
            .waiting
            .iter()
            .map(|(site, waiting)| format!("{} wait{} at {site}", threads(waiting, noun), if waiting.len() == 1 { "s" } else { "" }))
            .collect();
        if !self.exited.is_empty() {
            parts.push(format!("{} already returned and will never arrive", threads(&self.exited, noun)));
        }
        write!(f, "{}", parts.join("; "))?;
        if self.waiting.len() > 1 {
            f.write_str(" (threads at different barriers do not wait for each other)")?;
        }
        f.write_str(". On a GPU the block hangs, or runs on with undefined results")
    }
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Hazard::ReadAfterWrite => "read-after-write",
            Hazard::WriteAfterRead => "write-after-read",
            Hazard::WriteAfterWrite => "write-after-write",
            Hazard::UnwaitedCopy => "copy-in-flight",
        })
    }
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shared-memory race, {}: {} hazard at shared byte {} (word {}): ",
            block(self.block),
            self.hazard,
            self.offset,
            self.offset / 4
        )?;
        let (first, second) = (self.first, self.second);
        match self.hazard {
            Hazard::UnwaitedCopy => write!(
                f,
                "thread {first} started a cp.async copy into it and had not waited for it (cp_async_wait) when thread {second} touched it; a barrier does not wait for copies, so on a GPU the data may not be there yet"
            ),
            hazard => {
                let (did, then) = match hazard {
                    Hazard::ReadAfterWrite => ("wrote", "read"),
                    Hazard::WriteAfterRead => ("read", "wrote"),
                    _ => ("wrote", "wrote another value to"),
                };
                write!(
                    f,
                    "thread {first} {did} it{}, then thread {second} {then} it{}, with no barrier between; on a GPU the order is not fixed",
                    at(self.first_at),
                    at(self.second_at)
                )
            }
        }
    }
}

/// " (at src/file.rs:12:5)", or nothing when the line is not known.
fn at(site: Option<&'static Location<'static>>) -> String {
    site.map(|s| format!(" (at {s})")).unwrap_or_default()
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out-of-bounds {} of {} bytes at {:#x}, thread {} of {}",
            if self.write { "write" } else { "read" },
            self.bytes,
            self.address,
            self.thread,
            block(self.block)
        )?;
        match &self.nearest {
            Some((_, relation)) => write!(f, ": {relation}")?,
            None => f.write_str(": the launch declared no buffer near it")?,
        }
        f.write_str("; on a GPU this reads garbage, corrupts another buffer or faults")
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Barrier(b) => b.fmt(f),
            Finding::Race(r) => r.fmt(f),
            Finding::OutOfBounds(o) => o.fmt(f),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_clean() {
            return write!(f, "{}: no findings", self.kernel);
        }
        let total = self.findings.len() + self.unlisted;
        write!(f, "{}: {total} finding{}", self.kernel, if total == 1 { "" } else { "s" })?;
        for finding in &self.findings {
            write!(f, "\n  - {finding}")?;
        }
        if self.unlisted > 0 {
            write!(f, "\n  - and {} more of the same kinds", self.unlisted)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_lists_compress_into_ranges() {
        assert_eq!(ranges(&[5, 0, 1, 2, 3, 9, 10, 7]), "0-3, 5, 7, 9-10");
        assert_eq!(ranges(&[4]), "4");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn reports_list_a_few_of_each_kind_and_count_the_rest() {
        let mut report = Report::new("k");
        assert_eq!(report.to_string(), "k: no findings");
        let race = |offset| {
            let (block, hazard) = (Dim3::new(0, 0, 0), Hazard::ReadAfterWrite);
            Finding::Race(Race { block, hazard, offset, first: 1, second: 2, first_at: None, second_at: None })
        };
        for offset in 0..7 {
            report.add(race(4 * offset));
        }
        let oob = OutOfBounds { block: Dim3::new(1, 0, 0), thread: 3, write: true, address: 0x10, bytes: 4, nearest: None };
        report.add(Finding::OutOfBounds(oob));
        assert_eq!((report.findings.len(), report.unlisted), (LISTED_PER_KIND + 1, 2));
        let text = report.to_string();
        assert!(text.starts_with("k: 8 findings"), "{text}");
        assert!(text.contains("read-after-write hazard at shared byte 4 (word 1): thread 1 wrote it, then thread 2 read it"), "{text}");
        assert!(text.contains("out-of-bounds write of 4 bytes at 0x10, thread 3 of block (1, 0, 0)"), "{text}");
        assert!(text.ends_with("and 2 more of the same kinds"), "{text}");
    }
}
