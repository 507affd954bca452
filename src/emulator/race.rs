//! Shared-memory race detection, in the spirit of compute-sanitizer's
//! racecheck: within one barrier interval (between two `sync_threads`
//! of the block), two different threads touching the same 32-bit word,
//! at least one of them writing, is a hazard. Nothing but a barrier orders
//! the threads of a block, so the emulator's order is only one of those a
//! GPU may pick.
//!
//! Decisions, kept simple and sound for the ladder:
//! - lanes of one warp count as different threads: since Volta a warp's
//!   lanes are not guaranteed to run in lockstep, and warp shuffles and
//!   `mma` exchange registers, not memory;
//! - two writes of the same value are not a hazard (the result does not
//!   depend on their order);
//! - atomics are never a hazard with each other, and are not tracked;
//! - a `cp.async` copy counts as written by its thread when issued (the
//!   emulator copies at once), and its destination stays in flight until
//!   that thread's `cp_async_wait` retires the copy's group: any read of it
//!   before then, by any thread and across barriers (a barrier does not
//!   wait for copies), or a write by another thread, is a hazard.

use super::findings::Hazard;
use kernels_gpu::gpu::emulated::{Access, AccessKind};
use std::panic::Location;
use std::sync::Mutex;

const NOBODY: u32 = u32::MAX;

/// Who touched one word in the current interval.
#[derive(Clone, Copy)]
struct Word {
    interval: u64,
    writer: u32,
    value: u32,
    /// Up to two different readers: enough to find a reader other than
    /// any given writer.
    readers: [u32; 2],
    /// Where the writer and the readers made their accesses.
    writer_site: Site,
    reader_sites: [Site; 2],
    /// A hazard on this word was already reported in this interval.
    reported: bool,
    /// The thread whose `cp.async` copy to this word has not landed yet
    /// (kept across intervals).
    in_flight: u32,
}

type Site = Option<&'static Location<'static>>;

const FRESH: Word = Word {
    interval: 0,
    writer: NOBODY,
    value: 0,
    readers: [NOBODY; 2],
    writer_site: None,
    reader_sites: [None; 2],
    reported: false,
    in_flight: NOBODY,
};

/// One shadow word per 32-bit word of the block's shared memory, locked
/// in 16-byte chunks: threads touching different chunks never wait for each
/// other, and a 16-byte access (always aligned) takes one lock.
pub(super) struct Shadow {
    chunks: Vec<Mutex<[Word; 4]>>,
}

/// A hazard found on the word at `offset` (bytes).
pub(super) struct Found {
    pub hazard: Hazard,
    pub offset: u32,
    pub first: u32,
    pub second: u32,
    /// Where the first and the second access were made (none for a copy
    /// in flight: the copy has no line of its own).
    pub first_at: Site,
    pub second_at: Site,
}

impl Shadow {
    pub fn new(bytes: u32) -> Shadow {
        Shadow { chunks: (0..bytes.div_ceil(16)).map(|_| Mutex::new([FRESH; 4])).collect() }
    }

    /// Records `access` by `thread` at byte `offset` during barrier
    /// interval `interval` (intervals only grow, so old entries expire by
    /// themselves). Returns the first new hazard, if any.
    pub fn record(&self, interval: u64, thread: u32, offset: usize, access: Access) -> Option<Found> {
        if access.kind == AccessKind::Atomic {
            return None;
        }
        let mut found = None;
        let first = offset / 4;
        // A 16-bit access counts as one on its whole word: two threads
        // writing the two halves of a word are reported (conservatively).
        let touched = access.bytes.div_ceil(4) as usize;
        let mut i = 0;
        while i < touched {
            let index = first + i;
            let Some(chunk) = self.chunks.get(index / 4) else {
                break;
            };
            let mut words = chunk.lock().unwrap();
            // Every word of this access that lies in this chunk.
            while i < touched && (first + i) / 4 == index / 4 {
                let index = first + i;
                let word = &mut words[index % 4];
                if let Some(f) = update(word, interval, thread, access, i) {
                    found.get_or_insert(Found { offset: (index * 4) as u32, ..f });
                }
                i += 1;
            }
        }
        found
    }
}

impl Shadow {
    /// Marks (or, with `in_flight` false, unmarks) `thread`'s `cp.async`
    /// destination as in flight.
    pub fn mark_copy(&self, thread: u32, offset: usize, bytes: u32, in_flight: bool) {
        for index in offset / 4..(offset + bytes as usize).div_ceil(4) {
            let Some(chunk) = self.chunks.get(index / 4) else {
                break;
            };
            let word = &mut chunk.lock().unwrap()[index % 4];
            if in_flight {
                word.in_flight = thread;
            } else if word.in_flight == thread {
                word.in_flight = NOBODY;
            }
        }
    }

    /// Forgets every copy in flight: a new block starts.
    pub fn clear_copies(&self) {
        for chunk in &self.chunks {
            for word in chunk.lock().unwrap().iter_mut() {
                word.in_flight = NOBODY;
            }
        }
    }
}

