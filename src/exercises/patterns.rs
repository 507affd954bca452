//! Memory-access patterns read off the emulator's access log: how many
//! 32-byte sectors each warp-wide global access touches (coalescing), and
//! how many distinct words of one shared-memory bank it hits (conflicts).
//!
//! The emulator runs each thread on its own; the accesses of a warp's lanes
//! that carry the same sequence number are taken as one instruction, which
//! holds for kernels whose lanes run the same code (every exercise).

use crate::emulator::{AccessKind, Logged};
use kernels_gpu::launch::Dim3;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::Location;

/// A site is uncoalesced when its accesses touch more than this many times
/// the sectors their bytes need (plus one per instruction, for buffers
/// that do not start on a sector).
const SECTOR_SLACK: u64 = 2;

/// Bank conflicts of this many ways or more fail the check.
const CONFLICT_WAYS: usize = 4;

/// Lanes an instruction needs for its pattern to count: a warp cut short
/// by the end of the data says little.
const MIN_LANES: usize = 8;

type Site = &'static Location<'static>;
type Instruction = (Dim3Key, u32, u32, bool);
type Dim3Key = (u32, u32, u32);

/// The accesses of each warp-wide instruction of one memory space.
fn instructions(log: &[Logged], shared: bool) -> BTreeMap<Instruction, Vec<&Logged>> {
    let mut groups: BTreeMap<Instruction, Vec<&Logged>> = BTreeMap::new();
    for entry in log.iter().filter(|e| e.shared == shared && e.kind != AccessKind::Atomic) {
        let key = ((entry.block.x, entry.block.y, entry.block.z), entry.thread / 32, entry.seq, entry.kind == AccessKind::Read);
        groups.entry(key).or_default().push(entry);
    }
    groups
}

/// Per source line: sectors touched, sectors needed, and the worst
/// instruction (its sectors, its lanes).
#[derive(Default)]
struct Sectors {
    touched: u64,
    needed: u64,
    instructions: u64,
    worst: (u64, usize),
}

/// Finds the global accesses that touch far more sectors than needed.
pub(super) fn uncoalesced(log: &[Logged], block: Dim3) -> Option<String> {
    let mut by_site: HashMap<(Site, bool), Sectors> = HashMap::new();
    for ((_, _, _, read), lanes) in instructions(log, false) {
        if lanes.len() < MIN_LANES {
            continue;
        }
        let sectors: HashSet<usize> = lanes.iter().map(|e| e.address / 32).collect();
        let words: HashSet<usize> = lanes.iter().map(|e| e.address / 4).collect();
        let needed = (words.len() * 4).div_ceil(32) as u64;
        let site = by_site.entry((lanes[0].site, read)).or_default();
        site.touched += sectors.len() as u64;
        site.needed += needed;
        site.instructions += 1;
        if sectors.len() as u64 > site.worst.0 {
            site.worst = (sectors.len() as u64, lanes.len());
        }
    }
    let mut bad: Vec<_> = by_site.into_iter().filter(|(_, s)| s.touched > SECTOR_SLACK * s.needed + s.instructions).collect();
    bad.sort_by_key(|((site, _), _)| (site.file(), site.line()));
    let ((site, read), worst) = bad.first()?;
    let verb = if *read { "reads" } else { "writes" };
    let (sectors, lanes) = worst.worst;
    let words = (lanes * 4).div_ceil(32);
    let across = if block.y > 1 { " (in a 2D block, threadIdx.x is the fastest-changing index within a warp)" } else { "" };
    Some(format!(
        "  - the global {verb} at {site}: one warp's {lanes} lanes touch {sectors} different 32-byte sectors where {words} would hold their data; over the whole launch {} sectors for {} needed\n  Neighbouring lanes should access neighbouring addresses: make threadIdx.x{across} walk the index that is contiguous in memory (the column of a row-major matrix), or stage through a shared tile so both the read and the write go along rows.",
        worst.touched, worst.needed
    ))
}

/// Finds shared-memory accesses with 4-way or worse bank conflicts.
pub(super) fn bank_conflicts(log: &[Logged]) -> Option<String> {
    // The worst conflict so far: its ways, its line, and (thread, word) of
    // the lanes in its busiest bank.
    type Conflict = (usize, Site, Vec<(u32, usize)>);
    let mut worst: Option<Conflict> = None;
    for (_, lanes) in instructions(log, true) {
        if lanes.len() < MIN_LANES {
            continue;
        }
        let mut banks: HashMap<usize, HashSet<usize>> = HashMap::new();
        for e in &lanes {
            banks.entry((e.address / 4) % 32).or_default().insert(e.address / 4);
        }
        let (bank, words) = banks.into_iter().max_by_key(|(bank, words)| (words.len(), std::cmp::Reverse(*bank)))?;
        let ways = words.len();
        if ways >= CONFLICT_WAYS && worst.as_ref().is_none_or(|(w, ..)| ways > *w) {
            let mut hitting: Vec<(u32, usize)> =
                lanes.iter().filter(|e| (e.address / 4) % 32 == bank).map(|e| (e.thread, e.address / 4)).collect();
            hitting.sort_unstable();
            worst = Some((ways, lanes[0].site, hitting));
        }
    }
    let (ways, site, hitting) = worst?;
    let shown: Vec<String> = hitting.iter().take(4).map(|(t, w)| format!("thread {t} → word {w}")).collect();
    Some(format!(
        "  - the shared access at {site} is a {ways}-way bank conflict: {}, … all in bank {} (a bank serves one word per cycle)\n  Bank = word index mod 32. A column of a 32-wide tile is all in one bank: pad each row to 33 words, or swizzle the column index (col ^ row).",
        shown.join(", "),
        hitting[0].1 % 32
    ))
}
