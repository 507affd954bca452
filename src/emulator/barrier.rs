//! A barrier that knows where each member is: running, waiting (and at
//! which source line), or returned from the kernel.
//!
//! CUDA requires every thread of a block to reach the same
//! `__syncthreads()`; a barrier in a branch only some threads take, or
//! after some threads returned, is undefined behaviour. Hardware since
//! Volta counts arrivals per barrier id (an exited warp no longer counts),
//! so such a block may hang, or run on with threads that skipped work the
//! others depend on. The emulator decides as soon as no member is running:
//! if all are waiting at the same barrier it releases them; if some
//! returned, or they wait at different barriers, the block is broken and
//! the barrier says who is where. Members that return after the last
//! barrier are never waited for, so kernels that exit early there stay
//! silent.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Without progress for this long, a waiting member gives up: some member
/// is running and never arrives (a thread spinning forever).
const NO_PROGRESS_AFTER: Duration = Duration::from_secs(20);

/// What a member waiting at a broken barrier gets: the block must stop.
/// The member that found the mismatch also gets where everyone stood.
pub(super) struct Broken(pub Option<Mismatch>);

/// Where the members stood when the barrier could not complete.
pub(super) struct Mismatch {
    pub waiting: Vec<(String, Vec<u32>)>,
    pub exited: Vec<u32>,
}

#[derive(Clone, Copy, PartialEq)]
enum Status {
    Running,
    Waiting(&'static Location<'static>),
    Exited,
}

pub(super) struct Barrier {
    state: Mutex<State>,
    wake: Condvar,
    /// All members must wait at the same source line (`sync_threads`); a
    /// warp's lanes may meet at a shuffle from different lines (legal since
    /// Volta), so for them the lines only name where each waits.
    same_site: bool,
}

struct State {
    status: Vec<Status>,
    running: usize,
    generation: u64,
    broken: bool,
}

impl Barrier {
    pub fn new(members: u32) -> Barrier {
        let state = State { status: vec![Status::Running; members as usize], running: members as usize, generation: 0, broken: false };
        Barrier { state: Mutex::new(state), wake: Condvar::new(), same_site: true }
    }

    /// A warp's meeting point: lanes may arrive from different lines.
    pub fn warp(members: u32) -> Barrier {
        Barrier { same_site: false, ..Barrier::new(members) }
    }

    /// Every member running again, for the next block.
    pub fn reset(&self) {
        let mut s = self.state.lock().unwrap();
        s.status.fill(Status::Running);
        s.running = s.status.len();
        s.broken = false;
    }

    /// Waits until every member has arrived at `site`. `released` runs
    /// once, by the last to arrive, before anyone continues.
    pub fn wait(&self, member: u32, site: &'static Location<'static>, failed: &AtomicBool, released: impl FnOnce()) -> Result<(), Broken> {
        let mut s = self.state.lock().unwrap();
        s.status[member as usize] = Status::Waiting(site);
        s.running -= 1;
        if s.running == 0 {
            return match self.decide(&mut s) {
                None => {
                    released();
                    Ok(())
                }
                mismatch => Err(Broken(mismatch)),
            };
        }
        let generation = s.generation;
        let started = Instant::now();
        while s.generation == generation {
            if s.broken || failed.load(Ordering::Relaxed) {
                return Err(Broken(None));
            }
            if started.elapsed() > NO_PROGRESS_AFTER {
                let running: Vec<u32> = (0..s.status.len() as u32).filter(|&m| s.status[m as usize] == Status::Running).collect();
                failed.store(true, Ordering::Relaxed);
                panic!(
                    "no progress for {} s: thread(s) {} never reached a barrier the others wait at (spinning on a value no running thread will write?)",
                    NO_PROGRESS_AFTER.as_secs(),
                    super::findings::ranges(&running)
                );
            }
            s = self.wake.wait_timeout(s, Duration::from_millis(20)).unwrap().0;
        }
        Ok(())
    }

    /// The member returned from the kernel. If the others are all waiting,
    /// they wait in vain: the mismatch is returned.
    pub fn leave(&self, member: u32) -> Option<Mismatch> {
        let mut s = self.state.lock().unwrap();
        s.status[member as usize] = Status::Exited;
        s.running -= 1;
        let anyone_waiting = s.status.iter().any(|st| matches!(st, Status::Waiting(_)));
        if s.running == 0 && anyone_waiting { self.decide(&mut s) } else { None }
    }

    /// No member is running: release the waiting ones if they all wait at
    /// one barrier and none returned; otherwise mark the barrier broken.
    fn decide(&self, s: &mut State) -> Option<Mismatch> {
        let mut waiting: Vec<(&'static Location<'static>, Vec<u32>)> = Vec::new();
        let mut exited = Vec::new();
        for (member, status) in s.status.iter().enumerate() {
            match *status {
                Status::Waiting(site) => match waiting.iter_mut().find(|(at, _)| *at == site) {
                    Some((_, members)) => members.push(member as u32),
                    None => waiting.push((site, vec![member as u32])),
                },
                Status::Exited => exited.push(member as u32),
                Status::Running => {}
            }
        }
        self.wake.notify_all();
        let together = if self.same_site { waiting.len() == 1 } else { !waiting.is_empty() };
        if together && exited.is_empty() {
            s.status.fill(Status::Running);
            s.running = s.status.len();
            s.generation += 1;
            return None;
        }
        s.broken = true;
        let waiting = waiting.into_iter().map(|(site, members)| (site.to_string(), members)).collect();
        Some(Mismatch { waiting, exited })
    }
}