/// Applies one word of an access; returns a hazard (offset not yet set).
fn update(word: &mut Word, interval: u64, thread: u32, access: Access, i: usize) -> Option<Found> {
    if word.interval != interval {
        *word = Word { interval, in_flight: word.in_flight, ..FRESH };
    }
    let copying = word.in_flight;
    let unwaited = copying != NOBODY && (access.kind == AccessKind::Read || copying != thread);
    let hazard = match access.kind {
        AccessKind::Read => {
            if word.readers[0] == NOBODY {
                (word.readers[0], word.reader_sites[0]) = (thread, Some(access.site));
            } else if word.readers[0] != thread && word.readers[1] == NOBODY {
                (word.readers[1], word.reader_sites[1]) = (thread, Some(access.site));
            }
            (word.writer != NOBODY && word.writer != thread).then_some((Hazard::ReadAfterWrite, word.writer, word.writer_site))
        }
        _ => {
            let value = access.words[i];
            let reader = word.readers.into_iter().zip(word.reader_sites).find(|&(r, _)| r != NOBODY && r != thread);
            let hazard = if let Some((reader, site)) = reader {
                Some((Hazard::WriteAfterRead, reader, site))
            } else if word.writer != NOBODY && word.writer != thread && word.value != value {
                Some((Hazard::WriteAfterWrite, word.writer, word.writer_site))
            } else {
                None
            };
            (word.writer, word.value, word.writer_site) = (thread, value, Some(access.site));
            hazard
        }
    };
    let hazard = if unwaited { Some((Hazard::UnwaitedCopy, copying, None)) } else { hazard };
    let (hazard, other, other_site) = hazard?;
    if word.reported {
        return None;
    }
    word.reported = true;
    Some(Found { hazard, offset: 0, first: other, second: thread, first_at: other_site, second_at: Some(access.site) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read() -> Access {
        Access { kind: AccessKind::Read, bytes: 4, words: [0; 4], site: Location::caller() }
    }

    fn write(value: u32) -> Access {
        Access { kind: AccessKind::Write, bytes: 4, words: [value, 0, 0, 0], site: Location::caller() }
    }

    #[test]
    fn hazards_between_threads_within_one_interval() {
        let shadow = Shadow::new(64);
        // A thread reading and writing its own word is fine.
        assert!(shadow.record(1, 3, 12, write(1)).is_none());
        assert!(shadow.record(1, 3, 12, read()).is_none());
        let raw = shadow.record(1, 4, 12, read()).expect("read after another's write");
        assert_eq!((raw.hazard, raw.offset, raw.first, raw.second), (Hazard::ReadAfterWrite, 12, 3, 4));
        // Reported once per word and interval.
        assert!(shadow.record(1, 5, 12, read()).is_none());
        let war = shadow.record(1, 7, 16, read()).xor(shadow.record(1, 8, 16, write(2))).unwrap();
        assert_eq!((war.hazard, war.first, war.second), (Hazard::WriteAfterRead, 7, 8));
        // Same value twice is benign; a different value is not.
        assert!(shadow.record(1, 1, 20, write(9)).is_none());
        assert!(shadow.record(1, 2, 20, write(9)).is_none());
        let waw = shadow.record(1, 6, 20, write(10)).unwrap();
        assert_eq!((waw.hazard, waw.first, waw.second), (Hazard::WriteAfterWrite, 2, 6));
    }

    #[test]
    fn a_copy_in_flight_is_a_hazard_until_its_thread_waits() {
        let shadow = Shadow::new(32);
        shadow.mark_copy(2, 0, 16, true);
        // A barrier (a new interval) does not land the copy.
        let early = shadow.record(5, 3, 4, read()).unwrap();
        assert_eq!((early.hazard, early.offset, early.first, early.second), (Hazard::UnwaitedCopy, 4, 2, 3));
        assert_eq!(shadow.record(5, 2, 8, read()).map(|f| f.hazard), Some(Hazard::UnwaitedCopy));
        // Another thread's copy to other words is no business of thread 2.
        shadow.mark_copy(2, 0, 16, false);
        assert!(shadow.record(6, 3, 4, read()).is_none());
        shadow.mark_copy(1, 16, 4, true);
        shadow.clear_copies();
        assert!(shadow.record(7, 3, 16, read()).is_none());
    }

    #[test]
    fn a_barrier_between_the_accesses_removes_the_hazard() {
        let shadow = Shadow::new(16);
        assert!(shadow.record(1, 0, 0, write(1)).is_none());
        assert!(shadow.record(2, 1, 0, read()).is_none());
        assert!(shadow.record(3, 2, 0, write(5)).is_none());
        let atomic = Access { kind: AccessKind::Atomic, bytes: 4, words: [0; 4], site: Location::caller() };
        assert!(shadow.record(3, 3, 0, atomic).is_none());
        // A 16-byte access reports its first hazardous word.
        let wide = Access { kind: AccessKind::Read, bytes: 16, words: [0; 4], site: Location::caller() };
        assert_eq!(shadow.record(3, 4, 0, wide).map(|f| f.offset), Some(0));
    }
}
